"""Who does what to whom: roles read per clause, and the same in either voice ("B is paid by A"
says "A pays B").

:mod:`agentsnap.diff.meaning.reading` finds a swap of two roles where one sentence is the other
with two names or blocks of words exchanged ("Alice pays Bob" → "Bob pays Alice"). A sentence
turned into the passive moves its agent behind ``by`` (``von``, ``par``, ``por``), so the words
stand in another order without any role changed, and a swap said in the other voice ("Alice pays
Bob" → "Alice is paid by Bob") keeps the words' order. :func:`active` writes each passive clause
with an agent in the active order (agent, verb, patient, the rest), and :func:`voice_swap`
compares the order of the words two sentences share once both are read in the active voice.

A sentence of two clauses may swap the roles in both ("A owes B $10; B sends the invoice" → "B
owes A $10; A sends the invoice"): the names of the whole sentence then stand in no order that one
exchange explains. :func:`clause_swap` reads the names clause by clause, and :func:`bound_swap`
what each name's own clauses say ("A is the primary and B replicates from it" → "B acts as the
primary; A replicates from it"). :func:`order_kept` knows two exchanges that say the same: the
sides of a copula ("the deadline is April 15" = "April 15 is the deadline") and a noun put before
the noun it qualifies ("photos of the damage" = "damage photos"). :func:`duty_moved` reads a
sentence split or merged: a duty said in a clause of one party moved to a clause of the other
("…; the landlord must keep it in a separate account" → "Keeping it … is up to the tenant").

Standard library only; one regular expression per language, no parser: a clause is the text
between ``,;:`` or a sentence's end, its patient everything before the auxiliary, its agent at
most three words after ``by`` up to a preposition or conjunction.
"""

from __future__ import annotations

import re
from collections import Counter

from . import facts as F
from . import vocabulary as V
from .clues import _block_swap, _closeness

__all__ = ["active", "bound_swap", "clause_swap", "duty_moved", "order_kept", "voice_swap"]

#: a copula that joins two sides said of one thing ("the deadline is April 15")
_COPULA = re.compile(
    r"\s(?:is|are|was|were|ist|sind|war|est|sont|était|es|son|era)\s", re.IGNORECASE
)


def order_kept(golden: str, new: str, a: str, b: str) -> bool:
    """Whether an exchange of ``a`` and ``b`` says the same: the two sides of a copula said the
    other way round ("The filing deadline is April 15" = "April 15 is the filing deadline"), or
    a noun said before the noun it qualifies ("photos of the damage" = "damage photos")."""
    for one, other in ((golden, new), (new, golden)):
        for x, y in ((a, b), (b, a)):
            of = rf"(?<!\w){re.escape(x)}\w*\s+of\s+(?:the\s+|a\s+|an\s+|your\s+)?{re.escape(y)}"
            if re.search(of, one, re.IGNORECASE) and re.search(
                rf"(?<!\w){re.escape(y)}\w*\s+{re.escape(x)}", other, re.IGNORECASE
            ):
                return True
    g_sides, n_sides = _COPULA.split(golden.rstrip(" .!")), _COPULA.split(new.rstrip(" .!"))
    if len(g_sides) != 2 or len(n_sides) != 2:
        return False
    g_left, g_right = (set(V.content_words(s)) for s in g_sides)
    n_left, n_right = (set(V.content_words(s)) for s in n_sides)
    return bool(g_left and g_right) and _alike(g_left, n_right) and _alike(g_right, n_left)


def _alike(a: set[str], b: set[str]) -> bool:
    """Two sets of content words that share at least four in five of the larger (a possessive's
    "year's" and "year" as one)."""
    a = {w.rstrip("'’s") or w for w in a}
    b = {w.rstrip("'’s") or w for w in b}
    return len(a & b) >= 0.8 * max(len(a), len(b))


#: where a sentence's clauses part: ``;`` and ``,`` then a word that starts a clause
_CLAUSES = re.compile(
    r";\s*|,\s*(?=(?:and|but|so|while|whereas|und|aber|doch|während|et|mais|donc|alors|tandis|"
    r"y|pero|mientras)\b)|\s(?=(?:while|whereas|während|tandis que|mientras que)\b)",
    re.IGNORECASE,
)


def clause_swap(
    golden: str, new: str, g_facts: list[F.Fact], n_facts: list[F.Fact]
) -> tuple[str, str] | None:
    """Two names exchanged inside one clause of two sentences cut into as many clauses, the rest
    of that clause kept (at least 0.75 of its words): ``(a, b)``, the two names' keys, or None."""
    g_parts, n_parts = _CLAUSES.split(golden), _CLAUSES.split(new)
    if len(g_parts) < 2 or len(g_parts) != len(n_parts):
        return None
    for g_part, n_part in zip(g_parts, n_parts, strict=True):
        g_names, n_names = _names_in(g_part, g_facts), _names_in(n_part, n_facts)
        swap = _block_swap(g_names, n_names, need_middle=False)
        if swap and _closeness(_without(g_part, g_names), _without(n_part, n_names)) >= 0.75:
            return swap
    return None


#: where a clause that binds words to one name ends: a clause break or "and"
_BINDING_BREAK = re.compile(_CLAUSES.pattern + r"|\s(?:and|und|et|y)\s", re.IGNORECASE)


def bound_swap(
    golden: str, new: str, g_facts: list[F.Fact], n_facts: list[F.Fact]
) -> tuple[str, str] | None:
    """Two names whose clauses traded what they say ("db-eu-1 is the primary and db-us-1
    replicates from it" → "db-us-1 acts as the primary; db-eu-1 replicates from it"): a word the
    golden says only in a clause of name A the new says only in a clause of name B, and another
    word the other way round. ``(a, b)`` or None."""
    g_bound, n_bound = _bound(golden, g_facts), _bound(new, n_facts)
    names = sorted(g_bound.keys() & n_bound.keys())
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            there = (g_bound[a] & n_bound[b]) - g_bound[b] - n_bound[a]
            back = (g_bound[b] & n_bound[a]) - g_bound[a] - n_bound[b]
            if there and back:
                return a, b
    return None


#: where a sentence or a clause ends, for the parties' duties
_DUTY_BREAK = re.compile(_BINDING_BREAK.pattern + r"|[.!?]\s+", re.IGNORECASE)


def duty_moved(golden: str, new: str) -> tuple[str, str] | None:
    """What one party does said of the other ("the tenant transfers the deposit to the landlord;
    the landlord must keep it in a separate account" → "…; it must be kept in a separate account by
    the tenant"): two parties that stand in one clause of both answers, and at least two content
    words the golden says in a clause of party A alone that the new says in a clause of party B
    alone, and never of A. ``(a, b)`` or None."""
    g_clauses = [set(V.content_words(c)) for c in _DUTY_BREAK.split(golden)]
    n_clauses = [set(V.content_words(c)) for c in _DUTY_BREAK.split(new)]
    g_pairs = {(a, b) for c in g_clauses for a in c for b in c if a < b}
    n_pairs = {(a, b) for c in n_clauses for a in c for b in c if a < b}
    for a, b in sorted(g_pairs & n_pairs):
        for x, y in ((a, b), (b, a)):
            g_x = _alone(g_clauses, x, y)
            moved = (
                (g_x & _alone(n_clauses, y, x)) - _alone(n_clauses, x, y) - _alone(g_clauses, y, x)
            )
            if len(moved) >= 2:
                return x, y
    return None


def _alone(clauses: list[set[str]], party: str, other: str) -> set[str]:
    """The content words of the clauses that hold ``party`` and not ``other``."""
    return {w for c in clauses if party in c and other not in c for w in c} - {party}


def _bound(text: str, facts: list[F.Fact]) -> dict[str, set[str]]:
    """Each name of ``facts`` and the content words of the clauses that name it and no other."""
    out: dict[str, set[str]] = {}
    for clause in _BINDING_BREAK.split(text):
        names = set(_names_in(clause, facts))
        if len(names) == 1:
            (name,) = names
            words = set(V.content_words(_without(clause, [name])))
            out.setdefault(name, set()).update(words)
    return out


def _without(clause: str, names: list[str]) -> str:
    """``clause`` without the names (their keys, as words) and tokens holding a digit."""
    for key in names:
        clause = re.sub(rf"(?<![\w-]){re.escape(key)}(?![\w-])", " ", clause, flags=re.IGNORECASE)
    return " ".join(t for t in V.tokens(clause) if not any(c.isdigit() for c in t))


def _names_in(clause: str, facts: list[F.Fact]) -> list[str]:
    """The keys of the names of ``facts`` that stand in ``clause`` as words, in their order there."""
    low = clause.casefold()
    found = []
    for key in dict.fromkeys(str(f.key[0]) for f in facts if f.kind == "name"):
        for hit in re.finditer(rf"(?<![\w-]){re.escape(key)}(?![\w-])", low):
            found.append((hit.start(), key))
    return [key for _, key in sorted(found)]


#: words that end an agent ("by Alice on Fridays": the agent is Alice)
_AGENT_END = (
    r"on|in|at|for|to|with|from|every|each|after|before|and|but|or|since|until|"
    r"an|auf|bei|für|mit|nach|vor|seit|bis|und|oder|aber|"
    r"à|au|aux|en|dans|pour|avec|chaque|après|avant|depuis|et|ou|mais|"
    r"a|al|con|para|cada|después|antes|desde|y|o|pero"
)
_AGENT = rf"(?P<y>(?:(?!(?:{_AGENT_END})\b)[^\W\d_][\w'’-]*\s*){{1,3}}?)"
_REST = r"(?P<rest>(?:\b(?:" + _AGENT_END + r")\b.*)?)"
#: "X is/was/has been V-ed by Y …", "X est/a été V par Y …", "X es/fue V por Y …", "X wird von Y … V"
_PASSIVE = [
    re.compile(
        r"^(?P<x>.+?)\s+(?:is|are|was|were|has been|have been|had been|will be|is being|are being|"
        r"gets|get|got)\s+(?:\w+ly\s+)?(?P<v>[^\W\d_]+)\s+(?:by|in)\s+"
        + _AGENT
        + r"\s*"
        + _REST
        + "$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?P<x>.+?)\s+(?:est|sont|était|étaient|a été|ont été|sera|seront)\s+(?P<v>[^\W\d_]+)\s+"
        r"(?:par|dans)\s+" + _AGENT + r"\s*" + _REST + "$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?P<x>.+?)\s+(?:es|son|fue|fueron|ha sido|han sido|será|serán|está|están)\s+"
        r"(?P<v>[^\W\d_]+)\s+(?:por|en)\s+" + _AGENT + r"\s*" + _REST + "$",
        re.IGNORECASE,
    ),
    # "X wird vom Mieter (an den Vermieter) gezahlt": the agent is the one noun after von/vom
    re.compile(
        r"^(?P<x>.+?)\s+(?:wird|werden|wurde|wurden)\s+(?:von(?:\s+(?:der|dem|den|einem|einer))?|vom|"
        r"durch(?:\s+(?:den|die|das))?)\s+(?P<y>[^\W\d_][\w-]*)\s*(?P<rest>.*?)\s*"
        r"(?P<v>[^\W\d_]+)$",
        re.IGNORECASE,
    ),
]
_CLAUSE = re.compile(r"[^,;:.!?]+[,;:.!?]*")


def active(text: str) -> tuple[str, list[str]]:
    """``text`` with each passive clause that names its agent written agent first (module doc),
    and the participles moved: "Bob is paid by Alice on Fridays." → "Alice paid Bob on Fridays.",
    ``["paid"]``."""
    out: list[str] = []
    verbs: list[str] = []
    for clause in _CLAUSE.findall(text):
        body = clause.rstrip(",;:.!? ")
        tail = clause[len(body) :]
        for pattern in _PASSIVE:
            match = pattern.match(body.strip())
            if match:
                y = match.group("y").strip()
                parts = [y, match.group("v"), match.group("x").strip(), match.group("rest").strip()]
                body = " ".join(p for p in parts if p)
                verbs.append(match.group("v").casefold())
                break
        out.append(body + tail)
    return "".join(out), verbs


def _same_verb(participle: str, words: list[str]) -> bool:
    """Whether ``words`` hold a form of the verb ``participle`` is of ("paid" / "pays", "owned" /
    "owns", "gezahlt" / "zahlt"): a common start of three letters, two in words of four or less."""
    stem = participle[2:] if participle.startswith("ge") and len(participle) > 5 else participle
    for word in words:
        common = 0
        for a, b in zip(stem, word.casefold(), strict=False):
            if a != b:
                break
            common += 1
        if common >= 3 or (common >= 2 and max(len(stem), len(word)) <= 4):
            return True
    return False


def voice_swap(golden: str, new: str) -> tuple[str, str] | None:
    """Two roles exchanged between sentences said in different voices ("Alice pays Bob" → "Alice
    is paid by Bob"): read both in the active voice, the words they share stand with two of them
    (or two blocks around a middle) exchanged. None when both or neither have a passive with an
    agent, or the active sentence has no form of the passive's verb (another reading)."""
    (g_active, g_verbs), (n_active, n_verbs) = active(golden), active(new)
    if bool(g_verbs) == bool(n_verbs):
        return None  # both or neither in the passive: the plain swap rules read them
    verbs, other = (g_verbs, new) if g_verbs else (n_verbs, golden)
    if not all(_same_verb(v, V.tokens(other)) for v in verbs):
        return None  # "is handled by" / "goes through": another verb, read as a paraphrase
    g_words, n_words = V.content_words(g_active), V.content_words(n_active)
    shared = set(g_words) & set(n_words)
    g_seq = [w for w in g_words if w in shared]
    n_seq = [w for w in n_words if w in shared]
    if len(g_seq) < 2 or Counter(g_seq) != Counter(n_seq) or g_seq == n_seq:
        return None
    return _block_swap(g_seq, n_seq)
