"""A golden saved with a UTF-8 byte order mark (as Windows editors save a hand-edited file) reads
as if the mark were not there: replay, compare, the CLI, ``.last_run`` files and the run record.
Re-recording an unchanged agent leaves such a file byte for byte as it is (mark included); a
recording that changed it writes agentsnap's own form, without the mark."""

from __future__ import annotations

import codecs
import json
import warnings
from pathlib import Path

import openai
import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.storage import lazy_steps
from agentsnap.storage.orphans import read_run_record
from tests._support.ci import AGENTSNAP_ENV, clear_ci
from tests.fake_provider import FakeOpenAI, text_reply
from tests.test_cli_helpers import PARIS, invoke, make, read

BOM = codecs.BOM_UTF8


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_ci(monkeypatch, also=AGENTSNAP_ENV)


def _with_bom(path: Path) -> bytes:
    """Put a byte order mark before the file's text; its new bytes."""
    path.write_bytes(BOM + path.read_bytes())
    return path.read_bytes()


def _record(folder: Path, city: str = "Paris") -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the "recorded golden" warning)
        with AgentRecorder("weather", snapshot_dir=folder) as rec:
            rec.record_tool_call("get_weather", {"city": city}, "sunny")
            rec.output = f"Sunny in {city}"
    return SnapshotStore(folder).path_for("weather")


def test_a_golden_with_a_bom_loads_as_the_same_snapshot(tmp_path: Path) -> None:
    path = _record(tmp_path)
    plain = SnapshotStore(tmp_path).load("weather")
    _with_bom(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "unreadable" warning from list() or names()
        store = SnapshotStore(tmp_path)
        loaded = store.load("weather")
        assert [s.name for s in store.list()] == ["weather"]
        assert list(store.names()) == ["weather"]
    assert plain is not None and loaded is not None
    assert loaded.to_dict() == plain.to_dict()


def test_the_block_compares_against_a_golden_with_a_bom(tmp_path: Path) -> None:
    before = _with_bom(_record(tmp_path))
    with AgentAsserter("weather", snapshot_dir=tmp_path, embedding_backend="lexical") as check:
        check.record_tool_call("get_weather", {"city": "Paris"}, "sunny")
        check.output = "Sunny in Paris"
    assert check.report is not None and check.report.passed
    assert SnapshotStore(tmp_path).path_for("weather").read_bytes() == before  # (not rewritten)


def test_replay_serves_a_golden_with_a_bom_offline(tmp_path: Path) -> None:
    def ask(base_url: str) -> str:
        client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Weather in Paris?"}]
        )
        return str(reply.choices[0].message.content)

    with FakeOpenAI() as fake, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fake.script(text_reply("Sunny in Paris."))
        with AgentRecorder("weather", snapshot_dir=tmp_path) as rec:
            rec.output = ask(fake.base_url)
        base = fake.base_url
    before = _with_bom(SnapshotStore(tmp_path).path_for("weather"))
    # the server is gone: only replay can answer
    with AgentAsserter("weather", snapshot_dir=tmp_path, mode="replay") as check:
        check.output = ask(base)
    assert check.output == "Sunny in Paris."
    assert check.report is not None and check.report.passed
    assert SnapshotStore(tmp_path).path_for("weather").read_bytes() == before


def test_rerecording_an_unchanged_agent_leaves_the_bom_golden_byte_for_byte(
    tmp_path: Path,
) -> None:
    """The promise that an unchanged agent's golden is not rewritten holds for a file saved
    with a byte order mark: the mark is kept, nothing else moves (no updated_at)."""
    path = _record(tmp_path)
    before = _with_bom(path)
    assert _record(tmp_path) == path
    assert path.read_bytes() == before


def test_rerecording_a_changed_agent_writes_agentsnaps_own_form_without_the_bom(
    tmp_path: Path,
) -> None:
    path = _record(tmp_path)
    _with_bom(path)
    _record(tmp_path, city="Lyon")
    raw = path.read_bytes()
    assert raw.startswith(b"{\n")
    assert json.loads(raw)["trace"][0]["args"] == {"city": "Lyon"}


def test_a_large_golden_with_a_bom_is_still_read_a_step_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _record(tmp_path)
    _with_bom(path)
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 64)  # (this golden counts as a large one)
    loaded = SnapshotStore(tmp_path).load("weather")
    assert isinstance(loaded, lazy_steps.LazySnapshot)
    assert loaded.trace[0]["args"] == {"city": "Paris"}
    whole = lazy_steps.read_lazy(path.read_bytes(), path, "weather")  # (another layout's read)
    assert whole is not None and whole.trace[0]["args"] == {"city": "Paris"}


def test_the_cli_reads_a_golden_and_a_last_run_with_a_bom(tmp_path: Path) -> None:
    golden = make(tmp_path, PARIS)
    last = make(tmp_path, PARIS, last_run=True)
    text = golden.read_text(encoding="utf-8")
    _with_bom(golden)
    _with_bom(last)

    listed = invoke("list", "--dir", str(tmp_path))
    assert listed.exit_code == 0, listed.output
    assert [line.split()[:2] for line in listed.stdout.splitlines()] == [
        ["NAME", "STATE"],
        [PARIS, "pending"],
    ]
    assert "warning" not in listed.stderr

    shown = invoke("show", PARIS, "--dir", str(tmp_path))
    assert shown.exit_code == 0, shown.output
    assert f"file      {golden}" in shown.stdout

    raw = invoke("show", PARIS, "--json", "--dir", str(tmp_path))
    assert raw.exit_code == 0, raw.output
    assert raw.stdout == text  # the file as stored, without the mark: JSON for any reader

    compared = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert compared.exit_code == 0, compared.output

    approved = invoke("approve", PARIS, "--dir", str(tmp_path))
    assert approved.exit_code == 0, approved.output
    assert golden.read_bytes().startswith(b"{\n")  # changed (approved): agentsnap's own form
    assert read(golden)["approved"] is True


def test_a_run_record_with_a_bom_is_read(tmp_path: Path) -> None:
    record = tmp_path / ".last_run" / "run.json"
    record.parent.mkdir()
    record.write_bytes(BOM + json.dumps({"full_run": True, "orphans": []}).encode())
    assert read_run_record(tmp_path) == {"full_run": True, "orphans": []}
    result = invoke("prune", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"No orphaned snapshots in {tmp_path}")


def test_a_trace_file_with_a_bom_is_imported(tmp_path: Path) -> None:
    from tests.test_cli_record import completion

    trace = tmp_path / "reply.json"
    trace.write_bytes(BOM + json.dumps(completion("Sunny.")).encode())
    snaps = tmp_path / "snaps"
    result = invoke("record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(snaps))
    assert result.exit_code == 0, result.output
    assert read(SnapshotStore(snaps).path_for(PARIS))["output"] == "Sunny."
