"""Capture: an MCP session's streams, wrapped so each message is noted as it passes.

:class:`TapSend` wraps the stream the client writes to, :class:`TapReceive` the
one it reads from; each hands the JSON-RPC message (:func:`.jsonrpc.as_dict`)
to the session's :class:`~.channel.Channel` and passes the item on unchanged.
Everything else (closing, cloning, ``async with``, attributes such as 2.x's
``last_context``) is the wrapped stream's.
"""

from __future__ import annotations

from typing import Any

from ..ownership import owned
from .channel import Channel
from .jsonrpc import as_dict

__all__ = ["OWNER", "TapReceive", "TapSend", "tapped"]

#: the owner name of MCP's own HTTP traffic (:mod:`agentsnap.capture.ownership`): the HTTP hooks
#: let it pass (it is recorded here, at the session)
OWNER = "mcp"


class TapSend:
    """The client's write stream, noting each message it sends."""

    def __init__(self, inner: Any, channel: Channel) -> None:
        self._inner = inner
        self.agentsnap_channel = channel

    def _note(self, item: object) -> None:
        data = as_dict(item)
        if data is not None:
            self.agentsnap_channel.sent(data)

    async def send(self, item: object) -> None:
        self._note(item)
        with owned(OWNER):  # mcp 2.x sends each message's HTTP request in the writer's context
            await self._inner.send(item)

    def send_nowait(self, item: object) -> None:
        self._note(item)
        with owned(OWNER):
            self._inner.send_nowait(item)

    def clone(self) -> TapSend:
        return TapSend(self._inner.clone(), self.agentsnap_channel)

    async def __aenter__(self) -> TapSend:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class TapReceive:
    """The client's read stream, noting each message the server sent."""

    def __init__(self, inner: Any, channel: Channel) -> None:
        self._inner = inner
        self.agentsnap_channel = channel

    def _note(self, item: object) -> object:
        data = as_dict(item)
        if data is not None:
            self.agentsnap_channel.received(data)
        return item

    async def receive(self) -> object:
        return self._note(await self._inner.receive())

    def receive_nowait(self) -> object:
        return self._note(self._inner.receive_nowait())

    def __aiter__(self) -> TapReceive:
        return self

    async def __anext__(self) -> object:
        import anyio

        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self.agentsnap_channel.close()
            raise StopAsyncIteration from None

    def clone(self) -> TapReceive:
        return TapReceive(self._inner.clone(), self.agentsnap_channel)

    async def __aenter__(self) -> TapReceive:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        self.agentsnap_channel.close()
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def tapped(streams: tuple[Any, ...], channel: Channel) -> tuple[Any, ...]:
    """``(read, write, *rest)`` with read and write wrapped for ``channel``."""
    read, write, *rest = streams
    return (TapReceive(read, channel), TapSend(write, channel), *rest)
