"""Row 10: one pydantic-ai agent test with a tool call, replayed by agentsnap vs the same test
live against the loopback fake vs vcrpy.

The test is tests/frameworks/test_pydantic_ai.py's ``test_tool``: an ``Agent`` on an
``OpenAIChatModel`` with a ``get_weather`` tool asked "What's the weather in Paris?" — two
chat calls (the tool call, then the answer) and the tool run between them. The fake is
tests/frameworks/fake_models in a process of its own (``bench/_loopback.py``). Configurations,
interleaved in rounds, each a batch of tests timed whole:

* *live*: the agent as users write it (pydantic-ai's default client, httpx2 under openai 3.x)
  against the fake; agentsnap's hooks installed, nothing recording;
* *agentsnap replay*: the same agent pointed at a dead URL inside
  ``AgentAsserter(mode="replay")`` — the golden's load, the replayed calls, the comparison and
  the ``.last_run`` write; agentsnap's memo of scrubbed strings emptied before each test (as in a
  fresh process);
* *live, httpx client* and *vcrpy replay*: vcrpy patches ``httpx``, not ``httpx2``, so it sees
  this agent only when given ``OpenAIProvider(http_client=httpx.AsyncClient())`` (deprecated by
  pydantic-ai); both run that agent, vcrpy inside ``use_cassette(record_mode="none")``
  (its default ``match_on``).
"""

from __future__ import annotations

import gc
import shutil
import sys
import time
import warnings
from typing import Any

from _common import (
    ROOT,
    Ctx,
    Section,
    clock,
    fmt_ratio,
    fmt_time,
    fmt_times,
    forget_scrub_memo,
    have,
    interleave,
    median,
    ratios,
    versions,
)

PROMPT = "What's the weather in Paris?"
ANSWER = "Paris: Light rain, 18°C"
DEAD = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
NAME = "pydantic_ai_tool"
#: issue 18 sets no number for this row; replay must beat running the test live
REPLAY_MAX = 1.0


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def _agent(base_url: str, *, httpx_client: bool = False) -> Any:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    kwargs: dict[str, Any] = {}
    if httpx_client:
        import httpx

        kwargs["http_client"] = httpx.AsyncClient()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the httpx.AsyncClient deprecation
        provider = OpenAIProvider(base_url=base_url, api_key="sk-test-1234", **kwargs)
    model = OpenAIChatModel("gpt-4o-mini", provider=provider)
    return Agent(model, tools=[get_weather], instructions="Report the weather.")


def run(ctx: Ctx) -> Section:
    sec = Section("10", "A framework: one pydantic-ai agent test with a tool call")
    missing = have("pydantic_ai", "pydantic_ai.models.openai", "openai")
    if missing:
        sec.skipped = (
            f"{', '.join(missing)} not installed (`pip install 'pydantic-ai-slim[openai]'`)."
        )
        return sec
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # tests.frameworks.fake_models for the loopback server
    from _loopback import Loopback

    from agentsnap import AgentAsserter, AgentRecorder
    from agentsnap.config import load as load_settings

    use_vcr = not have("vcr", "yaml", "httpx")
    root = ctx.scratch / "row10"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.agentsnap]\n")
    settings = load_settings(root)
    cassette = root / "pydantic_ai_tool.yaml"
    batch = ctx.rounds(10, 5)
    rounds = ctx.rounds(7, 4)
    with Loopback("models") as server:
        live = _agent(server.urls["chat"])
        offline = _agent(DEAD)
        live_httpx = _agent(server.urls["chat"], httpx_client=True) if use_vcr else None

        with AgentRecorder(NAME, snapshot_dir=root, settings=settings) as rec:
            rec.output = live.run_sync(PROMPT).output
        assert rec.output == ANSWER, rec.output
        if use_vcr:
            import vcr

            with vcr.VCR(record_mode="all").use_cassette(str(cassette)) as recorded:
                assert live_httpx.run_sync(PROMPT).output == ANSWER
            assert len(recorded.data) == 2, len(recorded.data)

        def test_live(agent: Any) -> None:
            assert agent.run_sync(PROMPT).output == ANSWER

        harness: list[float] = []  # per agentsnap test: entering + exiting the block

        def test_agentsnap() -> None:
            forget_scrub_memo()
            t0 = clock()
            block = AgentAsserter(NAME, snapshot_dir=root, mode="replay", settings=settings)
            block.__enter__()
            t1 = clock()
            block.output = offline.run_sync(PROMPT).output
            t2 = clock()
            block.__exit__(None, None, None)
            harness.append(t1 - t0 + clock() - t2)
            assert block.outcome is not None and block.outcome.action == "passed", block.outcome

        def test_vcr() -> None:
            import vcr

            with vcr.VCR(record_mode="none").use_cassette(str(cassette)) as played:
                assert live_httpx.run_sync(PROMPT).output == ANSWER
            assert played.play_count == 2, played.play_count

        cpu: dict[str, list[float]] = {}  # per configuration: the process's CPU time per test

        def batched(name: str, test: Any, *args: Any) -> Any:
            def one_batch() -> float:
                gc.collect()
                c0 = time.process_time()
                t0 = clock()
                for _ in range(batch):
                    test(*args)
                wall = (clock() - t0) / batch
                cpu.setdefault(name, []).append((time.process_time() - c0) / batch)
                return wall

            return one_batch

        configs = {
            "live": batched("live", test_live, live),
            "agentsnap": batched("agentsnap", test_agentsnap),
        }
        if use_vcr:
            configs["live_httpx"] = batched("live_httpx", test_live, live_httpx)
            configs["vcrpy"] = batched("vcrpy", test_vcr)
        ctx.log(f"  row 10: {rounds} rounds x {batch} tests x {len(configs)} configurations")
        res = interleave(configs, rounds)
        harness = harness[batch:]  # the warm-up round's tests
        cpu = {name: values[1:] for name, values in cpu.items()}
        rounds_harness = [sum(harness[r * batch : (r + 1) * batch]) / batch for r in range(rounds)]

    vers = ", ".join(
        f"{p} {v}"
        for p, v in versions(("pydantic-ai-slim", "openai", "httpx2", "httpx", "vcrpy")).items()
    )
    sec.add(
        f"{rounds} rounds, each a batch of {batch} tests per configuration, the configurations rotating; per test: "
        f"median [min–max] of the batch means, ratios per round. One test: two chat calls and the tool between them. "
        f"{vers}.",
        "",
    )
    rep = ratios(res["agentsnap"], res["live"])
    rows = [
        [
            "live against the loopback fake (pydantic-ai's default client)",
            fmt_times(res["live"]),
            "1.00×",
        ],
        [
            "agentsnap replay (golden load, 2 replayed calls, comparison, `.last_run`)",
            fmt_times(res["agentsnap"]),
            fmt_ratio(rep, 2),
        ],
        [
            "… of which entering + exiting `AgentAsserter` (load and index, comparison, `.last_run`)",
            fmt_times(rounds_harness),
            fmt_ratio(ratios(rounds_harness, res["live"]), 2),
        ],
    ]
    if use_vcr:
        rows.append(
            [
                "live, `http_client=httpx.AsyncClient()` (what vcrpy can see)",
                fmt_times(res["live_httpx"]),
                fmt_ratio(ratios(res["live_httpx"], res["live"]), 2),
            ]
        )
        rows.append(
            [
                'vcrpy replay of that agent (`record_mode="none"`)',
                fmt_times(res["vcrpy"]),
                fmt_ratio(ratios(res["vcrpy"], res["live"]), 2),
            ]
        )
    order = ["live", "agentsnap", None] + (["live_httpx", "vcrpy"] if use_vcr else [])
    for row, name in zip(rows, order, strict=True):
        row.append(fmt_times(cpu[name]) if name else "—")
    sec.table(["test", "per test", "/ live", "client CPU per test"], rows)
    sec.add(
        "*client CPU*: this process's CPU time per test (the fake server runs in its own process). A test's CPU is "
        "mostly pydantic-ai's own graph and the SDK; replay saves only the two loopback round trips, and pays "
        "agentsnap's enter and exit.",
        "",
    )
    if use_vcr:
        sec.add(
            f"agentsnap vs vcrpy: {fmt_ratio(ratios(res['vcrpy'], res['agentsnap']), 2)} (vcrpy time / agentsnap time). "
            "vcrpy does not see pydantic-ai's default client under openai 3.x (httpx2): a vcrpy user must hand the "
            "provider an `httpx.AsyncClient`.",
            "",
        )
    else:
        sec.add("vcrpy not measured: `pip install vcrpy` (with PyYAML and httpx).", "")
    sec.target(
        "a replayed agent test takes less time than the same test live against the loopback fake",
        median(rep) <= REPLAY_MAX,
        key="10.replay",
    )
    sec.headline["replay_vs_live"] = fmt_ratio(rep, 2).split(" [")[0]
    sec.headline["agentsnap_test"] = fmt_time(median(res["agentsnap"]))
    return sec
