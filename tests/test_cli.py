"""The agentsnap CLI: --dir resolution, list, show, output modes, the console script."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentsnap.cli import _output
from agentsnap.cli._output import age
from tests.test_cli_helpers import LYON, PARIS, ago, invoke, make, read, set_field, tree

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AGENTSNAP_SNAPSHOT_DIR", "AGENTSNAP_MODE", "AGENTSNAP_RECORD", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)


# ---------------------------------------------------------------------------- --dir default
def test_dir_defaults_to_snapshot_dir_of_pyproject_in_a_parent_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "src" / "deep").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[tool.agentsnap]\nsnapshot_dir = "goldens"\n', encoding="utf-8"
    )
    make(project / "goldens", PARIS, approved=True)
    make(project / "src" / "deep" / "goldens", "decoy-relative-to-cwd")  # must not be read
    make(project / "src" / "deep" / "__agent_snapshots__", "decoy-default-name")
    monkeypatch.chdir(project / "src" / "deep")

    result = invoke("list")

    assert result.exit_code == 0, result.output
    assert PARIS in result.stdout
    assert "decoy" not in result.stdout
    assert str(project / "goldens") in result.stderr


def test_dir_default_without_agentsnap_table_is_agent_snapshots_in_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path / "__agent_snapshots__", PARIS)
    monkeypatch.chdir(tmp_path)
    result = invoke("list")
    assert result.exit_code == 0
    assert PARIS in result.stdout


def test_dir_option_wins_over_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\nsnapshot_dir = "goldens"\n', encoding="utf-8"
    )
    make(tmp_path / "goldens", "from-pyproject")
    make(tmp_path / "elsewhere", "from-option")
    monkeypatch.chdir(tmp_path)
    result = invoke("list", "--dir", "elsewhere")
    assert "from-option" in result.stdout
    assert "from-pyproject" not in result.stdout


def test_bad_pyproject_setting_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\nsemantic_threshold = "lots"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("list")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")
    assert (
        "semantic_threshold" in result.stderr and str(tmp_path / "pyproject.toml") in result.stderr
    )
    assert "--dir" in result.stderr
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------------- list
def test_list_prints_one_row_per_snapshot(tmp_path: Path) -> None:
    paris = make(tmp_path, PARIS, approved=True)
    lyon = make(tmp_path, LYON, source="trace", trace=weather_two_steps())
    set_field(paris, "updated_at", ago(days=3, hours=2))
    set_field(lyon, "updated_at", ago(hours=5, minutes=10))

    result = invoke("list", "--dir", str(tmp_path))

    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "STATE", "STEPS", "MODEL", "SOURCE", "AGE"]
    assert lines[1].split() == [LYON, "pending", "2", "gpt-4o-mini", "trace", "5h"]
    assert lines[2].split() == [PARIS, "approved", "3", "gpt-4o-mini", "pytest", "3d"]
    assert len(lines) == 3
    assert "2 snapshots, 1 pending, in " + str(tmp_path) in result.stderr


def weather_two_steps() -> list[dict]:
    from tests.test_cli_helpers import llm_step, tool_step

    return [llm_step(0, city="Lyon", response=""), tool_step(1, "Lyon")]


def test_list_pending_shows_only_unapproved(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, LYON)
    result = invoke("list", "--pending", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert LYON in result.stdout and PARIS not in result.stdout


def test_list_pending_when_all_approved_says_so(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    result = invoke("list", "--pending", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout.strip() == f"No pending snapshots in {tmp_path} (1 approved)."


def test_list_with_no_snapshots_prints_a_note_and_creates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "absent"
    result = invoke("list", "--dir", str(root))
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1
    assert f"No snapshots in {root} (no such folder: check --dir or snapshot_dir)." in result.stdout
    assert "pytest --agentsnap-instrument" in result.stdout
    assert not root.exists()
    root.mkdir()  # an empty folder that is there: no word about a missing one
    again = invoke("list", "--dir", str(root))
    assert again.exit_code == 0
    assert f"No snapshots in {root}. " in again.stdout


def test_list_shows_a_corrupt_file_as_unreadable_and_exits_1(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, LYON)
    bad = tmp_path / "broken-0000abcd.json"
    bad.write_text("{not json", encoding="utf-8")
    before = tree(tmp_path)

    result = invoke("list", "--dir", str(tmp_path))

    assert result.exit_code == 1
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0] == ["NAME", "STATE", "STEPS", "MODEL", "SOURCE", "AGE"]
    assert rows[1][:5] == ["broken", "unreadable", "-", "-", "-"]
    assert rows[1][5].endswith("s")  # the file's age: seconds
    assert [r[:2] for r in rows[2:]] == [[LYON, "pending"], [PARIS, "approved"]]
    warning = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warning) == 1 and warning[0].startswith(f"warning: corrupt snapshot file at {bad}: ")
    assert "pytest --agentsnap-record" in warning[0]
    assert f"2 snapshots, 1 pending, 1 unreadable, in {tmp_path}" in result.stderr
    assert "Traceback" not in result.output
    assert tree(tmp_path) == before

    # --pending keeps it (its state is unknown); a folder holding only it still gets the table
    only_pending = invoke("list", "--pending", "--dir", str(tmp_path))
    assert only_pending.exit_code == 1
    assert [line.split()[0] for line in only_pending.stdout.splitlines()] == [
        "NAME",
        "broken",
        LYON,
    ]
    for path in tmp_path.glob("tests_*.json"):
        path.unlink()
    alone = invoke("list", "--dir", str(tmp_path))
    assert alone.exit_code == 1
    assert [line.split()[:2] for line in alone.stdout.splitlines()] == [
        ["NAME", "STATE"],
        ["broken", "unreadable"],
    ]
    bad.unlink()
    assert invoke("list", "--dir", str(tmp_path)).exit_code == 0


def test_plain_output_never_truncates_long_names(tmp_path: Path) -> None:
    long_name = (
        "tests/agents/test_"
        + "very_long_module_" * 8
        + ".py::TestBooking::test_books["
        + "x" * 80
        + "]"
    )
    make(tmp_path, long_name)
    make(tmp_path, PARIS, approved=True)
    result = invoke("list", "--dir", str(tmp_path))
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if line.startswith("tests/agents"))
    assert row.split()[0] == long_name
    assert "…" not in result.stdout and "..." not in result.stdout


def test_plain_output_has_no_ansi_codes(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, LYON)
    for args in (["list"], ["show", PARIS]):
        result = invoke(*args, "--dir", str(tmp_path))
        assert "\x1b[" not in result.output


def test_terminal_gets_a_rich_table_with_colour_and_long_names_folded_not_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_name = "tests/test_agents.py::test_" + "a_rather_long_parametrised_case_" * 5 + "end"
    make(tmp_path, long_name)
    monkeypatch.setattr(_output, "stdout_is_tty", lambda: True)

    result = invoke("list", "--dir", str(tmp_path))

    assert result.exit_code == 0
    assert "\x1b[" in result.stdout  # colour on a terminal
    plain = ANSI.sub("", result.stdout)
    assert "…" not in plain
    folded = "".join(line.split("  ")[0].strip() for line in plain.splitlines()[2:])
    assert long_name in folded


def test_no_color_switches_rich_output_off_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, PARIS)
    monkeypatch.setattr(_output, "stdout_is_tty", lambda: True)
    result = invoke("list", "--dir", str(tmp_path), env={"NO_COLOR": "1"})
    assert "\x1b[" not in result.output
    assert result.stdout.splitlines()[0].split() == [
        "NAME",
        "STATE",
        "STEPS",
        "MODEL",
        "SOURCE",
        "AGE",
    ]


# ---------------------------------------------------------------------------- show
def test_show_prints_metadata_then_every_step(tmp_path: Path) -> None:
    path = make(tmp_path, PARIS, approved=True)
    result = invoke("show", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"name      {PARIS}"
    assert f"file      {path}" in lines
    assert "state     approved" in lines
    assert "source    pytest" in lines
    assert "model     gpt-4o-mini" in lines
    assert "steps     3 (2 llm_call, 1 tool_call)" in lines
    assert "output    Sunny" in lines
    body = result.stdout[result.stdout.index("\ntrace\n") :]
    assert "  [0] llm_call gpt-4o-mini (openai, status 200, 3 tokens)" in body
    assert '        - get_weather: {"city": "Paris"} (id call_A)' in body
    assert "  [1] tool_call get_weather (id call_A)" in body
    assert '      args: {"city": "Paris"}' in body
    assert "      result: Sunny" in body
    assert "      response: Sunny in Paris" in body
    assert body.index("[0] llm_call") < body.index("[1] tool_call") < body.index("[2] llm_call")


def test_show_indents_multiline_values(tmp_path: Path) -> None:
    from tests.test_cli_helpers import llm_step

    make(tmp_path, PARIS, trace=[llm_step(0, response="line one\nline two")])
    result = invoke("show", PARIS, "--dir", str(tmp_path))
    assert "      response: line one\n                line two\n" in result.stdout


def test_show_accepts_a_unique_prefix(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    make(tmp_path, LYON)
    result = invoke("show", "tests/test_weather.py::test_p", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout.startswith(f"name      {PARIS}\n")


def test_show_json_prints_the_raw_file(tmp_path: Path) -> None:
    path = make(tmp_path, PARIS)
    result = invoke("show", PARIS, "--json", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout == path.read_text(encoding="utf-8")


def test_show_unknown_name_says_how_to_see_the_names(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    result = invoke("show", "nope", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: no snapshot matches 'nope' in {tmp_path}.")
    assert f"agentsnap list --dir {tmp_path}" in result.stderr


def test_show_glob_matching_several_is_an_error_listing_them(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    make(tmp_path, LYON)
    result = invoke("show", "tests/*", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert "matches 2 snapshots" in result.stderr
    assert f"  {LYON}\n  {PARIS}" in result.stderr


def test_show_corrupt_snapshot_is_a_one_line_error_with_the_path(tmp_path: Path) -> None:
    from agentsnap.storage.store import SnapshotStore

    path = SnapshotStore(tmp_path).path_for(PARIS)
    path.write_text('{"trace": [', encoding="utf-8")
    result = invoke("show", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert (
        result.stderr.startswith("error: corrupt snapshot file at ") and str(path) in result.stderr
    )
    assert "Traceback" not in result.output
    assert path.read_text(encoding="utf-8") == '{"trace": ['


def test_show_a_snapshot_file_by_path(tmp_path: Path) -> None:
    path = make(tmp_path, PARIS)
    result = invoke("show", str(path))
    assert result.exit_code == 0
    assert result.stdout.startswith(f"name      {PARIS}\n")


# ---------------------------------------------------------------------------- age
@pytest.mark.parametrize(
    ("timestamp", "expected"),
    [
        ("2026-01-10T12:00:00+00:00", "0s"),
        ("2026-01-10T11:59:15+00:00", "45s"),
        ("2026-01-10T11:48:00+00:00", "12m"),
        ("2026-01-10T06:59:00+00:00", "5h"),
        ("2026-01-07T11:00:00+00:00", "3d"),
        ("2026-01-07T11:00:00", "3d"),  # no zone: UTC
        ("2026-01-07T11:00:00Z", "3d"),
        ("2026-01-11T00:00:00+00:00", "0s"),  # future (clock skew)
        ("yesterday", "?"),
        ("", "?"),
    ],
)
def test_age(timestamp: str, expected: str) -> None:
    assert age(timestamp, now=datetime(2026, 1, 10, 12, 0, tzinfo=timezone.utc)) == expected


# ---------------------------------------------------------------------------- app-level
def test_version() -> None:
    from agentsnap import __version__

    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == f"agentsnap {__version__}\n"


def test_no_arguments_shows_help() -> None:
    result = invoke()
    assert "Usage:" in result.output
    for command in ("list", "show", "diff", "approve", "update", "rm", "record", "run"):
        assert command in result.output


def test_installed_console_script_help() -> None:
    script = Path(sys.executable).with_name("agentsnap")
    exe = str(script) if script.exists() else shutil.which("agentsnap")
    assert exe, "the agentsnap console script is not installed"
    proc = subprocess.run(
        [exe, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: agentsnap ")
    for command in ("list", "show", "diff", "approve", "update", "rm", "record", "run"):
        assert f"  {command} " in proc.stdout
    assert "\x1b[" not in proc.stdout


def test_importing_the_cli_loads_no_diff_layer_or_codecs() -> None:
    code = (
        "import sys, agentsnap.cli; "
        # of the diff package only the comparison knobs (a standard-library dataclass the settings read) load
        "knobs = ('agentsnap.diff', 'agentsnap.diff.options'); "
        "heavy = [m for m in sys.modules if m not in knobs and m.startswith(('agentsnap.diff', 'agentsnap.providers', 'deepdiff', 'rapidfuzz', 'httpx', 'openai'))]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_help_of_every_command_documents_exit_codes() -> None:
    for command in ("list", "show", "diff", "approve", "update", "rm", "record", "run"):
        result = invoke(command, "--help")
        assert result.exit_code == 0
        assert "Exit code" in result.stdout, command
        assert "--dir PATH" in result.stdout, command


def test_legacy_file_without_a_name_is_listed_under_its_file_stem(tmp_path: Path) -> None:
    legacy = tmp_path / "my_agent.json"
    legacy.write_text(
        '{"version": "1.0", "recorded_at": "2025-01-01T00:00:00+00:00", "model": "m", "trace": [], "output": "x"}\n',
        encoding="utf-8",
    )
    result = invoke("list", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1].split()[:3] == ["my_agent", "approved", "0"]
    assert read(legacy)["version"] == "1.0"
