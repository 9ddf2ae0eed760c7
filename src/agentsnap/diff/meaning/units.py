"""The units of an answer and how alike two units are.

:func:`split_units` cuts a text into sentences and list items (Markdown
stripped; a list item or a sentence opened by a sequence word is a *step*),
each a :class:`Unit` with its facts, content words and polarity markers; the
similarity helpers compare units by character trigrams and normalise model
vectors. :mod:`agentsnap.diff.meaning.verdict` aligns and judges them.
"""

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from . import facts as F
from . import vocabulary as V
from .layout import label_names, separate
from .phrasing import clock_words, spelled_facts

__all__ = ["Unit", "edges", "split_units"]


@dataclass
class Unit:
    """One sentence or list item: its text, whether it is a step, its facts, content words and polarity markers."""

    text: str
    step: bool
    facts: list[F.Fact] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    filler: bool = False
    #: a courtesy phrase is in it ("let me know", "vielen Dank"), and its content words besides
    rest: list[str] | None = None
    #: a Markdown heading ("## Next steps"): a label, not a claim, unless it states a fact
    heading: bool = False
    #: talk between the speaker and the reader that states nothing of the world: the speaker's
    #: feelings or offers ("I'm sorry to be the bearer of bad news", "just let me know and I'll
    #: help"), an offer on a condition ("If you run into trouble…"), an exclamation; no fact, no
    #: negation outside courtesy idioms, no additive word ("also", "auch", "además"), no conclusion
    addressed: bool = False
    #: a label and its value ("**Carrier:** Colissimo", a table row): prose says it with more words
    labelled: bool = False
    #: a step opened by a sequence word ("First…", "then…", "finally…"): its place is its meaning
    sequenced: bool = False
    #: a line of the signature that closes a message ("Tom, Leasing Office", "Dr. Anna Keller")
    signature: bool = False
    #: a table's data row: its cells are what the row says of its first cell, not clauses
    row: bool = False

    def harmless(self, what: str) -> str:
        """How this unit is named where harmless: a heading or table header a label, a
        signature, courtesy."""
        kind = "label" if self.heading else "signature" if self.signature else "courtesy"
        return f"{kind} {what}"


# --------------------------------------------------------------------------- units

_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_QUOTE = re.compile(r"^\s*>+\s?")
_ITEM = re.compile(
    r"^\s*(?:[-*+•·]|\d{1,2}[.)]|\(\d{1,2}\)|[a-z][.)]|(?:step|schritt|étape)\s*\d+\s*[:.)-])\s+",
    re.IGNORECASE,
)
#: emphasis: ``**x**``, ``*x*``, and ``_x_`` / ``__x__`` only outside a word (``test_login`` keeps its ``_``)
_EMPHASIS = re.compile(r"(\*\*|\*|(?<!\w)__|(?<!\w)_)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")
_SENTENCE = re.compile(
    r"(?<=[.!?])\s+(?=[\"'(\[¿¡]?[A-ZÀ-ÖØ-Þ0-9\u3040-\u30ff\u4e00-\u9fff])|(?<=[。！？])"
)
#: "next" as a sequence word; "next time", "next week" name an occasion
_NEXT = r"next(?! (?:time|week|month|year|day|visit)\b)"
_SEQUENCE = re.compile(
    r"^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|"
    + _NEXT
    + r"|after that|afterwards|finally|lastly|"
    r"zuerst|zunächst|erstens|dann|danach|anschließend|schließlich|zum schluss|"
    r"d'abord|tout d'abord|ensuite|puis|enfin|pour finir|"
    r"まず|次に|それから|最後に|その後)\b",
    re.IGNORECASE,
)

#: the words that close a message before its signature ("Best regards", "Mit freundlichen Grüßen")
_SIGN_OFF = (
    r"(?:(?:best|kind|warm|warmest|many) regards|regards|best wishes|yours sincerely|sincerely|"
    r"(?:mit )?(?:freundlichen|besten|herzlichen|lieben|vielen) grüßen|(?:viele|beste|liebe|herzliche) grüße|"
    r"(?:bien |très )?cordialement|bien à vous|salutations distinguées|"
    r"(?:un )?(?:cordial )?saludo(?:s)?(?: cordial(?:es)?)?|atentamente)"
)
_COURTESY = re.compile(
    r"\b" + _SIGN_OFF + r"\b|"
    r"\b(?:we look forward to|looking forward to|wir freuen uns (?:auf|über)|nous nous réjouissons|"
    r"nos alegra|(?:quedamos|quedo|estamos) a su disposición|para cualquier (?:duda|consulta)|"
    r"we(?:'d| would) love to (?:see|welcome|have) you|(?:just )?come along|wir würden uns freuen|"
    r"nous serions ravis de vous (?:voir|accueillir)|nos encantaría (?:verle|verte|verles))\b|"
    r"\b(?:hi|hello|hey|dear|thanks?|thank you|you're welcome|sure|certainly|of course|absolutely|"
    r"great question|good question|no problem|happy to help|glad to help|i'd be happy|i would be happy|"
    r"i'?m happy|i'?m glad|hope (?:this|that) helps|i hope|let me know|feel free|don't hesitate|do not hesitate|"
    r"if you have any (?:other |more |further )?questions|anything else|have a (?:great|nice|good) day|"
    r"here(?:'s| is| are)|as requested|good news|great news|sorry for|apolog\w+|please note|okay|ok|alright|done|"
    r"hallo|guten tag|danke|vielen dank|gerne|gern geschehen|natürlich|klar|ich hoffe|das hilft|"
    r"melden sie sich|bei fragen|weitere fragen|hier ist|hier sind|schönen tag|"
    r"bonjour|merci|bien sûr|avec plaisir|volontiers|voici|n'hésitez pas|j'espère|"
    r"si vous avez des questions|bonne journée|d'accord|parfait|"
    r"(?:best of |good )luck|wishing you|sorry (?:to hear|about|for)|i(?:'m| am) (?:really |so )?sorry|"
    r"thanks? (?:so much |a lot )?for|i (?:completely |totally |fully |really )?understand|i know (?:that|this|it)|i(?:'ll| will) keep an eye|"
    r"if (?:that's|that is|it's) (?:useful|helpful)|just so you know|having (?:read|looked)|"
    r"as far as i can tell|my understanding is|it seems|here's (?:the|what)|let us know|"
    r"happy to|glad to|feel free|reach out|get(?:ting)? in touch|"
    r"vielen dank|danke (?:für|schön)|soweit ich|sag(?:en sie)? (?:gern )?bescheid|ich hoffe|gute frage|"
    r"melden sie sich|viel erfolg|"
    r"j'espère|bon courage|excellente question|merci (?:pour|de|beaucoup)|désolée?|"
    r"muchas gracias|gracias por|no dude en|si necesita|espero que|lo siento|buena pregunta|"
    r"le confirmo|he revisado|we hope|hope you enjoy|enjoy the rest of|wir hoffen|nous espérons|"
    r"esperamos|es tut (?:mir|uns) leid|tut mir leid|das verstehe ich|ich verstehe|at your disposal|"
    r"here to help|à votre disposition|à votre écoute|a su disposición|a tu disposición|für sie da|"
    r"stehe ich (?:ihnen )?gerne zur verfügung|"
    r"i(?:'ve| have) (?:just )?(?:checked|looked into|looked at|reviewed|gone through|gone over)"
    r"(?: \w+){0,3} and (?:can )?confirm(?: that)?|i can confirm(?: that)?|"
    r"i(?:'ve| have) (?:just )?confirmed(?: with (?:the |your )?[\w' ]{1,30}?)? that|"
    r"ich habe mich (?:sofort |gleich |direkt )?darum gekümmert|je (?:vous )?confirme que|"
    r"schade, dass|dommage que|qué pena que|lástima que)\b|"
    r"お待ちしております|お待ちしています|"
    r"こんにちは|ありがとうございます|かしこまりました|承知しました|もちろん|お気軽に|ご不明な点|"
    r"よろしくお願い(?:します|いたします|申し上げます)|お役に立て|以下の通り|以下のとおり|お問い合わせください|お問い合わせ|"
    r"ご確認ありがとう|ありがとう|お伝えします|お伝えしますね|いつでも|聞いてください|お気軽|"
    r"申し訳|恐れ入り|お待たせ|気になる点|ご質問|お忘れなく|忘れずに|ご[\u4e00-\u9fff]{1,4}の際[はに]?|"
    r"\b(?:(?:don't|do not) forget to|remember to|vergessen sie nicht|n'oubliez pas)\b",
    re.IGNORECASE,
)
#: the speaker or the reader addressed: first person singular, or an offer on a condition
_ADDRESSING = re.compile(
    r"\b(?:i|i'm|i'll|i've|i'd|me|my|je|j'|moi|ich|mir|mich|yo|estoy|estamos|aquí estamos)\b|"
    r"^(?:if you|should you|si vous|si tu|si usted|si necesitas|si necesita|si cambias|wenn sie|"
    r"falls sie|wenn du|falls du|feel free|please (?:don't|do not) hesitate|(?:don't|do not) hesitate|"
    r"n'hésitez pas|no dude|zögern sie nicht|bei (?:weiteren )?fragen|let (?:me|us) know|"
    r"thanks?|thank you|many thanks|vielen dank|danke|merci|gracias|muchas gracias|"
    r"(?:i )?hope|hoping|happy to|glad to)\b|[!！]\s*$|私|お気軽",
    re.IGNORECASE,
)
#: a sentence that draws the answer's conclusion or gives its recommendation; what follows the cue
#: is the conclusion itself
_CONCLUSION = re.compile(
    r"\b(?:(?<!of )recommend\w*|therefore|thus|hence|verdict|conclusion|decision|is the better|better option|"
    r"you should|we suggest|i suggest|safe to|ready to|good to go|hold off|go ahead|"
    r"(?:do not|don't|should not|shouldn't) (?:merge|deploy|ship|proceed|release|upgrade|buy|sign|book)|"
    r"daher|deshalb|somit|empfehl\w*|fazit|raten (?:wir|ihnen)|"
    r"donc|(?<!de )recommand(?!ée?s?\b)\w*|il est préférable|par conséquent|mieux vaut|conseill\w*|"
    r"por lo tanto|así que|por eso|conviene|recomiendo|recomendación|aconsej\w*)\b|"
    r"おすすめ|推奨|したがって|結論|べき",
    re.IGNORECASE,
)
#: a greeting or a sign-off ("Hi Sam,", "Guten Tag Frau Becker,", "Best regards, Priya"): the
#: names in it address or sign; they are no facts of the answer
_SALUTATION = re.compile(
    r"^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|guten (?:tag|morgen|abend)|hallo|"
    r"liebe[rs]?|sehr geehrte[rs]?|bonjour|bonsoir|cher|chère|hola|buenos días|buenas tardes|"
    r"estimad[oa]s?)\b|"
    # a sign-off stands alone ("Best,", "Kind regards"): "Best practice is…" is no sign-off
    r"^(?:best|regards|kind regards|best regards|warm regards|cheers|many thanks|viele grüße|"
    r"beste grüße|mit freundlichen grüßen|freundliche grüße|herzliche grüße|liebe grüße|"
    r"(?:bien |très )?cordialement|bien à vous|salutations distinguées|saludos|un (?:cordial )?saludo|"
    r"atentamente|thanks again|many thanks again)[\s,!.]*$|(?-i:^[-—–]\s*[A-ZÀ-Þ][\w.-]*(?:,?\s+[A-ZÀ-Þ][\w.-]*){0,3}$)|"
    r"^こんにちは|^[^\s]{1,10}様",
    re.IGNORECASE,
)
#: a sign-off closing a sentence, and what follows it ("… – mit freundlichen Grüßen, Ihr
#: Besucherservice", "Best regards, the Developer Support team")
_CLOSING = re.compile(
    r"(?:^|[–—;,.!]\s*|\s(?:and|und|et|y)\s+)" + _SIGN_OFF + r"\b[\s,!.]*(.*)$", re.I
)
#: a signature line: at most six capitalised words (a title, a name, a team, a company), no digit,
#: no colon, no sentence end ("Tom, Leasing Office", "— Marta, Soporte", "Dr. Anna Keller")
_SIGNATURE = re.compile(
    r"^(?:[-—–]\s*)?(?:(?:[Dd]r|[Mm]rs?|[Mm]s|[Pp]rof)\.\s*)?[A-ZÀ-Þ][^\W\d_]*(?:[-'’][^\W\d_]+)?"
    r"(?:,?\s+(?:(?:of|de|la|du|des|für|am|im|vom|von|zum|zur|the|and|y|et|&)\s+)?[A-ZÀ-Þ][^\W\d_]*(?:[-'’][^\W\d_]+)?){0,5},?$|"
    # a team signs: "the Hive team", "das Support-Team", "l'équipe Parcelo", "el equipo de Rentacar"
    r"^(?i:the\s+)?[A-ZÀ-Þ][\w&.-]*(?:\s+[A-ZÀ-Þ][\w&.-]*){0,3}\s+(?i:team|crew|support)$|"
    r"^(?i:(?:das|ihr|euer)\s+)[\w-]*(?i:team|service)$|^(?i:l'équipe|el equipo(?: de)?)\s+[A-ZÀ-Þ][\w.-]*$|"
    # a department signs after a sign-off, its article lower-case: "le Service client"
    r"^(?:le|la|les|el|los|the|der|die|das)\s+[A-ZÀ-Þ][\w.-]*(?:\s+[^\W\d_]+){0,2}$"
)
#: a greeting's first words and the names right after it ("Hola, Marta", "Hi Sam and Priya")
_ADDRESSEE = re.compile(
    r"^[^\W\d_]+(?:\s+[^\W\d_]+)?[,\s]+(?-i:[A-ZÀ-Þ][^\W\d_]*(?:(?:\s+|\s*(?:and|und|et|y)\s+)[A-ZÀ-Þ][^\W\d_]*){0,2})",
    re.IGNORECASE,
)
#: thanks for the reader's request, or the request restated, opening a sentence ("Thank you for
#: applying to our Master's programme", "Good question — you asked why CI is red", "Vielen Dank
#: für Ihre Anfrage zum Tarif X"): the names in that clause are what the reader named, no claim
_THANKED = re.compile(
    r"^(?:(?:many |so )?thanks?(?: you)?(?: so much| a lot)? for|(?:good|great) question|you asked|"
    r"(?:vielen )?dank für|danke für|gute frage|sie fragten|merci (?:pour|de|d')|excellente question|"
    r"vous demandiez|gracias por|buena pregunta|preguntaba)(?:\s*[—–-]\s*you asked\b)?\b[^,;.!?:—–]*",
    re.IGNORECASE,
)
#: an apology or sympathy that opens a sentence ("Sorry about the trouble…", "Es tut mir leid…")
_SYMPATHY = re.compile(
    r"^(?:i (?:completely |totally |fully |really )?understand (?:how|that|why|your)|ich verstehe|"
    r"je comprends|entiendo|comprendo|(?:so |really |very )?sorry|(?:we(?:'re| are)|i(?:'m| am)) (?:so |really |very |truly )?sorry|apologies|"
    r"es tut (?:mir|uns) leid|tut mir leid|entschuldigen sie|désolée?|nous sommes (?:vraiment |sincèrement )?désolés|"
    r"je suis (?:vraiment )?désolée?|lo siento|lamentamos|sentimos|申し訳)",
    re.IGNORECASE,
)
#: pronouns the stop words leave ("Ihre Nachricht", "dass Sie uns verlassen"): no content
_OBJECT_PRONOUNS = frozenset(
    "ihre ihrer ihren ihrem ihres uns unsere unserer unseren unserem euch".split()  # noqa: SIM905
)
#: an additive word: a sentence with one adds a claim ("you'll also receive a refund")
_ADDITIVE = re.compile(
    r"\b(?:also|too|as well|additionally|in addition|plus|moreover|auch|zusätzlich|außerdem|"
    r"aussi|également|de plus|en plus|también|además)\b|も含|さらに",
    re.IGNORECASE,
)
#: idioms of comfort whose negation negates no fact
_COMFORT = re.compile(
    r"\b(?:oh no|don't worry|do not worry|no worries|nothing to worry about|keine sorge|"
    r"ne vous inquiétez pas|ne t'inquiète pas|no te preocupes|no se preocupe|"
    r"(?:can't|cannot|can hardly) wait|(?:that's|that is|it's|it is) never (?:fun|easy|nice|pleasant))\b",
    re.IGNORECASE,
)

#: content words that carry no claim in an added or dropped sentence (narration, courtesy)
_NARRATION = frozenset(
    V.content_words(
        "check checked look looked found find result results summary information details detail help helps "
        "question questions answer request happy glad hope know need anything else feel free sure certainly "
        "course great thanks thank welcome assist reach further additional today please day nice good note "
        "below above following overview quick short brief update updates hesitate here something else want "
        "like would love me happy ask asked just let okay right away looked into it everything "
        "gerne hilfe fragen frage helfen weitere hoffe melden hier folgenden überblick "
        "aide questions voici suivant plaisir besoin autre chose "
        # wishes, thanks, apologies, sympathy, offers and hedges (English)
        "hoping helpful useful luck best wish wishing wishes sorry apologies apologize apologise "
        "inconvenience worry worries frustrating frustration understand understanding disappointing "
        "patience appreciate appreciated explain happened walk keep eye dig deeper ring bell message "
        "comes reaching checking pleasure delighted awesome excellent wonderful fantastic lovely "
        "absolutely definitely concern concerns clarify hear hearing care kind regards cheers hello "
        "dear weekend evening morning afternoon noted seems appears far tell believe think recap "
        "mind guard caught heads fyi planning anytime hesitate wondering curious through looking "
        "bearing bearer annoying tackle whatever ping trick glad souhaitez quoi freue mitteilen "
        # German
        "dank danke vielen geduld jederzeit bescheid brauchst brauchen hilft weiter erkennen soweit "
        "angesehen schauen verständnis leider entschuldigung entschuldigen freundlichen grüßen "
        "viel erfolg hoffentlich tag woche wochenende unannehmlichkeiten aufrichtig "
        # French
        "revenir espère espérons aide courage excellente bonjour journée merci beaucoup désolé "
        "désolée excuses patience compréhension hésitez hésiter contacter écrire bonne soirée "
        "semaine désagrément désagréments inconvénient inconvénients sincèrement vraiment "
        # Spanish
        "gracias muchas paciencia necesita necesitas cualquier otra cosa dude dudes escribirnos "
        "escríbanos hola saludos lamento siento disculpe disculpas espero ayuda ayudar pregunta "
        "preguntas revisado día buen buena suerte encantado molestias inconvenientes sinceramente"
    )
)
_PASSIVE = re.compile(
    r"\b(?:by|von|vom|par|durch|was|were|been|is being|wurde|wurden|worden|été)\b|によって|から|られ",
    re.IGNORECASE,
)
_ENUM_GAP = re.compile(
    r"^[\s,;/&+]*(?:(?:and|or|und|oder|et|ou|sowie|、|と|や)[\s,]*)?(?:(?:the|a|an|der|die|das|den|le|la|les|l')\s*)?$",
    re.IGNORECASE,
)


#: a list item that is a label and its value ("**Carrier:** Colissimo", "Total: 12 €")
_LABELLED = re.compile(
    r"^\s*(?:\*\*|__)?[^:：.!?\n]{1,40}?(?:\*\*|__)?\s?(?::(?:\*\*|__)?\s+|：\s*)\S"
)


#: a table cell that says yes or no with a sign ("✓", "✗", "–") or a word ("Yes", "Nein", "Non")
_YES_CELL = frozenset({"✓", "✔", "☑", "✅", "yes", "ja", "oui", "sí", "si", "はい"})
_NO_CELL = frozenset({"✗", "✘", "×", "❌", "–", "—", "-", "no", "nein", "non", "いいえ"})


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table row."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _row(columns: list[str], cells: list[str]) -> str:
    """A table's data row with each sign or yes/no cell read as its header said or denied ("✓"
    under "Direct" is "Direct", "–" under "Change" is "not Change", "No" under "Supported" is "not
    Supported": the header is what the cell affirms); the other cells stay as they are."""
    out = []
    for k, cell in enumerate(cells):
        head = columns[k] if k < len(columns) else ""
        word = cell.casefold()
        sign = "yes" if word in _YES_CELL else "no" if word in _NO_CELL else ""
        if head and sign:
            # a header is a label, not a name: "Free child seat" is read "free child seat"
            plain = re.match(r"[A-ZÀ-Þ][a-zß-ÿ]+(?![\w'’-])", head)  # "Wi-Fi", "SSO" stay
            head = head[0].lower() + head[1:] if plain else head
            cell = head if sign == "yes" else f"not {head}"
        out.append(cell)
    return " | ".join(out)


def _clean(line: str) -> str:
    line = _LINK.sub(r"\1 \2", line)
    line = _EMPHASIS.sub(r"\2", line)
    line = re.sub(r"\s*\|\s*", "; ", line).strip("; ")
    return F.normalise(line)


#: a piece ending so is not a sentence's end: a title or abbreviation (Dr., z. B., e.g.)
_ABBREVIATION = re.compile(
    r"(?:\b(?:dr|mr|mrs|ms|prof|st|nr|no|vs|ca|approx|inc|ltd|co|corp|jr|sr|mt|fig|vol|bzw|usw|"
    r"etc|mme|mlle|sra|sr|dra|mio|mrd|tsd)|\b(?:e\.g|i\.e|z\.\s?b|d\.\s?h|u\.\s?a|p\.\s?ex))\.$",
    re.IGNORECASE,
)
_MONTH_START = re.compile(
    r"^(?:" + "|".join(sorted((re.escape(m) for m in V._MONTHS), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)


def _sentences(line: str) -> list[str]:
    """A line cut at sentence ends, except after an abbreviation and in a date such as ``3. Juni``."""
    out: list[str] = []
    for piece in (p.strip() for p in _SENTENCE.split(line) if p and p.strip()):
        if out and (
            _ABBREVIATION.search(out[-1])
            or (re.search(r"\b\d{1,2}\.$", out[-1]) and _MONTH_START.match(piece))
        ):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


#: where a sentence of steps goes on to its next step: ", then", ", and finally", ", puis", ", dann"
_NEXT_STEP = re.compile(
    r",?\s+(?:and\s+|und\s+|et\s+|y\s+)?(?=(?:then|" + _NEXT + r"|finally|afterwards|after that|"
    r"dann|danach|"
    r"anschließend|schließlich|puis|ensuite|enfin|luego|después|finalmente|por último)\b)|"
    r"、(?=次に|それから|最後に)",
    re.IGNORECASE,
)


#: a sentence that opens with its condition ("If it fails, then…": one condition, no steps)
_OPENS_WITH_CONDITION = re.compile(
    r"^(?:if|when|once|unless|wenn|falls|sobald|si|lorsque|quand|cuando)\b", re.I
)


def _sequence(sentence: str) -> list[str]:
    """A sentence that lists steps with sequence words ("First back up, then install, and finally
    restart.") cut into its steps; any other sentence whole."""
    parts = [p.strip() for p in _NEXT_STEP.split(sentence) if p and p.strip()]
    # "If it fails, then…" is one condition
    if len(parts) < 2 or _OPENS_WITH_CONDITION.match(sentence):
        return [sentence]
    if not (_SEQUENCE.match(sentence) or len(parts) >= 3):  # "X, then Y" reads as one sentence
        return [sentence]
    return parts


def split_units(text: str) -> list[Unit]:
    """The sentences and list items of ``text`` (module doc, step 1), with their facts filled in."""
    units: list[Unit] = []
    in_fence = False
    lines = text.replace("\r\n", "\n").split("\n")
    columns: list[str] = []  # the header cells of the table being read
    for at, raw in enumerate(lines):
        if _FENCE.match(raw):
            in_fence = not in_fence
            continue
        if _TABLE_RULE.match(raw) and "-" in raw:
            continue
        if "|" not in raw:
            columns = []
        # a heading, or a table's header row (the row above its rule line): labels, not claims
        header_row = (
            "|" in raw
            and at + 1 < len(lines)
            and bool(_TABLE_RULE.match(lines[at + 1]))
            and "-" in lines[at + 1]
        )
        # a line that opens a list ("To request leave:" above "1. …") is its label too
        following = next((nxt for nxt in lines[at + 1 :] if nxt.strip()), "")
        # (in bold or not: "**Documents you'll need:**"; one that negates is a claim: "Do not sign:")
        opener = (
            raw.rstrip().rstrip("*_").endswith((":", "："))
            and bool(_ITEM.match(following))
            and not V.polarity(raw)[1]
        )
        heading = (bool(_HEADING.match(raw)) or header_row or opener) and not in_fence
        line = _QUOTE.sub("", _HEADING.sub("", raw))
        if header_row and not in_fence:
            columns = _cells(line)
        elif columns and "|" in line and not in_fence:
            line = _row(columns, _cells(line))
        row = bool(columns) and not header_row and not in_fence
        step = bool(_ITEM.match(line)) and not in_fence and not heading
        labelled = not in_fence and (
            bool(_LABELLED.match(_ITEM.sub("", line, count=1))) or raw.count("|") >= 2
        )
        if step and labelled:
            step = False  # "- **Carrier:** Colissimo": a labelled value, not a step to take
        if not in_fence and (step or opener or labelled):
            # the item's marker is no content: "2. In the portal, upload:" opens a list,
            # "4. Barrel adjuster: ¼ turn" is a labelled value
            line = _ITEM.sub("", line, count=1)
        line = _clean(line) if not in_fence else F.normalise(line)
        if not line:
            continue
        pieces = (
            [line]
            if in_fence
            else [p for part in separate(line) for s in _sentences(part) for p in _sequence(s)]
        )
        for index, piece in enumerate(pieces):
            sequenced = bool(_SEQUENCE.match(piece))
            is_step = (step and index == 0) or sequenced
            units.append(
                Unit(
                    piece,
                    is_step and not heading,
                    heading=heading,
                    labelled=labelled,
                    sequenced=sequenced and not heading,
                    row=row,
                )
            )
    _mark_signature(units)
    return units


def _mark_signature(units: list[Unit]) -> None:
    """Mark the closing lines that only sign (:data:`_SIGNATURE`, no polar word): a block of two
    words or more, or one after a sign-off ("Best," / "Priya"); a lone "Approved" is an answer."""
    block: list[Unit] = []
    for unit in reversed(units[1:]):
        words = V.tokens(unit.text)
        if unit.step or not _SIGNATURE.match(unit.text) or V.polarity(unit.text)[1]:
            break
        if any(w in V._POLE for w in words):
            break
        block.append(unit)
    above = units[len(units) - len(block) - 1] if block else None
    if block and (
        any(len(V.tokens(u.text)) >= 2 for u in block)
        or any(_SALUTATION.search(u.text) for u in block)
        or (above is not None and (_SALUTATION.search(above.text) or above.text.endswith(",")))
    ):
        for unit in block:
            unit.signature = True


#: a pointer to a numbered step of the answer ("for step 1", "bei Schritt 2", "à l'étape 3")
_STEP_POINTER = re.compile(r"\b(?:step|schritt|étape|paso|point|punkt|punto)\s+(\d{1,2})\b", re.I)


def _step_pointer(fact: F.Fact, unit: Unit, steps: int) -> bool:
    """A number that points to one of the answer's own ``steps`` from outside them ("I can walk
    you through step 1"): it names a place in the answer, no fact of the world."""
    return (
        fact.kind == "number"
        and not unit.step
        and any(
            m.group(1) == fact.surface and 1 <= int(m.group(1)) <= steps
            for m in _STEP_POINTER.finditer(unit.text)
        )
    )


def _fill(
    units: list[Unit],
    known: frozenset[str],
    german: bool,
    cache: dict[str, Unit] | None = None,
    pointers: bool = True,
) -> None:
    """Fill in facts, content words, polarity markers and the courtesy flag; ``cache`` shares the work
    between the units of one pair that have the same text (most sentences of a long answer). Without
    ``pointers``, a number pointing to one of the answer's steps is no fact."""
    cache = {} if cache is None else cache
    steps = 0 if pointers else sum(unit.step for unit in units)
    for unit in units:
        done = cache.get(unit.text)
        if done is not None and (done.heading, done.signature, done.labelled) == (
            unit.heading,
            unit.signature,
            unit.labelled,
        ):
            unit.facts, unit.words, unit.markers, unit.filler, unit.rest = (
                done.facts,
                done.words,
                done.markers,
                done.filler,
                done.rest,
            )
            unit.addressed = done.addressed
            continue
        found = F.extract(spelled_facts(unit.text), german=german, known_names=known)
        unit.facts = [f for f in label_names(unit.text, found) if not _step_pointer(f, unit, steps)]
        unit.words = V.content_words(clock_words(unit.text))  # "half past nine" is a fact
        unit.markers = V.polarity(unit.text)[1]
        body = unit.text
        closing = _CLOSING.search(unit.text)
        if closing and (not closing.group(1) or _SIGNATURE.match(closing.group(1).rstrip(" .!"))):
            # what follows the sign-off signs: its names are no facts, its words no claim
            body = unit.text[: closing.start()]
            cut = unit.text[closing.start() :]
            unit.facts = [f for f in unit.facts if f.kind != "name" or f.surface not in cut]
        thanked = _THANKED.match(body.lstrip("¡¿\"'“ "))
        # the reader's own request named back: its names are no facts, its words courtesy
        if thanked:
            unit.facts = [f for f in unit.facts if f.kind != "name" or f.surface not in thanked[0]]
            body = body.replace(thanked[0], " ", 1)
        rest = _COURTESY.sub(" ", body) if body.strip() else ""
        remaining = [w for w in V.content_words(rest) if w not in _NARRATION]
        # "Sure!", "Gerne." — no content word of its own — or a courtesy phrase and one word
        # more; not "You should upgrade now." (one content word, but no courtesy in it)
        exclamation = unit.text.rstrip().endswith(("!", "！")) and len(V.tokens(unit.text)) <= 3
        unit.filler = not unit.facts and (
            unit.heading
            or (
                not unit.markers
                and (not remaining or exclamation or (len(remaining) == 1 and rest != unit.text))
            )
        )
        unit.rest = remaining if rest != unit.text and not unit.facts else None
        plain = _offer_plain(_COMFORT.sub(" ", rest), unit.text)
        head = re.split(r"[,!.:]", unit.text.lstrip("¡¿\"'“ "), maxsplit=1)[0]
        if unit.signature:
            unit.facts = [f for f in unit.facts if f.kind != "name"]
            unit.filler = not unit.facts
        if re.match(r"^[-—–]\s*[A-ZÀ-Þ]", unit.text) and len(V.tokens(unit.text)) <= 6:
            head = unit.text  # a signature: "— Priya, Customer Care"
        if unit.heading and unit.labelled:  # a table's header row: its words are labels
            unit.facts = [f for f in unit.facts if f.kind != "name"]
            unit.filler = not unit.facts
        # after a greeting the sentence's own start: "Guten Tag, vielen Dank für …, und es tut
        # uns leid, dass …" thanks and regrets as "Vielen Dank für …" does, with at most three
        # content words beside its courtesy ("…, we also closed your account" is a claim)
        opening = [unit.text]
        greeted = len(V.tokens(head)) <= 6 and bool(_SALUTATION.search(head.strip()))
        if greeted and len([w for w in remaining if w not in _OBJECT_PRONOUNS]) <= 3:
            opening.append(unit.text.lstrip("¡¿\"'“ ")[len(head) :].lstrip(" ,!.:"))
        if greeted:
            # "Hi Sam, thanks…", "Guten Tag Frau Becker,": the names that address; a greeting
            # with nothing else is filler
            addressed = _ADDRESSEE.match(unit.text.lstrip("¡¿\"'“ "))
            named = head + (addressed.group(0) if addressed else "")
            unit.facts = [f for f in unit.facts if f.kind != "name" or f.surface not in named]
            if not unit.facts and head.strip() == unit.text.strip(" ,!.:"):
                unit.filler = True
        unit.addressed = (
            not unit.facts
            and not unit.heading
            and any(_ADDRESSING.search(t) or _SYMPATHY.search(t) for t in opening)
            and not _ADDITIVE.search(unit.text)
            and not _CONCLUSION.search(unit.text)
            and not V.polarity(plain)[1]
        )
        cache[unit.text] = unit


#: a condition clause ("if it still isn't there after that", "si vous ne le retrouvez pas")
_CONDITION = re.compile(
    r"\b(?:if|unless|in case|should you|falls|wenn|sofern|si|au cas où|en caso de que)\b[^,;.!?:]*",
    re.IGNORECASE,
)
#: the offer an addressed sentence makes ("just reply…", "I'll look into it", "revenir vers moi")
_OFFER = re.compile(
    r"\b(?:i(?:'ll| will)|we(?:'ll| will)|reply|write (?:back|again)|get back to|contact (?:me|us)|"
    r"let (?:me|us) know|reach out|come back|revenir vers (?:moi|nous)|écrivez-nous|contactez-nous|"
    r"happy to|glad to|(?:take|have) (?:another|a(?: closer)?|one more) look|"
    r"melden sie sich|schreiben sie (?:mir|uns)|escríbanos|contáctenos)\b",
    re.IGNORECASE,
)


def _offer_plain(plain: str, text: str) -> str:
    """``plain`` (a sentence with its courtesy phrases dropped) read for polarity as an offer is: an
    offer on a condition negates nothing in its condition ("If it still isn't there, just reply and
    I'll look into it"), and an apology's first clause restates the reader's trouble ("I'm sorry
    you're without power, …"). A condition without an offer outside it stays ("If you don't
    cancel, you will be charged")."""
    if _SYMPATHY.search(text.lstrip("¡¿\"'“ ")):
        plain = plain.split(",", 1)[1] if "," in plain else ""
    outside = _CONDITION.sub(" ", plain)
    if outside != plain and _OFFER.search(outside):
        return outside
    return plain


def _flat(text: str) -> str:
    """Text with Markdown, case, punctuation and spacing dropped: equal means formatting only."""
    units = split_units(text)
    # currency signs are no punctuation: "$30" and "€30" differ
    return " ".join(" ".join(V.tokens(u.text) + re.findall(r"[$€£¥₹₩]", u.text)) for u in units)


# --------------------------------------------------------------------------- similarity


#: two characters of Japanese or Chinese: a word's length there, its bigram is what a trigram is
#: to a word of letters
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]{2}")


def _trigrams(text: str, cjk_bigrams: bool = True) -> tuple[dict[str, int], float]:
    """Character trigrams of the case-folded tokens of ``text`` with counts, and the vector's norm
    (bigrams when ``text`` has Japanese or Chinese, unless ``cjk_bigrams`` is false)."""
    s = " " + " ".join(V.tokens(text)) + " "
    # Japanese and Chinese: a trigram spans a word and a half, a bigram is a word
    size = 2 if cjk_bigrams and _CJK.search(text) else 3
    grams = Counter(s[i : i + size] for i in range(max(1, len(s) - size + 1)))
    return grams, math.sqrt(sum(v * v for v in grams.values()))


def _trigram_matrix(
    g_units: list[Unit], n_units: list[Unit], cjk_bigrams: bool = True
) -> list[list[float]]:
    """Trigram cosine of every golden unit against every new unit (rows: golden); Japanese and
    Chinese by bigrams with ``cjk_bigrams`` (the lexical reading: a model reads them itself)."""
    grams: dict[str, tuple[dict[str, int], float]] = {}
    g_tri = [
        grams.setdefault(u.text, _trigrams(u.text, cjk_bigrams))
        if u.text not in grams
        else grams[u.text]
        for u in g_units
    ]
    n_tri = [
        grams.setdefault(u.text, _trigrams(u.text, cjk_bigrams))
        if u.text not in grams
        else grams[u.text]
        for u in n_units
    ]
    out = []
    for a, na in g_tri:
        row = []
        keys = a.keys()
        for b, nb in n_tri:
            if a is b:
                row.append(1.0)
                continue
            if not na or not nb:
                row.append(0.0)
                continue
            small, large = (a, b) if len(a) < len(b) else (b, a)
            dot = sum(v * large[k] for k, v in small.items() if k in large)
            row.append(dot / (na * nb) if keys else 0.0)
        out.append(row)
    return out


def _dot(a: Any, b: Any) -> Any:
    try:
        import numpy as np

        return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64).T
    except ImportError:  # pragma: no cover - embed_fn without numpy
        return [[math.fsum(x * y for x, y in zip(u, v, strict=True)) for v in b] for u in a]


def _normalise_rows(vectors: Any) -> Any:
    """Rows scaled to length 1: a numpy array when numpy is installed, else lists."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - embed_fn without numpy
        pass
    else:
        array = np.asarray(vectors, dtype=np.float64)
        if array.ndim == 2:
            return array / np.maximum(np.linalg.norm(array, axis=1, keepdims=True), 1e-12)
    out = []
    for row in vectors:
        values = [float(x) for x in row]
        norm = math.sqrt(math.fsum(x * x for x in values)) or 1.0
        out.append([x / norm for x in values])
    return out


def edges(units: list[Unit]) -> set[int]:
    """The first and the last two units that say something (greetings and signatures aside)."""
    said = [k for k, u in enumerate(units) if not (u.filler or u.signature)]
    return set(said[:1] + said[-2:])
