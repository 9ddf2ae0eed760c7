"""A replayed test's ``.last_run`` record and golden lookup made cheaper, the same answers (issue 30).

* :func:`agentsnap.storage.serialize.prepare_plain`: a prepared snapshot's own fields (name,
  times, model, comparison) prepared without the walk when nothing in them changes; for any such
  dict and any rules it is ``prepare``'s result, in value and in bytes.
* :class:`agentsnap.storage.naming.Listing`: a replay run's look for a test's later snapshots
  (``name-2``, which almost never exists) answered from one listing of the snapshot folder: a
  name it says is absent is one ``locate`` finds no file of, whatever the folder holds; it is
  taken again after any golden the process saved (by any store); only the session's store
  under replay, outside xdist workers, answers from it.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.exceptions import SnapshotFormatError
from agentsnap.storage import serialize as _serialize
from agentsnap.storage.naming import Listing, candidate_names
from agentsnap.storage.serialize import compact_bytes, prepare, prepare_plain
from agentsnap.storage.snapshot import Snapshot
from agentsnap.storage.store import SnapshotStore
from tests._support.scrub_samples import RULES, TOUCHY, set_rules

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    """Each test starts from a new process's redaction state (conftest's ``fresh_scrub``)."""


#: strings a rule changes or JSON spells oddly, the keys a path rule or the snapshot names, and
#: ordinary text; values JSON has no word for (NaN, an int past 64 bits, a lone surrogate, bytes)
_TEXT = st.one_of(
    st.sampled_from([*TOUCHY, "city", "name", "input", "output", "comparison", "\ud800", "gh"]),
    st.text(max_size=12),
)
_ODD = st.sampled_from([math.nan, math.inf, 2**70, -(2**64), b"raw", ("a", 1), 1e16, -0.0])
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _TEXT, _ODD),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=20,
)


def _bytes(data: dict[str, Any]) -> bytes:
    return bytes(compact_bytes(data))


@settings(max_examples=500, deadline=None)
@given(
    fields=st.dictionaries(_TEXT, _VALUES, max_size=6),
    rules=st.sampled_from(RULES),
    remember=st.booleans(),
)
def test_property_prepare_plain_is_prepare(
    fields: dict[str, Any], rules: object, remember: bool
) -> None:
    """Any dict, any rules, remembered credentials or not, asked twice (the second time its
    literals are known): ``prepare``'s value and bytes, and a dict of its own."""
    set_rules(rules, remember)
    for _ in range(2):
        got = prepare_plain(fields)
        want = prepare(fields)
        assert got == want or json.dumps(got, sort_keys=True, default=str) == json.dumps(
            want, sort_keys=True, default=str
        )  # (NaN is not equal to itself)
        assert _bytes(got) == _bytes(want)
        assert got is not fields


def _rest(model: str = "gpt-4o-mini-2024-07-18", **more: Any) -> dict[str, Any]:
    """A replayed run's own fields, as a ``.last_run`` record holds them."""
    return {
        "version": "2.0",
        "name": "tests/test_agents_00.py::test_agent_0",
        "approved": False,
        "source": "pytest",
        "created_at": "2026-12-07T10:28:06+00:00",
        "updated_at": "2026-12-07T10:28:06+00:00",
        "recorded_at": "2026-12-07T10:28:06+00:00",
        "agentsnap_version": "1.0.0.dev0",
        "model": model,
        "comparison": {
            "semantic_backend": {},
            "semantic_scores": {"llm_call[0]": 1.0, "output": 1.0},
            "score": 1.0,
            "failed_checks": [],
            "mode": "replay",
            "request_drift": False,
        },
        **more,
    }


def test_a_replayed_runs_fields_are_not_walked() -> None:
    rest = _rest()
    with mock.patch.object(_serialize, "prepare", wraps=_serialize.prepare) as walk:
        got = prepare_plain(rest)
    assert not walk.called and got == rest and got is not rest


@pytest.mark.parametrize(
    ("rules", "rest", "changed"),
    [
        (None, _rest(model="sk-proj-" + "A1b2C3d4" * 5), "model"),  # a token shape
        (None, _rest(comparison={"password": "hunter22"}), "comparison"),  # a secret key
        ({"patterns": ["acct_[0-9]+"]}, _rest(model="acct_12345"), "model"),  # a user pattern
        # walked, changed or not: a user's JSON path (prepare applies it to input and output
        # only), a float JSON has no word for
        ({"paths": ["..city"]}, _rest(comparison={"city": "Paris"}), None),
        (None, _rest(comparison={"score": math.nan}), None),
    ],
)
def test_what_a_rule_may_change_is_walked(
    rules: object, rest: dict[str, Any], changed: str | None
) -> None:
    set_rules(rules, remember=False)
    with mock.patch.object(_serialize, "prepare", wraps=_serialize.prepare) as walk:
        got = prepare_plain(rest)
    assert walk.called
    assert _bytes(got) == _bytes(prepare(rest))
    if changed is not None:
        assert got[changed] != rest[changed]


def test_a_trace_is_prepared_as_steps_are() -> None:
    """A step's exchange has its account headers masked by name (never a value's rule): a dict
    holding a ``trace`` is ``prepare``'s, walked."""
    step = {"type": "http", "exchange": {"response": {"headers": {"openai-organization": "org-1"}}}}
    got = prepare_plain({"name": "t", "trace": [step]})
    assert got == prepare({"name": "t", "trace": [step]})
    assert got["trace"][0]["exchange"]["response"]["headers"]["openai-organization"] != "org-1"


# --------------------------------------------------------------------------- the listing

_NAMES = st.one_of(
    st.sampled_from(
        [
            "weather",
            "Weather",
            "tests/test_a.py::test_weather[paris]",
            "tests/test_a.py::test_weather[paris]-2",
            "a.b",
            "CON",
            "x" * 150,
            "w-0123abcd",
        ]
    ),
    st.text(min_size=1, max_size=12),
)
#: what is made at one of a name's candidate file names
_MADE = st.sampled_from(["file", "upper", "lower", "folder", "link", "dangling", "nothing"])


def _found(store: SnapshotStore, name: str) -> bool:
    try:
        return store.locate(name) is not None
    except SnapshotFormatError:  # a link: found (and refused)
        return True


@settings(max_examples=150, deadline=None)
@given(
    made=st.lists(st.tuples(_NAMES, st.lists(_MADE, min_size=2, max_size=2)), max_size=4),
    asked=st.lists(_NAMES, max_size=4),
)
def test_property_a_name_the_listing_says_is_absent_has_no_file(
    made: list[tuple[str, list[str]]], asked: list[str]
) -> None:
    """Whatever the folder holds of any names' files (in any case, folders, links, dangling
    ones), a name the listing calls absent (the names made, their ``-2``, others) is one
    ``locate`` finds nothing of; and every name made a file of is not called absent."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "snapshots"
        root.mkdir()
        for name, actions in made:
            for file, action in zip(candidate_names(name), actions, strict=False):
                path = root / {"upper": file.upper(), "lower": file.lower()}.get(action, file)
                if action == "nothing" or os.path.lexists(path):
                    continue
                if action == "folder":
                    path.mkdir()
                elif action == "link":
                    os.symlink(Path(folder) / "elsewhere.json", path)
                    (Path(folder) / "elsewhere.json").write_text("{}")
                elif action == "dangling":
                    os.symlink(Path(folder) / "gone.json", path)
                else:
                    path.write_text("{}")
        listing = Listing(root)
        store = SnapshotStore(root)
        for name in [*(n for n, _ in made), *(f"{n}-2" for n, _ in made), *asked]:
            if listing.absent(name):
                assert not _found(store, name), name
        for name, actions in made:
            if "file" in actions[: len(candidate_names(name))]:
                assert not listing.absent(name)


def _golden(name: str) -> Snapshot:
    return Snapshot(
        name=name, trace=[{"type": "tool_call", "name": "f", "args": {}}], approved=True
    )


def test_a_listed_store_sees_a_golden_any_store_of_the_process_saved(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    session_store = SnapshotStore(root)
    session_store.listed = True
    assert session_store.load_listed("t-2") is None  # (no folder yet: listed as empty)
    SnapshotStore(root).save(_golden("t-2"))  # another store: a block, the fixture, the CLI
    found = session_store.load_listed("t-2")
    assert found is not None and found.name == "t-2"
    (root / "made-by-hand.json").write_text("{}")  # (not seen: only saves make it list again)
    assert session_store.load_listed("made-by-hand") is None
    assert SnapshotStore(root).load_listed("t-2") is not None  # not listed: looked up as before


def test_a_save_that_finds_its_file_unchanged_also_lists_again(tmp_path: Path) -> None:
    """A golden copied in after the listing, then saved unchanged by this process (nothing
    written): the listing is taken again all the same."""
    import shutil

    elsewhere = SnapshotStore(tmp_path / "elsewhere")
    made = elsewhere.save(_golden("t-2"))
    root = tmp_path / "snapshots"
    session_store = SnapshotStore(root)
    session_store.listed = True
    assert session_store.load_listed("t-2") is None
    root.mkdir()
    shutil.copy2(made, root / made.name)
    SnapshotStore(root).save(elsewhere.load("t-2"))  # type: ignore[arg-type]
    assert (root / made.name).read_bytes() == made.read_bytes()  # (found unchanged)
    assert session_store.load_listed("t-2") is not None


def test_an_unreadable_folder_is_looked_up_as_before(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    SnapshotStore(root).save(_golden("t-2"))
    with mock.patch("os.listdir", side_effect=PermissionError(13, "denied")):
        listing = Listing(root)
    assert not listing.absent("t-2") and not listing.absent("nothing-there")


@pytest.mark.parametrize(
    ("mode", "worker", "listed"),
    [
        ("replay", False, True),
        ("replay", True, False),
        ("record", False, False),
        ("live", False, False),
    ],
)
def test_only_a_replay_sessions_own_store_answers_from_a_listing(
    request: pytest.FixtureRequest, tmp_path: Path, mode: str, worker: bool, listed: bool
) -> None:
    from agentsnap._pytest.session import AgentsnapSession
    from agentsnap.config import Settings

    settings = Settings(ci=False, mode=mode, snapshot_dir=str(tmp_path))
    session = AgentsnapSession(request.config, settings)
    session.config = SimpleNamespace(workerinput={}) if worker else SimpleNamespace()  # type: ignore[assignment]
    assert session.store.listed is listed


@settings(max_examples=300, deadline=None)
@given(
    name=st.one_of(
        _NAMES, st.text(max_size=40), st.sampled_from(["\ud800", "a\udfffb", "日本語::テスト"])
    )
)
def test_property_a_names_hash_is_sha1s(name: str) -> None:
    """The interpreter's own SHA-1, as hashlib's (OpenSSL's) would give it: the hashed file
    names goldens already have (lone surrogates included)."""
    import hashlib

    from agentsnap.storage import naming

    want = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    assert naming._name_hash(name) == want
    assert naming.snapshot_filename(name).endswith(f"-{want}.json")


# --------------------------------------------------------------------------- written in place


def _run(second: int) -> Snapshot:
    at = f"2026-12-07T10:00:{second:02d}+00:00"
    return Snapshot(
        name="t",
        trace=[{"type": "tool_call", "name": "f", "args": {"q": 1}}],
        output="ok",
        created_at=at,
        updated_at=at,
        recorded_at=at,
        comparison={"mode": "replay", "score": 1.0},
    )


@pytest.mark.parametrize("writer", [False, True])
@pytest.mark.parametrize(
    "there", ["alike", "other run", "nothing", "no .gitignore", "link", "linked folder"]
)
def test_a_last_run_is_written_in_place_never_through_a_link(
    tmp_path: Path, there: str, writer: bool
) -> None:
    """The record written over a file that held the same run at another time (the only change),
    as a new file would hold it, the ``.gitignore`` there; a ``.last_run`` file, or folder, that
    is a link (to a file holding that same run: what the in-place write would take) is never
    written through: it raises at once without the session's writer, and with it the writer
    keeps the failure, naming the link, when it writes what it held."""
    from agentsnap.storage.last_run_writer import LastRunWriter
    from agentsnap.storage.store import _prepared_dict

    root = tmp_path / "snaps"
    store = SnapshotStore(root)
    store.writer = LastRunWriter() if writer else None
    last = store.save_last_run(_run(1) if there != "other run" else _snapshot_other(), later=True)
    assert last is not None
    if store.writer is not None:
        assert not last.exists()  # held until the writer flushes
        assert store.writer.close() == []
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if there == "nothing":
        last.unlink()
    elif there == "no .gitignore":
        (last.parent / ".gitignore").unlink()
    elif there == "link":
        last.rename(elsewhere / last.name)
        last.symlink_to(elsewhere / last.name)
    elif there == "linked folder":
        last.parent.rename(elsewhere / ".last_run")
        last.parent.symlink_to(elsewhere / ".last_run", target_is_directory=True)
    outside = {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()}
    if there in ("link", "linked folder"):
        if store.writer is None:
            with pytest.raises(SnapshotFormatError, match="symbolic link"):
                store.save_last_run(_run(2))
        else:
            assert store.save_last_run(_run(2), later=True) == last
            [(failed, why)] = store.writer.close()
            assert failed == str(last) and "symbolic link" in why
        assert {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()} == outside
        return
    assert store.save_last_run(_run(2), later=True) == last
    assert store.writer is None or store.writer.close() == []
    assert last.read_bytes() == bytes(compact_bytes(_prepared_dict(_run(2))))
    assert (last.parent / ".gitignore").is_file()


def test_the_writer_holds_last_runs_until_it_flushes_or_holds_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session's ``.last_run`` files are written when its writer flushes (the session's end), in
    the order they were made (the same test twice: the later run is the file), or as soon as the
    bytes held reach ``HOLD_BYTES``; the store's return value names the file either way."""
    from agentsnap.storage import last_run_writer
    from agentsnap.storage.store import _prepared_dict

    store = SnapshotStore(tmp_path / "snaps")
    store.writer = last_run_writer.LastRunWriter()
    first = store.save_last_run(_run(1), later=True)
    assert first is not None and store.save_last_run(_snapshot_other(), later=True) == first
    assert not first.exists()
    store.writer.flush()
    assert first.read_bytes() == bytes(compact_bytes(_prepared_dict(_snapshot_other())))
    size = len(compact_bytes(_prepared_dict(_run(3))))  # (as long as _run(4)'s)
    monkeypatch.setattr(last_run_writer, "HOLD_BYTES", 2 * size)
    assert store.save_last_run(_run(3), later=True) == first
    assert first.read_bytes() != bytes(compact_bytes(_prepared_dict(_run(3))))  # held: 1 file
    assert store.save_last_run(_run(4), later=True) == first  # 2 files held: written, in order
    assert first.read_bytes() == bytes(compact_bytes(_prepared_dict(_run(4))))
    # a run not passed (no ``later``) is written at once, after what is held: it is the file
    assert store.save_last_run(_run(5), later=True) == first
    assert store.save_last_run(_snapshot_other()) == first
    assert first.read_bytes() == bytes(compact_bytes(_prepared_dict(_snapshot_other())))
    assert store.writer.close() == []
    assert first.read_bytes() == bytes(compact_bytes(_prepared_dict(_snapshot_other())))


def _snapshot_other() -> Snapshot:
    other = _run(1)
    other.output = "another answer"
    return other
