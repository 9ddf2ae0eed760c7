"""The pytest session's ``.last_run`` files of passed runs, held until the session ends
(:meth:`agentsnap.storage.last_run_writer.LastRunWriter.hold`; found by a fresh reviewer):

* the same snapshot saved twice in one session, first a small run (held) then a run of
  ``PIECES_FROM_STEPS`` steps or more (written at once): the later run must be the file;
* a ``.last_run`` folder or file that is a symbolic link fails no test, whatever the run's size
  (a run of ``PIECES_FROM_STEPS`` steps or more is not held: it went the old way and raised);
* files held before the store's first failure (a sample that cannot be written) are written,
  or named; never dropped in silence.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from agentsnap.storage.last_run_writer import LastRunWriter
from agentsnap.storage.snapshot import Snapshot
from agentsnap.storage.store import PIECES_FROM_STEPS, SnapshotStore

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

_AT = "2026-12-07T10:00:00+00:00"


def _run(name: str, steps: int, tag: str) -> Snapshot:
    return Snapshot(
        name=name,
        trace=[
            {"type": "tool_call", "name": "f", "args": {"k": k}, "result": tag}
            for k in range(steps)
        ],
        output=f"out {tag}",
        created_at=_AT,
        updated_at=_AT,
        recorded_at=_AT,
        comparison={"mode": "live", "score": 1.0},
    )


def _store(tmp_path: Path) -> SnapshotStore:
    store = SnapshotStore(tmp_path / "snaps")
    store.writer = LastRunWriter()
    return store


@pytest.mark.parametrize(
    ("first", "second"),
    [(3, PIECES_FROM_STEPS + 100), (PIECES_FROM_STEPS + 100, 3), (3, 4)],
    ids=["small-then-large", "large-then-small", "small-then-small"],
)
def test_the_later_run_of_a_name_is_its_last_run_whatever_their_sizes(
    tmp_path: Path, first: int, second: int
) -> None:
    store = _store(tmp_path)
    a = store.save_last_run(_run("x", first, "first"), later=True)
    b = store.save_last_run(_run("x", second, "second"), later=True)
    assert a == b is not None
    assert store.writer is not None and store.writer.close() == []
    kept = json.loads(b.read_bytes())
    assert (kept["output"], len(kept["trace"])) == ("out second", second)


@pytest.mark.parametrize("steps", [3, PIECES_FROM_STEPS + 100], ids=["small", "large"])
@pytest.mark.parametrize("link", ["folder", "file"])
def test_a_linked_last_run_is_named_at_the_end_never_a_failure_whatever_the_runs_size(
    tmp_path: Path, steps: int, link: str
) -> None:
    """The session's writer: a linked ``.last_run`` folder or file is kept as a failure and
    named when the session ends (docs/troubleshooting.md: "the tests' results are
    unaffected"), for a run of any size; nothing is written through the link."""
    store = _store(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "target.json").write_bytes(b"{}")
    last = store.last_run_path("x")
    if link == "folder":
        last.parent.parent.mkdir(parents=True, exist_ok=True)
        last.parent.symlink_to(elsewhere, target_is_directory=True)
    else:
        last.parent.mkdir(parents=True)
        last.symlink_to(elsewhere / "target.json")
    store.save_last_run(_run("x", steps, "linked"), later=True)  # must not raise
    assert store.writer is not None
    [(failed, why)] = store.writer.close()
    assert failed == str(last) and "symbolic link" in why
    assert sorted(p.name for p in elsewhere.iterdir()) == ["target.json"]
    assert (elsewhere / "target.json").read_bytes() == b"{}"
    # the session's warning names the file and says what to do about a link
    from agentsnap.exceptions import AgentsnapWarning
    from agentsnap.storage.last_run_writer import warn_unwritable

    with pytest.warns(AgentsnapWarning) as said:
        warn_unwritable(failed, why)
    [warning] = said
    text = str(warning.message)
    assert f"cannot write {last}" in text
    assert "writes nothing through a link: replace it with a real folder or file" in text
    assert "a file where a folder goes" not in text


def test_files_held_before_a_later_failure_are_written_not_dropped(tmp_path: Path) -> None:
    """A test's file held, then a later write of the same store fails (a statistics run's
    sample where a file is in the way: the store's ``last_run_error`` is set): the held file
    is still written at the session's end (as it was when written at its test's end), or at
    least named; it is never dropped in silence."""
    store = _store(tmp_path)
    held = store.save_last_run(_run("a", 3, "held"), later=True)
    assert held is not None
    samples = store.samples_dir("b")
    samples.parent.mkdir(parents=True, exist_ok=True)
    samples.write_text("a file where the samples' folder goes\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert store.save_sample(_run("b", 3, "sample"), 1) is None
    assert store.writer is not None
    errors = store.writer.close()
    assert held.exists() or [str(held)] == [path for path, _ in errors]


_SAME_NAME_TWICE = """
import os

def run(snap, n, tag):
    try:
        with snap.assert_agent("x", judge=False, embedding_backend="lexical") as b:
            for k in range(n):
                b.record_tool_call("f", {"k": k}, tag)
            b.output = "out " + tag
    except Exception:
        pass

def test_twice(agent_snapshot):
    run(agent_snapshot, 3, "first")
    run(agent_snapshot, int(os.environ.get("SECOND_STEPS", "3")), "second")
"""


def test_a_session_keeps_the_later_run_of_a_name(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a pytest session: a test that runs the same snapshot twice, the second run of
    ``PIECES_FROM_STEPS`` steps or more; its ``.last_run`` file is the second run."""
    for var in ("CI", "GITHUB_ACTIONS", "AGENTSNAP_MODE", "AGENTSNAP_RECORD"):
        monkeypatch.delenv(var, raising=False)
    pytester.makepyfile(test_twice=_SAME_NAME_TWICE)
    quiet = ("-p", "no:randomly", "-p", "no:cacheprovider")
    assert pytester.runpytest_subprocess(*quiet, "--agentsnap-record").ret == 0
    monkeypatch.setenv("SECOND_STEPS", str(PIECES_FROM_STEPS + 100))
    pytester.runpytest_subprocess(*quiet)
    kept = json.loads(
        SnapshotStore(pytester.path / "__agent_snapshots__").last_run_path("x").read_bytes()
    )
    assert (kept["output"], len(kept["trace"])) == ("out second", PIECES_FROM_STEPS + 100)


def test_a_held_run_whose_blob_cannot_be_written_is_named_at_the_end(tmp_path: Path) -> None:
    """A passed run's side file (an answer of bytes over 1 MiB) that cannot be written, a file
    where the ``blobs`` folder goes: no ``.last_run`` file, nothing raised at the test, the
    failure kept by the writer and named when the session ends; a later run is still written."""
    store = _store(tmp_path)
    store.root.mkdir(parents=True)
    (store.root / "blobs").write_bytes(b"in the way")
    upload = Snapshot(name="upload", output=b"\x00" * (1024 * 1024 + 1))
    assert store.save_last_run(upload, later=True) is None
    kept = store.save_last_run(_run("later", 3, "kept"), later=True)
    assert store.writer is not None
    [(failed, why)] = store.writer.close()
    assert failed == str(store.last_run_path("upload")) and why
    assert not store.last_run_path("upload").exists()
    assert kept is not None and kept.exists()
    assert (store.root / "blobs").read_bytes() == b"in the way"
