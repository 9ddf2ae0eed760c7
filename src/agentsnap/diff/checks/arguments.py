"""The ``arguments`` check: the arguments of aligned executed tool calls."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...jsondiff import IgnoreRule
from .. import _text
from ..sequence import ToolRef
from ..trajectory import arg_changes, arg_mode
from ._api import Check, CheckContext, ReportDraft, TextView
from .structural import StructuralResult

__all__ = ["ArgumentsCheck", "ArgumentsResult", "fraction_same", "legacy_entry", "pair_diffs"]


@dataclass
class ArgumentsResult:
    """``entries``: one ``changes`` entry per aligned pair whose arguments differ;
    ``compared``: how many pairs were compared."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    compared: int = 0
    legacy: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.entries


def pair_diffs(
    check: str,
    golden: Sequence[ToolRef],
    new: Sequence[ToolRef],
    aligned: Iterable[Sequence[int]],
    rules: tuple[IgnoreRule, ...],
    strict: bool = False,
    mode_of: Callable[[str], str] = lambda name: "exact",
) -> list[dict[str, Any]]:
    """The ``changes`` entries of the aligned pairs whose ``args`` differ under the tool's
    argument mode (``mode_of(name)``: ``exact``, ``ignore``, ``subset``, ``superset``)."""
    out = []
    for gi, ni in aligned:
        g, n = golden[gi], new[ni]
        changes = arg_changes(g.args, n.args, mode_of(g.name), rules, strict)
        if changes:
            out.append(
                {
                    "check": check,
                    "index": gi,
                    "tool": g.name,
                    "golden_step": g.step,
                    "new_step": n.step,
                    "changes": changes,
                }
            )
    return out


def top_level(old: Any, new: Any) -> dict[str, Any]:
    """0.5.1's ``added`` / ``removed`` / ``changed`` top-level keys of two dicts."""
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return {"added": {}, "removed": {}, "changed": {}}
    return {
        "added": {k: v for k, v in new.items() if k not in old},
        "removed": {k: v for k, v in old.items() if k not in new},
        "changed": {k: [old[k], new[k]] for k in old if k in new and old[k] != new[k]},
    }


def legacy_entry(
    entry: Mapping[str, Any],
    golden: Sequence[ToolRef],
    new: Sequence[ToolRef],
    aligned: Iterable[Sequence[int]],
    prefix: str = "",
) -> tuple[str, dict[str, Any]]:
    """One ``DiffReport.argument_diffs`` item (0.5.1's shape) of a tool-argument ``changes`` entry."""
    index = entry["index"]
    key = f"{prefix}{entry.get('tool')}[{index}]"
    pair = dict((gi, ni) for gi, ni in aligned)
    old = golden[index].args if index < len(golden) else None
    ni = pair.get(index)
    now = new[ni].args if ni is not None and ni < len(new) else None
    return key, {"old": old, "new": now, **top_level(old, now), "changes": entry["changes"]}


def fraction_same(entries: list[dict[str, Any]], total: int) -> float:
    """Share of the ``total`` compared pairs without changes (1.0 when none were compared)."""
    if total <= 0:
        return 1.0
    changed = len({e["index"] for e in entries})
    return max(0.0, 1.0 - changed / total)


class ArgumentsCheck(Check[ArgumentsResult]):
    """Deep diff of ``args`` for each pair of tool calls the structural check matched
    (same name: kept by the edit script, or paired by a multiset mode; an optional tool's
    calls in order); ``ignored_fields`` are left out, ``strict`` compares numbers by type
    too, ``tool_args`` / ``tools`` say which differences count. Any counted change fails."""

    name = "arguments"
    title = "[ARGS]"
    components = ("arguments",)
    one_line_form = True

    def run(self, ctx: CheckContext) -> ArgumentsResult:
        tools = ctx.result("structural", StructuralResult)
        aligned = tools.section["aligned"]
        entries = pair_diffs(
            self.name,
            tools.golden,
            tools.new,
            aligned,
            ctx.rules,
            ctx.options.strict,
            lambda name: arg_mode(name, ctx.options),
        )
        legacy = dict(legacy_entry(e, tools.golden, tools.new, aligned) for e in entries)
        return ArgumentsResult(entries, len(aligned), legacy)

    def contribute(self, result: ArgumentsResult, draft: ReportDraft) -> None:
        if not result.passed:
            draft.fail(self.name)
        draft.changes += result.entries
        draft.argument_diffs.update(result.legacy)
        draft.components["arguments"] = fraction_same(result.entries, result.compared)

    def render_text(self, view: TextView) -> None:
        tools = view.report.details.get("tools")
        settings = view.report.details.get("settings") or {}
        entries = view.entries(self.name)
        ok = self.name not in view.failed
        if entries:
            detail = f"arguments: changed in {_text.plural(len(entries), 'tool call')}"
        else:
            pairs = len(tools.get("aligned", [])) if tools else 0
            detail = f"arguments: {_text.plural(pairs, 'aligned tool call')}, same arguments"
        ignored = settings.get("ignored_fields") or []
        if ignored:
            detail += f" (ignoring {', '.join(ignored)})"
        mode = settings.get("tool_args", "exact")
        overridden = sorted(
            tool for tool, spec in (settings.get("tools") or {}).items() if "args" in spec
        )
        if mode != "exact" or overridden:  # what "same" meant
            detail += f" (tool_args {mode}" + (
                f"; per tool: {', '.join(overridden)})" if overridden else ")"
            )
        view.add(f"{view.tag(self.title)} {view.status(ok)} — {detail}")
        for entry in entries:
            view.add(
                f"#{entry.get('index')} {entry.get('tool')} "
                f"(golden step {entry.get('golden_step')}, new step {entry.get('new_step')}):",
                1,
            )
            view.changes(entry, 2)
