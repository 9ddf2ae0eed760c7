"""Instruction counts (callgrind) of the bench rows issue 30 touched: two source trees side by side.

    git worktree add /tmp/cg-base c3e73ed        # or: git archive c3e73ed src | tar -x -C /tmp/cg-base
    python bench/callgrind.py --base /tmp/cg-base --head .            # every scenario, once per side
    python bench/callgrind.py --base B --head H --runs 2              # each side twice: the noise
    python bench/callgrind.py --base B --head H --scenarios calls test --keep /tmp/cg-dumps

Each side is a checkout whose ``src/`` goes first on ``PYTHONPATH`` (then ``bench/`` and the
repository of this file, for ``tests.fake_provider`` and the MCP server): the bench's helpers, the
SDKs and their versions are the same on both sides, only agentsnap differs. Every measurement is
one process under ``valgrind --tool=callgrind --instr-atstart=no``: nothing is counted until the
process asks for it through a tiny C library built here with ``cc`` from valgrind's
``callgrind.h`` (``cg_start``: zero the counters, start instrumenting; ``cg_stop(name)``: dump the
counters since ``cg_start`` under ``name``, stop instrumenting), so start-up and imports run at
near-native speed and cost nothing. ``PYTHONHASHSEED=0``; the garbage collector is frozen
(``gc.freeze``) after start-up, and held off inside the in-process regions. In a pytest run the
collector stays on (its collections fall as in any run), but it is emptied and frozen again at the
counted region's start: the first test's lazy imports (~70k objects) are not walked by a full
collection, and the collections fall at the same allocations whatever ran before (at 0d40bf6 one
full collection, 25M instructions, fell inside the 2-test streamed run and not the 22-test one:
-1.25M a test, a rise that was none). The count is every thread's instructions (``Ir``), the process's own only (the fake servers of the
MCP and WebSocket scenarios run in processes of their own, not traced).

Scenarios (``--scenarios``; the bench row each one stands for in brackets):

* ``calls`` [1, 3]: instructions per call, bare client / record / replay, openai JSON, openai
  stream, anthropic JSON (the SDK on ``_sdk``'s in-process transport); a region of 22 calls minus
  a region of 2, over 20; each region asks questions no earlier one asked.
* ``test`` [3b]: a whole replayed 1-call pytest test (openai, JSON and stream) and the same
  without agentsnap (``-p no:agentsnap``): counted from the second test's start to the process's
  ``atexit`` (the session's end, ``.last_run`` writer joined, included); a run of 22 tests minus a
  run of 2, over 20: per test, with pytest's and the first test's fixed costs cancelled (and
  collection left out, which is pytest's).
* ``suite`` [6]: the same for row 6's test (a 5-call openai agent, ``bench/suite.py``'s conftest).
* ``session`` [6]: what ``test`` and ``suite`` cancel out: a whole pytest process of one replayed
  row-6 test, and the same without agentsnap, counted from the interpreter's start to its exit
  (``--instr-atstart=yes``: imports, configuration, collection, the session's end). Its difference
  less the suite's per-test part is what agentsnap costs once a session; with the ``suite`` rows
  the report gives row 6 by instructions for whole processes of 500 tests.
* ``golden`` [11]: a 1,000-call openai JSON golden (recorded first, not counted): its
  ``SnapshotStore.load`` + the replay ``Cassette``; and an unchanged re-record: the trace's
  ``steps()``, ``build_snapshot``, ``SnapshotStore.save`` (the file's bytes checked unchanged).
* ``mcp`` [12]: ``call_tool`` per call, record and replay, over stdio against the weather server
  (22 calls minus 2); ``websocket`` [13]: one JSON message each way on the ``websockets`` sync
  client, record and replay (22 minus 2).

The table: per scenario, base and head instructions, head/base, and "slower?" — head more than
1 % above base and by more than the largest difference between two runs of one side (``--runs 2``
measures it; with one run the noise column is empty). ``--keep DIR`` keeps the dump files
(``callgrind_annotate --inclusive=yes DIR/<side>-<run>/<job>.<n>`` profiles a row).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import gc
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SCENARIOS = ("calls", "test", "suite", "session", "golden", "mcp", "websocket")
#: calls (or messages) of the two regions of a per-call scenario; the per-call count is their difference over ``SPAN``
SMALL, LARGE = 2, 22
SPAN = LARGE - SMALL
#: tests of the two runs of a whole-test scenario
K_SMALL, K_LARGE = 2, 22
GOLDEN_CALLS = 1000
#: head over base above which a row is flagged (besides the measured noise)
SLOWER = 1.01
CALL_CASES = (("openai", "json"), ("openai", "stream"), ("anthropic", "json"))

_MARKER_C = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(const char *name) { CALLGRIND_DUMP_STATS_AT(name); CALLGRIND_STOP_INSTRUMENTATION; }
"""


# --------------------------------------------------------------------------- in the measured process


class Marker:
    """The counters of the callgrind this process runs under (no-ops outside valgrind)."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(os.environ["CG_MARKER"])
        self.lib.cg_stop.argtypes = [ctypes.c_char_p]

    @contextmanager
    def region(self, name: str) -> Iterator[None]:
        """Count the instructions of the ``with`` body, dumped under ``name``; collector frozen and off."""
        gc.collect()
        gc.freeze()
        was = gc.isenabled()
        gc.disable()
        self.lib.cg_start()
        try:
            yield
        finally:
            self.lib.cg_stop(name.encode())
            if was:
                gc.enable()
            gc.unfreeze()


def _worker_calls(mark: Marker) -> None:
    """Scenario ``calls``: regions ``<mode>/<sdk>-<shape>/<n>`` for bare, record and replay."""
    import _sdk

    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording

    for sdk, shape in CALL_CASES:
        stream = shape == "stream"
        client, bare = _sdk.make_client(sdk), _sdk.make_client(sdk, bare=True)
        for warm in ("bare", "record"):  # the SDK's lazy imports, agentsnap's first-call work
            with Recording("capture"):
                for i in range(3):
                    _sdk.call(bare if warm == "bare" else client, sdk, i, stream, " (warm)")
        for n in (SMALL, LARGE):
            tag = f" (region {n})"
            with mark.region(f"bare/{sdk}-{shape}/{n}"):
                for i in range(n):
                    _sdk.call(bare, sdk, i, stream, " bare" + tag)
            record = f"record/{sdk}-{shape}/{n}"
            _counted(mark, record, Recording("capture"), client, sdk, n, stream, " record" + tag)
            with Recording("capture") as pre:  # what the replay region asks, recorded uncounted
                for i in range(n):
                    _sdk.call(client, sdk, i, stream, " replay" + tag)
            cassette = Cassette(pre.trace.steps(), strict=True)
            replay = f"replay/{sdk}-{shape}/{n}"
            rec = Recording("replay", cassette=cassette)
            _counted(mark, replay, rec, client, sdk, n, stream, " replay" + tag)
            assert rec.misses == 0, f"replay {sdk} {shape}: {rec.misses} misses"


def _counted(
    mark: Marker, region: str, rec: Any, client: Any, sdk: str, n: int, stream: bool, tag: str
) -> None:
    """``n`` calls of ``client`` inside the recording ``rec``, counted as ``region`` (the recording
    switched on and off outside it, then stopped)."""
    import _sdk

    from agentsnap.capture import active

    active.activate(rec)
    with mark.region(region):
        for i in range(n):
            _sdk.call(client, sdk, i, stream, tag)
    active.deactivate(rec)
    rec.stop()


def _worker_golden(mark: Marker, scratch: Path) -> None:
    """Scenario ``golden``: regions ``load``, ``steps``, ``build``, ``save`` of a 1,000-call golden."""
    import _sdk

    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording
    from agentsnap.lifecycle import build_snapshot
    from agentsnap.storage.store import SnapshotStore

    name = "bench_callgrind_golden"
    client = _sdk.make_client("openai")

    def record() -> Any:
        with Recording("capture") as rec:
            for i in range(GOLDEN_CALLS):
                _sdk.call(client, "openai", i, False)
        return rec

    folder = scratch / "golden"
    shutil.rmtree(folder, ignore_errors=True)
    store = SnapshotStore(folder)
    first = build_snapshot(name, record().trace.steps(), output="done")
    first.approved = True
    path = store.save(first)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    # a first load, not counted: the load path's lazy imports and msgspec's schema compiled once
    # a process (~15M instructions that otherwise fall in the region or not, by what ran before)
    warm = SnapshotStore(folder).load(name)
    Cassette(warm.trace, name=name, strict=True)  # type: ignore[union-attr]
    del warm
    with mark.region("load"):
        snap = SnapshotStore(folder).load(name)
        Cassette(snap.trace, name=name, strict=True)  # type: ignore[union-attr]
    again = record()  # the re-record: the same calls again
    with mark.region("steps"):
        steps = again.trace.steps()
    with mark.region("build"):
        new = build_snapshot(name, steps, output="done")
    new.approved = True
    with mark.region("save"):
        SnapshotStore(folder).save(new)
    if hashlib.sha256(path.read_bytes()).hexdigest() != before:
        raise AssertionError(f"golden: the unchanged re-record changed {path}'s bytes")


def _worker_mcp(mark: Marker) -> None:
    """Scenario ``mcp``: regions ``record/<n>``, ``replay/<n>`` of ``call_tool`` over stdio."""
    import asyncio
    from contextlib import AsyncExitStack

    import mcp_calls as m

    missing = m._prepare()
    if missing:
        raise SystemExit(f"mcp: needs {', '.join(missing)}")
    from agentsnap.capture import active
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording
    from tests.frameworks.mcp_servers import WEATHER_SERVER

    env = {"WEATHER_OVERRIDE": json.dumps(m._forecasts(2, LARGE))}
    opener = m._opener("stdio", WEATHER_SERVER, env)

    async def session_region(kind: str, r: int, n: int, rec: Any) -> None:
        active.activate(rec)
        try:
            async with AsyncExitStack() as stack:
                session = await m._start(stack, opener)
                with mark.region(f"{kind}/{n}"):
                    for i in range(n):
                        m._check(
                            await session.call_tool("get_forecast", {"city": m._city(kind, r, i)}),
                            kind,
                        )
        finally:
            active.deactivate(rec)
        rec.stop()

    async def main() -> None:
        for r, n in enumerate((SMALL, LARGE)):
            await session_region("record", r, n, Recording("capture"))
            (steps,) = await m._prerecord(opener, 1, n, "stdio")  # asks _city("replay", 0, i)
            rec = Recording("replay", cassette=Cassette(steps, strict=True))
            await session_region("replay", 0, n, rec)
            assert rec.misses == 0, f"mcp replay: {rec.misses} misses"

    asyncio.run(main())


def _worker_websocket(mark: Marker) -> None:
    """Scenario ``websocket``: regions ``record/<n>``, ``replay/<n>`` of one exchange each way."""
    import websocket_frames as w

    missing = w._prepare()
    if missing:
        raise SystemExit(f"websocket: needs {', '.join(missing)}")
    from agentsnap.capture import active
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording

    client = w._Sync()
    with w._live_server() as port:
        live = f"ws://127.0.0.1:{port}{w.PATH}{w.QUERY}"
        dead = f"ws://127.0.0.1:{w._dead_port()}{w.PATH}{w.QUERY}"
        for r, n in enumerate((SMALL, LARGE)):
            for kind in ("record", "replay"):
                if kind == "record":
                    rec, url, asked = Recording("capture"), live, r
                else:  # the connection recorded first sends client_event("replay", 0, i)
                    (steps,) = w._prerecord(client, live, 1, n)
                    rec, url, asked = (
                        Recording("replay", cassette=Cassette(steps, strict=True)),
                        dead,
                        0,
                    )
                texts = [json.dumps(w.client_event(kind, asked, i)) for i in range(n)]
                active.activate(rec)
                try:
                    ws = client.open(url)
                    with mark.region(f"{kind}/{n}"):
                        for text in texts:
                            w._check_reply(client.exchange(ws, text), "conversation.item.created")
                    client.close(ws)
                finally:
                    active.deactivate(rec)
                rec.stop()
                assert rec.misses == 0, f"websocket {kind}: {rec.misses} misses"


def worker(scenario: str, scratch: Path) -> None:
    """Run ``scenario``'s regions in this process (under callgrind, started by :func:`main`)."""
    import agentsnap

    side = os.environ["CG_SIDE_SRC"]
    if not str(Path(agentsnap.__file__).resolve()).startswith(side):
        raise SystemExit(f"agentsnap imported from {agentsnap.__file__}, not from {side}")
    mark = Marker()
    if scenario == "calls":
        _worker_calls(mark)
    elif scenario == "golden":
        _worker_golden(mark, scratch)
    elif scenario == "mcp":
        _worker_mcp(mark)
    elif scenario == "websocket":
        _worker_websocket(mark)
    else:
        raise SystemExit(f"no in-process scenario {scenario!r}")


# --------------------------------------------------------------------------- pytest projects

_CONFTEST = """
import atexit, ctypes, gc, os, sys

import pytest

sys.path.insert(0, {bench!r})
import _sdk  # noqa: E402

_LIB = ctypes.CDLL(os.environ["CG_MARKER"])
_LIB.cg_stop.argtypes = [ctypes.c_char_p]


@pytest.fixture(scope="session")
def client():
    return _sdk.make_client("openai")


def agent(client, test_no):
    answer = None
    for k in range({calls}):
        answer = _sdk.call(client, "openai", test_no * {calls} + k, {stream}).choices[0]
    return answer


def pytest_sessionstart(session):
    gc.collect()
    gc.freeze()


_STARTED = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    # counted from the second test's start to the process's end (the session's end included);
    # what the first test left (its lazy imports) frozen too, and the collector's counts zeroed,
    # so a collection falls at the same allocation in every build and a full one walks only
    # what the counted tests made
    if not _STARTED and len(item.session.items) > 1 and item is item.session.items[1]:
        _STARTED.append(True)
        gc.collect()
        gc.freeze()
        _LIB.cg_start()
        atexit.register(_LIB.cg_stop, b"pytest")
"""


def make_project(folder: Path, tests: int, calls: int, stream: bool) -> Path:
    """A pytest project of ``tests`` tests, each an agent of ``calls`` openai calls (row 6's shape)."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "tests").mkdir(parents=True)
    (folder / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.agentsnap]\nsnapshot_dir = "snapshots"\n'
    )
    (folder / "tests" / "conftest.py").write_text(
        _CONFTEST.format(bench=str(BENCH), calls=calls, stream=stream)
    )
    body = ["from conftest import agent", ""]
    for t in range(tests):
        body += [f"def test_agent_{t}(client):", f"    assert agent(client, {t}) is not None", ""]
    (folder / "tests" / "test_agents.py").write_text("\n".join(body))
    return folder


#: whole-test scenarios: job name -> (scenario, calls a test, streamed, pytest arguments)
PYTEST_JOBS: dict[str, tuple[str, int, bool, list[str]]] = {
    "test-json": ("test", 1, False, ["--agentsnap-replay"]),
    "test-stream": ("test", 1, True, ["--agentsnap-replay"]),
    "test-json-floor": ("test", 1, False, ["-p", "no:agentsnap"]),
    "test-stream-floor": ("test", 1, True, ["-p", "no:agentsnap"]),
    "suite": ("suite", 5, False, ["--agentsnap-replay"]),
    "suite-floor": ("suite", 5, False, ["-p", "no:agentsnap"]),
    # one test, the whole process counted (see the module doc)
    "session": ("session", 5, False, ["--agentsnap-replay"]),
    "session-floor": ("session", 5, False, ["-p", "no:agentsnap"]),
}


# --------------------------------------------------------------------------- the harness


def build_marker(scratch: Path) -> Path:
    """The marker library (``cg_start`` / ``cg_stop``), compiled once into ``scratch``."""
    lib = scratch / "cgmarker.so"
    if lib.exists():
        return lib
    source = scratch / "cgmarker.c"
    source.write_text(_MARKER_C)
    done = subprocess.run(
        ["cc", "-O1", "-shared", "-fPIC", "-o", str(lib), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"cannot build {lib} (cc and valgrind's callgrind.h needed: apt-get install valgrind gcc):\n{done.stderr}"
        )
    return lib


def side_env(side: Path, marker: Path) -> dict[str, str]:
    from suite import _env

    env = _env()
    env.update(
        PYTHONPATH=os.pathsep.join([str(side / "src"), str(BENCH), str(ROOT)]),
        PYTHONHASHSEED="0",
        CG_MARKER=str(marker),
        CG_SIDE_SRC=str((side / "src").resolve()),
    )
    return env


def read_dumps(folder: Path, job: str) -> dict[str, int]:
    """``{region name: instructions}`` of the dump files ``job`` wrote into ``folder``."""
    out: dict[str, int] = {}
    for path in sorted(folder.glob(f"{job}.*")):
        text = path.read_text(errors="replace")
        name = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
        total = re.search(r"^summary: (\d+)", text, re.M)
        if name and total:
            out[name.group(1).strip()] = int(total.group(1))
    return out


def callgrind(
    cmd: list[str], *, env: dict[str, str], cwd: Path, out: Path, job: str, whole: bool = False
) -> dict[str, int]:
    """Run ``cmd`` under callgrind (instrumentation off until ``cg_start``); its regions' counts.
    ``whole``: every instruction from the interpreter's start, as ``{"process": count}``."""
    for old in [*out.glob(f"{job}.*"), out / job]:
        old.unlink(missing_ok=True)
    full = [
        "valgrind",
        "--tool=callgrind",
        f"--instr-atstart={'yes' if whole else 'no'}",
        f"--callgrind-out-file={out / job}",
        *cmd,
    ]
    done = subprocess.run(full, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"{job} failed ({done.returncode}): {' '.join(full)}\n{done.stdout[-2500:]}\n{done.stderr[-2500:]}"
        )
    if whole:
        total = re.search(r"^summary: (\d+)", (out / job).read_text(errors="replace"), re.M)
        if total is None:
            raise RuntimeError(f"{job}: no summary in {out / job}\n{done.stderr[-1500:]}")
        return {"process": int(total.group(1))}
    found = read_dumps(out, job)
    if not found:
        raise RuntimeError(f"{job}: no dump in {out}\n{done.stderr[-1500:]}")
    return found


def run_side(
    side: Path,
    scenarios: list[str],
    marker: Path,
    work: Path,
    out: Path,
    log: Callable[[str], None],
) -> dict[str, float]:
    """Every selected scenario on one side: ``{row label: instructions}``."""
    from suite import PYTEST_QUIET

    env = side_env(side, marker)
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[str, float] = {}
    py = sys.executable
    for scenario in scenarios:
        if scenario in ("calls", "golden", "mcp", "websocket"):
            log(f"  {side}: {scenario}")
            got = callgrind(
                [py, str(Path(__file__).resolve()), "--worker", scenario, "--scratch", str(work)],
                env=env,
                cwd=ROOT,
                out=out,
                job=scenario,
            )
            if scenario == "golden":
                for region in ("load", "steps", "build", "save"):
                    rows[f"golden {GOLDEN_CALLS:,} calls: {region}"] = got[region]
                continue
            for region in sorted({k.rsplit("/", 1)[0] for k in got}):
                per_call = (got[f"{region}/{LARGE}"] - got[f"{region}/{SMALL}"]) / SPAN
                rows[f"{scenario} {region.replace('/', ' ')} per call"] = per_call
            continue
        for job, (scen, calls, stream, args) in PYTEST_JOBS.items():
            if scen != scenario:
                continue
            log(f"  {side}: {job}")
            cmd = [py, *PYTEST_QUIET, *args]
            if scen == "session":
                proj = _project(work / job, 1, calls, stream, args, env)
                got = callgrind(cmd, env=env, cwd=proj, out=out, job=job, whole=True)
                rows[f"{job} whole process"] = got["process"]
                continue
            counts = []
            for k in (K_SMALL, K_LARGE):
                proj = _project(work / f"{job}-k{k}", k, calls, stream, args, env)
                counts.append(
                    callgrind(cmd, env=env, cwd=proj, out=out, job=f"{job}-k{k}")["pytest"]
                )
            rows[f"{job} per test"] = (counts[1] - counts[0]) / (K_LARGE - K_SMALL)
    return rows


def _project(
    folder: Path, tests: int, calls: int, stream: bool, args: list[str], env: dict[str, str]
) -> Path:
    """:func:`make_project`, its goldens recorded first when ``args`` replay."""
    proj = make_project(folder, tests, calls, stream)
    if "--agentsnap-replay" in args:
        _pytest(
            proj, ["--agentsnap-record", "-W", "ignore::agentsnap.AgentsnapWarning"], env, tests
        )
    return proj


def _pytest(proj: Path, args: list[str], env: dict[str, str], tests: int) -> None:
    from suite import PYTEST_QUIET

    cmd = [sys.executable, *PYTEST_QUIET, *args]
    done = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0 or f"{tests} passed" not in done.stdout:
        raise RuntimeError(
            f"{proj}: `pytest {' '.join(args)}` failed:\n{done.stdout[-2500:]}\n{done.stderr[-1500:]}"
        )


#: a derived row that is the difference of two whole calls' counts (~3–12M each): it is shown, but
#: its resolution is theirs (0.1–0.4 % of a call, i.e. ±10–40k instructions), so it is never
#: flagged on its own; the whole rows it comes from are
_DIFFERENCE_OF_CALLS = ": agentsnap's part per call"


def derive(rows: dict[str, float]) -> dict[str, float]:
    """``rows`` with agentsnap's part added: a recorded call over the bare call, a test over its
    floor. Not a replayed call over the bare one: replay never runs the in-process transport's
    handler (the reply's JSON and its digest), so that difference is no part of agentsnap's
    (row 3's "ours", ``Client.send`` alone, is)."""
    out = dict(rows)
    for sdk, shape in CALL_CASES:
        bare = rows.get(f"calls bare {sdk}-{shape} per call")
        got = rows.get(f"calls record {sdk}-{shape} per call")
        if bare is not None and got is not None:
            out[f"calls record {sdk}-{shape}{_DIFFERENCE_OF_CALLS}"] = got - bare
    for job in ("test-json", "test-stream", "suite"):
        if f"{job} per test" in rows and f"{job}-floor per test" in rows:
            out[f"{job}: agentsnap's part per test"] = (
                rows[f"{job} per test"] - rows[f"{job}-floor per test"]
            )
    whole = rows.get("session whole process"), rows.get("session-floor whole process")
    if whole[0] is not None and whole[1] is not None:
        # the process ran one replayed row-6 test: its own per-test part is not once a session
        per_test = out.get("suite: agentsnap's part per test", 0.0)
        out["session: agentsnap's part once"] = whole[0] - whole[1] - per_test
    return out


def whole_suite(rows: dict[str, float], tests: int = 500) -> str:
    """Row 6 by instructions for whole processes of ``tests`` tests: the session's process and
    ``tests - 1`` more tests, with agentsnap and without; "" without the ``suite`` and
    ``session`` rows."""
    need = ("suite per test", "suite-floor per test", "session whole process")
    if any(key not in rows for key in (*need, "session-floor whole process")):
        return ""
    run = rows["session whole process"] + (tests - 1) * rows["suite per test"]
    floor = rows["session-floor whole process"] + (tests - 1) * rows["suite-floor per test"]
    once = rows["session whole process"] - rows["session-floor whole process"]
    once -= rows["suite per test"] - rows["suite-floor per test"]
    share = once / (run - floor) if run > floor else float("nan")
    return (
        f"{tests} tests, whole processes: {_count(run)} against {_count(floor)} without agentsnap, "
        f"**{run / floor:.3f}×** (per test alone {rows['suite per test'] / rows['suite-floor per test']:.3f}×); "
        f"agentsnap once a session {_count(once)}, {share * 100:.0f} % of its part of the run"
    )


def _count(value: float) -> str:
    if abs(value) >= 1e6:
        return f"{value / 1e6:.3f}M"
    return f"{value / 1e3:.1f}k"


def table(base: list[dict[str, float]], head: list[dict[str, float]]) -> tuple[str, list[str]]:
    """The markdown table of the runs of each side, and the rows flagged slower."""
    lines = [
        "| scenario | base | head | head / base | noise | slower? |",
        "|---|---:|---:|---:|---:|---|",
    ]
    slower = []
    for label in base[0]:
        if label not in head[0]:
            continue
        b = [run[label] for run in base]
        h = [run[label] for run in head]
        bm, hm = sum(b) / len(b), sum(h) / len(h)
        spreads = [abs(max(v) - min(v)) / abs(sum(v) / len(v)) for v in (b, h) if len(v) > 1]
        noise = max(spreads) if spreads else None
        ratio = hm / bm if bm else float("nan")
        flag = (
            ratio > SLOWER
            and (noise is None or (hm - bm) / abs(bm) > noise)
            and not label.endswith(_DIFFERENCE_OF_CALLS)
        )
        if flag:
            slower.append(label)
        lines.append(
            f"| {label} | {_count(bm)} | {_count(hm)} | {ratio:.3f} | "
            f"{'' if noise is None else f'{noise * 100:.2f} %'} | "
            f"{'**yes**' if flag else ('not judged' if label.endswith(_DIFFERENCE_OF_CALLS) else 'no')} |"
        )
    return "\n".join(lines), slower


def suite_check(base: dict[str, float], head: dict[str, float], tests: int = 500) -> str:
    """The issue's "Done when": the suite row's saving against the per-test saving times the tests."""
    part = "agentsnap's part per test"
    if f"test-json: {part}" not in base or f"suite: {part}" not in base:
        return ""
    per_test = base[f"test-json: {part}"] - head[f"test-json: {part}"]
    suite = base[f"suite: {part}"] - head[f"suite: {part}"]
    return (
        f"Per-test saving (a replayed 1-call JSON test, agentsnap's part, base − head): {_count(per_test)} "
        f"instructions; × {tests} tests = {_count(per_test * tests)}. The suite row's saving (a replayed 5-call "
        f"test, agentsnap's part, base − head): {_count(suite)} a test; × {tests} = {_count(suite * tests)} "
        f"({'at least' if suite >= per_test else 'less than'} the per-test saving times the tests)."
    )


def _versions(side: Path) -> str:
    got = subprocess.run(
        ["git", "-C", str(side), "log", "-1", "--format=%h %cs"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return got or str(side)


def report(results: dict[str, Any], argv: list[str]) -> str:
    """The markdown of ``results``: command line, date, versions, the table, the suite check."""
    from _common import versions

    text, slower = table(results["base"], results["head"])
    check = suite_check(results["base"][0], results["head"][0])
    meta = results["meta"]
    sdks = versions(("openai", "anthropic", "httpx", "httpx2", "mcp", "websockets", "pytest"))
    lines = [
        f"`python bench/callgrind.py {' '.join(argv)}`, {datetime.date.today().isoformat()}; "
        f"base {meta['base']}, head {meta['head']}; {len(results['base'])} run(s) a side; "
        f"{', '.join(f'{k} {v}' for k, v in sdks.items())}; {valgrind_version()}.",
        "",
        text,
        "",
    ]
    if check:
        lines += [check, ""]
    for name in ("base", "head"):
        whole = whole_suite(results[name][0])
        if whole:
            lines += [f"Row 6 by instructions, {name}: {whole}.", ""]
    lines.append(
        f"Slower (> {(SLOWER - 1) * 100:.0f} % and beyond the noise): "
        f"{', '.join(slower) if slower else 'none'}."
    )
    return "\n".join(lines)


def valgrind_version() -> str:
    done = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: at least 1 run of each side")
    return value


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "example (about 20-30 minutes a run on 2 cores):\n"
            "  git worktree add --detach /tmp/cg-base c3e73ed\n"
            "  python bench/callgrind.py --base /tmp/cg-base --head . --runs 2 --output counts.json"
        ),
    )
    parser.add_argument("--base", type=Path, help="the checkout to compare against (its src/)")
    parser.add_argument("--head", type=Path, help="the checkout measured (its src/)")
    parser.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument(
        "--runs", type=_at_least_one, default=1, help="runs of each side (2: the noise)"
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the dump files here (else a temporary folder)"
    )
    parser.add_argument("--output", type=Path, help="also write the counts here (JSON)")
    parser.add_argument(
        "--combine", nargs="+", type=Path, help="measure nothing: one table of these --output files"
    )
    parser.add_argument("--worker", choices=SCENARIOS, help=argparse.SUPPRESS)
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.scratch)
        return
    sys.path.insert(0, str(BENCH))
    if args.combine:
        results: dict[str, Any] = {"base": [], "head": []}
        for path in args.combine:
            try:
                saved = json.loads(path.read_text())
                results["base"] += saved["base"]
                results["head"] += saved["head"]
                results["meta"] = saved["meta"]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                parser.error(
                    f"--combine {path}: not a file this script wrote with --output ({exc!r})"
                )
        print(report(results, argv))
        return
    if args.base is None or args.head is None:
        parser.error("--base and --head are required")
    for side in (args.base, args.head):
        if not (side / "src" / "agentsnap").is_dir():
            parser.error(f"{side} has no src/agentsnap")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found (apt-get install valgrind)")
    started = time.monotonic()

    def log(msg: str) -> None:
        print(f"[{time.monotonic() - started:6.0f} s] {msg}", file=sys.stderr, flush=True)

    keep = args.keep or Path(tempfile.mkdtemp(prefix="agentsnap-callgrind-"))
    keep.mkdir(parents=True, exist_ok=True)
    marker = build_marker(keep)
    results = {
        "base": [],
        "head": [],
        "meta": {"base": _versions(args.base), "head": _versions(args.head)},
    }
    for run in range(args.runs):
        order = ("base", "head") if run % 2 == 0 else ("head", "base")
        for name in order:
            side = getattr(args, name)
            work = keep / f"{name}-{run}"
            rows = run_side(side.resolve(), args.scenarios, marker, work / "projects", work, log)
            results[name].append(derive(rows))
    if args.output:
        args.output.write_text(json.dumps(results, indent=1) + "\n")
    print(report(results, argv))
    if args.keep is None:
        shutil.rmtree(keep, ignore_errors=True)


if __name__ == "__main__":
    main()
