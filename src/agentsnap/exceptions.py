"""Exceptions agentsnap raises. All messages say what happened, where, and the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .diff import DiffReport

__all__ = [
    "AdapterNotWrappedError",
    "AgentRegressionError",
    "AgentsnapWarning",
    "NetworkBlockedError",
    "ReplayError",
    "ReplayMissError",
    "SnapshotFormatError",
    "SnapshotMissingInCIError",
    "SnapshotNotFoundError",
    "SnapshotPendingError",
]


class AgentRegressionError(AssertionError):
    """The agent drifted from its approved snapshot beyond a threshold.

    ``diff_report`` is the :class:`agentsnap.diff.DiffReport` with every check's
    result; ``str(error)`` is its rendered text. Subclasses ``AssertionError`` so
    pytest reports it as a test failure.
    """

    def __init__(self, message: str, diff_report: DiffReport | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.diff_report = diff_report


class SnapshotNotFoundError(FileNotFoundError):
    """``AgentAsserter`` found no snapshot for ``test_name``: record one first."""

    def __init__(self, test_name: str, path: Any = None, message: str | None = None) -> None:
        self.test_name = test_name
        self.path = path
        where = f" at {path}" if path else ""
        super().__init__(
            message
            or f"agentsnap: no snapshot for {test_name!r}{where}. Record it first: "
            f"`with AgentRecorder({test_name!r}): ...` or `pytest --agentsnap-record`."
        )


class SnapshotFormatError(ValueError):
    """A snapshot file exists but cannot be used (unparseable, wrong version, wrong name).

    The file is never overwritten by agentsnap while in this state.
    """


class AdapterNotWrappedError(BaseException):
    """A client no adapter wraps sent a request inside a block given ``adapters=[...]``.

    Raised before anything is sent; the message names the client (class and
    base URL) and the block. A ``BaseException``, like :class:`ReplayMissError`,
    so the SDKs' retry loops (which turn an ``Exception`` from ``send`` into a
    connection error and retry it with backoff) and the agent's ``except
    Exception`` blocks do not swallow a configuration mistake.
    """


class ReplayError(RuntimeError):
    """Replay could not serve a call (other than a plain miss)."""


class ReplayMissError(BaseException):
    """A request made in replay mode has no recorded response.

    A ``BaseException`` (like pytest's own ``Failed``) so the SDK's retry loops
    and the agent's ``except Exception`` blocks do not swallow it: anthropic, for
    one, wraps ``Exception`` from ``send`` in ``APIConnectionError`` and retries.
    """


class SnapshotMissingInCIError(ReplayMissError):
    """In CI an LLM call was made for a test whose snapshot is missing or pending.

    Raised at the first call, before any socket opens; nothing is written.
    """


class NetworkBlockedError(ReplayMissError):
    """A test that must run offline (replay, or CI with no usable snapshot) opened,
    or looked up, a connection to a host that is not loopback.

    Raised by the socket guard (:mod:`agentsnap.capture.guard`) from
    ``socket.connect`` / ``getaddrinfo`` in whatever thread made the call;
    ``host`` / ``port`` name the target. A ``BaseException`` (through
    :class:`ReplayMissError`) so HTTP clients and SDK retry loops do not turn
    it into a retried connection error.
    """

    def __init__(self, message: str, host: str = "", port: int | None = None) -> None:
        super().__init__(message)
        self.host = host
        self.port = port


class SnapshotPendingError(AssertionError):
    """In CI, a snapshot exists but is not approved yet (``agentsnap approve`` it locally)."""


class AgentsnapWarning(UserWarning):
    """Warnings agentsnap emits (pending snapshots, re-recorded goldens, …)."""
