"""Deterministic, instant retries in replay for the Speakeasy-generated ``mistralai`` SDK.

Applied to both package layouts (see ``patches/mistralai.toml``): 2.x / 3.x
(``mistralai.client.*``) and 1.x (``mistralai.*``), whose ``BaseSDK`` and
``utils.retries`` are the same code one package up.

With a ``retry_config`` (per call or on the client), ``BaseSDK.do_request``
runs each attempt through ``utils.retries.retry_with_backoff``: it retries
429 / 5xx answers (and, with ``retry_connection_errors``, transport errors)
until ``max_elapsed_time`` milliseconds of wall time have passed, sleeping an
exponential backoff with up to 1 s of jitter in between; when time runs out
it returns the last error response (or re-raises the last transport error).

Replaying that as is would go wrong twice: the sleeps are real (a recorded
connection error has no ``retry-after-ms`` to shorten them), and the number
of attempts depends on the clock — an instant replay would try again after
the recording's last attempt and miss. So, in replay only, the loop is
replaced by one that

* never sleeps;
* retries exactly as long as the snapshot still holds an unplayed recording
  of this very request (same replay key), and then gives up the way the
  recorded run did: returns the last error response / re-raises the last
  transport error. Non-retryable outcomes end it as in the SDK.

The request is known from ``BaseSDK.do_request`` / ``do_request_async``,
which :func:`patch_basesdk` wraps to remember it (a ``ContextVar``: right in
threads and asyncio tasks alike) while a recording is active.

No active recording, or a capturing one (record / live): the SDK's own loop,
untouched (the real API's waits are honoured).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..wrapping import wrap_once

if TYPE_CHECKING:
    from ..active import RecordingState as Recording

__all__ = ["patch_basesdk", "patch_retries"]

_current_request: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "agentsnap_mistral_request", default=None
)


def _recording() -> Recording | None:
    from .. import active

    return active.current()


def _replaying() -> Recording | None:
    recording = _recording()
    if recording is None or recording.mode != "replay" or recording.cassette is None:
        return None
    return recording


def _request_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    # do_request(self, hook_ctx, request, is_error_status_code, stream=False, retry_config=None)
    if "request" in kwargs:
        return kwargs["request"]
    return args[1] if len(args) > 1 else None


def _do_request(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    if _recording() is None:
        return wrapped(*args, **kwargs)
    token = _current_request.set(_request_of(args, kwargs))
    try:
        return wrapped(*args, **kwargs)
    finally:
        _current_request.reset(token)


async def _do_request_async(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    if _recording() is None:
        return await wrapped(*args, **kwargs)
    token = _current_request.set(_request_of(args, kwargs))
    try:
        return await wrapped(*args, **kwargs)
    finally:
        _current_request.reset(token)


class _Budget:
    """Whether the snapshot can still serve another attempt of the current request."""

    def __init__(self, recording: Recording) -> None:
        assert recording.cassette is not None  # see _replaying
        self.cassette = recording.cassette
        self.request = _current_request.get()
        self._stored: dict[str, Any] | None = None

    def more(self) -> bool:
        if self.request is not None and self._stored is None:
            try:
                from ..request import request_record

                self._stored = request_record(self.request)
            except Exception:
                self.request = None
        if self._stored is None:  # outside do_request: best effort
            return self.cassette.unplayed() > 0
        return self.cassette.remaining(self._stored) > 0


def _func_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return kwargs["func"] if "func" in kwargs else args[0]


def _retry_wrapper(retries: ModuleType) -> Any:
    def retry_with_backoff(
        wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        recording = _replaying()
        if recording is None:
            return wrapped(*args, **kwargs)
        func = _func_of(args, kwargs)
        budget = _Budget(recording)
        while True:
            try:
                return func()
            except retries.PermanentError as exc:
                raise exc.inner  # noqa: B904 - chained as the SDK's own retry loop raises it
            except Exception as exc:
                if not budget.more():
                    if isinstance(exc, retries.TemporaryError):
                        return exc.response
                    raise
                if isinstance(exc, retries.TemporaryError):
                    exc.response.close()

    return retry_with_backoff


def _retry_wrapper_async(retries: ModuleType) -> Any:
    async def retry_with_backoff_async(
        wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        recording = _replaying()
        if recording is None:
            return await wrapped(*args, **kwargs)
        func = _func_of(args, kwargs)
        budget = _Budget(recording)
        while True:
            try:
                return await func()
            except retries.PermanentError as exc:
                raise exc.inner  # noqa: B904 - chained as the SDK's own retry loop raises it
            except Exception as exc:
                if not budget.more():
                    if isinstance(exc, retries.TemporaryError):
                        return exc.response
                    raise
                if isinstance(exc, retries.TemporaryError):
                    await exc.response.aclose()

    return retry_with_backoff_async


_MARK = "_agentsnap_mistral_quirk"


def _wrap(owner: Any, name: str, wrapper: Any) -> None:
    setattr(wrapper, _MARK, True)
    wrap_once(owner, name, wrapper, lambda found: getattr(found, _MARK, False))


def patch_basesdk(module: ModuleType) -> None:
    """Wrap ``module.BaseSDK.do_request`` / ``do_request_async`` to remember the request (idempotent).

    ``module`` is ``mistralai.client.basesdk`` (``mistralai.basesdk`` in the
    1.x layout: the same class). Raises ``AttributeError`` when
    a target is missing (the hook warns once; replayed retries then fall back
    to "retry while anything is unplayed").
    """
    cls = getattr(module, "BaseSDK", None)
    missing = [
        n
        for n in ("do_request", "do_request_async")
        if cls is None or not callable(getattr(cls, n, None))
    ]
    if cls is not None:
        if "do_request" not in missing:
            _wrap(cls, "do_request", _do_request)
        if "do_request_async" not in missing:
            _wrap(cls, "do_request_async", _do_request_async)
    if missing:
        raise AttributeError(
            f"{getattr(module, '__name__', module)!r} has no BaseSDK.{', BaseSDK.'.join(missing)}"
        )


def patch_retries(module: ModuleType) -> None:
    """Replace the backoff loops of ``module`` in replay (idempotent).

    ``module`` is ``mistralai.client.utils.retries`` (``mistralai.utils.retries``
    in the 1.x layout; the same functions); ``retry_with_backoff``
    and ``retry_with_backoff_async`` are module globals called by
    ``retry`` / ``retry_async``, so wrapping the module attributes reaches
    every client. Raises ``AttributeError`` when a target is missing.
    """
    needed = ("retry_with_backoff", "retry_with_backoff_async", "TemporaryError", "PermanentError")
    missing = [n for n in needed if getattr(module, n, None) is None]
    if missing:
        raise AttributeError(f"{getattr(module, '__name__', module)!r} has no {', '.join(missing)}")
    _wrap(module, "retry_with_backoff", _retry_wrapper(module))
    _wrap(module, "retry_with_backoff_async", _retry_wrapper_async(module))
