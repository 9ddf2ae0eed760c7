"""Crash safety: SIGKILL at any moment leaves every snapshot old or new, never half.

A child process rewrites a set of snapshots (each several hundred KB) from
one version to the other and is killed with SIGKILL; then every snapshot
file must parse and hold either the old or the new content. Three ways:

* at random moments, repeated with alternating versions (the brief's
  "kill it mid-write, repeated");
* at *every step* of a write: the child kills itself just before the k-th
  file operation (open, write, flush, fsync, chmod, rename, close …) made
  inside the store's write (``store_write``), for each k — so a window
  between truncating and writing, or between writing and renaming, cannot be
  missed by luck;
* through ``pytest --agentsnap-record`` (the real path), at random moments.

Leftover temporary files (``.<name>.*.tmp``) are allowed: they are never read
as snapshots.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from agentsnap import SnapshotStore
from agentsnap.storage.volatile import same_content

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

REPO = Path(__file__).resolve().parent.parent
N_SNAPSHOTS = 6
SIZE = 400_000
ROUNDS = 8

WRITER = textwrap.dedent(
    """
    import sys, time
    from agentsnap import Snapshot, SnapshotStore

    def make(i, version, size):
        text = (version * size)[:size]
        exchange = {"request": {"method": "POST", "path": "/v1/chat/completions", "body": {"messages": [{"role": "user", "content": f"q{i}"}]}},
                    "response": {"status": 200, "headers": {}, "body": {"text": text}}}
        return Snapshot(name=f"tests/test_crash.py::test_agent[{i}]", approved=True, output=f"{version}-{i}",
                        trace=[{"type": "llm_call", "step": 0, "response": text, "exchange": exchange}])

    root, version, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    kill_at = int(sys.argv[5]) if len(sys.argv) > 5 else -1  # -2: count the steps of the writes
    store = SnapshotStore(root)
    steps = [0]
    if kill_at != -1:  # step through the store's writes: every file operation store_write makes
        import os, signal
        import agentsnap.storage.store as store_module
        real = store_module.store_write
        effects = {"open", "write", "writelines", "flush", "fsync", "fdatasync", "replace", "rename", "fchmod", "chmod", "close",
                   "truncate", "ftruncate", "unlink", "remove", "mkdir", "makedirs", "link", "symlink"}
        def profile(frame, event, arg):  # before every call with an effect on files, at any depth
            if event == "c_call" and getattr(arg, "__name__", "") in effects:
                if steps[0] == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)
                steps[0] += 1
        def stepped(*args, **kwargs):
            sys.setprofile(profile)
            try:
                return real(*args, **kwargs)
            finally:
                sys.setprofile(None)
        store_module.store_write = stepped
    print("ready", flush=True)
    started = time.monotonic()
    for i in range(n):
        store.save(make(i, version, size))
    print("done", time.monotonic() - started, steps[0], flush=True)
    """
)


def _names(n: int = N_SNAPSHOTS) -> list[str]:
    return [f"tests/test_crash.py::test_agent[{i}]" for i in range(n)]


def _run_writer(
    script: Path, root: Path, version: str, kill_after: float | None, *extra: str
) -> float | None:
    """Run the writer; SIGKILL it ``kill_after`` seconds after it starts writing. Returns its write time when not killed."""
    proc = subprocess.Popen(
        [sys.executable, str(script), str(root), version, str(N_SNAPSHOTS), str(SIZE), *extra],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    if kill_after is None:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode in (0, -signal.SIGKILL), out
        return float(out.split()[1]) if out.startswith("done") else None
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return None


def _references(
    tmp_path: Path, script: Path
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], float]:
    refs = {}
    elapsed = 0.0
    for version in ("A", "B"):
        root = tmp_path / f"ref_{version}"
        elapsed = max(elapsed, _run_writer(script, root, version, None) or 0.0)
        refs[version] = {
            n: json.loads(SnapshotStore(root).path_for(n).read_text(encoding="utf-8"))
            for n in _names()
        }
    return refs["A"], refs["B"], elapsed


def _check_old_or_new(
    root: Path, old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]], names: list[str]
) -> tuple[int, int]:
    """Every snapshot parses and equals the old or the new version; returns (#old, #new)."""
    store = SnapshotStore(root)
    counts = [0, 0]
    for name in names:
        path = store.path_for(name)
        snap = SnapshotStore.read_file(path, expected_name=name)  # raises on a torn file
        data = snap.to_dict()
        is_old, is_new = same_content(data, old[name]), same_content(data, new[name])
        assert is_old or is_new, f"{path} holds neither version"
        counts[0 if is_old else 1] += 1
    leftovers = [p.name for p in root.iterdir() if p.is_file() and not p.name.endswith(".json")]
    assert all(n.startswith(".") and n.endswith(".tmp") for n in leftovers), leftovers
    assert sorted(s.name for s in store.list()) == sorted(
        names
    )  # temp files are never read as snapshots
    return counts[0], counts[1]


def test_sigkill_during_saves_never_leaves_a_torn_snapshot(tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    ref_a, ref_b, write_time = _references(tmp_path, script)
    root = tmp_path / "snaps"
    _run_writer(script, root, "A", None)  # start from version A everywhere
    rng = random.Random(1234)
    states = []
    round_ = 0
    # ROUNDS kills at random points of a write; on a loaded machine the writes run slower than
    # the reference did, so more rounds with later kills follow until one lands between saves
    while round_ < ROUNDS or (round_ < 5 * ROUNDS and not any(a and b for a, b in states)):
        version = "B" if round_ % 2 == 0 else "A"
        stretch = 1.1 * (1 + round_ // ROUNDS)
        _run_writer(script, root, version, rng.uniform(0.0, write_time * stretch))
        states.append(_check_old_or_new(root, ref_a, ref_b, _names()))
        round_ += 1
    mixed = sum(1 for a, b in states if a and b)
    assert mixed, f"no kill landed between two saves ({states}); the test did not exercise anything"


def test_sigkill_at_every_step_of_a_write_never_leaves_a_torn_snapshot(tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    ref_a, ref_b, _ = _references(tmp_path, script)
    root = tmp_path / "snaps"
    _run_writer(script, root, "A", None)
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "count"), "B", "1", str(SIZE), "-2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    steps_per_save = int(proc.stdout.split()[-1])
    assert steps_per_save >= 5, proc.stdout
    version = "B"
    for kill_at in range(steps_per_save + 1):  # the first save's every step, then one past its end
        _run_writer(script, root, version, None, str(kill_at))
        old, new = _check_old_or_new(root, ref_a, ref_b, _names())
        if (
            old == 0 or new == 0
        ):  # everything moved over (or nothing did): alternate, so the next kill has something to tear
            version = "A" if version == "B" else "B"


RECORD_TEST = textwrap.dedent(
    """
    import os
    import openai
    import pytest
    from tests.fake_provider import FakeOpenAI, text_reply

    MARK = os.environ["CRASH_MARK"]

    @pytest.fixture(scope="module")
    def client():
        with FakeOpenAI() as fake:
            fake.respond_with(lambda body: text_reply((MARK * 300_000) + body["messages"][0]["content"]))
            yield openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)

    @pytest.mark.parametrize("i", range(5))
    def test_agent(client, i):
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": f"q{i}"}])
    """
)
READY_HOOK = textwrap.dedent(
    """
    import os, pathlib

    def pytest_collection_finish(session):
        pathlib.Path(os.environ["CRASH_READY"]).write_text("ready")
    """
)


def test_sigkill_during_pytest_record_never_leaves_a_torn_snapshot(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_crash.py").write_text(RECORD_TEST, encoding="utf-8")
    (project / "conftest.py").write_text(READY_HOOK, encoding="utf-8")
    (project / "pyproject.toml").write_text(
        '[tool.agentsnap]\nsnapshot_dir = "snaps"\n', encoding="utf-8"
    )
    ready = tmp_path / "ready"
    names = [f"test_crash.py::test_agent[{i}]" for i in range(5)]

    def record(mark: str, kill_after: float | None) -> float:
        # only agentsnap's plugin: a quicker start, so more of the run is the recording itself
        env = dict(
            os.environ,
            PYTHONPATH=str(REPO),
            CRASH_MARK=mark,
            CRASH_READY=str(ready),
            PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        )
        for var in ("CI", "GITHUB_ACTIONS", "AGENTSNAP_MODE", "AGENTSNAP_RECORD"):
            env.pop(var, None)
        ready.unlink(missing_ok=True)
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "agentsnap.pytest_plugin",
            "-p",
            "no:cacheprovider",
            "--agentsnap-record",
            "test_crash.py",
        ]
        proc = subprocess.Popen(
            cmd, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        while not ready.exists() and proc.poll() is None:
            time.sleep(0.005)
        started = time.monotonic()
        if kill_after is None:
            assert proc.wait(timeout=120) == 0
            return time.monotonic() - started
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        return 0.0

    run_time = record("A", None)  # every snapshot starts as version A
    store = SnapshotStore(project / "snaps")
    ref_a = {n: store.path_for(n).read_text(encoding="utf-8") for n in names}
    # version B differs only in the reply's filler (ids derive from the request, which is the same)
    refs = {
        "A": {n: json.loads(t) for n, t in ref_a.items()},
        "B": {n: json.loads(t.replace("A" * 300_000, "B" * 300_000)) for n, t in ref_a.items()},
    }
    rng = random.Random(99)
    for round_ in range(2):
        record("B" if round_ % 2 == 0 else "A", rng.uniform(0.05, run_time))
        _check_old_or_new(project / "snaps", refs["A"], refs["B"], names)


def test_snapshot_files_get_ordinary_permissions(tmp_path: Path) -> None:
    """mkstemp creates 0600 files; a snapshot (and a side file) is as readable as any file the user writes."""
    from agentsnap import Snapshot
    from agentsnap.storage.serialize import BLOB_THRESHOLD

    path = SnapshotStore(tmp_path).save(
        Snapshot(
            name="mode",
            trace=[
                {
                    "type": "tool_call",
                    "name": "t",
                    "args": b"\0" * (BLOB_THRESHOLD + 1),
                    "result": None,
                }
            ],
        )
    )
    mask = os.umask(0o022)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
    (blob,) = (tmp_path / "blobs").iterdir()
    assert blob.stat().st_mode & 0o777 == 0o666 & ~mask
