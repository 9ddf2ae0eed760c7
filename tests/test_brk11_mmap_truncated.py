"""brk11: a golden truncated in place while it is read a step at a time kills the process.

lazy32 maps a large golden (``lazy_steps.read_large``: ``mmap``) and reads it a step at a
time. When another process truncates the file in place meanwhile (``cp other.json golden.json``,
an editor saving in place, a checkout tool writing through ``O_TRUNC``), the next read of a
page past the new end raises SIGBUS: the whole pytest process dies (exit -7, "Bus error"), no
error names the file, no summary, no ``.last_run``. The base (ddb80e9) read the file's bytes
once (``path.read_bytes()``) and then parsed them: the same truncation after that read loads
the snapshot (and a truncation before it is a SnapshotFormatError naming the file).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = (
    ROOT / "snapshots" / "examples_test_weather_agent.py__test_concurrent_questions-84d2d0b6.json"
)


def test_a_golden_truncated_in_place_while_read_is_no_bus_error(tmp_path: Path) -> None:
    copy = tmp_path / "golden.json"
    copy.write_bytes(GOLDEN.read_bytes())
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from agentsnap.storage import lazy_steps
        from agentsnap.storage.store import SnapshotStore

        path = Path({str(copy)!r})
        lazy_steps.LAZY_FROM = 0  # (the repository's goldens are small: read as a large one is)
        decode, seen = lazy_steps._decode, []

        def truncating(text):  # another process truncates the file once its first step is read
            if not seen:
                seen.append(1)
                os.truncate(path, 0)
            return decode(text)

        lazy_steps._decode = truncating
        try:
            SnapshotStore.read_file(path)
        except Exception as error:  # an error naming the file is fine; a crash is not
            print(type(error).__name__)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
