"""Remembered credentials: every credential a request of this process carried is
removed wherever its value appears, in each form text carries it in
(:func:`secret_forms`); :func:`scrub_bytes` does the same in bytes.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from . import rules as _rules
from .rules import _SECRET_QUERY_KEYS, REDACTED

# -- remembered credentials (scrub by value) ----------------------------------------
#
# A key with no recognisable shape (Azure OpenAI's 32 hex digits, Mistral's 32
# alphanumerics, Cohere's 40) is still known to agentsnap: the client sent it. Every
# credential a request carried is remembered for the rest of the process and removed
# wherever its value appears, in the forms text carries it in. The search is one pass
# over the text for all known forms at once: an Aho-Corasick automaton
# (ahocorasick-rs, leftmost-longest), or, where that wheel is missing, one combined
# regular expression of the escaped literals.

#: a remembered value is at least this long (shorter ones would also match ordinary text)
MIN_SECRET_LENGTH = 12

# request headers whose value is a credential (lower case); also any name holding one of _CRED_PARTS
_CRED_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"}
)
_CRED_PARTS = ("api-key", "apikey", "api_key", "token", "secret", "password", "auth")
_SCHEME_PREFIX = re.compile(r"(?i)^\s*(?:bearer|basic|token|digest|key|apikey|api-key)\s+")


@dataclass
class _Known:
    values: set[str] = field(default_factory=set)
    forms: tuple[str, ...] = ()
    version: int = 0
    matcher: Any = None  # an ahocorasick_rs.AhoCorasick, a compiled re.Pattern, or None
    lock: Any = None


_known = _Known()


def _b64_cores(raw: bytes) -> list[str]:
    """The base64 text every encoding of ``raw`` contains, whatever its offset in the encoded
    stream (3 alignments, standard and URL-safe alphabets): the characters fixed by ``raw`` alone."""
    import base64

    out = []
    for pad in range(3):
        enc = base64.b64encode(b"\0" * pad + raw).decode("ascii")
        # character j carries bits 6j..6j+5, i.e. bytes 6j//8 .. (6j+5)//8
        keep = [
            j for j in range(len(enc)) if (6 * j) // 8 >= pad and (6 * j + 5) // 8 < pad + len(raw)
        ]
        if keep:
            core = enc[keep[0] : keep[-1] + 1]
            out.append(core)
            out.append(core.replace("+", "-").replace("/", "_"))
    return out


def secret_forms(value: str) -> list[str]:
    """The texts ``value`` can appear as in a stored file: itself, JSON-escaped (both
    ``ensure_ascii`` ways), URL-encoded (``%XX`` and ``+``), and base64 (any alignment,
    both alphabets) — each at least :data:`MIN_SECRET_LENGTH` characters long."""
    import json
    from urllib.parse import quote, quote_plus

    forms = {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
    }
    forms.update(_b64_cores(value.encode("utf-8", "surrogatepass")))
    latin = value.encode("utf-8", "surrogatepass").decode(
        "latin-1"
    )  # as bytes scrubbing sees it (scrub_bytes)
    forms.add(latin)
    return sorted(
        (f for f in forms if len(f) >= MIN_SECRET_LENGTH and REDACTED not in f),
        key=lambda f: (-len(f), f),
    )


def remember_secret(value: object) -> bool:
    """Remember one credential value for the rest of the process: from now on it is removed
    (with every form of :func:`secret_forms`) from everything agentsnap stores or prints.
    Values shorter than :data:`MIN_SECRET_LENGTH` or with fewer than 5 distinct characters
    are ignored (they would match ordinary text). Returns whether the value was new."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if not isinstance(value, str):
        return False
    value = value.strip()
    if (
        len(value) < MIN_SECRET_LENGTH
        or len(set(value)) < 5
        or REDACTED in value
        or value in _known.values
    ):
        return False
    import threading

    if _known.lock is None:
        _known.lock = threading.Lock()
    with _known.lock:
        if value in _known.values:
            return False
        values = set(_known.values)
        values.add(value)
        forms: set[str] = set()
        for v in values:
            forms.update(secret_forms(v))
        ordered = tuple(sorted(forms, key=lambda f: (-len(f), f)))
        matcher = _build_matcher(ordered)
        # publish: readers take (forms, matcher) without the lock
        _known.values = values
        _known.forms = ordered
        _known.matcher = matcher
        _known.version += 1
    return True


def _build_matcher(forms: tuple[str, ...]) -> Any:
    if not forms:
        return None
    try:
        import ahocorasick_rs
    except ImportError:  # the regex fallback: one pass too, slower on long texts
        return re.compile("|".join(re.escape(f) for f in forms))
    return ahocorasick_rs.AhoCorasick(
        list(forms), matchkind=ahocorasick_rs.MatchKind.LeftmostLongest
    )


def forget_secrets() -> None:
    """Forget every remembered credential (tests; a new process starts empty)."""
    global _known
    _known = _Known(version=_known.version + 1)
    _seen_values.clear()


def remembered() -> frozenset[str]:
    """The credential values remembered so far."""
    return frozenset(_known.values)


def holds_remembered(text: str) -> bool:
    """Whether ``text`` holds a form of a credential remembered now: what scrubbing would
    replace in it by the remembered credentials alone (one pass of their matcher)."""
    return _known.matcher is not None and _scrub_known(text) != text


def remember_credentials(headers: object = (), url: object = None) -> None:
    """Remember the credentials one outgoing request carries — the one call every transport
    makes with the request's headers and URL, before anything of the request is stored.

    ``headers``: ``(name, value)`` pairs or a mapping (str or bytes). Credentials: the value
    of ``Authorization`` / ``Proxy-Authorization`` (after its scheme; a ``Basic`` value also
    decoded, and the password in it), ``x-api-key``, ``api-key``, ``x-goog-api-key``,
    ``Cookie`` values, and any header whose name holds ``api-key``, ``token``, ``secret``,
    ``password`` or ``auth``. ``url``: secret query parameters (``key``, ``api_key``,
    ``access_token`` … as :func:`scrub_url` masks them) and ``user:password@``.
    """
    _remember(headers, url)


def remember_and_user_agent(headers: object, url: object) -> tuple[bool, str | None]:
    """:func:`remember_credentials`, and the request's ``User-Agent`` read in the same pass over
    its headers: ``(True, value)`` (``(True, None)``: none sent) when that is what
    ``headers.get("user-agent")`` answers (one such header, ASCII), else ``(False, None)``: ask
    the headers. Spares an ``httpx.Headers`` lookup per request (a scan of every header)."""
    agent = _remember(headers, url)
    if agent is None:
        return True, None
    if isinstance(agent, bytes) and agent.isascii():
        return True, agent.decode("ascii")
    if type(agent) is str and agent.isascii():
        return True, agent
    return False, None


#: the value :data:`_cred_names` gives a ``User-Agent`` header's name (never a credential's)
_AGENT = "\x00user-agent"
#: more than one ``User-Agent`` header (``headers.get`` joins them): not read in the pass
_AGENTS = object()


def _remember(headers: object, url: object) -> Any:
    """:func:`remember_credentials`; returns the raw value of the ``User-Agent`` header (None:
    none; :data:`_AGENTS`: several)."""
    agent: Any = None
    raw = getattr(headers, "raw", None)  # httpx.Headers: the (bytes, bytes) pairs, nothing decoded
    if isinstance(raw, list):
        items: Any = raw
    elif hasattr(headers, "multi_items"):
        items = headers.multi_items()
    elif hasattr(headers, "items"):
        items = headers.items()
    else:
        items = headers
    names = _cred_names
    for name, value in items:
        credential = names.get(name)
        if credential is None:
            text = name.decode("latin-1") if isinstance(name, bytes) else str(name)
            low = text.lower()
            credential = names[name] = (
                low
                if (low in _CRED_HEADERS or any(part in low for part in _CRED_PARTS))
                else (_AGENT if low == "user-agent" else "")
            )
            if len(names) > 4096:
                names.clear()
        if credential:
            if credential is _AGENT:
                agent = value if agent is None else _AGENTS
                continue
            if value in _seen_values:
                continue  # the same credential as the last requests: nothing new (the common case)
            _seen_values.add(value)
            _remember_header(
                credential, value.decode("latin-1") if isinstance(value, bytes) else str(value)
            )
    if url is not None:
        query = getattr(url, "query", None)
        userinfo = getattr(url, "userinfo", None)
        if query is not None and userinfo is not None:  # an httpx.URL
            if (not query and not userinfo) or (query, userinfo) in _seen_values:
                return agent  # neither a query nor user:password@, or the same as a request before
            if len(_seen_values) < 100_000:
                _seen_values.add((query, userinfo))
        _remember_url(str(url))
    return agent


#: header name (as sent) -> its lower-case form when it carries a credential, else ""
_cred_names: dict[Any, str] = {}
#: credential header values already read (raw, as sent)
_seen_values: set[Any] = set()


def _remember_header(name: str, value: str) -> None:
    if name in ("cookie", "set-cookie"):
        for part in value.split(";"):
            remember_secret(part.split("=", 1)[-1])
        return
    scheme = _SCHEME_PREFIX.match(value)
    bare = value[scheme.end() :] if scheme else value
    remember_secret(bare)
    if scheme and scheme.group().strip().lower() == "basic":
        import base64
        import binascii

        try:
            decoded = base64.b64decode(
                bare.strip() + "=" * (-len(bare.strip()) % 4), validate=True
            ).decode("utf-8")
        except (binascii.Error, ValueError):
            return
        remember_secret(decoded)
        if ":" in decoded:
            remember_secret(decoded.split(":", 1)[1])


def _remember_url(url: str) -> None:
    if "?" not in url and "@" not in url:
        return
    if url in _seen_values:
        return
    if len(_seen_values) < 100_000:
        _seen_values.add(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if parts.query:
        for k, v in parse_qsl(parts.query, keep_blank_values=False):
            if k.lower() in _SECRET_QUERY_KEYS:
                remember_secret(v)
    if parts.password:
        remember_secret(parts.password)


@functools.cache
def _surrogate() -> re.Pattern[str]:
    return re.compile("([\ud800-\udfff]+)")


def _scrub_known(text: str) -> str:
    """``text`` with every remembered credential form replaced by ``<redacted>``."""
    matcher = _known.matcher
    if matcher is None:
        return text
    if isinstance(matcher, re.Pattern):
        return matcher.sub(REDACTED, text)
    if not text.isascii() and _surrogate().search(text):
        # the automaton reads UTF-8, which has no lone surrogate ("\ud800" from a JSON escape):
        # scrub the pieces between them (no credential holds one, so none spans one)
        return "".join(
            piece if _surrogate().fullmatch(piece) else _scrub_known(piece)
            for piece in _surrogate().split(text)
        )
    found = matcher.find_matches_as_indexes(text)
    if not found:
        return text
    out = []
    last = 0
    for _, start, end in found:
        out.append(text[last:start])
        out.append(REDACTED)
        last = end
    out.append(text[last:])
    return "".join(out)


def scrub_bytes(data: bytes) -> bytes:
    """Binary data (an upload, a non-UTF-8 body, bytes in a tool value) with every token
    shape and remembered credential overwritten in place by ``*`` (same length: offsets
    and sizes inside a binary format stay valid). Returns ``data`` itself when nothing matched."""
    if not data:
        return data
    text = bytes(data).decode("latin-1")
    spans: list[tuple[int, int]] = []
    matcher = _known.matcher
    if matcher is not None:
        if isinstance(matcher, re.Pattern):
            spans.extend(m.span() for m in matcher.finditer(text))
        else:
            spans.extend((start, end) for _, start, end in matcher.find_matches_as_indexes(text))
    shapes = (_rules._TOKEN_RE, _rules._SCANNER_RE, _rules._BEARER_RE)
    for pattern in (*shapes, _rules._URL_PASSWORD_RE, _rules._ASSIGN_RE):
        whole = pattern is shapes[0] or pattern is shapes[1]
        for m in pattern.finditer(text):
            spans.append(m.span() if whole or not m.lastindex else m.span(m.lastindex))
    if not spans:
        return data
    buf = bytearray(data)
    for start, end in spans:
        buf[start:end] = b"*" * (end - start)
    return bytes(buf)
