"""An empty ``snapshot_dir`` is a configuration error naming the key and where it was set,
never the project's own folder in disguise (``Path("")`` is the folder it is relative to)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from agentsnap import AgentRecorder, check, config
from tests._support.ci import AGENTSNAP_ENV, clear_ci
from tests.test_cli_helpers import invoke

pytest_plugins = ["pytester"]

EXPECTED = 'expected a folder path, not an empty one ("." is the project\'s own folder)'


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_ci(monkeypatch, also=AGENTSNAP_ENV)


def _project(root: Path, value: str) -> Path:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(f'[tool.agentsnap]\nsnapshot_dir = "{value}"\n', encoding="utf-8")
    return pyproject


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_snapshot_dir_in_pyproject_names_the_key_and_the_file(
    tmp_path: Path, value: str
) -> None:
    pyproject = _project(tmp_path, value)
    with pytest.raises(ValueError) as err:
        config.load(tmp_path, env={})
    assert str(err.value) == (
        f"agentsnap: bad value {value!r} for 'snapshot_dir' in [tool.agentsnap] of {pyproject}: {EXPECTED}"
    )


def test_a_blank_environment_variable_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as err:
        config.load(tmp_path, env={"AGENTSNAP_SNAPSHOT_DIR": "  "})
    assert str(err.value) == (
        f"agentsnap: bad value '  ' for 'snapshot_dir' in environment variable AGENTSNAP_SNAPSHOT_DIR: {EXPECTED}"
    )


def test_an_empty_environment_variable_is_unset_and_dot_is_the_project_folder(
    tmp_path: Path,
) -> None:
    """(Unchanged behaviour, pinned: every AGENTSNAP_ variable that is empty counts as unset.)"""
    _project(tmp_path, "goldens")
    assert config.load(tmp_path, env={"AGENTSNAP_SNAPSHOT_DIR": ""}).snapshot_path == (
        tmp_path / "goldens"
    )
    _project(tmp_path, ".")
    assert config.load(tmp_path, env={}).snapshot_path == tmp_path / "."


def test_the_cli_refuses_an_empty_snapshot_dir_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject = _project(tmp_path, "")
    monkeypatch.chdir(tmp_path)
    result = invoke("list")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: bad value '' for 'snapshot_dir' in [tool.agentsnap] of {pyproject}: {EXPECTED}. "
        "Fix that value, or pass --dir PATH.\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]


@pytest.mark.parametrize("value", ["", " "])
def test_the_cli_refuses_an_empty_dir_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("list", "--dir", value)
    assert result.exit_code == 2
    assert (
        f"Invalid value for '--dir': {value!r} is empty; give the snapshot folder "
        '("." for this one).' in result.stderr
    )
    assert invoke("list", "--dir", ".").exit_code == 0  # "." still means this folder


def test_the_flag_refuses_an_empty_folder_before_the_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--agentsnap-snapshot-dir", "")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "ERROR: agentsnap: bad value '' for 'snapshot_dir' in the command line "
        f"(--agentsnap-snapshot-dir): {EXPECTED}"
    ) in result.stderr.str()
    assert not (pytester.path / ".last_run").exists()  # (was written into the rootdir)


def test_the_plugin_refuses_an_empty_snapshot_dir_in_pyproject(pytester: pytest.Pytester) -> None:
    pyproject = _project(pytester.path, "")
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: agentsnap: bad value '' for 'snapshot_dir' in [tool.agentsnap] of {pyproject}: {EXPECTED}"
    ) in result.stderr.str()
    assert not (pytester.path / ".last_run").exists()


def test_the_explicit_api_refuses_an_empty_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as err:
        AgentRecorder("weather", snapshot_dir="")
    assert str(err.value) == (
        "agentsnap: bad value '' for snapshot_dir of AgentRecorder('weather'): expected a folder "
        'path, not an empty one ("." is the current folder)'
    )
    with pytest.raises(ValueError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check("weather", [], snapshot_dir="")
    assert str(err.value) == (
        "agentsnap: bad value '' for snapshot_dir of check('weather'): expected a folder "
        'path, not an empty one ("." is the current folder)'
    )
    assert list(tmp_path.iterdir()) == []
