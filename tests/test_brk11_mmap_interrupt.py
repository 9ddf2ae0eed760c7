"""brk11: an interrupt (Ctrl-C) while a large golden in another layout is parsed from its
mapping comes out as ``BufferError``, not ``KeyboardInterrupt``.

lazy32 parses a large golden that is not in agentsnap's own layout (indent 4, CRLF line ends,
compact: ``read_lazy``) straight from the ``mmap``: the ``msgspec.Raw`` values it decodes
point into the mapping. When anything is raised meanwhile that ``read_lazy`` does not catch
(Ctrl-C, a ``pytest-timeout`` signal, a MemoryError), the frame in the traceback still holds
those values, so closing the mapping on the way out (``with mmap.mmap(...)``) raises
``BufferError: cannot close exported pointers exist``, which replaces the real exception: a
Ctrl-C no longer stops the session (pytest reports the test as an error and goes on), and the
traceback tells of a buffer, not of what happened. The base (ddb80e9) parsed the file's bytes
(``path.read_bytes()``): the ``KeyboardInterrupt`` itself propagates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentsnap.storage import lazy_steps
from agentsnap.storage.store import SnapshotStore

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = (
    ROOT / "snapshots" / "examples_test_weather_agent.py__test_concurrent_questions-84d2d0b6.json"
)


def test_an_interrupt_while_a_golden_in_another_layout_is_read_stays_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "golden.json"
    # indent 4 (a JSON formatter ran over it): not agentsnap's layout, parsed from the mapping
    path.write_text(json.dumps(json.loads(GOLDEN.read_text(encoding="utf-8")), indent=4))
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)  # (read as a large golden is)
    decode = lazy_steps._decode

    def interrupted(text: Any) -> Any:  # Ctrl-C arrives while the file is parsed
        raise KeyboardInterrupt

    monkeypatch.setattr(lazy_steps, "_decode", interrupted)
    with pytest.raises(KeyboardInterrupt):
        SnapshotStore.read_file(path)
    monkeypatch.setattr(lazy_steps, "_decode", decode)
