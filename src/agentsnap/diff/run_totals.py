"""What one run of a test used, read from its trace: :class:`RunTotals` (:func:`measure`).

Per run: LLM calls, tool calls, the tokens of every request the agent built
(:mod:`.request_tokens`), and what the provider reported and the run took — usage tokens
(input, output, cached, reasoning), cost (:mod:`agentsnap.spec.prices`) and latency. A
provider-reported quantity is known only when every LLM call of the run carries it (a
stream without usage, a golden older than ``latency_ms``): otherwise it is None, which the
``budgets`` check reports as "not compared", never as a failure.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ..spec import prices
from .request_tokens import ESTIMATE, counter_name, request_tokens

__all__ = [
    "USAGE_KEYS",
    "BodyTokens",
    "RunTotals",
    "calls_and_tokens",
    "forget_measured",
    "measure",
]

#: the normalised usage counts a run's total is kept for
USAGE_KEYS = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")


@dataclass
class RunTotals:
    """One run's quantities. ``steps``: the trace position (``step``) of each LLM call, and per
    call its ``request_tokens`` / ``cost`` / ``latency_ms`` (None: unknown), so a report can
    name the call that grew most. ``tool_names``: the executed tool calls' names. ``unpriced``:
    models with no price (their calls have no cost). ``counters``: how the requests were counted."""

    llm_calls: int = 0
    tool_calls: int = 0
    request_tokens: int | None = None
    usage: dict[str, int | None] = field(default_factory=dict)
    cost: float | None = None
    latency_ms: int | None = None
    steps: list[int] = field(default_factory=list)
    per_call: dict[str, list[float | None]] = field(default_factory=dict)
    tool_names: list[str] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)
    counters: list[str] = field(default_factory=list)


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, a plain dict answered without the ABC's check."""
    return type(value) is dict or isinstance(value, Mapping)


def _sum(values: Sequence[float | None]) -> float | None:
    """The sum, or None when any value (or every value: no call) is unknown."""
    # (``None in``: an int or float never equals None; no None, so nothing to leave out of the sum)
    if not values or None in values:
        return None
    return sum(values)  # type: ignore[arg-type]


#: the usage counts a budget row reads (``measure``'s ``priced=False``)
_UNPRICED_KEYS = ("input_tokens", "output_tokens")


#: the last traces measured, by identity (the budgets check and the run summary measure the same
#: trace lists of a settled test: the second asks for free); the list is kept so its id stays its
_RECENT: OrderedDict[int, tuple[Sequence[Mapping[str, Any]], tuple[int, bool], RunTotals]] = (
    OrderedDict()
)


#: request tokens already counted, by the body's identity: ``{id(body): (body, counted for, tokens)}``
#: (the object kept, so its id stays its own while the entry lives)
BodyTokens = dict[int, tuple[object, object, int]]


def measure(
    steps: Sequence[Mapping[str, Any]],
    *,
    exact: bool = False,
    counted: BodyTokens | None = None,
    proven: bool = False,
    priced: bool = True,
) -> RunTotals:
    """The :class:`RunTotals` of a trace (a snapshot's ``trace`` list). Never raises on odd
    steps: what cannot be read is unknown. ``exact``: request tokens by the model's tokenizer
    where one is installed (:func:`~agentsnap.diff.request_tokens.request_tokens`; a token
    budget asks for it), else the estimate (UTF-8 bytes / 4: a tokenizer costs about a
    millisecond a request). A trace measured a moment ago (the same list, as long, as exactly)
    is not measured again; treat the result as read-only. ``counted``: one dict shared by the
    measures of one comparison (a golden and its new run): a request body counted by one is not
    counted again by the other (a replayed request is the golden's own dict). ``proven``: the
    steps are a golden's whose digest held, its floats finite (``request_tokens``' ``proven``).
    ``priced=False``: no cost, latency, cached or reasoning tokens (None, absent from ``usage``;
    ``unpriced`` still found): a replayed run's budget row, which reads none of them (such a
    partial answer is not kept for a later call)."""
    hit = _RECENT.get(id(steps))
    if hit is not None and hit[0] is steps and hit[1] == (len(steps), exact):
        _RECENT.move_to_end(id(steps))
        return hit[2]
    totals = _measure(
        steps, exact, {} if counted is None else counted, proven=proven, priced=priced
    )
    if not priced:
        return totals
    _RECENT[id(steps)] = (steps, (len(steps), exact), totals)
    while len(_RECENT) > 8:
        _RECENT.popitem(last=False)
    return totals


def forget_measured() -> None:
    """Drop the traces :func:`measure` keeps by identity: a test's golden and run are not held
    past its outcome (the run summary calls it once the test's row is taken)."""
    _RECENT.clear()


def calls_and_tokens(
    steps: Sequence[Mapping[str, Any]], *, exact: bool = False, counted: BodyTokens | None = None
) -> RunTotals:
    """What :func:`measure` says of ``steps``' ``llm_calls``, ``tool_calls``, ``request_tokens``,
    ``steps``, ``tool_names`` and ``counters``, without the provider's numbers (usage, cost and
    latency are None, ``per_call`` holds only ``request_tokens``'s): a golden's side of the run
    summary. Counted by the same code as :func:`measure`."""
    hit = _RECENT.get(id(steps))
    if hit is not None and hit[0] is steps and hit[1] == (len(steps), exact):
        return hit[2]
    return _measure(steps, exact, {} if counted is None else counted, provider=False)


def _measure(
    steps: Sequence[Mapping[str, Any]],
    exact: bool,
    counted: BodyTokens,
    provider: bool = True,
    proven: bool = False,
    priced: bool = True,
) -> RunTotals:
    out = RunTotals()
    per_call: dict[str, list[float | None]] = {
        "request_tokens": [],
        "cost": [],
        "latency_ms": [],
        **{key: [] for key in USAGE_KEYS},
    }
    # each list held by a name (the loop appends to them, a few a call)
    tokens_of, costs, latencies = (
        per_call["request_tokens"],
        per_call["cost"],
        per_call["latency_ms"],
    )
    usage_lists = [(key, per_call[key]) for key in (USAGE_KEYS if priced else _UNPRICED_KEYS)]
    for index, step in enumerate(steps):
        kind = step.get("type")
        if kind == "tool_call":
            out.tool_calls += 1
            out.tool_names.append(str(step.get("name")))
            continue
        if kind != "llm_call":
            continue
        out.llm_calls += 1
        step_no = step.get("step")
        out.steps.append(step_no if isinstance(step_no, int) else index)
        exchange = step.get("exchange")
        # (``type() is dict`` first: a dict is a Mapping, and the ABC's isinstance costs a Python call)
        # (``type() is dict`` inline, then ``_mapping``: a call a look saved, four a call)
        request = exchange.get("request") if type(exchange) is dict or _mapping(exchange) else None
        body = request.get("body") if type(request) is dict or _mapping(request) else None
        model = step.get("model")
        if type(body) is dict or _mapping(body):
            model = body.get("model") or model
            counter = model if exact else None
            hit = counted.get(id(body))
            if hit is not None and hit[0] is body and hit[1] == counter:
                count = hit[2]
            else:
                count = request_tokens(body, counter, proven=proven)
                counted[id(body)] = (body, counter, count)
            tokens_of.append(count)
            name = counter_name(model) if exact else ESTIMATE  # (counter_name(None))
            if name not in out.counters:
                out.counters.append(name)
        else:
            tokens_of.append(None)  # a WebSocket turn: no stored request
        if not provider:
            continue
        given = step.get("usage")
        usage: Mapping[str, Any] = given if type(given) is dict or _mapping(given) else {}
        for key, into in usage_lists:  # (_whole, inline: four a call)
            used = usage.get(key)
            into.append(used if isinstance(used, int) and not isinstance(used, bool) else None)
        priced_as = step.get("model") or model
        # (no price: no cost, so "no cost, a usage and no price" is "a usage and no price")
        if not priced:
            if usage and prices.price_for(priced_as) is None:
                unpriced = str(priced_as)
                if unpriced not in out.unpriced:
                    out.unpriced.append(unpriced)
            continue
        cost = prices.cost(usage, priced_as)
        if cost is None and usage and prices.price_for(priced_as) is None:
            unpriced = str(priced_as)
            if unpriced not in out.unpriced:
                out.unpriced.append(unpriced)
        costs.append(cost)
        latencies.append(_whole(step.get("latency_ms")))
    tokens = _sum(tokens_of)
    out.request_tokens = None if tokens is None else int(tokens)
    for key, into in usage_lists:
        total = _sum(into)
        out.usage[key] = None if total is None else int(total)
    out.cost = _sum(costs)
    latency = _sum(latencies)
    out.latency_ms = None if latency is None else int(latency)
    out.per_call = per_call
    return out
