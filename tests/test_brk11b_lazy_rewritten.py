"""brk11b: a golden rewritten in place (same length) while read in pieces loads as neither file.

``lazy_steps._read_pieces`` reads a large golden 256 KiB at a time; another process rewriting
the file in place meanwhile (an editor or tool that does not write to a new file and rename)
leaves a snapshot whose fields read first (the output) are the old file's and the rest (the
steps) the new one's: no error, and neither the old nor the new golden. The whole read takes the file in one read. (5c8797e's mapped
read saw the live pages too: not a regression, but the piece read makes the window the whole
read and each piece a separate system call.) Low severity: agentsnap itself writes atomically.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agentsnap.storage import lazy_steps
from agentsnap.storage.snapshot import Snapshot
from agentsnap.storage.store import SnapshotStore

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "snapshots/examples_test_weather_agent.py__test_concurrent_questions-84d2d0b6.json"


def test_a_golden_rewritten_in_place_while_read_is_one_file_or_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = GOLDEN.read_bytes()
    new = old.replace(b"Sunny", b"Rainy")  # (the same length: offsets unchanged)
    assert len(new) == len(old) and old.count(b"Sunny") > 1
    path = tmp_path / "golden.json"
    path.write_bytes(old)
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)
    monkeypatch.setattr(lazy_steps, "_PIECE", 4096)
    reads = [0]

    class Rewritten(io.FileIO):
        def read(self, size: int = -1) -> Any:
            reads[0] += 1
            if reads[0] == 2:  # another process rewrites the file in place
                with open(path, "r+b") as other:
                    other.write(new)
            return super().read(size)

    monkeypatch.setattr(lazy_steps, "open", lambda p, mode: Rewritten(p, "r"), raising=False)
    read = SnapshotStore.read_file(path).to_dict()
    monkeypatch.undo()
    as_old = Snapshot.from_dict(json.loads(old)).to_dict()
    as_new = Snapshot.from_dict(json.loads(new)).to_dict()
    assert reads[0] > 2, reads
    # (found on main: the output, read before the rewrite, is the old file's; the trace the new's)
    assert read in (as_old, as_new), (read["output"], read["trace"][-1].get("response"))
