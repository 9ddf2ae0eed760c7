"""Word-level clues the comparison reads: related and polar words, coverage of content words,
enumerations, and a swap of two blocks (``Alice pays Bob`` → ``Bob pays Alice``)."""

import difflib
import math
import re
from collections import Counter
from functools import partial

from . import facts as F
from . import vocabulary as V
from .negations import _NEGATING_PREFIXES, reversals
from .phrasing import plain_polarity
from .quantities import UNITS, base_unit
from .units import _COMFORT, _CONCLUSION, _CONDITION, _COURTESY, _ENUM_GAP, _NARRATION, Unit


def _unrelated(left: list[str], right: list[str]) -> tuple[list[str], list[str]]:
    """The words of a replaced span left once pairs of related words (same stem, spelling variants) are taken out."""
    right = list(right)
    out = []
    for word in left:
        match = next((r for r in right if _related(word, r)), None)
        if match is None:
            out.append(word)
        else:
            right.remove(match)
    return out, right


def _block_swap(g: list[str], n: list[str], need_middle: bool = True) -> tuple[str, str] | None:
    """``(a, b)`` when ``n`` is ``g`` with two blocks exchanged around an unchanged middle (A m B → B m A),
    or with two words exchanged wherever they stand (the desk notifies the tutor, and the tutor
    approves → the tutor notifies the desk, and the desk approves)."""
    if len(g) != len(n) or len(g) < 2 or g == n:
        return None
    moved = {(x, y) for x, y in zip(g, n, strict=True) if x != y}
    if len(moved) == 2 and {(y, x) for x, y in moved} == moved:
        return min(moved)
    if Counter(g) != Counter(n):
        return None
    while g and n and g[0] == n[0]:
        g, n = g[1:], n[1:]
    while g and n and g[-1] == n[-1]:
        g, n = g[:-1], n[:-1]
    size = len(g)
    for i in range(1, size):
        for k in range(i + (1 if need_middle else 0), size):
            a, mid, b = g[:i], g[i:k], g[k:]
            if b + mid + a == n and set(a).isdisjoint(b):
                return a[-1], b[0]
    return None


#: what separates list items (a semicolon separates clauses: "approved by the head and then by
#: finance; the manager only approves…" is no list)
_LIST_SEPARATOR = re.compile(
    r"[,、]|\s(?:and|or|und|oder|et|ou|y|o|sowie)\s|\s[—–]\s|:\s", re.IGNORECASE
)


#: a contrast that ends a list: what follows is excluded ("A and B, but not C")
_CONTRAST = re.compile(
    r"\b(?:but not|but no|except(?: for)?|excluding|pero no|excepto|salvo|mais pas|sauf|"
    r"aber nicht|außer|ausgenommen)\b",
    re.IGNORECASE,
)


def _listed(text: str, a: str, b: str) -> bool:
    """Whether stems ``a`` and ``b`` stand in two different items of a list of three or more
    (``X, Y and Z``; items may hold more words: ``CS 210 (Data Structures), MATH 221 (…)``);
    never across a contrast ("A and B, but not C": C is no member)."""
    sides = [side.casefold() for side in _CONTRAST.split(text)]
    if not any(a in side and b in side for side in sides) and all(
        any(stem in side for side in sides) for stem in (a, b)
    ):
        return False
    items = [item.casefold() for item in _LIST_SEPARATOR.split(text) if item.strip()]
    if len(items) < 3:
        return False
    where_a = [k for k, item in enumerate(items) if a in item]
    where_b = [k for k, item in enumerate(items) if b in item]
    return bool(where_a and where_b) and set(where_a).isdisjoint(where_b)


def _surface(text: str, stem: str) -> str:
    """The word of ``text`` a stem stands for (a short stem only for a word of its own)."""
    for token in V.tokens(text):
        if token == stem or (len(stem) > 2 and token.startswith(stem)):
            return token
    return stem


def _name_in(fact: F.Fact, words: set[str], text: str) -> bool:
    key = str(fact.key[0])
    if key in words or key + "s" in words or (key.endswith("s") and key[:-1] in words):
        return True  # "SUV" / "SUVs", "MERGEs" / "MERGE"
    if re.search(
        r"[\u3040-\u30ff\u4e00-\u9fff]", key
    ):  # 「月末締め・翌月末払い」 = 月末締め翌月末払い
        bare = re.sub(r"[\W_]+", "", key)
        return len(bare) >= 4 and bare in re.sub(r"[\W_]+", "", F.normalise(text))
    # a multi-word or longer name may be split differently by the other text's tokens;
    # a short one ("a", "eu") must be a whole token (a substring would match anything)
    flat = re.sub(r"[-\s]+", " ", F.normalise(text).casefold())
    return len(key) >= 4 and re.sub(r"[-\s]+", " ", key) in flat


def _contentful(token: str) -> bool:
    if token in V.STOPWORDS or token.isdigit() or re.fullmatch(r"[\d.,:]+", token):
        return False
    if re.fullmatch(r"[\u3040-\u309f]+", token):
        return False
    if token in _NARRATION or V._stem(token) in _NARRATION:
        return False
    return len(token) >= 2 or bool(re.match(r"[\u4e00-\u9fff\u30a0-\u30ff]", token))


def _related(a: str, b: str) -> bool:
    """Same stem, one a prefix of the other, or a contraction/spelling variant."""
    sa, sb = V._stem(a), V._stem(b)
    for x, y in ((sa, sb), (sb, sa)):  # "uninstall" / "install": the reverse, no variant
        if (
            len(y) >= 4
            and x.endswith(y)
            and x[: -len(y)].rstrip("-") in (*_NEGATING_PREFIXES, "de")
        ):
            return False
    if sa == sb or a.startswith(b) or b.startswith(a):
        return True
    # a Japanese compound that lost or gained its first part (三日以内 / 日以内: the number is a fact)
    cjk = bool(re.match(r"[\u3040-\u30ff\u4e00-\u9fff]", a + b))
    if cjk and min(len(a), len(b)) >= 2 and (a.endswith(b) or b.endswith(a)):
        return True
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.8 and min(len(a), len(b)) >= 5


def _polar(word: str) -> bool:
    return any(w in V._POLE or w in V._NEGATIONS for w in word.split())


def _weight(words: list[str]) -> float:
    """How much content new words carry: 1 per word, 1.5 per kanji/katakana compound (denser than a Latin word)."""
    return math.fsum(1.5 if re.match(r"[\u4e00-\u9fff\u30a0-\u30ff]", w) else 1.0 for w in words)


def _coverage(words: list[str], other: set[str]) -> float:
    """Share of ``words`` the ``other`` text also uses; the two poles of an antonym pair count as one word
    (so "no open issues" is covered by "all issues are closed": polarity is compared separately)."""
    if not words:
        return 1.0
    concepts = {_concept(w) for w in other}
    return sum(1 for w in words if w in other or _concept(w) in concepts) / len(words)


def _concept(word: str) -> str:
    for form in (word, word + "e", word + "ed", word + "d"):
        if form in V._POLE:
            return f"#pole{V._POLE[form][0]}"
    return word


def _enumeration(text: str, a: str, b: str) -> bool:
    """Whether stems ``a`` and ``b`` stand next to each other in an enumeration ("A, B and C")."""
    low = text.casefold()
    # a short stem ("a", "b" of "Team A", "Team B") is a whole word, not the start of "beat"
    found_a = re.search(rf"(?<!\w){re.escape(a)}" + (r"(?!\w)" if len(a) <= 2 else ""), low)
    found_b = re.search(rf"(?<!\w){re.escape(b)}" + (r"(?!\w)" if len(b) <= 2 else ""), low)
    if found_a is None or found_b is None:
        return False
    pa, pb = found_a.start(), found_b.start()
    first, second = sorted((pa, pb))
    word_end = first + len(a if first == pa else b)
    while word_end < len(low) and low[word_end].isalnum():
        word_end += 1
    return bool(_ENUM_GAP.match(low[word_end:second]))


# --------------------------------------------------------------------------- polarity by concept

#: words that end a negation's scope: clause punctuation and contrasting conjunctions
_CLAUSE = re.compile(
    r"[;!?。、！？()\[\]—–]|(?<!\d)[,:]|[,:](?!\d)|\.(?:\s|$)|\s-\s|"  # not inside 9:40, 1,000
    r"\b(?:but|however|while|whereas|although|aber|jedoch|"
    r"während|obwohl|mais|tandis|alors que|pero|aunque|mientras|sino)\b",
    re.IGNORECASE,
)
#: words a negation reaches over without spending its scope on them ("no longer", "noch nicht", "ya no")
_SCOPE_SKIP = frozenset(
    [
        "longer",
        "more",
        "yet",
        "ever",
        "any",
        "anymore",
        "really",
        "actually",
        "currently",
        "mehr",
        "noch",
        "schon",
        "gar",
        "überhaupt",
        "plus",
        "encore",
        "jamais",
        "pas",
        "point",
        "ya",
        "todavía",
        "aún",
        "nunca",
        # prepositions no stop word list holds: "nicht unter Windows", "pas sous Linux"
        "unter",
        "vom",
        "zum",
        "zur",
        "sous",
        "chez",
        "bajo",
        "desde",
        "hasta",
    ]
)
_SCOPE = 3
_JA_NEG = re.compile(r"(?:ない|ません|なかった|ず|ではなく|じゃなく)")
_SPANISH_NEGATIONS = frozenset(
    ["nunca", "ningún", "ninguno", "ninguna", "nada", "nadie", "sin", "tampoco", "ni"]
)


#: phrases that negate what follows: "rather than a regression" = "not a regression"
_NEGATING_PHRASE = re.compile(
    r"\b(?:rather than|instead of|anstatt|statt|au lieu de|plutôt que|en lugar de|en vez de|"
    r"except(?: for)?|außer|sauf|excepto|salvo)\b",
    re.IGNORECASE,
)


def _negation(word: str) -> bool:
    return (
        word in V._NEGATIONS
        or word in _SPANISH_NEGATIONS
        or word == "pas"  # "à 11 h, pas à 10 h": spoken French negates without "ne"
        or word.endswith("n't")
        or (word.startswith("n'") and word != "n'importe")
    )


#: a clause's words for polarity: CJK runs, words, and members holding a digit ("$20", "9:40",
#: "2.5", "B12": a number, time, version or name is a member a negation excludes like a word)
_WORDS = re.compile(
    r"[\u4e00-\u9fff々]+|[\u30a0-\u30ffー]+|[\u3040-\u309f]+"
    r"|[^\W_\u3040-\u30ff\u4e00-\u9fff]*\d(?:[.,:]?[^\W_\u3040-\u30ff\u4e00-\u9fff])*"
    r"|[^\W\d_\u3040-\u30ff\u4e00-\u9fff]+(?:['’][^\W\d_\u3040-\u30ff\u4e00-\u9fff]+)*"
)


def _valued(word: str) -> bool:
    """A member holding a digit (a number, time, version, a name such as "B12")."""
    return any(c.isdigit() for c in word)


#: a label whose value only denies ("Minimum term: none", "Permanencia: ninguna")
_DENYING_VALUE = re.compile(
    r"^\s*([^:;\n]{1,40}?)\s*:\s*(none|no|nein|keine?|aucune?|non|ninguno|ninguna|nada|なし)\s*\.?\s*$",
    re.IGNORECASE,
)


def polar_concepts(text: str, heads: set[str] | None = None) -> dict[str, set[int]]:
    """``{concept: signs}`` of the content words of ``text``: a word's concept is its antonym pair
    (``#pole3``) or its stem; its sign is the pole's (``failed``: -1) times -1 inside a negation's
    scope (the next three content words of the clause; in German also the words before a
    clause-final ``nicht``; in Japanese the word a ``ない``/``ません`` ending follows). Two texts
    disagree on a concept when every mention has one sign in one and the other sign in the other.
    ``heads``, when given, collects the concept each negation reaches first, each antonym pole
    in its reach and each negative pole."""
    out: dict[str, set[int]] = {}
    plain = F.normalise(plain_polarity(text))
    plain = V.ALMOST_NOTHING.sub(" little ", _NEGATING_PHRASE.sub(" not ", plain))
    plain = _DENYING_VALUE.sub(r"\2 \1", plain)  # "Minimum term: none" = "no minimum term"
    for clause in _CLAUSE.split(plain):
        words = _WORDS.findall(clause.casefold().replace("’", "'"))
        negated: set[int] = set()
        first: set[int] = set()
        for k, word in enumerate(words):
            if re.fullmatch(r"[\u3040-\u309f]+", word) and _JA_NEG.search(word) and k:
                negated.add(k - 1)  # 有効 + ではありません
                first.add(k - 1)
                continue
            if not _negation(word):
                continue
            reach, m = 0, k + 1
            while m < len(words) and reach < _SCOPE:
                skip = words[m] in _SCOPE_SKIP or _negation(words[m])
                if not skip and (_contentful(words[m]) or words[m] in V._POLE or _valued(words[m])):
                    negated.add(m)
                    if not reach or words[m] in V._POLE:
                        first.add(m)
                    reach += 1
                m += 1
            if reach == 0 and word in ("no", "nein", "non", "nope"):  # "the answer is no"
                out.setdefault(f"#pole{V._POLE['yes'][0]}", set()).add(-1)
            elif reach == 0 and k:  # "das funktioniert nicht": the clause's last words
                before = [j for j in range(max(0, k - 2), k) if _contentful(words[j])]
                negated.update(before)
                first.update(before[-1:])
        for k, word in enumerate(words):
            if _negation(word) or not (_contentful(word) or word in V._POLE or _valued(word)):
                continue
            if word.startswith("n'"):
                word = word[2:]
            pole = V._POLE.get(word)
            concept = f"#pole{pole[0]}" if pole else word if _valued(word) else V._stem(word)
            sign = (pole[1] if pole else 1) * (-1 if k in negated else 1)
            out.setdefault(concept, set()).add(sign)
            if heads is not None and (k in first or (pole and pole[1] < 0)):
                heads.add(concept)
    return out


def flipped_concepts(golden: str, new: str) -> list[str]:
    """The concepts the two texts state with opposite polarity (see :func:`polar_concepts`); a
    word negated by a prefix the other text does without (``refundable`` / ``non-refundable``,
    ``reversible`` / ``irreversible``) counts as that word negated, and its concept is marked
    ``#`` like an antonym pair's (a flip by vocabulary, not by moved negations)."""
    g, n = polar_concepts(golden), polar_concepts(new)
    for mine, other, done in ((g, n, reversals(golden, new)), (n, g, reversals(new, golden))):
        for concept in [c for c in mine if c not in other and not c.startswith("#")]:
            if concept in done:  # "uninstall the printer": a reversal done, no state denied
                continue
            for prefix in _NEGATING_PREFIXES:
                base = concept[len(prefix) :]
                if (
                    concept.startswith(prefix)
                    and base in other
                    and (len(base) >= 4 or prefix in "不非未無")
                ):
                    signs = {-s for s in mine.pop(concept)}
                    mine.setdefault("#" + base, set()).update(signs)
                    other.setdefault("#" + base, set()).update(other[base])
                    break
    return [c for c in g if c in n and len(g[c]) == 1 and len(n[c]) == 1 and g[c] != n[c]]


#: a weaker cue, enough on one side when the other has a cue of :data:`_CONCLUSION`
_CONCLUSION_WEAK = re.compile(
    r"\b(?:so (?:you|we|this|the|it)|we will|we'll|you can|fits|vous pouvez|"
    r"sie können|puede|puedes|we think|we believe|nous pensons|nous croyons|wir denken|wir glauben|"
    r"sollten sie|creemos|pensamos)\b",
    re.IGNORECASE,
)


#: words that only connect a conclusion to its grounds; any of them says the same
_CONNECTIVES = frozenset(
    V.tokens(
        "therefore thus hence so daher deshalb somit also donc conséquent lo tanto así eso "
        "recommend recommended recommendation recommendations empfehle empfehlen empfehlung "
        "recommande recommandons recommandation recomiendo recomendación verdict conclusion decision"
    )
)


def _said(word: str) -> bool:
    """A content word of a conclusion that is not one of its connectives."""
    return _contentful(word) and word not in _CONNECTIVES


#: a time clause ("as soon as a decision has been made", "sobald eine Entscheidung vorliegt")
_WHEN = re.compile(
    r"\b(?:as soon as|once|until|sobald|bis|dès que|une fois que|jusqu'à ce que|en cuanto|"
    r"tan pronto como|hasta que)\b[^,;.!?:]*",
    re.IGNORECASE,
)
#: a decision as an event in time concludes nothing: "the decision usually takes three weeks",
#: "decision time: 3 weeks", "the decision is expected by Friday", "die Entscheidung dauert"
_EVENT = re.compile(
    r"\b(?:decision|verdict|entscheidung|décision|decisión|resolución)\s+(?:\w+ly\s+)?"
    r"(?:times?|dates?|deadlines?|period|letter|takes?|took|will take|can take|may take|is expected|will be (?:sent|made|issued|announced)|"
    r"(?:is|was) (?:made|sent|issued|due)|arrives?|dauert|erfolgt|prend|est attendue|tarda|llega)\b",
    re.IGNORECASE,
)


def concludes(text: str) -> bool:
    """Whether ``text`` has a cue of :data:`_CONCLUSION` outside a condition or a time clause and
    not naming a decision as an event in time."""
    return bool(_CONCLUSION.search(_EVENT.sub(" ", _WHEN.sub(" ", _CONDITION.sub(" ", text)))))


def changed_conclusion(golden: str, new: str) -> tuple[str, str] | None:
    """``(was, now)`` when two concluding sentences conclude differently: one has a cue of
    :data:`_CONCLUSION`, the other one of it or of :data:`_CONCLUSION_WEAK`, and after its cue each
    keeps content words the other sentence lacks, no pair of them related ("proceed with the
    migration" → "postpone the migration"; "moving to Business" → "keeping it on Team"); None when
    either is no conclusion or they agree."""
    g_cue, n_cue = _CONCLUSION.search(golden), _CONCLUSION.search(new)
    # a cue inside a condition or a time clause concludes nothing ("If you'd like to challenge
    # the decision, …", "as soon as a decision has been made")
    if not (concludes(golden) or concludes(new)):
        return None
    g_cue = g_cue or _CONCLUSION_WEAK.search(golden)
    n_cue = n_cue or _CONCLUSION_WEAK.search(new)
    if not (g_cue and n_cue):
        return None
    g_words, n_words = set(V.tokens(golden)), set(V.tokens(new))

    def after(text: str, cue: re.Match[str], others: set[str]) -> list[str]:
        # what follows the cue; a cue at the clause's end (German "… so empfehlen.") concludes
        # what stands before it, in its clause
        words = [w for w in V.tokens(text[cue.start() :]) if _said(w) and w not in others]
        tail = V.tokens(text[cue.end() :])
        if not tail and re.match(r"empfehl|rate", cue.group(0), re.IGNORECASE):
            clause = re.split(r"[;:.!?]\s", text[: cue.end()])[-1]
            words = [w for w in V.tokens(clause) if _said(w) and w not in others]
        return words

    g_only, n_only = _unrelated(after(golden, g_cue, n_words), after(new, n_cue, g_words))
    if not (g_only and n_only):
        return None
    return " ".join(g_only), " ".join(n_only)


_ONE = re.compile(r"\b(?:one|a|an|single|ein|eine|eins|un|une|uno|una)\b|一", re.IGNORECASE)


def _closeness(golden: str, new: str) -> float:
    """How much of two sentences is the same: the difflib ratio of their content words (negation
    particles and stopwords left out), of their characters for CJK text."""
    if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", golden + new):
        g_seq, n_seq = list(golden), list(new)
    else:
        g_seq, n_seq = (
            [t for t in V.tokens(text) if t not in V.STOPWORDS and not _polar(t)]
            for text in (golden, new)
        )
    return difflib.SequenceMatcher(None, g_seq, n_seq, autojunk=False).ratio()


def _closeness_without(golden: str, new: str, names: tuple[str, str]) -> float:
    """:func:`_closeness` of two sentences with the tokens of two names (their stems) and every
    token holding a digit left out (numbers are facts, compared apart)."""
    stems = [s for s in names if s]

    def kept(text: str) -> str:
        return " ".join(
            t
            for t in V.tokens(text)
            if not any(t.startswith(s) for s in stems) and not any(c.isdigit() for c in t)
        )

    return _closeness(kept(golden), kept(new))


def courteous(unit: Unit, other: set[str], edge: bool = False) -> bool:
    """Courtesy: filler, or a courtesy phrase with at most two content words of its own
    that the other text does not use, none of them polar ("I understand how frustrating it
    is when calls fail" next to an answer about failing calls; "let me know if you'd like me
    to open the booking page"); at the answer's start or end (``edge``), also talk between
    speaker and reader (:attr:`Unit.addressed`) with at most six content words of its own."""
    if unit.filler:
        return True
    if edge and unit.addressed:
        own = V.content_words(_COMFORT.sub(" ", _COURTESY.sub(" ", unit.text)))
        novel = [w for w in own if w not in other and w not in _NARRATION]
        return len(novel) <= 6  # its negative poles are markers: not addressed
    if unit.rest is None:
        return False
    novel = [w for w in unit.rest if w not in other]
    return len(novel) <= 2 and not any(_polar(w) for w in novel)


def named_step(units: list[Unit], i: int, new: str) -> bool:
    """Golden step ``i`` names something no other golden sentence names, and the ``new`` answer
    names it too ("Choose Security info." inside "…and open Security info"): it is there."""
    others = {f.key for k, u in enumerate(units) if k != i for f in u.facts}
    own = [f for f in units[i].facts if f.kind == "name" and f.key not in others]
    words = set(V.tokens(new))
    return bool(own) and all(_name_in(f, words, new) for f in own)


#: one of a unit said with an article: "a week", "an hour", "eine Woche", "une semaine"
_ONE_UNIT = re.compile(
    r"\b(?:a|an|one|eine?n?|une?|una?|(?:the|der|die|das|le|la|el) (?:first|erste[nr]?|premier|première|primer|primera))\s+"
    r"(year|month|week|day|hour|minute|jahr|monat|woche|tag|stunde|an|année|mois|semaine|jour|heure|"
    r"año|mes|semana|día|hora)\b",
    re.IGNORECASE,
)


def one_unit_in(fact: F.Fact, text: str) -> bool:
    """Whether ``text`` says number ``fact`` as one of a unit ("seven days" / "a week")."""
    if fact.kind != "number":
        return False
    for match in _ONE_UNIT.finditer(text):
        unit = UNITS.get(match.group(1).casefold(), "")
        if unit and base_unit(1.0, unit) == fact.key:
            return True
    return False


def _flipped_clause(golden: str, new: str) -> str | None:
    """The label of the first of two sentences' clauses (cut at semicolons, dashes and at a comma
    before so / and / but / therefore, the same count on both sides; each golden clause read
    against the new clause closest to it) whose polarity flipped, as a whole
    sentence's is read; None when none did."""
    g_clauses, n_clauses = (_CLAUSE_CUT.split(text) for text in (golden, new))
    if len(g_clauses) < 2 or len(g_clauses) != len(n_clauses):
        return None
    # a clause's counterpart is the one that says most of the same, wherever it stands
    # ("the alert fired, but nobody was on call" → "someone was on call, but the alert never fired")
    partners = [max(n_clauses, key=partial(_closeness, g)) for g in g_clauses]
    for g, n in zip(g_clauses, partners, strict=True):
        g_markers, n_markers = V.polarity(g)[1], V.polarity(n)[1]
        if (
            g != n
            and len(g_markers) % 2 != len(n_markers) % 2
            and flipped_concepts(g, n)
            and _closeness(g, n) >= 0.5
        ):
            words = f"{', '.join(g_markers) or 'none'} → {', '.join(n_markers) or 'none'}"
            return f"polarity flipped (negation/antonym: {words})"
    return None


def _negated_in_part(golden: str, new: str) -> str | None:
    """The label when one side states a concept only one way and the other states it both ways
    ("Breakfast and parking are included." → "Breakfast is included, but parking is not
    included.": a member taken out); None otherwise."""
    g, n = polar_concepts(golden), polar_concepts(new)
    if _closeness(golden, new) < 0.5:
        return None
    for mine, other, own_text, other_text in ((g, n, golden, new), (n, g, new, golden)):
        if any(-1 in s for c, s in mine.items() if not c.startswith("#")):
            continue  # the one-way side excludes a member too ("B12 instead of B14")
        if V.polarity(own_text)[1] or not any(
            m in V._NEGATIONS or m.endswith("n't") or V._JA_NEGATION.fullmatch(m)
            for m in V.polarity(other_text)[1]
        ):
            continue  # the one-way side negates nothing; the other negates with a word
        for concept, signs in mine.items():
            if signs == {1} and other.get(concept) == {1, -1}:
                markers = V.polarity(golden)[1] + V.polarity(new)[1]
                return (
                    f"polarity flipped in part (negation/antonym: {', '.join(markers) or concept})"
                )
    return None


#: where one clause of a sentence ends and the next begins
_CLAUSE_CUT = re.compile(
    r"\s*;\s*|\s+[—–]\s+|,\s+(?:so|and so|but|therefore|thus|hence|which means|daher|also|donc|alors|"
    r"mais|por lo tanto|así que|pero)\s+",
    re.IGNORECASE,
)


#: where a clause ends for :func:`flipped_in_clause`: clause punctuation and contrasting
#: conjunctions (a colon: see :func:`_clauses`)
_PART_CUT = re.compile(
    r"[,;!?。、！？()\[\]—–]|\.(?:\s|$)|\s-\s|\b(?:but|however|whereas|although|aber|jedoch|obwohl|"
    r"mais|tandis que|alors que|pero|aunque|sino)\b",
    re.IGNORECASE,
)
#: a clause that states a condition or an exception, not a fact: its negation is no claim
#: ("if the tank isn't full", "no report except the churn report")
_IF_OR_EXCEPT = re.compile(
    r"\b(?:if|unless|otherwise|except|wenn|falls|sonst|außer|si|sinon|sauf|excepto|salvo|menos)\b",
    re.IGNORECASE,
)


def _clauses(text: str) -> list[str]:
    """``text`` cut into clauses (:data:`_PART_CUT`); a colon ends a clause of more than four
    words ("customs has stopped the container: the codes are missing") and joins a short label
    to its value ("Saturdays: not covered")."""
    out = []
    for part in _PART_CUT.split(text):
        head, colon, rest = part.partition(":")
        pieces = [head, rest] if colon and len(head.split()) > 4 else [part]
        out += [p for p in pieces if p.strip() and not _IF_OR_EXCEPT.search(p)]
    return out


def flipped_in_clause(golden: str, new: str, flipped: list[str]) -> str | None:
    """The label when a concept the two sentences state with opposite polarity (``flipped``) is
    what a negation in one of two clauses reaches first (or a negative antonym), the two clauses
    saying much the same and differing in negation parity, though the sentences around them were
    reworded apart ("…, and the e-visa allows multiple entries" → "…, but it does not allow
    multiple entries"; a table row's "Saturdays: not covered by the permit"); None otherwise.
    Much the same: at least two of the shorter clause's concepts (an antonym pair is one), and at
    least 60 % of them, stated in the other (a related word counts: "déclarer" / "déclaration"). A clause stating a condition or an exception is no claim."""
    parts = [_clauses(golden), _clauses(new)]
    for gc in parts[0]:
        g_heads: set[str] = set()
        g_concepts = polar_concepts(gc, g_heads)
        if not any(c in g_concepts for c in flipped):
            continue
        for nc in parts[1]:
            n_heads: set[str] = set()
            n_concepts = polar_concepts(nc, n_heads)
            if not any(c in n_concepts and c in g_concepts for c in flipped):
                continue
            shared = sum(
                any(
                    a == b or ("#" not in a + b and not _valued(a + b) and _related(a, b))
                    for b in n_concepts
                )
                for a in g_concepts
            )
            if shared < 2 or shared < 0.6 * min(len(g_concepts), len(n_concepts)):
                continue
            g_markers, n_markers = V.polarity(gc)[1], V.polarity(nc)[1]
            if len(g_markers) % 2 != len(n_markers) % 2 and (g_heads | n_heads) & set(
                flipped_concepts(gc, nc)
            ):
                words = f"{', '.join(g_markers) or 'none'} → {', '.join(n_markers) or 'none'}"
                return (
                    f"polarity flipped in a clause (negation/antonym: {words}): "
                    f'"{gc.strip()}" → "{nc.strip()}"'
                )
    return None


#: a value denied on its way to the right one ("not $30", "nicht 30 €", "rather than $30")
_DENIED = r"(?:not|never|nicht|kein\w*|pas|non|no|rather than|instead of|statt|anstatt|au lieu de|en lugar de|en vez de)"


_DENYING = re.compile(r"\b" + _DENIED + r"\b", re.IGNORECASE)


def denied_correction(fact: F.Fact, unit: Unit, others: list[F.Fact]) -> bool:
    """A value ``unit`` only denies while it corrects it ("It's not $30 — the refund is $20"),
    next to a value of the same kind that the other answer states (``others``): the denied value
    is the mistaken one the answer sets aside, no fact of the answer; leaving it out says the
    same."""
    if not _DENYING.search(unit.text):  # no denial word: no pattern built for the value
        return False
    if not re.search(_DENIED + r"\s+(?:\w+\s+){0,2}?" + re.escape(fact.surface), unit.text, re.I):
        return False
    return any(
        f is not fact and f.kind == fact.kind and any(F.facts_match(f, o) for o in others)
        for f in unit.facts
    )
