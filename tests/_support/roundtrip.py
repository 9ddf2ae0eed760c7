"""The record → replay round trip most capture tests make: one copy.

``run`` makes the agent's calls (building its client inside, so replay gets a
fresh one); it runs once inside ``AgentRecorder`` against a fake server, then
``stop()`` shuts the server down and it runs again inside an ``AgentAsserter``
in replay mode with every socket refused (the ``offline`` fixture). The
result holds both return values and how long the replay took (retry waits
must not be slept through again).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from agentsnap import AgentAsserter, AgentRecorder
from tests._support.offline import Offline

__all__ = [
    "RoundTrip",
    "arecord_then_replay",
    "arecord_with",
    "areplay_with",
    "record_then_replay",
    "record_with",
    "replay_with",
]

T = TypeVar("T")


@dataclass(frozen=True)
class RoundTrip(Generic[T]):
    live: T
    replayed: T
    #: seconds the replayed run took (measured inside the asserter block)
    elapsed: float


def record_then_replay(
    snapshot_dir: Path,
    name: str,
    offline: Offline,
    run: Callable[[], T],
    *,
    stop: Callable[[], Any] = lambda: None,
) -> RoundTrip[T]:
    """Record ``run()`` live, ``stop()`` the server, replay ``run()`` offline."""
    with AgentRecorder(name, snapshot_dir=snapshot_dir):
        live = run()
    stop()
    with offline(), AgentAsserter(name, snapshot_dir=snapshot_dir, mode="replay"):
        started = time.monotonic()
        replayed = run()
        elapsed = time.monotonic() - started
    return RoundTrip(live, replayed, elapsed)


def arecord_then_replay(
    snapshot_dir: Path,
    name: str,
    offline: Offline,
    run: Callable[[], Awaitable[T]],
    *,
    stop: Callable[[], Any] = lambda: None,
) -> RoundTrip[T]:
    """:func:`record_then_replay` for a coroutine: each half in its own ``asyncio.run``."""

    async def record() -> T:
        async with AgentRecorder(name, snapshot_dir=snapshot_dir):
            return await run()

    async def replay() -> tuple[T, float]:
        async with AgentAsserter(name, snapshot_dir=snapshot_dir, mode="replay"):
            started = time.monotonic()
            result = await run()
            return result, time.monotonic() - started

    live = asyncio.run(record())
    stop()
    with offline():
        replayed, elapsed = asyncio.run(replay())
    return RoundTrip(live, replayed, elapsed)


# -- the halves, for tests that check something between them (a provider's shapes files) ------
#
# ``make(base_url, **client_kw)`` builds the SDK client; ``run(client)`` makes the calls. A
# shapes file binds its client factory once:
# ``record_sync = functools.partial(record_with, make=sync_client)``.


class _Server(Protocol):
    base_url: str

    def stop(self) -> None: ...


def record_with(
    snapshot_dir: Path,
    name: str,
    fake: _Server,
    run: Callable[[Any], T],
    *,
    make: Callable[..., Any],
    **client_kw: Any,
) -> T:
    """Record ``run(client)`` against ``fake``, then stop it."""
    with AgentRecorder(name, snapshot_dir=snapshot_dir):
        result = run(make(fake.base_url, **client_kw))
    fake.stop()
    return result


def replay_with(
    snapshot_dir: Path,
    name: str,
    base_url: str,
    offline: Offline,
    run: Callable[[Any], T],
    *,
    make: Callable[..., Any],
    **client_kw: Any,
) -> T:
    """Replay ``run(client)`` offline, the client pointed at the stopped server's address."""
    with offline(), AgentAsserter(name, snapshot_dir=snapshot_dir, mode="replay"):
        return run(make(base_url, **client_kw))


def arecord_with(
    snapshot_dir: Path,
    name: str,
    fake: _Server,
    run: Callable[[Any], Awaitable[T]],
    *,
    make: Callable[..., Any],
    **client_kw: Any,
) -> T:
    """:func:`record_with` for an async client (one ``asyncio.run``)."""

    async def main() -> T:
        async with AgentRecorder(name, snapshot_dir=snapshot_dir):
            return await run(make(fake.base_url, **client_kw))

    result = asyncio.run(main())
    fake.stop()
    return result


def areplay_with(
    snapshot_dir: Path,
    name: str,
    base_url: str,
    offline: Offline,
    run: Callable[[Any], Awaitable[T]],
    *,
    make: Callable[..., Any],
    **client_kw: Any,
) -> T:
    """:func:`replay_with` for an async client (one ``asyncio.run``, offline)."""

    async def main() -> T:
        async with AgentAsserter(name, snapshot_dir=snapshot_dir, mode="replay"):
            return await run(make(base_url, **client_kw))

    with offline():
        return asyncio.run(main())
