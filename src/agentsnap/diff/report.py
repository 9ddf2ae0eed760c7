"""``DiffReport``: the result of :func:`agentsnap.diff.compute_diff`, and its text forms."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from . import _text
from ._text import SEMANTIC_PREFIX, check_key
from .checks import TextView, registered_checks, registered_components

__all__ = ["CHECK_ORDER", "COMPONENTS", "SEMANTIC_PREFIX", "DiffReport", "check_key"]

#: the fixed checks of the built-in registry, in the order they are evaluated and listed in
#: ``failed_checks``; the semantic checks ``"llm_call[i]"`` (by i) and ``"output"`` follow them
CHECK_ORDER: tuple[str, ...] = tuple(
    name for check in registered_checks() for name in check.fixed_failures()
)

#: the parts of :attr:`DiffReport.score` the built-in checks contribute, each a number in [0, 1]:
#: ``structural`` / ``model_tools`` — 1 − Levenshtein distance / longer sequence length;
#: ``arguments`` / ``model_tool_args`` / ``llm_requests`` — share of compared pairs without changes;
#: ``llm_calls`` — mean of the ``llm_call[i]`` scores; ``output`` — the output's score
#: (text scores clipped to [0, 1]). A component that was not compared is absent. A registered
#: check may add its own (:func:`agentsnap.diff.checks.registered_components`).
COMPONENTS: tuple[str, ...] = registered_components()

# the text helpers' old names
_pct = _text.pct
_short = _text.short
_changed_pair = _text.changed_pair
_plural = _text.plural
_seq = _text.seq
_paint = _text.paint


@dataclass
class DiffReport:
    """Everything :func:`~agentsnap.diff.compute_diff` found, check by check.

    The fields agentsnap 0.5.1 documented keep its types and names (code
    that reads a report, or builds one with ``DiffReport(passed=...)``, runs
    unchanged); the richer detail is under new names.

    0.5.1's fields:
        passed: True when no check failed (computed from ``failed_checks``
            when not given).
        structural_diff: None when the golden and new executed tool-name
            sequences are equal, else one line:
            ``"Tool sequence changed (edit distance N): ['a', 'b'] -> ['a']"``.
        structural_score, structural_reason: a judge's verdict on the tool
            sequences (None: agentsnap scores sequences by edit distance).
        argument_diffs: ``{key: {"old", "new", "added", "removed", "changed",
            "changes"}}`` per compared pair that differs; keys
            ``"<tool>[i]"`` (executed tool *i* of the golden),
            ``"model_tool:<tool>[i]"`` (model-requested tool *i*),
            ``"llm_call[i].messages"`` (request of llm_call *i*, replay).
            ``old`` / ``new``: the two argument dicts (request bodies or
            messages for a request); ``added`` / ``removed``: top-level keys
            only on one side; ``changed``: top-level key → ``[old, new]``;
            ``changes``: every JSON-path change (as in :attr:`changes`).
        semantic_scores: ``{"llm_call[i]": score, ..., "output": score}``,
            scores in [0, 1] (cosine may go below 0).
        semantic_reasons: ``{check: "reason; hint; …"}`` — the entries of
            :attr:`reasons` joined with ``"; "``, only for checks that have any.
        failed_checks: names of the failed checks, in evaluation order:
            ``"structural"``, ``"arguments"``, ``"model_tools"``,
            ``"model_tool_args"``, ``"llm_requests"``,
            ``"semantic:llm_call[i]"``, ``"semantic:output"``, ``"score"``
            (composite below ``min_score``). :func:`check_key` drops the
            ``semantic:`` prefix.
        model_tools_diff: like ``structural_diff``, for the model-requested
            tool sequence (``"Model-requested tool sequence changed …"``).

    New fields:
        details: the non-score details of the comparison, a JSON-able dict
            with keys ``"tools"`` (executed tool-name sequences) and
            ``"model_tools"`` (model-requested tool names; also
            ``"compared": bool`` and ``"skipped_reason"``), both in the shape
            of :func:`agentsnap.diff.sequence.sequence_diff`; ``"llm_calls"``
            (``{"golden": count, "new": count, "golden_steps": [...],
            "new_steps": [...], "requests_compared": bool}``); ``"semantic"``
            (per text check, keyed like ``semantic_scores``: ``{"threshold",
            "backend", "passed", "verdict", "findings", "golden_excerpt",
            "new_excerpt", "hints", "failed_by"}``; ``verdict`` is
            ``"identical"``, ``"same meaning"``, ``"soft difference"``,
            ``"changed"`` or ``"judge"``, ``findings`` the meaning check's
            ``{"kind", "severity", "golden", "new", "message"}`` (see
            :mod:`agentsnap.diff.meaning.verdict`), excerpts only for failing texts: the
            sentences of the worst finding); ``"components"`` (the per-component
            scores behind :attr:`score`, see :data:`COMPONENTS`) and
            ``"settings"`` (thresholds, ignored fields, ``weights``,
            ``min_score`` used). Empty in a report built by hand.
        changes: one dict per compared pair that differs: ``{"check":
            "arguments"|"model_tool_args"|"llm_requests", "index": int,
            "tool": str|None, "golden_step": int|None, "new_step": int|None,
            "changes": [{"path", "old", "new", "kind"}, ...]}``. ``index`` is
            the position in the golden tool (or request) sequence, or the
            llm_call index for ``"llm_requests"`` (where ``tool`` is None).
        reasons: ``{check: [reason, ...]}``: the judge's reason
            (``"judge: …"``) when a judge scored the text, else the meaning
            check's findings, worst first (``'times differ (10:30 → 11:30):
            golden: "…" → new: "…"'``); then, with ``strict_facts`` or a
            judge, the fact hints (``"numbers differ: 3pm → 5pm"``, see
            :mod:`agentsnap.diff.meaning.hints`); empty for identical texts. The
            structured hints are in ``details["semantic"][check]["hints"]``,
            and ``["failed_by"]`` says ``"threshold"`` or ``"strict_facts"``
            for a failed check.
        name: the snapshot name the report is about ("" when unknown).
        backend: ``"exact"`` when every compared text was identical, else the
            backend that scored the others: ``"onnx"``,
            ``"sentence-transformers"``, ``"lexical"``, ``"embed_fn"`` or
            ``"judge"``.
        semantic_backend: JSON-ready description of that backend (``{}`` for
            ``"exact"``): ``{"backend", "model", "variant", "model_sha256",
            "tokenizer_sha256", "max_tokens", "chunk_tokens"}`` for the
            MiniLM backends, ``{"backend": "lexical", "method"}``,
            ``{"backend": "judge", "model", "base_url"}``. Meant to be stored
            next to a run (``.last_run``) so a score can be traced to the
            model that produced it.
    """

    passed: bool = None  # type: ignore[assignment]  # None until __post_init__ computes it
    structural_diff: str | None = None
    structural_score: float | None = None
    structural_reason: str | None = None
    argument_diffs: dict[str, Any] = field(default_factory=dict)
    semantic_scores: dict[str, float] = field(default_factory=dict)
    semantic_reasons: dict[str, str] = field(default_factory=dict)
    failed_checks: list[str] = field(default_factory=list)
    model_tools_diff: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)
    reasons: dict[str, list[str]] = field(default_factory=dict)
    name: str = ""
    backend: str = "exact"
    semantic_backend: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.passed is None:
            self.passed = not self.failed_checks
        if self.reasons and not self.semantic_reasons:
            self.semantic_reasons = {k: "; ".join(v) for k, v in self.reasons.items() if v}

    @property
    def score(self) -> float:
        """The composite score in [0, 1]: :meth:`composite` with the weights the diff was run with.

        1.0 for a report built by hand (no components).
        """
        settings = self.details.get("settings") or {}
        return self.composite(settings.get("weights") or None)

    def composite(self, weights: dict[str, float] | None = None) -> float:
        """Weighted mean of ``details["components"]``, in [0, 1].

        ``weights``: ``{component: weight >= 0}``; components not named weigh
        1.0, components that were not compared are left out. Computed with
        ``math.fsum``, so all-1.0 components give exactly 1.0.

        Raises:
            ValueError: an unknown component name or a negative weight.
        """
        components: dict[str, float] = self.details.get("components") or {}
        weights = dict(weights or {})
        known = registered_components() if weights else ()  # (read for weights alone)
        for key, value in weights.items():
            if key not in known:
                raise ValueError(f"unknown weights key {key!r}; components are {', '.join(known)}")
            if not value >= 0:
                raise ValueError(f"weight of {key!r} must be >= 0, got {value!r}")
        pairs = [(weights.get(k, 1.0), float(v)) for k, v in components.items()]
        total = math.fsum([w for w, _ in pairs])  # (lists: the same sums, no generator frames)
        if not pairs or total == 0:
            return 1.0
        return min(1.0, max(0.0, math.fsum([w * v for w, v in pairs]) / total))

    # ------------------------------------------------------------------ one line

    def summary_line(self) -> str:
        """One line for a terminal summary.

        ``[agentsnap] 'NAME' PASSED | structural: ok | llm_call[0]: 100% | output: 100%``;
        when failing, ``FAILED``, ``structural: FAIL`` if so, and a final
        ``| failed: check, ...``.
        """
        who = f" {self.name!r}" if self.name else ""
        verdict = "PASSED" if self.passed else "FAILED"
        parts = [f"[agentsnap]{who} {verdict}"]
        parts.append("structural: " + ("FAIL" if "structural" in self.failed_checks else "ok"))
        parts.extend(f"{key}: {_pct(score)}" for key, score in self.semantic_scores.items())
        if not self.passed:
            parts.append("failed: " + ", ".join(self.failed_checks))
        return " | ".join(parts)

    # ------------------------------------------------------------------ full text

    def render(self, color: bool = False, max_lines: int = 100) -> str:
        """The report a person reads when a snapshot test fails.

        One header line (snapshot name, verdict, failed checks), then the
        sections ``[STRUCTURAL]``, ``[ARGS]``, ``[MODEL TOOLS]``,
        ``[REQUESTS]`` (only when request messages were compared) and
        ``[SEMANTIC]``, each marked ok or FAIL. Failures name the check, the
        trace step(s) and tool, and show ``OLD → NEW`` as ``repr`` cut to
        about 60 characters with ``…`` — except in ``[REQUESTS]``, where a
        changed request is shown whole (the added words are the point). Edit ops read ``replace #i OLD → NEW``
        and ``delete #i NAME`` (``i`` = golden position) or ``insert #j NAME``
        (``j`` = new position).

        ``color``: ANSI colours when True; with False the text contains no
        escape sequence. ``max_lines``: at most this many lines; when more
        would be needed, the last line says how many were cut and that
        ``agentsnap diff NAME`` shows everything.

        Raises:
            ValueError: ``max_lines`` < 2.
        """
        if max_lines < 2:
            raise ValueError(f"max_lines must be >= 2, got {max_lines}")
        lines = _render_lines(self, color)
        if len(lines) > max_lines:
            kept = lines[: max_lines - 1]
            cut = len(lines) - len(kept)
            target = self.name or "NAME"
            note = (
                f"… {_plural(cut, 'more line')} cut; "
                f"run `agentsnap diff {target}` to see everything"
            )
            kept.append(_text.paint(note, _text.DIM, color))
            lines = kept
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def _render_lines(report: DiffReport, color: bool) -> list[str]:
    """The header, each registered check's section (in registry order), then ``[SCORE]``."""
    view = TextView(report, color)
    who = f"{report.name!r} " if report.name else ""
    if report.passed:
        head = f"[agentsnap] {who}PASSED — all checks ok"
        view.add(view.paint(head, _text.BOLD + _text.GREEN))
    else:
        head = f"[agentsnap] {who}FAILED — failed checks: {', '.join(report.failed_checks)}"
        view.add(view.paint(head, _text.BOLD + _text.RED))
    for check in registered_checks():
        check.render_text(view)
    _score_line(view)
    return view.out


def _score_line(view: TextView) -> None:
    """``[SCORE]``: the composite against ``min_score`` (only when one or ``weights`` was given)."""
    settings = view.report.details.get("settings") or {}
    min_score = settings.get("min_score")
    if min_score is None and not settings.get("weights"):
        return
    ok = "score" not in view.failed
    line = f"{view.tag('[SCORE]')} {view.status(ok, decides=True)} — composite {_text.pct(view.report.score)}"
    if min_score is not None:
        line += f" {'≥' if ok else '<'} min_score {_text.pct(min_score)}"
    view.add(line)
