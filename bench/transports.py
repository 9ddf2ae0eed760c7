"""Row 9: the transports captured besides httpx (issue 12): one chat call through the standard
library (``urllib.request`` over ``http.client``), ``requests`` (over ``urllib3``) and
``aiohttp``, bare vs agentsnap record vs agentsnap replay, against a loopback fake OpenAI.

    python bench/run.py --rows 9          # as a row of the bench
    python bench/transports.py [--quick]  # the same, printed alone

The fake runs in a process of its own (``bench/_loopback.py``). For each transport and shape
(JSON, streamed) the same call runs in interleaved rounds (``_common.interleave_calls``) as:

* ``bare``   — no recording active (agentsnap's hooks are installed for the life of the
  process, as they are in a test run, and pass the call through);
* ``record`` — inside a capture recording, switched on around each call (untimed);
* ``replay`` — inside a strict replay recording, served from recordings of the same
  questions made before the timing (no socket).

Every call asks its own question (its number and a round tag), so agentsnap's memo of
scrubbed strings holds only what a real run would have seen. ``requests`` and ``aiohttp``
keep one session (keep-alive); ``urllib.request.urlopen`` opens a connection per call, as it
always does. A round's result is the median of its calls (a call over a socket now and
then waits milliseconds for the scheduler to wake the server), wall time and the client
thread's CPU time (``time.thread_time``: the server's work is in the other process).
Ratios are taken per round.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from _common import (
    ROOT,
    Config,
    Ctx,
    RecordingConfig,
    Section,
    fmt_pct,
    fmt_ratio,
    fmt_time,
    fmt_times,
    forget_scrub_memo,
    have,
    interleave_calls,
    median,
    ratios,
    versions,
)

SHAPES = (("json", False), ("stream", True))
TRANSPORTS = ("urllib", "requests", "aiohttp")
#: issue 18: recording adds at most this to the bare call, every transport and shape
RECORD_MAX = 1.05


def _callers(url: str) -> tuple[dict[str, Callable[[bytes], bytes]], Callable[[], None]]:
    """transport -> call(body) returning the response body; and a closer."""
    import asyncio
    import urllib.request

    import requests

    from tests import transport_kit as kit

    headers = kit.OPENAI_HEADERS

    def urllib_call(body: bytes) -> bytes:
        request = urllib.request.Request(url, data=body, headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            data: bytes = response.read()
            return data

    session = requests.Session()

    def requests_call(body: bytes) -> bytes:
        return session.post(url, data=body, headers=headers, timeout=10).content

    callers: dict[str, Callable[[bytes], bytes]] = {
        "urllib": urllib_call,
        "requests": requests_call,
    }
    loop = asyncio.new_event_loop()
    asession: Any = None
    if not have("aiohttp"):
        import aiohttp

        async def make() -> Any:
            return aiohttp.ClientSession()

        asession = loop.run_until_complete(make())

        async def post(body: bytes) -> bytes:
            async with asession.post(url, data=body, headers=headers) as response:
                data: bytes = await response.read()
                return data

        def aiohttp_call(body: bytes) -> bytes:
            return loop.run_until_complete(post(body))

        callers["aiohttp"] = aiohttp_call

    def close() -> None:
        session.close()
        if asession is not None:
            loop.run_until_complete(asession.close())
        loop.close()

    return callers, close


def _case(call: Callable[[bytes], bytes], stream: bool, n: int, rounds: int) -> dict[str, Config]:
    from agentsnap.capture.recording import Recording
    from tests import transport_kit as kit

    total = rounds + 1  # with the warm-up round

    def body(kind: str, r: int, i: int) -> bytes:
        return kit.openai_body(
            f"Question {i}: what is the weather in city number {i}? ({kind} round {r})",
            stream=stream,
        )

    cassettes = []
    for r in range(total):
        with Recording("capture") as rec:
            for i in range(n):
                call(body("replay", r, i))
        assert len(rec.trace.exchanges) == n, (len(rec.trace.exchanges), n)
        cassettes.append(rec.trace.steps())

    class Tagged(RecordingConfig):
        def __init__(self, kind: str, mode: str | None = None) -> None:
            super().__init__(self._call, mode)
            self.kind = kind
            self.round = 0

        def _call(self, i: int) -> None:
            call(body(self.kind, self.round, i))

        def replay_steps(self, round_no: int) -> list[dict[str, Any]]:
            return cassettes[round_no]

        def begin_round(self, round_no: int) -> None:
            self.round = round_no
            super().begin_round(round_no)

        def end_round(self) -> None:
            super().end_round()
            if self.mode == "capture":
                assert len(self.recording.trace.exchanges) == n

    forget_scrub_memo()
    return {
        "bare": Tagged("bare"),
        "record": Tagged("record", "capture"),
        "replay": Tagged("replay", "replay"),
    }


def run(ctx: Ctx) -> Section:
    sec = Section("9", "Other transports: urllib, requests, aiohttp against a loopback fake OpenAI")
    missing = have("requests", "urllib3")
    if missing:
        sec.skipped = f"{', '.join(missing)} not installed (`pip install requests`)."
        return sec
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # tests.transport_kit, tests.fake_provider
    from _loopback import Loopback

    import agentsnap.capture  # noqa: F401  (installs the hooks, as the pytest plugin does)

    rounds = ctx.rounds(5, 3)
    n = ctx.rounds(30, 15)
    results: dict[tuple[str, str], tuple[dict[str, list[float]], dict[str, list[float]]]] = {}
    with Loopback("echo") as server:
        callers, close = _callers(server.urls["chat"] + "/chat/completions")
        try:
            for transport in TRANSPORTS:
                if transport not in callers:
                    continue
                for shape, stream in SHAPES:
                    ctx.log(f"  row 9: {transport} {shape} ({rounds} rounds x {n} calls)")
                    call = callers[transport]
                    cpu: dict[str, list[float]] = {}
                    wall = interleave_calls(
                        _case(call, stream, n, rounds), rounds, n, stat="median", cpu=cpu
                    )
                    results[(transport, shape)] = (wall, cpu)
        finally:
            close()
    vers = ", ".join(f"{p} {v}" for p, v in versions(("requests", "urllib3", "aiohttp")).items())
    sec.add(
        f"{rounds} rounds of {n} different calls per transport and shape; within a round each call is made once per "
        "configuration, back to back in a rotating order, each timed alone. A round's value is the median of its "
        "calls; the table gives median [min–max] over rounds, ratios taken per round. *bare*: no recording active "
        "(agentsnap's hooks installed, as in any test run: row 2 measures that they cost nothing when off). "
        "*client CPU*: the calling thread's CPU time (the fake server runs in its own process). "
        f"Python {sys.version.split()[0]}, {vers}; not installed, so not measured: "
        f"{', '.join(t for t in TRANSPORTS if t not in {k[0] for k in results}) or 'none'}.",
        "",
    )
    rows = []
    rec_ok: bool | None = None
    for (transport, shape), (wall, cpu) in results.items():
        rec = ratios(wall["record"], wall["bare"])
        rep = ratios(wall["replay"], wall["bare"])
        added_cpu = [a - b for a, b in zip(cpu["record"], cpu["bare"], strict=True)]
        ok = median(rec) <= RECORD_MAX
        rec_ok = ok if rec_ok is None else (rec_ok and ok)
        rows.append(
            [
                f"{transport} {shape}",
                fmt_times(wall["bare"]),
                fmt_times(wall["record"]),
                fmt_pct(rec),
                f"{fmt_time(median(cpu['bare']))} → {fmt_time(median(cpu['record']))} "
                f"(+{fmt_time(median(added_cpu))})",
                fmt_times(wall["replay"]),
                fmt_ratio(rep, 2),
            ]
        )
    sec.table(
        [
            "call",
            "bare (loopback)",
            "agentsnap record",
            "added by record",
            "client CPU bare → record (added)",
            "agentsnap replay (no socket)",
            "replay / bare",
        ],
        rows,
    )
    sec.add(
        "A replayed call here is the transport library's own response handling on the recorded bytes plus "
        "agentsnap's request record, key and lookup; there is no SDK above it.",
        "",
    )
    sec.target(
        "agentsnap record adds ≤ 5 % to the bare call (every transport and shape, median, wall)",
        rec_ok,
        key="9.record",
    )
    return sec


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="row 9 alone (see the module doc)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(run(Ctx(quick=args.quick)).markdown())
