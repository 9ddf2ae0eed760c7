"""``http.client`` (and so ``urllib.request``): ``HTTPConnection.request`` / ``getresponse``.

Hooked on ``http.client.HTTPConnection`` (``HTTPSConnection`` inherits it);
what the wrappers do depends on the active recording, as for httpx
(:mod:`agentsnap.capture.transports.httpx`):

* ``request(method, url, body, headers)`` builds the request as sent (the
  connection's host and port, the body bytes, the headers given) and asks
  :func:`~agentsnap.capture.exchange.open_exchange`. Unrecognised: untouched.
* capture: the real ``request`` runs; the real ``getresponse`` runs, and the
  response's socket file is wrapped in a tee (:class:`._wire.TeeFile`) that
  stores the body as the caller reads it, chunked framing undone, a
  ``content-encoding`` decoded; a stream (server-sent events) as chunks.
* replay: ``request`` sends nothing — the recorded exchange is looked up
  right there (a miss raises :class:`~agentsnap.exceptions.ReplayMissError`
  from ``request``, a recorded connection error its own class) — and
  ``getresponse`` returns a genuine ``http.client.HTTPResponse`` that
  http.client parsed from the recorded status, headers and body.

Code driving the low-level API itself (``putrequest`` / ``putheader`` /
``endheaders``, as urllib3 does) is not seen here: urllib3 has its own hook
(:mod:`.urllib3`), and a request another agentsnap layer handles
(:func:`~agentsnap.capture.ownership.owner`) passes untouched.
"""

from __future__ import annotations

import http.client
import socket
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ...spec.provider_specs import ProviderSpec
from ...storage.wire import Exchange
from .. import active, ownership, serving, sinks
from .. import exchange as exchange_path
from ..request import WireRequest
from ..wrapping import one_of, wrap_once
from . import _wire

if TYPE_CHECKING:
    from ..active import RecordingState as Recording

__all__ = ["getresponse_wrapper", "patch", "request_wrapper"]

_PENDING = "_agentsnap_pending"


def _body_bytes(body: Any) -> tuple[bytes | None, Any]:
    """``(bytes for the record, body to send)``; a file or iterable body is read once and sent as bytes."""
    if body is None:
        return b"", None
    if isinstance(body, str):
        data = body.encode("iso-8859-1")  # what http.client sends for a str body
        return data, data
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body), body
    if hasattr(body, "read"):
        data = body.read()
        data = data.encode("iso-8859-1") if isinstance(data, str) else bytes(data)
        return data, data
    try:
        parts = [p.encode("iso-8859-1") if isinstance(p, str) else bytes(p) for p in body]
    except TypeError:
        return None, body  # not a body http.client could send either: let it raise
    data = b"".join(parts)
    return data, data


def _url(conn: Any, target: str) -> str:
    if "://" in target:
        return target
    scheme = "https" if isinstance(conn, http.client.HTTPSConnection) else "http"
    host = getattr(conn, "_tunnel_host", None) or conn.host
    port = getattr(conn, "_tunnel_port", None) or conn.port
    host_part = f"[{host}]" if ":" in str(host) else str(host)
    default = 443 if scheme == "https" else 80
    return f"{scheme}://{host_part}{'' if port in (None, default) else f':{port}'}{target}"


def request_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``http.client.HTTPConnection.request``."""
    recording = active.current()
    if recording is None or ownership.owner() is not None:
        return wrapped(*args, **kwargs)
    method, target, body, headers, rest = _bind_request(args, kwargs)
    data, send_body = _body_bytes(body)
    if data is None:
        return wrapped(*args, **kwargs)
    wire = WireRequest(method, _url(instance, target), dict(headers or {}).items(), data)
    started = exchange_path.open_exchange(recording, wire, instance)
    if started is None:
        return wrapped(method, target, send_body, headers or {}, **rest)
    spec, exchange = started
    if recording.mode == "replay":
        stored = serving.take_recorded(recording, exchange)
        if "error" in stored:
            _raise_recorded(stored["error"])
        setattr(instance, _PENDING, ("replay", stored, wire))
        return None
    with exchange_path.sending(exchange, "http.client"):
        wrapped(method, target, send_body, headers or {}, **rest)
    setattr(instance, _PENDING, ("capture", recording, exchange, spec, wire))
    return None


def _bind_request(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str, str, Any, Any, dict[str, Any]]:
    names = ("method", "url", "body", "headers")
    bound = dict(zip(names, args, strict=False))
    rest = {k: v for k, v in kwargs.items() if k not in names}
    bound.update({k: v for k, v in kwargs.items() if k in names})
    return str(bound["method"]), str(bound["url"]), bound.get("body"), bound.get("headers"), rest


def _raise_recorded(err: dict[str, Any]) -> None:
    cls = _wire.error_class(str(err.get("type")), http.client, socket)
    raise cls(str(err.get("message", "")))


def getresponse_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``http.client.HTTPConnection.getresponse``."""
    pending = instance.__dict__.pop(_PENDING, None)
    if pending is None:
        return wrapped(*args, **kwargs)
    if pending[0] == "replay":
        _, stored, wire = pending
        body = b"".join(serving.stored_body_bytes(stored))
        return _wire.http_response(
            int(stored["status"]),
            serving.replay_headers(stored),
            body,
            method=wire.method,
            url=str(wire.url),
        )
    _, recording, exchange, spec, wire = pending
    try:
        response = wrapped(*args, **kwargs)
    except Exception as exc:
        sinks.record_error(exchange, exc)
        raise
    tee_response(recording, exchange, spec, response, wire)
    return response


def tee_response(
    recording: Recording,
    exchange: Exchange,
    spec: ProviderSpec,
    response: http.client.HTTPResponse,
    wire: Any,
) -> None:
    """Store ``response`` (a live ``http.client.HTTPResponse``) as its body is read."""
    headers = [(str(k), str(v)) for k, v in response.getheaders()]
    sink = sinks.body_sink(
        recording, exchange, spec, response.status, headers, decoded=False, path=wire.url.path
    )
    if response.fp is None or wire.method == "HEAD" or response.length == 0:
        sink.finish(complete=True)
        return
    tee = _wire.TeeFile(
        response.fp,
        chunked=bool(response.chunked),
        length=response.length,
        on_data=sink.add,
        on_close=lambda complete: sink.finish(complete=complete),
    )
    sink.drain = tee.settle
    response.fp = tee  # type: ignore[assignment]


def patch(module: ModuleType) -> None:
    """Wrap ``module.HTTPConnection.request`` / ``getresponse`` (``module``: ``http.client``), once."""
    ours = one_of(request_wrapper, getresponse_wrapper)
    for name, wrapper in (("request", request_wrapper), ("getresponse", getresponse_wrapper)):
        wrap_once(module.HTTPConnection, name, wrapper, ours)
