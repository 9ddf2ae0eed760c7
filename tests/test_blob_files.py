"""The lifecycle of the blob files beside the goldens (``blobs/<sha256>``): ``agentsnap rm``
deletes the ones only the deleted snapshots referenced, ``agentsnap prune`` the ones no
snapshot or last run references; a link, a folder or another file in ``blobs/`` is never
deleted, and a file that may reference a blob but cannot be read keeps every one.

The sessions are real: the ``websockets`` client against the suite's echo server on
127.0.0.1 (``tests/test_websocket_sessions.py``), whose large base64 audio goes to
``blobs/``; the commands are the real CLI (typer's ``CliRunner``), the run record a real
full pytest run (``pytester``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("websockets")

# imported at collection: a pytester test restores sys.modules when it ends, so a client module
# first imported inside one would come back, in the next test, as a new module agentsnap's
# post-import hooks never wrapped (that test's first session would go unrecorded)
import websockets.sync.client
import websockets.sync.server  # noqa: F401

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.cli import app
from agentsnap.storage.store import SnapshotStore
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.test_websocket_sessions import echo_server, talk

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


def audio(n: int) -> bytes:
    """5,000 bytes of "audio" of its own (its base64 goes to a blob file)."""
    return bytes([n]) * 5000


def blob(n: int) -> str:
    return hashlib.sha256(audio(n)).hexdigest()


def record(snaps: Path, name: str, n: int) -> None:
    with echo_server(audio=audio(n)) as url, AgentRecorder(name, snapshot_dir=snaps):
        talk(url)


def replay(snaps: Path, name: str, n: int) -> None:
    with echo_server(audio=audio(n)) as url:
        with AgentAsserter(name, snapshot_dir=snaps, mode="replay"):
            talk(url)


def blobs(snaps: Path) -> list[str]:
    return sorted(p.name for p in (snaps / "blobs").iterdir())


def cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output


def pending(snaps: Path, name: str) -> None:
    store = SnapshotStore(snaps)
    snap = store.load(name)
    assert snap is not None
    snap.approved = False
    store.save(snap)


def test_rm_deletes_the_blob_files_only_the_deleted_snapshots_referenced(tmp_path: Path) -> None:
    snaps = tmp_path / "snaps"
    record(snaps, "alone", 1)  # blob 1: only its
    record(snaps, "shared-a", 2)  # blob 2: this golden's and another's
    record(snaps, "shared-b", 2)
    record(snaps, "gone", 3)  # blob 3: this golden's and another snapshot's last run's
    record(snaps, "other", 3)
    replay(snaps, "other", 3)
    record(snaps, "other", 4)  # re-recorded: its golden holds blob 4, its last run still blob 3
    record(snaps, "gone-too", 5)  # blob 5: this golden's and a pending snapshot's
    record(snaps, "draft", 5)
    pending(snaps, "draft")
    assert blobs(snaps) == sorted(blob(n) for n in (1, 2, 3, 4, 5))

    code, out = cli("rm", "alone", "shared-a", "gone", "gone-too", "--yes", "--dir", str(snaps))
    assert code == 0, out
    assert out.splitlines() == [
        f"About to delete 4 snapshot files in {snaps}:",
        "  alone  (alone.json)",
        "  shared-a  (shared-a.json)",
        "  gone  (gone.json)",
        "  gone-too  (gone-too.json)",
        f"  + blobs/{blob(1)}: no other snapshot or last run references it",
        f"deleted alone ({snaps / 'alone.json'})",
        f"deleted shared-a ({snaps / 'shared-a.json'})",
        f"deleted gone ({snaps / 'gone.json'})",
        f"deleted gone-too ({snaps / 'gone-too.json'})",
        f"deleted blob file {snaps / 'blobs' / blob(1)}: only the deleted snapshots referenced it",
    ]
    assert blobs(snaps) == sorted(blob(n) for n in (2, 3, 4, 5))

    # a snapshot's last run goes with it, and so do the blobs only the two referenced
    code, out = cli("rm", "other", "--yes", "--dir", str(snaps))
    assert code == 0, out
    assert out.splitlines()[-2:] == [
        f"deleted blob file {snaps / 'blobs' / digest}: only the deleted snapshots referenced it"
        for digest in sorted((blob(3), blob(4)))
    ]
    assert blobs(snaps) == sorted(blob(n) for n in (2, 5))
    assert sorted(p.name for p in snaps.glob("*.json")) == ["draft.json", "shared-b.json"]
    replay(snaps, "shared-b", 2)  # what is left still replays offline


SUITE = "def test_keep():\n    pass\n"
GONE = "tests/test_agent.py::test_gone"
WHY_LEFT = "agentsnap deletes only the blob files it writes (regular files named by their sha256)"


def full_run(pytester: pytest.Pytester) -> tuple[Path, str]:
    """A full, passing pytest run of a suite whose ``test_gone`` was deleted: its record names
    the golden of ``test_gone`` orphaned. Returns the snapshot folder and the run's time."""
    snaps = pytester.path / "snaps"
    pytester.makepyprojecttoml(
        '[tool.agentsnap]\nsnapshot_dir = "snaps"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    )
    tests = pytester.path / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "test_agent.py").write_text(SUITE, encoding="utf-8")
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)
    record_ = json.loads((snaps / ".last_run" / "run.json").read_text(encoding="utf-8"))
    assert record_["full_run"] is True and record_["orphans"] == [GONE], record_
    return snaps, record_["finished_at"]


def test_prune_deletes_the_blob_files_nothing_references_and_leaves_what_is_no_blob_file(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    snaps = pytester.path / "snaps"
    record(snaps, GONE, 1)  # an orphaned golden: blob 1 goes with it
    record(snaps, "kept", 2)
    record(snaps, "swapped", 3)
    record(snaps, "swapped", 4)  # re-recorded: blob 3 is no longer referenced
    record(snaps, "replayed", 5)
    replay(snaps, "replayed", 5)
    record(snaps, "replayed", 6)  # re-recorded: its last run (a replay) still holds blob 5
    folder = snaps / "blobs"
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"not agentsnap's")
    foreign = {
        "README.txt": "not named like a sha256",
        "A" * 64: "not named like a sha256",  # (upper case: not as agentsnap names one)
        hashlib.sha256(b"folder").hexdigest(): "a folder",
        hashlib.sha256(b"link").hexdigest(): "a symbolic link",
    }
    (folder / "README.txt").write_text("notes\n", encoding="utf-8")
    (folder / ("A" * 64)).write_bytes(audio(7))
    (folder / hashlib.sha256(b"folder").hexdigest()).mkdir()
    (folder / hashlib.sha256(b"link").hexdigest()).symlink_to(outside)
    snaps, finished = full_run(pytester)
    before = blobs(snaps)
    golden_file = next(p.name for p in snaps.glob("tests_test_agent*.json"))

    left = [f"left {folder / name}: {foreign[name]}; {WHY_LEFT}" for name in sorted(foreign)]
    listing = [
        f"1 orphaned snapshot in {snaps} (last full run: {finished}):",
        f"  {GONE}  ({golden_file})",
        f"2 orphaned blob files in {folder} (no snapshot or last run references them):",
        *[f"  blobs/{digest}  (5,000 bytes)" for digest in sorted((blob(1), blob(3)))],
        *left,
    ]
    code, out = cli("prune", "--dry-run", "--dir", str(snaps))
    assert (code, out.splitlines()) == (0, listing)
    assert blobs(snaps) == before  # a dry run deletes nothing

    code, out = cli("prune", "--dir", str(snaps))  # no terminal, no --yes
    assert code == 1 and "Nothing was deleted" in out and blobs(snaps) == before

    code, out = cli("prune", "--yes", "--dir", str(snaps))
    assert (code, out.splitlines()) == (0, [*listing, "deleted 1 snapshot and 2 blob files."])
    assert blobs(snaps) == sorted([*(blob(n) for n in (2, 4, 5, 6)), *foreign])
    assert outside.read_bytes() == b"not agentsnap's" and (folder / "README.txt").is_file()
    for name in ("kept", "swapped", "replayed"):
        replay(snaps, name, {"kept": 2, "swapped": 4, "replayed": 6}[name])

    # the last run of "replayed" is now its replay of blob 6: blob 5 is referenced no more
    code, out = cli("prune", "--yes", "--dir", str(snaps))
    assert (code, out.splitlines()) == (
        0,
        [
            f"No orphaned snapshots in {snaps} (last full run: {finished}).",
            f"1 orphaned blob file in {folder} (no snapshot or last run references it):",
            f"  blobs/{blob(5)}  (5,000 bytes)",
            *left,
            "deleted 1 blob file.",
        ],
    )
    assert blobs(snaps) == sorted([*(blob(n) for n in (2, 4, 6)), *foreign])
    code, out = cli("prune", "--yes", "--dir", str(snaps))  # nothing left to delete
    assert (code, out.splitlines()) == (
        0,
        [f"No orphaned snapshots in {snaps} (last full run: {finished}).", *left],
    )


def test_a_file_that_cannot_be_parsed_or_read_loses_no_blob_file(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    snaps = pytester.path / "snaps"
    record(snaps, GONE, 1)
    record(snaps, "conflicted", 2)
    golden = snaps / "conflicted.json"  # a merge conflict: no snapshot, but it names blob 2
    text = golden.read_text(encoding="utf-8")
    golden.write_text(f"<<<<<<< HEAD\n{text}=======\n{text}>>>>>>> theirs\n", encoding="utf-8")
    snaps, finished = full_run(pytester)
    pytester.runpytest_subprocess("-p", "no:randomly", "-k", "keep").assert_outcomes(passed=1)
    code, out = cli("prune", "--yes", "--dir", str(snaps))  # a filtered run: nothing at all
    assert (code, out) == (
        1,
        "error: the last pytest run cannot tell orphans apart from filtered tests: tests were "
        "filtered with -k or -m. Run the whole suite with no filters, then `agentsnap prune`.\n",
    )
    assert blobs(snaps) == sorted((blob(1), blob(2)))
    snaps, finished = full_run(pytester)

    code, out = cli("prune", "--yes", "--dir", str(snaps))
    assert code == 0, out
    assert out.splitlines()[-1] == "deleted 1 snapshot and 1 blob file."
    assert blobs(snaps) == [blob(2)]  # the conflicted golden still names it

    # a golden that is a link is never followed: which blobs it names cannot be told
    record(snaps, "swapped", 3)
    record(snaps, "swapped", 4)  # blob 3: referenced no more
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}", encoding="utf-8")
    (snaps / "linked.json").symlink_to(elsewhere)
    kept = (
        f"kept 1 blob file in {snaps / 'blobs'} that no readable snapshot or last run references: "
        f"which ones {snaps / 'linked.json'} (a symbolic link, never followed) references cannot "
        "be told. Replace or remove it, then run `agentsnap prune`."
    )
    code, out = cli("prune", "--yes", "--dir", str(snaps))
    assert (code, out.splitlines()) == (
        0,
        [f"No orphaned snapshots in {snaps} (last full run: {finished}).", kept],
    )
    code, out = cli("rm", "swapped", "--yes", "--dir", str(snaps))
    assert code == 0 and out.splitlines()[-1] == kept, out  # blob 4: it named it
    assert blobs(snaps) == sorted(blob(n) for n in (2, 3, 4))
    assert elsewhere.read_text(encoding="utf-8") == "{}"

    (snaps / "linked.json").unlink()
    code, out = cli("prune", "--yes", "--dir", str(snaps))
    assert code == 0 and out.splitlines()[-1] == "deleted 2 blob files.", out
    assert blobs(snaps) == [blob(2)]
