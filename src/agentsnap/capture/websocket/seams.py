"""The hooks on the ``websockets`` library (wrapt), installed when it is imported, never before.

One seam records every client, sync, asyncio or trio, whatever SDK sits on top (the openai
SDK's Realtime and Responses WebSocket clients, google-genai Live, the OpenAI Agents SDK):
the library's Sans-I/O protocol, which they all share.

* ``ClientProtocol.send_request`` (the handshake) opens a :class:`~.frames.Connection` in the
  active recording's trace, named by its URL (scrubbed; the credentials in its headers and
  query remembered for scrubbing), unless another agentsnap layer owns it (an MCP session
  over WebSocket is recorded by :mod:`agentsnap.capture.mcp`);
* ``ClientProtocol.process_response``: the handshake's status and subprotocol;
* ``Protocol.send_frame`` / ``Protocol.recv_frame``: each data frame (fragments joined) and
  the close, in wire order, decompressed.

Replay opens no network connection: ``websockets.asyncio.client.connect.open_tcp_connection``
and ``websockets.sync.client.reconnect.open_socket`` (with ``enable_tls``) hand the library's
own client one end of a socket pair whose other end plays the golden's connection
(:mod:`.fake`). A connection no recorded one is left for raises
:class:`~agentsnap.exceptions.ReplayMissError` where the SDK connects.
"""

from __future__ import annotations

import threading
import weakref
from types import ModuleType
from typing import Any

from ...exceptions import SnapshotFormatError
from ...storage.scrub import scrub_url
from .. import active
from ..ownership import owner
from ..wrapping import wrap_everywhere, wrap_once
from .fake import ReplayPeer, recorded_connections
from .frames import Connection

__all__ = ["patch_asyncio_client", "patch_client", "patch_protocol", "patch_sync_client"]

_ATTR = "_agentsnap_connection"
_PEER = "_agentsnap_peer"
_OPENED_IN = "_agentsnap_opened_in"
#: header names not kept on the step: the handshake's own, and what a client says of its
#: machine (differs between machines, so a golden would not be stable)
_HANDSHAKE_HEADERS = (
    "sec-websocket-",
    "upgrade",
    "connection",
    "host",
    "user-agent",
    "origin",
    "x-stainless-",
    "x-goog-api-client",
)
#: sync replay: the peer a connection being opened in this thread replays
_opening = threading.local()


def _uri_text(wsuri: Any) -> str:
    scheme = "wss" if getattr(wsuri, "secure", False) else "ws"
    host = str(getattr(wsuri, "host", ""))
    port = getattr(wsuri, "port", None)
    default = 443 if scheme == "wss" else 80
    netloc = host if port in (None, default) else f"{host}:{port}"
    path = str(getattr(wsuri, "path", "") or "/")
    query = str(getattr(wsuri, "query", "") or "")
    return f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")


def _client_uri(protocol: Any) -> Any:
    """A ``ClientProtocol``'s ``WebSocketURI`` (``uri``; ``wsuri`` before websockets 14)."""
    return getattr(protocol, "uri", None) or getattr(protocol, "wsuri", None)


# -- record: the Sans-I/O protocol ---------------------------------------------------------------


def _send_request(
    wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    recording = active.current()
    peer = getattr(instance, _PEER, None) or getattr(_opening, "peer", None)
    asked = getattr(_opening, "uri", None) if peer is not None else None
    _opening.peer = _opening.uri = None
    # which recording the connection was opened in (None: none), so that a message it sends
    # while another recording is active is reported (_foreign)
    setattr(instance, _OPENED_IN, weakref.ref(recording) if recording is not None else None)
    if (
        recording is not None
        and recording.mode == "replay"
        and peer is None
        and owner() is None
        and getattr(instance, "side", None) is not None  # (a ClientProtocol's, always)
    ):
        _refuse_live(recording, asked or _client_uri(instance))
    if recording is not None and owner() is None and recording.block is None:
        from ..mcp.servers import url_server

        request = args[0] if args else kwargs.get("request")
        headers: Any = getattr(request, "headers", None)
        pairs = list(headers.raw_items()) if hasattr(headers, "raw_items") else []
        wsuri = asked or _client_uri(instance)
        url = _uri_text(wsuri)
        described = dict(url_server("websocket", url, pairs).described)
        if described.get("headers"):
            kept = [h for h in described["headers"] if not h.startswith(_HANDSHAKE_HEADERS)]
            described["headers"] = kept
            if not kept:
                del described["headers"]
        path = str(getattr(wsuri, "path", "/") or "/")
        connection = Connection(described, path)
        if isinstance(peer, ReplayPeer):
            connection.replay_connection = peer.recorded.number
            connection.replay_step = peer.recorded.index
            connection.served = peer.served
            peer.connection = connection
        setattr(instance, _ATTR, connection)
        recording.trace.add_ws_connection(connection)
        from ..observe import note_websocket

        note_websocket(recording, path)
    return wrapped(*args, **kwargs)


def _refuse_live(recording: Any, wsuri: Any) -> None:
    """Replay: a handshake replay did not open the connection for (the test handed
    ``connect`` its own socket, ``sock=``; or a client whose opening replay does not replace)
    would go to the live server: refused before it is sent (the recording's block error
    when it blocks calls)."""
    url = scrub_url(_uri_text(wsuri))
    if recording.block is not None:
        recording.blocked_calls += 1
        raise recording.block_error(f"{recording.block} (a WebSocket connection to {url})")
    from ..observe import refuse

    refuse(
        recording,
        f"the WebSocket connection to {url}",
        "replay did not open this connection, so it cannot play the recorded one back on it: the "
        "socket was opened by the test and handed to `connect` as `sock=`, or by a client whose "
        "opening replay does not replace",
        "let `connect` open the connection itself (no `sock=`: replay plays the recorded connection "
        "back to it, nothing to re-record)",
    )


def _process_response(
    wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    connection = getattr(instance, _ATTR, None)
    try:
        return wrapped(*args, **kwargs)
    finally:
        if isinstance(connection, Connection):
            response = args[0] if args else kwargs.get("response")
            connection.status = getattr(response, "status_code", None)
            connection.subprotocol = getattr(instance, "subprotocol", None)


def _frame(direction: str, instance: Any, frame: Any) -> None:
    connection = getattr(instance, _ATTR, None)
    if not isinstance(connection, Connection):
        return
    from websockets.frames import Close, Opcode

    opcode = frame.opcode
    if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
        connection.fragment(direction, opcode is Opcode.TEXT, bytes(frame.data), frame.fin)
    elif opcode is Opcode.CONT:
        connection.fragment(direction, None, bytes(frame.data), frame.fin)
    elif opcode is Opcode.CLOSE:
        try:
            close = Close.parse(frame.data) if frame.data else None
        except Exception:
            close = None
        connection.closed(direction, close.code if close else None, close.reason if close else "")


def _send_frame(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    frame = args[0] if args else kwargs["frame"]
    current = active.current()
    if getattr(instance, _ATTR, None) is not None and (
        current is None or _opened_in(instance) is current
    ):
        _frame("send", instance, frame)
    elif current is not None:
        _foreign(instance, frame)
    return wrapped(*args, **kwargs)


def _opened_in(instance: Any) -> object:
    """The recording a connection was opened in (None: none, or it is gone)."""
    ref = getattr(instance, _OPENED_IN, None)
    return ref() if ref is not None else None


def _foreign(instance: Any, frame: Any) -> None:
    """A client message on a connection opened outside the active recording (before it, or in
    another test's): it is neither recorded nor replayed. Replay raises (the connection may reach
    the live server); capture warns once per connection and recording."""
    current = active.current()
    if current is None or owner() is not None:
        return
    from websockets.frames import Opcode
    from websockets.protocol import Side

    if frame.opcode is not Opcode.TEXT and frame.opcode is not Opcode.BINARY:
        return
    if getattr(instance, "side", None) is not Side.CLIENT:
        return  # a server's (a test's own fake, replay's peer)
    # no mark: opened before agentsnap's hooks were installed, so before any recording
    opened = getattr(instance, _OPENED_IN, None)
    if opened is not None and opened() is current:
        return
    reported: set[int] = getattr(instance, "_agentsnap_reported", set())
    if id(current) in reported and current.mode != "replay":
        return
    reported.add(id(current))
    instance._agentsnap_reported = reported
    from ..observe import foreign_use

    foreign_use(
        current,
        sent="a message",
        on=f"the WebSocket connection to {scrub_url(_uri_text(_client_uri(instance)))}",
        opened_before=opened is None,
        fix=(
            "Open the connection inside the test (a function-scoped fixture, or `with`/`async with` "
            "in the test), so its messages are recorded and replayed with the test."
        ),
    )


def _recv_frame(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if getattr(instance, _ATTR, None) is not None:
        _frame("recv", instance, args[0] if args else kwargs["frame"])
    return wrapped(*args, **kwargs)


def patch_protocol(module: ModuleType) -> None:
    """``websockets.protocol``: every data and close frame of a recorded connection."""
    wrap_once(module.Protocol, "send_frame", _send_frame)
    wrap_once(module.Protocol, "recv_frame", _recv_frame)


def patch_client(module: ModuleType) -> None:
    """``websockets.client``: the handshake of every client connection."""
    wrap_once(module.ClientProtocol, "send_request", _send_request)
    wrap_once(module.ClientProtocol, "process_response", _process_response)


# -- replay: no network ------------------------------------------------------------------------


def _replay_peer(wsuri: Any) -> ReplayPeer | None:
    """The fake server a connection to ``wsuri`` replays (None: not replaying). Raises the
    recording's block error, or :class:`ReplayMissError` when no recorded connection is left."""
    recording = active.current()
    if recording is None or owner() is not None:
        return None
    if recording.block is not None:
        recording.blocked_calls += 1
        raise recording.block_error(
            f"{recording.block} (a WebSocket connection to {scrub_url(_uri_text(wsuri))})"
        )
    if recording.mode != "replay":
        return None
    try:
        table = recorded_connections(recording)
    except SnapshotFormatError as bad:  # kept: raised where the test ends if the SDK swallows it
        if recording.first_miss is None:
            recording.first_miss = bad
        raise
    path = str(getattr(wsuri, "path", "/") or "/")
    found = table.claim(path) if table is not None else None
    if table is None or found is None:
        from .fake import RecordedConnections

        exc = (table or RecordedConnections([], name="", path=None, strict=False)).unmatched(
            _uri_text(wsuri), path
        )
        recording.misses += 1
        if recording.first_miss is None:
            recording.first_miss = exc
        raise exc
    return ReplayPeer(recording, table, found)


async def _open_tcp_connection(
    wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    peer = _replay_peer(instance.ws_uri)
    if peer is None:
        return await wrapped(*args, **kwargs)
    import asyncio

    loop = asyncio.get_running_loop()
    sock = peer.open()

    def factory() -> Any:
        connection = instance.factory(instance.ws_uri)
        setattr(connection.protocol, _PEER, peer)
        return connection

    _, connection = await loop.create_connection(factory, sock=sock)
    return connection


async def _create_connection(
    wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """websockets 13 to 16: ``connect.create_connection`` opens the network."""
    from websockets.uri import parse_uri

    ws_uri = parse_uri(instance.uri)
    peer = _replay_peer(ws_uri)
    if peer is None:
        return await wrapped(*args, **kwargs)
    import asyncio

    loop = asyncio.get_running_loop()
    sock = peer.open()

    def factory() -> Any:
        connection = instance.protocol_factory(ws_uri)
        setattr(connection.protocol, _PEER, peer)
        return connection

    _, connection = await loop.create_connection(factory, sock=sock)
    return connection


def patch_asyncio_client(module: ModuleType) -> None:
    """``websockets.asyncio.client``: replay hands ``connect`` a socket pair's end
    (``open_tcp_connection`` from websockets 17, ``create_connection`` before)."""
    if hasattr(module.connect, "open_tcp_connection"):
        wrap_once(module.connect, "open_tcp_connection", _open_tcp_connection)
    elif hasattr(module.connect, "create_connection"):
        wrap_once(module.connect, "create_connection", _create_connection)


def _open_socket(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    _opening.peer = None
    peer = _replay_peer(instance.ws_uri)
    if peer is None:
        return wrapped(*args, **kwargs)
    _opening.peer = peer
    return peer.open()


def _enable_tls(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    sock = args[0] if args else kwargs.get("sock")
    if getattr(_opening, "peer", None) is not None:
        return sock  # the replayed server speaks plain frames over the socket pair
    return wrapped(*args, **kwargs)


def _sync_connect(
    wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """websockets 13 to 16: the sync ``connect`` function opens the network itself; replay
    gives it the socket pair's end as ``sock`` (and a ``ws://`` URI: the fake speaks no TLS)."""
    from websockets.uri import parse_uri

    uri = str(args[0] if args else kwargs.pop("uri"))
    ws_uri = parse_uri(uri)
    _opening.peer = None
    peer = _replay_peer(ws_uri)
    if peer is None:
        return wrapped(uri, *args[1:], **kwargs)
    kwargs["sock"] = peer.open()
    for key in ("ssl", "server_hostname", "ssl_context"):
        kwargs.pop(key, None)
    if ws_uri.secure:
        uri = "ws" + uri[3:]
    _opening.peer = peer
    _opening.uri = ws_uri  # what the connection is named by (the client asked for wss)
    return wrapped(uri, **kwargs)


def patch_sync_client(module: ModuleType) -> None:
    """``websockets.sync.client``: replay hands ``connect`` a socket pair's end
    (``reconnect.open_socket`` from websockets 17, the ``connect`` function before; a module
    that imported that function by name before the hooks were installed is rebound)."""
    reconnect = getattr(module, "reconnect", None)
    if reconnect is not None and hasattr(reconnect, "open_socket"):
        wrap_once(reconnect, "open_socket", _open_socket)
        wrap_once(reconnect, "enable_tls", _enable_tls)
    elif hasattr(module, "connect"):
        wrap_everywhere(module, "connect", _sync_connect)
