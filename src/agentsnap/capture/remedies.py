"""What a failure's fix hint names, by where the code runs.

Under the pytest plugin (one of its sessions runs in this process) a hint names pytest's flags:
``pytest NODE --agentsnap-record``, ``--agentsnap-allow-pending``. In a plain script that uses
:class:`~agentsnap.AgentAsserter` (or :func:`agentsnap.check`) those flags do nothing: a hint
names what works there, the block's own switch (``AgentAsserter(NAME, ..., mode="record")``;
``agentsnap.check(NAME, actual, update=True)``) and the ``[tool.agentsnap]`` key. The CLI's own
hints (``agentsnap update NAME --dir DIR``) work in both places and are not this module's.

The plugin keeps its running sessions in ``agentsnap.exceptions._PYTEST_SESSIONS`` (a module it
loads anyway: this one is loaded only where a hint is made); :func:`checking` marks the code
:func:`agentsnap.check` runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from ..exceptions import _PYTEST_SESSIONS, SnapshotFormatError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "allow_pending",
    "checking",
    "format_error_here",
    "live_or_record",
    "record_hint",
    "replay_missing_message",
    "under_pytest",
]

#: whether the code running is :func:`agentsnap.check`'s (its switch is ``update=True``)
_CHECKING: ContextVar[bool] = ContextVar("agentsnap_checking", default=False)


def under_pytest() -> bool:
    """Whether a session of the pytest plugin runs in this process."""
    return bool(_PYTEST_SESSIONS)


@contextmanager
def checking() -> Iterator[None]:
    """Within it, a hint outside pytest names :func:`agentsnap.check`'s ``update=True``."""
    token = _CHECKING.set(True)
    try:
        yield
    finally:
        _CHECKING.reset(token)


def record_hint(name: str, pytest_hint: str) -> str:
    """What re-records snapshot ``name``, in backticks: ``pytest_hint`` under pytest; outside it,
    the explicit API's own record switch, the block's other arguments kept (``...``)."""
    if under_pytest():
        return pytest_hint
    if _CHECKING.get():
        return f"`agentsnap.check({name!r}, actual, ..., update=True)`"
    return f'`AgentAsserter({name!r}, ..., mode="record")`'


def allow_pending() -> str:
    """What lets CI run against a missing or pending snapshot (a warning instead of a failure)."""
    return (
        "--agentsnap-allow-pending"
        if under_pytest()
        else "`allow_pending = true` in [tool.agentsnap]"
    )


def live_or_record() -> str:
    """How a replayed run calls the real API instead."""
    if under_pytest():
        return "run with --agentsnap-record (or --agentsnap-live)"
    return 'give the block mode="record" (or mode="live")'


def replay_missing_message(name: str, path: Path) -> str:
    """What a replay run says when ``name`` has no snapshot (at ``path``): no request is sent."""
    if not under_pytest():  # a script's block given mode="replay"
        return (
            f'agentsnap: no snapshot for {name!r} ({path}) and this block replays (mode="replay"): replay '
            "never calls the API, so no request is sent and nothing is written. Record it first: "
            f"{record_hint(name, '')}, review it, then commit."
        )
    target = name if "::" in name else "THE_TEST"
    return (
        f"agentsnap: no snapshot for {name!r} ({path}) and this run replays (--agentsnap-replay): replay never calls "
        f"the API, so no request is sent and nothing is written. Record it first: `pytest {target} --agentsnap-record` "
        "(or run it with --agentsnap-instrument to write it pending), review it, then commit."
    )


def format_error_here(
    exc: BaseException, name: str, *, recorder: bool = False
) -> SnapshotFormatError | None:
    """A snapshot file agentsnap refused (``exc``: a corrupt, unreadable or invalid golden of
    snapshot ``name``) as a script's block says it: None under pytest, or when ``exc`` names no
    pytest flag (raise it as it is); else the same error whose fix, instead of ``pytest
    --agentsnap-record --agentsnap-force``, names what re-records it in a script once the file is
    gone (a script has no ``--agentsnap-force``): the block's own switch, :func:`record_hint`'s, or
    with ``recorder`` the ``AgentRecorder`` block itself."""
    from ..storage.schema import FORCED_RECORD

    text = str(exc)
    if under_pytest() or not isinstance(exc, SnapshotFormatError) or FORCED_RECORD not in text:
        return None
    switch = f"`AgentRecorder({name!r}, ...)`" if recorder else record_hint(name, "")
    return SnapshotFormatError(
        text.replace(
            FORCED_RECORD, f"{switch} once the file is gone (agentsnap never overwrites it)"
        )
    )
