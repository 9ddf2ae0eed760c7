"""The active recording: the state every send seam consults, and the process-global stack.

:class:`RecordingState` is what a transport reads and updates while a request
passes (mode, cassette, trace, CI block, adapter scope, counters);
:class:`~agentsnap.capture.recording.Recording` adds starting and stopping
(hooks, socket guard, never-silent observer) on top of it. :func:`current`
is the innermost active one.

Why process-global and not a ``contextvars.ContextVar``: a contextvar set in the
test's thread is invisible in ``ThreadPoolExecutor`` workers, so a tool that
calls the model from a worker would escape the recording (and, in replay, reach
the network). pytest runs one test at a time per process (xdist uses
processes), so one active recording per process is exact. Recordings nest:
an explicit ``AgentRecorder`` inside an auto-snapshotted test takes the calls
made inside it.

This module sits below everything that consults it (transports, the shared
exchange path, the observer, tool adapters) and imports none of them, so the
capture layer has no import cycle.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from ..exceptions import ReplayMissError, SnapshotMissingInCIError
from .trace import Trace

if TYPE_CHECKING:
    from .cassette import Cassette
    from .scope import AdapterScope

__all__ = ["Mode", "ObservedState", "RecordingState", "activate", "current", "deactivate"]

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


class RecordingState:
    """The state of one capture scope (a test, or an ``AgentRecorder`` block).

    ``mode``: ``"capture"`` (send for real and store every exchange; used by
    record and live) or ``"replay"`` (serve from ``cassette``, never send).
    ``block``: when set, the first LLM call raises ``block_error`` (default
    :class:`~agentsnap.exceptions.SnapshotMissingInCIError`) with this message
    before any socket opens (CI with no usable snapshot; a replay run's calls
    made outside any test). ``offline_reason``: why the socket guard is on, for
    its error (default: the test's).

    Started and stopped as a :class:`~agentsnap.capture.recording.Recording`.
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
        #: replay: the first request or connection refused because agentsnap cannot capture it
        #: (:func:`agentsnap.capture.observe.refuse`): the test fails with it even if the code
        #: under test swallowed it (an asyncio transport's write error closes the connection)
        self.refused: BaseException | None = None
        #: ``AgentAsserter(replay_tools=True)`` in replay: the golden's tool_call steps by tool
        #: name, served in order to :class:`~agentsnap.adapters.ToolAdapter` calls instead of
        #: running the tool (None: tools run)
        self.tool_results: dict[str, Any] | None = None
        self.trace = Trace()
        #: set by a block given explicit adapters (:class:`~agentsnap.AgentRecorder`'s
        #: ``adapters``): the transports refuse requests of clients outside it, and tool
        #: adapters outside it are not recorded (None: no scope)
        self.adapter_scope: AdapterScope | None = None
        #: the test's snapshot file could not be read (set by the pytest plugin): raised
        #: where the test ends (None: it loaded, or there is none)
        self.load_error: BaseException | None = None
        #: the never-silent observer's bookkeeping (:mod:`.observe`; None until a request is seen)
        self._observed: ObservedState | None = None
        #: replay: the golden's MCP sessions, matched to the sessions the test opens
        #: (:mod:`agentsnap.capture.mcp.peer`; built on first use)
        self.mcp_sessions: Any = None
        #: replay: the golden's WebSocket connections, claimed as the test opens connections
        #: (:mod:`agentsnap.capture.websocket.fake`; built on first use)
        self.ws_connections: Any = None
        self._guard: object | None = None
        self._observing = False
        #: set by :meth:`stop` (capture mode): HTTP requests seen while active, and how
        #: many LLM-looking ones were not captured (each got a warning, :mod:`.observe`)
        self.http_requests = 0
        self.uncaptured = 0


_stack: list[RecordingState] = []
_stack_lock = threading.Lock()


def activate(recording: RecordingState) -> None:
    """Make ``recording`` the one that receives captured calls (pushes on a stack)."""
    with _stack_lock:
        _stack.append(recording)


def deactivate(recording: RecordingState) -> None:
    """Remove ``recording`` from the stack (no error if it is not there)."""
    with _stack_lock:
        for i in range(len(_stack) - 1, -1, -1):
            if _stack[i] is recording:
                del _stack[i]
                break


def current() -> RecordingState | None:
    """The innermost active recording, or None. Lock-free read for the hot path."""
    try:
        return _stack[-1]
    except IndexError:
        return None
