"""Wrapping a library's function once, however often agentsnap installs its hooks.

agentsnap's hooks are ``wrapt`` function wrappers, installed when a library
is imported and never removed. Installing them again (a second import hook,
a reloaded module, another library wrapping on top of ours) must not stack a
second layer: :func:`wrapped_by` walks the ``__wrapped__`` chain (at most 16
layers) looking for one of ours, and :func:`wrap_once` wraps only when there
is none. :func:`wrap_everywhere` also rebinds a module-level function in the
modules that imported it by name before the hooks were installed.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["one_of", "wrap_everywhere", "wrap_once", "wrapped_by"]

#: how many ``__wrapped__`` layers are looked through
DEPTH = 16


def one_of(*wrappers: Callable[..., Any]) -> Callable[[Any], bool]:
    """A match for :func:`wrapped_by`: the layer's wrapper is one of ``wrappers``."""
    return lambda found: any(found is w for w in wrappers)


def wrapped_by(func: object, match: Callable[[Any], bool]) -> bool:
    """Whether a ``wrapt`` layer of ``func`` (``func`` itself, or below it) has a
    wrapper for which ``match(wrapper)`` is true."""
    seen = 0
    while func is not None and seen < DEPTH:
        if match(getattr(func, "_self_wrapper", None)):
            return True
        func, seen = getattr(func, "__wrapped__", None), seen + 1
    return False


def wrap_once(
    owner: object,
    name: str,
    wrapper: Callable[..., Any],
    match: Callable[[Any], bool] | None = None,
) -> None:
    """``wrapt.wrap_function_wrapper(owner, name, wrapper)`` unless ``owner.name`` is
    already wrapped by ``wrapper`` (or by a wrapper ``match`` accepts). For a class,
    only its own attribute counts (a subclass of a wrapped class gets no second layer:
    its inherited method is the wrapped one)."""
    import wrapt

    current = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    if not wrapped_by(current, match or one_of(wrapper)):
        wrapt.wrap_function_wrapper(owner, name, wrapper)


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
