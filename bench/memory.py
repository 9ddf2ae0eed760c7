"""Row 11: memory of one test making 500, 5,000 and 20,000 openai JSON calls, without agentsnap,
recorded and replayed (growth with the number of calls: linear or not); the load time of its
golden; the top allocators.

Each configuration is a fresh ``python -m pytest`` process running one test (the SDK on the
in-process transport of ``bench/_sdk.py``; the calls' results are not kept by the test):

* *without agentsnap*: ``-p no:agentsnap``;
* *record*: ``--agentsnap-record`` (the golden written at the test's end);
* *replay*: ``--agentsnap-replay`` against that golden.

Peak RSS is the process's ``VmHWM`` (``/proc/self/status``; ``ru_maxrss`` elsewhere: on Linux
it carries the parent's peak over into a child) when pytest unconfigures (interpreter, pytest, the
SDK and everything the test held at its peak); two processes run at a time (RSS does not
depend on CPU contention). The load time is ``SnapshotStore.load`` of the recorded golden plus
the replay ``Cassette`` built over its steps (what a replayed test does before its first call:
a large golden's steps as text, its ``trace`` not decoded), in this process, the two sizes alternating. The allocators: a separate 1,000-call record and
replay run with ``tracemalloc`` on (1 frame), its snapshot taken when the test's calls are done
(everything the test holds then: the recording, or the golden and the replay trace), the top
lines by size.
"""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _common import (
    BENCH,
    Ctx,
    Section,
    clock,
    fmt_times,
    forget_scrub_memo,
    have,
    interleave,
    median,
)

SIZES = (500, 5000, 20000)
#: the size the targets are read at
TARGET_SIZE = 5000
TRACED = (1000, 300)  # calls of the tracemalloc runs (full, --quick)
CONFIGS = {
    "floor": ["-p", "no:agentsnap"],
    "record": ["--agentsnap-record", "-W", "ignore::agentsnap.AgentsnapWarning"],
    "replay": ["--agentsnap-replay"],
}
LABELS = {"floor": "without agentsnap", "record": "agentsnap record", "replay": "agentsnap replay"}
#: issue 30: peak RSS over the run without agentsnap, and the 5,000-call golden's load time
MAX_RATIO = {"record": 1.6, "replay": 1.5}
LOAD_MAX = 0.120
#: linear growth: what agentsnap adds over the run without it, per call, at the largest size is at
#: most this many times what it adds per call at the middle one
MAX_GROWTH = 1.25
TOP = 5

_CONFTEST = """
import json, os, resource, sys, tracemalloc

import pytest

sys.path.insert(0, {bench!r})
import _sdk  # noqa: E402  (the bench's in-process transport)

OUT = os.environ["BENCH_MEMORY_OUT"]
TRACE = bool(os.environ.get("BENCH_TRACEMALLOC"))
stats = {{}}
FILTERS = [
    tracemalloc.Filter(False, tracemalloc.__file__),
    tracemalloc.Filter(False, "<frozen importlib._bootstrap*>"),
]
before = []


def take(moment):
    # what the test allocated since before its setup and still holds, top lines; of the
    # moments so named, the one holding most is kept
    if not before:
        return
    grown = tracemalloc.take_snapshot().filter_traces(FILTERS).compare_to(before[0], "lineno")
    held = sum(s.size_diff for s in grown)
    if held > stats.get(moment, {{}}).get("held", float("-inf")):
        stats[moment] = {{
            "held": held,
            "top": [
                [s.traceback[0].filename, s.traceback[0].lineno, s.size_diff, s.count_diff]
                for s in grown[:{top}]
            ],
        }}


CLIENT = _sdk.make_client("openai")
# the SDK's lazy imports and schemas, before any test: on a client with no agentsnap in its send
# path, since a replay run refuses an LLM call made while a conftest is imported
_sdk.call(_sdk.make_client("openai", bare=True), "openai", -1, False)


def pytest_configure(config):
    if not TRACE:
        return
    tracemalloc.start(1)
    import importlib

    for name in ("capture", "lifecycle", "replay", "diff", "serialize"):  # imported once a run
        try:
            importlib.import_module("agentsnap." + name)
        except ImportError:
            pass
    try:  # the moment a snapshot file is written: the built snapshot (and its text) are held
        from agentsnap.storage import store
        write = store.store_write
    except (ImportError, AttributeError):
        return

    def spy(*args, **kwargs):
        take("write")
        return write(*args, **kwargs)

    store.store_write = spy


@pytest.fixture(scope="session")
def client():
    return CLIENT


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    if TRACE:  # before the fixtures: a replayed test loads its golden in setup
        before.append(tracemalloc.take_snapshot().filter_traces(FILTERS))
        stats["start"] = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield
    if TRACE:
        take("calls")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield
    if TRACE:
        stats["traced_peak"] = tracemalloc.get_traced_memory()[1] - stats["start"]


def peak_rss_kib():
    # VmHWM: this process image's peak RSS. Not ru_maxrss: Linux carries it over from the
    # parent across fork and exec, so a child of a big bench process would report the parent's.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def pytest_unconfigure(config):
    stats["maxrss_kib"] = peak_rss_kib()
    with open(OUT, "w") as f:
        json.dump(stats, f)
"""

_TEST = """
import os

import _sdk

N = int(os.environ["BENCH_CALLS"])


def test_agent(client):
    answer = None
    for i in range(N):
        answer = _sdk.call(client, "openai", i, False).choices[0].message.content
    assert answer.startswith("The weather")
"""


def _project(root: Path, folder: str) -> Path:
    proj = root / folder
    shutil.rmtree(proj, ignore_errors=True)
    proj.mkdir(parents=True)
    (proj / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["."]\n\n[tool.agentsnap]\nsnapshot_dir = "snapshots"\n'
    )
    (proj / "conftest.py").write_text(_CONFTEST.format(bench=str(BENCH), top=TOP))
    (proj / "test_memory.py").write_text(_TEST)
    return proj


def _pytest(proj: Path, n: int, config: str, *, traced: bool = False) -> dict[str, Any]:
    from suite import _env

    env = _env()
    out = proj / f"stats-{config}{'-traced' if traced else ''}.json"
    env.update(BENCH_MEMORY_OUT=str(out), BENCH_CALLS=str(n))
    if traced:
        env["BENCH_TRACEMALLOC"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    t0 = clock()
    done = subprocess.run(
        [*cmd, *CONFIGS[config]], cwd=proj, env=env, capture_output=True, text=True, check=False
    )
    wall = clock() - t0
    if done.returncode != 0 or "1 passed" not in done.stdout:
        raise RuntimeError(
            f"row 11: {config} with {n} calls failed ({done.returncode}):\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-1500:]}"
        )
    stats: dict[str, Any] = json.loads(out.read_text())
    stats["wall"] = wall
    return stats


def _golden(proj: Path) -> tuple[Path, str]:
    """The recorded golden's store folder and snapshot name (goldens lie directly in it)."""
    found = list((proj / "snapshots").glob("*.json"))
    assert len(found) == 1, found
    return proj / "snapshots", str(json.loads(found[0].read_text(encoding="utf-8"))["name"])


def _load(store_dir: Path, name: str) -> float:
    from agentsnap.capture.cassette import Cassette
    from agentsnap.storage.store import SnapshotStore

    forget_scrub_memo()
    gc.collect()
    t0 = clock()
    snap = SnapshotStore(store_dir).load(name)
    assert snap is not None, name
    Cassette(_replayed_steps(snap), name=name, strict=True)
    return clock() - t0


def _replayed_steps(snap: Any) -> Any:
    """What a replayed test's cassette is built over (``lifecycle.open_recording``): a large
    golden's steps as text while its ``trace`` is unread, else the ``trace``."""
    try:
        from agentsnap.storage.lazy_steps import raw_steps
    except ImportError:  # (an agentsnap before the steps as text)
        return snap.trace
    raw = raw_steps(snap)
    return snap.trace if raw is None else raw


def _short(filename: str) -> str:
    """A file name relative to site-packages or the repository, for the table."""
    parts = Path(filename).parts
    for anchor in ("site-packages", "src"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor) + 1 :])
    return "/".join(parts[-2:])


def run(ctx: Ctx) -> Section:
    sec = Section(
        "11", "Memory: one test making 500, 5,000 and 20,000 calls, and its golden's load time"
    )
    missing = have("openai", "httpx2")
    if missing:
        sec.skipped = f"needs {', '.join(missing)}."
        return sec
    root = ctx.scratch / "row11"
    projects = {n: _project(root, f"calls_{n}") for n in SIZES}
    traced_proj = _project(root, "traced")
    traced_n = ctx.rounds(*TRACED)
    # (project, calls, configuration, traced?); the replays need the goldens of stage 1
    stages = [
        [(projects[n], n, c, False) for n in SIZES for c in ("record", "floor")]
        + [(traced_proj, traced_n, "record", True)],
        [(projects[n], n, "replay", False) for n in SIZES]
        + [(traced_proj, traced_n, "replay", True)],
    ]
    rss: dict[tuple[int, str], dict[str, Any]] = {}
    traced: dict[str, dict[str, Any]] = {}

    def one(job: tuple[Path, int, str, bool]) -> dict[str, Any]:
        proj, n, config, is_traced = job
        return _pytest(proj, n, config, traced=is_traced)

    with ThreadPoolExecutor(max_workers=2) as pool:  # RSS does not depend on CPU contention
        for stage in stages:
            ctx.log(
                "  row 11: "
                + ", ".join(f"{c} {n}{' (tracemalloc)' if t else ''}" for _, n, c, t in stage)
            )
            for (_, n, config, is_traced), stats in zip(stage, pool.map(one, stage), strict=True):
                if is_traced:
                    traced[config] = stats
                else:
                    rss[(n, config)] = stats

    goldens = {n: _golden(projects[n]) for n in SIZES}
    rounds = ctx.rounds(5, 3)
    loads = interleave({f"{n}": (lambda g=goldens[n]: _load(*g)) for n in SIZES}, rounds)
    sizes = {n: next((projects[n] / "snapshots").glob("*.json")).stat().st_size for n in SIZES}

    sec.add(
        "Each configuration in a fresh `python -m pytest` process running one test; peak RSS is the process's "
        "`VmHWM` (interpreter, pytest and the SDK included, the same in every configuration). *load*: "
        f"`SnapshotStore.load` + the replay `Cassette` of the recorded golden in the bench process, {rounds} rounds, "
        "the sizes alternating, median [min–max].",
        "",
    )
    rows = []
    ok = {"record": True, "replay": True}
    for n in SIZES:
        floor = rss[(n, "floor")]["maxrss_kib"] / 1024
        cells = [f"{n:,}", f"{floor:.0f} MB"]
        for config in ("record", "replay"):
            mb = rss[(n, config)]["maxrss_kib"] / 1024
            cells.append(f"{mb:.0f} MB ({mb / floor:.2f}×)")
            if n == TARGET_SIZE:
                ok[config] = mb / floor <= MAX_RATIO[config]
        cells += [f"{sizes[n] / 1e6:.1f} MB", fmt_times(loads[f"{n}"])]
        cells.append(
            " / ".join(f"{rss[(n, c)]['wall']:.1f} s" for c in ("floor", "record", "replay"))
        )
        rows.append(cells)
    sec.table(
        [
            "calls in the test",
            "peak RSS without agentsnap",
            "record (× without)",
            "replay (× without)",
            "golden file",
            "golden load + cassette",
            "process wall: without / record / replay",
        ],
        rows,
    )
    sec.add(
        f"Top {TOP} allocators (tracemalloc, 1 frame) of a {traced_n:,}-call test: what it allocated since before its "
        "setup and still holds, by the line that allocated it, at two moments: when its calls are done, and when "
        "the largest snapshot file is written (record: the golden; replay: its `.last_run`), where the built snapshot "
        "and its text are held at once. *peak*: the most the test held above its start at any moment up to the end of "
        "its teardown.",
        "",
    )
    trows = []
    moments = {"calls": "calls done", "write": "file written"}
    for config in ("record", "replay"):
        stats = traced[config]
        first = True
        for moment, label in moments.items():
            if moment not in stats:
                continue
            for k, (filename, lineno, size, count) in enumerate(stats[moment]["top"]):
                trows.append(
                    [
                        LABELS[config] if first else "",
                        f"{label}: {stats[moment]['held'] / 1e6:.1f} MB held" if k == 0 else "",
                        f"`{_short(filename)}:{lineno}`",
                        f"{size / 1e6:.2f} MB",
                        f"{count:,}",
                        f"{stats['traced_peak'] / 1e6:.1f} MB" if first else "",
                    ]
                )
                first = False
    sec.table(["run", "moment", "allocated at", "size", "blocks", "peak"], trows)
    big = TARGET_SIZE
    sec.target(
        f"peak RSS in replay ≤ {MAX_RATIO['replay']}× without agentsnap ({big:,} calls)",
        ok["replay"],
        key="11.replay",
    )
    sec.target(
        f"peak RSS in record ≤ {MAX_RATIO['record']}× without agentsnap ({big:,} calls)",
        ok["record"],
        key="11.record",
    )
    mid, top = sorted(SIZES)[-2:]
    per_call = {
        (n, c): (rss[(n, c)]["maxrss_kib"] - rss[(n, "floor")]["maxrss_kib"]) / n
        for n in (mid, top)
        for c in ("record", "replay")
    }
    growth = {c: per_call[(top, c)] / max(per_call[(mid, c)], 1e-9) for c in ("record", "replay")}
    sec.add(
        f"Growth: what agentsnap adds to peak RSS per call, at {top:,} calls over at {mid:,}: "
        + ", ".join(
            f"{c} {per_call[(mid, c)]:.1f} → {per_call[(top, c)]:.1f} KiB a call ({growth[c]:.2f}×)"
            for c in ("record", "replay")
        )
        + " (1.00× is linear).",
        "",
    )
    sec.target(
        f"memory grows linearly: per call added at {top:,} calls ≤ {MAX_GROWTH}× per call added at {mid:,}",
        all(g <= MAX_GROWTH for g in growth.values()),
        key="11.linear",
    )
    sec.target(
        f"a {big:,}-call golden loads in ≤ {LOAD_MAX * 1000:.0f} ms (load + cassette, median)",
        median(loads[f"{big}"]) <= LOAD_MAX,
        key="11.load",
    )
    return sec
