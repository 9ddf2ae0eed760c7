"""Kept after the change was taken out again (issue 30, sixteenth session): a regression test for
what a fast path here must not lose. The socket guard keeping its patches across activations (ff82630).

``deactivate`` used to drop ``_patches``; the next ``activate`` built them again from what the
``socket`` module holds *then* (``_targets()``: ``socket.socket``'s methods). Kept, the patches
stay bound to the ``socket.socket`` class and the "previous" function of the first activation:

* a ``socket.socket`` replaced after that (gevent's ``monkey.patch_all()`` style: a class of
  its own, with its own ``connect``) is never guarded again: non-loopback connects go out
  while a replay recording runs;
* another library's wrapper made with ``functools.wraps`` over the guard's wrapper (copying its
  ``_agentsnap_guard`` mark) is taken for the guard's own by the next activation, and the
  kept ``previous`` from the earlier activation lets ``remove`` delete it at deactivation.

Each passes on 02d7d57.
"""

from __future__ import annotations

import _socket
import functools
import socket
from typing import Any

import pytest

from agentsnap.capture import guard
from agentsnap.exceptions import NetworkBlockedError

BLACKHOLE = ("192.0.2.1", 9)  # TEST-NET-1


def _connect(address: tuple[str, int] = BLACKHOLE) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(0.3)
    try:
        sock.connect(address)
    finally:
        sock.close()


def test_a_socket_class_replaced_between_activations_is_guarded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with guard.guarded("a first replayed test"):
        pass
    attempts: list[Any] = []

    class GreenSocket(socket.socket):  # gevent-like: its own connect, not socket.socket's
        def connect(self, address: Any) -> Any:
            attempts.append(address)
            # gevent connects through the C socket type, not socket.socket.connect (never leaves
            # loopback here: the attempt is what the test counts)
            return _socket.socket.connect(self, ("127.0.0.1", 1))

    monkeypatch.setattr(socket, "socket", GreenSocket)
    with guard.guarded("a later replayed test"), pytest.raises(NetworkBlockedError):
        _connect()
    assert attempts == []


def test_a_foreign_wrapper_made_with_functools_wraps_survives_the_next_activation() -> None:
    with guard.guarded("first"):
        pass
    token = guard.activate("second")
    ours = socket.socket.__dict__["connect"]
    calls: list[Any] = []

    @functools.wraps(ours)  # copies __dict__: the _agentsnap_guard mark comes along
    def theirs(self: socket.socket, address: Any) -> Any:
        calls.append(address)
        return ours(self, address)

    socket.socket.connect = theirs  # type: ignore[method-assign]
    try:
        guard.deactivate(token)
        assert socket.socket.__dict__.get("connect") is theirs
        with guard.guarded("third"):
            pass
        assert socket.socket.__dict__.get("connect") is theirs, (
            "their patch was deleted by the guard"
        )
    finally:
        if socket.socket.__dict__.get("connect") is theirs:
            del socket.socket.connect
