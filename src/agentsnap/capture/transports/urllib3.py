"""urllib3 (and so ``requests``): ``HTTPConnectionPool.urlopen``.

The pool's ``urlopen`` is the one call every urllib3 request passes
(``PoolManager.request``, ``requests``' ``HTTPAdapter.send``, botocore), and
it runs before any connection is taken from the pool, so replay opens none.
``HTTPSConnectionPool`` inherits it.

* capture: the real ``urlopen`` runs (redirects and retries it makes itself
  are one exchange: the final response); a response read inside it
  (``preload_content=True``) is stored from its data, a lazy one through a
  tee on the socket file under its ``http.client`` response
  (:func:`.stdlib.tee_response`), so ``requests``' ``iter_lines`` /
  ``iter_content`` / ``.content`` are all seen.
* replay: a genuine ``urllib3.HTTPResponse`` around a genuine
  ``http.client.HTTPResponse`` parsed from the recording, with the caller's
  ``preload_content`` / ``decode_content``; ``requests`` builds its real
  ``Response`` from it with its own code. A miss raises
  :class:`~agentsnap.exceptions.ReplayMissError` from ``urlopen``; a
  recorded transport error raises its urllib3 class.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ...spec.provider_specs import ProviderSpec
from ...storage.wire import Exchange
from .. import active, ownership, serving, sinks
from .. import exchange as exchange_path
from ..request import WireRequest
from ..wrapping import wrap_once
from . import _wire, stdlib

if TYPE_CHECKING:
    from ..active import RecordingState as Recording

__all__ = ["patch", "urlopen_wrapper"]

_NAMES = (
    "method",
    "url",
    "body",
    "headers",
    "retries",
    "redirect",
    "assert_same_host",
    "timeout",
    "pool_timeout",
    "release_conn",
    "chunked",
    "body_pos",
    "preload_content",
    "decode_content",
)


def _bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    bound = dict(zip(_NAMES, args, strict=False))
    bound.update(kwargs)
    return bound


def _body(body: object) -> bytes | None:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")  # what urllib3 sends for a str body
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    return None  # a file or an iterable: read by urllib3 as it sends


def _url(pool: Any, url: str) -> str:
    if "://" in url:
        return url
    host = f"[{pool.host}]" if ":" in str(pool.host) else str(pool.host)
    return f"{pool.scheme}://{host}{'' if pool.port is None else f':{pool.port}'}{url}"


def _default_user_agent() -> str:
    try:
        from urllib3.connection import _get_default_user_agent

        return str(_get_default_user_agent())
    except ImportError:  # an urllib3 release without it
        return "python-urllib3"


def urlopen_wrapper(
    wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``urllib3.HTTPConnectionPool.urlopen``."""
    recording = active.current()
    if recording is None or ownership.owner() is not None:
        return wrapped(*args, **kwargs)
    call = _bind(args, kwargs)
    body = call.get("body")
    if (
        body is not None
        and _body(body) is None
        and (hasattr(body, "read") or hasattr(body, "__iter__"))
    ):
        data = (
            body.read()
            if hasattr(body, "read")
            else b"".join(p.encode("utf-8") if isinstance(p, str) else bytes(p) for p in body)
        )
        body = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        call["body"] = body
    content = _body(body)
    if content is None:
        return wrapped(*args, **kwargs)
    headers = call.get("headers")
    if headers is None:
        headers = instance.headers
    header_items = list(dict(headers or {}).items())
    if not any(str(k).lower() == "user-agent" for k, _ in header_items):
        header_items.append(("User-Agent", _default_user_agent()))
    wire = WireRequest(str(call["method"]), _url(instance, str(call["url"])), header_items, content)
    started = exchange_path.open_exchange(recording, wire, instance)
    if started is None:
        return wrapped(**call)
    spec, exchange = started
    if recording.mode == "replay":
        stored = serving.take_recorded(recording, exchange)
        if "error" in stored:
            _raise_recorded(instance, str(call["url"]), stored["error"])
        return _replayed(instance, call, stored, wire)
    with exchange_path.sending(exchange, "urllib3"):
        response = wrapped(**call)
    _tee(recording, exchange, spec, response, wire, decode=bool(call.get("decode_content", True)))
    return response


def _raise_recorded(pool: Any, url: str, err: dict[str, Any]) -> None:
    from urllib3 import exceptions

    name, message = str(err.get("type")), str(err.get("message", ""))
    cls = _wire.error_class(name, exceptions, default=exceptions.ProtocolError)
    if issubclass(cls, exceptions.MaxRetryError):
        raise cls(pool, url, exceptions.ProtocolError(message))
    try:
        exc = cls(message)
    except TypeError:  # a class taking other arguments (a pool, a connection)
        exc = exceptions.ProtocolError(f"{name}: {message}")
    raise exc


def _replayed(pool: Any, call: dict[str, Any], stored: dict[str, Any], wire: WireRequest) -> Any:
    from urllib3._collections import HTTPHeaderDict
    from urllib3.response import HTTPResponse

    status = int(stored["status"])
    headers = serving.replay_headers(stored)
    body = b"".join(serving.stored_body_bytes(stored))
    original = _wire.http_response(status, headers, body, method=wire.method, url=str(wire.url))
    extra: dict[str, Any] = {"version_string": "HTTP/1.1"} if _takes_version_string() else {}
    return HTTPResponse(
        body=original,
        headers=HTTPHeaderDict(original.getheaders()),
        status=status,
        version=11,
        reason=original.reason,
        **extra,
        preload_content=bool(call.get("preload_content", True)),
        decode_content=bool(call.get("decode_content", True)),
        original_response=original,
        pool=pool,
        enforce_content_length=True,
        request_method=wire.method,
        request_url=str(call["url"]),
    )


@functools.lru_cache(maxsize=1)
def _takes_version_string() -> bool:
    import inspect

    from urllib3.response import HTTPResponse

    return "version_string" in inspect.signature(HTTPResponse.__init__).parameters


def _tee(
    recording: Recording,
    exchange: Exchange,
    spec: ProviderSpec,
    response: Any,
    wire: WireRequest,
    *,
    decode: bool,
) -> None:
    original = getattr(response, "_original_response", None)
    if (
        response._body is None
        and original is not None
        and getattr(original, "fp", None) is not None
    ):
        stdlib.tee_response(recording, exchange, spec, original, wire)
        return
    # read inside urlopen (preload_content=True), or already at its end: store what it holds
    headers = [(str(k), str(v)) for k, v in response.headers.items()]
    data = response._body if isinstance(response._body, bytes) else b""
    sink = sinks.body_sink(
        recording, exchange, spec, response.status, headers, decoded=decode, path=wire.url.path
    )
    sink.add(data)
    sink.finish(complete=True)


def patch(module: ModuleType) -> None:
    """Wrap ``module.HTTPConnectionPool.urlopen`` (``module``: ``urllib3.connectionpool``), once."""
    wrap_once(module.HTTPConnectionPool, "urlopen", urlopen_wrapper)
