"""The ``structural`` check: the sequence of executed tool calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import _text
from ..sequence import ToolRef, llm_calls, sequence_diff, tool_calls
from ..trajectory import MULTISET_MODES, executed_turns, match_calls, mode_matters
from ._api import Check, CheckContext, HtmlPage, HtmlPart, ReportDraft, TextView

__all__ = [
    "StructuralCheck",
    "StructuralResult",
    "finding_lines",
    "html_findings",
    "show_ops",
    "summary",
    "tools_section",
]


@dataclass
class StructuralResult:
    """``golden`` / ``new``: the executed tool calls; ``section``: their
    :func:`~agentsnap.diff.trajectory.trajectory_diff` (``details["tools"]``)."""

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


def summary(section: Mapping[str, Any], check: str, seq: str, unit: str) -> str:
    """A sequence section's text after ``—``: the count or distance against the tolerance,
    and, when :func:`~agentsnap.diff.trajectory.mode_matters`, what the mode allowed and its name."""
    n, dist, tol = (
        len(section.get("golden", [])),
        section.get("distance", 0),
        section.get("tolerance", 0),
    )
    # the numbers decide the sign (under gate="score" the check itself does not fail)
    cmp = "≤" if dist <= tol else ">"
    multiset = section.get("mode") in MULTISET_MODES
    n_new = len(section.get("new", []))
    if dist == 0 and n_new != n:  # a mode allowed calls to come or go (subset, optional tools)
        detail = f"{check}: {n} → {_text.plural(n_new, unit)}, as the mode allows"
    elif dist == 0:
        detail = f"{check}: {_text.plural(n, unit)}, same {'calls' if multiset else 'sequence'}"
    elif multiset:
        detail = f"{check}: {_text.plural(dist, unit)} missing or extra {cmp} tolerance {tol}"
    else:
        detail = f"{check}: {seq}edit distance {dist} {cmp} tolerance {tol}"
        if check == "structural":
            detail += f" ({_text.pct(section.get('similarity', 1.0))} match)"
    if not mode_matters(section):
        return detail
    if section.get("in_turn_moves"):
        detail += f"; {section['in_turn_moves']} reordered within their turn"
    if section.get("optional"):
        detail += f"; optional: {', '.join(section['optional'])}"
    return f"{detail} (mode {section.get('mode')})"


def finding_lines(section: Mapping[str, Any], step: str = "step") -> list[str]:
    """The missing / extra / out-of-order calls the mode counted and the broken ``before``
    constraints, one line each; none unless :func:`~agentsnap.diff.trajectory.mode_matters`."""
    if not mode_matters(section):
        return []
    mode, out = section.get("mode"), []
    if mode != "subset":
        out += [
            f"missing: {m['name']} (golden {step} {m['golden_step']})"
            for m in section.get("missing") or []
        ]
    if mode != "superset":
        out += [
            f"extra: {e['name']} (new {step} {e['new_step']})" for e in section.get("extra") or []
        ]
    out += [
        f"out of order: {o['name']} (golden {step} {o['golden_step']}, new {step} {o['new_step']})"
        for o in section.get("out_of_order") or []
    ]
    for v in section.get("order_violations") or []:
        earlier = (
            f"its first {v['first']} came at {step} {v['first_step']}"
            if v.get("first_step") is not None
            else f"{v['first']} was never called"
        )
        out.append(
            f"before: {v['then']} ({step} {v['then_step']}) needs an earlier {v['first']}; {earlier}"
        )
    return out


def show_ops(view: TextView, section: Mapping[str, Any], step: str = "step") -> None:
    """What changed in a sequence section: the edit script (as before the modes), or, when
    the mode matters, both sequences and :func:`finding_lines`."""
    lines = finding_lines(section, step)
    if lines:
        view.add(f"golden: {_text.seq(section.get('golden', []))}", 1)
        view.add(f"new:    {_text.seq(section.get('new', []))}", 1)
        for line in lines:
            view.add(line, 1)
    elif section.get("distance", 0) and not mode_matters(section):
        view.ops(section, step)


def html_findings(section: Mapping[str, Any], step: str = "step") -> dict[str, Any]:
    """``mode`` (None unless :func:`~agentsnap.diff.trajectory.mode_matters`) and ``findings``
    (:func:`finding_lines`) for a section's HTML view."""
    return {
        "mode": section.get("mode") if mode_matters(section) else None,
        "findings": finding_lines(section, step),
    }


class StructuralCheck(Check[StructuralResult]):
    """The executed ``tool_call`` steps matched under the ``trajectory`` mode (default
    ``turns``: Levenshtein distance of the name sequences, a model turn's calls in any
    order); fails when the distance the mode counts > ``structural_tolerance`` or a
    ``before`` constraint is broken. Also reports a changed number of LLM calls (which
    fails nothing by itself)."""

    name = "structural"
    title = "[STRUCTURAL]"
    components = ("structural",)
    one_line_form = True

    def run(self, ctx: CheckContext) -> StructuralResult:
        golden, new = tool_calls(ctx.golden_steps), tool_calls(ctx.new_steps)
        g_turns, n_turns = executed_turns(ctx.golden_steps), executed_turns(ctx.new_steps)
        section = match_calls(golden, new, g_turns, n_turns, ctx.options, ctx.rules)
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
            detail = summary(tools, "structural", "tool sequence ", "tool call")
            view.add(f"{view.tag(self.title)} {view.status(ok)} — {detail}")
            show_ops(view, tools)
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
                    **html_findings(tools),
                }
                if tools
                else None,
                "llm_count": (llm.get("golden"), llm.get("new"))
                if llm and llm.get("golden") != llm.get("new")
                else None,
            }
        )
