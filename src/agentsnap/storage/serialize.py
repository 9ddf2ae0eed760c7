"""Total, explicit conversion of anything a snapshot holds into JSON.

Tool arguments and results reported by adapters, and a run's input and
output, may be any Python object. A snapshot is written after the test has
passed, so writing it must never fail: :func:`to_json` turns every value into
JSON, and says what it did with anything JSON has no word for:

==========================================  =========================================================
Python value                                stored as
==========================================  =========================================================
``None``, ``bool``, ``int``, ``str``        itself (subclasses as the plain type); an int of more
                                            than 4000 digits as ``{"$int_hex": "0x…"}``
finite ``float``                            itself; NaN / ±inf as ``{"$float": "nan" | "inf" | "-inf"}``
``dict`` / any mapping                      an object; keys as text (``1`` → ``"1"``, ``None`` → ``"null"``,
                                            other keys as their canonical JSON text)
``list`` / ``tuple`` / other sequences      an array
``set`` / ``frozenset``                     ``{"$set": [...]}``, members sorted by their canonical JSON
``bytes`` / ``bytearray`` / ``memoryview``  ``{"$bytes_b64": base64, "sha256": hex}``; above
                                            :data:`BLOB_THRESHOLD` bytes a side file, see below
``datetime`` / ``date`` / ``time``          ``{"$datetime" | "$date" | "$time": ISO 8601}``
``timedelta``                               ``{"$timedelta": seconds}``
``Decimal`` / ``Fraction`` / ``complex``    ``{"$decimal": "1.10"}`` / ``{"$fraction": "1/3"}`` / ``{"$complex": [re, im]}``
``UUID`` / ``PurePath``                     ``{"$uuid": "…"}`` / ``{"$path": "a/b"}`` (forward slashes)
``Enum`` member                             ``{"$enum": "Class.NAME", "value": …}``
pydantic model / dataclass / namedtuple     an object of its fields
anything with ``tolist()`` (numpy)          what ``tolist()`` returns
anything else                               ``{"$repr": repr without memory addresses, "$type": "module.Class"}``
a container inside itself                   ``{"$cycle": "list"}``
nesting deeper than :data:`MAX_DEPTH`        ``{"$truncated": "…"}``
==========================================  =========================================================

Bytes are scrubbed first (:func:`agentsnap.storage.scrub.scrub_bytes`: token shapes and
remembered credentials overwritten in place by ``*``), inline and in side files alike.

Side files: bytes longer than :data:`BLOB_THRESHOLD` (1 MiB) are stored once,
content-addressed, as ``<snapshot folder>/blobs/<sha256>``, and the snapshot
holds ``{"$blob": "blobs/<sha256>", "sha256": hex, "size": n}``. The bytes
wait in memory (at most :data:`PENDING_LIMIT` in all) until a snapshot holding
the reference is saved (:func:`write_blobs`). Only a replayed WebSocket message reads a
side file back (:mod:`agentsnap.capture.websocket.frames`: a regular file inside the
snapshot folder, of its recorded size and digest; response bodies stay inline), and only ever
writes ``blobs/<sha256>`` for bytes it holds, so a blob path in a hostile
snapshot is never opened. Side files no snapshot references any more are deleted by
``agentsnap rm`` and ``agentsnap prune`` (:mod:`agentsnap.storage.side_files`).

Text is kept literal (UTF-8, ``ensure_ascii=False``); a lone surrogate, which
UTF-8 cannot encode, is written as a ``\\uXXXX`` escape (:func:`escape_surrogates`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

import msgspec

from . import scrub as _scrub
from .atomic import atomic_write, default_file_mode, fsync_dir
from .wire import SURROGATE, PreparedExchange, StoredExchange, envelope, escape_surrogates

__all__ = [
    "BLOB_THRESHOLD",
    "MAX_DEPTH",
    "blob_reference",
    "bytes_envelope",
    "compact_bytes",
    "compact_pieces",
    "default_file_mode",
    "escape_surrogates",
    "fsync_dir",
    "prepare",
    "prepare_parts",
    "prepare_plain",
    "to_json",
    "write_blobs",
]

#: bytes above this size go to a side file (``blobs/<sha256>``)
BLOB_THRESHOLD = 1024 * 1024
#: deeper nesting is cut (``{"$truncated": ...}``)
MAX_DEPTH = 100
BLOB_DIR = "blobs"


@functools.cache
def _address() -> re.Pattern[str]:
    return re.compile(r" at 0x[0-9A-Fa-f]+")


_SURROGATE = SURROGATE


#: bytes of side files not written yet: sha256 -> bytes (oldest first; see _remember_blob)
_pending: dict[str, bytes] = {}
_pending_lock = threading.Lock()
#: the most bytes kept in memory for side files not yet written (older ones are dropped first)
PENDING_LIMIT = 512 * 1024 * 1024


def _remember_blob(digest: str, data: bytes) -> None:
    with _pending_lock:
        _pending.pop(digest, None)
        _pending[digest] = data
        total = sum(len(v) for v in _pending.values())
        while total > PENDING_LIMIT and len(_pending) > 1:
            oldest = next(iter(_pending))
            total -= len(_pending.pop(oldest))


def bytes_envelope(data: bytes) -> dict[str, Any]:
    """``{"$bytes_b64", "sha256"}`` for ``data``; above :data:`BLOB_THRESHOLD` the
    side-file reference ``{"$blob", "sha256", "size"}`` (the bytes are kept in
    memory until a snapshot holding the reference is saved)."""
    from .scrub import scrub_bytes

    data = scrub_bytes(bytes(data))  # token shapes and remembered credentials, overwritten in place
    if len(data) > BLOB_THRESHOLD:
        return blob_reference(data)
    return envelope(data)


def blob_reference(data: bytes) -> dict[str, Any]:
    """The side-file reference ``{"$blob": "blobs/<sha256>", "sha256", "size"}`` of ``data``
    (scrubbed already); the bytes wait in memory until a snapshot holding it is saved."""
    digest = hashlib.sha256(data).hexdigest()
    _remember_blob(digest, data)
    return {"$blob": f"{BLOB_DIR}/{digest}", "sha256": digest, "size": len(data)}


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _text(value: str) -> str:
    value = str.__str__(value)
    if value.isascii():  # no surrogate in it (a constant-time check)
        return value
    if _SURROGATE.search(value):
        # join surrogate pairs written as two code points (JSON would join them on load)
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return value


def _key(key: object) -> str:
    if isinstance(key, str):
        return _text(key)
    if key is None or (isinstance(key, (bool, int)) and not _is_enum(key)):
        return json.dumps(key)
    if isinstance(key, float):
        return json.dumps(key) if math.isfinite(key) else _canonical(to_json(key))
    return _canonical(to_json(key))


def _is_enum(value: object) -> bool:
    import enum

    return isinstance(value, enum.Enum)


def _type_name(value: object) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", "") else f"{module}.{name}"


# Python refuses to turn ints of more than 4300 digits into text (sys.int_info.default_max_str_digits)
_MAX_INT_BITS = 14_000
_SMALL = 1 << 62  # ints within it are far below _MAX_INT_BITS


def _big_int(value: int) -> dict[str, str]:
    return {"$int_hex": hex(value)}


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def to_json(value: Any, _depth: int = 0, _path: frozenset[int] = frozenset()) -> Any:
    """``value`` as JSON data (module doc's table). Never raises for any input."""
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        return value if value.bit_length() <= _MAX_INT_BITS else _big_int(value)
    if kind is str:
        return _text(value)
    if kind is float:
        return _float(value)
    if _depth >= MAX_DEPTH:
        return {"$truncated": f"nesting deeper than {MAX_DEPTH} levels"}
    if kind is dict or kind is list:  # the common case, without the type checks below
        ident = id(value)
        if ident in _path:
            return {"$cycle": kind.__name__}
        inner = _path | {ident}
        nxt = _depth + 1
        # ASCII strings, small ints, finite floats (``v - v`` is 0.0 for those alone), None and
        # booleans are their own JSON: kept without a call (most leaves)
        if kind is list:
            return [
                v
                if (type(v) is str and v.isascii())
                or (type(v) is int and -_SMALL < v < _SMALL)
                or (type(v) is float and v - v == 0.0)
                or v is None
                or type(v) is bool
                else to_json(v, nxt, inner)
                for v in value
            ]
        try:
            items = list(value.items())
        except RuntimeError:  # changed size during iteration (another thread)
            items = list(value.items())
        return {
            (k if type(k) is str and k.isascii() else _key(k)): (
                v
                if (type(v) is str and v.isascii())
                or (type(v) is int and -_SMALL < v < _SMALL)
                or (type(v) is float and v - v == 0.0)
                or v is None
                or type(v) is bool
                else to_json(v, nxt, inner)
            )
            for k, v in items
        }
    if kind is _BuiltCall:  # a step the trace built (see prepare_parts): as a plain dict step is
        # (outside the try below: too deep a stack fails loudly, as it does for a plain dict)
        inside = _path | {id(value)}
        return {
            _key(k): v
            if (type(v) is dict or type(v) is list) and _kept_whole(v, _depth + 1)
            else to_json(v, _depth + 1, inside)
            for k, v in value.items()
        }
    try:
        return _convert(value, _depth, _path)
    except RecursionError:
        return {"$truncated": "nesting too deep"}
    except Exception as exc:
        return {"$unserializable": _type_name(value), "error": f"{type(exc).__name__}: {exc}"[:200]}


def _convert(value: object, depth: int, path: frozenset[int]) -> Any:
    import datetime
    import decimal
    import enum
    import fractions
    import uuid
    from collections.abc import Mapping, Sequence, Set
    from pathlib import PurePath

    nxt = depth + 1
    if type(value) is PreparedExchange:  # the golden's own stored form: kept as it is (see prepare)
        return value
    if type(value) is StoredExchange:  # scrubbed at capture: the mark is kept (see prepare)
        if _kept_whole(value, depth):
            return value  # parsed from the wire by this process: already what to_json makes
        return StoredExchange({_key(k): to_json(v, nxt, path) for k, v in value.items()})
    if isinstance(value, enum.Enum):
        return {
            "$enum": f"{type(value).__qualname__}.{value.name}",
            "value": to_json(value.value, nxt, path),
        }
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        number = int.__int__(value)
        return number if number.bit_length() <= _MAX_INT_BITS else _big_int(number)
    if isinstance(value, float):
        return _float(float.__float__(value))
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes_envelope(bytes(value))
    if isinstance(value, datetime.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"$date": value.isoformat()}
    if isinstance(value, datetime.time):
        return {"$time": value.isoformat()}
    if isinstance(value, datetime.timedelta):
        return {"$timedelta": value.total_seconds()}
    if isinstance(value, decimal.Decimal):
        return {"$decimal": str(value)}
    if isinstance(value, fractions.Fraction):
        return {"$fraction": str(value)}
    if isinstance(value, complex):
        return {"$complex": [_float(value.real), _float(value.imag)]}
    if isinstance(value, uuid.UUID):
        return {"$uuid": str(value)}
    if isinstance(value, PurePath):
        return {"$path": value.as_posix()}
    ident = id(value)
    if ident in path:
        return {"$cycle": _type_name(value)}
    inner = path | {ident}
    if isinstance(value, Mapping):
        return {_key(k): to_json(v, nxt, inner) for k, v in list(value.items())}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):  # namedtuple
        return {_key(k): to_json(v, nxt, inner) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v, nxt, inner) for v in value]
    if isinstance(value, Set):
        items = [to_json(v, nxt, inner) for v in value]
        return {"$set": sorted(items, key=_canonical)}
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            return to_json(dump(mode="json"), nxt, inner)
        except TypeError:
            return to_json(dump(), nxt, inner)
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_json(getattr(value, f.name, None), nxt, inner)
            for f in dataclasses.fields(value)
        }
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, type):
        return to_json(tolist(), nxt, inner)
    if isinstance(value, Sequence):
        return [to_json(v, nxt, inner) for v in value]
    try:
        text = repr(value)
    except Exception:
        text = f"<{_type_name(value)}>"
    return {"$repr": _text(_address().sub("", text)), "$type": _type_name(value)}


def _kept_whole(value: dict[Any, Any] | list[Any], depth: int) -> bool:
    """:func:`_plain_json`, False when it cannot tell: a container another thread changed while
    it was read, or a stack too deep to walk it (then the value is converted as any other is,
    with the retry and the limits of :func:`to_json`)."""
    try:
        return _plain_json(value, depth)
    except (RuntimeError, RecursionError):  # (RecursionError is a RuntimeError)
        return False


def _plain_json(value: dict[Any, Any] | list[Any], depth: int) -> bool:
    """Whether :func:`to_json` would return ``value`` unchanged: only dicts with string keys,
    lists, strings, booleans, ``None``, ints that are not too big and finite floats, no deeper
    than :data:`MAX_DEPTH` (a container inside itself never is). Allocates nothing: a captured
    exchange (a 5,000-call recording's are ~40 MB parsed) is kept, not copied."""
    if depth >= MAX_DEPTH:
        return False
    nxt = depth + 1
    items: Iterable[Any] = value
    if isinstance(value, dict):
        for k in value:
            if type(k) is not str or not (k.isascii() or _text(k) == k):
                return False
        items = value.values()
    for v in items:
        kind = type(v)
        if kind is str:
            if not v.isascii() and _text(v) != v:
                return False
        elif kind is int:
            if v.bit_length() > _MAX_INT_BITS:
                return False
        elif kind is dict or kind is list:
            if not _plain_json(v, nxt):
                return False
        elif kind is float:
            if not math.isfinite(v):
                return False
        elif v is not None and kind is not bool:
            return False
    return True


def prepare(data: object) -> Any:
    """A snapshot dict ready to store: :func:`to_json`, then every secret rule
    (:func:`agentsnap.storage.scrub.scrub_snapshot`). Idempotent.

    A step's ``exchange`` captured by this process (a :class:`agentsnap.storage.wire.StoredExchange`,
    scrubbed once at capture) keeps its type through :func:`to_json` and is not scrubbed
    again (holding only plain JSON, as parsed from the wire, it is kept itself, not copied);
    one read from a file is (the mark travels with the exchange). One replay served
    from the recording of exactly its request (a :class:`agentsnap.storage.wire.PreparedExchange`)
    holds the golden's own objects, already as stored: neither converted nor scrubbed.
    """
    converted = to_json(data)
    if isinstance(converted, dict):
        return _scrub.scrub_snapshot(converted)
    return converted


def prepare_plain(data: dict[str, Any]) -> dict[str, Any]:
    """:func:`prepare` of a snapshot dict without its ``trace`` (a prepared snapshot's own fields:
    name, times, model, comparison), found without the walk when nothing in it changes: with no
    user JSON path, plain JSON (:func:`_plain_json`: :func:`to_json` keeps it) whose every string
    literal but the ``name`` field's, key or value, the rules leave alone
    (:func:`agentsnap.storage.scrub.scrub_parsed_json` returns it itself) is what ``prepare`` makes
    of it: a copy of the dict. Its top-level fields are scrubbed as values (``scrub_snapshot``'s
    rule for every field but ``trace``; ``input`` and ``output`` take the JSON paths too, and
    there are none), ``name`` not at all (the test's node id, a new text every test)."""
    global _plain_last
    rules = _scrub.active()
    if "trace" not in data and not rules._compiled_paths and _kept_whole(data, 0):
        looked_at = {k: v for k, v in data.items() if k != "name"}  # (a new text every test)
        try:
            raw = msgspec.json.encode(looked_at)
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
            raw = None  # (a lone surrogate)
        if raw is not None:
            version = _scrub.credentials._known.version
            last = _plain_last
            # the same text as the last one found so, under the same rules and credentials: the
            # same literals, left alone (the answer is theirs alone); a test's record repeats the
            # last one's but within a second of it (the times) and a new run shape (comparison)
            if last[2] == raw and last[0] is rules and last[1] == version:
                return dict(data)
            if _scrub.scrub_parsed_json(looked_at, raw, rules) is looked_at:
                _plain_last = (rules, version, raw)
                return dict(data)
    prepared: dict[str, Any] = prepare(data)
    return prepared


#: :func:`prepare_plain`'s last text found left alone: ``(the rules, the remembered credentials'
#: version, the JSON text of the fields but ``name``)``
_plain_last: tuple[Any, int, bytes] = (None, -1, b"")


class _BuiltCall(dict[str, Any]):
    """An ``llm_call`` step as :meth:`agentsnap.capture.trace.Trace.steps` built it: its views were
    made by a codec from the captured (or served) exchange, so a view holding plain JSON is
    agentsnap's own and goes through :func:`to_json` as itself (no user holds it)."""

    __slots__ = ()


def prepare_parts(
    trace: object, input: object, output: object, *, traced: bool = False
) -> tuple[Any, Any, Any]:
    """``(trace, input, output)`` of a new snapshot, prepared as :func:`prepare` would store them.

    ``traced``: ``trace`` is a list straight from ``Trace.steps()``, which nothing else holds;
    its ``llm_call`` steps' views are kept, not copied, where they hold plain JSON (a 5,000-call
    run's are ~5 MB), and it is prepared in place, a step at a time: each step's converted and
    scrubbed dict replaces it at once (the list whole, once converted and once scrubbed beside
    the steps, held three more dicts a step, ~7 MB at 5,000 calls)."""
    if traced and isinstance(trace, list):
        from .scrub import active, scrub_step

        rules = active()
        inside = frozenset((id(trace),))  # as to_json reaches a step: two levels down
        for i, step in enumerate(trace):
            built = (
                _BuiltCall(step) if type(step) is dict and step.get("type") == "llm_call" else step
            )
            trace[i] = scrub_step(to_json(built, 2, inside), rules)
        done = prepare({"input": input, "output": output})
        return trace, done["input"], done["output"]
    done = prepare({"trace": trace, "input": input, "output": output})
    return done["trace"], done["input"], done["output"]


#: a MessagePack float64 (``0xcb``, big-endian) whose exponent is all ones: NaN or ±Infinity
@functools.cache
def _non_finite() -> re.Pattern[bytes]:
    return re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")


#: ``0xcb`` bytes looked at one by one (``bytes.find``: memchr) before :func:`_non_finite` takes over
_FEW_MARKERS = 32


def finite_msgpack(packed: bytes) -> bool:
    """Whether :func:`_non_finite` finds nothing in ``packed`` (MessagePack bytes): the same
    answer, found by jumping from one ``0xcb`` byte to the next (floats are few in a snapshot,
    and the byte is rare elsewhere) rather than by the pattern's byte-by-byte scan; past
    :data:`_FEW_MARKERS` of them, the pattern from there."""
    at = packed.find(0xCB)
    for _ in range(_FEW_MARKERS):
        if at < 0:
            return True
        after = packed[at + 1 : at + 3]
        if len(after) == 2 and after[0] in (0x7F, 0xFF) and after[1] >= 0xF0:
            return False
        at = packed.find(0xCB, at + 1)
    return at < 0 or _non_finite().search(packed, at) is None


def compact_bytes(data: object, *, finite_trace: bool = False) -> bytes | bytearray:
    """``data`` (a prepared snapshot dict) as compact JSON, UTF-8, keys sorted, lone surrogates
    escaped, a newline at the end: the bytes of what ``json.dumps(data, ensure_ascii=False,
    sort_keys=True, separators=(",", ":"))`` and :func:`~agentsnap.storage.wire.escape_surrogates`
    write, read back by ``json.loads`` as the same value.

    By ``msgspec`` (several times faster; the same bytes but for how a float is spelled,
    ``1e16`` for ``1e+16``, ``0.00001`` for ``1e-05``: the same value), except where it would
    write something else: a lone surrogate (msgspec refuses it) and NaN or Infinity (msgspec
    writes ``null``; found in its MessagePack form, where every float is a float64, so a byte
    pattern cannot miss one) take ``json.dumps``. A key that is not a string (never in a
    prepared dict: :func:`to_json`) also takes ``json.dumps`` (msgspec refuses to sort one);
    string keys both sort alike. Bytes, not text: a 5,000-call run's record is ~12 MB of
    JSON, and a ``str`` of it (decoded, then encoded again to be written) held two more
    copies at the test's memory peak; the MessagePack form is dropped before the JSON is made.

    ``finite_trace``: ``data["trace"]`` is known to hold only what msgspec writes as ``json``
    does (plain JSON values, finite floats, no lone surrogate, no integer past 64 bits: a
    golden's steps whose digest held, :func:`agentsnap.storage.snapshot.trace_proof`), so only
    the rest of ``data`` is looked at first; and every object in it holds its keys in sorted
    order (the digest of its sorted-key MessagePack held on the keys as held), so the trace is
    encoded without the sort and the rest sorted around it: the same bytes.
    """
    out = _compact(data, finite_trace=finite_trace)
    out += b"\n"  # grown in place (no second copy of the document)
    return out


@functools.cache
def _sorted_encoder() -> msgspec.json.Encoder:
    """msgspec's JSON encoder that sorts keys, made once (an encoder holds no state of a call)."""
    return msgspec.json.Encoder(order="sorted")


def _compact(data: object, *, finite_trace: bool = False) -> bytearray:
    """:func:`compact_bytes` of ``data`` without the newline."""
    rest: dict[Any, Any] | None = None
    if finite_trace and isinstance(data, dict) and "trace" in data:
        rest = {k: v for k, v in data.items() if k != "trace"}
    looked_at = data if rest is None else rest
    try:
        finite = finite_msgpack(msgspec.msgpack.encode(looked_at))
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        # a lone surrogate (UnicodeEncodeError), an int past 64 bits, an unknown type
        finite = False
    if finite:
        try:
            out = bytearray()
            if rest is None:
                _sorted_encoder().encode_into(data, out)
            else:  # the trace's keys are held sorted: encoded as held, the rest sorted around it
                rest["trace"] = msgspec.Raw(msgspec.json.encode(data["trace"]))  # type: ignore[index]
                _sorted_encoder().encode_into(rest, out)
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
            pass  # a key msgspec cannot sort
        else:
            return out
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return bytearray(escape_surrogates(text).encode("utf-8"))


def compact_pieces(data: dict[str, Any]) -> Iterator[bytes | bytearray]:
    """:func:`compact_bytes` of ``data`` (a prepared snapshot dict) in pieces: its ``trace`` a
    step at a time, so a large run's record is written without the whole document in memory
    (a 5,000-call run's is ~12 MB). ``b"".join`` of the pieces reads back as ``compact_bytes(data)``
    does, and is its bytes but where a piece and the whole take different encoders (NaN or a
    lone surrogate in one step sends only that step through ``json.dumps``: ``1e+16`` there)."""
    trace = data.get("trace")
    stepwise = isinstance(trace, list) or getattr(trace, "is_steps", False)  # (storage.lazy_steps)
    if not stepwise or not all(type(key) is str for key in data):
        yield compact_bytes(data)  # (never for a prepared snapshot: one piece is the same bytes)
        return
    for n, key in enumerate(sorted(data)):  # msgspec and json.dumps sort string keys alike
        head = bytearray(b"{" if n == 0 else b",")
        head += _compact(key)
        head += b":"
        if key != "trace":
            head += _compact(data[key])
            yield head
            continue
        head += b"["
        yield head
        for i, step in enumerate(cast("Iterable[Any]", trace)):  # a list, or storage.lazy_steps'
            piece = _compact(step)
            yield piece if i == 0 else b"," + piece
        yield b"]"
    yield b"}\n" if data else b"{}\n"


def _blob_refs(value: object, found: set[str]) -> None:
    if isinstance(value, dict):
        ref = value.get("$blob")
        digest = value.get("sha256")
        if isinstance(ref, str) and isinstance(digest, str) and ref == f"{BLOB_DIR}/{digest}":
            found.add(digest)
        for v in value.values():
            _blob_refs(v, found)
    elif isinstance(value, list):
        for v in value:
            _blob_refs(v, found)


def write_blobs(data: object, root: str | os.PathLike[str]) -> list[Path]:
    """Write the side file of every ``{"$blob"}`` reference inside ``data`` whose
    bytes this process holds to ``root/blobs/<sha256>`` (atomically; an existing
    file is kept). Returns the paths written or already there ([] when this
    process holds no blob bytes at all)."""
    with _pending_lock:
        holding = bool(_pending)
    if not holding:
        return []  # no bytes held: nothing to write (the walk below would only find files already there)
    found: set[str] = set()
    _blob_refs(data, found)
    written = []
    from .atomic import refuse_links

    for digest in sorted(found):
        target = Path(root) / BLOB_DIR / digest
        refuse_links(target, Path(root))  # a linked blobs/ (or blob) is never written through
        with _pending_lock:
            blob = _pending.get(digest)
        if target.is_file() and (blob is None or target.stat().st_size == len(blob)):
            written.append(target)
            continue
        if blob is None:
            continue  # a reference loaded from a file: its side file is not ours to write
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, blob, prefix=f".{digest[:16]}.")
        written.append(target)
    return written
