"""A golden this user cannot read (its permissions) is a clear :class:`SnapshotFormatError` naming
the file and what to do, as the store's docs say, not a bare ``PermissionError``: the test that
replays it fails with that message, ``--agentsnap-force`` warns and records anew, and listing the
store (``SnapshotStore.list``, ``agentsnap list``) warns and goes on.

Permissions do not bind root, so as root the checks run in a child process as ``nobody``
(``setpriv``); otherwise in one as this user."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentsnap import Snapshot, SnapshotStore

_CHILD = r"""
import json, sys, warnings
from agentsnap import SnapshotStore
from agentsnap.exceptions import SnapshotFormatError
root = sys.argv[1]
out = {}
try:
    SnapshotStore(root).load("weather")
    out["load"] = "no error"
except SnapshotFormatError as exc:
    out["load"] = str(exc)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    out["forced"] = SnapshotStore(root, force=True).load("weather")
    out["forced_warnings"] = [str(w.message) for w in seen]
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    out["listed"] = [s.name for s in SnapshotStore(root).list()]
    out["list_warnings"] = [str(w.message) for w in seen]
print(json.dumps(out))
"""


def _as_other(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``args`` run where file permissions bind: as ``nobody`` when this is root."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root without setpriv: permissions cannot be made to bind here")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    env = {**os.environ, "NO_COLOR": "1", "HOME": str(cwd)}
    env.pop("CI", None)
    if prefix:
        probe = [*prefix, sys.executable, "-c", "import agentsnap"]
        seen = subprocess.run(probe, cwd=cwd, capture_output=True, text=True, timeout=60, env=env)
        if seen.returncode != 0:
            pytest.skip(f"nobody cannot run this Python with agentsnap: {seen.stderr[-300:]}")
    return subprocess.run(
        [*prefix, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


@pytest.fixture
def unreadable() -> Iterator[tuple[Path, Path]]:
    """A snapshot folder any user may enter and write, holding golden ``weather`` that no one
    but root may read (in /tmp: pytest's own temporary folders are root's alone)."""
    root = Path(tempfile.mkdtemp(prefix="agentsnap-unreadable-")) / "snaps"
    root.mkdir()
    os.chmod(root.parent, 0o777)
    os.chmod(root, 0o777)
    golden = SnapshotStore(root).save(Snapshot(name="weather", trace=[], approved=True))
    os.chmod(golden, 0)
    try:
        yield root, golden
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


def test_the_store_names_the_file_and_the_fix(unreadable: tuple[Path, Path]) -> None:
    root, golden = unreadable
    proc = _as_other([sys.executable, "-c", _CHILD, str(root)], root.parent)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["load"].startswith(f"agentsnap: cannot read snapshot file at {golden}: ")
    assert "Permission denied" in out["load"]
    assert "Make it readable by this user" in out["load"]
    assert "`pytest --agentsnap-record --agentsnap-force`" in out["load"]
    assert out["forced"] is None  # --agentsnap-force: treated as missing, said in a warning
    assert len(out["forced_warnings"]) == 1
    assert out["forced_warnings"][0].startswith(out["load"])
    assert out["listed"] == []  # listing goes on past it, with the same message
    assert out["list_warnings"] == [out["load"]]
    assert stat.S_IMODE(golden.stat().st_mode) == 0  # nothing was written over it


def test_agentsnap_list_lists_it_as_unreadable_and_says_why(unreadable: tuple[Path, Path]) -> None:
    root, golden = unreadable
    SnapshotStore(root).save(Snapshot(name="readable", trace=[], approved=True))
    code = "import sys; from agentsnap.cli import main; main(sys.argv[1:])"
    proc = _as_other([sys.executable, "-c", code, "list", "--dir", str(root)], root.parent)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # documented: a file is unreadable
    rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines()[1:] if line}
    assert rows.get("readable") == "approved"
    assert "unreadable" in rows.values()
    assert f"cannot read snapshot file at {golden}" in proc.stderr
    assert "Traceback" not in proc.stderr
