"""The ``model_tools`` and ``model_tool_args`` checks: the tools the model asked for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import _text
from ..sequence import ToolRef, requested_tools, sequence_diff
from ..trajectory import arg_mode, match_calls
from ._api import Check, CheckContext, HtmlPage, HtmlPart, ReportDraft, TextView
from .arguments import fraction_same, legacy_entry, pair_diffs
from .structural import html_findings, sequence_line, show_ops, summary

__all__ = ["ModelToolsCheck", "ModelToolsResult", "model_tools_section"]


@dataclass
class ModelToolsResult:
    """``section``: ``details["model_tools"]`` (a sequence diff plus ``compared`` and
    ``skipped_reason``); ``entries``: the ``model_tool_args`` changes of aligned requests."""

    golden: list[ToolRef]
    new: list[ToolRef]
    section: dict[str, Any]
    entries: list[dict[str, Any]] = field(default_factory=list)
    legacy: dict[str, Any] = field(default_factory=dict)

    @property
    def compared(self) -> bool:
        return bool(self.section.get("compared"))


def model_tools_section(
    report: Mapping[str, Any] | None,
    golden_trace: Sequence[Mapping[str, Any]],
    new_trace: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """``details["model_tools"]`` of a report dict, else computed as the check does (no report)."""
    section = ((report or {}).get("details") or {}).get("model_tools")
    if section is not None:
        return dict(section)
    g_req = requested_tools(list(golden_trace)) or []
    n_req = requested_tools(list(new_trace)) or []
    return {**sequence_diff(g_req, n_req), "compared": True, "skipped_reason": None}


class ModelToolsCheck(Check[ModelToolsResult]):
    """``model_tools``: the tool names in every ``llm_call`` step's ``tool_requests``,
    matched under the ``trajectory`` mode (same ``structural_tolerance``; a turn is one
    llm_call's requests) and ``before``; skipped (never failed) when an llm_call on
    either side has no ``tool_requests``. ``model_tool_args``: a deep diff of the
    matched requests' ``args`` under ``tool_args`` / ``tools``."""

    name = "model_tools"
    title = "[MODEL TOOLS]"
    components = ("model_tools", "model_tool_args")
    fails_as = ("model_tools", "model_tool_args")

    def run(self, ctx: CheckContext) -> ModelToolsResult:
        g_req = requested_tools(ctx.golden_steps, ctx.llm_calls(True))
        n_req = requested_tools(ctx.new_steps, ctx.llm_calls(False))
        g_req_, n_req_ = g_req or [], n_req or []
        # a turn: one llm_call step's requests (their ToolRef.step)
        section = match_calls(
            g_req_,
            n_req_,
            [r.step for r in g_req_],
            [r.step for r in n_req_],
            ctx.options,
            ctx.rules,
        )
        if g_req is None or n_req is None:
            side = "golden" if g_req is None else "new"
            if g_req is None and n_req is None:
                side = "golden and new"
            section["passed"] = True
            section["compared"] = False
            section["skipped_reason"] = (
                f"{side} snapshot has llm_call steps without tool_requests "
                "(recorded before model tool requests were captured; re-record to compare them)"
            )
            return ModelToolsResult(g_req or [], n_req or [], section)
        section["compared"] = True
        section["skipped_reason"] = None
        aligned = section["aligned"]
        entries = pair_diffs(
            "model_tool_args",
            g_req,
            n_req,
            aligned,
            ctx.rules,
            ctx.options.strict,
            lambda name: arg_mode(name, ctx.options),
        )
        legacy = dict(legacy_entry(e, g_req, n_req, aligned, "model_tool:") for e in entries)
        return ModelToolsResult(g_req, n_req, section, entries, legacy)

    def contribute(self, result: ModelToolsResult, draft: ReportDraft) -> None:
        draft.details["model_tools"] = result.section
        if not result.compared:
            return
        if not result.section["passed"]:
            draft.fail("model_tools")
        if result.entries:
            draft.fail("model_tool_args")
        draft.changes += result.entries
        draft.argument_diffs.update(result.legacy)
        draft.model_tools_diff = sequence_line("Model-requested tool sequence", result.section)
        draft.components["model_tools"] = float(result.section.get("similarity", 1.0))
        draft.components["model_tool_args"] = fraction_same(
            result.entries, len(result.section.get("aligned", []))
        )

    def render_text(self, view: TextView) -> None:
        section = view.report.details.get("model_tools")
        seq_ok = "model_tools" not in view.failed
        args_ok = "model_tool_args" not in view.failed
        tag = view.tag(self.title)
        if section is not None and section.get("compared") is False:
            reason = section.get("skipped_reason") or "not compared"
            view.add(f"{tag} {view.paint('skipped', _text.YELLOW)} — {reason}")
            return
        entries = view.entries("model_tool_args")
        parts = []
        if section:
            parts.append(summary(section, "model_tools", "", "request"))
        if entries:
            parts.append(f"model_tool_args: changed in {_text.plural(len(entries), 'request')}")
        detail = f" — {'; '.join(parts)}" if parts else ""
        view.add(f"{tag} {view.status(seq_ok and args_ok)}{detail}")
        if section:
            show_ops(view, section, "llm_call step")
        for entry in entries:
            view.add(
                f"#{entry.get('index')} {entry.get('tool')} "
                f"(golden llm_call step {entry.get('golden_step')}, "
                f"new llm_call step {entry.get('new_step')}):",
                1,
            )
            view.changes(entry, 2)

    def html(self, page: HtmlPage) -> HtmlPart:
        if not (page.golden and page.new):
            return HtmlPart(view={"model_tools": None})
        from ._values import change_view

        report = page.report
        section = model_tools_section(
            report, page.golden.get("trace") or [], page.new.get("trace") or []
        )
        golden_names, new_names = list(section.get("golden") or []), list(section.get("new") or [])
        g_marks = ["same"] * len(golden_names)
        n_marks = ["same"] * len(new_names)
        for op in section.get("ops") or []:
            kind = op.get("op")
            if (
                kind in ("replace", "delete")
                and isinstance(op.get("golden_index"), int)
                and op["golden_index"] < len(g_marks)
            ):
                g_marks[op["golden_index"]] = kind
            if (
                kind in ("replace", "insert")
                and isinstance(op.get("new_index"), int)
                and op["new_index"] < len(n_marks)
            ):
                n_marks[op["new_index"]] = kind
        own = [
            d for d in (report or {}).get("changes") or [] if d.get("check") == "model_tool_args"
        ]
        aligned = {gi: ni for gi, ni in section.get("aligned") or []}
        for gi in {d.get("index") for d in own}:
            if isinstance(gi, int) and gi < len(g_marks):
                g_marks[gi] = "changed"
                ni = aligned.get(gi)
                if isinstance(ni, int) and ni < len(n_marks):
                    n_marks[ni] = "changed"
        entries = [
            {
                "index": d.get("index"),
                "tool": d.get("tool"),
                "golden_step": d.get("golden_step"),
                "new_step": d.get("new_step"),
                "changes": [change_view(c) for c in d.get("changes") or []],
            }
            for d in own
        ]
        return HtmlPart(
            view={
                "model_tools": {
                    "compared": section.get("compared", True) is not False,
                    "skipped_reason": section.get("skipped_reason"),
                    "golden": [
                        {"name": n, "op": m} for n, m in zip(golden_names, g_marks, strict=False)
                    ],
                    "new": [{"name": n, "op": m} for n, m in zip(new_names, n_marks, strict=False)],
                    "distance": section.get("distance", 0),
                    "tolerance": section.get("tolerance", 0),
                    "entries": entries,
                    **html_findings(section, "llm_call step"),
                }
            }
        )
