"""docs/contributing.md's "a CLI command" recipe, performed as written (issue 25).

The page's code block is taken from the page and run as a module against a
temporary app (``make_app()``, the same configuration as ``agentsnap``'s), so
the recipe cannot drift from the code: the command joins the app by its
decorator alone, lists in ``--help``, does its job, and a ``CliError`` it
raises is one ``error:`` line with its exit code, no traceback.
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agentsnap.cli import _command, app

PAGE = Path(__file__).resolve().parent.parent / "docs" / "contributing.md"


def _recipe_block() -> str:
    section = PAGE.read_text(encoding="utf-8").split("### a CLI command", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "docs/contributing.md: the CLI recipe has no python block"
    return found.group(1)


@pytest.fixture
def temporary_app(monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    """A fresh app in place of agentsnap's while the recipe's module is imported."""
    fresh = _command.make_app()
    monkeypatch.setattr(_command, "app", fresh)
    module = types.ModuleType("agentsnap_recipe_cli")
    exec(compile(_recipe_block(), "docs/contributing.md (a CLI command)", "exec"), module.__dict__)
    return fresh


def test_the_recipe_command_joins_the_app_by_its_decorator(
    temporary_app: typer.Typer, tmp_path: Path
) -> None:
    runner = CliRunner()
    listed = runner.invoke(temporary_app, ["--help"], prog_name="agentsnap")
    assert listed.exit_code == 0
    assert re.search(r"^\s+count\s+Print how many goldens", listed.output, re.M), listed.output

    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / "b.json").write_text("{}", encoding="utf-8")
    counted = runner.invoke(temporary_app, ["count", "--dir", str(tmp_path)])
    assert (counted.exit_code, counted.output) == (0, "2\n")


def test_a_cli_error_in_the_recipe_is_one_line_and_its_exit_code(
    temporary_app: typer.Typer, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere"
    result = CliRunner().invoke(temporary_app, ["count", "--dir", str(missing)])
    assert result.exit_code == 1
    assert result.output.startswith(f"error: no snapshot folder at {missing}.")
    assert "Traceback" not in result.output and result.exception is not None
    assert isinstance(result.exception, SystemExit)


def test_the_recipe_leaves_agentsnaps_own_app_alone(temporary_app: typer.Typer) -> None:
    names = [c.name for c in app.registered_commands]
    assert "count" not in names
    assert names == [
        "list",
        "show",
        "diff",
        "approve",
        "update",
        "rm",
        "prune",
        "record",
        "run",
        "report",
        "schema",
    ]
