"""Scrubbing values: JSON documents (:func:`scrub_json`, the user's JSON paths
first), any value (:func:`scrub_value`), URLs (:func:`scrub_url`) and whole
snapshots (:func:`scrub_snapshot`).
"""

from __future__ import annotations

import functools
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..wire import StoredExchange
from . import credentials as _cred
from .chunks import scrub_chunks
from .rules import _SECRET_JSON_KEYS, _SECRET_QUERY_KEYS, REDACTED, Redaction, _Step, active
from .text import _MEMO_ENTRIES, _SHORTEST_MATCH, left_alone, mask_header, scrub_text

#: values :func:`_scrub_value` returns as they are (exact types: a subclass takes the call)
_KEPT_SCALARS = frozenset({int, float, bool, type(None)})


def _secret_key(key: object) -> bool:
    return (
        isinstance(key, str) and key.lower().replace("-", "").replace("_", "") in _SECRET_JSON_KEYS
    )


def scrub_value(value: object, rules: Redaction | None = None) -> Any:
    """Scrub every string inside a JSON-like value, and the value of every secret key.

    The input is not changed: a plain dict or list with nothing to scrub in it is returned
    itself, anything else as a new value (a 5,000-call snapshot's views are not copied a
    second time). Dict keys are scrubbed as text too (a token used as a key does not survive
    either).
    """
    rules = rules or active()
    return _scrub_value(value, rules, _key_info(rules), not rules._compiled_patterns)


_keys: tuple[Any, dict[str, tuple[str, bool]], int] = (None, {}, -1)


def _key_info(rules: Redaction) -> dict[str, tuple[str, bool]]:
    """``{key: (scrubbed key, is a secret key)}`` for the rules in force (dict keys repeat endlessly)."""
    global _keys
    if _keys[0] is not rules or _keys[2] != _cred._known.version or len(_keys[1]) > _MEMO_ENTRIES:
        _keys = (rules, {}, _cred._known.version)
    return _keys[1]


def _scrub_value(
    value: Any, rules: Redaction, keys: dict[str, tuple[str, bool]], builtin_only: bool
) -> Any:
    kind = type(value)
    if kind is str or isinstance(value, str):
        return scrub_text(value, rules)
    if kind is dict or isinstance(value, dict):
        out: dict[Any, Any] = {}
        same = kind is dict  # every key and value kept as it was: the dict itself is returned
        for k, v in value.items():
            if isinstance(k, str):
                info = keys.get(k)
                if info is None:
                    info = keys[k] = (scrub_text(k, rules), _secret_key(k))
                key, secret = info
            else:
                key, secret = k, False
            if (
                secret
                and isinstance(v, (str, int, float))
                and not isinstance(v, bool)
                and v not in ("", REDACTED)
            ):
                new: Any = REDACTED
            elif secret and isinstance(v, dict) and isinstance(v.get("value"), str) and v["value"]:
                # a secret held as {"value": ..., "expires_at": ...} (OpenAI Realtime's client_secret)
                held: dict[Any, Any] = _scrub_value(v, rules, keys, builtin_only)
                new = {**held, "value": REDACTED}
            elif type(v) is str and builtin_only and len(v) < _SHORTEST_MATCH:
                new = v  # too short for any built-in rule (as scrub_text decides)
            elif type(v) in _KEPT_SCALARS:
                new = v  # (what _scrub_value returns for one, without the call)
            else:
                new = _scrub_value(v, rules, keys, builtin_only)
            out[key] = new
            # (a string the rules kept may come back as an equal one from their memo)
            same = same and (key is k or key == k) and (new is v or (type(new) is str and new == v))
        return value if same else out
    if kind is list or isinstance(value, (list, tuple)):
        items = [
            v
            if (type(v) is str and builtin_only and len(v) < _SHORTEST_MATCH)
            or type(v) in _KEPT_SCALARS
            else _scrub_value(v, rules, keys, builtin_only)
            for v in value
        ]
        if kind is list and items == value:  # kept children are themselves, kept strings equal
            return value
        return items
    return value


def _apply_path(node: object, steps: tuple[_Step, ...]) -> Any:
    if not steps:
        return node if node is None else REDACTED
    step, rest = steps[0], steps[1:]
    if step.kind == "key":
        if isinstance(node, dict) and step.key in node:
            node = dict(node)
            node[step.key] = _apply_path(node[step.key], rest)
    elif step.kind == "index":
        if isinstance(node, list) and -len(node) <= step.index < len(node):
            node = list(node)
            node[step.index] = _apply_path(node[step.index], rest)
    elif step.kind == "any":
        if isinstance(node, dict):
            node = {k: _apply_path(v, rest) for k, v in node.items()}
        elif isinstance(node, list):
            node = [_apply_path(v, rest) for v in node]
    else:  # "desc": the key at any depth
        if isinstance(node, dict):
            node = {
                k: (_apply_path(v, rest) if k == step.key else _apply_path(v, steps))
                for k, v in node.items()
            }
        elif isinstance(node, list):
            node = [_apply_path(v, steps) for v in node]
    return node


def _paths(value: object, rules: Redaction, depth: int = 0) -> Any:
    """The user's JSON paths applied to the document ``value`` and to every
    document held as JSON text in one of its strings (tool arguments and tool
    results travel as JSON text inside chat requests and responses)."""
    for steps in rules._compiled_paths:
        value = _apply_path(value, steps)
    return value if depth >= 2 else _embedded(value, rules, depth)


def _embedded(value: object, rules: Redaction, depth: int) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 1 and text[0] in "{[" and text[-1] in "}]":
            import json

            try:
                doc = json.loads(text)
            except (ValueError, RecursionError):
                return value
            new = _paths(doc, rules, depth + 1)
            if new != doc:
                compact = ", " not in text and ": " not in text
                return json.dumps(
                    new, ensure_ascii=False, separators=(",", ":") if compact else None
                )
        return value
    if isinstance(value, dict):
        return {k: _embedded(v, rules, depth) for k, v in value.items()}
    if isinstance(value, list):
        return [_embedded(v, rules, depth) for v in value]
    return value


def scrub_json(value: object, rules: Redaction | None = None) -> Any:
    """A stored JSON document (a body, tool arguments or result, input, output):
    the user's JSON paths first (also inside strings holding JSON), then
    :func:`scrub_value`."""
    rules = rules or active()
    if rules._compiled_paths:
        value = _paths(value, rules)
    return scrub_value(value, rules)


#: the content of a JSON string literal, escapes included: in valid JSON text every ``"`` outside
#: a string opens one, so scanning from the start finds each literal exactly once (keys and values)
@functools.cache
def _string_literal() -> re.Pattern[bytes]:
    return re.compile(rb'"((?:[^"\\]++|\\.)*+)"')


#: the contents of string literals (raw bytes, escapes as written) known to be left alone by every
#: rule in force: (rules, remembered-credentials version, contents, the last long text whose
#: literals were all found so, or None); started over when either changes or it is full
_fixed: tuple[Any, int, set[bytes], bytes | None] = (None, -1, set(), None)
#: a text this long is compared with the last one (:func:`_literals_beside`) before it is cut up
_LONG = 2048
_FIXED_ENTRIES = 8_192


def _plain_quotes(raw: bytes) -> bool:
    """Whether no quote of the JSON text ``raw`` is escaped: each one opens or closes a literal
    (one byte looked for first: a memchr, then the two-byte search only when it is there)."""
    return b"\\" not in raw or b'\\"' not in raw


def _literals(raw: bytes) -> list[bytes]:
    """The contents of every string literal of the JSON text ``raw``: a split at the quotes when
    no quote is escaped (every other piece is inside a string), else :func:`_string_literal`."""
    if _plain_quotes(raw):
        return raw.split(b'"')[1::2]
    found: list[bytes] = _string_literal().findall(raw)
    return found


#: what makes a literal's text differ from its bytes: an escape; or what JSON text never holds
#: inside a string unescaped, a control character or a quote (``json.loads`` refuses it, so the
#: literal is not left alone)
_ESCAPED = re.compile(rb'[\x00-\x1f"\\]')


def _leaves_alone(content: bytes, rules: Redaction) -> bool:
    """Whether :func:`scrub_value` keeps the string of a literal's ``content`` as it is wherever
    it sits: as text (:func:`scrub_text` changes nothing) and as a dict key (not a secret key's name)."""
    if _ESCAPED.search(content) is None:  # no escape: the literal's text is its UTF-8 bytes
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            return False
    else:
        import json

        try:
            text = json.loads(b'"' + content + b'"')
        except ValueError:
            return False
    # not remembered: the string is this check's own (the parsed body holds an equal one,
    # remembered when the snapshot is scrubbed); a 5,000-call recording held 5,000 such copies
    # (a space outlives the secret key names' folding, which only lowers and drops - and _)
    return (
        isinstance(text, str) and (" " in text or not _secret_key(text)) and left_alone(text, rules)
    )


def scrub_parsed_json(value: object, raw: bytes, rules: Redaction | None = None) -> Any:
    """:func:`scrub_json` of ``value``, the document parsed from the JSON text ``raw`` (a
    request body as the SDK sent it), without walking it when nothing in it can change.

    Every rule of :func:`scrub_value` acts on a string (a value, or a key: as text, or as a
    secret key's name), so when no user JSON path is set and every string literal of ``raw``
    is one the rules in force leave alone, ``scrub_json(value) == value`` and ``value`` itself
    is returned. The literals are cut out of ``raw`` (C speed: a split, or one expression) and
    looked up in a memo of literals already found harmless, so a request repeating the strings
    of the ones before it (the system prompt, the tool schemas, the conversation so far) is not
    walked at all; a long text is first compared with the last long one that passed, and only the
    literals between their shared start and end are cut out (:func:`_literals_beside`). Any other
    document is walked by :func:`scrub_json` (the same result, a new value), as is one whose text
    is not UTF-8 (``json.loads`` also reads UTF-16 and UTF-32).
    """
    global _fixed
    rules = rules or active()
    if rules._compiled_paths or b"\x00" in raw[:4]:  # a path rule, or not UTF-8 text (UTF-16/32)
        return scrub_json(value, rules)
    state = _fixed
    if state[0] is not rules or state[1] != _cred._known.version:
        state = _fixed = (rules, _cred._known.version, set(), None)
    known = state[2]
    # a long text with no escaped quote: compared with the last one first (its literals were all
    # found harmless under these rules and credentials), only the literals it changed cut out
    long = len(raw) >= _LONG and _plain_quotes(raw)
    before = state[3] if long else None
    literals = _literals(raw) if before is None else _literals_beside(before, raw)
    if not known.issuperset(literals):
        new = set(literals)
        new -= known  # (C: the literals not known yet, each once)
        for lit in new:
            if not _leaves_alone(lit, rules):
                return scrub_json(value, rules)
        if len(known) + len(new) > _FIXED_ENTRIES:
            known.clear()
        known.update(new)
    if long:
        _fixed = (*state[:3], raw)
    return value


def _literals_beside(before: bytes, raw: bytes) -> list[bytes]:
    """The contents of the string literals of the JSON text ``raw`` that are not wholly inside
    the longest start or end it shares with ``before``, a JSON text whose literals were all found
    harmless under the rules in force (the others are literals of ``before``: the same bytes).
    Neither text holds an escaped quote, so each of their quotes opens or closes a literal and
    their quotes are even in number: a literal inside the shared start is one of ``before`` (the
    same quotes precede it), and one inside the shared end too (the same quotes follow it).

    An agent's request repeats the one before but for its last messages: the system prompt, the
    tool schemas and the conversation so far are not cut up and looked up again. Each side's
    length is found by a binary search whose every step compares the half of the window left
    (slices: C comparisons, ~the text's length copied in all)."""
    lo, hi = 0, min(len(before), len(raw))  # the shared start: equal up to lo, not beyond hi
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if raw[lo:mid] == before[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    start = lo
    shift = len(before) - len(raw)
    lo, hi = len(raw), max(start, -shift)  # where the shared end starts in raw, after the start
    while lo > hi:
        mid = (lo + hi) >> 1
        if raw[mid:lo] == before[mid + shift : lo + shift]:
            lo = mid
        else:
            hi = mid + 1
    end = lo
    if raw.count(b'"', 0, start) & 1:  # the start ends inside a literal: from its opening quote
        start = raw.rfind(b'"', 0, start)
    if raw.count(b'"', 0, end) & 1:  # the end begins inside a literal: to its closing quote
        end = raw.find(b'"', end) + 1
    return raw[start:end].split(b'"')[1::2]


def scrub_url(url: str, rules: Redaction | None = None) -> str:
    """Mask secret query parameters, ``user:password@`` and token shapes in a URL."""
    parts = urlsplit(url)
    if parts.query:
        pairs = [
            (k, REDACTED if k.lower() in _SECRET_QUERY_KEYS else scrub_text(v, rules))
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        parts = parts._replace(query=urlencode(pairs, safe="<>"))
    if "@" in parts.netloc:  # user:password@host
        parts = parts._replace(netloc=REDACTED + "@" + parts.netloc.rsplit("@", 1)[1])
    if parts.path:
        parts = parts._replace(path=scrub_text(parts.path, rules))
    return urlunsplit(parts)


# -- whole snapshots ------------------------------------------------------------------


def _scrub_exchange(exchange: object, rules: Redaction) -> Any:
    if not isinstance(exchange, dict):
        return scrub_value(exchange, rules)
    out = {}
    for key, part in exchange.items():
        if key in ("request", "response") and isinstance(part, dict):
            new = {}
            for k, v in part.items():
                if k == "body":
                    new[k] = scrub_json(v, rules)
                elif k == "chunks" and isinstance(v, list):
                    new[k] = scrub_chunks(v, rules)
                elif k == "headers" and isinstance(v, dict):
                    new[k] = {
                        hk: mask_header(hk, hv) if isinstance(hv, str) else scrub_value(hv, rules)
                        for hk, hv in v.items()
                    }
                elif k == "query" and isinstance(v, str):
                    new[k] = scrub_url("http://x/?" + v, rules).split("?", 1)[1] if v else v
                else:
                    new[k] = scrub_value(v, rules)
            out[key] = new
        else:
            out[key] = scrub_value(part, rules)
    return out


def scrub_snapshot(data: dict[str, Any], rules: Redaction | None = None) -> dict[str, Any]:
    """A snapshot dict (``Snapshot.to_dict()``) with every rule applied: user JSON
    paths on bodies, tool arguments and results, input and output; text rules
    everywhere but the snapshot's ``name``. Returns a new dict; idempotent.

    A step's raw ``exchange`` captured by this process is a
    :class:`agentsnap.storage.wire.StoredExchange`: its request and response were scrubbed
    when they were captured (every transport stores them through
    :mod:`agentsnap.capture.exchange`), so it is kept as it is; so is one replay served
    from the recording of exactly its request (a ``PreparedExchange``: the golden's own
    stored objects). Any other exchange (a file's, a trace import's) is scrubbed here.
    """
    rules = rules or active()
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "name":  # the test's node id: code, not data; the file is found by it
            out[key] = value
        elif key in ("input", "output"):
            out[key] = scrub_json(value, rules)
        elif key == "trace" and isinstance(value, list):
            out[key] = [_scrub_step(step, rules) for step in value]
        else:
            out[key] = scrub_value(value, rules)
    return out


def scrub_step(step: object, rules: Redaction | None = None) -> Any:
    """One step of a snapshot's trace as :func:`scrub_snapshot` scrubs it (a new dict; its
    ``exchange`` kept when captured or served by this process), for a trace prepared a step at
    a time."""
    return _scrub_step(step, rules or active())


def _scrub_step(step: object, rules: Redaction) -> Any:
    if not isinstance(step, dict):
        return scrub_value(step, rules)
    out = {}
    for key, value in step.items():
        if key == "exchange":
            scrubbed = isinstance(value, StoredExchange)  # at capture, once (or the golden's own)
            out[key] = value if scrubbed else _scrub_exchange(value, rules)
        elif key in ("args", "result") and step.get("type") == "tool_call":
            out[key] = scrub_json(value, rules)
        else:
            out[key] = scrub_value(value, rules)
    return out
