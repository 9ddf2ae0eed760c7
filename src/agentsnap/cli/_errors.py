"""The one exception CLI commands raise for a failure the user can fix."""

from __future__ import annotations

from ..exceptions import AgentsnapError

__all__ = ["CliError"]


class CliError(AgentsnapError, Exception):
    """A user-facing failure: printed as ``error: MESSAGE`` (no traceback), then exit ``code``.

    ``message`` says what happened, where (path or snapshot name) and what to
    run; it may span several lines (e.g. a list of candidates). ``code`` is
    the process exit code (1 unless a command documents another).
    """

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
