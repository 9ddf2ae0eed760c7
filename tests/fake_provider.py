"""A fake OpenAI chat-completions server: a real HTTP server on 127.0.0.1.

Stdlib only (no agentsnap import), so it can drive the plain ``openai`` SDK
in tests and examples::

    with FakeOpenAI() as fake:
        fake.script(text_reply("hi"), error_reply(429))
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test")
        ...
        fake.requests[0].body   # -> the parsed JSON the SDK sent

Wire format served at ``POST /v1/chat/completions``:

* JSON reply: ``{"id", "object": "chat.completion", "created", "model",
  "choices": [{"index", "message": {"role", "content", "tool_calls"?},
  "finish_reason"}], "usage": {"prompt_tokens", "completion_tokens",
  "total_tokens"}}`` with ``content-type: application/json`` and
  ``x-request-id: req_<hex>``.
* Streaming reply (request has ``"stream": true``): ``text/event-stream``
  over chunked transfer-encoding, one ``data: <chat.completion.chunk>\\n\\n``
  event per write, an optional final usage chunk (``"choices": []``), then
  ``data: [DONE]\\n\\n``.

Ids are deterministic: ``id``, ``created`` and ``x-request-id`` derive from
a hash of the request (method, path, body) plus how many times that same
request was seen before, so recordings are reproducible even when requests
arrive concurrently in a different order.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import re
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeOpenAI",
    "FakeProvider",
    "RecordedRequest",
    "Reply",
    "error_reply",
    "stream_text_reply",
    "stream_tool_calls_reply",
    "text_reply",
    "tool_calls_reply",
]

DEFAULT_MODEL = "gpt-4o-mini"
FINGERPRINT = "fp_fake"
BASE_CREATED = 1_700_000_000  # 2023-11-14T22:13:20Z
_FIXED_DATE = "Tue, 14 Nov 2023 22:13:20 GMT"  # the Date header, for reproducibility

ToolCall = tuple[str, str, "dict | str"]  # (call_id, function name, arguments)
Usage = tuple[int, int]  # (prompt_tokens, completion_tokens)


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class Reply:
    """One HTTP answer the fake server will send.

    status/headers: HTTP status and extra response headers (name, value).
    body: a JSON reply. If ``body["object"] == "chat.completion"`` the server
        stamps ``id``/``created``/``system_fingerprint`` when absent.
    chunks: a streaming reply instead: each item is the ``choices`` list of one
        ``chat.completion.chunk``; the server wraps it with id/object/created/model.
    usage: ``{"prompt_tokens", "completion_tokens", "total_tokens"}`` for the
        final streamed usage chunk.
    include_usage: always stream the usage chunk; otherwise only when the
        request asked for it with ``stream_options.include_usage``.
    events: a streaming reply in any other wire format: each item is one
        complete SSE event text (``"event: x\ndata: {...}\n\n"``) or any raw
        text, written as one HTTP chunk each, as is (no ``[DONE]`` added).
    content_type: overrides the content type of the reply.
    """

    status: int = 200
    body: dict | None = None
    chunks: tuple[list, ...] | None = None
    headers: tuple[tuple[str, str], ...] = ()
    model: str = DEFAULT_MODEL
    usage: dict | None = None
    include_usage: bool = False
    events: tuple[str, ...] | None = None
    content_type: str | None = None

    @property
    def streaming(self) -> bool:
        return self.chunks is not None or self.events is not None


def _usage(usage: Usage) -> dict:
    prompt, completion = usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _arguments(args: dict | str) -> str:
    """Tool arguments as the API sends them: a compact JSON string."""
    return args if isinstance(args, str) else json.dumps(args, separators=(",", ":"))


def text_reply(content: str, *, model: str = DEFAULT_MODEL, usage: Usage = (10, 5)) -> Reply:
    """A plain assistant answer: ``message = {"role": "assistant", "content": content}``."""
    message = {"role": "assistant", "content": content, "refusal": None}
    return _completion(message, "stop", model, usage)


def tool_calls_reply(
    calls: Sequence[ToolCall],
    content: str | None = None,
    *,
    model: str = DEFAULT_MODEL,
    usage: Usage = (10, 5),
) -> Reply:
    """The model asks for tools: ``calls = [("call_A", "get_weather", {"city": "Paris"}), ...]``.

    Arguments given as a dict are serialised compactly (``'{"city":"Paris"}'``);
    a str is sent verbatim. ``finish_reason`` is ``"tool_calls"``.
    """
    tool_calls = [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": _arguments(args)}}
        for cid, name, args in calls
    ]
    message = {"role": "assistant", "content": content, "refusal": None, "tool_calls": tool_calls}
    return _completion(message, "tool_calls", model, usage)


def _completion(message: dict, finish_reason: str, model: str, usage: Usage) -> Reply:
    body = {
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": _usage(usage),
    }
    return Reply(body=body, model=model)


def _choice(delta: dict, finish_reason: str | None = None) -> list:
    return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]


def stream_text_reply(
    pieces: Iterable[str],
    *,
    model: str = DEFAULT_MODEL,
    include_usage: bool = True,
    usage: Usage = (10, 5),
) -> Reply:
    """A streamed answer: a role chunk, one content delta per piece, a ``stop`` chunk."""
    chunks = [_choice({"role": "assistant", "content": "", "refusal": None})]
    chunks += [_choice({"content": piece}) for piece in pieces]
    chunks.append(_choice({}, "stop"))
    return Reply(
        chunks=tuple(chunks), model=model, usage=_usage(usage), include_usage=include_usage
    )


def _split_arguments(arguments: str) -> list[str]:
    """Cut a JSON string after each ``:`` / ``,``: ``'{"city":"Paris"}'`` -> ``['{"city":', '"Paris"}']``."""
    return [piece for piece in re.split(r"(?<=[:,])", arguments) if piece]


def stream_tool_calls_reply(
    calls: Sequence[ToolCall],
    *,
    interleave: bool = True,
    model: str = DEFAULT_MODEL,
    include_usage: bool = True,
    usage: Usage = (10, 5),
) -> Reply:
    """Streamed (parallel) tool calls, one tool-call delta per chunk.

    The first delta of each call carries ``index``, ``id``, ``type``, ``function.name``
    and empty arguments; later deltas carry only ``index`` and a piece of
    ``function.arguments``. With ``interleave`` the pieces of the calls alternate
    (``{"city":`` / ``{"tz":`` / ``"Paris"}`` / ``"Europe/Paris"}``); otherwise each
    call's pieces are sent in a row. Ends with a ``tool_calls`` finish chunk.
    """
    chunks = [_choice({"role": "assistant", "content": None, "refusal": None})]
    pieces = []
    for index, (cid, name, args) in enumerate(calls):
        head = {
            "index": index,
            "id": cid,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        chunks.append(_choice({"tool_calls": [head]}))
        pieces.append([(index, piece) for piece in _split_arguments(_arguments(args))])
    if interleave:
        order = [p for round_ in _round_robin(pieces) for p in round_]
    else:
        order = [p for call_pieces in pieces for p in call_pieces]
    for index, piece in order:
        chunks.append(_choice({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    chunks.append(_choice({}, "tool_calls"))
    return Reply(
        chunks=tuple(chunks), model=model, usage=_usage(usage), include_usage=include_usage
    )


def _round_robin(lists: list[list]) -> Iterable[list]:
    longest = max((len(items) for items in lists), default=0)
    for i in range(longest):
        yield [items[i] for items in lists if i < len(items)]


_ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


def error_reply(
    status: int = 429,
    *,
    retry_after: str | None = "0",
    message: str | None = None,
    type: str | None = None,
    code: str | None = None,
) -> Reply:
    """An API error: ``{"error": {"message", "type", "param", "code"}}`` plus ``retry-after``.

    ``type``/``code`` default to what the real API uses for that status
    (429 -> ``"requests"`` / ``"rate_limit_exceeded"``). ``retry_after=None``
    omits the header.
    """
    default_type, default_code = _ERROR_KINDS.get(status, ("api_error", None))
    error = {
        "message": message or f"Fake error {status} from FakeOpenAI.",
        "type": type or default_type,
        "param": None,
        "code": code if code is not None else default_code,
    }
    headers = (("retry-after", retry_after),) if retry_after is not None else ()
    return Reply(status=status, body={"error": error}, headers=headers)


def _internal_error(code: str, message: str) -> Reply:
    return error_reply(
        500,
        retry_after=None,
        message=f"FakeOpenAI: {message}",
        type="fake_provider_error",
        code=code,
    )


# --------------------------------------------------------------------------- server


@dataclass(frozen=True)
class RecordedRequest:
    """A request the server received. ``headers`` keys are lower-case; ``body`` is the
    parsed JSON (``None`` if the body was empty or not JSON)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw_body: bytes = field(default=b"", repr=False)


Responder = Callable[[dict], Reply]


class FakeProvider:
    """A fake LLM provider: a real HTTP server on 127.0.0.1, ephemeral port.

    Subclasses say which requests are theirs (``accepts``), which ask for a
    stream (``wants_stream``) and the base URL the SDK takes; replies are
    :class:`Reply` objects. Use as a context manager or call ``start()``/``stop()``.

    Replies come from the FIFO script (``script(r1, r2, ...)``) while it has
    entries, else from the responder (``respond_with(fn)``, ``fn(body) -> Reply``).
    With neither, the request gets a 500 whose error ``code`` is
    ``"script_exhausted"``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: collections.deque[Reply] = collections.deque()
        self._responder: Responder | None = None
        self._requests: list[RecordedRequest] = []
        self._seen: collections.Counter[str] = collections.Counter()
        self._connections_opened = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle ---------------------------------------------------------------
    #: shown in errors and the server header
    label = "FakeProvider"
    #: (method, path) pairs served; paths may end with ``*`` (prefix match)
    routes: tuple[tuple[str, str], ...] = ()

    def accepts(self, request: RecordedRequest) -> bool:
        """Whether this fake serves ``request`` (default: one of ``routes``)."""
        path = request.path.rstrip("/")
        for method, route in self.routes:
            if request.method == method and (
                path == route or (route.endswith("*") and path.startswith(route[:-1]))
            ):
                return True
        return False

    def wants_stream(self, request: RecordedRequest) -> bool:
        """Whether the request asked for a streamed reply (default: ``"stream": true`` in the body)."""
        return isinstance(request.body, dict) and request.body.get("stream") is True

    def start(self) -> FakeProvider:
        if self._server is not None:
            return self
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="FakeOpenAI",
            daemon=True,
        )  # a short poll interval keeps stop() (shutdown) fast
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{self.label} is not started")
        return self._server.server_address[1]

    @property
    def origin(self) -> str:
        """``"http://127.0.0.1:<port>"``."""
        return f"http://127.0.0.1:{self.port}"

    # configuration -----------------------------------------------------------
    def script(self, *replies: Reply) -> FakeProvider:
        """Queue replies, served first-in first-out, one per request."""
        with self._lock:
            self._script.extend(replies)
        return self

    def respond_with(self, responder: Responder | None) -> FakeProvider:
        """Compute replies with ``responder(body) -> Reply`` once the script is empty."""
        with self._lock:
            self._responder = responder
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot copy of the requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._script)

    @property
    def connections_opened(self) -> int:
        """How many TCP connections clients opened (1 for N requests = keep-alive worked)."""
        with self._lock:
            return self._connections_opened

    # called from handler threads ---------------------------------------------
    def _note_connection(self) -> None:
        with self._lock:
            self._connections_opened += 1

    def _handle(self, request: RecordedRequest) -> tuple[Reply, str]:
        """Record ``request``; return the reply and a deterministic hex key for ids."""
        is_chat = self.accepts(request)
        with self._lock:
            self._requests.append(request)
            digest = hashlib.sha256(
                b"\0".join([request.method.encode(), request.path.encode(), request.raw_body])
            ).hexdigest()
            self._seen[digest] += 1
            key = hashlib.sha256(f"{digest}:{self._seen[digest]}".encode()).hexdigest()
            count = len(self._requests)
            reply = self._script.popleft() if is_chat and self._script else None
            responder = self._responder
        if not is_chat:
            served = ", ".join(f"{m} {r}" for m, r in self.routes)
            msg = f"{self.label} only serves {served}, not {request.method} {request.path}"
            return error_reply(404, retry_after=None, message=msg), key
        if not isinstance(request.body, dict):
            return error_reply(
                400, retry_after=None, message=f"{self.label}: request body is not a JSON object"
            ), key
        if reply is None and responder is not None:
            try:
                reply = responder(request.body)
            except Exception as exc:  # surfaced to the client as a 500
                return _internal_error("responder_failed", f"responder raised {exc!r}"), key
            if not isinstance(reply, Reply):
                return _internal_error(
                    "bad_reply", f"responder returned {type(reply).__name__}, not Reply"
                ), key
        if reply is None:
            return _internal_error(
                "script_exhausted",
                f"script exhausted: request #{count} arrived but no scripted reply is left "
                "and no responder is set (use .script(...) or .respond_with(...))",
            ), key
        wants_stream = self.wants_stream(request)
        if reply.status < 400 and reply.streaming != wants_stream:
            kind = "streaming" if reply.streaming else "non-streaming"
            return _internal_error(
                "stream_mismatch",
                f"reply for request #{count} is {kind} but the request has stream={wants_stream}",
            ), key
        return reply, key


class FakeOpenAI(FakeProvider):
    """The fake OpenAI chat-completions API (``POST /v1/chat/completions``)."""

    label = "FakeOpenAI"
    routes = (("POST", "/v1/chat/completions"),)

    @property
    def base_url(self) -> str:
        """``"http://127.0.0.1:<port>/v1"`` -- pass as ``OpenAI(base_url=...)``."""
        return f"{self.origin}/v1"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeProvider

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def track(self, conn: socket.socket, alive: bool) -> None:
        with self._connections_lock:
            if alive:
                self._connections.add(conn)
                self.fake._note_connection()
            else:
                self._connections.discard(conn)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients dropping keep-alive connections is normal; report anything else."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def close_connections(self) -> None:
        """Drop idle keep-alive connections so their handler threads end."""
        with self._connections_lock:
            conns = list(self._connections)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    server_version = "FakeOpenAI/1.0"
    sys_version = ""
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, True)

    def finish(self) -> None:
        self.server.track(self.connection, False)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        return _FIXED_DATE

    def do_POST(self) -> None:
        self._serve()

    do_GET = do_PUT = do_DELETE = do_PATCH = do_POST

    def _serve(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        path = self.path.split("?", 1)[0]
        request = RecordedRequest(self.command, path, headers, body, raw)
        reply, key = self.server.fake._handle(request)
        try:
            if reply.streaming:
                self._send_stream(reply, key, body)
            else:
                self._send_json(reply, key)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _start(self, status: int, content_type: str, reply: Reply, key: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("x-request-id", f"req_{key[:24]}")
        for name, value in reply.headers:
            self.send_header(name, value)

    def _send_json(self, reply: Reply, key: str) -> None:
        body = reply.body if reply.body is not None else {}
        if body.get("object") == "chat.completion":
            stamped = {"id": f"chatcmpl-{key[:24]}", "object": None, "created": _created(key)}
            body = {**stamped, **body}
            body.setdefault("system_fingerprint", FINGERPRINT)
        data = json.dumps(body).encode()
        self._start(reply.status, reply.content_type or "application/json", reply, key)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, reply: Reply, key: str, request_body: dict) -> None:
        if reply.events is not None:
            self._start(
                reply.status, reply.content_type or "text/event-stream; charset=utf-8", reply, key
            )
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for event in reply.events:
                self._write_chunk(event.encode())
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return
        options = request_body.get("stream_options") or {}
        with_usage = reply.include_usage or bool(options.get("include_usage"))
        base = {
            "id": f"chatcmpl-{key[:24]}",
            "object": "chat.completion.chunk",
            "created": _created(key),
        }
        base.update(model=reply.model, system_fingerprint=FINGERPRINT)
        self._start(reply.status, "text/event-stream; charset=utf-8", reply, key)
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for choices in reply.chunks or ():
            chunk = {**base, "choices": choices}
            if with_usage:
                chunk["usage"] = None
            self._write_event(json.dumps(chunk))
        if with_usage:
            self._write_event(json.dumps({**base, "choices": [], "usage": reply.usage}))
        self._write_event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")  # end of the chunked body
        self.wfile.flush()

    def _write_event(self, data: str) -> None:
        """One SSE event as one HTTP chunk, written and flushed on its own."""
        self._write_chunk(f"data: {data}\n\n".encode())

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def _created(key: str) -> int:
    """A deterministic ``created`` timestamp within ~12 days after BASE_CREATED."""
    return BASE_CREATED + int(key[:5], 16)
