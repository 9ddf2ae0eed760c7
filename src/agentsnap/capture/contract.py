"""The transport contract: what a transport declares once, and what it does for each request.

A *transport* is the hook on one library's send seam (httpx/httpx2
``Client.send``, ``http.client``, urllib3, aiohttp, DSPy's lm15). It declares
itself once, as a :class:`Transport` in the registry
(:data:`agentsnap.capture.transports.TRANSPORTS`, a :class:`Registry`): a
name and the ``(module, "package.module:function")`` pairs whose import
patches its seam. :mod:`agentsnap.capture.hooks` installs every registered
transport as wrapt post-import hooks; no transport module (nor its library)
is imported before the library is.

For each request the patched seam sees, a transport:

1. returns the real call untouched when :func:`agentsnap.capture.active.current`
   is None or another agentsnap layer owns the request
   (:func:`agentsnap.capture.ownership.owner`);
2. builds a :class:`Request` (its library's request object when it reads
   like one, else a :class:`~agentsnap.capture.request.WireRequest`) and calls
   :func:`agentsnap.capture.exchange.open_exchange` with it and the object
   that sends it (``sender``). That one shared path recognises the provider
   (and tells the never-silent observer), checks the recording's adapter
   scope, applies the CI block and starts the exchange in the trace. None:
   not an LLM call, send it untouched;
3. in replay, serves :func:`agentsnap.capture.serving.take_recorded` as its
   library's own response object (a miss raises
   :class:`~agentsnap.exceptions.ReplayMissError`), never sending;
4. in capture, sends inside :func:`agentsnap.capture.exchange.sending`
   (``transport`` = its declared name: inner layers let the request pass, an
   error is stored) and stores the response with
   :func:`agentsnap.capture.sinks.record_read_body` or a
   :func:`agentsnap.capture.sinks.body_sink` fed as the library reads.

A recording made over one transport replays over any other: the stored
exchange does not name the library, and the replay key ignores the host.

Beyond HTTP (``DESIGN.md``, "Beyond HTTP request/response: sessions"): a
channel whose traffic is a session of ordered messages with a direction
registers like any other transport (its hooks: the session's constructor and
the functions that open it), and stores each outgoing request as an exchange
that the same :class:`~agentsnap.capture.cassette.Cassette` serves in replay:

* MCP (:mod:`agentsnap.capture.mcp`, the ``"mcp"`` transport): the session's
  message streams are the seam. A session's ``connect`` step names the peer
  (scrubbed); each JSON-RPC request is an exchange with request
  ``{"method": "MCP", "path": <JSON-RPC method>, "body": <params>}`` (no id, no
  ``_meta``) and response ``{"body": {"result" | "error": …}, "messages": [the
  server's notifications and requests while it was pending]}``. Each recorded
  session gets its own cassette, so lookup is by request key within the
  session (client-minted values compared up to a renaming,
  :mod:`agentsnap.capture.client_ids`), with the same drift fallback and miss
  errors as HTTP. The transport is never entered in replay: no process, no
  socket. It does not go through :func:`~agentsnap.capture.exchange.open_exchange`:
  provider recognition, the adapter scope and the LLM-call CI block are about
  LLM calls; an MCP request in a blocked recording raises the block's error.
* WebSocket (:mod:`agentsnap.capture.websocket`, the ``"websocket"`` transport): the
  ``websockets`` library's Sans-I/O protocol is the seam. A connection is one ``websocket``
  step holding every message with its direction (what replay plays back); its model turns
  are read as the HTTP request/response their provider's codec reads, so they become
  ``llm_call`` steps (with ``connection``, no ``exchange``). Replay does not use a
  :class:`~agentsnap.capture.cassette.Cassette` lookup: a connection is claimed by URL path
  in opening order and its client messages are checked in order (same id renaming and drift
  rule as HTTP). A connection in a blocked recording raises the block's error where it opens.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from ..exceptions import AgentsnapError

__all__ = ["URL", "Headers", "Registry", "Request", "Transport", "TransportRegistryError"]


class URL(Protocol):
    """What the shared path reads of a request's URL (``httpx.URL`` reads this way)."""

    @property
    def scheme(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def query(self) -> bytes | str: ...


class Headers(Protocol):
    """Case-insensitive request headers (``httpx.Headers`` reads this way)."""

    def get(self, name: str, default: str | None = None) -> str | None: ...
    def __contains__(self, name: object) -> bool: ...


class Request(Protocol):
    """What a transport hands the shared path for one request: read, never mutated."""

    @property
    def method(self) -> str: ...
    @property
    def url(self) -> URL: ...
    @property
    def headers(self) -> Headers: ...
    @property
    def content(self) -> bytes:
        """The body (an unread streaming body may raise: then :meth:`read` is called)."""

    def read(self) -> bytes: ...


@dataclass(frozen=True)
class Transport:
    """One transport, declared once.

    ``name``: what marks the requests it owns (:func:`~agentsnap.capture.ownership.owned`)
    and names it in messages. ``hooks``: ``(module, "package.module:function")``
    pairs: when ``module`` is imported (or at once, if it already is), the
    function is imported and called with it to patch the seam, idempotently
    (:func:`agentsnap.capture.wrapping.wrap_once`). A failing patch warns once
    and leaves the import alone.
    """

    name: str
    hooks: tuple[tuple[str, str], ...]


class TransportRegistryError(AgentsnapError, ValueError):
    """A transport registered twice, or with no hook."""


class Registry:
    """The transports agentsnap installs, in registration order (each name once)."""

    def __init__(self, *transports: Transport) -> None:
        self._transports: dict[str, Transport] = {}
        for transport in transports:
            self.register(transport)

    def register(self, transport: Transport) -> Transport:
        """Add ``transport``; a second transport of the same name, or one with no hook, is refused."""
        if transport.name in self._transports:
            raise TransportRegistryError(
                f"agentsnap: a transport named {transport.name!r} is already registered"
            )
        if not transport.hooks:
            raise TransportRegistryError(
                f"agentsnap: transport {transport.name!r} declares no hook"
            )
        self._transports[transport.name] = transport
        return transport

    def __iter__(self) -> Iterator[Transport]:
        return iter(tuple(self._transports.values()))

    def __len__(self) -> int:
        return len(self._transports)

    def hooks(self) -> Iterator[tuple[str, str]]:
        """Every ``(module, "package.module:function")`` pair, transport by transport."""
        for transport in self:
            yield from transport.hooks
