"""Kept after the change was taken out again (issue 30, sixteenth session): a regression test for
what a fast path here must not lose. ensure_patched's fast path (ff82630) for a registry whose patch function wraps without
``wrapping.wrap_once`` (the contract asks for an idempotent patch; wrap_once is named as the way,
not required): its seams are not in ``seams_held``, so a seam put back unwrapped (a test's
monkeypatch, another tool's undo) is never wrapped again by ``ensure_patched(registry)``. The
full pass (02d7d57) wraps it again. Low severity: agentsnap's own transports all use wrap_once."""

from __future__ import annotations

import sys
import types

import pytest

from agentsnap.capture import hooks
from agentsnap.capture.contract import Registry, Transport


def test_a_user_transport_seam_put_back_is_wrapped_again(monkeypatch: pytest.MonkeyPatch) -> None:
    lib = types.ModuleType("brk16_lib")

    class Thing:
        def send(self) -> str:
            return "sent"

    lib.Thing = Thing
    original = Thing.__dict__["send"]
    transport = types.ModuleType("brk16_transport")

    def patch(module: types.ModuleType) -> None:  # idempotent, by its own mark
        current = module.Thing.__dict__["send"]
        if getattr(current, "_brk16", False):
            return

        def send(self: object) -> str:
            return "captured " + current(self)

        send._brk16 = True  # type: ignore[attr-defined]
        module.Thing.send = send

    transport.patch = patch
    monkeypatch.setitem(sys.modules, "brk16_lib", lib)
    monkeypatch.setitem(sys.modules, "brk16_transport", transport)
    registry = Registry(Transport("brk16", (("brk16_lib", "brk16_transport:patch"),)))
    hooks.install(registry)
    hooks.ensure_patched(registry)
    assert Thing().send() == "captured sent"
    Thing.send = original  # a test's own replacement, undone
    hooks.ensure_patched(registry)  # the next start
    assert Thing().send() == "captured sent"
