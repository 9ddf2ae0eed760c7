"""The runtime object the send wrappers consult: mode, trace, cassette."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from .. import trace as _trace
from ..exceptions import ReplayMissError, SnapshotMissingInCIError
from ..replay import Cassette

if TYPE_CHECKING:
    from ..adapters import AdapterScope

__all__ = ["Mode", "ObservedState", "Recording"]

#: what a recording does with a recognised request
Mode = Literal["capture", "replay"]


class ObservedState(TypedDict):
    """What the never-silent observer (:mod:`.observe`) keeps for one capture recording."""

    #: requests a hooked transport announced and the socket observer has not seen yet,
    #: by (METHOD, path)
    hooked: Counter[tuple[str, str]]
    #: LLM-looking requests not captured, with the reason: (method, host, path) -> why
    notes: dict[tuple[str, str, str], str]
    requests: int


class Recording:
    """One active capture scope (a test, or an ``AgentRecorder`` block).

    ``mode``: ``"capture"`` (send for real and store every exchange; used by
    record and live) or ``"replay"`` (serve from ``cassette``, never send).
    ``block``: when set, the first LLM call raises ``block_error`` (default
    :class:`~agentsnap.exceptions.SnapshotMissingInCIError`) with this message
    before any socket opens (CI with no usable snapshot; a replay run's calls
    made outside any test). ``offline_reason``: why the socket guard is on, for
    its error (default: the test's).

    Use as a context manager, or call :meth:`start` / :meth:`stop`.

    A ``replay`` recording (served from a snapshot, or blocked) turns the
    socket guard on from :meth:`start` to :meth:`stop`
    (:mod:`agentsnap.capture.guard`): no thread of the process reaches
    anything but loopback and ``allowed_hosts`` meanwhile. A ``capture``
    recording turns the socket observer on (:mod:`agentsnap.capture.observe`)
    and, at :meth:`stop`, warns about each LLM-looking request that was not
    captured (method, host, path, why).
    """

    def __init__(
        self,
        mode: Mode = "capture",
        *,
        cassette: Cassette | None = None,
        block: str | None = None,
        block_error: type[ReplayMissError] = SnapshotMissingInCIError,
        offline_reason: str | None = None,
    ) -> None:
        if mode not in ("capture", "replay"):
            raise ValueError(
                f"agentsnap: unknown capture mode {mode!r} (expected 'capture' or 'replay')"
            )
        if mode == "replay" and cassette is None and block is None:
            raise ValueError("agentsnap: replay mode needs a cassette")
        self.mode: Mode = mode
        self.cassette = cassette
        self.block = block
        self.block_error = block_error
        self.offline_reason = offline_reason
        #: LLM calls refused because of ``block``
        self.blocked_calls = 0
        #: replayed calls that had no recording (ReplayMissError raised)
        self.misses = 0
        #: the first of them: raised again where the test ends if the code under test swallowed
        #: or replaced it (LangChain's async agenerate turns it into an AttributeError)
        self.first_miss: BaseException | None = None
        #: ``AgentAsserter(replay_tools=True)`` in replay: the golden's tool_call steps by tool
        #: name, served in order to :class:`~agentsnap.adapters.ToolAdapter` calls instead of
        #: running the tool (None: tools run)
        self.tool_results: dict[str, Any] | None = None
        self.trace = _trace.Trace()
        #: set by a block given explicit adapters (:class:`~agentsnap.AgentRecorder`'s
        #: ``adapters``): the transports refuse requests of clients outside it, and tool
        #: adapters outside it are not recorded (None: no scope)
        self.adapter_scope: AdapterScope | None = None
        #: the test's snapshot file could not be read (set by the pytest plugin): raised
        #: where the test ends (None: it loaded, or there is none)
        self.load_error: BaseException | None = None
        #: the never-silent observer's bookkeeping (:mod:`.observe`; None until a request is seen)
        self._observed: ObservedState | None = None
        self._guard: object | None = None
        self._observing = False
        #: set by :meth:`stop` (capture mode): HTTP requests seen while active, and how
        #: many LLM-looking ones were not captured (each got a warning, :mod:`.observe`)
        self.http_requests = 0
        self.uncaptured = 0

    def start(self) -> Recording:
        from .hooks import ensure_patched, install

        install()
        ensure_patched()
        if self.mode == "replay" and self._guard is None:
            from . import guard

            why = self.offline_reason or (
                "this is CI and the test has no usable snapshot, so it must not reach the network"
                if self.block is not None
                else "the test replays from its snapshot, so it runs offline"
            )
            self._guard = guard.activate(why)
        if self.mode == "capture" and not self._observing:
            from . import observe

            observe.activate()
            self._observing = True
        _trace.activate(self)
        return self

    def stop(self) -> None:
        """Deactivate, lift the socket guard, and finalise streams that were never closed (kept as incomplete)."""
        _trace.deactivate(self)
        if self._guard is not None:
            from . import guard

            guard.deactivate(self._guard)
            self._guard = None
        self.trace.close_open_streams()
        if self._observing:
            from . import observe

            self._observing = False
            observe.deactivate()
            observe.report(self)

    def __enter__(self) -> Recording:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
