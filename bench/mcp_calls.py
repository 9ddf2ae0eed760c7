"""Row 12: MCP tool calls (issue 26): the added cost per ``call_tool`` in record and replay, and
a session's fixed cost, against the real weather server over stdio and streamable HTTP.

    python bench/run.py --rows 12             # as a row of the bench
    python bench/mcp_calls.py [--quick]       # the same, printed alone
    python bench/mcp_calls.py --profile       # cProfile of the record and replay call loops

(Not ``bench/mcp.py``: ``bench/`` is first on ``sys.path`` when the bench runs, so a module named
``mcp`` would hide the ``mcp`` SDK it measures.)

The server is ``tests/frameworks/mcp_servers/weather_server.py`` (the SDK's FastMCP / MCPServer)
in a process of its own: ``python weather_server.py`` over stdio, ``http_server()`` on
127.0.0.1 for streamable HTTP. Its ``WEATHER_OVERRIDE`` gives it a forecast for every city
asked below, so every call is a different, successful ``get_forecast``. For each transport,
each round opens three ``ClientSession``s with the raw ``mcp`` client, one per configuration:

* ``bare``   — opened and called with no recording active (agentsnap's hooks are installed,
  as in any test run, and pass the transport through);
* ``record`` — opened and called inside a capture recording (the session's streams tapped);
* ``replay`` — opened and called inside a strict replay recording serving a recording of the
  same session made before the timing: the transport is never entered (no process, no
  socket), so its baseline is the live call (``bare``).

A session's fixed cost is its open + ``initialize`` + ``list_tools``, once per configuration
and round, in a rotating order. Then each of the ``n`` calls is made once per configuration,
back to back in a rotating order, each timed alone (``_common.interleave_calls``' scheme, as a
coroutine: an MCP session's task group must be entered and left in one task). A round's
value is the median of its calls, wall time and the client thread's CPU time
(``time.thread_time``; the server's work is in its process). Ratios are taken per round.
The recordings are the rows' ``RecordingConfig`` (switched on around each call, outside the
timer; neither the socket guard nor the observer of a started recording is on).
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import sys
import time
import warnings
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from _common import (
    ROOT,
    Ctx,
    RecordedRoundsConfig,
    Section,
    clock,
    fmt_pct,
    fmt_ratio,
    fmt_time,
    fmt_times,
    forget_scrub_memo,
    have,
    median,
    ratios,
    versions,
)

TRANSPORTS = ("stdio", "streamable HTTP")
CONFIGS = ("bare", "record", "replay")
#: transports whose recorded session's own HTTP requests the HTTP hooks took for requests sent
#: outside ``mcp.ClientSession`` (the never-silent observer's warning, at the pre-recording's end)
MISTAKEN: set[str] = set()


def _city(kind: str, r: int, i: int) -> str:
    return f"City {i} ({kind} round {r})"


def _forecasts(rounds: int, n: int) -> dict[str, str]:
    """A forecast for every city any configuration asks (the server's WEATHER_OVERRIDE)."""
    return {
        _city(kind, r, i): f"Clear, {i % 30}°C, wind {r} m/s"
        for kind in CONFIGS
        for r in range(rounds)
        for i in range(n)
    }


def _opener(transport: str, server: Any, env: dict[str, str]) -> Callable[[], Any]:
    """A function returning the transport's async context manager (yields the streams)."""
    if transport == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=sys.executable, args=[server], env=env)
        return lambda: stdio_client(params)
    from mcp.client.streamable_http import streamable_http_client

    # its own HTTP client, made inside the transport (a replayed session makes none)
    return lambda: streamable_http_client(server)


@asynccontextmanager
async def _session(open_transport: Callable[[], Any]) -> Any:
    from mcp import ClientSession

    async with open_transport() as streams, ClientSession(streams[0], streams[1]) as session:
        yield session


async def _start(stack: AsyncExitStack, open_transport: Callable[[], Any]) -> Any:
    """Open a session and do what every client does first: initialize, list the tools."""
    session = await stack.enter_async_context(_session(open_transport))
    await session.initialize()
    await session.list_tools()
    return session


def _check(result: Any, city: str) -> None:
    if result.is_error if hasattr(result, "is_error") else result.isError:
        raise AssertionError(f"get_forecast({city!r}) failed: {result}")


class McpConfig(RecordedRoundsConfig):
    """One configuration (``replay_steps``: the pre-recorded session of a round)."""

    def __init__(self, kind: str, mode: str | None, recorded: list[list[dict[str, Any]]]) -> None:
        super().__init__(kind, mode, recorded)
        self.session: Any = None

    def ask(self, i: int) -> Awaitable[Any]:
        """Call ``i`` of this round (``Config.call`` is synchronous; an MCP call is awaited)."""
        return self.session.call_tool("get_forecast", {"city": _city(self.kind, self.round, i)})


async def _prerecord(
    open_transport: Callable[[], Any], rounds: int, n: int, transport: str = ""
) -> list[list[dict[str, Any]]]:
    """Per round, the steps of a captured session asking what ``replay`` will ask."""
    from agentsnap.capture.recording import Recording

    out = []
    for r in range(rounds):
        with warnings.catch_warnings(record=True) as seen, Recording("capture") as rec:
            warnings.simplefilter("always")
            async with AsyncExitStack() as stack:
                session = await _start(stack, open_transport)
                for i in range(n):
                    _check(
                        await session.call_tool("get_forecast", {"city": _city("replay", r, i)}),
                        "replay",
                    )
        for warning in seen:
            if "outside mcp.ClientSession" in str(warning.message):
                MISTAKEN.add(transport)
            else:
                warnings.warn_explicit(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
        steps = rec.trace.steps()
        calls = [s for s in steps if s.get("type") == "tool_call"]
        assert len(calls) == n, (len(calls), n)
        out.append(steps)
    return out


async def _measure(
    open_transport: Callable[[], Any], rounds: int, n: int, transport: str, warmup: int = 1
) -> dict[str, dict[str, list[float]]]:
    """{"open" | "wall" | "cpu": {config: per-round values}} (see the module doc)."""
    total = warmup + rounds
    recorded = await _prerecord(open_transport, total, n, transport)
    forget_scrub_memo()
    configs = {
        "bare": McpConfig("bare", None, recorded),
        "record": McpConfig("record", "capture", recorded),
        "replay": McpConfig("replay", "replay", recorded),
    }
    names = list(configs)
    out: dict[str, dict[str, list[float]]] = {
        k: {name: [] for name in names} for k in ("open", "wall", "cpu")
    }
    thread_time = time.thread_time
    gc_was = gc.isenabled()
    for r in range(total):
        walls: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        opens: dict[str, float] = {}
        async with AsyncExitStack() as stack:
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                cfg = configs[name]
                cfg.begin_round(r)
                cfg.enter()
                try:
                    t0 = clock()
                    cfg.session = await _start(stack, open_transport)
                    opens[name] = clock() - t0
                finally:
                    cfg.exit()
            gc.collect()
            gc.disable()
            try:
                for i in range(n):
                    shift = (i + r) % len(names)
                    for name in names[shift:] + names[:shift]:
                        cfg = configs[name]
                        cfg.enter()
                        try:
                            c0 = thread_time()
                            t0 = clock()
                            result = await cfg.ask(i)
                            walls[name].append(clock() - t0)
                            cpus[name].append(thread_time() - c0)
                        finally:
                            cfg.exit()
                        _check(result, name)
            finally:
                if gc_was:
                    gc.enable()
        for name, cfg in configs.items():
            cfg.end_round()  # stop; a replay round must end with no miss
            if cfg.mode is not None:
                calls = [c for ch in cfg.recording.trace.mcp_channels for c in ch.calls]
                assert len(calls) == n + 2, (name, len(calls))  # initialize, tools/list, n calls
        if r >= warmup:
            for name in names:
                out["open"][name].append(opens[name])
                out["wall"][name].append(statistics.median(walls[name]))
                out["cpu"][name].append(statistics.median(cpus[name]))
    return out


@asynccontextmanager
async def _server(transport: str, env: dict[str, str]) -> Any:
    from tests.frameworks.mcp_servers import WEATHER_SERVER, http_server

    if transport == "stdio":
        yield WEATHER_SERVER
        return
    with http_server(env=env) as url:
        yield url


async def _row(transport: str, rounds: int, n: int) -> dict[str, dict[str, list[float]]]:
    env = {"WEATHER_OVERRIDE": json.dumps(_forecasts(rounds + 1, n))}
    async with _server(transport, env) as server:
        return await _measure(_opener(transport, server, env), rounds, n, transport)


def _prepare() -> list[str]:
    """Missing packages (empty: ready); installs agentsnap's hooks before ``mcp`` is imported."""
    missing = have("mcp", "httpx2")
    if missing:
        return missing
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # tests.frameworks.mcp_servers
    from agentsnap.capture import hooks

    hooks.install()  # as the pytest plugin does: the MCP hooks are post-import hooks on mcp
    hooks.ensure_patched()
    import mcp  # noqa: F401

    return []


def run(ctx: Ctx) -> Section:
    sec = Section("12", "MCP tool calls: record and replay against the real weather server")
    missing = _prepare()
    if missing:
        sec.skipped = f"{', '.join(missing)} not installed (`pip install mcp`, mcp 2.x for httpx2)."
        return sec
    rounds = ctx.rounds(7, 3)
    n = ctx.rounds(40, 20)
    results = {}
    for transport in TRANSPORTS:
        ctx.log(f"  row 12: {transport} ({rounds} rounds x {n} calls, 3 sessions a round)")
        results[transport] = asyncio.run(_row(transport, rounds, n))
    vers = ", ".join(f"{p} {v}" for p, v in versions(("mcp", "httpx2", "anyio")).items())
    sec.add(
        f"{rounds} rounds per transport; each round opens one `ClientSession` per configuration (open + "
        f'`initialize` + `list_tools`: the session\'s fixed cost) and makes {n} different `call_tool("get_forecast", '
        '{"city": …})` calls on it, each call once per configuration, back to back in a rotating order, each timed '
        "alone. A round's value is the median of its calls; the tables give median [min–max] over rounds, ratios and "
        "differences taken per round. *bare*: no recording active (agentsnap's hooks installed, as in any test run). "
        "*replay* is served from a recording of the same session made before the timing and never starts the "
        "transport, so its baseline is the live call (*bare*). *client CPU*: the calling thread's CPU time (the "
        f"server is another process). The server: `tests/frameworks/mcp_servers/weather_server.py`. "
        f"Python {sys.version.split()[0]}, {vers}.",
        "",
    )
    call_rows = []
    open_rows = []
    for transport, res in results.items():
        wall, cpu, opens = res["wall"], res["cpu"], res["open"]
        added = [a - b for a, b in zip(wall["record"], wall["bare"], strict=True)]
        added_cpu = [a - b for a, b in zip(cpu["record"], cpu["bare"], strict=True)]
        call_rows.append(
            [
                transport,
                fmt_times(wall["bare"]),
                fmt_times(wall["record"]),
                f"{fmt_time(median(added))} [{fmt_time(min(added))}–{fmt_time(max(added))}]",
                fmt_pct(ratios(wall["record"], wall["bare"])),
                f"{fmt_time(median(cpu['bare']))} → {fmt_time(median(cpu['record']))} "
                f"(+{fmt_time(median(added_cpu))})",
                fmt_times(wall["replay"]),
                fmt_times(cpu["replay"]),
                fmt_ratio(ratios(wall["replay"], wall["bare"]), 3),
            ]
        )
        open_rows.append(
            [
                transport,
                fmt_times(opens["bare"]),
                fmt_times(opens["record"]),
                fmt_pct(ratios(opens["record"], opens["bare"])),
                fmt_times(opens["replay"]),
                fmt_ratio(ratios(opens["replay"], opens["bare"]), 4),
            ]
        )
        sec.headline[f"{transport} record added"] = fmt_time(median(added))
        sec.headline[f"{transport} replay"] = fmt_time(median(wall["replay"]))
    sec.add("Per `call_tool`:", "")
    sec.table(
        [
            "transport",
            "bare (live)",
            "agentsnap record",
            "added by record",
            "record / bare",
            "client CPU bare → record (added)",
            "agentsnap replay (no server)",
            "replay client CPU",
            "replay / live",
        ],
        call_rows,
    )
    sec.add(
        "Per session (open + `initialize` + `list_tools`; replay starts no process and opens no socket):",
        "",
    )
    sec.table(
        [
            "transport",
            "bare (live)",
            "agentsnap record",
            "record / bare",
            "agentsnap replay",
            "replay / live",
        ],
        open_rows,
    )
    if MISTAKEN:
        sec.add(
            f"Over {', '.join(sorted(MISTAKEN))}, the recorded session's own POSTs also went through agentsnap's "
            "httpx2 hook as unrecognised requests (provider recognition, the never-silent observer's note), and "
            "recording warned that they were 'an MCP request sent outside mcp.ClientSession', which they were "
            "not: the record cost above includes that work. (The httpx/httpx2 hooks do not consult the `mcp` "
            "owner mark, and mcp 2.x sends each POST in the context of the task that wrote the message, "
            "not the transport's.)",
            "",
        )
    return sec


def profile(quick: bool = True, n: int = 300) -> None:
    """cProfile of ``n`` calls in record and in replay, per transport: the top frames by
    cumulative time, and agentsnap's own frames by their own time."""
    import cProfile
    import io
    import pstats

    missing = _prepare()
    if missing:
        raise SystemExit(f"not installed: {missing}")
    from agentsnap.capture import active
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording

    async def loop(transport: str) -> None:
        env = {"WEATHER_OVERRIDE": json.dumps(_forecasts(1, n))}
        async with _server(transport, env) as server:
            open_transport = _opener(transport, server, env)
            (steps,) = await _prerecord(open_transport, 1, n)
            for mode in ("capture", "replay"):
                rec = Recording(
                    mode, cassette=Cassette(steps, strict=True) if mode == "replay" else None
                )
                active.activate(rec)
                try:
                    async with AsyncExitStack() as stack:
                        session = await _start(stack, open_transport)
                        prof = cProfile.Profile()
                        prof.enable()
                        for i in range(n):
                            await session.call_tool("get_forecast", {"city": _city("replay", 0, i)})
                        prof.disable()
                finally:
                    active.deactivate(rec)
                    rec.stop()
                assert rec.misses == 0
                for sort, filt, what in (
                    ("cumulative", "", "top frames by cumulative time"),
                    ("tottime", "agentsnap", "agentsnap frames by own time"),
                    ("cumulative", "agentsnap", "agentsnap frames by cumulative time"),
                ):
                    buf = io.StringIO()
                    stats = pstats.Stats(prof, stream=buf).sort_stats(sort)
                    if filt:
                        stats.print_stats(filt, 18)
                    else:
                        stats.print_stats(18)
                    print(f"===== {transport} {mode}, {n} calls: {what}")
                    print(buf.getvalue())

    for transport in TRANSPORTS:
        asyncio.run(loop(transport))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="row 12 alone (see the module doc)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the record and replay loops"
    )
    args = parser.parse_args()
    if args.profile:
        profile()
    else:
        print(run(Ctx(quick=args.quick)).markdown())
