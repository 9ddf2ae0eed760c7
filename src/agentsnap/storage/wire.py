"""The stored exchange: what one HTTP request/response pair of an LLM SDK is in a snapshot.

A leaf: it imports nothing else from agentsnap (scrubbing, side files and
recognition are passed in by the callers), so the send layer, every
transport, the trace view, replay, serialisation and the provider codecs read
and write the same shapes through one module:

* :class:`Exchange`: one request/response pair as captured (or served in replay);
  :meth:`Exchange.to_dict` gives its stored form, a :class:`StoredExchange`;
* bytes in JSON — one envelope (:func:`envelope`, read back by
  :func:`envelope_bytes`), written three ways by the key it sits under:

  ========================================  ================================================
  ``{"$bytes_b64": b64, "sha256": hex}``    bytes inside a value (a request body that is not
                                            UTF-8, a tool argument): :func:`envelope`
  ``{"$bytes_b64": b64}``                   one streamed chunk that is not UTF-8 text:
                                            :func:`bytes_chunk` (no hash)
  ``{"body_b64": b64, "sha256": hex}``      a read response body that is not UTF-8, next to
                                            ``status``/``headers``: :func:`encode_body`
  ========================================  ================================================

* bodies: :func:`encode_body` / :func:`body_bytes` (``{"body": json}``,
  ``{"text": str}`` or the bytes envelope), :func:`chunk_bytes` for stored chunks;
* ``content-encoding``: :class:`Decompressor` (incremental) and :func:`decompress`
  (whole), one decoder for gzip, deflate (zlib or raw), br and zstd;
* the replay key: :func:`canonical_json` and :func:`request_key`, and its fast
  equivalent :func:`replay_key` that replay indexes by.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

__all__ = [
    "UTF8_BOM",
    "Decompressor",
    "Exchange",
    "PreparedExchange",
    "Repeats",
    "StoredExchange",
    "body_bytes",
    "bytes_chunk",
    "canonical_json",
    "chunk_bytes",
    "decompress",
    "decompressor",
    "encode_body",
    "envelope",
    "envelope_bytes",
    "escape_surrogates",
    "json_loads",
    "json_loads_utf8",
    "next_seq",
    "replay_key",
    "request_key",
]

_seq = itertools.count()


def next_seq() -> int:
    """The next number of the process-wide sequence that orders exchanges and tool calls."""
    return next(_seq)


class StoredExchange(dict[str, Any]):
    """The stored form of an :class:`Exchange` (``{"request": ..., "response": ...}``) made by
    this process's capture, whose secrets were scrubbed when it was captured.

    A plain ``dict`` to everything that reads it (JSON, equality, copies); the
    type tells :func:`agentsnap.storage.scrub.scrub_snapshot` that the exchange needs no
    second pass. An exchange read from a file is a plain dict and is scrubbed.
    """

    __slots__ = ()


class PreparedExchange(StoredExchange):
    """A stored exchange already in the form a snapshot file holds: replay served the
    recording of exactly this request, so the step keeps the golden's own ``request`` and
    ``response`` objects (:meth:`Exchange.to_dict`). Neither converted nor scrubbed again
    (:func:`agentsnap.storage.serialize.prepare`): its bytes are the golden's."""

    __slots__ = ()


def same_stored(a: object, b: object) -> bool:
    """Whether two stored JSON values are the same JSON, byte for byte once keys are sorted:
    MessagePack with sorted keys tells ``1`` from ``1.0`` from ``True``, and a value it cannot
    hold (an integer beyond 64 bits, a lone surrogate) is never called the same."""
    if a is b:
        return True
    try:
        return bool(_sorted_msgpack(a) == _sorted_msgpack(b))
    except (OverflowError, UnicodeEncodeError, TypeError):
        return False


@dataclass
class Exchange:
    """One HTTP request/response pair of an LLM SDK.

    ``request``: ``{"method", "path", "query"?, "body" | "text"}`` — ``body`` is the
    parsed JSON request body (secrets scrubbed), or a bytes envelope
    (:func:`envelope`) when the body is not UTF-8; ``text`` a body that is not
    JSON. Request headers are never stored.

    ``response``: ``{"status", "headers": {name: value}, "body" | "text" | "body_b64"}``
    for a read response (``body`` is parsed JSON), or ``{"status", "headers",
    "chunks": [str | {"$bytes_b64"}, ...]}`` for a streamed one (the chunks as
    the SDK read them), or ``{"error": {"type", "message"}}`` for a transport
    error. ``complete`` is False when a stream was closed before its end.
    """

    provider: str
    codec: str | None
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    complete: bool = True
    seq: int = field(default_factory=next_seq)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    #: set by replay when the request did not match its recording exactly
    request_drift: list[str] | None = None
    #: set by replay: position of the served recording in the golden
    replay_index: int | None = None
    #: a model turn read from WebSocket connection number ``connection`` of the trace
    #: (:mod:`agentsnap.capture.websocket.turns`): no exchange is stored, replay serves the connection
    connection: int | None = None
    #: set by replay: the golden's stored exchange that was served (``{"request", "response"}``)
    recorded: dict[str, Any] | None = field(default=None, repr=False)
    #: the thread that sent it (``threading.get_ident()``): how a trace tells calls made from
    #: worker threads from its own thread's (:func:`agentsnap.capture.trace._order`)
    thread: int = field(default_factory=threading.get_ident, compare=False)

    def to_dict(self) -> StoredExchange:
        """The JSON form stored under a step's ``exchange`` key (scrubbed at capture).

        Served by replay from the recording of this very request (no ``request_drift``, the
        request the same JSON as the recorded one: :func:`same_stored`, the response the one
        served): the golden's own objects, as a :class:`PreparedExchange`, which nothing
        converts, scrubs or copies again."""
        rec = self.recorded
        if (
            rec is not None
            and self.request_drift is None
            and self.response is rec.get("response")
            and same_stored(self.request, rec.get("request"))
        ):
            return PreparedExchange(request=rec["request"], response=self.response)
        return StoredExchange(request=self.request, response=self.response)


class ServedExchange(Exchange):
    """An exchange replay served, exactly, from a large golden's step kept as text
    (:mod:`agentsnap.storage.lazy_steps`): its request and response are the recording's, read from
    ``source[replay_index]`` (a cassette's recordings: decoded afresh on each read) instead of
    held, so a long replay does not keep a parsed copy of every exchange it served. A value set
    on it is held as on any :class:`Exchange`. Made by
    :func:`agentsnap.capture.serving.take_recorded` (:meth:`hold_by_reference`)."""

    source: Any

    @classmethod
    def hold_by_reference(cls, exchange: Exchange, source: Any) -> None:
        """Turn ``exchange`` (served recording ``exchange.replay_index`` of ``source``, its request
        equal to the recording's) into one that reads them from ``source``."""
        exchange.__class__ = cls
        held = exchange.__dict__
        held["source"] = source
        for key in ("request", "response", "recorded"):
            held.pop(key, None)

    def _recording(self) -> dict[str, Any]:
        recording: dict[str, Any] = self.source[self.replay_index]
        return recording

    @property
    def request(self) -> dict[str, Any]:
        own: dict[str, Any] | None = self.__dict__.get("request")
        if own is not None:
            return own
        found: dict[str, Any] = self._recording()["request"]
        return found

    @request.setter
    def request(self, value: dict[str, Any]) -> None:
        self.__dict__["request"] = value

    @property
    def response(self) -> dict[str, Any] | None:
        if "response" in self.__dict__:
            own: dict[str, Any] | None = self.__dict__["response"]
            return own
        found: dict[str, Any] = self._recording()["response"]
        return found

    @response.setter
    def response(self, value: dict[str, Any] | None) -> None:
        self.__dict__["response"] = value

    def to_dict(self) -> StoredExchange:
        """The recording's own stored form (as :meth:`Exchange.to_dict` for a request served
        from its recording), unless a value was set on this exchange since."""
        if "request" in self.__dict__ or "response" in self.__dict__:
            return StoredExchange(request=self.request, response=self.response)
        # a run that is not its golden again is stored whole: the golden's steps decoded once
        # first, so the run's exchanges are the golden's own objects, as a whole read serves
        # them (decoded one by one here, the two would each hold a copy)
        self.source.decode_all()
        recording = self._recording()
        return PreparedExchange(request=recording["request"], response=recording["response"])


class Repeats:
    """What a run's request (or response) bodies repeat of the one read before them, parsed once
    and held once.

    An agent's requests repeat themselves: the tools, the system prompt, the conversation so far
    (each request carries every message before it); its responses their ``object``, ``model``,
    ``system_fingerprint``, often their ``usage`` details (one instance for each). :meth:`parse` reads a body that is a JSON
    object by its top-level values and the items of its top-level lists, as text (msgspec's
    ``Raw``: slices of the body, not parsed); a value or item whose text is the previous body's,
    byte for byte, is the previous body's parsed object, and only the rest is parsed (a
    5,000-call run's parsed requests held 12.7 MB, 3.1 MB shared; its responses 9.3 MB, 4.2 MB
    shared). The same text is the same JSON, so every value reads and writes as a whole parse
    gives it. The bodies are the stored requests (responses) of one capture, which nothing
    changes in place (stored forms are converted and
    scrubbed into new objects); a value shared is shared between the steps made from them."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        #: the previous body's parts: key -> (text, parsed value, a list's items' texts or None)
        self._last: dict[str, tuple[msgspec.Raw, Any, list[msgspec.Raw] | None]] = {}

    def parse(self, raw: bytes) -> dict[str, Any]:
        """``json_loads(raw)`` of a body that is a JSON object, its repeats of the previous body
        shared. Raises ``ValueError`` (msgspec's ``DecodeError``) for anything else, and for
        what msgspec refuses (``NaN``, a lone surrogate escape...: :func:`json_loads` reads it)."""
        last = self._last
        self._last = {}  # (a body that fails to read shares nothing with the next)
        parts: dict[str, tuple[msgspec.Raw, Any, list[msgspec.Raw] | None]] = {}
        body: dict[str, Any] = {}
        for key, text in _object_parts(raw).items():
            seen = last.get(key)
            if seen is not None and seen[0] == text:
                parts[key] = seen
                body[key] = seen[1]
                continue
            old_texts = seen[2] if seen is not None else None
            texts = _items_of(text) if old_texts is not None else None
            if texts is not None and old_texts is not None:  # a list then and now: item by item
                old = seen[1] if seen is not None else ()
                n = len(old_texts)
                value: Any = [
                    old[i] if i < n and old_texts[i] == t else _msgspec_decode(t)
                    for i, t in enumerate(texts)
                ]
            else:
                value = _msgspec_decode(text)
                texts = _list_parts(text) if type(value) is list else None
            parts[key] = (text, value, texts)
            body[key] = value
        self._last = parts
        return body


_object_parts = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_list_parts = msgspec.json.Decoder(list[msgspec.Raw]).decode


def _items_of(text: msgspec.Raw) -> list[msgspec.Raw] | None:
    """The items' texts of a value that was a list in the previous body; None when it is not one now."""
    try:
        return _list_parts(text)
    except msgspec.ValidationError:
        return None


# --------------------------------------------------------------------------
# bytes in JSON


def envelope(data: bytes, *, key: str = "$bytes_b64", digest: bool = True) -> dict[str, str]:
    """``{key: base64 of data, "sha256": hex digest}`` (no ``sha256`` when not ``digest``).

    ``key`` is ``"$bytes_b64"`` for bytes inside a value or a chunk, ``"body_b64"``
    for a stored response body. The bytes are stored as given: scrub them first.
    """
    out = {key: base64.b64encode(data).decode("ascii")}
    if digest:
        out["sha256"] = hashlib.sha256(data).hexdigest()
    return out


def bytes_chunk(data: bytes) -> dict[str, str]:
    """A streamed chunk that is not UTF-8 text: ``{"$bytes_b64": ...}``."""
    return envelope(data, digest=False)


def envelope_bytes(stored: Mapping[str, Any]) -> bytes:
    """The bytes of an :func:`envelope` (under ``$bytes_b64`` or ``body_b64``).

    Raises ``KeyError`` when ``stored`` holds neither, ``binascii.Error`` (a
    ``ValueError``) when the base64 is broken.
    """
    value = stored["$bytes_b64"] if "$bytes_b64" in stored else stored["body_b64"]
    return base64.b64decode(value)


def chunk_bytes(chunk: object) -> bytes:
    """The bytes of one stored chunk: a text chunk as UTF-8, an envelope decoded."""
    if isinstance(chunk, dict):
        return envelope_bytes(chunk)
    return str(chunk).encode("utf-8")


def encode_body(
    raw: bytes,
    content_type: str | None,
    *,
    binary: Callable[[bytes], dict[str, Any]] | None = None,
    repeats: Repeats | None = None,
) -> dict[str, Any]:
    """Store a body: ``{"body": json}`` (JSON, or ``None`` when empty), ``{"text": str}``
    (UTF-8 that is not JSON) or, for bytes that are not UTF-8, ``binary(raw)``
    (default ``{"body_b64", "sha256"}`` of ``raw`` as given: pass a ``binary``
    that scrubs). ``repeats``: the bodies read before this one, whose repeats a JSON object
    body shares (:class:`Repeats`)."""
    if not raw:
        return {"body": None}
    ctype = (content_type or "").lower()
    if "json" in ctype or raw[:1] in (b"{", b"["):
        if repeats is not None and raw[:1] == b"{":
            try:
                return {"body": repeats.parse(raw)}
            except ValueError:
                pass  # not one msgspec reads as an object: parsed whole below
        try:
            return {"body": json_loads(raw)}
        except ValueError:
            pass
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return binary(raw) if binary is not None else envelope(raw, key="body_b64")


def json_loads(text: str | bytes) -> Any:
    """``json.loads(text)``, by msgspec's faster decoder where it reads the same JSON; what it
    refuses (``NaN``, a number beyond a float, a lone surrogate escape, text that is not UTF-8,
    an error: the message is ``json``'s) goes to ``json.loads``."""
    try:
        return _msgspec_decode(text)
    except msgspec.DecodeError:
        return json.loads(text)


_msgspec_decode = msgspec.json.decode


#: the byte order mark a Windows editor may put at the start of a UTF-8 file (``codecs.BOM_UTF8``)
UTF8_BOM = b"\xef\xbb\xbf"


def json_loads_utf8(raw: bytes) -> Any:
    """``json.loads(raw.decode("utf-8-sig"))`` (a file's bytes, read as UTF-8 text: a byte order
    mark at its start, as Windows editors save a file, is not part of the text), by msgspec where
    it reads the same JSON, without decoding the text first. Raises ``UnicodeDecodeError`` for
    bytes that are not UTF-8, and ``json``'s ``ValueError`` (its message) for text that is not JSON."""
    text: bytes | memoryview = memoryview(raw)[3:] if raw[:3] == UTF8_BOM else raw  # (no copy)
    try:
        return _msgspec_decode(text)
    except msgspec.DecodeError:
        return json.loads(str(text, "utf-8"))


def body_bytes(stored: Mapping[str, Any]) -> bytes:
    """The bytes of a body stored by :func:`encode_body` (``body`` as compact JSON)."""
    if "body_b64" in stored:
        return envelope_bytes(stored)
    if "text" in stored:
        return str(stored["text"]).encode("utf-8")
    body = stored.get("body")
    if body is None:
        return b""
    text = _compact_json(body)
    if not text.isascii():  # only non-ASCII text can hold a lone surrogate
        text = escape_surrogates(text)
    return text.encode("utf-8")


_compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as ``\\uXXXX`` (UTF-8 cannot hold one).

    Raw surrogates can only occur inside JSON strings, where the escape means
    the same character, so ``json.loads`` gives back the same value.
    """
    if not SURROGATE.search(text):
        return text
    return SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# --------------------------------------------------------------------------
# content-encoding


class Decompressor:
    """Incremental decoding of one ``content-encoding``, as httpx decodes it.

    ``encoding``: ``gzip`` / ``x-gzip``, ``deflate`` (zlib-wrapped, or raw
    deflate as some servers send it), ``br`` (the ``brotli`` or ``brotlicffi``
    package), ``zstd`` (``zstandard``). ``any_zlib``: a gzip or deflate stream may
    have either header, or none (a whole body read leniently). Raises ``LookupError`` for any other
    encoding and ``ImportError`` when its package is missing. :meth:`decompress`
    raises what the codec raises for corrupt data (``zlib.error``, ...).
    """

    def __init__(self, encoding: str, *, any_zlib: bool = False) -> None:
        import zlib

        self.encoding = encoding
        #: the first chunk may show the stream is raw deflate (no zlib or gzip header)
        self._may_be_raw = encoding == "deflate" or (any_zlib and encoding in ("gzip", "x-gzip"))
        self._obj: Any
        if encoding in ("gzip", "x-gzip", "deflate") and any_zlib:
            self._obj = zlib.decompressobj(32 + zlib.MAX_WBITS)  # a gzip or zlib header
        elif encoding in ("gzip", "x-gzip"):
            self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._obj = zlib.decompressobj()
        elif encoding == "br":
            try:
                import brotli  # type: ignore[import-not-found, unused-ignore]
            except ImportError:
                import brotlicffi as brotli  # type: ignore[import-not-found, no-redef, unused-ignore]
            self._obj = brotli.Decompressor()
        elif encoding == "zstd":
            import zstandard  # type: ignore[import-not-found, unused-ignore]

            self._obj = zstandard.ZstdDecompressor().decompressobj()
        else:
            raise LookupError(encoding)

    def decompress(self, data: bytes) -> bytes:
        if self._may_be_raw:
            self._may_be_raw = False
            import zlib

            try:
                return bytes(self._obj.decompress(data))
            except zlib.error:  # raw deflate without the zlib header
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        if self.encoding == "br":
            process = getattr(self._obj, "process", None) or self._obj.decompress
            return bytes(process(data))
        return bytes(self._obj.decompress(data))

    def flush(self) -> bytes:
        flush = getattr(self._obj, "flush", None)
        return bytes(flush()) if callable(flush) else b""


def decompressor(encoding: str) -> Decompressor | None:
    """A :class:`Decompressor` for ``encoding``, or None when there is none (unknown,
    or its package is missing)."""
    try:
        return Decompressor(encoding)
    except (LookupError, ImportError):
        return None


def decompress(data: bytes, encoding: str) -> bytes:
    """``data`` (a whole body, possibly cut short) decoded from ``encoding``
    (any case and spacing; ``""`` and ``identity`` give ``data``).

    Read leniently: a gzip or deflate body may carry either header, or none
    (raw deflate). A cut stream gives what it holds. Raises ``LookupError`` when the encoding
    cannot be decoded here (unknown, package missing) and ``ValueError`` when
    ``data`` is not in that encoding.
    """
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return data
    try:
        decoder = Decompressor(encoding, any_zlib=True)
    except ImportError as exc:
        raise LookupError(encoding) from exc
    try:
        return decoder.decompress(data) + decoder.flush()
    except Exception as exc:
        raise ValueError(f"not {encoding} data: {exc}") from exc


# --------------------------------------------------------------------------
# the replay key


def canonical_json(value: object) -> str:
    """Canonical JSON text: sorted keys, no whitespace, non-ASCII kept literal."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_key(request: Mapping[str, Any]) -> tuple[str, str, str]:
    """The replay key of a stored (already scrubbed) request dict:
    ``(METHOD, path?query, canonical JSON of body)``; the host is not part of it."""
    path = request.get("path") or ""
    query = request.get("query")
    if query:
        path = f"{path}?{query}"
    return (str(request.get("method", "")).upper(), path, canonical_json(request.get("body")))


_sorted_msgpack = msgspec.msgpack.Encoder(order="sorted").encode


def replay_key(request: Mapping[str, Any]) -> tuple[str, str, bytes]:
    """A key equal for two requests exactly when their :func:`request_key` is equal, cheaper
    to compute: the body as MessagePack with sorted keys (msgspec) instead of canonical JSON
    text. A body MessagePack cannot hold (an integer beyond 64 bits, a lone surrogate) is keyed
    by its canonical JSON text, under another first byte, so the two forms never meet.

    The domain is what replay keys: request bodies as JSON parsing gives them (string
    keys; a NaN is the one ``float("nan")``), as :func:`request_key` documents.
    """
    path = request.get("path") or ""
    query = request.get("query")
    if query:
        path = f"{path}?{query}"
    body = request.get("body")
    try:
        packed = b"m" + _sorted_msgpack(body)
    except (OverflowError, UnicodeEncodeError, TypeError):
        packed = b"j" + canonical_json(body).encode("utf-8", "surrogatepass")
    return (str(request.get("method", "")).upper(), path, packed)
