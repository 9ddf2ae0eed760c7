"""A request as a transport saw it: the neutral form, and the stored (scrubbed) form.

* :class:`WireRequest`: a request as bytes on the wire (method, URL, headers,
  body), built by a transport from its library's request object and read the
  way an ``httpx.Request`` is read (:class:`~agentsnap.capture.contract.Request`);
* :func:`request_record`: the stored form of a request, scrubbed (the one
  place a request is), from which its replay key is computed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..storage import wire
from ..storage.scrub import credentials as _cred
from ..storage.scrub import scrub_parsed_json, scrub_text, scrub_url
from ..storage.serialize import bytes_envelope
from .contract import Request

if TYPE_CHECKING:
    from .cassette import Cassette

__all__ = ["WireRequest", "record_of", "request_parts", "request_record"]


_BOUNDARY = re.compile(r'boundary="?([^";,\s]+)"?', re.IGNORECASE)


def request_record(request: Request, cassette: Cassette | None = None) -> dict[str, Any]:
    """The stored form of a request, from which its replay key is computed.

    Secrets are scrubbed here (:mod:`agentsnap.storage.scrub`), so the stored request
    and the live one seen in replay scrub to the same key. A multipart body's
    random boundary is replaced by a fixed one (the same upload gives the same
    record every run). A body that is not UTF-8 is stored as
    ``{"body": {"$bytes_b64", "sha256"}}`` (a side-file reference above
    1 MiB, see :mod:`agentsnap.storage.serialize`).

    ``cassette``: replay's recordings; a request equal to one of them as sent is answered with
    that stored request, unscrubbed (:func:`_stored_as_sent`).
    """
    parts = request_parts(request)
    if cassette is not None and (stored := _stored_as_sent(parts, cassette)) is not None:
        return stored
    return record_of(*parts)


def _stored_as_sent(
    parts: tuple[str, str, str, str, bytes], cassette: Cassette
) -> dict[str, Any] | None:
    """The stored request of a recording of ``cassette`` that :func:`record_of` of ``parts`` would
    equal, found without scrubbing; None to make the record as usual.

    It holds when the request, parsed but not scrubbed, has a recording's replay key (the same
    method, path and JSON body, types included) and that recording stores nothing else, and:

    * the cassette's steps hold their golden's digest under the ``redact`` rules in force
      (:meth:`~agentsnap.capture.cassette.Cassette.stored_request`): the stored request is
      then what scrubbing made of a request under these rules, which scrubbing leaves as it is
      (tests/test_replay_fast_path.py's property), so scrubbing this equal request gives it too;
    * no credential this process remembered appears in the path or the body: scrubbing would
      remove one (none was known to the process that recorded it, or it would not be there). The
      body has no backslash, so each of its strings is in its text as it is, and the credentials'
      matcher looks for their forms in that text
      (:func:`~agentsnap.storage.scrub.credentials.holds_remembered`).

    Only a request with no query and a JSON object body in UTF-8 (not labelled multipart:
    :func:`record_of` would replace its boundary in the bytes first)."""
    method, path, query, ctype, raw = parts
    if (
        query
        or raw[:1] != b"{"
        or b"\\" in raw
        or b"\x00" in raw[:4]  # (UTF-16 or UTF-32 text: it is read as UTF-8 below)
        or ctype[:10].lower() == "multipart/"  # (record_of replaces its boundary in the bytes)
        or not cassette.serves_as_sent  # (before the parse: a cassette of no proven golden)
    ):
        return None
    try:
        body = wire.json_loads(raw)
    except ValueError:
        return None
    stored = cassette.stored_request(
        wire.replay_key({"method": method, "path": path, "body": body})
    )
    if (
        stored is None
        or stored.keys() != _AS_SENT
        or stored["method"] != method
        or stored["path"] != path
    ):
        return None
    if _cred.holds_remembered(path) or _cred.holds_remembered(raw.decode("utf-8", "surrogatepass")):
        return None
    return stored


#: the fields of a stored request :func:`_stored_as_sent` answers with
_AS_SENT = frozenset({"method", "path", "body"})


def request_parts(request: Request) -> tuple[str, str, str, str, bytes]:
    """What :func:`record_of` stores of ``request``, read at once (the body before the send
    consumes it): method, path, query, content type and body bytes; nothing scrubbed yet."""
    try:
        raw = request.content
    except Exception:
        raw = request.read()
    if not isinstance(raw, bytes):
        raw = bytes(raw or b"")
    url = request.url
    raw_query = url.query
    query = (
        raw_query.decode("ascii", "replace")
        if isinstance(raw_query, bytes)
        else str(raw_query or "")
    )
    return request.method, url.path, query, content_type(request.headers), raw


def content_type(headers: Any) -> str:
    """``headers.get("content-type") or ""``; for httpx's headers read from their (raw name,
    lower-case name, value) triples when the values are ASCII (which every encoding httpx may
    pick decodes alike), without httpx choosing the encoding of the whole header list."""
    triples = getattr(headers, "_list", None)
    if type(triples) is list:
        try:
            found = [value for _, low, value in triples if low == b"content-type"]
            return ", ".join([value.decode("ascii") for value in found])
        except (AttributeError, TypeError, ValueError):  # not httpx's shape, or not ASCII
            pass
    return headers.get("content-type") or ""


def record_of(
    method: str,
    path: str,
    query: str,
    ctype: str,
    raw: bytes,
    repeats: wire.Repeats | None = None,
) -> dict[str, Any]:
    """The stored form of a request from its parts (:func:`request_parts`); ``repeats``: the
    capture's bodies so far, whose repeats this body shares (:class:`~agentsnap.storage.wire.Repeats`)."""
    rec: dict[str, Any] = {"method": method, "path": scrub_text(path)}
    if query:
        rec["query"] = scrub_url("http://x/?" + query).split("?", 1)[1]
    if raw and ctype.lower().startswith("multipart/"):
        found = _BOUNDARY.search(ctype)
        if found:
            raw = raw.replace(found.group(1).encode("latin-1", "replace"), b"agentsnap-boundary")
    stored = wire.encode_body(raw, ctype, binary=_request_bytes, repeats=repeats)
    if "body" in stored:  # walked only when a string in it is not known to be left alone
        stored["body"] = scrub_parsed_json(stored["body"], raw)
    elif "text" in stored:
        stored["text"] = scrub_text(stored["text"])
    rec.update(stored)
    return rec


def _request_bytes(raw: bytes) -> dict[str, Any]:
    return {"body": bytes_envelope(raw)}  # scrubbed; a side file above 1 MiB


class _Headers:
    """Case-insensitive, multi-valued request headers (the read side of ``httpx.Headers``).

    ``_list``: the headers as httpx keeps them, (name, lower-case name, value) triples of
    bytes (UTF-8), or None when one does not encode: what
    :func:`~agentsnap.capture.exchange.recognise` compares to know a request it read before
    without reading it again, and :func:`content_type` reads (ASCII values only)."""

    __slots__ = ("_index", "_items", "_list")

    def __init__(self, items: Iterable[tuple[Any, Any]]) -> None:
        pairs = [
            (k if type(k) is str else _text(k), v if type(v) is str else _text(v)) for k, v in items
        ]
        self._items = pairs
        index: dict[str, str] = {}
        triples: list[tuple[bytes, bytes, bytes]] | None = []
        for k, v in pairs:
            low = k.lower()
            index[low] = f"{index[low]}, {v}" if low in index else v
            if triples is not None:
                try:
                    triples.append((k.encode(), low.encode(), v.encode()))
                except UnicodeEncodeError:  # a lone surrogate: no triples (read as before)
                    triples = None
        self._index = index
        self._list = triples

    def get(self, name: str, default: object = None) -> Any:
        return self._index.get(name.lower(), default)

    def __getitem__(self, name: str) -> str:
        return self._index[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def keys(self) -> Any:
        return self._index.keys()

    def items(self) -> Any:
        return self._index.items()

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self._items)


class _URL:
    """The parts of a URL that recognition and the stored request read (like ``httpx.URL``)."""

    __slots__ = ("_host", "_text", "_uri_reference", "path", "query", "scheme")

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        #: the parsed URL, a tuple (as ``httpx.URL``'s): with the method, the key under which
        #: :func:`~agentsnap.capture.exchange.recognise` keeps a request it read
        self._uri_reference = parts
        self.scheme = parts.scheme
        self._host: str | None = None
        self.path = parts.path or "/"
        self.query = parts.query.encode("ascii", "replace")  # bytes, as httpx.URL.query
        self._text = url

    @property
    def host(self) -> str:
        """The host name, lower case ("" when none); read when first asked (a request
        recognise knows does not ask)."""
        host = self._host
        if host is None:
            host = self._host = (self._uri_reference.hostname or "").lower()
        return host

    @property
    def port(self) -> int | None:
        return self._uri_reference.port

    @property
    def netloc(self) -> bytes:
        """Host and port, without user info, as bytes (as ``httpx.URL.netloc``)."""
        return self._uri_reference.netloc.rpartition("@")[2].encode("ascii", "replace")

    def __str__(self) -> str:
        return self._text


class WireRequest:
    """A request as sent: ``method`` (upper case), ``url`` (``.host``, ``.path``,
    ``.query`` bytes), ``headers`` (case-insensitive ``.get``) and ``content``
    (the body bytes). Built by the transport adapters from their library's
    request; reads like an ``httpx.Request``, so the same recognition and
    storage serve every library."""

    __slots__ = ("content", "headers", "method", "url")

    def __init__(
        self, method: str, url: str, headers: Iterable[tuple[Any, Any]], content: bytes | None
    ) -> None:
        self.method = _text(method).upper()
        self.url = _URL(url)
        self.headers = _Headers(headers)
        self.content = content or b""

    def read(self) -> bytes:
        return self.content

    def __repr__(self) -> str:
        return f"<WireRequest {self.method} {self.url}>"


def _text(value: object) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin-1")
    return str(value)
