"""Instant retries in replay for the Fern-generated ``cohere`` SDK.

``cohere.core.http_client.HttpClient.request`` (and the async twin) retries
429 / 408 / 409 / 5xx answers and connection errors up to ``max_retries``
times, sleeping ``_retry_timeout(response, retries)`` or
``_retry_timeout_from_retries(retries)`` seconds in between: the server's
``retry-after-ms`` / ``retry-after`` / ``x-ratelimit-reset`` when it sent one,
otherwise an exponential backoff from 1 s with jitter. Replay rewrites
``retry-after-ms`` on recorded error statuses, but a recorded connection
error has no response: without this patch its replay would sleep the backoff.

:func:`patch_http_client` wraps both module functions (they are looked up as
module globals at each call, so wrapping the module attribute reaches every
client, including ones built before the patch). The wrapped functions:

* no active recording, or a capturing one (record / live): exactly the
  original;
* replay: ``0.0`` seconds. How many attempts are made stays the SDK's
  decision (a count, so a replay makes exactly the recorded attempts).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..wrapping import wrap_once

__all__ = ["patch_http_client"]

# the first is required; the second exists since cohere 7.0
_TARGETS = ("_retry_timeout", "_retry_timeout_from_retries")


def _no_wait_in_replay(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    from .. import active

    recording = active.current()
    if recording is None or recording.mode != "replay":
        return wrapped(*args, **kwargs)
    return 0.0


def patch_http_client(module: ModuleType) -> None:
    """Wrap ``module._retry_timeout`` and ``module._retry_timeout_from_retries`` once.

    ``module`` is ``cohere.core.http_client``. Idempotent. Raises
    ``AttributeError`` when ``_retry_timeout`` is missing (the hook turns it
    into one warning; the SDK keeps working, replayed retries then wait for real).
    """
    if not callable(getattr(module, _TARGETS[0], None)):
        raise AttributeError(f"{getattr(module, '__name__', module)!r} has no {_TARGETS[0]}")
    for name in _TARGETS:
        if callable(getattr(module, name, None)):
            wrap_once(module, name, _no_wait_in_replay)
