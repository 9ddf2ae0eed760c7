"""Never silent: LLM-looking traffic that was not captured is reported.

While a ``capture`` recording (record or live mode) is active:

* every HTTP transport agentsnap hooks reports each request it sees
  (:func:`note_request`); one that no provider spec recognised but that looks
  like an LLM call (:func:`agentsnap.spec.provider_specs.explain_miss`: a known
  provider host, an LLM endpoint path, an MCP JSON-RPC body) is noted with the reason;
* a socket-level observer reads the first bytes of each ``send`` /
  ``sendall`` on ``socket.socket`` and ``ssl.SSLSocket``: an HTTP/1.x
  request line (``POST /v1/chat/completions HTTP/1.1``) that no hooked
  transport announced was sent over an unhooked path (a raw ``socket``
  client, a bundled HTTP client, an HTTP library agentsnap does not hook). It
  is noted when it looks like an LLM call (method and path of a wire rule, or
  a known provider host by its ``Host`` header), when it is a WebSocket
  handshake to a provider host or path, or when its body, in the same write,
  is an MCP JSON-RPC request.

When the recording stops (:func:`report`), each noted request gives one
:class:`~agentsnap.exceptions.AgentsnapWarning` naming method, host, path and
why it was not captured, and the recording's ``http_requests`` /
``uncaptured`` counts feed the pytest terminal summary.

While a ``replay`` recording is active, an MCP JSON-RPC request and a provider
WebSocket handshake among them are refused instead, before they are sent
(:func:`refuse`): replay must not reach a live server, and the socket guard lets
loopback through. The test fails with
:class:`~agentsnap.exceptions.ReplayMissError` naming the request, the test and
the fix. An LLM-looking HTTP request (a heuristic match: a path, a host) is
warned about as when recording and sent; nothing is counted.

Not seen by the socket observer: TLS spoken through ``ssl.SSLObject`` (asyncio's
TLS transports; their plaintext never reaches a socket method), HTTP/2, and C
extensions that write to sockets themselves.

The observer is installed while at least one recording is active
(reference-counted) and restored afterwards if its wrapper is still the
class attribute. Per ``send`` it costs one slice and one ``startswith``. Under the pytest
plugin a replay recording parks it instead when it stops (``deactivate(park=True)``): the
wrappers stay, inert, for the next test's recording to turn on again (replacing a class's
methods twice a test cost a replayed test more than the rest of the observer), and
:func:`unpark` restores them where the pytest run ends. Outside pytest (a script's
``AgentAsserter`` blocks) nothing parks: the last recording to stop restores them, and the
script leaves the socket classes as it found them.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import warnings
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..exceptions import AgentsnapWarning
from ..storage.scrub import scrub_text
from . import active

if TYPE_CHECKING:
    from .active import ObservedState
    from .active import RecordingState as Recording

__all__ = [
    "UNHOOKED",
    "UNHOOKED_WEBSOCKET",
    "activate",
    "deactivate",
    "foreign_use",
    "note_captured",
    "note_request",
    "note_websocket",
    "refuse",
    "report",
    "totals",
]

#: the reason given for a request seen only at the socket level
UNHOOKED = (
    "it was sent over a path agentsnap does not hook (a raw socket, a bundled HTTP client, or an HTTP library other "
    "than httpx/httpx2), so it was neither recorded nor will it be replayed"
)

#: how :func:`agentsnap.spec.provider_specs.explain_miss` starts the reason of an MCP request
MCP_REASON_START = "it is an MCP request"

_METHODS = (b"GET ", b"POST ", b"PUT ", b"PATCH ", b"DELETE ", b"HEAD ", b"OPTIONS ")
_lock = threading.Lock()
_users = 0
_on = False  # read lock-free by the socket wrappers
_parked = False  # the wrappers left installed, inert, by a replay recording that stopped
_inside = threading.local()
#: process-wide: HTTP requests seen and LLM-looking ones not captured, over every recording
_totals: Counter[str] = Counter()
_saved: list[tuple[type, str, Callable[..., Any], Callable[..., Any], bool]] = []


def _state(recording: Recording) -> ObservedState:
    state = recording._observed
    if state is None:
        state = recording._observed = {"hooked": Counter(), "notes": {}, "requests": 0}
    return state


def note_request(
    recording: Recording, method: str, host: str, path: str, reason: str | None = None
) -> None:
    """A hooked transport saw a request (call it before sending).

    ``reason``: why the request was not captured although it looks like an
    LLM call (:func:`agentsnap.spec.provider_specs.explain_miss`), or None (captured,
    or not LLM-like). Counts in ``capture`` mode; thread-safe. In ``replay`` mode an MCP
    request (a reason of :data:`MCP_REASON_START`) is refused (:func:`refuse`: it would reach
    a live server); another one with a reason is warned about at the end, as in capture
    mode (not by a blocked recording: a run's calls outside tests, CI without a snapshot); all
    are announced to the socket observer, none counted.
    """
    if recording.mode != "capture":
        if reason is not None and reason.startswith(MCP_REASON_START):
            _refuse_uncaptured(recording, f"{method.upper()} {host}{scrub_text(path)}", reason)
        with _lock:
            state = _state(recording)
            state["hooked"][(method.upper(), path)] += 1
            if reason is not None and recording.block is None:  # warned at the end, as in capture
                state["notes"].setdefault((method.upper(), host, scrub_text(path)), reason)
        return
    with _lock:
        state = _state(recording)
        state["requests"] += 1
        _totals["requests"] += 1
        state["hooked"][(method.upper(), path)] += 1
        if reason is not None:
            state["notes"].setdefault((method.upper(), host, scrub_text(path)), reason)


def note_captured(recording: Recording, key: tuple[str, str]) -> None:
    """:func:`note_request` of a request a spec recognised (no reason), in ``capture`` mode (the
    caller checks), its ``key`` (upper-case method, path) known already."""
    with _lock:
        state = recording._observed or _state(recording)
        state["requests"] += 1
        _totals["requests"] += 1
        state["hooked"][key] += 1


def note_websocket(recording: Recording, path: str) -> None:
    """The WebSocket hook (:mod:`agentsnap.capture.websocket`) captured the handshake ``GET path``
    (or, in replay, sends it to the replayed server): the socket observer does not report it
    (it is not counted as an HTTP request)."""
    with _lock:
        _state(recording)["hooked"][("GET", path)] += 1


#: the reason given for a WebSocket handshake seen only at the socket level
UNHOOKED_WEBSOCKET = (
    "it is a WebSocket connection opened by a client other than the `websockets` library's (which agentsnap "
    "hooks), so its messages were neither recorded nor will they be replayed (docs/websocket.md)"
)
#: paths of provider WebSocket APIs (OpenAI Realtime and Responses, Gemini Live)
_WEBSOCKET_PATHS = ("/realtime", "/responses", "BidiGenerateContent")


def _note_socket(
    method: str, host: str, path: str, headers: dict[str, str], body: bytes | None
) -> None:
    recording = active.current()
    if recording is None:
        return
    from .ownership import INTERNAL, owner

    layer = owner()  # an agentsnap layer handling the request (MCP's session, a transport)
    if layer == INTERNAL:  # agentsnap's own request (the LLM judge)
        return
    from ..spec.provider_specs import looks_like_llm, mcp_miss

    why: str | None = None
    with _lock:
        state = _state(recording)
        hooked = state["hooked"]
        key = (method, path)
        if hooked.get(key, 0) > 0:  # announced by a hooked transport just before it sent
            hooked[key] -= 1
            return
        if headers.get("upgrade", "").lower() == "websocket":
            if looks_like_llm("POST", host, path, headers) or any(
                p in path for p in _WEBSOCKET_PATHS
            ):
                why = UNHOOKED_WEBSOCKET
        else:
            if recording.mode == "capture":
                state["requests"] += 1
                _totals["requests"] += 1
            if looks_like_llm(method, host, path, headers):
                why = UNHOOKED
            elif body is not None and layer is None:  # JSON-RPC in the headers' write
                why = mcp_miss(method, body)
        # replay refuses an MCP request and a provider WebSocket handshake; an LLM-looking
        # request (a heuristic match) is warned about, as when recording
        refused = why not in (None, UNHOOKED) and recording.mode != "capture" and layer is None
        if why is not None and not refused and (recording.mode == "capture" or not recording.block):
            state["notes"].setdefault((method, host, scrub_text(path)), why)
    if refused and why is not None:
        what = "WebSocket " if why == UNHOOKED_WEBSOCKET else f"{method} "
        _refuse_uncaptured(recording, f"{what}{host}{scrub_text(path)}", why)


def _sniff(sock: Any, data: Any) -> None:
    try:
        head = bytes(data[:4096])
    except Exception:
        return
    if not head.startswith(_METHODS):
        return
    end = head.find(b"\r\n\r\n")
    block = head if end < 0 else head[:end]
    lines = block.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
        return
    method = parts[0].decode("ascii", "replace")
    target = parts[1].decode("latin-1")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if sep:
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    host = headers.get("host", "")
    if "://" in target:  # absolute form (a request to a proxy)
        rest = target.split("://", 1)[1]
        host, _, target = rest.partition("/")
        target = "/" + target
    if not host:
        try:
            host = str(sock.getpeername()[0])
        except Exception:
            host = "?"
    host = _host_only(host)
    body = head[end + 4 :] if end >= 0 else None
    _note_socket(method, host, target.split("?", 1)[0].split("#", 1)[0], headers, body or None)


def _host_only(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    def observed(self: object, data: object, *args: object, **kwargs: object) -> Any:
        if not _on or getattr(_inside, "busy", False):
            return original(self, data, *args, **kwargs)
        with contextlib.suppress(Exception):
            _sniff(self, data)
        # SSLSocket.sendall calls self.send, a plain SSLSocket's falls back to socket.sendall:
        # the same bytes are looked at once
        _inside.busy = True
        try:
            return original(self, data, *args, **kwargs)
        finally:
            _inside.busy = False

    observed.__agentsnap_observer__ = True  # type: ignore[attr-defined]
    observed.__wrapped__ = original  # type: ignore[attr-defined]
    return observed


def _targets() -> list[type]:
    classes: list[type] = [socket.socket]
    try:
        import ssl

        classes.append(ssl.SSLSocket)
    except ImportError:  # pragma: no cover - Python built without ssl
        pass
    return classes


def activate() -> None:
    """Turn the socket observer on (reference-counted; :class:`Recording` calls it in either mode)."""
    global _users, _on, _parked
    with _lock:
        _users += 1
        if _users > 1:
            return
        if _parked:
            _parked = False
            if all(cls.__dict__.get(name) is wrapper for cls, name, _, wrapper, _ in _saved):
                _on = True  # the parked wrappers are still the class attributes: on again
                return
            _restore()  # someone patched over a parked wrapper: ours stays inert in their chain
        for cls in _targets():
            for name in ("send", "sendall"):
                own = cls.__dict__.get(name)
                if own is not None and getattr(own, "__agentsnap_observer__", False):
                    continue
                original = own if own is not None else getattr(cls, name)
                wrapper = _wrap(original)
                setattr(cls, name, wrapper)
                _saved.append((cls, name, original, wrapper, own is None))
        _on = True


def deactivate(*, park: bool = False) -> None:
    """Undo one :func:`activate`; the last one restores the socket methods (if still ours), or
    with ``park`` leaves them installed and inert until the next :func:`activate` or
    :func:`unpark`."""
    global _users, _on, _parked
    with _lock:
        if _users == 0:
            return
        _users -= 1
        if _users:
            return
        _on = False
        if park:
            _parked = True
            return
        _restore()


def unpark() -> None:
    """Restore the socket methods a parked observer left installed (no recording active)."""
    global _parked
    with _lock:
        if _parked and _users == 0:
            _restore()
        _parked = False


def _restore() -> None:
    for cls, name, original, wrapper, inherited in reversed(_saved):
        if cls.__dict__.get(name) is wrapper:
            if inherited:
                delattr(
                    cls, name
                )  # socket.socket's send came from _socket.socket: drop the override
            else:
                setattr(cls, name, original)
        # else: someone patched on top of ours; ours stays in their chain, inert while _on is False
    _saved.clear()


def totals() -> dict[str, int]:
    """``{"requests": n, "uncaptured": m}`` over every capture recording of this process so far."""
    with _lock:
        return {"requests": _totals["requests"], "uncaptured": _totals["uncaptured"]}


def report(recording: Recording, *, where: str = "") -> list[str]:
    """Warn once per noted request of ``recording``; return the messages.

    Sets ``recording.http_requests`` (HTTP requests seen while it was active)
    and ``recording.uncaptured`` (how many LLM-looking ones were not captured).
    """
    if recording._observed is None:  # nothing noted (a replayed test's calls are all served)
        recording.http_requests = recording.uncaptured = 0
        return []
    with _lock:
        state = _state(recording)
        notes = dict(state["notes"])
        recording.http_requests = state["requests"]
        recording.uncaptured = len(notes)
        _totals["uncaptured"] += len(notes)
        state["notes"].clear()
    messages = []
    scope = f" in {where}" if where else ""
    for (method, host, path), why in notes.items():
        if why == UNHOOKED_WEBSOCKET:
            msg = f"agentsnap: WebSocket {host}{path}{scope} was not captured: {why}."
        elif why.startswith(MCP_REASON_START):
            msg = (
                f"agentsnap: {method} {host}{path}{scope} was not captured: {why}. The snapshot does not "
                "contain it and replay cannot serve it (docs/mcp.md)."
            )
        else:
            msg = (
                f"agentsnap: {method} {host}{path}{scope} looks like an LLM call but was not captured: {why}. "
                "The snapshot does not contain it and replay cannot serve it; see docs/providers.md "
                "(`[[match.wire]]` rules) to recognise it."
            )
        messages.append(msg)
        warnings.warn(msg, AgentsnapWarning, stacklevel=3)
    return messages


def _test_name(recording: Recording) -> str:
    """The running pytest test's node id (pytest's ``PYTEST_CURRENT_TEST``), else the name of
    ``recording``'s snapshot (an ``AgentRecorder`` block's), else ""."""
    import os

    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    if current:
        return current.rsplit(" (", 1)[0]
    cassette = recording.cassette
    return cassette.name if cassette is not None else ""


def refuse(recording: Recording, what: str, why: str, fix: str) -> None:
    """Replay: ``what`` (``"POST 127.0.0.1/mcp"``, ``"WebSocket 127.0.0.1/v1/realtime"``) is
    about to be sent, and replay cannot serve it (``why``). Replay must not reach a live
    server, loopback included: raise :class:`~agentsnap.exceptions.ReplayMissError` before it
    is sent, naming the test and what to do (``fix``, a sentence ending before the
    ``--agentsnap-live`` alternative), kept as the recording's first miss and its
    :attr:`~agentsnap.capture.active.RecordingState.refused` (the test fails even if the code
    under test swallows it)."""
    from ..exceptions import ReplayMissError

    name = _test_name(recording)
    test = f" in {name}" if name else ""
    exc = ReplayMissError(
        f"agentsnap replay: {what}{test} was refused before it was sent: {why}. Sent, it would reach "
        f"a live server, which replay never does (docs/concepts.md#modes). Fix: {fix}; or run the test "
        "live (--agentsnap-live)."
    )
    recording.misses += 1
    if recording.first_miss is None:
        recording.first_miss = exc
    if recording.refused is None:
        recording.refused = exc
    raise exc


def _refuse_uncaptured(recording: Recording, what: str, reason: str) -> None:
    """:func:`refuse` what a record run warns about (``reason``: why it was not captured)."""
    import shlex

    name = _test_name(recording)
    record = f"pytest {shlex.quote(name)}" if "::" in name else "pytest THE_TEST"
    if reason == UNHOOKED_WEBSOCKET:
        instead = "open the connection with the `websockets` library's asyncio or sync client"
    else:  # an MCP request
        instead = "send it through the mcp SDK (mcp.Client, or a ClientSession over stdio_client / streamable_http_client)"
    refuse(
        recording,
        what,
        f"agentsnap cannot capture it, so the snapshot does not hold it ({reason})",
        f"{instead}, then re-record: `{record} --agentsnap-record`",
    )


def foreign_use(current: Recording, *, sent: str, on: str, opened_before: bool, fix: str) -> None:
    """``sent`` (``"an MCP tools/call request"``, ``"a message"``) went out, while ``current``
    is active, on ``on`` (``"a session"``, ``"the WebSocket connection to URL"``) that was opened
    outside it: before any recording (``opened_before``), or in another one. Replay raises
    :class:`~agentsnap.exceptions.ReplayMissError` (kept as the recording's first miss): the
    channel is live, or another test's. Capture warns: it is not in this test's snapshot.
    The caller says how often (once per channel and recording)."""
    where = (
        "before any recording started"
        if opened_before
        else "in another recording (a fixture shared between tests?)"
    )
    if current.mode == "replay":
        from ..exceptions import ReplayMissError

        exc = ReplayMissError(
            f"agentsnap replay: {sent} was sent on {on} opened {where}: replay cannot serve it from this "
            f"test's snapshot, and it may reach its server. {fix}"
        )
        current.misses += 1
        if current.first_miss is None:
            current.first_miss = exc
        raise exc
    warnings.warn(
        f"agentsnap: {sent} was sent on {on} opened {where}: it is not in this test's snapshot, and "
        f"replay will not serve it. {fix}",
        AgentsnapWarning,
        stacklevel=4,
    )
