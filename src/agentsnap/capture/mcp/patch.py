"""The hooks: ``mcp.ClientSession`` and the transports' context managers (wrapt).

Installed as wrapt post-import hooks when ``mcp`` is imported (the
``"mcp"`` transport of :data:`agentsnap.capture.transports.TRANSPORTS`), never
before; each wrapper does nothing unless a recording is active.

* A transport (``stdio_client``, ``streamable_http_client`` and 1.x's
  ``streamablehttp_client``, ``sse_client``, ``websocket_client``) names the
  server (:mod:`.servers`). Capture: the real transport opens (its own HTTP
  traffic is owned by this layer, so the HTTP hooks let it pass), and the
  streams it yields are tapped (:mod:`.taps`). Replay: the transport is not
  entered at all — no process starts, no socket opens — and the streams it
  yields are answered from the golden (:mod:`.peer`).
* ``ClientSession.__init__`` catches a session over streams no hooked transport
  opened (in-memory, a custom transport): it is captured and replayed the same
  way under the server name ``mcp``, and, in replay, reported, since its
  transport ran. A 2.x session built on a ``dispatcher=`` has no streams: it is
  reported as not captured.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ...exceptions import AgentsnapWarning
from .. import active
from ..ownership import owned, owner
from ..wrapping import wrap_everywhere, wrap_once
from .channel import Channel
from .peer import refuse_blocked, replay_streams
from .servers import UNKNOWN, Server, stdio_server, url_server
from .taps import OWNER, tapped, watched

__all__ = [
    "patch_session",
    "patch_sse",
    "patch_stdio",
    "patch_streamable_http",
    "patch_websocket",
]


class _TransportContext:
    """What a hooked transport function returns: its own context manager, or ours."""

    def __init__(
        self,
        wrapped: Callable[..., Any],
        server_of: Callable[..., Server],
        extra: tuple[Any, ...],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        self._wrapped, self._server_of, self._extra = wrapped, server_of, extra
        self._args, self._kwargs = args, kwargs
        self._inner: Any = None
        self._replay: Any = None

    async def __aenter__(self) -> Any:
        recording = active.current()
        if recording is None:  # a session opened before any recording: watched (taps.foreign)
            self._inner = self._wrapped(*self._args, **self._kwargs)
            return watched(tuple(await self._inner.__aenter__()))
        server = self._server_of(*self._args, **self._kwargs)
        if recording.mode == "replay":
            refuse_blocked(recording)  # no snapshot to serve: before the session's task group
        channel = Channel(server)
        recording.trace.add_mcp_channel(channel)
        if recording.mode == "replay":
            read, write = replay_streams(recording, server, channel)
            self._replay = write
            return (read, write, *self._extra)
        self._inner = self._wrapped(*self._args, **self._kwargs)
        with owned(OWNER):  # tasks the transport starts inherit it: its HTTP traffic is ours
            streams = await self._inner.__aenter__()
        return tapped(tuple(streams), channel, recording)

    async def __aexit__(self, *exc: Any) -> Any:
        if self._inner is not None:
            with owned(OWNER):  # closing may send too (streamable HTTP's DELETE of the session)
                return await self._inner.__aexit__(*exc)
        if self._replay is not None:
            self._replay.close()
        return None


def _hook(server_of: Callable[..., Server], extra: tuple[Any, ...] = ()) -> Callable[..., Any]:
    def wrapper(
        wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        if owner() == OWNER:  # a transport another hooked one opens (1.x streamablehttp_client)
            return wrapped(*args, **kwargs)
        return _TransportContext(wrapped, server_of, extra, args, kwargs)

    return wrapper


def _stdio(server: object = None, *args: Any, **kwargs: Any) -> Server:
    return stdio_server(server if server is not None else kwargs.get("server"))


def _url_server(kind: str) -> Callable[..., Server]:
    """The server of a URL transport called as ``f(url, headers=None, ..., http_client=None)``:
    its headers are the ``headers`` argument (keyword or second positional), else those of the
    ``http_client`` it was given."""

    def server_of(url: object = None, *args: Any, **kwargs: Any) -> Server:
        url = url if url is not None else kwargs.get("url")
        headers = kwargs.get("headers") or (args[0] if args and isinstance(args[0], dict) else None)
        client = kwargs.get("http_client")
        if headers is None and client is not None:
            headers = getattr(client, "headers", None)
        return url_server(kind, url, headers)

    return server_of


def _no_session_id() -> None:
    return None


_STDIO = _hook(_stdio)
_SSE = _hook(_url_server("sse"))
_WEBSOCKET = _hook(_url_server("websocket"))
_STREAMABLE_PAIR = _hook(_url_server("streamable-http"))
_STREAMABLE_TRIPLE = _hook(_url_server("streamable-http"), (_no_session_id,))


def patch_stdio(module: ModuleType) -> None:
    """``mcp.client.stdio.stdio_client``."""
    if hasattr(module, "stdio_client"):
        wrap_everywhere(module, "stdio_client", _STDIO)


def patch_streamable_http(module: ModuleType) -> None:
    """``streamable_http_client`` (and 1.x's ``streamablehttp_client``); 1.x yields a third
    item, the session-id getter (None in replay)."""
    wrapper = _STREAMABLE_TRIPLE if hasattr(module, "GetSessionIdCallback") else _STREAMABLE_PAIR
    for name in ("streamable_http_client", "streamablehttp_client"):
        if hasattr(module, name):
            wrap_everywhere(module, name, wrapper)


def patch_sse(module: ModuleType) -> None:
    """``mcp.client.sse.sse_client``."""
    if hasattr(module, "sse_client"):
        wrap_everywhere(module, "sse_client", _SSE)


def patch_websocket(module: ModuleType) -> None:
    """``mcp.client.websocket.websocket_client``."""
    if hasattr(module, "websocket_client"):
        wrap_everywhere(module, "websocket_client", _WEBSOCKET)


def _session_init(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    recording = active.current()
    if recording is None:
        return wrapped(*args, **kwargs)
    args = tuple(args)
    read = args[0] if args else kwargs.get("read_stream")
    write = args[1] if len(args) > 1 else kwargs.get("write_stream")
    if read is None or write is None:
        dispatcher = kwargs.get("dispatcher")
        streams = getattr(dispatcher, "_write_stream", None)
        if dispatcher is not None and getattr(streams, "agentsnap_channel", None) is None:
            # (a dispatcher over a hooked transport's streams, as mcp.Client builds, is captured)
            warnings.warn(
                "agentsnap: an MCP ClientSession built on a dispatcher (no message streams) was not captured: its "
                "tool calls are not in the snapshot and replay cannot serve them. Open the session over a transport "
                "(stdio_client, streamable_http_client, …) or in-memory streams instead.",
                AgentsnapWarning,
                stacklevel=3,
            )
        return wrapped(*args, **kwargs)
    if getattr(write, "agentsnap_channel", None) is not None:  # opened by a hooked transport
        return wrapped(*args, **kwargs)
    # streams no hooked transport opened in a recording (in-memory, custom, or a hooked one
    # opened before the recording started: watched, a session is recorded from here)
    if recording.mode == "replay":
        refuse_blocked(recording)  # no snapshot to serve: before the session's task group
    channel = Channel(UNKNOWN)
    recording.trace.add_mcp_channel(channel)
    if recording.mode == "replay":
        new_read, new_write = replay_streams(recording, UNKNOWN, channel)
        warnings.warn(
            "agentsnap: an MCP session over streams no hooked transport opened (in-memory, or a custom transport) "
            "is answered from the snapshot, but whatever opened those streams ran: agentsnap hooks stdio_client, "
            "streamable_http_client, sse_client and websocket_client, and starts none of them in replay.",
            AgentsnapWarning,
            stacklevel=3,
        )
    else:
        new_read, new_write = tapped((read, write), channel, recording)
    if len(args) >= 2:
        args = (new_read, new_write, *args[2:])
    elif args:
        args, kwargs["write_stream"] = (new_read,), new_write
    else:
        kwargs["read_stream"], kwargs["write_stream"] = new_read, new_write
    return wrapped(*args, **kwargs)


def patch_session(module: ModuleType) -> None:
    """``mcp.client.session.ClientSession.__init__``."""
    klass = getattr(module, "ClientSession", None)
    if isinstance(klass, type):
        wrap_once(klass, "__init__", _session_init)
