"""A large golden's steps kept as text (issue 30, row 11: memory): ``storage/lazy_steps.py``.

* read a step at a time, a golden loads the values the whole read gives (every recorded golden
  of this repository, read both ways), and a wrong value is still named by file and JSON path;
* replayed from its steps as text, a run serves the same bytes, passes, and writes the same
  ``.last_run`` as the whole read's replay, without its golden's ``trace`` (or the run's) ever
  decoded whole.

The row's memory is measured by ``bench/memory.py`` (not here: timings and RSS are no test).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap._pytest import golden_run
from agentsnap.exceptions import SnapshotFormatError
from agentsnap.storage import lazy_steps
from agentsnap.storage.snapshot import Snapshot
from agentsnap.storage.store import SnapshotStore
from agentsnap.storage.wire import ServedExchange
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.test_plugin_modes import (  # noqa: F401 - _warm_imports: the autouse fixture
    NODE,
    SNAP_DIR,
    Project,
    _warm_imports,
    summary,
)

openai = pytest.importorskip("openai")

from tests import fake_provider as fp

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = sorted(
    p
    for folder in ("snapshots", "tests", "examples")
    for p in (ROOT / folder).rglob("*.json")
    if ".last_run" not in p.parts and p.stat().st_size > 200
)


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> Iterator[None]:
    yield


@pytest.fixture
def every_file_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every golden read a step at a time (a test's files are far below the size that is)."""
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)


def _whole(path: Path) -> Snapshot:
    return Snapshot.from_dict(SnapshotStore.read_document(path)[1])


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: p.name[:60])
def test_a_golden_read_a_step_at_a_time_holds_the_values_of_the_whole_read(
    path: Path, every_file_lazy: None
) -> None:
    try:
        whole = _whole(path)
    except SnapshotFormatError:
        pytest.skip("not a snapshot file (refused by the whole read)")
    lazy = SnapshotStore.read_file(path)
    if not isinstance(lazy, lazy_steps.LazySnapshot):  # (0.5.1, toolscore, old forms)
        assert lazy.to_dict() == whole.to_dict()
        return
    raw = lazy_steps.raw_steps(lazy)
    assert raw is not None and len(raw) == len(whole.trace)
    assert [raw.step(i) for i in range(len(raw))] == whole.trace  # one at a time
    assert lazy.to_dict_with([]) == whole.to_dict_with([])  # nothing decoded for it
    assert lazy_steps.raw_steps(lazy) is raw
    assert lazy.to_dict() == whole.to_dict()  # read whole: the same values, key order too
    assert [list(s) for s in lazy.trace] == [list(s) for s in whole.trace]
    assert lazy_steps.raw_steps(lazy) is None  # read once: the list is what counts from then on
    assert lazy.trace_digest == whole.trace_digest


def _golden(tmp_path: Path, questions: list[str]) -> Path:
    with fp.FakeOpenAI() as fake:
        fake.script(*(fp.text_reply(f"Sunny, {20 + i} °C.") for i in range(len(questions))))
        with AgentRecorder("lazy::row", snapshot_dir=tmp_path):
            _raw_agent(fake, questions)
    (path,) = tmp_path.glob("*.json")
    return path


def test_a_wrong_value_in_a_step_is_named_by_file_and_json_path(
    tmp_path: Path, every_file_lazy: None
) -> None:
    path = _golden(tmp_path, ["Weather in Paris?", "And tomorrow?", "In Fahrenheit?"])
    data = json.loads(path.read_text(encoding="utf-8"))
    data["trace"][1]["exchange"]["response"]["status"] = "200"
    path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    with pytest.raises(SnapshotFormatError) as err:
        SnapshotStore(tmp_path).load("lazy::row")
    assert str(path) in str(err.value)
    assert "$.trace[1].exchange.response.status" in str(err.value)
    data["trace"][2] = ["not", "a", "step"]
    path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    with pytest.raises(SnapshotFormatError, match=r"trace\[2\] is not an object"):
        SnapshotStore(tmp_path).load("lazy::row")


def _raw_agent(fake: fp.FakeOpenAI, questions: list[str]) -> list[bytes]:
    """``tests._support.chat_agent``, each response's body bytes as the SDK read them."""
    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    bodies: list[bytes] = []
    messages: list[dict[str, str]] = []
    for question in questions:
        messages.append({"role": "user", "content": question})
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=list(messages)
        )
        bodies.append(raw.http_response.content)
        messages.append({"role": "assistant", "content": raw.parse().choices[0].message.content})
    return bodies


def _replay(tmp_path: Path, questions: list[str]) -> tuple[list[bytes], AgentAsserter, bytes]:
    """The bodies served, the block, and the ``.last_run`` written (its timestamps blanked)."""
    with fp.FakeOpenAI() as fake:
        with AgentAsserter("lazy::row", snapshot_dir=tmp_path, mode="replay") as block:
            served = _raw_agent(fake, questions)
        assert not fake.requests  # replay sent nothing
    (last,) = (tmp_path / ".last_run").glob("*.json")
    run = json.loads(last.read_bytes())
    for key in ("created_at", "updated_at", "recorded_at"):
        run[key] = ""
    return served, block, json.dumps(run, sort_keys=True).encode()


def test_a_replay_from_steps_as_text_serves_and_records_what_the_whole_read_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = [f"Weather in city {i}?" for i in range(6)]
    _golden(tmp_path, questions)
    served, whole_block, whole_run = _replay(tmp_path, questions)
    assert whole_block.outcome is not None and whole_block.outcome.action == "passed"
    assert not isinstance(whole_block.outcome.golden, lazy_steps.LazySnapshot)

    held: list[object] = []
    real = ServedExchange.hold_by_reference.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        ServedExchange,
        "hold_by_reference",
        classmethod(lambda cls, ex, source: held.append(ex) or real(cls, ex, source)),
    )
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)
    served_lazy, block, run = _replay(tmp_path, questions)
    outcome = block.outcome
    assert outcome is not None and outcome.action == "passed"
    assert isinstance(outcome.golden, lazy_steps.LazySnapshot)
    # served by reference to the golden's steps: the run's exchanges hold no parsed copy
    assert len(held) == len(questions) and all(type(ex) is ServedExchange for ex in held)
    assert served_lazy == served
    assert run == whole_run


def test_a_changed_request_against_steps_as_text_fails_as_against_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _golden(tmp_path, ["Weather in Paris?", "And tomorrow?"])
    failed: list[str] = []
    for lazy_from in (1 << 60, 0):
        monkeypatch.setattr(lazy_steps, "LAZY_FROM", lazy_from)
        with fp.FakeOpenAI() as fake:
            with pytest.raises(AssertionError) as err:
                with AgentAsserter("lazy::row", snapshot_dir=tmp_path, mode="replay"):
                    _raw_agent(fake, ["Weather in Rome?", "And tomorrow?"])
        failed.append(str(err.value).replace(str(tmp_path), "<tmp>"))
    assert failed[0] == failed[1]
    assert "llm_requests" in failed[0]


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


def _last_run(project: Project) -> dict[str, object]:
    store = SnapshotStore(project.root / SNAP_DIR)
    found: dict[str, object] = json.loads(store.last_run_path(NODE).read_bytes())
    for key in ("created_at", "updated_at", "recorded_at"):
        found.pop(key)
    return found


BUDGETS = "[tool.agentsnap]\nbudgets = { max_latency_growth = 0.0, max_cost_growth = 0.1 }\n"


def test_a_pytest_replay_from_steps_as_text_is_its_golden_again_never_decoded_whole(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project.root / "pyproject.toml").write_text(BUDGETS, encoding="utf-8")
    project.record_golden()
    whole = project.run("--agentsnap-replay", "--agentsnap-budgets")
    assert whole.ret == 0, whole.stdout.str()
    whole_last = _last_run(project)
    whole_lines = summary(whole) + [ln for ln in whole.outlines if "agentsnap budgets" in ln]

    again: list[object] = []
    decoded: list[object] = []
    real_again, real_decode = golden_run._again_by_step, lazy_steps._Held.decode_all

    def spy_again(*args: Any) -> object:
        found = real_again(*args)
        again.append(found)
        return found

    def spy_decode(held: Any) -> Any:
        decoded.append(held)
        return real_decode(held)

    made: list[object] = []
    real_compared = lazy_steps.compared

    def spy_compared(steps: Any, *args: Any) -> Any:
        made.append(steps)
        return real_compared(steps, *args)

    monkeypatch.setattr(golden_run, "_again_by_step", spy_again)
    monkeypatch.setattr(lazy_steps._Held, "decode_all", spy_decode)
    monkeypatch.setattr(lazy_steps, "compared", spy_compared)
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)
    lazy = project.run("--agentsnap-replay", "--agentsnap-budgets")
    assert lazy.ret == 0, lazy.stdout.str()
    assert len(again) == 1 and isinstance(again[0], golden_run.LazyGoldenAgain)
    # the run's steps made once, by the comparison: the budget row is handed the same list
    # (Outcome.run_steps)
    assert len(made) == 1
    # the proof, the comparison, the budget row and the .last_run read the steps one at a time
    assert decoded == []
    assert _last_run(project) == whole_last  # the same comparison, the same record
    assert summary(lazy) + [ln for ln in lazy.outlines if "agentsnap budgets" in ln] == whole_lines
    assert project.server_requests() == {NODE: 0}  # replay sent nothing


def test_a_failing_comparison_of_its_golden_again_reports_as_the_whole_read(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run proven its golden's whose comparison fails (a budget's ceiling under the golden's
    calls): the golden side is the run's steps (replay, agentsnap's checks alone), and the
    verdict, report lines and ``.last_run`` are the whole read's."""
    project.record_golden()
    (project.root / "pyproject.toml").write_text(
        "[tool.agentsnap]\nbudgets = { max_llm_calls = 0, max_latency_growth = 0.0 }\n",
        encoding="utf-8",
    )
    whole = project.run("--agentsnap-replay", "--agentsnap-budgets")
    assert whole.ret != 0, whole.stdout.str()
    whole_last = _last_run(project)
    assert whole_last["comparison"]["failed_checks"] == ["budgets"]  # type: ignore[index]
    assert "max_llm_calls" in whole.stdout.str()
    whole_lines = [ln for ln in whole.outlines if "agentsnap" in ln or "budgets" in ln]

    sides: list[bool] = []
    real_compared = lazy_steps.compared

    def spy_compared(steps: Any, *args: Any) -> Any:
        golden, run = real_compared(steps, *args)
        sides.append(golden is run)
        return golden, run

    monkeypatch.setattr(lazy_steps, "compared", spy_compared)
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)
    lazy = project.run("--agentsnap-replay", "--agentsnap-budgets")
    assert lazy.ret == whole.ret
    assert sides == [True]
    assert _last_run(project) == whole_last
    assert [ln for ln in lazy.outlines if "agentsnap" in ln or "budgets" in ln] == whole_lines


def _read_both(path: Path) -> tuple[Any, Any]:
    """The file read by the step-by-step reader of agentsnap's layout (or ``_UNSURE``) and whole."""
    with path.open("rb") as file:
        pieces = lazy_steps._read_pieces(file, None)
    return pieces, _whole(path)


def _layouts(data: dict[str, Any]) -> dict[str, bytes]:
    """The golden ``data`` in layouts a hand or another tool may leave (each a valid golden)."""
    two = json.dumps(data, indent=2, sort_keys=True)
    step = two[two.index("\n    {\n") + 1 : two.index("\n    }") + 6]
    return {
        "crlf": two.replace("\n", "\r\n").encode(),
        "indent 4": json.dumps(data, indent=4, sort_keys=True).encode(),
        "compact": json.dumps(data, sort_keys=True).encode(),
        "trace first": json.dumps({"trace": data["trace"], **data}, indent=2).encode(),
        "a step re-indented": two.replace(
            '\n    },\n    {\n      "exchange"', '\n    }, {\n      "exchange"', 1
        ).encode(),
        # the layout's opening and closing inside another field: the top level's trace is not it
        "a trace key inside input": two.replace(
            '"input": null', '"input": {\n  "trace": [\n' + step + "\n  ]\n}", 1
        ).encode(),
    }


def test_a_golden_in_another_layout_is_read_right_or_left_to_the_whole_read(
    tmp_path: Path, every_file_lazy: None
) -> None:
    path = _golden(tmp_path, ["Weather in Paris?", "And tomorrow?", "In Fahrenheit?"])
    pieces, whole = _read_both(path)
    assert isinstance(pieces, lazy_steps.LazySnapshot)  # agentsnap's own layout: step by step
    assert pieces.to_dict() == whole.to_dict()
    data = json.loads(path.read_bytes())
    # a step whose string holds the layout's separators, escaped: still read right
    data["trace"][0]["response"] = 'a "\n    },\n    {\n  ]\n" b'
    for label, text in {
        "escaped separators": json.dumps(data, indent=2, sort_keys=True).encode(),
        **_layouts(data),
    }.items():
        path.write_bytes(text)
        pieces, whole = _read_both(path)
        assert pieces is lazy_steps._UNSURE or pieces.to_dict() == whole.to_dict(), label
        lazy = SnapshotStore.read_file(path)
        assert isinstance(lazy, lazy_steps.LazySnapshot), label
        assert lazy.to_dict() == whole.to_dict(), label


@pytest.mark.parametrize("piece", [1, 2, 3, 5, 7, 13, 64, 257, 4096])
def test_a_golden_read_in_pieces_of_any_size_holds_the_values_of_the_whole_read(
    tmp_path: Path, every_file_lazy: None, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    """Steps, separators and the fields around the trace split across the file's pieces at
    every place: the same snapshot as one read of the whole file."""
    path = _golden(tmp_path, ["Weather in Paris?", "And tomorrow?", "In Fahrenheit?"])
    whole = _whole(path)
    monkeypatch.setattr(lazy_steps, "_PIECE", piece)
    pieces, _ = _read_both(path)
    assert isinstance(pieces, lazy_steps.LazySnapshot)
    assert pieces.to_dict() == whole.to_dict()


def test_a_golden_cut_short_is_never_read_as_its_steps(
    tmp_path: Path, every_file_lazy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that ends early (another process cut it while it was read) is left to the whole
    read, which names it: the step-by-step read never makes a snapshot of part of a file."""
    path = _golden(tmp_path, ["Weather in Paris?", "And tomorrow?", "In Fahrenheit?"])
    text = path.read_bytes()
    end = text.rstrip()
    monkeypatch.setattr(lazy_steps, "_PIECE", 64)
    for size in range(0, len(end), 23):
        path.write_bytes(text[:size])
        with path.open("rb") as file:
            assert lazy_steps._read_pieces(file, None) is lazy_steps._UNSURE, size
        with pytest.raises(SnapshotFormatError) as err:
            SnapshotStore.read_file(path)
        assert str(path) in str(err.value)


def test_a_malformed_step_in_agentsnaps_layout_is_named_by_the_whole_read(
    tmp_path: Path, every_file_lazy: None
) -> None:
    path = _golden(tmp_path, ["Weather in Paris?", "And tomorrow?", "In Fahrenheit?"])
    text = path.read_bytes()
    broken = text.replace(b'"status": 200', b'"status": 200,', 1)  # not JSON
    path.write_bytes(broken)
    with pytest.raises(SnapshotFormatError, match="corrupt snapshot file") as err:
        SnapshotStore(tmp_path).load("lazy::row")
    assert str(path) in str(err.value)
    data = json.loads(text)
    data["trace"][2]["exchange"]["request"]["method"] = 7
    path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    with pytest.raises(SnapshotFormatError, match=r"\$\.trace\[2\]\.exchange\.request\.method"):
        SnapshotStore(tmp_path).load("lazy::row")


def test_the_replay_keys_computed_while_reading_index_the_cassette_as_the_whole_trace_does(
    tmp_path: Path, every_file_lazy: None
) -> None:
    from agentsnap.capture.cassette import Cassette

    path = _golden(tmp_path, ["Weather in Paris?", "And tomorrow?", "Weather in Paris?"])
    lazy, whole = SnapshotStore.read_file(path), _whole(path)
    raw = lazy_steps.raw_steps(lazy)
    assert raw is not None and raw.held.keys is not None
    assert all(k is not None for k in raw.held.keys)  # every step an exchange served as is
    from_text, from_dicts = Cassette(raw), Cassette(whole.trace)
    assert dict(from_text._by_key) == dict(from_dicts._by_key)
    assert dict(from_text._by_route) == dict(from_dicts._by_route)
    assert list(from_text.recordings) == list(from_dicts.recordings)
    # the keys were handed to the cassette and let go by the file's steps (held until served);
    # a second cassette over the same steps decodes the requests, and indexes them the same
    assert all(k is None for k in raw.held.keys)
    again = Cassette(raw)
    assert dict(again._by_key) == dict(from_dicts._by_key)
    assert dict(again._by_route) == dict(from_dicts._by_route)


def test_the_comparisons_steps_hold_the_values_of_the_whole_read(
    tmp_path: Path, every_file_lazy: None
) -> None:
    path = _golden(tmp_path, [f"Weather in city {i}?" for i in range(4)])
    lazy, whole = SnapshotStore.read_file(path), _whole(path)
    raw = lazy_steps.raw_steps(lazy)
    assert raw is not None
    golden, run = lazy_steps.compared(raw.without("latency_ms"))
    assert len(golden) == len(run) == len(whole.trace)
    for g, r, w in zip(golden, run, whole.trace, strict=True):
        assert list(g) == list(w)
        assert {k: (dict(v) if k == "exchange" else v) for k, v in g.items()} == w
        assert list(r) == [k for k in w if k != "latency_ms"]
    # a value repeated across steps (the tools offered, a usage) is one object
    assert golden[0]["messages"][0] is golden[1]["messages"][0]


def test_a_large_goldens_cassette_lets_a_key_go_once_served_in_full(
    tmp_path: Path, every_file_lazy: None
) -> None:
    from agentsnap.capture.cassette import Cassette
    from agentsnap.exceptions import ReplayMissError

    with fp.FakeOpenAI() as fake:
        fake.script(fp.text_reply("Sunny."), fp.text_reply("Still sunny."))
        with AgentRecorder("lazy::row", snapshot_dir=tmp_path):
            client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
            for _ in range(2):  # the same request twice
                client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "Weather?"}]
                )
    (path,) = tmp_path.glob("*.json")
    whole = _whole(path)
    raw = lazy_steps.raw_steps(SnapshotStore.read_file(path))
    assert raw is not None
    cassette = Cassette(raw, strict=True)
    request = whole.trace[0]["exchange"]["request"]
    served = [cassette.take(request)[:1] for _ in range(2)]
    assert served == [(0,), (1,)]  # in recorded order, as from the whole trace
    assert not cassette._by_key  # (its key let go)
    with pytest.raises(ReplayMissError):
        cassette.take(request)


@given(
    st.lists(
        st.sampled_from([b"\n", b" ", b"    ", b"}", b"\n    }", b"\n     }", b"x"]), max_size=30
    ),
    st.integers(0, 80),
)
def test_a_steps_close_is_found_where_bytes_find_finds_it(parts: list[bytes], pos: int) -> None:
    data = b"".join(parts)
    assert lazy_steps._find_close(data, pos) == data.find(lazy_steps._CLOSE, pos)
