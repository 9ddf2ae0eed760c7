"""Quirk patches for ``google-genai`` (``from google import genai``).

Installed by the post-import hook of ``google.genai._api_client`` named in
``patches/google-genai.toml``; :func:`install` receives that module.

1. **aiohttp.** ``BaseApiClient`` sends async requests through aiohttp whenever
   aiohttp is importable (``_use_aiohttp()``), and aiohttp is beyond the
   httpx/httpx2 ``send`` hooks. While a recording is active, ``_use_aiohttp``
   answers False — the SDK then takes its own fallback branch through
   ``self._async_httpx_client`` (an httpx2 ``AsyncClient`` on 3.x, an httpx one
   on 1.x/2.x), which the hooks see.
   Left alone: clients constructed while a recording is active (``__init__``
   must still prepare the aiohttp session arguments, or a later call outside
   the recording would fail) and clients without an httpx async client
   (Vertex AI with mTLS through google-auth's aiohttp session: not captured).
2. **Retry sleeps.** ``HttpRetryOptions`` retries run through tenacity
   (``Retrying`` / ``AsyncRetrying`` called with ``BaseApiClient._request_once``
   / ``_async_request_once``) with exponential backoff. In replay that call is
   re-run on a copy of the retrying object whose sleep returns at once; the
   stop/retry/wait policy is unchanged, so the same attempts happen and each is
   served from the snapshot. Only calls whose function is a bound method of a
   genai ``BaseApiClient`` are touched; every other tenacity user is passed
   through untouched.
3. **Vertex AI access tokens.** With project/location (no API key) every
   request first asks google-auth for a Bearer token (``_access_token`` /
   ``_async_access_token``), which loads Application Default Credentials and
   refreshes them over ``requests`` — outside the hooks, and impossible
   offline. In replay both answer a placeholder token instead; request
   headers are never stored or matched, so nothing else changes.

Every patch is a permanent ``wrapt`` wrapper, installed once (idempotent), and
does nothing unless :func:`agentsnap.capture.active.current` says a recording is active.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .. import active
from ..wrapping import wrap_once

__all__ = ["install"]

_local = threading.local()  # .constructing: depth of BaseApiClient.__init__ calls in this thread
_client_classes: list[type] = []  # BaseApiClient (kept for the retry gate)


def install(module: ModuleType) -> None:
    """Patch ``google.genai._api_client`` (and tenacity's two call methods), once."""
    import tenacity

    base = module.BaseApiClient
    if base not in _client_classes:
        _client_classes.append(base)
    targets = (
        (base, "__init__", _init_wrapper),
        (base, "_use_aiohttp", _use_aiohttp_wrapper),
        (base, "_access_token", _access_token_wrapper),
        (base, "_async_access_token", _async_access_token_wrapper),
        (tenacity.Retrying, "__call__", _retrying_call_wrapper),
        (tenacity.AsyncRetrying, "__call__", _async_retrying_call_wrapper),
    )
    missing = [
        f"{owner.__qualname__}.{name}"
        for owner, name, wrapper in targets
        if not _wrap_once(owner, name, wrapper)
    ]
    if missing:  # the others are in place; the hook turns this into one warning
        raise AttributeError(f"not found in this SDK version: {', '.join(missing)}")


def _wrap_once(owner: type, name: str, wrapper: Callable[..., Any]) -> bool:
    """Wrap ``owner.name`` unless ``wrapper`` already wraps it; False when there is no such attribute."""
    if owner.__dict__.get(name) is None:
        return False
    wrap_once(owner, name, wrapper)
    return True


def _replaying() -> bool:
    recording = active.current()
    return recording is not None and recording.mode == "replay"


# --------------------------------------------------------------------------
# 1. aiohttp -> httpx(2) while recording


def _init_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    _local.constructing = getattr(_local, "constructing", 0) + 1
    try:
        return wrapped(*args, **kwargs)
    finally:
        _local.constructing -= 1


def _use_aiohttp_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    use = wrapped(*args, **kwargs)
    if not use or active.current() is None or getattr(_local, "constructing", 0) > 0:
        return use
    if getattr(instance, "_async_httpx_client", None) is None:
        return use  # no httpx fallback on this client (Vertex AI mTLS): leave it on aiohttp
    return False


# --------------------------------------------------------------------------
# 2. instant retries in replay


def _sleep_now(seconds: float) -> None:
    return None


async def _async_sleep_now(seconds: float) -> None:
    return None


def _replaying_genai_call(
    instance: object, args: tuple[Any, ...], kwargs: dict[str, Any], instant: Callable[..., Any]
) -> bool:
    if getattr(instance, "sleep", None) is instant:
        return False  # already the instant copy
    if not _replaying():
        return False
    fn = args[0] if args else kwargs.get("fn")
    owner = getattr(fn, "__self__", None)
    return owner is not None and isinstance(owner, tuple(_client_classes))


def _retrying_call_wrapper(
    wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    if not _replaying_genai_call(instance, args, kwargs, _sleep_now):
        return wrapped(*args, **kwargs)
    return instance.copy(sleep=_sleep_now)(*args, **kwargs)


def _async_retrying_call_wrapper(
    wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    # AsyncRetrying.__call__ is a coroutine function: both branches return its coroutine
    if not _replaying_genai_call(instance, args, kwargs, _async_sleep_now):
        return wrapped(*args, **kwargs)
    return instance.copy(sleep=_async_sleep_now)(*args, **kwargs)


# --------------------------------------------------------------------------
# 3. no credentials needed in replay (Vertex AI)

REPLAY_TOKEN = "agentsnap-replay-token"


def _access_token_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    if _replaying():
        return REPLAY_TOKEN
    return wrapped(*args, **kwargs)


async def _replay_token() -> str:
    return REPLAY_TOKEN


def _async_access_token_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    if _replaying():
        return _replay_token()
    return wrapped(*args, **kwargs)
