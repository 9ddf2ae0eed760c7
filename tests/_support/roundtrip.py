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
from typing import Any, Generic, TypeVar

from agentsnap import AgentAsserter, AgentRecorder
from tests._support.offline import Offline

__all__ = ["RoundTrip", "arecord_then_replay", "record_then_replay"]

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
