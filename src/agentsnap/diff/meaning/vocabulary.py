"""The words the fact rules know, in English, German, French and Japanese: month and weekday
names, number words, negations, antonym pairs and stop words; and the
word-level readings built on them (:func:`tokens`, :func:`content_words`, :func:`polarity`,
:func:`detect_german`). :mod:`agentsnap.diff.meaning.facts` says what each rule does with them.
"""

from __future__ import annotations

import re

from .phrasing import plain_polarity

__all__ = [
    "COMPOUND_NUMBER",
    "COMPOUND_ONES",
    "COMPOUND_TENS",
    "DAY_ABBREVIATIONS",
    "DAY_PAIR",
    "ENGLISH_NEGATIONS",
    "ENGLISH_NUMBER_WORDS",
    "STOPWORDS",
    "content_words",
    "detect_german",
    "polarity",
    "tokens",
]


# --------------------------------------------------------------------------- vocabulary

_MONTHS: dict[str, int] = {}
for _i, _spellings in enumerate(
    [
        "january jan januar janvier enero",
        "february feb februar février fevrier febrero",
        "march mar märz maerz mars marzo",
        "april apr avril abril",
        "may mai mayo",
        "june jun juni juin junio",
        "july jul juli juillet julio",
        "august aug août aout agosto",
        "september sep sept septembre septiembre setiembre",
        "october oct oktober okt octobre octubre",
        "november nov novembre noviembre",
        "december dec dezember dez décembre decembre diciembre",
    ],
    start=1,
):
    for _n in _spellings.split():
        _MONTHS[_n] = _i
_WEEKDAYS: dict[str, int] = {}
for _i, _spellings in enumerate(
    [
        "monday mon montag mondays montags lundi lunes 月曜日 月曜",
        "tuesday tue tues dienstag tuesdays dienstags mardi martes 火曜日 火曜",
        "wednesday wed mittwoch wednesdays mittwochs mercredi miércoles 水曜日 水曜",
        "thursday thu thurs donnerstag thursdays donnerstags jeudi jueves 木曜日 木曜",
        "friday fri freitag fridays freitags vendredi viernes 金曜日 金曜",
        "saturday sat samstag saturdays samstags samedi sábado 土曜日 土曜",
        "sunday sun sonntag sundays sonntags dimanche domingo 日曜日 日曜",
    ]
):
    for _n in _spellings.split():
        _WEEKDAYS[_n] = _i
_SHORT_DAYS = {
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thurs",
    "fri",
    "sat",
    "sun",
    "mar",
    "may",
    "jan",
    "feb",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "okt",
    "nov",
    "dec",
    "dez",
    "mai",
}

#: English number words; the other languages' follow in :data:`_NUMBER_WORDS` (hints reads these)
ENGLISH_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "thousand": 1000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
}

#: two abbreviated weekdays joined by a dash or a slash ("Mo.–Fr.", "Tue/Thu", "Sat-Sun")
DAY_ABBREVIATIONS = {
    **{d: i for i, d in enumerate(("mo", "di", "mi", "do", "fr", "sa", "so"))},
    **{d: i for i, d in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))},
}
_DAY = "Mon|Tue|Wed|Thu|Fri|Sat|Sun|Mo|Di|Mi|Do|Fr|Sa|So"
DAY_PAIR = re.compile(rf"(?<![\w/])({_DAY})\.?\s?[–/-]\s?({_DAY})\.?(?![\w/])")
#: tens and ones of a compound number word the number words leave out (see :data:`COMPOUND_NUMBER`)
COMPOUND_TENS = {
    "quarante": 40,  # French tens the number words leave out
    "cinquante": 50,
    "soixante": 60,
    "vierzig": 40,  # German tens past dreißig
    "fünfzig": 50,
    "sechzig": 60,
    "siebzig": 70,
    "achtzig": 80,
    "neunzig": 90,
}
COMPOUND_ONES = {"un": 1, "ein": 1}  # French "vingt-et-un", German "einundzwanzig"
#: tens and ones in one number word (English and French with a hyphen or space, German joined by
#: "und"): groups 1, 2 the tens and ones; 3, 4 German's ones and tens
COMPOUND_NUMBER = re.compile(
    r"\b(?:(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|vingt|trente|quarante|cinquante|"
    r"soixante)(?:-|\s|-et-|\set\s)(one|two|three|four|five|six|seven|eight|nine|un|deux|trois|"
    r"quatre|cinq|six|sept|huit|neuf)|(ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun)und"
    r"(zwanzig|dreißig|vierzig|fünfzig|sechzig|siebzig|achtzig|neunzig))\b",
    re.IGNORECASE,
)


_NUMBER_WORDS = {
    **ENGLISH_NUMBER_WORDS,
    "dozen": 12,
    # ordinals from the third on ("her fifth birthday" = "turns five"; "first" and "second" are
    # no counts, and "second" is a unit)
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "troisième": 3,
    "quatrième": 4,
    "cinquième": 5,
    "sixième": 6,
    "septième": 7,
    "huitième": 8,
    "neuvième": 9,
    "dixième": 10,
    # German
    "null": 0,
    "eins": 1,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "elf": 11,
    "zwölf": 12,
    **{w + "zehn": 10 + k for k, w in ((3, "drei"), (4, "vier"), (5, "fünf"), (6, "sech"))},
    **{w + "zehn": 10 + k for k, w in ((7, "sieb"), (8, "acht"), (9, "neun"))},
    "zwanzig": 20,
    "dreißig": 30,
    "hundert": 100,
    "tausend": 1000,
    # French
    "zéro": 0,
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    "sept": 7,
    "huit": 8,
    "neuf": 9,
    "dix": 10,
    "onze": 11,
    "douze": 12,
    "treize": 13,
    "quatorze": 14,
    "quinze": 15,
    "seize": 16,
    "quinzaine": 15,  # a fortnight: "sous quinzaine" = "sous quinze jours"
    "vingt": 20,
    "trente": 30,
    "cent": 100,
    "mille": 1000,
    # Spanish ("uno"/"una" are articles, like "one")
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    "once": 11,
    "doce": 12,
    "trece": 13,
    "catorce": 14,
    "quince": 15,
    **{"dieci" + w: 10 + k for k, w in ((6, "séis"), (7, "siete"), (8, "ocho"), (9, "nueve"))},
    "veinte": 20,
    **{"veinti" + w: 20 + k for k, w in ((2, "dós"), (3, "trés"), (4, "cuatro"), (6, "séis"))},
    **{"veinti" + w: 20 + k for k, w in ((5, "cinco"), (7, "siete"), (8, "ocho"), (9, "nueve"))},
    "veintiuno": 21,
    "veintiuna": 21,
    "veintiún": 21,
    # the same without the accent, as a keyboard often writes them
    **{"dieciseis": 16, "veintidos": 22, "veintitres": 23, "veintiseis": 26},
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "setenta": 70,
    "ochenta": 80,
    "noventa": 90,
    "cien": 100,
}

#: English negation words; the other languages' follow in :data:`_NEGATIONS` (hints reads these)
ENGLISH_NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nothing",
        "nobody",
        "nowhere",
        "neither",
        "nor",
        "cannot",
        "without",
    ]
)
_NEGATIONS = ENGLISH_NEGATIONS | frozenset(
    [
        "nicht",
        "kein",
        "keine",
        "keinen",
        "keinem",
        "keiner",
        "keines",
        "nie",
        "niemals",
        "nichts",
        "niemand",
        "nirgends",
        "ohne",
        "weder",
        "ne",
        "sans",
        "jamais",
        "aucun",
        "aucune",
        "non",
        # "zero ready replicas" = "no replica was ready" (the digit 0 stays a number)
        "zero",
        "zéro",
        "cero",
        # "locks them, preventing edits" = "so they can't be edited"
        "prevent",
        "prevents",
        "preventing",
        "prevented",
        # absence words: "the address is missing an apartment number" = "has no apartment number"
        "missing",
        "lacks",
        "lacking",
        "fehlt",
        "fehlen",
        "manque",
        "falta",
        "faltan",
    ]
)
#: Spanish ("no" is the English word): "tampoco hay permanencia" = "no hay permanencia"
_NEGATIONS |= frozenset(["nunca", "jamás", "ningún", "ninguno", "ninguna", "nada", "nadie"])
_NEGATIONS |= frozenset(["sin", "tampoco"])
#: negative words that agree with a negation before them rather than negate again (Spanish and
#: French negative concord: "no hay ningún", "sin nada", "ne … jamais", "sans aucun")
_CONCORD = frozenset(["ningún", "ninguno", "ninguna", "nada", "nadie", "nunca", "jamás"])
_CONCORD |= frozenset(["tampoco", "aucun", "aucune", "jamais", "rien", "personne"])
_JA_NEGATION = re.compile(r"(?:ない|ません|なかった|ず[、。に]|ではなく|じゃなく|不可)")
#: antonym pairs: positive pole words, negative pole words (stems, matched as word prefixes where marked *)
_ANTONYMS: list[tuple[str, str]] = [
    (
        "pass passed passes passing bestanden réussi réussie succeed succeeded succeeds success "
        "successful successfully erfolgreich pasaron pasó pasa exitoso exitosa éxito",
        "fail failed fails failing failure durchgefallen fehlgeschlagen échoué échouée échec "
        "unsuccessful falló fallaron fallido fallida fallo",
    ),
    (
        "enable enabled enables aktiviert activé activée activado activada habilitado habilitada",
        "disable disabled disables deaktiviert désactivé désactivée desactivado desactivada "
        "deshabilitado deshabilitada",
    ),
    (
        "open opened offen geöffnet ouvert ouverte ouverts",
        "closed close geschlossen fermé fermée fermés",
    ),
    ("available verfügbar disponible", "unavailable indisponible"),
    ("valid gültig", "invalid ungültig expired abgelaufen expiré"),
    (
        "allow allowed allows permit permits permitted erlaubt autorisé autorisée",
        "deny denied denies forbid forbids forbidden prohibit prohibits prohibited blocked verboten refusé refusée interdit suspended ausgesetzt gesperrt suspendu suspendus",
    ),
    ("read seen gelesen lu", "unread unseen ungelesen"),
    (
        "accept accepted akzeptiert accepté acceptée approved genehmigt approuvé aceptado "
        "aceptada aprobado aprobada",
        "reject rejected declined abgelehnt rejeté rejetée refused rechazado rechazada pending",
    ),
    (
        "increase increased increases rise rose risen gestiegen augmenté hausse",
        "decrease decreased decreases fell gesunken baissé baisse",
    ),
    ("online up running läuft", "offline down"),
    ("true wahr vrai", "false falsch faux"),
    ("correct correctly richtig", "incorrect incorrectly wrong"),
    ("safe sicher", "unsafe unsicher dangerous"),
    ("possible möglich", "impossible unmöglich"),
    ("include included includes enthalten inclus inclus", "exclude excluded excludes"),
    ("before vor avant", "after nach après"),
    (
        "higher above more greater faster warmer höher",
        "lower below less fewer slower colder niedriger weniger",
    ),
    ("buy bought kaufen gekauft acheter", "sell sold verkaufen verkauft vendre"),
    (
        "cheap cheaper cheapest inexpensive günstig günstiger billig billiger barato barata",
        "expensive pricier costlier teuer teurer cher chère caro cara",
    ),
    ("all every alle tous toutes todos todas", "some einige certains certaines algunos algunas"),
    (
        "add added adds hinzugefügt ajouté",
        "remove removed removes delete deleted entfernt gelöscht supprimé supprimée",
    ),
    ("start started starts gestartet démarré", "stop stopped stops gestoppt arrêté"),
    ("public öffentlich", "private privat privé privée"),
    (
        "required mandatory necessary needed obligatory compulsory obliged obligated erforderlich "
        "nötig notwendig verpflichtet verpflichtend pflicht obligatoire nécessaire obligé obligée "
        "obligés obligées obligatorio obligatoria obligado obligada obligados obligadas necesario "
        "necesaria 必要 必須",
        "optional voluntary facultatif facultative volontaire freiwillig opcional voluntario "
        "voluntaria 不要 任意",
    ),
    ("supported unterstützt", "unsupported deprecated"),
    ("healthy gesund", "unhealthy degraded"),
    ("win won gewonnen gagné", "lose lost verloren perdu"),
    ("yes ja oui はい", ""),
    ("paid bezahlt payé", "unpaid overdue"),
    ("secure", "insecure vulnerable"),
    ("visible sichtbar", "hidden invisible"),
    ("same identical gleich", "different anders différent"),
    ("有効", "無効"),
    ("成功", "失敗"),
    ("可能", "不可能"),
    ("増加", "減少"),
    ("以上", "以下"),
    ("合格", "不合格"),
    ("安全", "危険"),
]
_POLE: dict[str, tuple[int, int]] = {}
for _i, (_pos, _neg) in enumerate(_ANTONYMS):
    for _w in _pos.split():
        _POLE[_w] = (_i, 1)
    for _w in _neg.split():
        _POLE[_w] = (_i, -1)
_JA_POLES = [w for w in _POLE if re.match(r"[\u3040-\u30ff\u4e00-\u9fff]", w)]

STOPWORDS = frozenset(
    (  # noqa: SIM905 - a word list reads better as text
        # English
        "a an the and or but if then so of to in on at by for with from as is are was were be "
        "been being it its this that these those there here i you he she we they me him her "
        "us them my your our their his do does did done have has had will would shall should "
        "can could may might must just also very really quite about into over under than too "
        "up out what which who whom whose when where why how all any both each few some such "
        "own only same other again once all please now yet still let ll ve re s d m t am pm"
        # German
        " "
        "der die das den dem des ein eine einen einem einer eines und oder aber wenn dann so "
        "von zu im am um auf für mit aus bei ist sind war waren sein wird werden wurde wurden "
        "hat haben hatte ich du er sie es wir ihr ihnen ihr mein dein sein unser euer auch "
        "noch schon nur sehr bitte dass als wie was wer"
        # French
        " "
        "le la les un une des du de d l et ou mais si alors à au aux en dans sur par pour "
        "avec est sont était été être sera a ont avait je tu il elle nous vous ils elles me "
        "te se mon ma mes ton ta ses son sa notre votre leur leurs ce cet cette ces qui que "
        "quoi dont où aussi très bien y que qu c s j pas ai as avez avons ont vais va fait"
        # Spanish
        " "
        "el los las unos unas y o pero si del al en con por para su sus mi mis tu tus es son "
        "fue ser está están estar ha han he que qué como cuando donde lo le les se me te nos yo "
        "tú él ella ellos ellas usted ustedes este esta estos estas ese esa eso muy más ya "
        "también hay le"
        # English contractions (their negation is read by polarity)
        " "
        "i'll i'd i'm i've you'd you'll you're you've we'll we're we've they'll they're they've "
        "it's that's there's here's what's let's he's she's it'll that'll"
    ).split()
)

_GERMAN_MARKERS = frozenset(
    [
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "ein",
        "eine",
        "wurde",
        "werden",
        "ich",
        "wir",
        "sie",
        "mit",
        "für",
        "auf",
        "dem",
        "den",
        "zu",
    ]
)
_GERMAN_NAME_AFTER = frozenset(["nach", "aus", "von", "in", "herr", "herrn", "frau", "firma"])

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)
_SCRIPT_TOKEN = re.compile(
    r"[\u4e00-\u9fff々]+|[\u30a0-\u30ffー]+|[\u3040-\u309f]+|\d+(?:[.,:]\d+)*"
    r"|[^\W\d_\u3040-\u30ff\u4e00-\u9fff]+(?:['’][^\W\d_\u3040-\u30ff\u4e00-\u9fff]+)*",
    re.UNICODE,
)


def tokens(text: str) -> list[str]:
    """Case-folded word tokens: Latin words, digit groups, and Japanese runs split by script (kanji, katakana, hiragana)."""
    out = []
    for token in _SCRIPT_TOKEN.findall(text):
        token = token.casefold().replace("’", "'")
        elided = _ELISION.match(token)
        out.append(token[elided.end() :] if elided and elided.end() < len(token) else token)
    return out


_ELISION = re.compile(r"^(?:qu|[ldjmntsc])'")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "en", "er", "e", "ly"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    """Stemmed tokens that carry content: not stopwords, not hiragana-only, at least 2 letters (or any kanji/katakana run)."""
    out = []
    for tok in tokens(text):
        if tok in STOPWORDS or tok.isdigit():
            continue
        if re.fullmatch(r"[\u3040-\u309f]+", tok):
            continue
        if re.match(r"[\u4e00-\u9fff\u30a0-\u30ff]", tok):
            out.append(tok)
            continue
        if len(tok) < 2:
            continue
        out.append(_stem(re.sub(r"'s?$", "", tok)))  # "the tenant's costs": the tenant
    return out


def detect_german(text: str) -> bool:
    """Whether ``text`` reads as German (two or more distinct German function words)."""
    words = {w.casefold() for w in _WORD.findall(text)}
    return len(words & _GERMAN_MARKERS) >= 2 or bool(
        re.search(r"[äöüß]", text) and words & _GERMAN_MARKERS
    )


#: "almost nothing", "fast nichts": a small amount, not a negation of what follows
ALMOST_NOTHING = re.compile(
    r"\b(?:almost|nearly|practically|virtually|next to) (?:nothing|none|no one)\b|\bfast (?:nichts|keine?)\b|"
    r"\b(?:no|not) (?:less|more|later|earlier|fewer|sooner|longer) than\b|"
    r"\bnicht (?:mehr|weniger|später|früher|eher|länger) als\b|"
    r"\bpas (?:plus|moins) de\b|\bno (?:más|menos) de\b|"
    r"\bpresque (?:rien|pas)\b|\bcasi (?:nada|ninguno|ninguna)\b",
    re.IGNORECASE,
)


def polarity(text: str) -> tuple[int, list[str]]:
    """``(parity, markers)``: parity 0 or 1 of negation words plus negative-pole antonyms; the markers found."""
    markers: list[str] = []
    text = plain_polarity(text)  # "n'est couvert que si" = "only covered if"
    # an answer particle ("No, …", "Nein, …", "Non, …") states the answer the rest of the sentence gives
    text = re.sub(r"^\s*(?:no|nein|non|いいえ)\s*[,.!:—-]", " ", text, flags=re.IGNORECASE)
    text = re.sub(
        r"\b(?:(?:costs?|for|kostet|coûte)\s+(?:nothing|nichts|rien)|without (?:a |any )?(?:charge|fee|cost)s?|at no (?:extra |additional )?(?:charge|cost)|"
        r"ohne (?:aufpreis|kosten|gebühr)|sans frais|sin (?:coste|costo|cargo))\b",
        " free ",
        text,
        flags=re.IGNORECASE,
    )
    text = ALMOST_NOTHING.sub(" little ", text)
    # courtesy idioms that carry no negation of a fact
    text = re.sub(
        r"\b(?:no problem|no worries|not a problem|kein problem|keine ursache|pas de (?:problème|souci)|de rien|"
        r"de nada|no hay de qué|sin (?:problemas?|duda|embargo)|"
        r"(?:don't|do not|n'|ne) ?h[ée]sit\w*(?: pas)?|zögern sie nicht|nicht zu zögern|"
        r"without (?:any )?(?:waiting|delay)|sans (?:attendre|délai)|ohne (?:zu warten|verzögerung)|sin (?:esperar|demora))\b",
        " ",
        text,
        flags=re.IGNORECASE,
    )
    # "a dog-free home" = "a home without dogs": a compound with -free negates its first part
    # ("fee-free" = "without fees"; "free" alone is no negation)
    for compound in re.findall(r"\b[^\W\d_]+-(?:free|frei|less)\b", text, flags=re.IGNORECASE):
        markers.append(compound.casefold())
    text = re.sub(r"\b[^\W\d_]+-(?:free|frei|less)\b", " ", text, flags=re.IGNORECASE)
    words = [
        w.casefold().replace("’", "'") for w in re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)*", text)
    ]
    last, last_word = -10, ""  # where the last negation stood, and which
    for at, w in enumerate(words):
        if (
            w in _NEGATIONS
            or w.endswith("n't")
            or (w in _POLE and _POLE[w][1] < 0)
            or (w.startswith("n'") and w not in ("n'importe",))
        ):
            if at - last <= 3 and (w in _CONCORD or last_word in _CONCORD):
                continue  # negative concord: "sin ninguna pérdida", "jamais il ne" negate once
            markers.append(w)
            last, last_word = at, w
    markers += _JA_NEGATION.findall(text)
    for w in _JA_POLES:
        if _POLE[w][1] < 0 and w in text:
            markers.append(w)
    # "ne … pas" is one negation, "n'a pas" likewise: drop the pas/plus partner (not in the list anyway)
    return len(markers) % 2, markers
