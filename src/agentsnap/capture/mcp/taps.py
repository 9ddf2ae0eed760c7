"""Capture: an MCP session's streams, wrapped so each message is noted as it passes.

:class:`TapSend` wraps the stream the client writes to, :class:`TapReceive` the
one it reads from; each hands the JSON-RPC message (:func:`.jsonrpc.as_dict`)
to the session's :class:`~.channel.Channel` and passes the item on unchanged.
Everything else (closing, cloning, ``async with``, attributes such as 2.x's
``last_context``) is the wrapped stream's.
"""

from __future__ import annotations

from typing import Any

from .. import active
from ..ownership import owned
from .channel import Channel
from .jsonrpc import as_dict

__all__ = ["OWNER", "TapReceive", "TapSend", "tapped"]

#: the owner name of MCP's own HTTP traffic (:mod:`agentsnap.capture.ownership`): the HTTP hooks
#: let it pass (it is recorded here, at the session)
OWNER = "mcp"


def foreign(current: Any, data: dict[str, Any], opened_in: object, key: object) -> None:
    """A request sent, while ``current`` records, on a session opened outside it (``opened_in``:
    the recording it was opened in, None: none): replay raises, since the session is live (or
    another test's); capture warns once per session and recording
    (:func:`agentsnap.capture.observe.foreign_use`)."""
    from ..observe import foreign_use

    if current.mode != "replay":
        seen = _warned.setdefault(id(current), set())
        if key in seen:
            return
        seen.add(key)
    foreign_use(
        current,
        sent=f"an MCP {data.get('method')} request",
        on="a session",
        opened_before=opened_in is None,
        fix=(
            "Open the MCP session inside the test (a function-scoped fixture, or `async with` in the "
            "test), so its calls are recorded and replayed with the test."
        ),
    )


#: id(recording) -> the sessions already warned about in it
_warned: dict[int, set[object]] = {}


class TapSend:
    """The client's write stream, noting each message it sends (``channel`` None: a session
    opened with no recording active, watched so its use in a recording is reported)."""

    def __init__(self, inner: Any, channel: Channel | None, opened_in: object = None) -> None:
        self._inner = inner
        self.agentsnap_channel = channel
        self._opened_in = opened_in

    def _note(self, item: object) -> None:
        data = as_dict(item)
        if data is None:
            return
        current = active.current()
        request = "id" in data and isinstance(data.get("method"), str)
        if request and current is not None and current is not self._opened_in:
            foreign(current, data, self._opened_in, id(self))
        if self.agentsnap_channel is not None:
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
        return TapSend(self._inner.clone(), self.agentsnap_channel, self._opened_in)

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
        import anyio

        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            self.agentsnap_channel.close(by_server=True)  # the server's end closed
            raise
        return self._note(item)

    def receive_nowait(self) -> object:
        return self._note(self._inner.receive_nowait())

    def __aiter__(self) -> TapReceive:
        return self

    async def __anext__(self) -> object:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None
        except anyio.ClosedResourceError:
            self.agentsnap_channel.close(by_server=False)
            raise StopAsyncIteration from None

    def clone(self) -> TapReceive:
        return TapReceive(self._inner.clone(), self.agentsnap_channel)

    async def __aenter__(self) -> TapReceive:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        self.agentsnap_channel.close(by_server=False)  # the client closes: what it still waits for
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def tapped(streams: tuple[Any, ...], channel: Channel, opened_in: object) -> tuple[Any, ...]:
    """``(read, write, *rest)`` with read and write wrapped for ``channel`` (opened in the
    recording ``opened_in``)."""
    read, write, *rest = streams
    return (TapReceive(read, channel), TapSend(write, channel, opened_in), *rest)


def watched(streams: tuple[Any, ...]) -> tuple[Any, ...]:
    """A session opened with no recording active: its write stream watched, so a request it
    sends while a recording is active is reported (:func:`foreign`)."""
    read, write, *rest = streams
    return (read, TapSend(write, None, None), *rest)
