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
channel whose traffic is a session of ordered messages with a direction (an
MCP ``ClientSession`` over stdio or streamable HTTP, a ``websockets`` client)
fits this contract without a second path. Its transport registers like any
other (its seam: the session's open, send and receive methods) and maps the
session onto exchanges, in order:

* opening the session is one exchange: its :class:`Request` has ``method``
  ``"CONNECT"``, a ``url`` naming the channel and peer
  (``mcp+stdio://<server>/``, ``wss://host/path``: scrubbed, and the host is
  not part of the replay key), the session's metadata as ``headers``; its
  response is what the peer sends before the first outgoing message;
* each outgoing message is one exchange: ``method`` names the operation (the
  JSON-RPC method, or ``"SEND"``), ``content`` is the message, and its
  response is every incoming message up to the next outgoing one, stored as
  the ordered chunks of a stream (:func:`agentsnap.capture.sinks.body_sink`
  with a JSON-lines content type, one chunk per message).

Direction is given by position (a request is outgoing, its chunks incoming)
and order by the trace. Replay is then what it is for HTTP: each outgoing
message is looked up in the cassette by its request key (client-minted ids
compared up to a consistent renaming, :mod:`agentsnap.capture.client_ids`),
and its recorded incoming messages are released; no process or socket is
opened (the socket guard holds). A spec (``patches/*.toml``) recognises the
channel's traffic by the URL's host and path like any provider's, and its
codec turns tool calls and model turns into ordinary steps.
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
