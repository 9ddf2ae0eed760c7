"""Words of outcome: the state a sentence says something ended in or is in, by class (done,
failed, pending, cancelled or rolled back, healthy, down, approved, rejected, delivered,
returned, paid, payment failed) in five languages, and the rule that reads them pair by pair
(:func:`changed_outcome`): a golden sentence and its counterpart stating outcomes of classes
that cannot both hold, of the same subject, changed their conclusion (``"finished without
errors"`` → ``"failed again"``, ``"approved"`` → ``"still under review"``). Classes of one
valence agree (``succeeded`` = ``completed``; ``failed`` = ``errored``), and so do a failure and
a cancellation (a failed deploy is rolled back); an outcome stated of another subject, or under
a negation (the polarity rules read those), is left alone."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from . import vocabulary as V

__all__ = ["KEYS", "Outcome", "changed_outcome", "outcomes"]

#: valences: done (+), not done (-), not yet (~), called off (x)
_DONE, _FAILED, _PENDING, _CANCELLED = "+", "-", "~", "x"

#: (class, valence, phrases): regular expressions, matched case-folded at word edges (Japanese
#: anywhere); inflected forms spelled out
_LEXICON: list[tuple[str, str, list[str]]] = [
    (
        "done",
        _DONE,
        [
            r"succeed(?:ed|s)?",
            r"(?:was|were|is|are|has been|have been) (?:a )?success(?:ful)?",
            r"(?:completed|finished|ran|ended|went through|worked) (?:successfully|fine|cleanly)",
            r"completed|finished|went through",
            r"(?:is|are|was|were|all) done",
            r"(?:with(?:out| no)|no) (?:any )?errors?",
            r"error-free|successfully",
            r"erfolgreich(?: \w+)?|abgeschlossen|ohne fehler|fehlerfrei|durchgelaufen|geklappt",
            r"réussi(?:e|s|es)?|terminée?s?|achevée?s?|abouti(?:e|s|es)?|avec succès|sans erreurs?",
            r"terminó|terminad[oa]s?|completó|completad[oa]s?|finalizó|finalizad[oa]s?",
            r"sin errores|con éxito|exitos(?:o|a|os|as|amente)",
            r"完了|成功|正常に終了|問題なく終了|エラーなく",
        ],
    ),
    (
        "failed",
        _FAILED,
        [
            r"(?:has |have )?failed to (?:succeed|complete|finish|work)",
            r"unsuccessful(?:ly)?|without success|ohne erfolg|sans succès|sin éxito",
            r"fail(?:ed|s|ing)?(?: again)?|failure",
            r"errored(?: out)?|crashed|(?:threw|returned|raised|ended with|ended in) an error",
            r"with (?:(?:several|some|many|multiple|a few|minor|\d+) )?errors"
            r"|did not (?:succeed|complete|finish|work)|didn't (?:succeed|complete|finish|work)",
            r"fehlgeschlagen|gescheitert|schlug (?:erneut |wieder )?fehl|mit (?:einigen |mehreren )?fehlern?|abgestürzt",
            r"(?:a |ont )?échoué(?:e|s|es)?(?: à nouveau| de nouveau)?|en échec|en erreur|planté",
            r"avec (?:des )?erreurs",
            r"volvió a fallar|falló|fallaron|fallid[oa]s?|con errores",
            r"失敗|エラーが発生|エラーで終了|異常終了",
        ],
    ),
    (
        "pending",
        _PENDING,
        [
            r"pending|in progress|under review|being (?:reviewed|processed)|queued|in transit",
            r"still (?:running|processing|pending|queued|open|being \w+|under review|in progress)",
            r"awaiting (?:approval|review|payment|confirmation|shipment|delivery)",
            r"out for delivery|not yet|on (?:its|their) way|en route",
            r"in bearbeitung|in prüfung|ausstehend|läuft noch|noch nicht|unterwegs",
            r"wird (?:noch )?(?:geprüft|bearbeitet)",
            r"en attente|en cours de (?:traitement|validation|livraison)|en cours d'examen",
            r"(?:est|sont) en cours|pas encore|en transit",
            r"pendiente|en (?:curso|revisión|proceso|tránsito|camino)|todavía no|aún no",
            r"処理中|審査中|保留中|対応中|進行中|確認中|配送中|未完了",
        ],
    ),
    (
        "cancelled",
        _CANCELLED,
        [
            r"cancell?ed|rolled back|reverted|aborted|called off",
            r"storniert|abgesagt|abgebrochen|zurückgerollt|rückgängig gemacht",
            r"annulée?s?|avortée?s?",
            r"cancelad[oa]s?|revertid[oa]s?|anulad[oa]s?|abortad[oa]s?",
            r"キャンセル|ロールバック|取り消し|取消|中止",
        ],
    ),
    (
        "healthy",
        _DONE,
        [
            r"healthy|operational|up and running|back online|running normally",
            r"betriebsbereit|in betrieb|läuft (?:normal|stabil|wieder)",
            r"opérationnel(?:le)?s?|fonctionne normalement|en service",
            r"operativ[oa]s?|funciona con normalidad|en servicio",
            r"正常に稼働|稼働中",
        ],
    ),
    (
        "down",
        _FAILED,
        [
            r"(?:(?:is|are|was|were|been|still|went) )?down for maintenance",
            r"(?:is|are|was|were|been|still|went) down(?! to\b| by\b| from\b)",
            r"under maintenance|offline|outage|degraded|unreachable",
            r"ausgefallen|gestört|nicht erreichbar|in wartung|wegen wartung",
            r"en panne|hors service|hors ligne|en maintenance|dégradée?s?",
            r"caíd[oa]s?|fuera de servicio|fuera de línea|en mantenimiento",
            r"停止中|障害|ダウン|メンテナンス中",
        ],
    ),
    (
        "approved",
        _DONE,
        [
            r"approved|granted|(?:was|were|has been|have been) accepted",
            r"genehmigt|bewilligt|freigegeben|(?:wurde|ist) (?:akzeptiert|angenommen)",
            r"approuvée?s?|accordée?s?|(?:a|ont) (?:bien )?été acceptée?s?|(?:est|sont) acceptée?s?",
            r"aprobad[oa]s?|concedid[oa]s?|(?:fue|fueron|ha sido) aceptad[oa]s?",
            r"承認され|承認済み|受理され",
        ],
    ),
    (
        "rejected",
        _FAILED,
        [
            r"rejected|declined|denied|refused|turned down|unapproved",
            r"abgelehnt|zurückgewiesen",
            r"refusée?s?|rejetée?s?",
            r"rechazad[oa]s?|denegad[oa]s?",
            r"却下|拒否され|不承認",
        ],
    ),
    (
        "delivered",
        _DONE,
        [
            r"delivered|has arrived|have arrived",
            r"zugestellt|geliefert|angekommen",
            r"livrée?s?",
            r"entregad[oa]s?",
            r"配達済み|配達完了|お届け済み|届きました",
        ],
    ),
    (
        "returned",
        _FAILED,
        [
            r"(?:(?:was|were|has been|have been|is being) )?returned to (?:the )?sender",
            r"(?:(?:was|were|has been|have been) )?sent back(?: to \w+)?",
            r"(?:was|were|has been|have been|is being) returned",
            r"an den absender zurück\w*|zurückgeschickt|retourniert|zurückgesendet",
            r"(?:retournée?|renvoyée?) à l'expéditeur",
            r"devuelt[oa]s?(?: al remitente)?",
            r"返送",
        ],
    ),
    (
        "paid",
        _DONE,
        [
            r"(?:is|are|was|were|has been|have been) (?:fully )?paid|paid in full|payment received",
            r"bezahlt|beglichen|payée?s?|réglée?s?|pagad[oa]s?",
            r"支払い済み|支払済み|入金済み",
        ],
    ),
    (
        "payment failed",
        _FAILED,
        [
            r"payment (?:was |has been )?(?:declined|failed|rejected|bounced)|card (?:was )?declined",
            r"unpaid|overdue",
            r"zahlung (?:wurde |ist )?(?:abgelehnt|fehlgeschlagen)",
            r"paiement (?:a été )?(?:refusé|rejeté)|paiement échoué",
            r"pago (?:fue )?rechazado|pago fallido",
            r"決済(?:が|に)?失敗|支払い(?:が)?拒否",
        ],
    ),
]

#: a word part every phrase of :data:`_LEXICON` holds (outside its optional parts): a sentence
#: with none of them is not scanned, nor a pair whose differing words hold none of them nor a
#: word of :data:`_HOW` (tests/test_semantic_outcomes checks)
KEYS = tuple(
    (  # noqa: SIM905 - a word list reads better as text
        "succe succès erfolg complet finish erreur 終了 servicio went through worked done error "
        "fehler durchgelaufen geklappt abgeschlossen réussi termin achev abouti finaliz éxito "
        "exitos 完了 成功 正常 エラー fail crash fehl gescheitert abgestürzt échou échec planté fall "
        "失敗 異常 pending progress review being queued transit still way route await delivery not yet "
        "bearbeitung prüfung ausstehend noch unterwegs wird attente cours encore pendiente "
        "curso revisión proceso tránsito camino todavía aún 中 cancel rolled revert abort "
        "called storniert abgesagt abgebrochen zurück rückgängig annul avort anulad キャンセル "
        "ロールバック 取り消し 取消 healthy operational running online betrieb läuft opérationnel "
        "normalement service operativ normalidad 稼働 down maintenance offline outage degraded "
        "unreachable ausgefallen gestört erreichbar wartung panne ligne dégradé caíd línea "
        "mantenimiento 障害 ダウン approved granted accept akzeptiert angenommen aceptad genehmigt bewilligt freigegeben approuv accord "
        "aprobad concedid 承認 受理 rejected declined denied refused turned abgelehnt refus rejet "
        "rechazad denegad 却下 拒否 delivered arrived zugestellt geliefert angekommen livr "
        "entregad 配達 お届け 届き returned sent back retourniert expéditeur devuelt 返送 paid payment "
        "bezahlt beglichen payé réglé pagad 支払 入金 unpaid overdue zahlung paiement pago 決済"
    ).split()
)
#: the words that say how an outcome ended beside a key: "finished with errors", "sin errores"
_HOW = frozenset(["with", "without", "no", "mit", "ohne", "sin", "con", "sans", "avec"])
_CLASS_OF: list[tuple[str, str]] = []
_ALTERNATIVES: list[str] = []
for _name, _valence, _phrases in _LEXICON:
    for _phrase in _phrases:
        _CLASS_OF.append((_name, _valence))
        _ALTERNATIVES.append(_phrase)
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
#: the phrases in the order of their groups in :func:`_outcome`: Latin ones, then Japanese ones
_ORDER = [k for k, p in enumerate(_ALTERNATIVES) if not _CJK.search(p)]
_ORDER += [k for k, p in enumerate(_ALTERNATIVES) if _CJK.search(p)]


@functools.cache
def _outcome() -> re.Pattern[str]:
    """A phrase of outcome at a word's edges, tried only where a word starts (the text
    lower-cased), or a Japanese one inside a run of script; one group per phrase. Compiled
    on first use (tens of milliseconds), not at import."""
    latin = "|".join(f"({_ALTERNATIVES[k]})" for k in _ORDER if not _CJK.search(_ALTERNATIVES[k]))
    japanese = "|".join(f"({_ALTERNATIVES[k]})" for k in _ORDER if _CJK.search(_ALTERNATIVES[k]))
    return re.compile(r"\b(?=[^\W\d_])(?<![^\W\d_])(?:" + latin + r")(?![^\W\d_])|" + japanese)


#: a negation that reads the outcome after it (or a Japanese one after it) as denied
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|never|no|nicht|nie|kein\w*|pas|jamais|ne|nunca|jamás)\b|n't)"
    r"(?:\W+[^\W\d_]+){0,2}\W*$",
    re.IGNORECASE,
)
#: a determiner right before: the outcome word names a kind of thing ("the completed form")
_ATTRIBUTE_BEFORE = re.compile(
    r"\b(?:the|a|an|your|our|their|its|this|that|any|der|die|das|den|dem|des|ein|eine|einen|"
    r"le|la|les|un|une|el|los|las|su|sus)\s+$",
    re.IGNORECASE,
)
#: a future or a modal right before: the outcome is expected, not stated ("will be delivered",
#: "should complete", "wird … zugestellt", "sera livré", "será entregado")
_EXPECTED_BEFORE = re.compile(
    r"(?:\b(?:will|would|should|could|may|might|must|can|shall|going to|expected to|sera|seront|"
    r"devrait|devraient|pourrait|va|vont|será|serán|debería|podría|va a|van a)\b(?:\W+[^\W\d_]+){0,2}"
    r"|\b(?:wird|werden|soll|sollte|sollten|kann|können|muss|müssen)\b(?:\W+[^\W\d_]+){0,5})\W*$",
    re.IGNORECASE,
)
_NEGATED_AFTER = re.compile(r"^(?:し|でき|され)?(?:てい|てお)?(?:ない|ません|なかった|ず|らず)")
#: where a sentence's clauses part
_CLAUSES = re.compile(
    r"[;,、](?!\s*(?:with|without|mit|ohne|avec|sans|con|sin)\b)\s*|\s+(?:but|whereas|while|although|aber|während|wohingegen|mais|alors que|tandis que|"
    r"pero|mientras que|aunque)\s+|けど|ですが|ものの",
    re.IGNORECASE,
)


#: a question: it asks about an outcome and states none
_QUESTION = re.compile(r"[^.!?。！？\n]*[?？]")


def _how(phrase: str) -> bool:
    """Whether an outcome's phrase says how it ended (``with errors``, ``ohne Fehler``)."""
    words = V.tokens(phrase)
    return bool(words) and words[0] in _HOW


class Outcome(NamedTuple):
    """One outcome stated: its class, valence, the words that say it and the subject's words."""

    kind: str
    valence: str
    surface: str
    subject: frozenset[str]


def _class_of(match: re.Match[str]) -> tuple[str, str]:
    return ("", "") if match.lastindex is None else _CLASS_OF[_ORDER[match.lastindex - 1]]


def _keyed(text: str) -> bool:
    """Whether ``text`` holds a key of :data:`KEYS`, so that it may state an outcome."""
    low = text.lower()
    return any(key in low for key in KEYS)


@functools.lru_cache(maxsize=4096)
def outcomes(text: str) -> tuple[Outcome, ...]:
    """The outcomes ``text`` states, clause by clause, each with its clause's subject (the
    content words before its first outcome; else the clause's, else the sentence's); an
    outcome under a negation is not read (``did not fail``: the polarity rules' part)."""
    text = _QUESTION.sub(" ", text)  # "Has the payment been approved?" states no outcome
    low = text.lower()  # the phrases are lower-case; lower() keeps the length (ß)
    if not _keyed(low) or not _outcome().search(low):
        return ()
    text = text if len(low) == len(text) else low
    found: list[Outcome] = []
    whole = frozenset(V.content_words(_outcome().sub(" ", low)))
    for clause in _CLAUSES.split(text):
        stated: list[tuple[str, str, str, frozenset[str]]] = []
        starts: list[int] = []
        ends: list[int] = []
        for match in _outcome().finditer(clause.lower()):
            before, after = clause[: match.start()], clause[match.end() :]
            if _NEGATED_BEFORE.search(before) or _NEGATED_AFTER.match(after):
                continue
            if _EXPECTED_BEFORE.search(before):
                continue  # "it will be delivered on Friday": an expectation, no outcome yet
            if _ATTRIBUTE_BEFORE.search(before) or after.startswith("-"):
                continue  # "the cancelled flight", "a cancelled-flight claim": a kind of thing
            kind, valence = _class_of(match)
            surface = clause[match.start() : match.end()]
            between = clause[ends[-1] : match.start()] if stated else ""
            if kind and stated and not between.strip(" ,"):
                # one outcome in two phrases, the one saying how it ended deciding: "finished"
                # "without errors" (done), "finished, with errors" (failed), "mit Fehlern"
                # "abgeschlossen" (failed: German puts the participle last)
                if _how(stated[-1][2]) and not _how(surface):
                    kind, valence = stated[-1][0], stated[-1][1]
                stated[-1] = (kind, valence, clause[starts[-1] : match.end()], stated[-1][3])
                ends[-1] = match.end()
            elif kind:
                # each outcome of the subject named since the one before ("the backup succeeded
                # and the cleanup failed"), else of the clause's
                own = frozenset(V.content_words(_outcome().sub(" ", between.lower())))
                stated.append((kind, valence, surface, own))
                starts.append(match.start())
                ends.append(match.end())
        if not stated:
            continue
        # the subject stands before the outcome ("the import failed"), or after it in the
        # clause ("volvió a fallar la importación"), or is the sentence's
        clause_words = frozenset(V.content_words(_outcome().sub(" ", clause.lower()))) or whole
        subject = frozenset(V.content_words(_outcome().sub(" ", clause[: starts[0]].lower())))
        found += [
            Outcome(kind, valence, surface, own or subject or clause_words)
            for kind, valence, surface, own in stated
        ]
    return tuple(found)


def _agree(a: str, b: str) -> bool:
    """Two valences that can both hold: the same, or a failure and a calling off."""
    return a == b or {a, b} == {_FAILED, _CANCELLED}


def changed_outcome(golden: str, new: str) -> tuple[str, str] | None:
    """``(was, now)``: an outcome of ``golden`` whose subject ``new`` states only outcomes of
    another valence of (``"the import finished without errors"`` → ``"the import failed
    again"``); None when the two agree, or say their outcomes of different subjects."""
    # an outcome changed in words is in the words one sentence has and the other lacks: a key,
    # or a word saying how it ended ("with errors" / "without errors")
    differing = set(V.tokens(golden)) ^ set(V.tokens(new))
    if not (differing & _HOW or _keyed(" ".join(differing))):
        return None
    g_said, n_said = outcomes(golden), outcomes(new)
    if not (g_said and n_said):
        return None
    for was in g_said:
        same = [now for now in n_said if now.subject & was.subject]
        if not same or any(_agree(was.valence, now.valence) for now in same):
            continue
        for now in same:  # and the golden answer does not state the new outcome of it either
            told = [then for then in g_said if then.subject & now.subject]
            if not any(_agree(then.valence, now.valence) for then in told):
                return was.surface, now.surface
    return None


def same_outcome(was: str, now: str) -> bool:
    """Whether two stretches of words say one outcome of one class (``zugestellt`` / ``geliefert
    worden``, ``approved`` / ``granted``): a word replaced by its synonym of outcome."""
    a, b = outcomes(was), outcomes(now)
    return bool(a and b) and {o.kind for o in a} == {o.kind for o in b}


def outcome_negations_read(
    g: str, n: str, g_markers: list[str], n_markers: list[str]
) -> tuple[str, str, list[str], list[str]]:
    """Two sentences and their negations with an outcome said with a negation (``without
    errors``, ``sin errores``, ``not yet``) read as the outcome alone where the other sentence
    states an outcome of the same valence of the same subject (``finished without errors`` =
    ``completed successfully``): its negation is no negation of what follows it."""
    g_said, n_said = outcomes(g), outcomes(n)
    if not (g_said and n_said):
        return g, n, g_markers, n_markers

    def read(
        text: str, said: tuple[Outcome, ...], other: tuple[Outcome, ...], markers: list[str]
    ) -> tuple[str, list[str]]:
        left = list(markers)
        for o in said:
            negations = [w for w in V.tokens(o.surface) if w in V._NEGATIONS and w in left]
            if negations and any(x.valence == o.valence and x.subject & o.subject for x in other):
                text = text.replace(o.surface, " ok ", 1)
                left.remove(negations[0])
        return text, left

    g, g_markers = read(g, g_said, n_said, g_markers)
    n, n_markers = read(n, n_said, g_said, n_markers)
    return g, n, g_markers, n_markers


def outcomes_kept(golden: str, new: str) -> bool:
    """Whether two sentences state two or more outcomes, each of one subject, and the same ones
    (``the backup succeeded, but the cleanup failed`` = ``the cleanup failed, but the backup
    succeeded``): clauses told in another order, no roles swapped."""
    g_said, n_said = outcomes(golden), outcomes(new)
    if len(g_said) < 2 or len(g_said) != len(n_said):
        return False
    return all(
        any(a.kind == b.kind and a.subject & b.subject for b in other)
        for mine, other in ((g_said, n_said), (n_said, g_said))
        for a in mine
    )
