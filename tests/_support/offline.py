"""The ``offline`` fixture: proof that replay opens no socket.

``with offline(): ...`` refuses every outgoing TCP connection made inside the
block (``socket.connect`` / ``connect_ex`` raise ``ConnectionRefusedError``),
remembers each attempt, and fails the test if there was any, at the block's
end and again at teardown (the fixture is in ``tests/conftest.py``; modules
import ``Offline`` for annotations).
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import pytest


class Offline:
    """Refuses every outgoing TCP connection while active; remembers each attempt."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch
        self.attempts: list[Any] = []

    @contextlib.contextmanager
    def __call__(self) -> Iterator[list[Any]]:
        def refuse(sock: socket.socket, address: Any, *args: Any) -> Any:
            self.attempts.append(address)
            raise ConnectionRefusedError(f"test: replay tried to open a socket to {address!r}")

        with self._monkeypatch.context() as m:
            m.setattr(socket.socket, "connect", refuse)
            m.setattr(socket.socket, "connect_ex", refuse)
            yield self.attempts
        assert self.attempts == [], f"replay opened sockets: {self.attempts}"
