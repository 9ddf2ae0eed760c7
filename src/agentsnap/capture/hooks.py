"""Post-import hooks that wrap the send seam of every registered transport, once.

:func:`install` registers a wrapt post-import hook for each ``(module,
"package.module:function")`` pair of the transport registry
(:data:`agentsnap.capture.transports.TRANSPORTS`, declared by
:mod:`agentsnap.capture.contract`: httpx/httpx2, ``http.client``, urllib3,
aiohttp, DSPy's lm15) and for each quirk patch a provider spec names; it
imports none of the modules (nor any SDK, nor any transport module). When a
module is imported — or right away if it already is — its transport's patch
function is imported and called with it. The wrappers stay for the life of
the process and are switched by the active recording, because SDK objects
capture bound methods at construction time (an unwrap would not reach them).

Idempotent: installing twice, ``httpx2.alias_httpx()`` making both names one
module, or agentsnap's own modules imported again (pytester's in-process runs
drop them; :mod:`.wrapping`) never stacks two agentsnap layers. A hook that fails warns once and
never breaks the user's ``import`` (wrapt would propagate the exception).
"""

from __future__ import annotations

import importlib
import sys
import threading
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import transports as _transports

if TYPE_CHECKING:
    from .contract import Registry

__all__ = ["ensure_patched", "install", "is_installed"]

_installed = False
_lock = threading.Lock()
#: the registries whose hooks are registered (the objects themselves; the default one first)
_registered: list[Registry] = []


def _default() -> Registry:
    return _transports.TRANSPORTS


def install(registry: Registry | None = None) -> None:
    """Register the hooks of ``registry`` (default: every transport agentsnap ships, and
    the quirk patches of the provider specs). Cheap; safe to call any number of times."""
    global _installed
    if registry is None and _installed:
        return
    with _lock:
        if registry is None and _installed:
            return
        import wrapt

        chosen = _default() if registry is None else registry
        # by identity, and kept: an id() of a registry that was garbage-collected can come back
        # as a new registry's, whose hooks would then never be registered
        if not any(known is chosen for known in _registered):
            for module, call in chosen.hooks():
                wrapt.register_post_import_hook(_transport_hook(call), module)
            _registered.append(chosen)
        if registry is None:
            from ..spec.provider_specs import load_specs

            for spec in load_specs():
                for module, call in spec.hooks:
                    wrapt.register_post_import_hook(_guarded(spec.name, call), module)
            _installed = True


def ensure_patched(registry: Registry | None = None) -> None:
    """Re-check the hooked modules currently imported and patch any seam left unwrapped.

    A post-import hook fires once per module object; when a module is
    imported again (``sys.modules`` purged, reloaded) its new classes would
    go unwrapped. Cheap: a few attribute lookups when everything is wrapped.
    A module imported under two names (``httpx2.alias_httpx()``) is patched once.
    """
    seen: set[tuple[int, str]] = set()
    for name, call in (_default() if registry is None else registry).hooks():
        module = sys.modules.get(name)
        if module is not None and (id(module), call) not in seen:
            seen.add((id(module), call))
            _transport_hook(call)(module)


def is_installed() -> bool:
    """Whether :func:`install` has run in this process."""
    return _installed


def _calling(call: str, failed: Callable[[object, Exception], str]) -> Callable[[object], None]:
    """A post-import hook that imports ``"pkg.mod:function"`` lazily and calls it with the
    imported module (the patches are idempotent); a failure warns with ``failed(module,
    exc)`` and leaves the import alone."""

    def hook(module: object) -> None:
        try:
            mod_name, _, func_name = call.partition(":")
            getattr(_imported(mod_name), func_name)(module)
        except Exception as exc:
            warnings.warn(failed(module, exc), stacklevel=2)

    return hook


def _imported(name: str) -> Any:
    """``importlib.import_module(name)``, read from ``sys.modules`` when it is there and
    initialised (what ``import_module`` returns then, without its lock and sanity checks: each
    recording's start re-checks the hooked modules, :func:`ensure_patched`)."""
    module = sys.modules.get(name)
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return importlib.import_module(name)
    return module


def _name(module: object) -> str:
    return repr(getattr(module, "__name__", module))


def _guarded(provider: str, call: str) -> Callable[[object], None]:
    """The post-import hook of one quirk patch of ``provider``'s spec (see :func:`_calling`)."""
    return _calling(
        call,
        lambda module, exc: (
            f"agentsnap: {provider}: quirk patch {call} for {_name(module)} failed ({exc}); "
            "other providers are unaffected."
        ),
    )


def _transport_hook(call: str) -> Callable[[object], None]:
    """The post-import hook of one transport adapter (see :func:`_calling`)."""
    return _calling(call, _not_hooked)


def _not_hooked(module: object, exc: Exception) -> str:
    return (
        f"agentsnap: could not hook {_name(module)} ({exc}); "
        "LLM calls through it will not be captured or replayed."
    )
