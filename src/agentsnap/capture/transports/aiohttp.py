"""aiohttp: ``ClientSession._request``, the coroutine behind ``session.get/post/request``.

Used by litellm's and google-genai's async paths and many frameworks' own
clients. (litellm's aiohttp *transport for httpx* is seen once, by the httpx
hook above it: :func:`~agentsnap.capture.ownership.owner`.)

* The request is read the way aiohttp will send it: the session's base URL
  and default headers merged in, ``params`` added to the query, the body from
  ``json`` (the session's serializer), ``data`` bytes / str / a form dict.
  A body aiohttp streams itself (a file, ``FormData``, an async generator) is
  not read here: such a request passes untouched.
* capture: the real ``_request`` runs; the response body is stored as aiohttp
  feeds it to ``response.content`` (already decompressed; whatever arrived
  before ``_request`` returned is taken from the reader's buffer), so
  ``read()``, ``json()``, ``iter_any()``, ``iter_chunked()`` and line
  iteration are all seen.
* replay: a genuine ``aiohttp.ClientResponse`` (aiohttp's own class, its own
  ``read`` / ``json`` / ``text`` / ``raise_for_status``) whose ``content`` is a
  genuine ``StreamReader`` fed the recorded chunks; the session's (or call's)
  ``raise_for_status`` is honoured. A miss raises
  :class:`~agentsnap.exceptions.ReplayMissError` from the call; a recorded
  transport error its aiohttp class.
"""

from __future__ import annotations

import inspect
import types
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...spec.provider_specs import ProviderSpec
from ...storage.wire import Exchange
from .. import active, ownership, serving, sinks
from .. import exchange as exchange_path
from ..request import WireRequest
from ..wrapping import wrap_once
from . import _wire

if TYPE_CHECKING:
    from ..active import RecordingState as Recording

__all__ = ["patch", "request_wrapper"]

_sinks: dict[int, Any] = {}
_tee_reader_cls: type | None = None
_names: Any = None


def _aiohttp() -> Any:
    """aiohttp's names the capture path reads each call, imported once (a ``from`` import of a
    package's module runs importlib's ``_handle_fromlist`` at every call)."""
    global _names
    if _names is None:
        from aiohttp import hdrs, streams
        from aiohttp.http import SERVER_SOFTWARE
        from yarl import URL

        _names = types.SimpleNamespace(
            USER_AGENT=hdrs.USER_AGENT,
            CONTENT_TYPE=hdrs.CONTENT_TYPE,
            SERVER_SOFTWARE=SERVER_SOFTWARE,
            URL=URL,
            streams=streams,
        )
    return _names


def _tee_reader(module: Any) -> type:
    """A ``StreamReader`` subclass (same slots) that hands each fed chunk to the reader's sink."""
    global _tee_reader_cls
    if _tee_reader_cls is None:
        base = module.StreamReader

        class TeeStreamReader(base):  # type: ignore[misc, valid-type]
            __slots__ = ()

            def feed_data(self, data: bytes, *args: object, **kwargs: object) -> Any:
                sink = _sinks.get(id(self))
                if sink is not None and data:
                    sink.add(bytes(data))
                return super().feed_data(data, *args, **kwargs)

            def feed_eof(self) -> None:
                sink = _sinks.pop(id(self), None)
                if sink is not None:
                    sink.finish(complete=True)
                super().feed_eof()

        _tee_reader_cls = TeeStreamReader
    return _tee_reader_cls


def _request_body(session: Any, data: Any, json_value: Any) -> tuple[bytes | None, str | None]:
    """``(body bytes, implied content type)``, or ``(None, None)`` when aiohttp streams the body itself."""
    if json_value is not None:
        dumps_bytes = getattr(session, "_json_serialize_bytes", None)
        if dumps_bytes is not None:
            return bytes(dumps_bytes(json_value)), "application/json"
        return str(session._json_serialize(json_value)).encode("utf-8"), "application/json"
    if data is None:
        return b"", None
    if isinstance(data, str):
        return data.encode("utf-8"), "text/plain; charset=utf-8"
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data), "application/octet-stream"
    if isinstance(data, dict) or (
        isinstance(data, (list, tuple)) and all(isinstance(p, tuple) for p in data)
    ):
        return urllib.parse.urlencode(data, doseq=True).encode(
            "utf-8"
        ), "application/x-www-form-urlencoded"
    value = getattr(data, "_value", None)  # aiohttp.payload.BytesPayload / StringPayload
    if isinstance(value, (bytes, bytearray)):
        return bytes(value), getattr(data, "content_type", None)
    return None, None


def _wire_request(
    session: Any, method: str, str_or_url: Any, kwargs: dict[str, Any]
) -> tuple[WireRequest | None, Any]:
    names = _aiohttp()
    body, implied_type = _request_body(session, kwargs.get("data"), kwargs.get("json"))
    if body is None:
        return None, None
    build = getattr(session, "_build_url", None)
    url = build(str_or_url) if build is not None else names.URL(str_or_url)
    params = kwargs.get("params")
    if params:
        url = url.extend_query(params)
    headers = session._prepare_headers(kwargs.get("headers"))
    if names.USER_AGENT not in headers:
        headers[names.USER_AGENT] = names.SERVER_SOFTWARE
    if implied_type and names.CONTENT_TYPE not in headers:
        headers[names.CONTENT_TYPE] = implied_type
    return WireRequest(method, str(url), headers.items(), body), url


async def request_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``aiohttp.ClientSession._request(method, str_or_url, **kwargs)``."""
    recording = active.current()
    if recording is None or ownership.owner() is not None:
        return await wrapped(*args, **kwargs)
    method = kwargs["method"] if "method" in kwargs else args[0]
    str_or_url = kwargs["str_or_url"] if "str_or_url" in kwargs else args[1]
    wire, url = _wire_request(instance, str(method), str_or_url, kwargs)
    started = exchange_path.open_exchange(recording, wire, instance) if wire is not None else None
    if started is None or wire is None:
        return await wrapped(*args, **kwargs)
    spec, exchange = started
    if recording.mode == "replay":
        stored = serving.take_recorded(recording, exchange)
        if "error" in stored:
            _raise_recorded(stored["error"])
        response = _replayed(instance, wire, url, stored)
        await _check_status(instance, kwargs, response)
        return response
    with exchange_path.sending(exchange, "aiohttp"):
        # the status is checked below, once the response is stored: an error
        # status is recorded as the response it is, not as the exception
        response = await wrapped(*args, **{**kwargs, "raise_for_status": False})
    auto_decompress = kwargs.get("auto_decompress")
    if auto_decompress is None:
        auto_decompress = getattr(instance, "_auto_decompress", True)
    _tee(recording, exchange, spec, response, wire, decoded=bool(auto_decompress))
    await _check_status(instance, kwargs, response)
    return response


async def _check_status(session: Any, kwargs: dict[str, Any], response: Any) -> None:
    """What ``_request`` does with ``raise_for_status`` (the call's, else the session's)."""
    check = kwargs.get("raise_for_status")
    if check is None:
        check = getattr(session, "_raise_for_status", False)
    if callable(check):
        await check(response)
    elif check:
        response.raise_for_status()


def _raise_recorded(err: dict[str, Any]) -> None:
    import aiohttp

    name, message = str(err.get("type")), str(err.get("message", ""))
    cls = _wire.error_class(name, aiohttp, default=aiohttp.ClientConnectionError)
    try:
        exc = cls(message)
    except TypeError:  # a class built from a connection key / request info
        exc = aiohttp.ClientConnectionError(f"{name}: {message}")
    raise exc


def _tee(
    recording: Recording,
    exchange: Exchange,
    spec: ProviderSpec,
    response: Any,
    wire: WireRequest,
    *,
    decoded: bool,
) -> None:
    streams = _aiohttp().streams
    headers = [(str(k), str(v)) for k, v in response.headers.items()]
    sink = sinks.body_sink(
        recording, exchange, spec, response.status, headers, decoded=decoded, path=wire.url.path
    )
    reader = response.content
    if response._body is not None:  # read inside _request (a redirect, raise_for_status hook)
        sink.add(bytes(response._body))
        sink.finish(complete=True)
        return
    if (
        reader is None
        or type(reader) is streams.EmptyStreamReader
        or not isinstance(reader, streams.StreamReader)
    ):
        sink.finish(complete=True)
        return
    buffered = list(reader._buffer)
    offset = getattr(reader, "_buffer_offset", 0)
    if buffered and offset:
        buffered[0] = buffered[0][offset:]
    for chunk in buffered:
        sink.add(bytes(chunk))
    if reader.is_eof():
        sink.finish(complete=True)
        return
    if type(reader) is streams.StreamReader:
        _sinks[id(reader)] = sink
        reader.__class__ = _tee_reader(streams)
    else:  # a reader subclass of someone else's: store what arrived, marked incomplete
        sink.finish(complete=False)


def _signature_kwargs(cls: Any, offered: dict[str, Any]) -> dict[str, Any]:
    params = inspect.signature(cls.__init__).parameters
    return {k: v for k, v in offered.items() if k in params}


def _replayed(session: Any, wire: WireRequest, url: Any, stored: dict[str, Any]) -> Any:
    import asyncio

    from aiohttp import ClientResponse, RequestInfo, base_protocol, http, streams
    from multidict import CIMultiDict, CIMultiDictProxy

    loop = asyncio.get_running_loop()
    request_headers = CIMultiDictProxy(CIMultiDict(wire.headers.multi_items()))
    offered = {
        "writer": None,
        "continue100": None,
        "timer": None,
        "request_info": RequestInfo(url, wire.method, request_headers, url),
        "traces": [],
        "loop": loop,
        "session": session,
        "stream_writer": types.SimpleNamespace(output_size=0),
    }
    response = ClientResponse(wire.method, url, **_signature_kwargs(ClientResponse, offered))
    status = int(stored["status"])
    headers = serving.replay_headers(stored)
    body = serving.stored_body_bytes(stored)
    headers.append(("Content-Length", str(sum(len(c) for c in body))))
    response.version = http.HttpVersion11
    response.status = status
    response.reason = _wire.reason_phrase(status)
    response._headers = CIMultiDictProxy(CIMultiDict(headers))
    response._raw_headers = tuple(
        (k.encode("latin-1", "replace"), v.encode("latin-1", "replace")) for k, v in headers
    )
    cookies = tuple(v for k, v in headers if k.lower() == "set-cookie")
    if cookies and hasattr(response, "_raw_cookie_headers"):
        response._raw_cookie_headers = cookies
    reader = streams.StreamReader(base_protocol.BaseProtocol(loop), 2**16, loop=loop)
    for chunk in body:
        reader.feed_data(chunk)
    reader.feed_eof()
    response.content = reader
    response._closed = False
    return response


def patch(module: types.ModuleType) -> None:
    """Wrap ``module.ClientSession._request`` (``module``: ``aiohttp.client``), once."""
    wrap_once(module.ClientSession, "_request", request_wrapper)
