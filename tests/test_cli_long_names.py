"""``agentsnap list`` (and ``approve``'s table) with a very long snapshot name: the plain table
stays as narrow as the other names make it; the long name is written whole, on its own row's
one line, which alone is longer; the rich table folds it within the terminal's width."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentsnap.cli import _output
from tests.test_cli_helpers import LYON, PARIS, ago, invoke, make, set_field

LONG = "tests/test_agents.py::test_books[" + "-".join(f"case{i:03d}" for i in range(50)) + "]"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AGENTSNAP_SNAPSHOT_DIR", "NO_COLOR", "COLUMNS"):
        monkeypatch.delenv(var, raising=False)


def _golden(root: Path, name: str, **kwargs: bool) -> None:
    set_field(make(root, name, **kwargs), "updated_at", ago(days=3))


def test_a_long_name_no_longer_widens_every_row_of_the_plain_table(tmp_path: Path) -> None:
    assert len(LONG) > 400
    _golden(tmp_path, PARIS, approved=True)
    _golden(tmp_path, LYON)
    before = invoke("list", "--dir", str(tmp_path))
    _golden(tmp_path, LONG)

    result = invoke("list", "--dir", str(tmp_path))

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    long_row = next(line for line in lines if line.startswith(LONG))
    assert long_row.split() == [LONG, "pending", "3", "gpt-4o-mini", "pytest", "3d"]
    assert long_row == f"{LONG}  pending       3  gpt-4o-mini  pytest   3d"
    # every other row, the header included, is exactly what it was without the long name
    assert [line for line in lines if line is not long_row] == before.stdout.splitlines()
    assert max(len(line) for line in lines if line is not long_row) < 80
    assert result.stderr.splitlines()[-1] == f"3 snapshots, 2 pending, in {tmp_path}"


def test_approves_table_keeps_its_columns_with_a_long_name(tmp_path: Path) -> None:
    _golden(tmp_path, PARIS)
    _golden(tmp_path, LONG)
    result = invoke("approve", "--all", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"Approved 2 snapshots in {tmp_path}:",
        "NAME                               STEPS  AGE",
        f"{LONG}      3   3d",
        f"{PARIS}      3   3d",
    ]


def test_the_terminal_table_folds_a_long_name_within_the_width(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(rich folded long names before this change too: kept so.)"""
    _golden(tmp_path, PARIS, approved=True)
    _golden(tmp_path, LONG)
    monkeypatch.setattr(_output, "stdout_is_tty", lambda: True)
    result = invoke("list", "--dir", str(tmp_path), env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    lines = ANSI.sub("", result.stdout).splitlines()
    assert max(len(line) for line in lines) <= 100
    rows = [line for line in lines[2:] if line.strip()]
    first = next(i for i, line in enumerate(rows) if line.startswith("tests/test_agents.py"))
    assert rows[first].split()[1:] == ["pending", "3", "gpt-4o-mini", "pytest", "3d"]
    folded = [line.split("  ")[0].strip() for line in rows[first:] if not line.startswith(PARIS)]
    assert "".join(folded) == LONG  # the whole name, folded, never shortened
