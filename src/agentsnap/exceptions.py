"""Exceptions agentsnap raises. All messages say what happened, where, and the fix.

Every one derives from :class:`AgentsnapError`, so ``except AgentsnapError``
catches whatever agentsnap raised. Each also keeps the built-in base it has
always had (``AssertionError``, ``FileNotFoundError``, ``ValueError``,
``RuntimeError``), except the errors an SDK's retry loop or an agent's
``except Exception`` must not swallow, which are ``BaseException`` only::

    AgentsnapError (BaseException)
    ├── AgentRegressionError      (AssertionError)
    ├── SnapshotPendingError      (AssertionError)
    ├── SnapshotNotFoundError     (FileNotFoundError)
    ├── SnapshotFormatError       (ValueError)
    ├── ReplayError               (RuntimeError)
    ├── AdapterNotWrappedError    BaseException only
    └── ReplayMissError           BaseException only
        ├── SnapshotMissingInCIError
        └── NetworkBlockedError

This module imports nothing of agentsnap: every other module may import it.
"""

from __future__ import annotations

__all__ = [
    "AdapterNotWrappedError",
    "AgentRegressionError",
    "AgentsnapError",
    "AgentsnapWarning",
    "NetworkBlockedError",
    "ReplayError",
    "ReplayMissError",
    "SnapshotFormatError",
    "SnapshotMissingInCIError",
    "SnapshotNotFoundError",
    "SnapshotPendingError",
]


#: the pytest plugin's sessions running in this process (the ``id`` of each one's config: a
#: pytester run starts one inside another), kept by :mod:`agentsnap._pytest.session`. While one
#: runs, a fix hint names pytest's flags; in a plain script, the explicit API's own switches
#: (:mod:`agentsnap.capture.remedies`). Here because the plugin loads this module anyway.
_PYTEST_SESSIONS: set[int] = set()


class AgentsnapError(BaseException):
    """The base of every exception agentsnap raises (see the module doc for the tree).

    A ``BaseException`` so that it can be the base of the errors that must
    not be caught by ``except Exception`` (:class:`ReplayMissError`,
    :class:`AdapterNotWrappedError`); every other subclass also derives from
    an ``Exception`` class (``AssertionError``, ``ValueError``, …), so
    ``except Exception`` still catches those, as it always did.
    """


class AgentRegressionError(AgentsnapError, AssertionError):
    """The agent drifted from its approved snapshot beyond a threshold.

    ``diff_report`` is the :class:`agentsnap.diff.DiffReport` with every check's
    result; ``str(error)`` is its rendered text. Subclasses ``AssertionError`` so
    pytest reports it as a test failure.
    """

    def __init__(self, message: str, diff_report: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.diff_report = diff_report


class SnapshotNotFoundError(AgentsnapError, FileNotFoundError):
    """``AgentAsserter`` found no snapshot for ``test_name``: record one first."""

    def __init__(self, test_name: str, path: object = None, message: str | None = None) -> None:
        self.test_name = test_name
        self.path = path
        where = f" at {path}" if path else ""
        also = (  # (pytest's flag under pytest; the block's own switch in a script)
            " or `pytest --agentsnap-record`"
            if _PYTEST_SESSIONS
            else f', or this block once with `AgentAsserter({test_name!r}, ..., mode="record")`'
        )
        super().__init__(
            message
            or f"agentsnap: no snapshot for {test_name!r}{where}. Record it first: "
            f"`with AgentRecorder({test_name!r}): ...`{also}."
        )


class SnapshotFormatError(AgentsnapError, ValueError):
    """A snapshot file exists but cannot be used (unparseable, wrong version, wrong name).

    The file is never overwritten by agentsnap while in this state.
    """


class AdapterNotWrappedError(AgentsnapError):
    """A client no adapter wraps sent a request inside a block given ``adapters=[...]``.

    Raised before anything is sent; the message names the client (class and
    base URL) and the block. A ``BaseException``, like :class:`ReplayMissError`,
    so the SDKs' retry loops (which turn an ``Exception`` from ``send`` into a
    connection error and retry it with backoff) and the agent's ``except
    Exception`` blocks do not swallow a configuration mistake.
    """


class ReplayError(AgentsnapError, RuntimeError):
    """Replay cannot start for a block: the snapshot to serve cannot be chosen.

    Raised when the block is entered, before any call: agentsnap 0.5.1 goldens
    named by input (``NAME__<hash>.json``) when several match, or the one
    found belongs to another input. An ordinary ``RuntimeError`` (no SDK call
    is on the stack to swallow it). A call replay cannot serve raises
    :class:`ReplayMissError` instead.
    """


class ReplayMissError(AgentsnapError):
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
    ``host`` / ``port`` name the target. A :class:`ReplayMissError`: a request
    the offline run cannot serve, reported like a replay miss (the pytest
    plugin's clean one-line failure), and a ``BaseException`` so HTTP clients
    and SDK retry loops do not turn it into a retried connection error.
    """

    def __init__(self, message: str, host: str = "", port: int | None = None) -> None:
        super().__init__(message)
        self.host = host
        self.port = port


class SnapshotPendingError(AgentsnapError, AssertionError):
    """In CI, a snapshot exists but is not approved yet (``agentsnap approve`` it locally)."""


class AgentsnapWarning(UserWarning):
    """Warnings agentsnap emits (pending snapshots, re-recorded goldens, …)."""
