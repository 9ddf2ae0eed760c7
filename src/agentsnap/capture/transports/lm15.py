"""DSPy's bundled transport: ``dspy._vendor.lm15.transports`` (User-Agent ``lm15/stdlib``).

DSPy 3.4's default LM engine does not use httpx, ``http.client`` or any other
library: lm15 speaks HTTP/1.1 over ``socket`` itself (``_sync.py`` /
``_async.py``, framing in ``_http11.py``). Its one seam is
``StdlibTransport.stream(TransportRequest) -> TransportResponse`` (and, async,
``StdlibAsyncTransport._do_stream``, which ``stream()``'s context manager and
``await`` both run); every LLM call of DSPy passes there, streamed or not.

* capture: the real ``stream`` runs; the response's body iterator is wrapped
  so the body is stored as the caller iterates it (lm15 has already undone
  chunked framing and ``content-encoding``).
* replay: nothing is sent; a genuine ``TransportResponse`` /
  ``AsyncTransportResponse`` of lm15 is built from the recording (status,
  reason, headers, body chunks) — a miss raises
  :class:`~agentsnap.exceptions.ReplayMissError` from ``stream``, a recorded
  transport error its lm15 class (``ConnectError``, ``ReadTimeout``, …).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ...spec.provider_specs import ProviderSpec
from ...storage.wire import Exchange
from .. import active, ownership, serving, sinks, streams
from .. import exchange as exchange_path
from ..request import WireRequest
from ..streams import BodySink
from ..wrapping import wrap_once
from . import _wire

if TYPE_CHECKING:
    from ..active import RecordingState as Recording

__all__ = ["async_stream_wrapper", "patch_async", "patch_sync", "stream_wrapper"]


def _package(module: Any) -> Any:
    """The ``…lm15.transports`` package of a ``_sync`` / ``_async`` module."""
    return sys.modules.get(module.__name__.rsplit(".", 1)[0])


def _home(instance: object, name: str) -> Any:
    """The lm15 module defining ``name`` for ``instance`` (a user's subclass lives elsewhere)."""
    for klass in type(instance).__mro__:
        if name in vars(klass):
            return sys.modules[klass.__module__]
    return sys.modules[type(instance).__module__]


def _wire_request(transport: Any, request: Any) -> WireRequest:
    headers = list(request.headers or ())
    if not any(str(k).lower() == "user-agent" for k, _ in headers):
        headers.append(("User-Agent", getattr(transport, "_user_agent", "lm15/stdlib")))
    return WireRequest(request.method, request.url, headers, bytes(request.body or b""))


def _start(
    transport: object, request: object
) -> tuple[Recording, WireRequest, ProviderSpec, Exchange] | None:
    recording = active.current()
    if recording is None or ownership.owner() is not None:
        return None
    wire = _wire_request(transport, request)
    started = exchange_path.open_exchange(recording, wire, transport)
    if started is None:
        return None
    return recording, wire, *started


def _replayed(module: Any, cls_name: str, stored: dict[str, Any], chunks: Any) -> Any:
    if "error" in stored:
        err = stored["error"]
        raise _wire.error_class(
            str(err.get("type")), _package(module) or module, default=module.TransportError
        )(str(err.get("message", "")))
    status = int(stored["status"])
    response_cls = getattr(module, cls_name)
    return response_cls(
        status=status,
        reason=_wire.reason_phrase(status),
        headers=serving.replay_headers(stored),
        http_version="HTTP/1.1",
        chunks=chunks,
        release=_released,
    )


def _released(body_consumed: bool) -> None:
    return None


async def _async_released(body_consumed: bool) -> None:
    return None


def _sink(
    recording: Recording,
    exchange: Exchange,
    spec: ProviderSpec,
    response: Any,
    wire: WireRequest,
) -> BodySink:
    headers = [(str(k), str(v)) for k, v in response.headers]
    return sinks.body_sink(
        recording, exchange, spec, response.status, headers, decoded=True, path=wire.url.path
    )


def stream_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``StdlibTransport.stream(request)``."""
    request = kwargs["request"] if "request" in kwargs else args[0]
    started = _start(instance, request)
    if started is None:
        return wrapped(*args, **kwargs)
    recording, wire, spec, exchange = started
    module = _home(instance, "stream")
    if recording.mode == "replay":
        stored = serving.take_recorded(recording, exchange)
        return _replayed(
            module, "TransportResponse", stored, iter(serving.stored_body_bytes(stored))
        )
    with exchange_path.sending(exchange, "lm15"):
        response = wrapped(*args, **kwargs)
    response._chunks = streams.tee(
        response._chunks, _sink(recording, exchange, spec, response, wire)
    )
    return response


async def async_stream_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``StdlibAsyncTransport._do_stream(request)``."""
    request = kwargs["request"] if "request" in kwargs else args[0]
    started = _start(instance, request)
    if started is None:
        return await wrapped(*args, **kwargs)
    recording, wire, spec, exchange = started
    module = _home(instance, "_do_stream")
    if recording.mode == "replay":
        stored = serving.take_recorded(recording, exchange)
        chunks = streams.served(serving.stored_body_bytes(stored))
        response = _replayed(module, "AsyncTransportResponse", stored, chunks)
        response._release = _async_released
        return response
    with exchange_path.sending(exchange, "lm15"):
        response = await wrapped(*args, **kwargs)
    response._chunks = streams.atee(
        response._chunks, _sink(recording, exchange, spec, response, wire)
    )
    return response


def patch_sync(module: ModuleType) -> None:
    """Wrap ``module.StdlibTransport.stream`` (``module``: ``…lm15.transports._sync``), once."""
    wrap_once(module.StdlibTransport, "stream", stream_wrapper)


def patch_async(module: ModuleType) -> None:
    """Wrap ``module.StdlibAsyncTransport._do_stream`` (``module``: ``…lm15.transports._async``), once."""
    wrap_once(module.StdlibAsyncTransport, "_do_stream", async_stream_wrapper)
