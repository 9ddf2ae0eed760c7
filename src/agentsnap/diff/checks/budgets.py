"""The ``budgets`` check: what a test's run used, against its golden and the limits set.

An agent that loops, or a prompt that grows, is a regression even when the answer is right.
Per test, golden vs now (:func:`agentsnap.diff.run_totals.measure`):

* offline, in every mode: LLM calls, tool calls, and the tokens of every request the agent
  built (counted as :mod:`agentsnap.diff.request_tokens` says; the report names the counter);
* in live runs only (not replay, which serves the recorded responses): the provider-reported
  usage (input, output, cached and reasoning tokens), the cost (:mod:`agentsnap.spec.prices`)
  and the latency — each where both sides have it; a side without it (an older golden, a
  model with no price) is "not compared", never a failure.

``budgets`` (a knob: setting ``[tool.agentsnap.budgets]``, marker, ``AgentAsserter``) sets the
limits: growth as a fraction of the golden's value (``max_calls_growth``,
``max_tool_calls_growth``, ``max_tokens_growth`` — request tokens, and usage input/output
tokens in live runs — ``max_cost_growth``, ``max_latency_growth``; 0.2 = +20 %; from 0 any
growth exceeds a limit) and ceilings (``max_llm_calls``, ``max_tool_calls``,
``max_request_tokens``, ``max_cost`` in USD). ``max_run_cost`` is checked over the whole run
by the pytest plugin. With no limit set nothing fails; the section shows when a limit is set
or the number of LLM calls or tool calls changed (a changed request alone is the
``llm_requests`` check's; the run summary still names the tests whose requests grew).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..run_totals import BodyTokens, RunTotals, measure
from ._api import Check, CheckContext, CheckResult

__all__ = ["BudgetsCheck", "BudgetsResult", "growth", "usd"]

#: slack on a limit, so float noise never fails an exactly-at-limit value
_SLACK = 1e-9


def growth(golden: float, new: float) -> float:
    """``(new - golden) / golden``; from 0: ``inf`` when it grew, 0.0 when it did not."""
    if golden == 0:
        return float("inf") if new > 0 else 0.0
    return (new - golden) / golden


def usd(value: float) -> str:
    """``$0.000243`` / ``$1.2346``: dollars with the digits a small cost needs."""
    return f"${value:.6f}" if abs(value) < 0.01 else f"${value:,.4f}"


def _pct(value: float) -> str:
    return "from 0" if value == float("inf") else f"{value * 100:+.0f} %"


def _amount(value: float | None, money: bool) -> str:
    if value is None:
        return "?"
    return usd(value) if money else f"{value:,.0f}"


@dataclass
class BudgetsResult(CheckResult):
    """``quantities``: one dict per quantity compared (``quantity``, ``golden``, ``new``,
    ``growth``, ``failed``, ``limit`` …); ``not_compared``: why the others were not;
    ``counter``: how request tokens were counted."""

    #: False: no limit set and nothing moved (the report holds no trace of the check)
    compared: bool = True
    quantities: list[dict[str, Any]] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)
    counter: str = ""


def _grew_most(golden: Sequence[Any], new: Sequence[Any], steps: Sequence[int]) -> str:
    """The LLM call whose value grew most (aligned by position; an extra call counts whole)."""
    best: tuple[float, int] | None = None
    for i, value in enumerate(new):
        if value is None:
            continue
        before = golden[i] if i < len(golden) and golden[i] is not None else 0
        delta = value - before
        if delta > 0 and (best is None or delta > best[0]):
            best = (delta, i)
    if best is None:
        return ""
    return f"llm_call step {steps[best[1]]} grew most"


def _tool_grew_most(golden: RunTotals, new: RunTotals) -> str:
    before, after = Counter(golden.tool_names), Counter(new.tool_names)
    grown = sorted(((after[n] - before[n], n) for n in after), reverse=True)
    if not grown or grown[0][0] <= 0:
        return ""
    name = grown[0][1]
    return f"{name} ×{before[name]} → ×{after[name]}"


def _call_counts(steps: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """``(llm calls, tool calls)`` of a trace, counted as :func:`measure` counts them."""
    kinds = [step.get("type") for step in steps]
    return kinds.count("llm_call"), kinds.count("tool_call")


class BudgetsCheck(Check[BudgetsResult]):
    """LLM calls, tool calls, request tokens — and in live runs usage tokens, cost and latency —
    of the new run against the golden's, within the ``budgets`` limits (see the module doc)."""

    name = "budgets"
    title = "[BUDGETS]"
    always_decides = True

    def run(self, ctx: CheckContext) -> BudgetsResult:
        limits = dict(ctx.options.budgets)
        if not limits and _call_counts(ctx.golden_steps) == _call_counts(ctx.new_steps):
            # no limit and the same numbers of calls: nothing to judge or show (the end of
            # this method says the same after measuring both traces; the counts are measure's)
            return BudgetsResult(True, compared=False)
        # a token limit asks for the model's own tokenizer; otherwise the estimate (say which)
        exact = any(key in limits for key in ("max_tokens_growth", "max_request_tokens"))
        counted: BodyTokens = {}  # a replayed request is the golden's own body: counted once
        golden = measure(ctx.golden_steps, exact=exact, counted=counted)
        new = measure(ctx.new_steps, exact=exact, counted=counted)
        live = not ctx.options.compare_requests
        result = BudgetsResult(True, counter=", ".join(new.counters or golden.counters))
        rows: list[tuple[str, float | None, float | None, str | None, str | None, str]] = [
            ("llm calls", golden.llm_calls, new.llm_calls, "max_calls_growth", "max_llm_calls", ""),
            (
                "tool calls",
                golden.tool_calls,
                new.tool_calls,
                "max_tool_calls_growth",
                "max_tool_calls",
                "",
            ),
            (
                "request tokens",
                golden.request_tokens,
                new.request_tokens,
                "max_tokens_growth",
                "max_request_tokens",
                "",
            ),
        ]
        if new.llm_calls > golden.llm_calls:
            rows[0] = (*rows[0][:5], f"the extra calls start at step {new.steps[golden.llm_calls]}")
        rows[1] = (*rows[1][:5], _tool_grew_most(golden, new))
        rows[2] = (
            *rows[2][:5],
            _grew_most(
                golden.per_call["request_tokens"], new.per_call["request_tokens"], new.steps
            ),
        )
        if live:
            for key in ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens"):
                limit = "max_tokens_growth" if key in ("input_tokens", "output_tokens") else None
                moved = _grew_most(golden.per_call[key], new.per_call[key], new.steps)
                rows.append((f"usage {key}", golden.usage[key], new.usage[key], limit, None, moved))
            moved = _grew_most(golden.per_call["cost"], new.per_call["cost"], new.steps)
            rows.append(("cost", golden.cost, new.cost, "max_cost_growth", "max_cost", moved))
            moved = _grew_most(golden.per_call["latency_ms"], new.per_call["latency_ms"], new.steps)
            rows.append(
                ("latency ms", golden.latency_ms, new.latency_ms, "max_latency_growth", None, moved)
            )
        else:
            result.not_compared.append(
                "usage tokens, cost and latency: not compared in replay (the responses are the recorded ones)"
            )
        for quantity, before, after, growth_key, ceiling_key, moved in rows:
            if before is None or after is None:
                if quantity.startswith("usage") and before is None and after is None:
                    continue  # this provider never reports it: nothing to say
                missing = "golden" if before is None else "new run"
                why = f"{quantity}: not compared (the {missing} has no value)"
                if quantity == "cost" and (new.unpriced or golden.unpriced):
                    unknown = ", ".join(dict.fromkeys(golden.unpriced + new.unpriced))
                    why = f"cost: not computed (no price for {unknown}; add it to [tool.agentsnap.prices])"
                result.not_compared.append(why)
                continue
            entry = self._judge(quantity, before, after, limits, growth_key, ceiling_key)
            if entry["failed"] and moved:
                entry["grew_most"] = moved
            result.quantities.append(entry)
        changed = any(
            q["golden"] != q["new"]
            for q in result.quantities
            if q["quantity"] in ("llm calls", "tool calls")
        )
        if not limits and not changed:
            return BudgetsResult(True, compared=False)
        failed = [q for q in result.quantities if q["failed"]]
        result.passed = not failed
        result.summary = (
            f"{len(result.quantities)} quantities within budget"
            if not failed
            else "; ".join(f"{q['quantity']} {q['why']}" for q in failed)
        )
        result.lines = [self._line(q) for q in result.quantities] + result.not_compared
        if result.counter:
            result.lines.append(f"request tokens counted with: {result.counter}")
        return result

    @staticmethod
    def _judge(
        quantity: str,
        before: float,
        after: float,
        limits: dict[str, float],
        growth_key: str | None,
        ceiling_key: str | None,
    ) -> dict[str, Any]:
        grew = growth(before, after)
        entry: dict[str, Any] = {
            "quantity": quantity,
            "golden": before,
            "new": after,
            "growth": None if grew == float("inf") else grew,
            "failed": False,
            "why": "",
        }
        if growth_key is not None and growth_key in limits:
            entry["limit"] = {growth_key: limits[growth_key]}
            if grew > limits[growth_key] + _SLACK:
                entry["failed"] = True
                entry["why"] = (
                    f"grew {_pct(grew)}, over the limit of {_pct(limits[growth_key])} ({growth_key})"
                )
        if ceiling_key is not None and ceiling_key in limits:
            entry.setdefault("limit", {})[ceiling_key] = limits[ceiling_key]
            if after > limits[ceiling_key] + _SLACK and not entry["failed"]:
                entry["failed"] = True
                shown = _amount(limits[ceiling_key], quantity == "cost")
                entry["why"] = (
                    f"is {_amount(after, quantity == 'cost')}, over the ceiling of {shown} ({ceiling_key})"
                )
        return entry

    @staticmethod
    def _line(q: dict[str, Any]) -> str:
        money = q["quantity"] == "cost"
        grew = "from 0" if q["growth"] is None else _pct(q["growth"])
        text = f"{q['quantity']}: golden {_amount(q['golden'], money)} → now {_amount(q['new'], money)} ({grew})"
        limits = q.get("limit") or {}
        if limits:
            shown = ", ".join(
                f"{k} {_pct(v) if k.endswith('growth') else _amount(v, money)}"
                for k, v in limits.items()
            )
            text += f"; limit {shown}"
        if q["failed"]:
            text += f" — FAIL: {q['why']}"
            if q.get("grew_most"):
                text += f"; {q['grew_most']}"
        return text
