"""The documented approval flow on goldens agentsnap 0.5.1 wrote (``weather_plain.json``, ``lookup__<hash>.json``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentsnap import __version__
from agentsnap.storage.snapshot import UNKNOWN_WRITER
from agentsnap.storage.store import SnapshotStore
from tests.test_cli_helpers import invoke

GOLDENS = Path(__file__).resolve().parent / "project_051" / "tests" / "__agent_snapshots__"


@pytest.fixture
def snaps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CI", raising=False)
    folder = tmp_path / "__agent_snapshots__"
    shutil.copytree(GOLDENS, folder)
    return folder


def _last_run(folder: Path, name: str, output: str) -> Path:
    """A failing run's trace in .last_run/ (what `pytest` leaves behind), with another output."""
    store = SnapshotStore(folder)
    snap = store.load(name)
    assert snap is not None
    snap.output = output
    return store.save_last_run(snap)


def test_locate_finds_every_051_file_under_its_own_name(snaps: Path) -> None:
    store = SnapshotStore(snaps)
    assert store.locate("weather_plain") == snaps / "weather_plain.json"
    assert store.path_for("weather_plain") == snaps / "weather_plain.json"
    assert store.locate("lookup") is None and store.input_hash_names("lookup") == [
        "lookup__e736667c"
    ]
    assert store.path_for("lookup__e736667c") == snaps / "lookup__e736667c.json"
    assert store.last_run_path("weather_plain") == snaps / ".last_run" / "weather_plain.json"


def test_show_names_the_files_writer_not_the_reader(snaps: Path) -> None:
    result = invoke("show", "weather_plain", "--dir", str(snaps))
    assert result.exit_code == 0, result.output
    assert f"version   format 1.1, agentsnap {UNKNOWN_WRITER}" in result.stdout.splitlines()
    assert __version__ not in result.stdout


def test_diff_then_update_keep_the_051_file_where_it_is(snaps: Path) -> None:
    before = sorted(p.name for p in snaps.glob("*.json"))
    _last_run(snaps, "weather_plain", "It rains in Paris today.")
    result = invoke("diff", "weather_plain", "--dir", str(snaps))
    assert result.exit_code == 1, result.output
    assert "semantic:output" in result.stdout
    assert f"golden:   {snaps / 'weather_plain.json'}" in result.stdout
    # the README's form: `agentsnap diff __agent_snapshots__/my_agent.json` prints the snapshot
    shown = invoke("diff", str(snaps / "weather_plain.json"))
    assert shown.exit_code in (0, 1), shown.output
    assert "weather_plain" in shown.stdout

    result = invoke("update", "weather_plain", "--dir", str(snaps))
    assert result.exit_code == 0, result.output
    assert (
        sorted(p.name for p in snaps.glob("*.json")) == before
    )  # promoted in place: no new file name
    data = json.loads((snaps / "weather_plain.json").read_text(encoding="utf-8"))
    assert data["output"] == "It rains in Paris today."
    assert data["approved"] is True and data["name"] == "weather_plain"
    assert data["agentsnap_version"] == __version__  # now written by this agentsnap
    assert "comparison" not in data
    # and it still replays: the llm_call steps kept 0.5.1's raw responses
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    assert data["trace"][0]["raw_response"]["object"] == "chat.completion"


def test_update_of_an_input_named_golden(snaps: Path) -> None:
    _last_run(snaps, "lookup__e736667c", "Rome: sunny.")
    result = invoke(
        "update", "lookup", "--dir", str(snaps)
    )  # 0.5.1: `update NAME` also promotes NAME__*
    assert result.exit_code == 0, result.output
    data = json.loads((snaps / "lookup__e736667c.json").read_text(encoding="utf-8"))
    assert data["output"] == "Rome: sunny."
    assert not list(snaps.glob("lookup-*.json")) and not (snaps / "lookup.json").exists()
