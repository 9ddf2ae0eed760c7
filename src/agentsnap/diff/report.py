"""``DiffReport``: the result of :func:`agentsnap.diff.compute_diff`, and its text forms."""

from __future__ import annotations

import math
import reprlib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CHECK_ORDER", "COMPONENTS", "SEMANTIC_PREFIX", "DiffReport", "check_key"]

#: the fixed checks, in the order they are evaluated and listed in ``failed_checks``;
#: the semantic checks ``"llm_call[i]"`` (by i) and ``"output"`` follow them
CHECK_ORDER = (
    "structural",
    "arguments",
    "model_tools",
    "model_tool_args",
    "llm_requests",
)

#: the parts of :attr:`DiffReport.score`, each a number in [0, 1]:
#: ``structural`` / ``model_tools`` — 1 − Levenshtein distance / longer sequence length;
#: ``arguments`` / ``model_tool_args`` / ``llm_requests`` — share of compared pairs without changes;
#: ``llm_calls`` — mean of the ``llm_call[i]`` scores; ``output`` — the output's score
#: (text scores clipped to [0, 1]). A component that was not compared is absent.
COMPONENTS = (
    "structural",
    "arguments",
    "model_tools",
    "model_tool_args",
    "llm_requests",
    "llm_calls",
    "output",
)

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RED = "\x1b[31m"
_GREEN = "\x1b[32m"
_YELLOW = "\x1b[33m"
_CYAN = "\x1b[36m"

_VALUE_WIDTH = 60
_SEQ_WIDTH = 160

_repr = reprlib.Repr()
_repr.maxstring = 4 * _VALUE_WIDTH  # reprlib elides in the middle; the cut below keeps the start
_repr.maxother = 4 * _VALUE_WIDTH
_repr.maxlist = _repr.maxdict = _repr.maxtuple = _repr.maxset = 8
_repr.maxlevel = 3
_repr.fillvalue = "…"


def _pct(score: float) -> str:
    """Score as a percentage: ``100%``, ``92%``, ``83.3%`` (rounded down, never up)."""
    value = score * 100.0
    if abs(value - round(value)) < 1e-6:
        return f"{round(value):d}%"
    floored = math.floor(value * 10) / 10
    return f"{floored:.1f}%"


def _short(value: Any, width: int = _VALUE_WIDTH) -> str:
    """``repr`` of a value, cut to about ``width`` characters with an ellipsis."""
    text = _repr.repr(value)
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text


def _changed_pair(old: Any, new: Any) -> tuple[str, str]:
    """Both sides of a changed value, shortened. Two long strings are shown from a little
    before their first difference (a changed tool result deep in a long prompt would
    otherwise print as two identical beginnings)."""
    if (
        isinstance(old, str)
        and isinstance(new, str)
        and old != new
        and max(len(repr(old)), len(repr(new))) > _VALUE_WIDTH
    ):
        from ._compare import _excerpts

        old, new = _excerpts(old, new)
    return _short(old), _short(new)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _seq(names: list[str]) -> str:
    return _short(list(names), _SEQ_WIDTH)


#: the prefix agentsnap 0.5.1 gave the text checks in ``failed_checks`` (``semantic:output``)
SEMANTIC_PREFIX = "semantic:"


def check_key(name: str) -> str:
    """A ``failed_checks`` entry without 0.5.1's ``semantic:`` prefix: the key of
    ``semantic_scores`` / ``details["semantic"]`` (``"semantic:output"`` → ``"output"``)."""
    return name[len(SEMANTIC_PREFIX) :] if name.startswith(SEMANTIC_PREFIX) else name


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
            of :func:`agentsnap.diff.structural.sequence_diff`; ``"llm_calls"``
            (``{"golden": count, "new": count, "golden_steps": [...],
            "new_steps": [...], "requests_compared": bool}``); ``"semantic"``
            (per text check, keyed like ``semantic_scores``: ``{"threshold",
            "backend", "passed", "verdict", "findings", "golden_excerpt",
            "new_excerpt", "hints", "failed_by"}``; ``verdict`` is
            ``"identical"``, ``"same meaning"``, ``"soft difference"``,
            ``"changed"`` or ``"judge"``, ``findings`` the meaning check's
            ``{"kind", "severity", "golden", "new", "message"}`` (see
            :mod:`agentsnap.diff.meaning`), excerpts only for failing texts: the
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
            :mod:`agentsnap.diff.hints`); empty for identical texts. The
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
        for key, value in weights.items():
            if key not in COMPONENTS:
                raise ValueError(
                    f"unknown weights key {key!r}; components are {', '.join(COMPONENTS)}"
                )
            if not value >= 0:
                raise ValueError(f"weight of {key!r} must be >= 0, got {value!r}")
        pairs = [(weights.get(k, 1.0), float(v)) for k, v in components.items()]
        total = math.fsum(w for w, _ in pairs)
        if not pairs or total == 0:
            return 1.0
        return min(1.0, max(0.0, math.fsum(w * v for w, v in pairs) / total))

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
        lines = _Renderer(self, color).lines()
        if len(lines) > max_lines:
            kept = lines[: max_lines - 1]
            cut = len(lines) - len(kept)
            target = self.name or "NAME"
            note = (
                f"… {_plural(cut, 'more line')} cut; "
                f"run `agentsnap diff {target}` to see everything"
            )
            kept.append(_paint(note, _DIM, color))
            lines = kept
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


# every character str.splitlines() breaks on, shown escaped inside a report line
_ESCAPE_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


#: how a finding of the meaning check is labelled in the text report, by severity
_FINDING_LABEL = {"harmful": "changed", "soft": "differs", "harmless": "harmless"}


class _Renderer:
    def __init__(self, report: DiffReport, color: bool) -> None:
        self.r = report
        self.color = color
        self.failed = {check_key(c) for c in report.failed_checks}
        self.out: list[str] = []
        #: gate="score" (the one-line form): only the score and the requests decide; the other
        #: sections are shown as "scored" (they feed the score) rather than ok / FAIL
        self.scored = (report.details.get("settings") or {}).get("gate") == "score"

    # helpers
    def status(self, ok: bool, *, decides: bool = False) -> str:
        if self.scored and not decides:
            return _paint("scored", _YELLOW, self.color)
        return _paint("ok", _GREEN, self.color) if ok else _paint("FAIL", _RED + _BOLD, self.color)

    def tag(self, text: str) -> str:
        return _paint(text, _BOLD + _CYAN, self.color)

    def add(self, text: str, indent: int = 0) -> None:
        # one report line per call: a newline inside a name or value (tool names
        # come from the model) is shown escaped, so max_lines really caps lines
        self.out.append("  " * indent + text.translate(_ESCAPE_LINE_BREAKS))

    def lines(self) -> list[str]:
        r = self.r
        who = f"{r.name!r} " if r.name else ""
        if r.passed:
            head = f"[agentsnap] {who}PASSED — all checks ok"
            self.add(_paint(head, _BOLD + _GREEN, self.color))
        else:
            head = f"[agentsnap] {who}FAILED — failed checks: {', '.join(r.failed_checks)}"
            self.add(_paint(head, _BOLD + _RED, self.color))
        sd = r.details
        self.structural(sd.get("tools"), sd.get("llm_calls"))
        self.args(sd.get("tools"), sd.get("settings") or {})
        self.model_tools(sd.get("model_tools"))
        llm = sd.get("llm_calls") or {}
        if llm.get("requests_compared") or "llm_requests" in self.failed:
            self.requests()
        self.semantic(sd.get("semantic") or {})
        self.score(sd.get("settings") or {})
        return self.out

    def score(self, settings: dict[str, Any]) -> None:
        min_score = settings.get("min_score")
        if min_score is None and not settings.get("weights"):
            return
        ok = "score" not in self.failed
        line = f"{self.tag('[SCORE]')} {self.status(ok, decides=True)} — composite {_pct(self.r.score)}"
        if min_score is not None:
            line += f" {'≥' if ok else '<'} min_score {_pct(min_score)}"
        self.add(line)

    def ops(self, section: dict[str, Any], step_word: str = "step") -> None:
        self.add(f"golden: {_seq(section.get('golden', []))}", 1)
        self.add(f"new:    {_seq(section.get('new', []))}", 1)
        for op in section.get("ops", []):
            kind = op.get("op")
            if kind == "replace":
                self.add(
                    f"replace #{op['golden_index']} {op['old']} → {op['new']} "
                    f"(golden {step_word} {op['golden_step']}, new {step_word} {op['new_step']})",
                    1,
                )
            elif kind == "delete":
                self.add(
                    f"delete #{op['golden_index']} {op['old']} "
                    f"(golden {step_word} {op['golden_step']})",
                    1,
                )
            elif kind == "insert":
                self.add(
                    f"insert #{op['new_index']} {op['new']} (new {step_word} {op['new_step']})",
                    1,
                )

    def structural(self, tools: dict[str, Any] | None, llm: dict[str, Any] | None) -> None:
        ok = "structural" not in self.failed
        if not tools:
            self.add(f"{self.tag('[STRUCTURAL]')} {self.status(ok)}")
        else:
            n = len(tools.get("golden", []))
            dist, tol = tools.get("distance", 0), tools.get("tolerance", 0)
            match = _pct(tools.get("similarity", 1.0))
            if dist == 0:
                detail = f"structural: {_plural(n, 'tool call')}, same sequence"
            else:
                # the numbers decide the sign (under gate="score" the check itself does not fail)
                cmp = "≤" if dist <= tol else ">"
                detail = (
                    f"structural: tool sequence edit distance {dist} {cmp} tolerance {tol} "
                    f"({match} match)"
                )
            self.add(f"{self.tag('[STRUCTURAL]')} {self.status(ok)} — {detail}")
            if dist:
                self.ops(tools)
        if llm and llm.get("golden") != llm.get("new"):
            common = min(llm.get("golden", 0), llm.get("new", 0))
            if common:
                why = f"count changed; only the first {common} are compared"
            else:
                side = "golden" if not llm.get("golden") else "new run"
                why = f"count changed; the {side} holds none, so none are compared"
            self.add(f"llm calls: {llm.get('golden')} → {llm.get('new')} ({why})", 1)

    def changes(self, entry: dict[str, Any], indent: int, *, whole: bool = False) -> None:
        """One line per change; ``whole``: values in full (a changed prompt must be readable), else cut."""
        for change in entry.get("changes", []):
            kind = change.get("kind")
            if whole:
                old, new = repr(change.get("old")), repr(change.get("new"))
            else:
                old, new = _changed_pair(change.get("old"), change.get("new"))
            old = "<absent>" if kind == "added" else old
            new = "<absent>" if kind == "removed" else new
            line = f"{change.get('path')}: {old} → {new}"
            if kind == "type_changed":
                line += (
                    f" (type {type(change.get('old')).__name__} → "
                    f"{type(change.get('new')).__name__})"
                )
            elif kind in ("added", "removed"):
                line += f" ({kind})"
            self.add(line, indent)

    def entries(self, check: str) -> list[dict[str, Any]]:
        return [d for d in self.r.changes if d.get("check") == check]

    def args(self, tools: dict[str, Any] | None, settings: dict[str, Any]) -> None:
        entries = self.entries("arguments")
        ok = "arguments" not in self.failed
        if entries:
            detail = f"arguments: changed in {_plural(len(entries), 'tool call')}"
        else:
            pairs = len(tools.get("aligned", [])) if tools else 0
            detail = f"arguments: {_plural(pairs, 'aligned tool call')}, same arguments"
        ignored = settings.get("ignored_fields") or []
        if ignored:
            detail += f" (ignoring {', '.join(ignored)})"
        self.add(f"{self.tag('[ARGS]')} {self.status(ok)} — {detail}")
        for entry in entries:
            self.add(
                f"#{entry.get('index')} {entry.get('tool')} "
                f"(golden step {entry.get('golden_step')}, new step {entry.get('new_step')}):",
                1,
            )
            self.changes(entry, 2)

    def model_tools(self, section: dict[str, Any] | None) -> None:
        seq_ok = "model_tools" not in self.failed
        args_ok = "model_tool_args" not in self.failed
        tag = self.tag("[MODEL TOOLS]")
        if section is not None and section.get("compared") is False:
            reason = section.get("skipped_reason") or "not compared"
            self.add(f"{tag} {_paint('skipped', _YELLOW, self.color)} — {reason}")
            return
        entries = self.entries("model_tool_args")
        parts = []
        if section:
            dist, tol = section.get("distance", 0), section.get("tolerance", 0)
            if dist == 0:
                n = len(section.get("golden", []))
                parts.append(f"model_tools: {_plural(n, 'request')}, same sequence")
            else:
                cmp = "≤" if dist <= tol else ">"
                parts.append(f"model_tools: edit distance {dist} {cmp} tolerance {tol}")
        if entries:
            parts.append(f"model_tool_args: changed in {_plural(len(entries), 'request')}")
        detail = f" — {'; '.join(parts)}" if parts else ""
        self.add(f"{tag} {self.status(seq_ok and args_ok)}{detail}")
        if section and section.get("distance"):
            self.ops(section, "llm_call step")
        for entry in entries:
            self.add(
                f"#{entry.get('index')} {entry.get('tool')} "
                f"(golden llm_call step {entry.get('golden_step')}, "
                f"new llm_call step {entry.get('new_step')}):",
                1,
            )
            self.changes(entry, 2)

    def requests(self) -> None:
        entries = self.entries("llm_requests")
        ok = "llm_requests" not in self.failed
        if entries:
            detail = f"llm_requests: messages differ in {_plural(len(entries), 'llm call')}"
        else:
            detail = "llm_requests: messages identical"
        self.add(f"{self.tag('[REQUESTS]')} {self.status(ok, decides=True)} — {detail}")
        for entry in entries:
            self.add(
                f"llm_call[{entry.get('index')}] (golden step {entry.get('golden_step')}, "
                f"new step {entry.get('new_step')}):",
                1,
            )
            self.changes(entry, 2, whole=True)

    def semantic(self, details: dict[str, Any]) -> None:
        scores = self.r.semantic_scores
        ok = not any(key in self.failed for key in scores)
        detail = f" — backend: {self.r.backend}" if scores else " — nothing compared"
        info = self.r.semantic_backend or {}
        if scores and info.get("model_sha256"):
            detail += f" ({info.get('model', 'model')}, sha256 {str(info['model_sha256'])[:12]})"
        elif scores and info.get("backend") == "judge" and info.get("model"):
            detail += f" ({info['model']})"
        self.add(f"{self.tag('[SEMANTIC]')} {self.status(ok)}{detail}")
        for key, score in scores.items():
            info = details.get(key) or {}
            key_ok = key not in self.failed
            threshold = info.get("threshold")
            by_facts = info.get("failed_by") == "strict_facts"
            if threshold is None:
                line = f"{key}: {_pct(score)}"
            else:
                cmp = "≥" if key_ok or by_facts else "<"
                line = f"{key}: {_pct(score)} {cmp} threshold {_pct(threshold)}"
            if by_facts:
                line += " but facts differ (strict_facts)"
            verdict = info.get("verdict")
            suffix = f" — {verdict}" if verdict and verdict not in ("identical", "judge") else ""
            self.add(f"{line} {self.status(key_ok)}{suffix}", 1)
            if not key_ok:
                was, now = info.get("golden_excerpt"), info.get("new_excerpt")
                if was is not None:
                    self.add(_paint(f"was: {was!r}", _DIM, self.color), 2)
                if now is not None:
                    self.add(f"now: {now!r}", 2)
            hint_lines = {h.get("message") for h in info.get("hints") or []}
            # the meaning check's findings, labelled by what they did to the verdict
            severity = {f.get("message"): f.get("severity") for f in info.get("findings") or []}
            for reason in self.r.reasons.get(key) or []:
                if reason in severity:
                    label = _FINDING_LABEL.get(str(severity[reason]), "reason")
                else:
                    label = "hint" if reason in hint_lines else "reason"
                self.add(f"{label}: {reason}", 2)
