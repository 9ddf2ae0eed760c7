"""``hooks.ensure_patched``'s fast path (issue 30, row 6): each recording's start re-checks the
hooked modules, and the full pass is skipped exactly when nothing it would look at changed."""

from __future__ import annotations

import sys
import types

import pytest

from agentsnap.capture import hooks
from tests.test_capture_coexistence import wrapper_layers

OURS = ["agentsnap.capture.transports.httpx.send_wrapper"]


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the modules httpx's patch function is called with (a full pass calls it with
    each of ``httpx`` and ``httpx2`` that is imported), counted from a settled state."""
    pytest.importorskip("httpx")
    from agentsnap.capture.transports import httpx as transport

    hooks.install()
    hooks.ensure_patched()
    seen: list[str] = []
    real = transport.patch

    def counting(module: types.ModuleType) -> None:
        seen.append(module.__name__)
        real(module)

    monkeypatch.setattr(transport, "patch", counting)
    return seen


def test_nothing_changed_no_pass(passes: list[str]) -> None:
    import httpx

    layer = httpx.Client.__dict__["send"]
    for _ in range(3):
        hooks.ensure_patched()
    assert passes == []
    assert httpx.Client.__dict__["send"] is layer
    assert wrapper_layers(layer) == OURS


def test_a_seam_replaced_is_wrapped_again(
    passes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test's own replacement of the wrapped method (the unwrapped function put back) is seen
    at the next start and wrapped, as the full pass always did; putting ours back runs a pass
    too (the seam changed again), which leaves it as it is."""
    import httpx

    layer = httpx.Client.__dict__["send"]
    monkeypatch.setattr(httpx.Client, "send", layer.__wrapped__)
    hooks.ensure_patched()
    assert passes.count("httpx") == 1
    assert wrapper_layers(httpx.Client.__dict__["send"]) == OURS
    hooks.ensure_patched()
    assert passes.count("httpx") == 1  # settled again: no second pass
    monkeypatch.setattr(httpx.Client, "send", layer)
    hooks.ensure_patched()
    assert passes.count("httpx") == 2
    assert httpx.Client.__dict__["send"] is layer


def test_a_hooked_module_imported_again_runs_the_pass(
    passes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hooked module that is another object in ``sys.modules`` (imported again, or stood in
    for) gets the full pass; so does its going away and coming back."""
    import httpx

    stand_in = types.ModuleType("httpx")
    monkeypatch.setitem(sys.modules, "httpx", stand_in)
    hooks.ensure_patched()
    assert passes.count("httpx") == 1
    hooks.ensure_patched()
    assert passes.count("httpx") == 1
    monkeypatch.setitem(sys.modules, "httpx", httpx)
    hooks.ensure_patched()
    assert passes.count("httpx") == 2
    assert wrapper_layers(httpx.Client.__dict__["send"]) == OURS


def test_a_patch_module_imported_again_runs_the_pass(
    passes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The patch function's module as another object (pytester drops agentsnap's modules: its
    next import's wrapper is a new object, see test_capture_coexistence) gets the full pass."""
    name = "agentsnap.capture.transports.httpx"
    module = sys.modules[name]
    copy = types.ModuleType(name)
    copy.__dict__.update(module.__dict__)
    monkeypatch.setitem(sys.modules, name, copy)
    hooks.ensure_patched()
    assert passes.count("httpx") == 1
