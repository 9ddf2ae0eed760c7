"""Instant retries in replay for the Stainless-generated SDKs (openai, anthropic, groq).

Their retry loop sleeps ``BaseClient._calculate_retry_timeout(...)`` seconds
between attempts: the server's ``retry-after-ms`` / ``retry-after`` when it
sent one, otherwise an exponential backoff of 0.5-8 s with jitter. Replay
rewrites ``retry-after-ms`` on recorded error statuses, but a recorded
transport error (connection refused, timeout) has no response and so no
header: without this patch its replay would sleep the full backoff.

:func:`patch` wraps ``<sdk>._base_client.BaseClient._calculate_retry_timeout``
of the module it is given. Hook it from a provider spec::

    [[hooks]]
    module = "openai._base_client"
    call = "agentsnap.capture.quirks.stainless:patch"

Behaviour of the wrapped method:

* no active recording, or a capturing one (record / live): exactly the
  original (the real API's waits are honoured);
* replay: the original is still called — so the process-wide ``random``
  stream advances as it did while recording — and its result is capped at
  :data:`REPLAY_RETRY_WAIT` seconds (the same wait as the replayed
  ``retry-after-ms: 1``).

Which attempts are retried is untouched: that stays the SDK's decision.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from .. import active
from ..wrapping import one_of, wrap_once, wrapped_by

__all__ = ["REPLAY_RETRY_WAIT", "patch"]

#: the longest wait between two retries of a replayed call, in seconds
REPLAY_RETRY_WAIT = 0.001

_TARGET = "_calculate_retry_timeout"


def _retry_timeout_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    timeout = wrapped(*args, **kwargs)
    recording = active.current()
    if recording is None or recording.mode != "replay":
        return timeout
    try:
        return min(float(timeout), REPLAY_RETRY_WAIT)
    except (TypeError, ValueError):
        return REPLAY_RETRY_WAIT


def patch(module: ModuleType) -> None:
    """Wrap ``module.BaseClient._calculate_retry_timeout`` once (idempotent).

    ``module`` is a Stainless SDK's ``_base_client`` module (``openai._base_client``,
    ``anthropic._base_client``, ``groq._base_client``). Raises ``AttributeError``
    when the module has no such method (the caller's hook turns that into one
    warning; the SDK keeps working, only replayed retries wait for real).
    """
    cls = getattr(module, "BaseClient", None)
    if cls is None or not callable(getattr(cls, _TARGET, None)):
        raise AttributeError(f"{getattr(module, '__name__', module)!r} has no BaseClient.{_TARGET}")
    wrap_once(cls, _TARGET, _retry_timeout_wrapper)


def _is_ours(func: object) -> bool:
    return wrapped_by(func, one_of(_retry_timeout_wrapper))
