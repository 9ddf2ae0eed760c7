"""Running a child command for ``agentsnap record`` and ``agentsnap run``.

The child inherits the terminal (its output is not captured) and its exit
code becomes ours. Recording is switched on through the environment
(``AGENTSNAP_MODE=record``), which the pytest plugin reads like the
``--agentsnap-record`` flag; ``--dir`` is passed on as ``AGENTSNAP_SNAPSHOT_DIR``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = [
    "EXIT_NOT_EXECUTABLE",
    "EXIT_NOT_FOUND",
    "child_env",
    "describe",
    "pytest_command",
    "run_child",
]

#: exit codes when the command cannot be started (as POSIX shells use them)
EXIT_NOT_FOUND = 127
EXIT_NOT_EXECUTABLE = 126


def pytest_command(test_paths: Sequence[str], flag: str, extra: Sequence[str]) -> list[str]:
    """``python -m pytest TEST_PATH… FLAG EXTRA…`` with this interpreter."""
    return [sys.executable, "-m", "pytest", *test_paths, flag, *extra]


def child_env(
    *, record: bool, snapshot_dir: Path | None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: ``base`` (default ``os.environ``) plus agentsnap's switches.

    ``record=True`` sets ``AGENTSNAP_MODE=record``. ``record=False`` (assert
    mode) removes an inherited ``AGENTSNAP_MODE=record`` / ``AGENTSNAP_RECORD``
    so a leftover shell export cannot re-record goldens behind a plain run.
    """
    env = dict(os.environ if base is None else base)
    if record:
        env["AGENTSNAP_MODE"] = "record"
    else:
        if env.get("AGENTSNAP_MODE", "").strip().lower() == "record":
            del env["AGENTSNAP_MODE"]
        env.pop("AGENTSNAP_RECORD", None)
    if snapshot_dir is not None:
        env["AGENTSNAP_SNAPSHOT_DIR"] = str(snapshot_dir)
    return env


def describe(cmd: Sequence[str]) -> str:
    """The command as a shell line (for messages)."""
    return shlex.join(cmd)


def run_child(cmd: Sequence[str], env: Mapping[str, str]) -> int:
    """Run ``cmd`` to completion; its exit code (128+N when killed by signal N).

    Raises ``FileNotFoundError`` / ``PermissionError`` when it cannot start.
    Ctrl-C reaches the child too (same process group): we wait for it and
    return its code; a second Ctrl-C kills it (exit 130).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    proc = subprocess.Popen(list(cmd), env=dict(env))
    try:
        code = proc.wait()
    except KeyboardInterrupt:
        # the child got the SIGINT as well: give it the chance to finish and report
        try:
            code = proc.wait()
        except KeyboardInterrupt:  # a second Ctrl-C: stop it
            proc.kill()
            proc.wait()
            return 130
    return 128 - code if code < 0 else code
