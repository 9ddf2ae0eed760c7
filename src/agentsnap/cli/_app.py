"""The ``agentsnap`` command: every command module joins :data:`app` on import, in the order
``--help`` lists them.

Exit codes shared by every command: 0 success; 1 a failure the message
explains (no snapshot matched, ambiguous prefix, unreadable file, refused
overwrite or deletion); 2 a usage error (bad or missing options). ``diff``
follows ``diff(1)``: 1 means "they differ", 2 "could not compare". ``record``
and ``run`` exit with the child command's code (127: command not found, 126:
not executable).
"""

from __future__ import annotations

# each module registers its commands on import; this order is the order --help lists them
# isort: off
from . import _browse, _decide, _runs, _merge, _reference  # noqa: F401

# isort: on
from ._command import app

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the app on ``argv`` (default ``sys.argv[1:]``) and exit."""
    app(args=argv, prog_name="agentsnap")
