"""Total, explicit conversion of anything a snapshot holds into JSON.

Tool arguments and results reported by adapters, and a run's input and
output, may be any Python object. A snapshot is written after the test has
passed, so writing it must never fail: :func:`to_json` turns every value into
JSON, and says what it did with anything JSON has no word for:

==========================================  =========================================================
Python value                                stored as
==========================================  =========================================================
``None``, ``bool``, ``int``, ``str``        itself (subclasses as the plain type)
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

Side files: bytes longer than :data:`BLOB_THRESHOLD` (1 MiB) are stored once,
content-addressed, as ``<snapshot folder>/blobs/<sha256>``, and the snapshot
holds ``{"$blob": "blobs/<sha256>", "sha256": hex, "size": n}``. The file is
written when the snapshot is saved (:func:`write_blobs`); agentsnap never
reads it back (replay serves response bodies, which stay inline), so a blob
path in a hostile snapshot is never opened.

Text is kept literal (UTF-8, ``ensure_ascii=False``); a lone surrogate, which
UTF-8 cannot encode, is written as a ``\\uXXXX`` escape (:func:`escape_surrogates`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "BLOB_THRESHOLD",
    "MAX_DEPTH",
    "BlobRef",
    "bytes_envelope",
    "to_json",
    "prepare",
    "prepare_parts",
    "write_blobs",
    "escape_surrogates",
]

#: bytes above this size go to a side file (``blobs/<sha256>``)
BLOB_THRESHOLD = 1024 * 1024
#: deeper nesting is cut (``{"$truncated": ...}``)
MAX_DEPTH = 100
BLOB_DIR = "blobs"

_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


class BlobRef(dict):  # type: ignore[type-arg]
    """The ``{"$blob", "sha256", "size"}`` reference to a side file, still holding
    the bytes (``.data``) until the snapshot is saved. Serialises as a plain object."""

    _agentsnap_blob = True

    def __init__(self, data: bytes, sha256: str) -> None:
        super().__init__({"$blob": f"{BLOB_DIR}/{sha256}", "sha256": sha256, "size": len(data)})
        self.data = data

    def __deepcopy__(self, memo: dict[int, Any]) -> "BlobRef":
        return self  # immutable in practice: the bytes are content-addressed

    def __reduce__(self) -> Any:
        return (BlobRef, (self.data, self["sha256"]))


def bytes_envelope(data: bytes) -> dict[str, Any]:
    """``{"$bytes_b64", "sha256"}`` for ``data``, or a :class:`BlobRef` above the threshold."""
    data = bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    if len(data) > BLOB_THRESHOLD:
        return BlobRef(data, digest)
    return {"$bytes_b64": base64.b64encode(data).decode("ascii"), "sha256": digest}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _text(value: str) -> str:
    value = str.__str__(value)
    if _SURROGATE.search(value):
        # join surrogate pairs written as two code points (JSON would join them on load)
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return value


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _text(key)
    if key is None or isinstance(key, (bool, int)) and not _is_enum(key):
        return json.dumps(key)
    if isinstance(key, float):
        return json.dumps(key) if math.isfinite(key) else _canonical(to_json(key))
    return _canonical(to_json(key))


def _is_enum(value: Any) -> bool:
    import enum

    return isinstance(value, enum.Enum)


def _type_name(value: Any) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", "") else f"{module}.{name}"


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def to_json(value: Any, _depth: int = 0, _path: frozenset[int] = frozenset()) -> Any:
    """``value`` as JSON data (module doc's table). Never raises for any input."""
    kind = type(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is str:
        return _text(value)
    if kind is float:
        return _float(value)
    if kind is BlobRef:
        return value
    if _depth >= MAX_DEPTH:
        return {"$truncated": f"nesting deeper than {MAX_DEPTH} levels"}
    if kind is dict or kind is list:  # the common case, without the type checks below
        ident = id(value)
        if ident in _path:
            return {"$cycle": kind.__name__}
        inner = _path | {ident}
        if kind is list:
            return [to_json(v, _depth + 1, inner) for v in value]
        try:
            return {_key(k): to_json(v, _depth + 1, inner) for k, v in value.items()}
        except RuntimeError:  # changed size during iteration (another thread)
            return {_key(k): to_json(v, _depth + 1, inner) for k, v in list(value.items())}
    try:
        return _convert(value, _depth, _path)
    except RecursionError:
        return {"$truncated": "nesting too deep"}
    except Exception as exc:  # noqa: BLE001 - a broken __repr__/__iter__ must not break a save
        return {"$unserializable": _type_name(value), "error": f"{type(exc).__name__}: {exc}"[:200]}


def _convert(value: Any, depth: int, path: frozenset[int]) -> Any:
    import datetime
    import decimal
    import enum
    import fractions
    import uuid
    from collections.abc import Mapping, Sequence, Set
    from pathlib import PurePath

    nxt = depth + 1
    if isinstance(value, enum.Enum):
        return {"$enum": f"{type(value).__qualname__}.{value.name}", "value": to_json(value.value, nxt, path)}
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
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
        return {f.name: to_json(getattr(value, f.name, None), nxt, inner) for f in dataclasses.fields(value)}
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, type):
        return to_json(tolist(), nxt, inner)
    if isinstance(value, Sequence):
        return [to_json(v, nxt, inner) for v in value]
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = f"<{_type_name(value)}>"
    return {"$repr": _text(_ADDRESS.sub("", text)), "$type": _type_name(value)}


def prepare(data: Any) -> Any:
    """A snapshot dict ready to store: :func:`to_json`, then every secret rule
    (:func:`agentsnap.scrub.scrub_snapshot`). Idempotent."""
    from .scrub import scrub_snapshot

    converted = to_json(data)
    if isinstance(converted, dict):
        return scrub_snapshot(converted)
    return converted


def prepare_parts(trace: Any, input: Any, output: Any) -> tuple[Any, Any, Any]:
    """``(trace, input, output)`` of a new snapshot, prepared as :func:`prepare` would store them."""
    done = prepare({"trace": trace, "input": input, "output": output})
    return done["trace"], done["input"], done["output"]


def _blobs(value: Any, found: dict[str, bytes]) -> None:
    if isinstance(value, BlobRef):
        found[value["sha256"]] = value.data
    elif isinstance(value, dict):
        for v in value.values():
            _blobs(v, found)
    elif isinstance(value, list):
        for v in value:
            _blobs(v, found)


def write_blobs(data: Any, root: str | os.PathLike[str]) -> list[Path]:
    """Write the side file of every :class:`BlobRef` inside ``data`` to
    ``root/blobs/<sha256>`` (atomically; an existing file is kept). Returns the paths."""
    found: dict[str, bytes] = {}
    _blobs(data, found)
    written = []
    for digest, blob in sorted(found.items()):
        target = Path(root) / BLOB_DIR / digest
        if not target.is_file() or target.stat().st_size != len(blob):
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{digest[:16]}.", suffix=".tmp", dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(blob)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, target)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        written.append(target)
    return written


def escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as ``\\uXXXX`` (UTF-8 cannot hold one).

    Raw surrogates can only occur inside JSON strings, where the escape means
    the same character, so ``json.loads`` gives back the same value.
    """
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), text)
