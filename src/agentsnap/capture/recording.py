"""The runtime object the send seams consult, started and stopped: :class:`Recording`.

Its state (mode, cassette, trace, counters) and the process-global stack of
active recordings are :mod:`agentsnap.capture.active`; this module adds what
starting and stopping switch on: the transport hooks, the socket guard
(replay) and the never-silent observer (warns in capture, refuses in replay).
"""

from __future__ import annotations

from ..exceptions import _PYTEST_SESSIONS
from . import guard as _guard
from . import hooks as _hooks
from . import observe as _observe
from .active import Mode, ObservedState, RecordingState, activate, deactivate

__all__ = ["Mode", "ObservedState", "Recording"]


class Recording(RecordingState):
    """One active capture scope (a test, or an ``AgentRecorder`` block); see
    :class:`~agentsnap.capture.active.RecordingState` for its arguments.

    Use as a context manager, or call :meth:`start` / :meth:`stop`.

    A ``replay`` recording (served from a snapshot, or blocked) turns the
    socket guard on from :meth:`start` to :meth:`stop`
    (:mod:`agentsnap.capture.guard`): no thread of the process reaches
    anything but loopback and ``allowed_hosts`` meanwhile. Every recording turns the
    socket observer on (:mod:`agentsnap.capture.observe`): a ``capture`` one warns at
    :meth:`stop` about each LLM-looking request (an MCP JSON-RPC request, a provider
    WebSocket handshake) that was not captured (method, host, path, why); a ``replay``
    one refuses such a request before it is sent (it would reach a live server, loopback
    included) with :class:`~agentsnap.exceptions.ReplayMissError`.
    """

    def start(self) -> Recording:
        _hooks.install()
        _hooks.ensure_patched()
        if self.mode == "replay" and self._guard is None:
            why = self.offline_reason or (
                "this is CI and the test has no usable snapshot, so it must not reach the network"
                if self.block is not None
                else "the test replays from its snapshot, so it runs offline"
            )
            self._guard = _guard.activate(why)
        if not self._observing:
            _observe.activate()
            self._observing = True
        activate(self)
        return self

    def stop(self) -> None:
        """Deactivate, lift the socket guard, and finalise streams that were never closed (kept as incomplete)."""
        deactivate(self)
        if self._guard is not None:
            _guard.deactivate(self._guard)
            self._guard = None
        self.trace.close_open_streams()
        if self._observing:
            self._observing = False
            # under pytest a replay recording parks the observer, unparked where the run ends
            # (observe.unpark); a script's last recording restores the socket classes at once
            _observe.deactivate(park=self.mode == "replay" and bool(_PYTEST_SESSIONS))
            _observe.report(self)

    def __enter__(self) -> Recording:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
