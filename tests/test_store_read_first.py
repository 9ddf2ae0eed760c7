"""``SnapshotStore.load`` finds and reads a small golden by one ``open`` of each of the name's
candidate files (:func:`agentsnap.storage.atomic.read_first`) instead of an ``lstat`` of each
(``locate``) and then an ``open`` (``read_small``); anything it cannot answer (a link, a folder,
a FIFO, a large file, an error) is looked at as before. Whatever the folder holds, a load gives
what the way before gives: the snapshot or the error, the file ``located`` names, the stamps."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.exceptions import SnapshotFormatError
from agentsnap.storage import atomic, lazy_steps
from agentsnap.storage.snapshot import Snapshot
from agentsnap.storage.store import SnapshotStore

#: what a step makes of one of the name's candidate files (hashed, plain)
_ACTIONS = ("golden", "broken", "absent", "folder", "link", "dangling link", "fifo")
_NAMES = ("weather", "tests/test_a.py::test_weather[paris]")


def _golden_bytes(name: str) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = SnapshotStore(folder).save(
            Snapshot(name=name, trace=[{"step": 0, "type": "llm_call", "response": "sunny"}])
        )
        return path.read_bytes()


_GOLDENS = {name: _golden_bytes(name) for name in _NAMES}


def _make(path: Path, action: str, golden: bytes, elsewhere: Path) -> None:
    if path.is_symlink() or path.is_file() or path.is_fifo():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    if action == "golden":
        path.write_bytes(golden)
    elif action == "broken":
        path.write_bytes(b'{"trace": [1, 2')
    elif action == "folder":
        path.mkdir()
    elif action == "link":
        os.symlink(elsewhere, path)  # (to a readable golden: still refused)
    elif action == "dangling link":
        os.symlink(elsewhere.parent / "gone.json", path)
    elif action == "fifo":
        os.mkfifo(path)


def _outcome(store: SnapshotStore, name: str) -> tuple[object, ...]:
    """What one load gives and leaves: the snapshot or the error, the warnings, ``located``,
    the stamps ``known``, and what ``locate`` answers afterwards."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            loaded: object = store.load(name)
        except SnapshotFormatError as exc:
            loaded = ("raised", str(exc))
    if isinstance(loaded, Snapshot):
        loaded = loaded.to_dict()
    located = store.located(name)
    try:
        again: object = store.locate(name)
    except SnapshotFormatError as exc:
        again = ("raised", str(exc))
    return loaded, [str(w.message) for w in said], located, dict(store.known), again


def _before(store: SnapshotStore, name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, ...]:
    """:func:`_outcome` the way before: ``read_first`` never answers (``locate``, ``read_small``)."""
    with monkeypatch.context() as patch:
        patch.setattr(atomic, "_FIRST_FLAGS", None)
        return _outcome(store, name)


@pytest.mark.skipif(not hasattr(os, "mkfifo") or atomic._FIRST_FLAGS is None, reason="POSIX")
@pytest.mark.parametrize("name", _NAMES)
@pytest.mark.parametrize("force", [False, True])
@given(steps=st.lists(st.tuples(st.sampled_from([0, 1]), st.sampled_from(_ACTIONS)), max_size=10))
@settings(max_examples=60, deadline=None)
def test_a_load_gives_what_locate_and_read_small_give(
    name: str, force: bool, steps: list[tuple[int, str]]
) -> None:
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as monkeypatch:
        root = Path(folder) / "snapshots"
        root.mkdir()
        elsewhere = Path(folder) / "elsewhere.json"
        elsewhere.write_bytes(_GOLDENS[name])
        kept = SnapshotStore(root, force=force)  # (lives through the changes, as a session's)
        candidates = kept.candidates(name)
        for which, action in steps:
            if which >= len(candidates):
                continue  # a name with one form only
            _make(candidates[which], action, _GOLDENS[name], elsewhere)
            fresh = _outcome(SnapshotStore(root, force=force), name)
            assert fresh == _before(SnapshotStore(root, force=force), name, monkeypatch)
            assert _outcome(kept, name)[:3] == fresh[:3], (which, action)


def test_read_first_reads_the_first_file_there(tmp_path: Path) -> None:
    hashed, plain = tmp_path / "a-12345678.json", tmp_path / "a.json"
    plain.write_bytes(b"{}")
    info = os.stat(plain)
    paths = [str(hashed), str(plain)]
    assert atomic.read_first(paths, 3) == (1, b"{}", (info.st_mtime_ns, 2))
    assert atomic.read_first(paths, 2) is None  # not below: the large read, as before
    hashed.write_bytes(b"[1]")
    info = os.stat(hashed)
    assert atomic.read_first(paths, 100) == (0, b"[1]", (info.st_mtime_ns, 3))
    hashed.unlink()
    plain.unlink()
    assert atomic.read_first(paths, 100) == (2, b"", (0, 0))  # none there
    assert atomic.read_first([str(tmp_path / "no folder" / "a.json")], 100) == (1, b"", (0, 0))


@pytest.mark.skipif(not hasattr(os, "mkfifo") or atomic._FIRST_FLAGS is None, reason="POSIX")
def test_read_first_never_opens_a_link_nor_waits_on_a_fifo(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(b"{}")
    link, fifo = tmp_path / "link.json", tmp_path / "fifo.json"
    os.symlink(target, link)
    os.mkfifo(fifo)
    assert atomic.read_first([str(link), str(target)], 100) is None
    answers: list[object] = []
    reader = threading.Thread(target=lambda: answers.append(atomic.read_first([str(fifo)], 100)))
    reader.start()
    reader.join(5)
    if reader.is_alive():  # (a writer end frees a blocked open: the test does not hang)
        with open(fifo, "wb"):
            pass
        reader.join()
        pytest.fail("read_first waited on a FIFO")
    assert answers == [None]
    assert atomic.read_first([str(tmp_path)], 100) is None  # a folder


@pytest.mark.skipif(atomic._FIRST_FLAGS is None, reason="POSIX")
def test_a_small_golden_loads_without_an_lstat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The found file's ``lstat`` is its ``open`` (and the one before it, absent, is opened
    too): a golden under its plain name and one under its hashed name load with no ``lstat``."""
    plain = SnapshotStore(tmp_path).save(Snapshot(name="weather", trace=[]))
    hashed = SnapshotStore(tmp_path).save(Snapshot(name="t::a", trace=[]))
    assert plain.name == "weather.json" and hashed.name != "t__a.json"
    store = SnapshotStore(tmp_path)

    def refused(*_a: object, **_k: object) -> None:
        raise AssertionError("lstat")

    with monkeypatch.context() as patch:
        patch.setattr(os, "lstat", refused)
        weather, t_a = store.load("weather"), store.load("t::a")
    assert weather is not None and weather.name == "weather"
    assert t_a is not None and t_a.name == "t::a"
    assert store.located("weather") == plain and store.located("t::a") == hashed
    assert store.locate("weather") == plain  # (found again: the hashed form still absent)
    assert set(store.known) == {plain, hashed}


def test_a_large_golden_is_read_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = SnapshotStore(tmp_path).save(
        Snapshot(name="t::a", trace=[{"step": 0, "type": "llm_call"}])
    )
    expected = SnapshotStore.read_file(path, expected_name="t::a").to_dict()
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)  # (every golden large: read_first declines)
    store = SnapshotStore(tmp_path)
    loaded = store.load("t::a")
    assert loaded is not None and loaded.to_dict() == expected
    assert store.located("t::a") == path and path in store.known
