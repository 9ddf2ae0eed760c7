"""Row 13: WebSocket messages (issue 27): the added cost per message of recording and replaying
a ``websockets`` connection, the handshake's, and the ``websocket`` step's build at the test's end.

    python bench/run.py --rows 13                    # as a row of the bench
    python bench/websocket_frames.py [--quick]       # the same, printed alone
    python bench/websocket_frames.py --profile       # cProfile of the record and replay message loops

(Not ``bench/websocket.py`` nor ``bench/websockets.py``: ``bench/`` is first on ``sys.path`` when
the bench runs, so such a module would hide the library it measures.)

The server is a plain ``websockets`` sync server in a process of its own (:func:`serve`,
``python bench/websocket_frames.py --serve``) speaking a slice of the OpenAI Realtime API on
``/v1/realtime``: ``session.created`` on connect, then each client ``conversation.item.create``
(a user message, ~350 bytes) answered by one ``conversation.item.created`` (the item with its
server id, ~600 bytes). For each client (the library's sync client, then its asyncio client),
each round opens three connections, one per configuration:

* ``bare``   — no recording active (agentsnap's hooks installed, as in any test run, and
  passing the library through): the library's own per-message cost, the floor;
* ``record`` — opened inside a capture recording: every frame is recorded by the hooks on the
  library's Sans-I/O protocol;
* ``replay`` — opened inside a strict replay recording whose cassette holds a recording of
  the same connection made before the timing: the client gets one end of a socket pair, a
  thread of agentsnap plays the golden on the other and checks each client message. Its URL
  names a port nothing listens on, so a connection that reached the network would fail.

A connection's opening (the handshake and the first server message, ``session.created``) is
timed first, :data:`OPENS` times per configuration and round, in a rotating order (the garbage
collector held off, as for the messages), each in a recording of its own (replay: from a recording of a connection opened and closed); a round's
value is their median. Then each round opens one connection per configuration (untimed), and
each of the ``n`` messages
is sent once per configuration and its answer read, back to back in a rotating order, each
exchange timed alone (``_common.interleave_calls``' scheme): a round's value is the median of
its exchanges, wall time and the process's CPU time (``time.process_time``: the library's
reader thread and replay's server thread included; the live server is another process).
Ratios and differences are taken per round. The recordings are the rows' ``RecordingConfig``
(switched on around each message, outside the timer; the socket guard and the observer of a
started recording are not on). At the round's end, the recording's ``Trace.steps()`` (the
``websocket`` step: every message parsed once; in record each scrubbed and, when long enough,
searched for base64 side files; in replay the server's messages are the golden's stored frames,
reused; the Realtime turns read) is timed once and divided by the connection's messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
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

CLIENTS = ("sync", "asyncio")
#: connections opened (and closed) per configuration and round to time the handshake
OPENS = 5
CONFIGS = ("bare", "record", "replay")
PATH = "/v1/realtime"
QUERY = "?model=gpt-realtime"

_WORDS = (
    "please look up the weather forecast for the coming weekend and tell me whether I need an "
    "umbrella, a coat, or sunglasses, and remind me of the meeting at nine in the morning"
)


def client_event(kind: str, r: int, i: int) -> dict[str, Any]:
    """Client message ``i`` of round ``r`` (~350 bytes as JSON), as the openai SDK sends a
    ``conversation.item.create`` (a plain dict, ``json.dumps``)."""
    return {
        "type": "conversation.item.create",
        "event_id": f"evt_{kind}_{r}_{i:05d}",
        "previous_item_id": f"item_{i - 1:05d}" if i else None,
        "item": {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": f"Message {i} of round {r} ({kind}): {_WORDS}."}
            ],
        },
    }


def _server_reply(event: dict[str, Any], n: int) -> dict[str, Any]:
    """The server's ``conversation.item.created`` for a client event (~600 bytes)."""
    item = dict(event.get("item") or {})
    item.update(id=f"item_{n:05d}", object="realtime.item", status="completed")
    return {
        "type": "conversation.item.created",
        "event_id": f"event_{n:05d}_{'0' * 12}",
        "previous_item_id": event.get("previous_item_id"),
        "item": item,
        "usage": {"input_tokens": 40 + n % 7, "output_tokens": 0, "total_tokens": 40 + n % 7},
        "rate_limits": [{"name": "requests", "limit": 5000, "remaining": 4999 - n % 100}],
    }


def _session_created() -> dict[str, Any]:
    return {
        "type": "session.created",
        "event_id": "event_00000_000000000000",
        "session": {
            "id": "sess_bench",
            "object": "realtime.session",
            "type": "realtime",
            "model": "gpt-realtime",
            "output_modalities": ["text"],
            "instructions": "You are a helpful assistant.",
            "tools": [],
            "tool_choice": "auto",
            "max_output_tokens": "inf",
        },
    }


def serve() -> None:
    """The live server (a process of its own): prints its port, serves until stdin closes."""
    import threading

    from websockets.sync.server import serve as ws_serve

    def handler(ws: Any) -> None:
        ws.send(json.dumps(_session_created()))
        for n, raw in enumerate(ws, 1):
            ws.send(json.dumps(_server_reply(json.loads(raw), n)))

    with ws_serve(handler, "127.0.0.1", 0, compression=None) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(server.socket.getsockname()[1], flush=True)
        sys.stdin.read()
        server.shutdown()


@contextlib.contextmanager
def _live_server() -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield int(proc.stdout.readline())
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _dead_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class WsConfig(RecordedRoundsConfig):
    """One configuration (``replay_steps``: the pre-recorded connection of a round)."""

    def __init__(self, kind: str, mode: str | None, recorded: list[list[dict[str, Any]]]) -> None:
        super().__init__(kind, mode, recorded)
        self.ws: Any = None

    def message(self, i: int) -> str:
        return json.dumps(client_event(self.kind, self.round, i))


# -- the two clients: open a connection, one exchange, close --------------------------------------


class _Sync:
    """The library's sync client."""

    def __init__(self) -> None:
        from websockets.sync.client import connect

        self._connect = connect

    def open(self, url: str) -> Any:
        # entered as a context manager (websockets 17.1 deprecates a bare connect() call)
        ws = self._connect(url, compression=None, open_timeout=10).__enter__()
        _check_reply(ws.recv(timeout=10), "session.created")
        return ws

    def exchange(self, ws: Any, text: str) -> str:
        ws.send(text)
        return str(ws.recv(timeout=10))

    def close(self, ws: Any) -> None:
        ws.close()


class _Async:
    """The library's asyncio client, driven one coroutine at a time on one event loop."""

    def __init__(self) -> None:
        from websockets.asyncio.client import connect

        self._connect = connect
        self.loop = asyncio.new_event_loop()

    def open(self, url: str) -> Any:
        async def go() -> Any:
            ws = await self._connect(url, compression=None, open_timeout=10)
            _check_reply(await ws.recv(), "session.created")
            return ws

        return self.loop.run_until_complete(go())

    def exchange(self, ws: Any, text: str) -> str:
        async def go() -> str:
            await ws.send(text)
            return str(await ws.recv())

        return self.loop.run_until_complete(go())

    def close(self, ws: Any) -> None:
        self.loop.run_until_complete(ws.close())

    def shutdown(self) -> None:
        self.loop.close()


def _client(name: str) -> Any:
    return _Sync() if name == "sync" else _Async()


def _check_reply(raw: Any, kind: str) -> None:
    value = json.loads(raw)
    if value.get("type") != kind:
        raise AssertionError(f"expected {kind}, got {str(raw)[:200]}")


def _prerecord(client: Any, url: str, rounds: int, n: int) -> list[list[dict[str, Any]]]:
    """Per round, the steps of a captured connection sending what ``replay`` will send."""
    from agentsnap.capture.recording import Recording

    out = []
    for r in range(rounds):
        with Recording("capture") as rec:
            ws = client.open(url)
            for i in range(n):
                _check_reply(
                    client.exchange(ws, json.dumps(client_event("replay", r, i))),
                    "conversation.item.created",
                )
            client.close(ws)
        steps = rec.trace.steps()
        (step,) = [s for s in steps if s.get("type") == "websocket"]
        assert len(step["frames"]) == 2 * n + 1, len(step["frames"])
        out.append(steps)
    return out


def _time_opens(
    client: Any, urls: dict[str, str], opened: list[dict[str, Any]]
) -> dict[str, float]:
    """Per configuration, the median of :data:`OPENS` openings (handshake + ``session.created``),
    each in a fresh recording, rotating the order, the garbage collector held off; ``opened``:
    the steps of a recorded connection that was opened and closed (what each replayed opening
    plays)."""
    names = list(urls)
    times: dict[str, list[float]] = {name: [] for name in names}
    gc_was = gc.isenabled()
    gc.collect()
    gc.disable()  # as for the messages: the rounds' recordings make a full collection slow
    try:
        _open_rounds(client, urls, opened, times)
    finally:
        if gc_was:
            gc.enable()
    return {name: statistics.median(values) for name, values in times.items()}


def _open_rounds(
    client: Any, urls: dict[str, str], opened: list[dict[str, Any]], times: dict[str, list[float]]
) -> None:
    from agentsnap.capture import active
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording

    names = list(urls)
    for j in range(OPENS):
        shift = j % len(names)
        for name in names[shift:] + names[:shift]:
            rec = None
            if name == "record":
                rec = Recording("capture")
            elif name == "replay":
                rec = Recording("replay", cassette=Cassette(opened, strict=True))
            if rec is not None:
                active.activate(rec)
            try:
                t0 = clock()
                ws = client.open(urls[name])
                times[name].append(clock() - t0)
                client.close(ws)
            finally:
                if rec is not None:
                    active.deactivate(rec)
                    rec.stop()
                    assert rec.misses == 0


def _measure(client: Any, port: int, rounds: int, n: int, warmup: int = 1) -> dict[str, Any]:
    """{"open" | "wall" | "cpu" | "steps": {config: per-round values}} (see the module doc)."""
    live = f"ws://127.0.0.1:{port}{PATH}{QUERY}"
    dead = f"ws://127.0.0.1:{_dead_port()}{PATH}{QUERY}"
    total = warmup + rounds
    recorded = _prerecord(client, live, total, n)
    (opened,) = _prerecord(client, live, 1, 0)
    forget_scrub_memo()
    configs = {
        "bare": WsConfig("bare", None, recorded),
        "record": WsConfig("record", "capture", recorded),
        "replay": WsConfig("replay", "replay", recorded),
    }
    urls = {"bare": live, "record": live, "replay": dead}
    names = list(configs)
    out: dict[str, dict[str, list[float]]] = {
        k: {name: [] for name in names} for k in ("open", "wall", "cpu", "steps")
    }
    cpu_time = time.process_time
    gc_was = gc.isenabled()
    for r in range(total):
        walls: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        opens = _time_opens(client, urls, opened)
        steps_cost: dict[str, float] = {}
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            cfg = configs[name]
            cfg.begin_round(r)
            cfg.enter()
            try:
                cfg.ws = client.open(urls[name])
            finally:
                cfg.exit()
        gc.collect()
        gc.disable()
        try:
            for i in range(n):
                shift = (i + r) % len(names)
                for name in names[shift:] + names[:shift]:
                    cfg = configs[name]
                    text = cfg.message(i)
                    cfg.enter()
                    try:
                        c0 = cpu_time()
                        t0 = clock()
                        reply = client.exchange(cfg.ws, text)
                        walls[name].append(clock() - t0)
                        cpus[name].append(cpu_time() - c0)
                    finally:
                        cfg.exit()
                    _check_reply(reply, "conversation.item.created")
        finally:
            if gc_was:
                gc.enable()
        for name in names:
            cfg = configs[name]
            cfg.enter()
            try:
                client.close(cfg.ws)
            finally:
                cfg.exit()
            cfg.end_round()  # stop; a replay round must end with no miss
            if cfg.mode is not None:
                gc.collect()
                t0 = clock()
                steps = cfg.recording.trace.steps()
                steps_cost[name] = clock() - t0
                (step,) = [s for s in steps if s.get("type") == "websocket"]
                assert len(step["frames"]) == 2 * n + 1, (name, len(step["frames"]))
                assert not step.get("request_drift"), step.get("request_drift")
        if r >= warmup:
            for name in names:
                out["open"][name].append(opens[name])
                out["wall"][name].append(statistics.median(walls[name]))
                out["cpu"][name].append(statistics.median(cpus[name]))
                if name in steps_cost:
                    out["steps"][name].append(steps_cost[name] / (2 * n + 1))
    return out


def _row(client_name: str, port: int, rounds: int, n: int) -> dict[str, Any]:
    client = _client(client_name)
    try:
        return _measure(client, port, rounds, n)
    finally:
        if hasattr(client, "shutdown"):
            client.shutdown()


def _prepare() -> list[str]:
    """Missing packages (empty: ready); installs agentsnap's hooks before ``websockets`` is imported."""
    missing = have("websockets")
    if missing:
        return missing
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from agentsnap.capture import hooks

    hooks.install()  # as the pytest plugin does: the WebSocket hooks are post-import hooks
    hooks.ensure_patched()
    import websockets.asyncio.client
    import websockets.sync.client  # noqa: F401

    return []


def _sizes() -> tuple[int, int]:
    """Bytes of a client message and of the server's answer, as sent."""
    return len(json.dumps(client_event("replay", 0, 123))), len(
        json.dumps(_server_reply(client_event("replay", 0, 123), 124))
    )


def _diff(a: list[float], b: list[float]) -> list[float]:
    return [x - y for x, y in zip(a, b, strict=True)]


def _added(values: list[float]) -> str:
    return f"{fmt_time(median(values))} [{fmt_time(min(values))}–{fmt_time(max(values))}]"


def run(ctx: Ctx) -> Section:
    sec = Section("13", "WebSocket messages: record and replay of a `websockets` connection")
    missing = _prepare()
    if missing:
        sec.skipped = f"{', '.join(missing)} not installed (`pip install websockets`)."
        return sec
    rounds = ctx.rounds(15, 5)
    n = ctx.rounds(200, 60)
    results = {}
    with _live_server() as port:
        for client_name in CLIENTS:
            ctx.log(f"  row 13: {client_name} client ({rounds} rounds x {n} messages each way)")
            results[client_name] = _row(client_name, port, rounds, n)
    sent, received = _sizes()
    sec.add(
        f"{rounds} rounds per client; each round first times the opening of a connection (the handshake and the "
        f"first server message, `session.created`: a connection's fixed cost) {OPENS} times per configuration, "
        "each in a recording of its own, in a rotating order (a round's value: their median); then it opens one "
        f"connection per configuration and exchanges {n} messages on it, "
        f"each a client `conversation.item.create` ({sent} bytes of JSON text) answered by one server "
        f"`conversation.item.created` ({received} bytes), once per configuration, back to back in a rotating "
        "order, each exchange (send + receive) timed alone. A round's value is the median of its exchanges; the "
        "tables give median [min–max] over rounds, ratios and differences taken per round. *bare*: no recording "
        "active (agentsnap's hooks installed, as in any test run): the `websockets` library's own cost per "
        "exchange over loopback, the floor the other columns add to. *replay* is served from a recording of the "
        "same connection made before the timing, by agentsnap's thread on an in-process socket pair (no TCP "
        "connection; its URL names a port nothing listens on), so its baseline is the live exchange (*bare*). "
        "*CPU*: the process's CPU time (the library's reader thread and replay's server thread included; the "
        "live server is a `websockets` sync server in another process). Per-message figures are per exchange, "
        f"i.e. one message each way. Python {sys.version.split()[0]}, "
        + ", ".join(f"{p} {v}" for p, v in versions(("websockets",)).items())
        + ".",
        "",
    )
    msg_rows = []
    open_rows = []
    step_rows = []
    for client_name, res in results.items():
        wall, cpu, opens, steps = res["wall"], res["cpu"], res["open"], res["steps"]
        rec_added = _diff(wall["record"], wall["bare"])
        rec_cpu = _diff(cpu["record"], cpu["bare"])
        rep_added = _diff(wall["replay"], wall["bare"])
        rep_cpu = _diff(cpu["replay"], cpu["bare"])
        msg_rows.append(
            [
                client_name,
                fmt_times(wall["bare"]),
                fmt_times(cpu["bare"]),
                fmt_times(wall["record"]),
                _added(rec_added),
                fmt_pct(ratios(wall["record"], wall["bare"])),
                _added(rec_cpu),
                fmt_times(wall["replay"]),
                _added(rep_added),
                fmt_ratio(ratios(wall["replay"], wall["bare"]), 2),
                _added(rep_cpu),
            ]
        )
        open_rows.append(
            [
                client_name,
                fmt_times(opens["bare"]),
                fmt_times(opens["record"]),
                fmt_ratio(ratios(opens["record"], opens["bare"]), 2),
                fmt_times(opens["replay"]),
                fmt_ratio(ratios(opens["replay"], opens["bare"]), 2),
            ]
        )
        step_rows.append(
            [
                client_name,
                fmt_times(steps["record"]),
                fmt_time(median(steps["record"]) * (2 * n + 1)),
                fmt_times(steps["replay"]),
            ]
        )
        sec.headline[f"{client_name} bare"] = fmt_time(median(wall["bare"]))
        sec.headline[f"{client_name} record added"] = fmt_time(median(rec_added))
        sec.headline[f"{client_name} replay added"] = fmt_time(median(rep_added))
    floor = "; ".join(
        f"{client_name} client {fmt_time(median(res['wall']['bare']))} wall, "
        f"{fmt_time(median(res['cpu']['bare']))} CPU"
        for client_name, res in results.items()
    )
    sec.add(
        f"The floor, the `websockets` library's own cost per exchange over loopback (*bare*): {floor}. "
        "What agentsnap adds while the test runs is the record and replay columns; recording's main cost "
        "comes at the test's end, when `Trace.steps()` builds the `websocket` step (last table).",
        "",
    )
    sec.add("Per exchange (one message each way):", "")
    sec.table(
        [
            "client",
            "bare (live): the floor",
            "bare CPU",
            "agentsnap record",
            "added by record",
            "record / bare",
            "CPU added by record",
            "agentsnap replay (no server)",
            "added by replay",
            "replay / live",
            "CPU added by replay",
        ],
        msg_rows,
    )
    sec.add(
        "Per connection (open: handshake + `session.created`; replay starts a socket pair and its server thread):",
        "",
    )
    sec.table(
        [
            "client",
            "bare (live)",
            "agentsnap record",
            "record / bare",
            "agentsnap replay",
            "replay / live",
        ],
        open_rows,
    )
    sec.add(
        f"At the test's end, `Trace.steps()` (the `websocket` step of the connection's {2 * n + 1} messages: each "
        "parsed once; in record each scrubbed and, when long enough, searched for base64 side files; in replay "
        "the server's messages are the golden's stored frames, reused; the Realtime turns read), per message:",
        "",
    )
    sec.table(
        ["client", "record: per message", "record: the connection", "replay: per message"],
        step_rows,
    )
    return sec


def profile(n: int = 1000) -> None:
    """cProfile of ``n`` exchanges of the sync client, bare, in record and in replay, every
    thread of the process (the calling thread, the library's reader thread where the record
    hook on ``recv_frame`` runs, replay's server thread) merged, by own time; then of the
    recording's ``Trace.steps()``. (Python 3.11's cProfile is per thread: each new thread gets
    its own profiler through ``threading.setprofile``.)"""
    import cProfile
    import io
    import pstats
    import threading

    missing = _prepare()
    if missing:
        raise SystemExit(f"not installed: {missing}")
    from agentsnap.capture import active
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording

    def print_stats(profs: list[cProfile.Profile], title: str, filt: str = "") -> None:
        buf = io.StringIO()
        stats = pstats.Stats(profs[0], stream=buf)
        for prof in profs[1:]:
            with contextlib.suppress(TypeError):  # a thread that made no call
                stats.add(prof)
        stats.sort_stats("tottime")
        if filt:
            stats.print_stats(filt, 25)
        else:
            stats.print_stats(25)
        print(f"===== {title}")
        print(buf.getvalue())

    client = _Sync()
    with _live_server() as port:
        url = f"ws://127.0.0.1:{port}{PATH}{QUERY}"
        (steps,) = _prerecord(client, url, 1, n)
        for mode in (None, "capture", "replay"):
            rec = None
            if mode is not None:
                cassette = Cassette(steps, strict=True) if mode == "replay" else None
                rec = Recording(mode, cassette=cassette)
                active.activate(rec)
            profs: list[cProfile.Profile] = []

            def thread_profiler(*_: Any, profs: list[cProfile.Profile] = profs) -> None:
                prof = cProfile.Profile()
                profs.append(prof)
                prof.enable()  # replaces this function as the thread's profiler

            threading.setprofile(thread_profiler)
            try:
                ws = client.open(url)
                main = cProfile.Profile()
                main.enable()
                c0 = time.process_time()
                t0 = clock()
                for i in range(n):
                    client.exchange(ws, json.dumps(client_event("replay", 0, i)))
                wall = clock() - t0
                cpu = time.process_time() - c0
                main.disable()
                client.close(ws)
            finally:
                threading.setprofile(None)
                if rec is not None:
                    active.deactivate(rec)
                    rec.stop()
            if rec is not None:
                assert rec.misses == 0
            what = mode or "bare"
            print_stats(
                [main, *profs],
                f"sync {what}: {n} exchanges, every thread, by own time (profiled: "
                f"{wall / n * 1e6:.0f} µs wall, {cpu / n * 1e6:.0f} µs CPU per exchange)",
            )
            if rec is not None:
                print_stats([main, *profs], f"sync {what}: agentsnap's frames", "agentsnap")
                prof = cProfile.Profile()
                prof.enable()
                rec.trace.steps()
                prof.disable()
                print_stats([prof], f"sync {what}: Trace.steps() of {2 * n + 1} messages")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="row 13 alone (see the module doc)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the record and replay message loops"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
    elif args.profile:
        profile()
    else:
        print(run(Ctx(quick=args.quick)).markdown())
