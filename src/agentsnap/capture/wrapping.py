"""Wrapping a library's function once, however often agentsnap installs its hooks.

agentsnap's hooks are ``wrapt`` function wrappers, installed when a library
is imported and never removed. Installing them again (a second import hook,
a reloaded module, another library wrapping on top of ours) must not stack a
second layer: :func:`wrapped_by` walks the ``__wrapped__`` chain (at most 16
layers) looking for one of ours, and :func:`wrap_once` wraps only when there
is none. :func:`wrap_everywhere` also rebinds a module-level function in the
modules that imported it by name before the hooks were installed.

A layer is ours by its wrapper's name (module and qualified name), not by the
function object: the library outlives agentsnap's modules when those are
imported again (pytester's in-process runs drop every module a run imported
first, ``agentsnap.capture.transports.httpx`` among them), and the next
import's wrapper is a new object. Matched by identity, it stacked a second
layer on ``httpx.Client.send``, and each layer stored the exchange (one call
recorded twice, then three times). An earlier import's layer is replaced by the
current one where it is the outermost layer, so calls reach the modules the
running session set up (its redact rules, its observer).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import wrapt

__all__ = ["one_of", "same_function", "wrap_everywhere", "wrap_once", "wrapped_by"]

#: how many ``__wrapped__`` layers are looked through
DEPTH = 16


def same_function(a: object, b: object) -> bool:
    """Whether ``a`` and ``b`` are one function, or the same function of two imports of
    its module (importing a module again makes new function objects)."""
    if a is b:
        return True
    return (
        callable(a)
        and callable(b)
        and getattr(a, "__module__", None) == getattr(b, "__module__", 0)
        and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", 0)
    )


def one_of(*wrappers: Callable[..., Any]) -> Callable[[Any], bool]:
    """A match for :func:`wrapped_by`: the layer's wrapper is one of ``wrappers``
    (:func:`same_function`: an earlier import's copy counts). The wrappers themselves are
    looked for first, by identity (what every check after the first install finds)."""

    def match(found: Any) -> bool:
        if found is None:
            return False
        for w in wrappers:
            if found is w:
                return True
        return any(same_function(found, w) for w in wrappers)

    return match


def _layer(func: object, match: Callable[[Any], bool]) -> Any:
    """The ``wrapt`` layer of ``func`` (``func`` itself, or below it) whose wrapper
    ``match`` accepts, or None."""
    seen = 0
    while func is not None and seen < DEPTH:
        if match(getattr(func, "_self_wrapper", None)):
            return func
        func, seen = getattr(func, "__wrapped__", None), seen + 1
    return None


def wrapped_by(func: object, match: Callable[[Any], bool]) -> bool:
    """Whether a ``wrapt`` layer of ``func`` (``func`` itself, or below it) has a
    wrapper for which ``match(wrapper)`` is true."""
    return _layer(func, match) is not None


def wrap_once(
    owner: object,
    name: str,
    wrapper: Callable[..., Any],
    match: Callable[[Any], bool] | None = None,
) -> None:
    """``wrapt.wrap_function_wrapper(owner, name, wrapper)`` unless ``owner.name`` is
    already wrapped by ``wrapper`` (or by a wrapper ``match`` accepts). For a class,
    only its own attribute counts (a subclass of a wrapped class gets no second layer:
    its inherited method is the wrapped one). The outermost layer of ``wrapper``'s copy
    from an earlier import of its module is replaced by ``wrapper`` (under another
    library's layer it stays: one layer either way)."""
    current = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    layer = _layer(current, match or one_of(wrapper))
    if layer is None:
        wrapt.wrap_function_wrapper(owner, name, wrapper)
        return
    found, inner = layer._self_wrapper, layer.__wrapped__
    if layer is current and found is not wrapper and same_function(found, wrapper):
        setattr(owner, name, wrapt.FunctionWrapper(inner, wrapper))


def wrap_everywhere(module: ModuleType, name: str, wrapper: Callable[..., Any]) -> None:
    """Wrap ``module.name``, and rebind the modules that imported the unwrapped function by name
    (``from mcp.client.stdio import stdio_client``, or an SDK keeping ``websockets.sync.client.connect``,
    before the hooks were installed: a module imported before the first ``AgentRecorder``). A module-level function, unlike a method, is
    copied into every importer's namespace."""
    import sys

    original = getattr(module, name)
    wrap_once(module, name, wrapper)
    wrapped = getattr(module, name)
    if wrapped is original:
        return
    for other in list(sys.modules.values()):
        namespace = getattr(other, "__dict__", None)
        if other is module or not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if value is original:
                namespace[key] = wrapped
