"""Stand-ins for the module an SDK's retry code sleeps through (``time``, ``anyio``,
``asyncio``): each records the waits it was asked for, sleeps for real only when told
to, and hands every other attribute to the real module. A test swaps one in with
``monkeypatch.setattr(sdk_module, "time", SleepSpy(...))`` and then asserts the waits:
live retries wait as the SDK says, replayed ones not at all."""

from __future__ import annotations

import asyncio
import time
from types import ModuleType
from typing import Any

__all__ = ["AsyncSleepSpy", "SleepSpy"]


class SleepSpy:
    """A stand-in for ``module`` (default ``time``) whose ``sleep`` records ``seconds``
    in :attr:`calls` and sleeps only when ``really_sleep``."""

    def __init__(self, really_sleep: bool = False, module: ModuleType = time) -> None:
        self.really_sleep = really_sleep
        self.calls: list[float] = []
        self._module = module

    def sleep(self, seconds: float) -> None:
        self.calls.append(seconds)
        if self.really_sleep:
            time.sleep(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


class AsyncSleepSpy:
    """The async form for ``module`` (``anyio`` or ``asyncio``): ``await sleep(seconds)``
    records, and sleeps through the real module only when ``really_sleep``."""

    def __init__(self, really_sleep: bool = False, module: ModuleType = asyncio) -> None:
        self.really_sleep = really_sleep
        self.calls: list[float] = []
        self._module = module

    async def sleep(self, seconds: float) -> None:
        self.calls.append(seconds)
        if self.really_sleep:
            await self._module.sleep(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)
