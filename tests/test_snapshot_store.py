"""SnapshotStore: naming, deterministic bytes, atomic writes, no churn, corrupt files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from agentsnap import Snapshot, SnapshotFormatError, SnapshotStore
from agentsnap.storage.naming import snapshot_filename
from agentsnap.storage.snapshot import dumps


def _snap(name: str = "t::a", **kw) -> Snapshot:
    trace = kw.pop(
        "trace",
        [
            {
                "step": 0,
                "type": "llm_call",
                "model": "gpt-4o-mini",
                "response": "Grüße ✓ 日本",
                "messages": [{"role": "user", "content": "hi"}],
                "exchange": {
                    "request": {
                        "method": "POST",
                        "path": "/v1/chat/completions",
                        "body": {"model": "m"},
                    },
                    "response": {
                        "status": 200,
                        "headers": {"x-request-id": "req_1"},
                        "body": {"id": "chatcmpl-1", "created": 1, "choices": []},
                    },
                },
            },
        ],
    )
    return Snapshot(name=name, trace=trace, output=kw.pop("output", "out"), **kw)


def test_building_and_listing_an_absent_root_creates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "snaps"
    store = SnapshotStore(root)
    assert store.list() == []
    assert store.load("x") is None
    assert not store.exists("x")
    assert not root.exists()


def test_file_name_is_sanitised_hashed_and_inside_root(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    name = "tests/test_a.py::test_b[param/with:odd*chars]"
    path = store.path_for(name)
    assert path.parent == tmp_path
    assert (
        path.name
        == "tests_test_a.py__test_b_param_with_odd_chars-"
        + __import__("hashlib").sha1(name.encode()).hexdigest()[:8]
        + ".json"
    )
    assert re.fullmatch(r"[A-Za-z0-9._-]+", path.name)


@pytest.mark.parametrize(
    "name",
    ["../../etc/passwd", "..\\..\\x", "a/../../b", "\x00nul", "CON", "nul.txt", "." * 10, "", " "],
)
def test_hostile_names_stay_inside_root_and_are_windows_legal(tmp_path: Path, name: str) -> None:
    path = SnapshotStore(tmp_path).path_for(name)
    assert path.parent == tmp_path
    stem = path.name.split(".", 1)[0].split("-", 1)[0]
    assert stem.lower() not in {"con", "nul", "prn", "aux"}
    assert ".." not in path.name
    assert re.fullmatch(r"[A-Za-z0-9._-]+", path.name)


def test_names_that_sanitise_alike_do_not_collide() -> None:
    assert snapshot_filename("a/b") != snapshot_filename("a:b")
    assert snapshot_filename("x" * 300) != snapshot_filename("x" * 301)
    assert len(snapshot_filename("x" * 300)) <= 100 + len("-12345678.json")


def test_save_writes_deterministic_utf8_json_and_roundtrips(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "s")
    snap = _snap()
    path = store.save(snap)
    raw = path.read_bytes()
    assert raw.endswith(b"}\n") and b"\r\n" not in raw
    assert "Grüße ✓ 日本".encode() in raw  # literal, not \u escapes
    data = json.loads(raw)
    assert list(data) == sorted(data)
    assert raw.decode() == dumps(data)
    loaded = store.load("t::a")
    assert loaded is not None and loaded.to_dict() == snap.to_dict()


def test_unchanged_content_is_not_rewritten_even_with_new_volatile_fields(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    path = store.save(_snap())
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    again = _snap()
    again.trace[0]["exchange"]["response"]["headers"]["x-request-id"] = "req_2"
    again.trace[0]["exchange"]["response"]["body"]["id"] = "chatcmpl-other"
    again.trace[0]["exchange"]["response"]["body"]["created"] = 99
    again.recorded_at = "2030-01-01T00:00:00+00:00"
    store.save(again)
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == mtime


def test_real_change_rewrites_and_keeps_created_at(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    first = _snap(created_at="2020-01-01T00:00:00+00:00")
    path = store.save(first)
    store.save(_snap(output="different"))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["output"] == "different"
    assert data["created_at"] == "2020-01-01T00:00:00+00:00"


def test_a_last_run_of_the_same_run_is_written_over_in_place_and_another_one_anew(
    tmp_path: Path,
) -> None:
    """The ``.last_run`` of a test that did what it did last time (its time aside) is written
    over in place (one file, no temp file and rename); a run that did something else is written
    atomically, as a new file. Either way the file reads back as the run just saved."""
    store = SnapshotStore(tmp_path)

    def run(when: str, output: str = "Sunny") -> Snapshot:
        return _snap(created_at=when, updated_at=when, recorded_at=when, output=output)

    path = store.save_last_run(run("2026-12-07T08:23:33+00:00"))
    assert path is not None
    first = path.stat().st_ino
    assert store.save_last_run(run("2026-12-07T08:25:14+00:00")) == path
    assert path.stat().st_ino == first
    again = store.load_last_run("t::a")
    assert again is not None and again.created_at == "2026-12-07T08:25:14+00:00"
    assert again.recorded_at == again.updated_at == again.created_at
    assert store.save_last_run(run("2026-12-07T08:26:01+00:00", output="Rainy")) == path
    assert path.stat().st_ino != first
    changed = store.load_last_run("t::a")
    assert changed is not None and changed.output == "Rainy"
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([".gitignore", path.name])


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    for i in range(5):
        store.save(_snap(output=f"o{i}"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [store.path_for("t::a").name]


@pytest.mark.parametrize(
    "content, fragment",
    [
        ('{"trace": [', "corrupt snapshot file"),
        (
            '<<<<<<< HEAD\n{"trace": []}\n=======\n{"trace": []}\n>>>>>>> x\n',
            "merge-conflict markers",
        ),
        ('{"version": "9.9", "trace": []}', "format version '9.9'"),
        (
            '{\r<<<<<<< HEAD\r"trace": []\r=======\r"trace": [1]\r>>>>>>> x\r}\r',
            "merge-conflict markers",
        ),
        ("[1, 2]", "is not an agentsnap snapshot"),
        (
            '{"version": "2.0", "name": "someone else", "trace": []}',
            "holds snapshot 'someone else', not 't::a'",
        ),
    ],
)
def test_broken_files_fail_naming_the_path_and_are_never_overwritten(
    tmp_path: Path, content: str, fragment: str
) -> None:
    store = SnapshotStore(tmp_path)
    path = store.path_for("t::a")
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SnapshotFormatError) as err:
        store.load("t::a")
    assert str(path) in str(err.value) and fragment in str(err.value)
    assert isinstance(err.value, ValueError)
    if "name" not in content:  # an unparseable or foreign file: save refuses too
        with pytest.raises(SnapshotFormatError):
            store.save(_snap())
        assert path.read_bytes() == content.encode("utf-8")


def test_a_conflict_marker_inside_a_string_is_data(tmp_path: Path) -> None:
    # markers are looked for only in a file that does not parse; inside a JSON string a line
    # break is escaped, so the text below is a value, never a conflict
    store = SnapshotStore(tmp_path)
    text = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\r<<<<<<< again"
    path = store.save(_snap(output=text))
    assert b"<<<<<<< " in path.read_bytes()
    loaded = store.load("t::a")
    assert loaded is not None and loaded.output == text


def test_list_skips_corrupt_files_with_a_warning_and_sorts_by_name(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    store.save(_snap("b"))
    store.save(_snap("a", approved=True))
    (tmp_path / "broken-00000000.json").write_text("{", encoding="utf-8")
    with pytest.warns(UserWarning, match="broken-00000000.json"):
        names = [s.name for s in store.list()]
    assert names == ["a", "b"]
    with pytest.warns(UserWarning):
        assert [s.name for s in store.pending()] == ["b"]


def test_names_reads_one_file_at_a_time_and_skips_corrupt_ones_as_list_does(
    tmp_path: Path,
) -> None:
    store = SnapshotStore(tmp_path)
    store.save(_snap("b"))
    store.save(_snap("a", approved=True))
    (tmp_path / "broken-00000000.json").write_text("{", encoding="utf-8")
    # a byte order mark (a Windows editor's) is read as if absent: that file is a snapshot
    (tmp_path / "bom-00000000.json").write_bytes(b"\xef\xbb\xbf" + b'{"name": "c", "trace": []}')
    (tmp_path / "latin1-00000000.json").write_bytes(b'{"name": "caf\xe9", "trace": []}')
    with pytest.warns(UserWarning) as caught:
        names = store.names()
        found = [next(names)]  # a generator: each file is read when its name is asked for
        found += list(names)
    assert sorted(found) == ["a", "b", "c"]
    said = "\n".join(str(w.message) for w in caught)
    assert "bom-00000000.json" not in said
    for broken in ("broken-00000000.json", "latin1-00000000.json"):
        assert broken in said, said
    assert "not UTF-8" in said


def test_names_except_loaded_leaves_out_the_goldens_this_store_read_unchanged(
    tmp_path: Path,
) -> None:
    store = SnapshotStore(tmp_path)
    store.save(_snap("a"))
    b = store.save(_snap("b"))
    assert store.load("a") is not None and store.load("b") is not None
    assert sorted(store.names()) == ["a", "b"]
    assert list(store.names(except_loaded=True)) == []
    # a golden changed since it was read is read again
    b.write_text(b.read_text(encoding="utf-8").replace('"approved": false', '"approved": true'))
    os.utime(b, ns=(1, 1))
    assert list(store.names(except_loaded=True)) == ["b"]


def test_approve_and_delete(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    store.save(_snap())
    assert store.approve("t::a").approved is True
    assert store.load("t::a").approved is True  # type: ignore[union-attr]
    with pytest.raises(KeyError):
        store.approve("missing")
    store.delete("t::a")
    store.delete("t::a")  # no error when absent
    assert not store.exists("t::a")


def test_last_run_folder_is_gitignored(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    path = store.save_last_run(_snap())
    assert path.parent == tmp_path / ".last_run"
    assert (tmp_path / ".last_run" / ".gitignore").read_text(encoding="utf-8").splitlines()[
        -1
    ] == "*"
    assert store.load_last_run("t::a").output == "out"  # type: ignore[union-attr]
    assert store.list() == []  # .last_run is not a snapshot


def test_reads_agentsnap_051_files(tmp_path: Path) -> None:
    legacy = {
        "version": "1.1",
        "model": "claude-haiku-4-5",
        "recorded_at": "2026-01-01T00:00:00+00:00",
        "input": {"query": "What is Python?"},
        "trace": [
            {
                "step": 0,
                "type": "tool_call",
                "name": "search",
                "args": {"query": "Python"},
                "result": "r",
            }
        ],
        "output": "Python is a language",
    }
    path = tmp_path / "my_agent.json"
    path.write_text(json.dumps(legacy), encoding="utf-8")
    snap = SnapshotStore.read_file(path, expected_name="my_agent")
    assert (snap.name, snap.model, snap.approved, snap.output) == (
        "my_agent",
        "claude-haiku-4-5",
        True,
        "Python is a language",
    )
    assert snap.tool_calls[0]["args"] == {"query": "Python"}
    assert os.path.basename(path) == "my_agent.json"


def test_load_by_name_finds_an_agentsnap_051_golden(tmp_path: Path) -> None:
    legacy = {"version": "1.1", "model": "m", "trace": [], "output": "o"}
    (tmp_path / "my_agent.json").write_text(json.dumps(legacy), encoding="utf-8")
    snap = SnapshotStore(tmp_path).load("my_agent")
    assert snap is not None and (snap.name, snap.output, snap.approved) == ("my_agent", "o", True)
    assert SnapshotStore(tmp_path).load("../my_agent") is None


def _llm_step(messages_key: str = "messages") -> dict:
    conversation = [{"role": "user", "content": "Weather in Paris?"}]
    return {
        "step": 0,
        "type": "llm_call",
        "provider": "openai",
        "model": "m",
        "messages": conversation,
        "response": "Sunny",
        "tool_requests": [],
        "exchange": {
            "request": {
                "method": "POST",
                "path": "/v1/chat/completions",
                "body": {"model": "m", messages_key: conversation},
            },
            "response": {"status": 200, "headers": {}, "body": {"ok": True}},
        },
    }


@pytest.mark.parametrize("key", ["messages", "contents", "input"])
def test_every_llm_call_step_is_written_with_its_messages(tmp_path: Path, key: str) -> None:
    # agentsnap 0.5.1 documents `messages`, `response` and `tokens` on every llm_call step:
    # a script reading the JSON finds them
    store = SnapshotStore(tmp_path)
    path = store.save(Snapshot(name="n", trace=[_llm_step(key)]))
    (stored,) = json.loads(path.read_text(encoding="utf-8"))["trace"]
    assert stored["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
    assert stored["response"] == "Sunny"
    assert "messages_from" not in stored


@pytest.mark.parametrize("key", ["messages", "contents", "input"])
def test_a_file_with_messages_from_loads_and_an_equal_save_keeps_it(
    tmp_path: Path, key: str
) -> None:
    from agentsnap.storage.snapshot import dumps

    store = SnapshotStore(tmp_path)
    data = Snapshot(name="n", trace=[_llm_step(key)], approved=True).to_dict()
    (step,) = data["trace"]
    del step["messages"]
    step["messages_from"] = (
        f"exchange.request.body.{key}"  # the form earlier 1.0 dev releases wrote
    )
    path = store.path_for("n")
    path.write_text(dumps(data), encoding="utf-8")
    before = path.read_bytes()
    (loaded,) = store.load("n").trace  # type: ignore[union-attr]
    assert loaded["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
    assert "messages_from" not in loaded
    loaded["messages"].append(
        {"role": "user", "content": "more"}
    )  # a copy: the exchange is untouched
    assert loaded["exchange"]["request"]["body"][key] == [
        {"role": "user", "content": "Weather in Paris?"}
    ]
    store.save(Snapshot(name="n", trace=[_llm_step(key)], approved=True))
    assert path.read_bytes() == before  # same content: the file is not churned


def test_a_file_with_both_copies_still_loads_and_is_not_rewritten(tmp_path: Path) -> None:
    from agentsnap.storage.snapshot import dumps

    store = SnapshotStore(tmp_path)
    snap = Snapshot(name="n", trace=[_llm_step()], approved=True)
    path = store.path_for("n")
    path.write_text(dumps(snap.to_dict()), encoding="utf-8")  # the format before: messages twice
    before = path.read_bytes()
    assert store.load("n").trace[0]["messages"] == [
        {"role": "user", "content": "Weather in Paris?"}
    ]  # type: ignore[union-attr]
    store.save(Snapshot(name="n", trace=[_llm_step()], approved=True))
    assert path.read_bytes() == before  # same content: an old file is not churned


def test_messages_that_differ_from_the_request_body_stay(tmp_path: Path) -> None:
    step = _llm_step()
    step["messages"] = [{"role": "user", "content": "normalised differently"}]
    path = SnapshotStore(tmp_path).save(Snapshot(name="n", trace=[step]))
    (stored,) = json.loads(path.read_text(encoding="utf-8"))["trace"]
    assert (
        stored["messages"] == [{"role": "user", "content": "normalised differently"}]
        and "messages_from" not in stored
    )


def test_a_snapshot_reads_the_clock_only_for_an_empty_timestamp(monkeypatch) -> None:
    """``__post_init__`` fills each empty timestamp with one clock read, and reads no clock when
    all three are given (a loaded golden): the same fields either way."""
    from agentsnap.storage import snapshot as snapshot_module

    reads: list[str] = []

    def clock() -> str:
        reads.append("now")
        return "2026-01-02T03:04:05+00:00"

    monkeypatch.setattr(snapshot_module, "_now", clock)
    given = {"created_at": "a", "updated_at": "b", "recorded_at": "c"}
    full = Snapshot(name="n", **given)
    assert (full.created_at, full.updated_at, full.recorded_at) == ("a", "b", "c") and reads == []
    partly = Snapshot(name="n", **{**given, "updated_at": ""})
    assert (partly.created_at, partly.updated_at, partly.recorded_at) == (
        "a",
        "2026-01-02T03:04:05+00:00",
        "c",
    )
    fresh = Snapshot(name="n")
    assert {fresh.created_at, fresh.updated_at, fresh.recorded_at} == {"2026-01-02T03:04:05+00:00"}
    assert reads == ["now", "now"]


# -- a small golden read by one open (atomic.read_small) -------------------------------------


def test_a_small_golden_loads_by_one_open_as_the_whole_read_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``load`` of a golden under LAZY_FROM bytes: no ``Path.read_bytes`` and no ``stat`` of its
    own (the size and the stamp come from the open file's ``fstat``); the same snapshot as
    ``read_file`` reads, and the stamp (mtime_ns, size) the file has."""
    path = SnapshotStore(tmp_path).save(_snap())
    expected = SnapshotStore.read_file(path, expected_name="t::a")
    info = os.stat(path)
    store = SnapshotStore(tmp_path)

    def refused(*_a: object, **_k: object) -> bytes:
        raise AssertionError("read through Path.read_bytes")

    stats: list[object] = []
    real_stat = os.stat
    monkeypatch.setattr(Path, "read_bytes", refused)
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: stats.append(p) or real_stat(p, *a, **k))
    loaded = store.load("t::a")
    assert loaded is not None and loaded.to_dict() == expected.to_dict()
    assert stats == []
    assert store.known[path] == (info.st_mtime_ns, info.st_size)


def test_a_corrupt_small_golden_raises_as_before(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    path = store.save(_snap())
    path.write_bytes(b'{"trace": [1, 2')
    with pytest.raises(
        SnapshotFormatError, match=f"corrupt snapshot file at {re.escape(str(path))}"
    ):
        SnapshotStore(tmp_path).load("t::a")


def test_read_small_reads_only_a_small_regular_file_whole(tmp_path: Path) -> None:
    from agentsnap.storage.atomic import read_small

    file = tmp_path / "f.json"
    file.write_bytes(b"x" * 100)
    info = os.stat(file)
    assert read_small(file, 101) == (b"x" * 100, (info.st_mtime_ns, 100))
    assert read_small(file, 100) is None  # not below: the caller's own (large) read
    assert read_small(tmp_path, 1 << 20) is None  # a folder
    assert read_small(tmp_path / "missing.json", 1 << 20) is None  # the caller's read raises
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    assert read_small(empty, 1) == (b"", (os.stat(empty).st_mtime_ns, 0))


def test_read_small_refuses_a_file_whose_size_changed_while_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentsnap.storage import atomic

    file = tmp_path / "f.json"
    file.write_bytes(b"x" * 100)
    real_read = os.read
    grown = []

    def read(fd: int, n: int) -> bytes:
        if not grown:  # another process appends between the fstat and the read
            grown.append(True)
            with open(file, "ab") as out:
                out.write(b"y" * 10)
        return real_read(fd, n)

    monkeypatch.setattr(atomic.os, "read", read)
    assert atomic.read_small(file, 1 << 20) is None
