"""The ``structural`` check: the sequence of executed tool calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import _text
from ..sequence import ToolRef, llm_calls, sequence_diff, tool_calls
from ._api import Check, CheckContext, HtmlPage, HtmlPart, ReportDraft, TextView

__all__ = ["StructuralCheck", "StructuralResult", "tools_section"]


@dataclass
class StructuralResult:
    """``golden`` / ``new``: the executed tool calls; ``section``: their
    :func:`~agentsnap.diff.sequence.sequence_diff` (``details["tools"]``)."""

    golden: list[ToolRef]
    new: list[ToolRef]
    section: dict[str, Any]

    @property
    def passed(self) -> bool:
        return bool(self.section["passed"])


def sequence_line(what: str, seq: Mapping[str, Any]) -> str | None:
    """0.5.1's one-line ``structural_diff``: None for equal sequences."""
    golden, new = list(seq.get("golden") or []), list(seq.get("new") or [])
    if golden == new:
        return None
    return f"{what} changed (edit distance {seq.get('distance')}): {golden!r} -> {new!r}"


def tools_section(
    report: Mapping[str, Any] | None,
    golden_trace: Sequence[Mapping[str, Any]],
    new_trace: Sequence[Mapping[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``tools`` and ``llm_calls`` sections of a report dict, else computed as the check does
    (a page entry without a report: a new or pending snapshot)."""
    sd = (report or {}).get("details") or {}
    tools, llm = sd.get("tools"), sd.get("llm_calls")
    if not tools or "golden_steps" not in tools:
        tools = sequence_diff(tool_calls(list(golden_trace)), tool_calls(list(new_trace)))
    if not llm or "golden_steps" not in llm:
        llm = {
            "golden_steps": [no for no, _ in llm_calls(list(golden_trace))],
            "new_steps": [no for no, _ in llm_calls(list(new_trace))],
        }
    return dict(tools), dict(llm)


class StructuralCheck(Check[StructuralResult]):
    """Levenshtein distance between the golden and new sequences of executed
    ``tool_call`` names; fails when distance > ``structural_tolerance``. Also
    reports a changed number of LLM calls (which fails nothing by itself)."""

    name = "structural"
    title = "[STRUCTURAL]"
    components = ("structural",)
    one_line_form = True

    def run(self, ctx: CheckContext) -> StructuralResult:
        golden, new = tool_calls(ctx.golden_steps), tool_calls(ctx.new_steps)
        section = sequence_diff(golden, new, tolerance=ctx.options.structural_tolerance)
        return StructuralResult(golden, new, section)

    def contribute(self, result: StructuralResult, draft: ReportDraft) -> None:
        draft.details["tools"] = result.section
        if not result.passed:
            draft.fail(self.name)
        draft.structural_diff = sequence_line("Tool sequence", result.section)
        draft.components["structural"] = float(result.section.get("similarity", 1.0))

    def render_text(self, view: TextView) -> None:
        tools = view.report.details.get("tools")
        llm = view.report.details.get("llm_calls")
        ok = self.name not in view.failed
        if not tools:
            view.add(f"{view.tag(self.title)} {view.status(ok)}")
        else:
            n = len(tools.get("golden", []))
            dist, tol = tools.get("distance", 0), tools.get("tolerance", 0)
            match = _text.pct(tools.get("similarity", 1.0))
            if dist == 0:
                detail = f"structural: {_text.plural(n, 'tool call')}, same sequence"
            else:
                # the numbers decide the sign (under gate="score" the check itself does not fail)
                cmp = "≤" if dist <= tol else ">"
                detail = (
                    f"structural: tool sequence edit distance {dist} {cmp} tolerance {tol} "
                    f"({match} match)"
                )
            view.add(f"{view.tag(self.title)} {view.status(ok)} — {detail}")
            if dist:
                view.ops(tools)
        if llm and llm.get("golden") != llm.get("new"):
            common = min(llm.get("golden", 0), llm.get("new", 0))
            if common:
                why = f"count changed; only the first {common} are compared"
            else:
                side = "golden" if not llm.get("golden") else "new run"
                why = f"count changed; the {side} holds none, so none are compared"
            view.add(f"llm calls: {llm.get('golden')} → {llm.get('new')} ({why})", 1)

    def html(self, page: HtmlPage) -> HtmlPart:
        tools = page.details.get("tools") or {}
        llm = page.details.get("llm_calls") or {}
        return HtmlPart(
            view={
                "structural": {
                    "distance": tools.get("distance"),
                    "tolerance": tools.get("tolerance"),
                    "passed": "structural" not in page.checks,
                }
                if tools
                else None,
                "llm_count": (llm.get("golden"), llm.get("new"))
                if llm and llm.get("golden") != llm.get("new")
                else None,
            }
        )
