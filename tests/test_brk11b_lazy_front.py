"""brk11b: a large golden whose fields before ``trace`` are long is read in quadratic time.

``lazy_steps._read_pieces`` looks for the trace's opening line by appending each piece read to
the bytes read so far (``data += more``), a new copy of everything read at every piece. In
agentsnap's own layout (``indent=2``, keys sorted) ``input`` and ``output`` come before
``trace``: a golden with a long input or output (or any file in another layout, where the
opening line is never found) copies O(size**2 / piece) bytes. The test counts the reads of a
2 MiB front in 1 KiB pieces (the quadratic read made 2,048 of them, each a copy of all before). Measured on main (default 256 KiB
pieces, output before the trace): 8 MB 40 ms, 32 MB 294 ms, 64 MB 3,055 ms (the whole read: 6,
36, 116 ms; base 5c8797e's mapped read: 14 and 142 ms at 8 and 64 MB). Compact layout, 63 MB:
3,853 ms vs 565 ms at 5c8797e.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from agentsnap.storage import lazy_steps
from agentsnap.storage.store import SnapshotStore

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "snapshots/examples_test_weather_agent.py__test_concurrent_questions-84d2d0b6.json"


class _Reads:
    """A file whose reads are counted (what they returned, in bytes)."""

    def __init__(self, file: Any) -> None:
        self.file, self.sizes = file, []

    def read(self, n: int = -1) -> bytes:
        got = self.file.read(n)
        self.sizes.append(len(got))
        return bytes(got)


@pytest.mark.parametrize("layout", ["agentsnap, long output", "compact"])
def test_reading_a_long_front_is_linear_in_the_files_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """Each piece read before the trace is joined to what was read (a copy of it): the pieces
    grow with what was read, so a front of n bytes is read in ~log2(n / piece) pieces and its
    bytes copied a few times, never once a piece (counted, not timed)."""
    monkeypatch.setattr(lazy_steps, "_PIECE", 1024)
    data = json.loads(GOLDEN.read_bytes())
    size = 2 << 20
    if layout == "compact":
        d = dict(data, trace=data["trace"] * (size // len(json.dumps(data["trace"]))))
        text = json.dumps(d, sort_keys=True)
    else:
        text = json.dumps(dict(data, output="x" * size), indent=2, sort_keys=True)
    path = tmp_path / "long.json"
    path.write_text(text, encoding="utf-8")
    with path.open("rb") as raw:
        file = _Reads(raw)
        found = lazy_steps._read_pieces(file, None)  # type: ignore[arg-type]
    if layout == "compact":
        assert found is lazy_steps._UNSURE  # (no trace line of agentsnap's layout: read whole)
    else:
        assert isinstance(found, lazy_steps.LazySnapshot)
        assert found.to_dict() == SnapshotStore.read_file(path).to_dict()
    front = text.encode().find(b'\n  "trace": [\n') if layout != "compact" else len(text)
    # 1 KiB, then as much again as was read: 1, 1, 2, 4 ... KiB (the quadratic read: 2,048 reads)
    before_trace = [
        n
        for n, total in zip(file.sizes, itertools.accumulate(file.sizes), strict=True)
        if total - n < front
    ]
    assert len(before_trace) <= 14, file.sizes[:20]
