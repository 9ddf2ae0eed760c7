"""Post-import hooks that wrap the send seam of every HTTP library an LLM stack uses, once.

:func:`install` registers wrapt post-import hooks for the modules ``httpx`` and
``httpx2`` and for the other transports (:data:`TRANSPORT_HOOKS`:
``http.client``, ``urllib3``, ``aiohttp``, DSPy's bundled lm15 transport); it
imports none of them (nor any SDK). When a module is imported — or right away
if it already is — ``Client.send`` and ``AsyncClient.send`` are wrapped with
:mod:`agentsnap.capture.send`, the others by their adapter in
:mod:`agentsnap.capture.transports`. The wrappers stay for the life of
the process and are switched by the active recording, because SDK objects
capture bound methods at construction time (an unwrap would not reach them).

Idempotent: installing twice, or ``httpx2.alias_httpx()`` making both names one
module, never stacks two agentsnap layers. A hook that fails warns once and
never breaks the user's ``import`` (wrapt would propagate the exception).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["HOOKED_MODULES", "TRANSPORT_HOOKS", "ensure_patched", "install", "is_installed"]

HOOKED_MODULES = ("httpx", "httpx2")

#: (module whose import triggers the hook, ``"package.module:function"`` called with it)
TRANSPORT_HOOKS: tuple[tuple[str, str], ...] = (
    ("http.client", "agentsnap.capture.transports.stdlib:patch"),
    ("urllib3.connectionpool", "agentsnap.capture.transports.urllib3:patch"),
    ("aiohttp.client", "agentsnap.capture.transports.aiohttp:patch"),
    ("dspy._vendor.lm15.transports._sync", "agentsnap.capture.transports.lm15:patch_sync"),
    ("dspy._vendor.lm15.transports._async", "agentsnap.capture.transports.lm15:patch_async"),
)

_installed = False
_lock = threading.Lock()


def install() -> None:
    """Register the hooks (cheap; safe to call any number of times)."""
    global _installed
    if _installed:
        return
    with _lock:
        if _installed:
            return
        import wrapt

        for name in HOOKED_MODULES:
            wrapt.register_post_import_hook(_patch_module, name)
        for name, call in TRANSPORT_HOOKS:
            wrapt.register_post_import_hook(_transport_hook(call), name)
        from ..spec.providers import load_specs

        for spec in load_specs():
            for module, call in spec.hooks:
                wrapt.register_post_import_hook(_guarded(spec.name, call), module)
        _installed = True


def ensure_patched() -> None:
    """Re-check the httpx modules currently imported and wrap any unwrapped ``send``.

    A post-import hook fires once per module object; when a module is
    imported again (``sys.modules`` purged, reloaded) its new classes would
    go unwrapped. Cheap: a few attribute lookups when everything is wrapped.
    """
    import sys

    seen: set[int] = set()
    for name in HOOKED_MODULES:
        module = sys.modules.get(name)
        if module is not None and id(module) not in seen:
            seen.add(id(module))
            _patch_module(module)
    for name, call in TRANSPORT_HOOKS:
        module = sys.modules.get(name)
        if module is not None:
            _transport_hook(call)(module)


def is_installed() -> bool:
    """Whether :func:`install` has run in this process."""
    return _installed


def _calling(call: str, failed: Callable[[Any, Exception], str]) -> Callable[[Any], None]:
    """A post-import hook that imports ``"pkg.mod:function"`` lazily and calls it with the
    imported module (the patches are idempotent); a failure warns with ``failed(module,
    exc)`` and leaves the import alone."""

    def hook(module: Any) -> None:
        try:
            import importlib

            mod_name, _, func_name = call.partition(":")
            getattr(importlib.import_module(mod_name), func_name)(module)
        except Exception as exc:
            warnings.warn(failed(module, exc), stacklevel=2)

    return hook


def _name(module: Any) -> str:
    return repr(getattr(module, "__name__", module))


def _guarded(provider: str, call: str) -> Callable[[Any], None]:
    """The post-import hook of one quirk patch of ``provider``'s spec (see :func:`_calling`)."""
    return _calling(
        call,
        lambda module, exc: (
            f"agentsnap: {provider}: quirk patch {call} for {_name(module)} failed ({exc}); "
            "other providers are unaffected."
        ),
    )


def _transport_hook(call: str) -> Callable[[Any], None]:
    """The post-import hook of one transport adapter (see :func:`_calling`)."""
    return _calling(call, _not_hooked)


def _not_hooked(module: Any, exc: Exception) -> str:
    return (
        f"agentsnap: could not hook {_name(module)} ({exc}); "
        "LLM calls through it will not be captured or replayed."
    )


def _patch_module(module: Any) -> None:
    try:
        from .send import async_send_wrapper, send_wrapper
        from .wrapping import one_of, wrap_once

        ours = one_of(send_wrapper, async_send_wrapper)
        for cls_name, wrapper in (("Client", send_wrapper), ("AsyncClient", async_send_wrapper)):
            cls = getattr(module, cls_name, None)
            if cls is not None:
                wrap_once(cls, "send", wrapper, ours)
    except Exception as exc:
        warnings.warn(_not_hooked(module, exc), stacklevel=2)
