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
    go unwrapped. A module imported under two names (``httpx2.alias_httpx()``) is patched once.

    Cheap when nothing changed: the full pass is skipped when every hooked module and every
    patch function's module is the very object the last full pass saw (or still absent), and
    every seam agentsnap wrapped (:func:`~.wrapping.seams_held`) still holds the object that
    pass left (a module imported again, a seam replaced or unwrapped: the full pass runs).
    """
    chosen = _default() if registry is None else registry
    names = _names.get(id(chosen))
    if names is None or names[0] is not chosen or names[1] != len(chosen):
        # (a registry only grows: its hooks are known by its length)
        hooks = tuple(chosen.hooks())
        found = (*(n for n, _ in hooks), *dict.fromkeys(c.partition(":")[0] for _, c in hooks))
        names = _names[id(chosen)] = (chosen, len(chosen), found)
    modules = sys.modules
    now = (chosen, *[modules.get(name) for name in names[2]])
    last = _checked.get(id(chosen))
    if last is not None and _same_objects(last[0], now) and _same_objects(last[1], _seams_held()):
        return  # the modules and the seams of the last full pass, each the very same object
    seen: set[tuple[int, str]] = set()
    for name, call in chosen.hooks():
        module = modules.get(name)
        if module is not None and (id(module), call) not in seen:
            seen.add((id(module), call))
            _transport_hook(call)(module)
    _checked[id(chosen)] = (now, _seams_held())


def _seams_held() -> tuple[object, ...]:
    """:func:`~.wrapping.seams_held` of the wrapping module imported now (none wrapped yet: no
    import of it, nor of wrapt)."""
    wrapping = sys.modules.get(_WRAPPING)
    return () if wrapping is None else wrapping.seams_held()


_WRAPPING = __name__.rpartition(".")[0] + ".wrapping"


#: per registry (by id, the registry kept): it, its length, and the module names
#: :func:`ensure_patched` looks up (the hooked modules, then the patch functions' modules)
_names: dict[int, tuple[Registry, int, tuple[str, ...]]] = {}
#: per registry (by id): what :func:`ensure_patched`'s last full pass saw and left (the registry
#: and each looked-up module, or None; each seam's object, :func:`~.wrapping.seams_held`)
_checked: dict[int, tuple[tuple[object, ...], tuple[object, ...]]] = {}


def _same_objects(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    """Whether ``a`` and ``b`` hold the very same objects (by identity: a wrapt layer compares
    equal to what it wraps)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


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
