"""docs/contributing.md stays true: its module table names every module, and only modules that exist.

A row's first cell names one or more modules in backticks, relative to
``src/agentsnap/``: a file (``wire.py``) or a glob (``providers/*.py``). A
module with no row, a row naming a file that is gone, and a glob matching
nothing each fail, naming what to fix.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "contributing.md"
PACKAGE = ROOT / "src" / "agentsnap"


def _table_entries() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## One line per module", 1)[1].split("\n## ", 1)[0]
    entries: list[str] = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first_cell = line.split("|")[1]
        entries += re.findall(r"`([^`]+)`", first_cell)
    return entries


def _modules() -> list[str]:
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def test_the_module_table_names_every_module() -> None:
    entries = _table_entries()
    assert len(entries) > 40, "the module table was not found on docs/contributing.md"
    missing = [m for m in _modules() if not any(fnmatchcase(m, e) for e in entries)]
    assert not missing, f"docs/contributing.md: add a row for {missing}"


def test_every_row_names_a_module_that_exists() -> None:
    modules = _modules()
    stale = [e for e in _table_entries() if not any(fnmatchcase(m, e) for m in modules)]
    assert not stale, f"docs/contributing.md names modules that are gone: {stale}"


def test_a_glob_row_does_not_hide_a_module_that_has_its_own_row() -> None:
    # `adapters/*.py` covers every adapter; a literal row for one of them is fine,
    # but two literal rows for the same file would disagree about its job
    literal = [e for e in _table_entries() if "*" not in e]
    assert len(literal) == len(set(literal)), "docs/contributing.md lists a module twice"


def test_the_places_it_names_for_each_kind_of_change_exist() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for heading in ("a provider", "a comparison check", "a transport", "a CLI command"):
        assert f"### {heading}" in text
    for path in (
        "patches",
        "src/agentsnap/providers/__init__.py",
        "src/agentsnap/adapters/_base.py",
        "src/agentsnap/capture/hooks.py",
        "src/agentsnap/capture/streams.py",
        "src/agentsnap/diff/checks/__init__.py",
        "src/agentsnap/diff/options.py",
        "src/agentsnap/cli/_app.py",
        "src/agentsnap/cli/_command.py",
        "tests/test_recipe_cli.py",
        "tests/test_recipe_provider.py",
        "src/agentsnap/adapters/_declared.py",
        "src/agentsnap/providers/_common.py",
        "src/agentsnap/cli/_errors.py",
        "tests/_support/roundtrip.py",
        "tests/transport_kit.py",
        "tests/test_check_registry.py",
        "tests/test_provider_facts.py",
        "tests/test_import_graph.py",
        "tests/test_import_cost.py",
    ):
        assert (ROOT / path).exists(), f"docs/contributing.md points at {path}, which is gone"
    # the names the page tells a contributor to use
    from agentsnap.cli._errors import CliError
    from agentsnap.diff.checks import Check, CheckResult, register_check

    assert issubclass(CliError, Exception) and callable(register_check)
    assert "passed" in {f.name for f in __import__("dataclasses").fields(CheckResult)}
    assert callable(Check.run)
