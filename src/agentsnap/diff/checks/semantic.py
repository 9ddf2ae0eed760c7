"""The text checks ``llm_call[i]`` and ``output``: what the LLM calls answered and the final output."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...storage.volatile import same_output
from .. import _text
from ..meaning.scores import as_text, meets_threshold
from ..meaning.similarity import cosine_similarity
from ..trajectory import turns_may_vary
from ._api import Check, CheckContext, HtmlPage, HtmlPart, ReportDraft, TextView
from .llm_requests import LLMRequestsResult

__all__ = [
    "Confirmation",
    "SemanticCheck",
    "SemanticResult",
    "TextScore",
    "confirm",
    "judge_one",
    "score_texts",
]

#: how a finding of the meaning check is labelled, by severity (text and HTML reports alike)
FINDING_LABEL = {"harmful": "changed", "soft": "differs", "harmless": "harmless"}
_SEVERITY_ORDER = {"harmful": 0, "soft": 1, "harmless": 2}


@dataclass
class TextScore:
    """One text check: ``key`` (``llm_call[i]`` or ``output``), its ``score``, the
    ``reasons`` shown and ``details`` (``details["semantic"][key]``)."""

    key: str
    score: float
    reasons: list[str]
    details: dict[str, Any]

    @property
    def passed(self) -> bool:
        return bool(self.details["passed"])


#: a failing meaning verdict is confirmed by the judge when it scores at least this: the texts the
#: check could align (alignment quality q >= 0.5: a changed fact in a rewording scores
#: 0.50-0.60, a soft difference 0.80-0.88); a different answer (0.40-0.50) fails unasked
JUDGE_FLOOR = 0.5
#: the judge's score from which it passes a text: its prompt asks for 0.9 or more for harmless
#: wording and at most 0.5 for any change
JUDGE_PASS = 0.7
#: most judge calls for one text: until two agree
JUDGE_CALLS = 3


@dataclass
class Confirmation:
    """The judge's majority on one failing text: ``passed`` (it overturned the failure),
    the ``scores`` and ``reasons`` of each call, in order."""

    passed: bool
    scores: list[float]
    reasons: list[str]

    @property
    def votes(self) -> str:
        """``"2 of 2"``: the calls that agreed with the outcome, of the calls made."""
        agreeing = sum((score >= JUDGE_PASS) == self.passed for score in self.scores)
        return f"{agreeing} of {len(self.scores)}"

    def line(self) -> str:
        """One report line: what the judge decided, how, and its first agreeing reason."""
        what = "passed it" if self.passed else "confirmed the failure"
        why = next(
            (
                r
                for s, r in zip(self.scores, self.reasons, strict=True)
                if (s >= JUDGE_PASS) == self.passed and r
            ),
            "",
        )
        return f"judge {what} ({self.votes} calls)" + (f": {why}" if why else "")


def confirm(judge: Any, pair: tuple[str, str], key: str | None) -> Confirmation:
    """Ask ``judge`` about one failing text until two calls agree (at most :data:`JUDGE_CALLS`)."""
    scores: list[float] = []
    reasons: list[str] = []
    while len(scores) < JUDGE_CALLS:
        score, reason = judge_one(judge, pair, key)
        scores.append(score)
        reasons.append(reason)
        passes = sum(s >= JUDGE_PASS for s in scores)
        if passes >= 2 or len(scores) - passes >= 2:
            break
    passes = sum(s >= JUDGE_PASS for s in scores)
    return Confirmation(passes * 2 > len(scores), scores, reasons)


@dataclass
class SemanticResult:
    """Every text check in order, and the backend that scored the differing texts."""

    texts: list[TextScore] = field(default_factory=list)
    backend: str = "exact"
    backend_info: dict[str, Any] = field(default_factory=dict)


def _response_text(step: Mapping[str, Any]) -> str:
    value = step.get("response")
    return "" if value is None else as_text(value)


def judge_one(judge: Any, pair: tuple[str, str], key: str | None) -> tuple[float, str]:
    """One judge verdict as ``(score, reason)``, whatever the judge returns.

    :class:`agentsnap.diff.meaning.judge.LLMJudge` returns a float carrying ``.reason``; a
    (score, reason) pair works; so does a 0.5.1-style judge whose ``score(old,
    new, key=None)`` returns a plain float and keeps reasons in ``last_reasons()``.
    """
    import inspect

    try:
        takes_key = "key" in inspect.signature(judge.score).parameters
    except (TypeError, ValueError):
        takes_key = False
    verdict = judge.score(pair[0], pair[1], key=key) if takes_key else judge.score(pair[0], pair[1])
    if isinstance(verdict, (tuple, list)):
        return float(verdict[0]), str(verdict[1]) if len(verdict) > 1 else ""
    reason = getattr(verdict, "reason", None)
    if reason is None and key is not None and callable(getattr(judge, "last_reasons", None)):
        reason = (judge.last_reasons() or {}).get(key)
    return float(verdict), str(reason or "")


def _once_per_text(encode: Callable[[list[str]], Any]) -> Callable[[list[str]], list[Any]]:
    """``encode`` asked once per distinct text: later batches are served what it returned."""
    seen: dict[str, Any] = {}

    def cached(texts: list[str]) -> list[Any]:
        missing = [text for text in dict.fromkeys(texts) if text not in seen]
        if missing:
            seen.update(zip(missing, list(encode(missing)), strict=True))
        return [seen[text] for text in texts]

    return cached


def score_texts(
    pairs: list[tuple[str, str]],
    *,
    keys: list[str] | None = None,
    judge: Any,
    embed_fn: Any,
    embedding_backend: Any,
    judge_mode: str = "score",
) -> tuple[list[float], list[list[str]], str, dict[str, Any], list[str], list[list[Any]]]:
    """Per pair: score, reasons, scale (``exact``/``judge``/``meaning``/``embed_fn``) and meaning findings; the backend's name and description.

    With a judge and ``judge_mode="score"`` the judge scores every differing pair (agentsnap
    0.5.1). Otherwise (no judge, or ``"confirm"``: :meth:`SemanticCheck.run` asks the judge
    about failing texts afterwards) every differing pair goes through :func:`agentsnap.diff.meaning.verdict.compare_many`,
    whose sentences are aligned with the backend's encoder (MiniLM) or, for ``lexical``, by
    character trigrams alone. With a user's ``embed_fn`` the score is the cosine of the two
    texts' vectors (agentsnap 0.5.1's contract) and the meaning check only adds findings.
    """
    scores = [1.0] * len(pairs)
    reasons: list[list[str]] = [[] for _ in pairs]
    scale = ["exact"] * len(pairs)
    findings: list[list[Any]] = [[] for _ in pairs]
    pending = [i for i, (g, n) in enumerate(pairs) if g != n]
    if not pending:
        return scores, reasons, "exact", {}, scale, findings
    if judge is not None and judge_mode == "score":
        for i in pending:
            verdict = judge_one(judge, pairs[i], keys[i] if keys else None)
            scores[i] = float(verdict[0])
            reason = verdict[1]
            if reason:
                reasons[i].append(f"judge: {reason}")
            scale[i] = "judge"
        describe = getattr(judge, "describe", None)
        info = describe() if callable(describe) else {"backend": "judge"}
        return scores, reasons, "judge", info, scale, findings
    from ..meaning.backends import get_backend
    from ..meaning.verdict import compare_many

    backend = get_backend(embedding_backend, embed_fn)
    encode = backend.encoder()
    cosines: list[float] | None = None
    if embed_fn is not None and encode is not None:
        # a user's embed_fn decides (agentsnap 0.5.1's contract): the cosine of the two whole
        # texts' vectors is the score; the meaning check's findings are reported beside it and
        # fail the text only with strict_facts (SemanticCheck.run). One vector per distinct
        # text, shared with the meaning check's alignment (a sentence that is a whole text)
        encode = _once_per_text(encode)
        vectors = encode([text for i in pending for text in pairs[i]])
        cosines = [
            cosine_similarity(vectors[2 * n], vectors[2 * n + 1]) for n in range(len(pending))
        ]
    verdicts = compare_many([pairs[i] for i in pending], encode)
    for n, (i, meant) in enumerate(zip(pending, verdicts, strict=True)):
        scores[i] = float(meant.score) if cosines is None else float(cosines[n])
        reasons[i] = meant.reasons()
        findings[i] = list(meant.findings)
        scale[i] = "meaning" if cosines is None else "embed_fn"
    return scores, reasons, backend.name, backend.describe(), scale, findings


def _identical(key: str, threshold: float, many: bool = False) -> TextScore | None:
    """The text check ``key`` of two identical texts, as the general path of
    :meth:`SemanticCheck.run` makes it (score 1.0 from no call, no fact hint, nothing to
    confirm, verdict ``identical``) without its work; None when 1.0 does not meet ``threshold``.
    ``many``: one of at least :data:`_MANY` texts (its details held in less memory)."""
    if not meets_threshold(1.0, threshold):
        return None
    if not many:
        details = {
            "threshold": threshold,
            "backend": "exact",
            "passed": True,
            "verdict": "identical",
            "findings": [],
            "golden_excerpt": None,
            "new_excerpt": None,
            "hints": [],
            "failed_by": None,
        }
        return TextScore(key, 1.0, [], details)
    # (the same dict, of its own, its lists its own: the attribute dict of a new _IdenticalKeys,
    # whose keys CPython holds once for all of them: 5,000 calls, ~0.7 MB less at the
    # comparison's peak; ~170 ns more a text, so not for a few texts; each key set on its own:
    # an update from another dict would copy that dict's own table)
    details = _IdenticalKeys().__dict__
    details["threshold"] = threshold
    details["backend"] = "exact"
    details["passed"] = True
    details["verdict"] = "identical"
    details["findings"] = []
    details["golden_excerpt"] = None
    details["new_excerpt"] = None
    details["hints"] = []
    details["failed_by"] = None
    return TextScore(key, 1.0, [], details)


#: texts from which :func:`_identical`'s details are held in less memory (a large golden's)
_MANY = 512


class _IdenticalKeys:
    """Nothing but the key table of :func:`_identical`'s details dicts (all the same keys, in
    the same order)."""


def _verdict_word(findings: list[Any], identical: bool, scale: str) -> str:
    """``identical``, ``same meaning`` (only harmless differences), ``soft difference``, ``changed`` or ``judge``."""
    if identical:
        return "identical"
    if scale == "judge":
        return "judge"
    levels = {f.severity for f in findings}
    if "harmful" in levels:
        return "changed"
    if "soft" in levels:
        return "soft difference"
    return "same meaning"


class SemanticCheck(Check[SemanticResult]):
    """``llm_call[i]``: the response text of llm_call *i* (both sides have it) must score
    >= ``llm_threshold``; ``output``: the final output must score >= ``semantic_threshold``
    (non-strings compared as sorted-key JSON). Identical texts score 1.0; the others are
    scored by the ``judge`` or the meaning check; with ``strict_facts`` a fact hint fails
    the text whatever its score. Failures are listed as ``semantic:<key>``."""

    name = "semantic"
    title = "[SEMANTIC]"
    components = ("llm_calls", "output")
    fails_as = ()  # semantic:llm_call[i], semantic:output

    def run(self, ctx: CheckContext) -> SemanticResult:
        calls = ctx.result("llm_requests", LLMRequestsResult)
        opts = ctx.options
        keys: list[str] = []
        # per text its pair, or None when both sides hold the same response object (the
        # same text: a run proven its golden's shares its values); only the differing pairs
        # are scored (an equal pair scores 1.0, ``exact``, whatever else is scored)
        pairs: list[tuple[str, str] | None] = []
        # the n-th call answers the n-th turn; when a trajectory mode lets the turns come and go
        # (a tool called or not), positions no longer pair up: only the last calls (the answers) do
        if turns_may_vary(ctx.options) and len(calls.golden) != len(calls.new) and calls.common:
            g_indexes: Sequence[int] = [len(calls.golden) - 1]
            n_indexes: Sequence[int] = [len(calls.new) - 1]
        else:
            g_indexes = n_indexes = range(calls.common)
        for g_index, n_index in zip(g_indexes, n_indexes, strict=True):
            keys.append(f"llm_call[{g_index}]")
            g_step, n_step = calls.golden[g_index][1], calls.new[n_index][1]
            g_value = g_step.get("response")
            if g_value is not None and g_value is n_step.get("response"):
                pairs.append(None)
            else:
                pairs.append((_response_text(g_step), _response_text(n_step)))
        keys.append("output")
        g_out, n_out = as_text(ctx.golden.get("output")), as_text(ctx.new.get("output"))
        if g_out != n_out and same_output(ctx.golden, ctx.new):
            # the same answer but for the provider's fresh ids, as re-recording reads it
            n_out = g_out
        pairs.append((g_out, n_out))

        differing = [i for i, pair in enumerate(pairs) if pair is not None and pair[0] != pair[1]]
        scored = score_texts(
            [pair for i in differing if (pair := pairs[i]) is not None],
            keys=[keys[i] for i in differing],
            judge=opts.judge,
            embed_fn=opts.embed_fn,
            embedding_backend=opts.embedding_backend,
            judge_mode=opts.judge_mode,
        )
        backend_name, backend_info = scored[2], scored[3]
        at = {i: n for n, i in enumerate(differing)}
        result = SemanticResult(backend=backend_name, backend_info=backend_info)
        many = len(keys) >= _MANY
        for index, key in enumerate(keys):
            # one scale for every backend (the meaning check or the judge): the documented thresholds apply
            threshold = opts.semantic_threshold if key == "output" else opts.llm_threshold
            pair = pairs[index]
            same = _identical(key, threshold, many) if pair is None or pair[0] == pair[1] else None
            if same is not None:
                result.texts.append(same)
                continue
            if pair is None:  # the same text (a threshold over 1.0): the general path
                pair = (as_text(calls.golden[g_indexes[index]][1]["response"]),) * 2
            g_text, n_text = pair
            n = at.get(index)
            if n is None:  # an equal pair, as score_texts leaves it
                score, reasons, scale, found = 1.0, [], "exact", []
            else:
                score, reasons = scored[0][n], scored[1][n]
                scale, found = scored[4][n], scored[5][n]
            # (imported here: the fact hints' vocabulary and phrasing tables, ~8 ms to import,
            # serve only a pair of texts that differ; an identical pair is answered above)
            from ..meaning.hints import fact_hints

            hints = fact_hints(g_text, n_text)
            score_ok = meets_threshold(score, threshold)
            ok = score_ok and not (opts.strict_facts and hints)
            confirmed = None
            if (
                not score_ok
                and opts.judge is not None
                and scale == "meaning"
                and score >= JUDGE_FLOOR
            ):
                confirmed = confirm(opts.judge, (g_text, n_text), key)
                score_ok = ok = confirmed.passed and not (opts.strict_facts and hints)
                reasons = [confirmed.line(), *reasons]
            shown_hints = (
                [hint.message for hint in hints] if (opts.strict_facts or scale == "judge") else []
            )
            was, now = _text.excerpts(g_text, n_text) if not ok else (None, None)
            telling = [f for f in found if f.severity != "harmless" and (f.golden or f.new)]
            worst = next(
                (f for f in telling if f.golden and f.new), telling[0] if telling else None
            )
            if not ok and worst is not None:
                was, now = worst.golden or None, worst.new or None
                if was and now and max(len(was), len(now)) > _text.EXCERPT_WIDTH:
                    was, now = _text.excerpts(was, now)
            details = {
                "threshold": threshold,
                "backend": "exact" if g_text == n_text else backend_name,
                "passed": ok,
                "verdict": _verdict_word(found, g_text == n_text, scale),
                "findings": [
                    {
                        "kind": f.kind,
                        "severity": f.severity,
                        "golden": f.golden,
                        "new": f.new,
                        "message": f.message,
                    }
                    for f in found
                ],
                "golden_excerpt": was,
                "new_excerpt": now,
                "hints": [
                    {
                        "kind": h.kind,
                        "golden": list(h.golden),
                        "new": list(h.new),
                        "message": h.message,
                    }
                    for h in hints
                ],
                "failed_by": None if ok else ("threshold" if not score_ok else "strict_facts"),
            }
            if confirmed is not None:  # the judge's majority on a failing text (judge_mode confirm)
                details["judge"] = {
                    "passed": confirmed.passed,
                    "votes": confirmed.votes,
                    "scores": confirmed.scores,
                    "reasons": confirmed.reasons,
                    "threshold": JUDGE_PASS,
                }
            result.texts.append(TextScore(key, score, reasons + shown_hints, details))
        return result

    def contribute(self, result: SemanticResult, draft: ReportDraft) -> None:
        draft.details["semantic"] = {t.key: t.details for t in result.texts}
        for text in result.texts:
            draft.semantic_scores[text.key] = text.score
            draft.reasons[text.key] = text.reasons
            if not text.passed:
                draft.fail(self.name, _text.SEMANTIC_PREFIX + text.key)
        draft.backend = result.backend
        draft.semantic_backend = result.backend_info
        llm_scores = [min(1.0, max(0.0, t.score)) for t in result.texts if t.key != "output"]
        if llm_scores:
            draft.components["llm_calls"] = math.fsum(llm_scores) / len(llm_scores)
        output = next(t for t in result.texts if t.key == "output")
        draft.components["output"] = min(1.0, max(0.0, output.score))

    def render_text(self, view: TextView) -> None:
        report = view.report
        details = report.details.get("semantic") or {}
        scores = report.semantic_scores
        ok = not any(key in view.failed for key in scores)
        detail = f" — backend: {report.backend}" if scores else " — nothing compared"
        info = report.semantic_backend or {}
        if scores and info.get("model_sha256"):
            detail += f" ({info.get('model', 'model')}, sha256 {str(info['model_sha256'])[:12]})"
        elif scores and info.get("backend") == "judge" and info.get("model"):
            detail += f" ({info['model']})"
        view.add(f"{view.tag(self.title)} {view.status(ok)}{detail}")
        for key, score in scores.items():
            info = details.get(key) or {}
            key_ok = key not in view.failed
            threshold = info.get("threshold")
            by_facts = info.get("failed_by") == "strict_facts"
            if threshold is None:
                line = f"{key}: {_text.pct(score)}"
            else:
                cmp = "≥" if meets_threshold(float(score), float(threshold)) else "<"
                line = f"{key}: {_text.pct(score)} {cmp} threshold {_text.pct(threshold)}"
            if by_facts:
                line += " but facts differ (strict_facts)"
            judged = info.get("judge")
            if isinstance(judged, Mapping):
                what = "passed it" if judged.get("passed") else "confirmed the failure"
                line += f", the judge {what} ({judged.get('votes')} calls)"
            verdict = info.get("verdict")
            suffix = f" — {verdict}" if verdict and verdict not in ("identical", "judge") else ""
            view.add(f"{line} {view.status(key_ok)}{suffix}", 1)
            if not key_ok:
                was, now = info.get("golden_excerpt"), info.get("new_excerpt")
                if was is not None:
                    view.add(view.paint(f"was: {was!r}", _text.DIM), 2)
                if now is not None:
                    view.add(f"now: {now!r}", 2)
            hint_lines = {h.get("message") for h in info.get("hints") or []}
            # the meaning check's findings, labelled by what they did to the verdict
            severity = {f.get("message"): f.get("severity") for f in info.get("findings") or []}
            for reason in report.reasons.get(key) or []:
                if reason in severity:
                    label = FINDING_LABEL.get(str(severity[reason]), "reason")
                else:
                    label = "hint" if reason in hint_lines else "reason"
                view.add(f"{label}: {reason}", 2)

    # -- HTML ---------------------------------------------------------------------------
    def html(self, page: HtmlPage) -> HtmlPart:
        rows = _semantic_rows(page.report)
        return HtmlPart(
            view={
                "semantic": rows,
                "output": _output(page, rows),
                "backend": _backend_line(page.report),
            }
        )


def _finding(raw: Mapping[str, Any]) -> dict[str, Any]:
    """One finding for the page: its label, what changed, and the golden / new sentences."""
    message = str(raw.get("message") or "")
    what = message.split(": golden: ", 1)[0] if ": golden: " in message else message
    severity = str(raw.get("severity") or "")
    return {
        "severity": severity,
        "label": FINDING_LABEL.get(severity, "note"),
        "what": what,
        "golden": str(raw.get("golden") or ""),
        "new": str(raw.get("new") or ""),
        "message": message,
    }


def _semantic_rows(report: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    from ._values import pct

    if not report:
        return []
    details = ((report.get("details") or {}).get("semantic")) or {}
    failed = {_text.check_key(c) for c in report.get("failed_checks") or []}
    rows = []
    for key, score in (report.get("semantic_scores") or {}).items():
        info = details.get(key) or {}
        hint_messages = {h.get("message") for h in info.get("hints") or []}
        findings = [_finding(f) for f in info.get("findings") or [] if isinstance(f, Mapping)]
        finding_messages = {f["message"] for f in findings}
        reasons = [
            r for r in (report.get("reasons") or {}).get(key) or [] if r not in finding_messages
        ]
        rows.append(
            {
                "check": key,
                "score": pct(score),
                "score_value": max(0.0, min(1.0, float(score)))
                if isinstance(score, (int, float))
                else 0.0,
                "threshold": pct(info.get("threshold"))
                if info.get("threshold") is not None
                else "—",
                "backend": info.get("backend") or report.get("backend") or "",
                "passed": key not in failed,
                "failed_by": info.get("failed_by"),
                "hints": [r for r in reasons if r in hint_messages],
                "reasons": [r for r in reasons if r not in hint_messages],
                "verdict": info.get("verdict") or "",
                "findings": sorted(findings, key=lambda f: _SEVERITY_ORDER.get(f["severity"], 3)),
            }
        )
    return rows


def _backend_line(report: Mapping[str, Any] | None) -> str:
    if not report:
        return ""
    info = report.get("semantic_backend") or {}
    parts = [str(report.get("backend") or "exact")]
    if info.get("model"):
        parts.append(str(info["model"]))
    if info.get("method"):
        parts.append(str(info["method"]))
    if info.get("model_sha256"):
        parts.append(f"sha256 {str(info['model_sha256'])[:12]}")
    return " · ".join(parts)


def _output(page: HtmlPage, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    from ._values import output_text, word_diff

    golden, new = page.entry.get("golden"), page.entry.get("new")
    if new is None and golden is None:
        return None
    if golden is None or new is None:
        only = new if new is not None else golden
        return {"single": True, "text": output_text((only or {}).get("output"))}
    g_text, n_text = output_text(golden.get("output")), output_text(new.get("output"))
    left, right = word_diff(g_text, n_text)
    check = next((row for row in rows if row["check"] == "output"), None)
    return {
        "single": False,
        "golden": left,
        "new": right,
        "identical": g_text == n_text,
        "check": check,
    }
