"""Byte-faithful responses: what user code reads in replay is what it read live.

SDKs hand the HTTP response to user code: ``with_raw_response`` (openai,
anthropic, groq) exposes ``.headers`` and ``.content``; google-genai copies
every header into ``GenerateContentResponse.sdk_http_response.headers``. So
replay serves:

* **the recorded body bytes.** A snapshot file stores JSON with sorted keys,
  so a JSON body parsed (``"body"``, what codecs, diffs and reviewers read)
  gives back the server's bytes only when they were sorted and compact. Any
  other JSON body (indented, keys in the server's order, ``\\u`` escapes, a
  trailing newline: every real provider) also keeps the text it was
  (``"text"``), which replay serves while it still parses to ``"body"``
  (:func:`response_body`, :func:`replay_body`). When scrubbing has to change
  a body (a secret, a ``redact`` JSON path), only the scrubbed JSON is
  stored: secrets win over byte equality.
* **every response header the spec keeps** (``[response] keep_headers``; the
  shipped specs keep ``*``), including ``content-length`` and
  ``transfer-encoding``, with account headers stored as ``<redacted>``
  (:data:`agentsnap.storage.scrub.ACCOUNT_HEADERS`). A compressed body is stored
  decoded, so its ``content-encoding`` and wire ``content-length`` are not
  replayed (the body user code reads is the same).

Replay sets ``content-length`` itself only for snapshots recorded before
these rules (no stored ``content-length`` / ``transfer-encoding``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from ..spec.provider_specs import ProviderSpec
from ..storage import wire
from ..storage.scrub import mask_header, scrub_bytes, scrub_json, scrub_text

__all__ = [
    "FRAMING",
    "decode_body",
    "encode_body",
    "replay_body",
    "response_body",
    "response_headers",
]

#: headers that frame the body on the wire
FRAMING = frozenset({"content-length", "transfer-encoding"})


def encode_body(
    raw: bytes, content_type: str | None, repeats: wire.Repeats | None = None
) -> dict[str, Any]:
    """Store a body: ``{"body": json}``, ``{"text": str}`` or ``{"body_b64", "sha256"}``
    (:func:`agentsnap.storage.wire.encode_body`, bytes scrubbed; ``repeats``: the bodies before
    it, whose repeats it shares)."""
    return wire.encode_body(raw, content_type, binary=_scrubbed_body_envelope, repeats=repeats)


def _scrubbed_body_envelope(raw: bytes) -> dict[str, Any]:
    # token shapes and remembered credentials, overwritten in place
    return wire.envelope(scrub_bytes(raw), key="body_b64")


#: the bytes of a body stored by :func:`encode_body`
decode_body = wire.body_bytes


_sorted_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def _may_be_sorted_compact(parsed: Any) -> bool:
    """False when the text ``parsed`` was read from cannot be its snapshot form (keys sorted):
    an object whose first key (the text's first: a parse keeps their order) is not its least.
    A look at the keys before encoding the whole body (the answer of most providers' bodies)."""
    if type(parsed) is dict and len(parsed) > 1:
        return bool(next(iter(parsed)) == min(parsed))
    return True


def response_body(
    raw: bytes, content_type: str | None, *, verbatim: bool, repeats: wire.Repeats | None = None
) -> tuple[dict[str, Any], bool]:
    """How to store a (decoded) non-streamed response body, and whether it replays byte for byte.

    Returns ``(stored, exact)``. ``stored`` is one of:

    * ``{"body": json}`` when the snapshot's own JSON form (sorted keys,
      compact) is exactly ``raw``;
    * ``{"body": json, "text": str}`` for any other JSON body: ``body`` is
      what codecs, diffs and reviewers read, ``text`` the exact text replay
      serves (as long as it still parses to ``body``, see :func:`replay_body`);
    * ``{"text": str}`` for a body that is not JSON, or any body when
      ``verbatim`` (the spec's ``[replay] verbatim_error_bodies``, error statuses);
    * ``{"body_b64", "sha256"}`` for bytes that are not UTF-8.

    ``exact`` is False when scrubbing had to change the body: then only the
    scrubbed ``body`` is stored (secrets win over byte equality).

    ``repeats``: the capture's response bodies so far; a JSON object body shares what it
    repeats of the one before (:class:`~agentsnap.storage.wire.Repeats`: the same JSON).
    """
    stored = encode_body(raw, content_type, repeats)
    if "body" in stored and stored["body"] is not None:
        parsed = stored["body"]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:  # json.loads also reads UTF-16/32: keep the parsed form
            return {"body": scrub_json(parsed)}, False
        if verbatim:
            clean = scrub_text(text)
            return {"text": clean}, clean == text
        scrubbed = scrub_json(parsed)
        if scrubbed != parsed or scrub_text(text) != text:
            return {"body": scrubbed}, False
        if _may_be_sorted_compact(parsed) and _sorted_compact(parsed) == text:
            return {"body": parsed}, True
        return {"body": parsed, "text": text}, True
    if "text" in stored:
        clean = scrub_text(stored["text"])
        return {"text": clean}, clean == stored["text"]
    return stored, True


def replay_body(stored: dict[str, Any], *, proven: bool = False) -> tuple[bytes, bool]:
    """The bytes replay serves for a stored non-streamed body, and whether they are the recorded ones.

    A ``text`` stored next to a ``body`` is served only while it still parses
    to that ``body``: a ``body`` edited by hand (or scrubbed later by
    ``agentsnap scrub``) is served as edited, re-serialised, and
    ``exact`` is False (the recorded ``content-length`` no longer applies).
    ``proven``: the response is a step of a golden whose digest holds
    (:attr:`~agentsnap.capture.cassette.Cassette.texts_parse_to_bodies`): its text is served
    without being parsed again.
    """
    if "text" in stored and "body" in stored:
        if proven and type(stored["text"]) is str:
            return stored["text"].encode("utf-8"), True
        try:
            same = wire.json_loads(stored["text"]) == stored["body"]
        except (TypeError, ValueError):
            same = False
        if same:
            return str(stored["text"]).encode("utf-8"), True
        return decode_body({"body": stored["body"]}), False
    return decode_body(stored), True


#: a header name lower-cased, one string per name: a stored response's header names are the
#: keys of its ``headers``, and the same few in every response (a 5,000-call recording held
#: 20,000 equal copies, ~1.3 MB); bounded, since a server may invent names
_lows: dict[str, str] = {}
_LOWS = 1024
#: a kept header value shorter than this is one string for every response (``sys.intern``: held
#: only while a stored response holds it): a length, a count of milliseconds, ``true``... repeat
#: across responses, while scrubbing hands back a fresh string for each (a longer value comes
#: back as its memo's one)
_SHORT_VALUE = 8


def response_headers(
    pairs: Iterable[tuple[str, str]], spec: ProviderSpec, *, streamed: bool, exact: bool = True
) -> dict[str, str]:
    """The response headers to store from ``pairs`` (``(name, value)`` as received), lower-cased,
    repeated ones joined with ``", "`` (as ``httpx.Headers`` reads them).

    Kept: what the spec keeps (globs). A streamed response's
    ``content-encoding`` is kept for the chunk sink (dropped again once its
    chunks are stored decoded); a non-streamed one's is dropped (the body is
    stored decoded), and so is the wire ``content-length`` of any encoded
    body. ``exact=False`` (the stored body will not replay byte for byte)
    drops ``content-length`` too, so replay computes it from what it serves.
    An account header (:data:`agentsnap.storage.scrub.ACCOUNT_HEADERS`, a spec's
    ``mask_headers``) is masked by :func:`agentsnap.storage.scrub.mask_header`.
    """
    items = [(str(name), str(value)) for name, value in pairs]
    out: dict[str, str] = {}
    masks = getattr(spec, "mask_headers", ())
    encoding = next((v for k, v in items if k.lower() == "content-encoding"), "").strip().lower()
    encoded = encoding not in ("", "identity")
    for name, value in items:
        low = _lows.get(name)
        if low is None:
            low = name.lower()
            if len(_lows) < _LOWS:  # a name past the bound is lower-cased each time
                _lows[name] = low
        if low == "content-encoding":
            if streamed:
                out[low] = value
            continue
        if low == "content-length" and (encoded or not exact):
            continue
        if not spec.keeps_header(low):
            continue
        value = mask_header(low, value, masks)
        if len(value) < _SHORT_VALUE:
            value = sys.intern(value)
        out[low] = f"{out[low]}, {value}" if low in out else value
    return out
