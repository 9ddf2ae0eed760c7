"""Trajectory match modes: how the tool calls of a golden and a new run are matched.

The ``structural`` check (executed ``tool_call`` steps) and the ``model_tools``
check (the tools each ``llm_call`` requested) both call :func:`trajectory_diff`.
A *turn* is what one model response asked for: for executed calls, the
``tool_call`` steps between two ``llm_call`` steps; for requested tools, one
``llm_call`` step's ``tool_requests``. A side with no ``llm_call`` step at all
(turn boundaries unknown) counts each call as its own turn.

Modes (the ``trajectory`` knob; ``structural_tolerance`` is the budget):

* ``strict`` — one flat order: the Levenshtein distance of the two name
  sequences (:func:`~agentsnap.diff.sequence.sequence_diff`, agentsnap's rule
  before the modes existed).
* ``turns`` (default) — as ``strict``, but the calls of one turn may come in
  any order: each turn of one run is put in the order of the other run's turn
  it lines up with (turns lined up in order by their multisets of names;
  same-named calls matched by equal arguments first), both ways round, and the
  distance is the smallest of those orders' and the recorded order's (so it
  is symmetric and never more than ``strict``'s; a turn split in two, in an
  order its calls allow, still matches). A trace whose turns each hold at
  most one call gives exactly ``strict``'s result.
* ``unordered`` — one multiset: the distance is the number of golden calls
  the new run did not make (missing) plus the new run's calls the golden did
  not make (extra).
* ``subset`` — the new run's calls are a sub-multiset of the golden's: only
  extra calls count (fewer calls is fine).
* ``superset`` — the new run's calls contain the golden's: only missing calls
  count (extra calls are fine).

Calls of a tool marked ``optional`` (``tools = {name = {optional = true}}``) are
left out of all of these; their arguments are compared in order where both
runs made them. ``before = [[first, then]]``: when the new run called ``then``,
its first call of ``first`` must come at an earlier step than its first call
of ``then``; a violation fails the check whatever the distance.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..jsondiff import IgnoreRule, diff_values
from ..knobs import CompareOptions
from .sequence import ToolRef, _levenshtein, sequence_diff

__all__ = [
    "MULTISET_MODES",
    "arg_changes",
    "arg_mode",
    "executed_turns",
    "match_calls",
    "mode_matters",
    "order_violations",
    "trajectory_diff",
    "turns_may_vary",
]

SameArgs = Callable[[ToolRef, ToolRef], bool]
_LIST_ITEM = re.compile(r"\[\d+\]$")


def executed_turns(steps: Sequence[Mapping[str, Any]]) -> list[int]:
    """The turn of each ``tool_call`` step, in order: how many ``llm_call`` steps came before it;
    each call its own turn (its position) when the trace has no ``llm_call`` step."""
    turns: list[int] = []
    seen = 0
    for step in steps:
        if step.get("type") == "llm_call":
            seen += 1
        elif step.get("type") == "tool_call":
            turns.append(seen)
    if not seen:
        return list(range(len(turns)))
    return turns


def arg_mode(name: str, options: CompareOptions) -> str:
    """The argument mode of tool ``name``: its ``tools`` override, else ``tool_args``."""
    return str((options.tools.get(name) or {}).get("args") or options.tool_args)


def arg_changes(
    golden: Any, new: Any, mode: str, rules: tuple[IgnoreRule, ...], strict: bool
) -> list[dict[str, Any]]:
    """The changes of two calls' arguments that ``mode`` counts (:func:`~agentsnap.jsondiff.diff_values`
    changes): ``exact`` all; ``ignore`` none; ``subset`` all but object keys only the golden
    has; ``superset`` all but object keys only the new call has (at any depth; list items
    always count)."""
    if mode == "ignore":
        return []
    changes = diff_values(golden, new, root="args", ignored_fields=rules, strict=strict)
    allowed = {"subset": "removed", "superset": "added"}.get(mode)
    return [
        c
        for c in changes
        if not (c.get("kind") == allowed and not _LIST_ITEM.search(str(c.get("path"))))
    ]


def order_violations(
    new: Sequence[ToolRef], before: Sequence[Sequence[str]]
) -> list[dict[str, Any]]:
    """The ``before`` pairs the new run broke: ``{"first", "then", "first_step", "then_step"}``
    (``first_step`` None when ``first`` was never called), in the knob's order."""
    first: dict[str, int] = {}
    for ref in new:
        first[ref.name] = min(first.get(ref.name, ref.step), ref.step)
    out = []
    for a, b in before:
        if b in first and not (a in first and first[a] < first[b]):
            out.append({"first": a, "then": b, "first_step": first.get(a), "then_step": first[b]})
    return out


def _groups(turns: Sequence[int]) -> list[list[int]]:
    """Positions grouped by consecutive equal turn keys."""
    out: list[list[int]] = []
    for i, key in enumerate(turns):
        if out and turns[out[-1][-1]] == key:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def _match(
    golden: Sequence[ToolRef],
    g_idx: Sequence[int],
    new: Sequence[ToolRef],
    n_idx: Sequence[int],
    same: SameArgs,
) -> list[tuple[int, int]]:
    """Pairs of same-named calls, equal arguments first, then in order (greedy, golden order)."""
    free = list(n_idx)
    pairs: list[tuple[int, int]] = []
    for loose in (False, True):
        for gi in g_idx:
            if any(p[0] == gi for p in pairs):
                continue
            for nj in free:
                if new[nj].name == golden[gi].name and (loose or same(golden[gi], new[nj])):
                    pairs.append((gi, nj))
                    free.remove(nj)
                    break
    return sorted(pairs)


def _turn_order(
    golden: Sequence[ToolRef],
    g_turns: Sequence[int],
    new: Sequence[ToolRef],
    n_turns: Sequence[int],
    same: SameArgs,
) -> list[int]:
    """The new run's positions, each turn put in the order of the golden turn it lines up with."""
    g_groups, n_groups = _groups(g_turns), _groups(n_turns)
    if all(len(g) == 1 for g in n_groups):
        return list(range(len(new)))
    codes: dict[tuple[str, ...], int] = {}
    g_tok = [
        codes.setdefault(tuple(sorted(golden[i].name for i in g)), len(codes)) for g in g_groups
    ]
    n_tok = [codes.setdefault(tuple(sorted(new[j].name for j in g)), len(codes)) for g in n_groups]
    partner: dict[int, int] = {}
    for op in _levenshtein().opcodes(g_tok, n_tok):
        if op.tag in ("equal", "replace"):
            partner.update(
                zip(
                    range(op.dest_start, op.dest_end), range(op.src_start, op.src_end), strict=False
                )
            )
    order: list[int] = []
    for j, group in enumerate(n_groups):
        if j not in partner:
            order += group
            continue
        pairs = _match(golden, g_groups[partner[j]], new, group, same)
        matched = [nj for _, nj in pairs]
        order += matched + [nj for nj in group if nj not in matched]
    return order


def _same_calls(golden: Sequence[ToolRef], new: Sequence[ToolRef], same: SameArgs) -> bool:
    """Whether both runs made the same calls in the same order: as many, each of the same name
    with arguments ``same`` calls equal (then :func:`trajectory_diff` pairs each with itself;
    greedy matching takes the first free same call, which is its own copy)."""
    return len(golden) == len(new) and all(
        g.name == n.name and same(g, n) for g, n in zip(golden, new, strict=True)
    )


def _op(
    kind: str, golden: Sequence[ToolRef], gi: int | None, new: Sequence[ToolRef], nj: int | None
) -> dict[str, Any]:
    g = golden[gi] if gi is not None and kind != "insert" else None
    n = new[nj] if nj is not None and kind != "delete" else None
    return {
        "op": kind,
        "golden_index": gi,
        "new_index": nj,
        "old": g.name if g else None,
        "new": n.name if n else None,
        "golden_step": g.step if g else None,
        "new_step": n.step if n else None,
    }


def trajectory_diff(
    golden: Sequence[ToolRef],
    new: Sequence[ToolRef],
    g_turns: Sequence[int],
    n_turns: Sequence[int],
    *,
    mode: str = "turns",
    tolerance: int = 0,
    optional: frozenset[str] = frozenset(),
    before: Sequence[Sequence[str]] = (),
    same: SameArgs | None = None,
) -> dict[str, Any]:
    """Compare two tool sequences under ``mode``; one section of ``details`` (``tools``, ``model_tools``).

    ``g_turns`` / ``n_turns``: each call's turn key (equal keys, consecutive: one turn).
    ``same(golden_call, new_call)``: whether two same-named calls' arguments are equal
    (default ``==``), used to match parallel calls. Returns
    :func:`~agentsnap.diff.sequence.sequence_diff`'s keys over the whole sequences in
    recorded order (``distance`` the count the mode counts; indexes of ``ops`` and
    ``aligned`` into these lists; a multiset mode's ``delete`` op has ``new_index`` None,
    its ``insert`` op ``golden_index`` None), plus ``mode``, ``parallel`` (some turn holds
    more than one call), ``optional`` (the tools left out), ``missing`` / ``extra``
    (``{"name", "golden_step"|"new_step"}``), ``out_of_order`` (``{"name", "golden_step",
    "new_step"}``: made by both runs, not kept in place by the edit script),
    ``order_violations`` (:func:`order_violations`) and ``in_turn_moves`` (calls the
    ``turns`` mode reordered).

    Raises:
        ValueError: ``tolerance`` is negative.
    """
    if tolerance < 0:
        raise ValueError(f"structural_tolerance must be >= 0, got {tolerance}")
    if not (golden or new or g_turns or n_turns):
        # no call on either side: what the same-calls path below makes of it (no turn, so not
        # parallel; nothing to pair), without building its parts
        return _section(
            golden,
            new,
            [],
            [],
            [],
            [],
            [],
            0,
            1.0,
            tolerance=tolerance,
            mode=mode,
            parallel=False,
            optional=optional,
            before=before,
            moves=0,
        )
    same = same or (lambda g, n: bool(g.args == n.args))
    parallel = any(len(g) > 1 for g in _groups(g_turns) + _groups(n_turns))
    if _same_calls(golden, new, same):
        # the same calls in the same order: every mode pairs each call with itself (the
        # recorded order has distance 0 and no unequal pair, so it wins every ranking)
        return _section(
            golden,
            new,
            [],
            [(i, i) for i in range(len(golden))],
            [],
            [],
            [],
            0,
            1.0,
            tolerance=tolerance,
            mode=mode,
            parallel=parallel,
            optional=optional,
            before=before,
            moves=0,
        )
    g_keep = [i for i, r in enumerate(golden) if r.name not in optional]
    n_keep = [j for j, r in enumerate(new) if r.name not in optional]
    g_sub, n_sub = [golden[i] for i in g_keep], [new[j] for j in n_keep]
    moves = 0
    if mode in ("turns", "strict"):
        g_sub_turns, n_sub_turns = [g_turns[i] for i in g_keep], [n_turns[j] for j in n_keep]
        g_order, n_order = list(range(len(g_sub))), list(range(len(n_sub)))
        section = sequence_diff(g_sub, n_sub, tolerance=tolerance)
        if mode == "turns":
            # the new run's turns in the golden's order, else the golden's in the new run's
            # (both tried: the distance stays symmetric); the lowest distance wins, then the
            # fewest kept pairs with other arguments, then the recorded order
            candidates = [
                (g_order, n_order),
                (g_order, _turn_order(g_sub, g_sub_turns, n_sub, n_sub_turns, same)),
                (
                    _turn_order(n_sub, n_sub_turns, g_sub, g_sub_turns, lambda a, b: same(b, a)),
                    n_order,
                ),
            ]

            def rank(pick: tuple[list[int], list[int]]) -> tuple[int, int, dict[str, Any]]:
                go, no = pick
                gs, ns = [g_sub[k] for k in go], [n_sub[k] for k in no]
                found = (
                    sequence_diff(gs, ns, tolerance=tolerance) if pick != candidates[0] else section
                )
                unequal = sum(1 for a, b in found["aligned"] if not same(gs[a], ns[b]))
                return int(found["distance"]), unequal, found

            ranked = [
                (*rank(c), i) for i, c in enumerate(candidates) if i == 0 or c != candidates[0]
            ]
            *_, section, best = min(ranked, key=lambda r: (r[0], r[1], r[3]))
            g_order, n_order = candidates[best]
            moves = sum(1 for order in candidates[best] for pos, k in enumerate(order) if pos != k)
        g_at = [*(g_keep[k] for k in g_order), len(golden)]
        n_at = [*(n_keep[k] for k in n_order), len(new)]
        aligned = [(g_at[a], n_at[b]) for a, b in section["aligned"]]
        ops = [
            {
                **op,
                "golden_index": g_at[op["golden_index"]],
                "new_index": n_at[op["new_index"]],
            }
            for op in section["ops"]
        ]
        kept_g, kept_n = {a for a, _ in aligned}, {b for _, b in aligned}
        moved = _match(
            golden,
            [i for i in g_keep if i not in kept_g],
            new,
            [j for j in n_keep if j not in kept_n],
            same,
        )
        out_of_order = [
            {"name": golden[a].name, "golden_step": golden[a].step, "new_step": new[b].step}
            for a, b in moved
        ]
        missing_g = [i for i in g_keep if i not in kept_g and i not in {a for a, _ in moved}]
        extra_n = [j for j in n_keep if j not in kept_n and j not in {b for _, b in moved}]
        distance, similarity = int(section["distance"]), float(section["similarity"])
    else:
        aligned = _match(golden, g_keep, new, n_keep, same)
        paired_g, paired_n = {a for a, _ in aligned}, {b for _, b in aligned}
        missing_g = [i for i in g_keep if i not in paired_g]
        extra_n = [j for j in n_keep if j not in paired_n]
        counted_g = missing_g if mode in ("unordered", "superset") else []
        counted_n = extra_n if mode in ("unordered", "subset") else []
        ops = [_op("delete", golden, i, new, None) for i in counted_g]
        ops += [_op("insert", golden, None, new, j) for j in counted_n]
        distance = len(ops)
        longest = max(len(g_sub), len(n_sub))
        similarity = 1.0 - distance / longest if longest else 1.0
        out_of_order = []
    for name in sorted(optional):  # an optional tool's calls: paired in order where both made them
        aligned += zip(
            [i for i, r in enumerate(golden) if r.name == name],
            [j for j, r in enumerate(new) if r.name == name],
            strict=False,
        )
    return _section(
        golden,
        new,
        ops,
        aligned,
        missing_g,
        extra_n,
        out_of_order,
        distance,
        similarity,
        tolerance=tolerance,
        mode=mode,
        parallel=parallel,
        optional=optional,
        before=before,
        moves=moves,
    )


def _section(
    golden: Sequence[ToolRef],
    new: Sequence[ToolRef],
    ops: list[dict[str, Any]],
    aligned: list[tuple[int, int]],
    missing_g: list[int],
    extra_n: list[int],
    out_of_order: list[dict[str, Any]],
    distance: int,
    similarity: float,
    *,
    tolerance: int,
    mode: str,
    parallel: bool,
    optional: frozenset[str],
    before: Sequence[Sequence[str]],
    moves: int,
) -> dict[str, Any]:
    """:func:`trajectory_diff`'s section from what it matched (a run without tool calls, every
    tool-less agent twice a comparison, breaks no ``before`` pair and names no optional tool)."""
    violations = order_violations(new, before) if new else []
    return {
        "golden": [r.name for r in golden],
        "new": [r.name for r in new],
        "golden_steps": [r.step for r in golden],
        "new_steps": [r.step for r in new],
        "distance": distance,
        "tolerance": tolerance,
        "similarity": similarity,
        "passed": distance <= tolerance and not violations,
        "ops": ops,
        "aligned": [list(pair) for pair in sorted(aligned)],
        "mode": mode,
        "parallel": parallel,
        "optional": sorted(optional & {r.name for r in (*golden, *new)}) if optional else [],
        "missing": [{"name": golden[i].name, "golden_step": golden[i].step} for i in missing_g],
        "extra": [{"name": new[j].name, "new_step": new[j].step} for j in extra_n],
        "out_of_order": out_of_order,
        "order_violations": violations,
        "in_turn_moves": moves,
    }


def match_calls(
    golden: Sequence[ToolRef],
    new: Sequence[ToolRef],
    g_turns: Sequence[int],
    n_turns: Sequence[int],
    options: CompareOptions,
    rules: tuple[IgnoreRule, ...],
) -> dict[str, Any]:
    """:func:`trajectory_diff` with the knobs of ``options`` (``trajectory``, ``structural_tolerance``,
    ``tools``' optional ones, ``before``); parallel calls match when :func:`arg_changes` finds
    nothing under the tool's argument mode."""

    def same(g: ToolRef, n: ToolRef) -> bool:
        if g.args == n.args:
            return True
        mode = arg_mode(g.name, options)
        if mode == "exact" and not rules:
            return False
        return not arg_changes(g.args, n.args, mode, rules, options.strict)

    return trajectory_diff(
        golden,
        new,
        g_turns,
        n_turns,
        mode=options.trajectory,
        tolerance=options.structural_tolerance,
        optional=frozenset(t for t, spec in options.tools.items() if spec.get("optional")),
        before=options.before,
        same=same,
    )


#: the modes that match the calls as a multiset (no order)
MULTISET_MODES = ("unordered", "subset", "superset")


def turns_may_vary(options: CompareOptions) -> bool:
    """Whether ``options`` let the two runs make a different number of turns and still match (a
    multiset mode, or an optional tool): their LLM calls then no longer pair up by position."""
    return options.trajectory in MULTISET_MODES or any(
        spec.get("optional") for spec in options.tools.values()
    )


def mode_matters(section: Mapping[str, Any], default: str = "turns") -> bool:
    """Whether a report names the mode and lists the missing / extra / out-of-order calls
    (instead of the edit script): a mode other than the default, calls reordered within
    their turn, an optional tool, or a broken ``before`` constraint. Otherwise the result
    is the ``strict`` one and the report reads as it did before the modes."""
    return bool(
        section.get("mode", default) != default
        or section.get("in_turn_moves")
        or section.get("optional")
        or section.get("order_violations")
    )
