"""``SnapshotStore.locate`` remembers what it found; a store that lives through file changes
answers as a fresh store would (the pytest session's store lives for the whole run)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.exceptions import SnapshotFormatError
from agentsnap.storage.snapshot import Snapshot
from agentsnap.storage.store import SnapshotStore

#: what one step does to one of the name's two candidate files (hashed, plain)
_ACTIONS = ("file", "absent", "folder", "link", "dangling link")


def _make(path: Path, action: str, elsewhere: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    if action == "file":
        path.write_text("{}")
    elif action == "folder":
        path.mkdir()
    elif action == "link":
        os.symlink(elsewhere, path)
    elif action == "dangling link":
        os.symlink(elsewhere.parent / "gone.json", path)


def _answer(store: SnapshotStore, name: str) -> object:
    try:
        return store.locate(name)
    except SnapshotFormatError:
        return SnapshotFormatError


@pytest.mark.parametrize("name", ["weather", "tests/test_a.py::test_weather[paris]"])
@given(steps=st.lists(st.tuples(st.sampled_from([0, 1]), st.sampled_from(_ACTIONS)), max_size=12))
@settings(max_examples=60, deadline=None)
def test_a_long_lived_store_locates_as_a_fresh_one(name: str, steps: list[tuple[int, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "snapshots"
        root.mkdir()
        elsewhere = Path(folder) / "elsewhere.json"
        elsewhere.write_text("{}")
        kept = SnapshotStore(root)
        candidates = kept.candidates(name)
        for which, action in steps:
            if which >= len(candidates):
                continue  # a name with one form only
            _make(candidates[which], action, elsewhere)
            assert _answer(kept, name) == _answer(SnapshotStore(root), name), (which, action)
            assert _answer(kept, name) == _answer(SnapshotStore(root), name)  # and asked twice


def test_a_golden_found_again_is_the_same_file(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    hashed, plain = store.candidates("weather")
    plain.write_text("{}")
    assert store.locate("weather") == plain
    assert store.locate("weather") == plain
    hashed.write_text("{}")  # the hashed form wins once it is there
    assert store.locate("weather") == hashed
    hashed.unlink()
    assert store.locate("weather") == plain
    plain.unlink()
    assert store.locate("weather") is None


def test_located_names_the_file_locate_found_without_looking_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = SnapshotStore(tmp_path).save(Snapshot(name="t::a", trace=[]))
    store = SnapshotStore(tmp_path)
    assert store.located("t::a") is None  # nothing located yet
    store.load("t::a")

    def refused(*_a: object, **_k: object) -> None:
        raise AssertionError("looked at the file again")

    monkeypatch.setattr(os, "lstat", refused)
    assert store.located("t::a") == path
    assert store.located("t::b") is None
