"""The one atomic-write helper (agentsnap.storage.atomic) and the writers that use it (issue 15)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from agentsnap.storage import atomic as _atomic

SRC = Path(__file__).resolve().parent.parent / "src" / "agentsnap"


def test_text_and_bytes_replace_the_file_and_leave_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    target.write_text("old", encoding="utf-8")
    _atomic.atomic_write(target, "new\nline ü")
    assert target.read_bytes() == "new\nline ü".encode()
    _atomic.atomic_write(target, b"\x00\xff", durable=False)
    assert target.read_bytes() == b"\x00\xff"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_the_file_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    if not hasattr(os, "fchmod"):
        pytest.skip("no fchmod here")
    target = tmp_path / "a"
    _atomic.atomic_write(target, "x")
    assert target.stat().st_mode & 0o777 == _atomic.default_file_mode()


def test_a_failed_write_keeps_the_old_file_and_removes_the_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.json"
    target.write_text("old", encoding="utf-8")

    def boom(src: str, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(_atomic.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        _atomic.atomic_write(target, "new", prefix=".custom.")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_no_module_but_the_helper_renames_temp_files() -> None:
    """Every atomic write goes through agentsnap.storage.atomic: nobody else calls os.replace or mkstemp."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).as_posix() == "storage/atomic.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("replace", "mkstemp", "rename"):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("os", "tempfile"):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []
