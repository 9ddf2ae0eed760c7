"""Kept after the change was taken out again (issue 30, sixteenth session): a regression test for
what a fast path here must not lose. ensure_patched's fast path (ff82630) vs a hooked module caught mid-import.

A module is in ``sys.modules`` from the start of its import; its classes appear as its body runs.
A recording that starts in one thread while another thread imports a hooked module again
(``sys.modules`` purged: wrapt's post-import hook fired at the first import and is gone, so
ensure_patched is the only thing that wraps the new classes) sees the module object without its
``Client``: the full pass wraps nothing. The fast path then remembers that module object, and
every later start skips the pass, since the module object and the tracked seams are unchanged:
the new ``Client.send`` stays unwrapped for the rest of the process. The full pass on every start
(02d7d57) wraps it at the next start.

Simulated deterministically: a stand-in module object, empty when the pass runs, then given its
classes (what the importing thread's body does).
"""

from __future__ import annotations

import sys
import types

import pytest

from agentsnap.capture import hooks


def test_a_module_seen_mid_import_is_wrapped_once_its_body_has_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    httpx = pytest.importorskip("httpx")
    hooks.install()
    hooks.ensure_patched()
    importing = types.ModuleType("httpx")  # the re-import, its body not run yet
    monkeypatch.setitem(sys.modules, "httpx", importing)
    hooks.ensure_patched()  # a recording starts in another thread meanwhile

    class Client:  # the re-import's body runs on: a fresh class, its own send
        def send(self, request: object) -> object:
            return request

    class AsyncClient:
        async def send(self, request: object) -> object:
            return request

    importing.Client = Client
    importing.AsyncClient = AsyncClient
    del httpx
    hooks.ensure_patched()  # the next recording's start
    assert hasattr(Client.__dict__["send"], "_self_wrapper"), (
        "the re-imported Client.send is never wrapped"
    )
    assert hasattr(AsyncClient.__dict__["send"], "_self_wrapper")
