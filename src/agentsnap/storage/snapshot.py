"""The snapshot: :class:`Snapshot` (one recorded run plus its review state) and its deterministic JSON.

File format (one JSON file per snapshot): UTF-8 with non-ASCII kept literal,
``indent=2``, sorted keys, ``\\n`` newlines and a trailing newline (:func:`dumps`),
written atomically by :class:`agentsnap.storage.store.SnapshotStore` and not rewritten
when only volatile fields changed (:mod:`agentsnap.storage.volatile`) — so re-recording
an unchanged agent leaves ``git diff`` empty.

Top-level keys: ``version`` (format version, ``"2.0"``), ``recorded_at``,
``model``, ``input``, ``trace`` (list of steps, see :mod:`agentsnap.capture.trace`),
``output``; review fields ``name`` (the full snapshot name, checked on load),
``approved``, ``source`` (``pytest`` | ``record`` | ``trace``), ``created_at``,
``updated_at``, ``agentsnap_version``; and ``trace_digest`` when agentsnap derived the trace
from its exchanges alone (:func:`trace_digest`). Files written by agentsnap 0.5.1
(``version`` ``"1.0"``/``"1.1"``) load too.
"""

from __future__ import annotations

import copy
import gc
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import msgspec

from .. import _version as _version_module
from . import serialize as _serialize
from .scrub import rules as _scrub_rules
from .wire import escape_surrogates

__all__ = [
    "FORMAT_VERSION",
    "LAST_RUN_DIR",
    "UNKNOWN_WRITER",
    "Snapshot",
    "dump_pieces",
    "dumps",
    "trace_digest",
]

FORMAT_VERSION = "2.0"
_READABLE_VERSIONS = ("1.0", "1.1", "2.0")
LAST_RUN_DIR = ".last_run"
#: ``Snapshot.agentsnap_version`` of a file that does not say which agentsnap wrote it
UNKNOWN_WRITER = "unknown (the file does not record it; agentsnap 0.5.1 wrote none)"


#: the second :func:`_now` last wrote and its text: ``((days, seconds) since the epoch, text)``
_LAST_NOW: tuple[tuple[int, int], str] = ((0, -1), "")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _now() -> str:
    """The time now, UTC, to the second, as ISO-8601 text (``2026-12-07T15:55:04+00:00``).

    A second's text is made once (``isoformat`` of an aware datetime costs ~2 us warm, ~20 us at a
    replayed test's end, when the run's snapshot is made): the text is a function of the
    second alone, so a reading in the second read last is answered with that second's text."""
    global _LAST_NOW
    now = datetime.now(timezone.utc)
    since = now - _EPOCH  # (whole days and seconds, exact: the microseconds apart; no replace())
    second = (since.days, since.seconds)
    held = _LAST_NOW
    if held[0] == second:
        return held[1]
    text = now.replace(microsecond=0).isoformat()
    _LAST_NOW = (second, text)
    return text


def _version() -> str:
    return _version_module.__version__


@dataclass
class Snapshot:
    """One recorded agent run plus its review state.

    ``trace``: list of step dicts (``llm_call``, ``tool_call``, ``http``).
    ``output``: the agent's final output (any JSON value). Timestamps are
    ISO-8601 UTC strings, filled on creation when empty.

    The steps of a run agentsnap recorded share the parts their bodies repeat (a request's
    system prompt and earlier messages are one object in every step that sends them: the
    memory of a long run, :class:`agentsnap.storage.wire.Repeats`). Read them freely; to edit a
    step in place, ``copy.deepcopy`` the trace first, or an edit of one step shows in the others.
    """

    name: str
    trace: list[dict[str, Any]] = field(default_factory=list)
    output: Any = None
    input: Any = None
    model: str = "unknown"
    approved: bool = False
    source: str = "pytest"
    created_at: str = ""
    updated_at: str = ""
    recorded_at: str = ""
    version: str = FORMAT_VERSION
    agentsnap_version: str = ""
    #: on ``.last_run`` files only: how the run was compared (semantic backend
    #: and model hash, scores); never part of a golden's content
    comparison: dict[str, Any] | None = None
    #: ``trace``, ``input`` and ``output`` are already as :func:`agentsnap.storage.serialize.prepare`
    #: stores them (:func:`agentsnap.lifecycle.build_snapshot` sets it): saving skips that pass
    prepared: bool = field(default=False, repr=False, compare=False)
    #: :func:`trace_digest` of ``trace`` as the file holds it (None: none was stored)
    trace_digest: str | None = None
    #: ``trace`` is what ``Trace.steps()`` made of this process's exchanges alone (no tool call an
    #: adapter reported, no MCP session or WebSocket connection): saving stores its :func:`trace_digest`
    derived: bool = field(default=False, repr=False, compare=False)
    #: ``trace`` is a golden's steps whose digest held and whose floats are all finite
    #: (:func:`trace_proof`): its scratch copy's JSON needs no look for what msgspec cannot write,
    #: and no key sort (the digest held on the keys in the order the steps hold them)
    finite_trace: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # the clock read only when a timestamp is empty (a loaded golden has all three: ~23k
        # instructions saved a load)
        if not (self.created_at and self.updated_at and self.recorded_at):
            now = _now()
            self.created_at = self.created_at or now
            self.updated_at = self.updated_at or now
            self.recorded_at = self.recorded_at or now
        self.agentsnap_version = self.agentsnap_version or _version()

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict written to disk."""
        return self.to_dict_with(self.trace)

    def to_dict_with(self, trace: Any) -> dict[str, Any]:
        """:meth:`to_dict` with ``trace`` in place of :attr:`trace` (which is not read)."""
        return {
            "version": self.version,
            "name": self.name,
            "approved": self.approved,
            "source": self.source,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "recorded_at": self.recorded_at,
            "agentsnap_version": self.agentsnap_version,
            "model": self.model,
            "input": self.input,
            "trace": trace,
            "output": self.output,
            **({"comparison": self.comparison} if self.comparison is not None else {}),
            **({"trace_digest": self.trace_digest} if self.trace_digest is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, name: str | None = None) -> Snapshot:
        """Build from a loaded dict. ``name`` is used when the file has none (0.5.1 files)."""
        return cls(
            name=str(data.get("name") or name or ""),
            trace=_both_copies_of_messages(list(data.get("trace") or [])),
            output=data.get("output"),
            input=data.get("input"),
            model=str(data.get("model") or "unknown"),
            approved=bool(data.get("approved", "name" not in data)),
            source=str(data.get("source") or "pytest"),
            created_at=str(data.get("created_at") or data.get("recorded_at") or ""),
            updated_at=str(data.get("updated_at") or data.get("recorded_at") or ""),
            recorded_at=str(data.get("recorded_at") or ""),
            version=str(data.get("version") or FORMAT_VERSION),
            # the writer's version; a file that does not name one (agentsnap 0.5.1's) is not
            # credited to this reader
            agentsnap_version=str(data.get("agentsnap_version") or UNKNOWN_WRITER),
            comparison=data.get("comparison") if isinstance(data.get("comparison"), dict) else None,
            trace_digest=data["trace_digest"]
            if isinstance(data.get("trace_digest"), str)
            else None,
        )

    @property
    def llm_calls(self) -> list[dict[str, Any]]:
        return [s for s in self.trace if s.get("type") == "llm_call"]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return [s for s in self.trace if s.get("type") == "tool_call"]


_sorted_msgpack = msgspec.msgpack.Encoder(order="sorted").encode
#: keys in the order the dict holds them: a trace parsed from a file agentsnap wrote holds every
#: object's keys sorted (``dumps``), so this is :data:`_sorted_msgpack`'s bytes without the sort
_msgpack_as_held = msgspec.msgpack.Encoder().encode


def trace_digest(trace: object) -> str | None:
    """The ``trace_digest`` of a trace: the 256-bit BLAKE2b (half sha256's instructions where the
    CPU's SHA extensions are not used) of its sorted-key MessagePack bytes (which tell ``1`` from
    ``1.0`` from ``True``), bound to this agentsnap's version and the user's ``redact``
    rules in force (:func:`agentsnap.storage.scrub.rules.active`), hashed step by step. None
    for a trace that is not a list or that MessagePack cannot hold (an integer past 64 bits,
    a lone surrogate): such a trace gets no digest.

    Stored by :meth:`~agentsnap.storage.store.SnapshotStore.save` when agentsnap derived the
    trace from its exchanges alone (:attr:`Snapshot.derived`). When a golden's digest is still
    :func:`trace_digest` of its trace, its steps are the ones this agentsnap, under these rules,
    makes of its exchanges: a replay that served each exchange to its own request is then
    answered from the golden's steps (:mod:`agentsnap._pytest.golden_run`). A golden edited by
    hand, written by another version or under other rules has a digest that no longer matches,
    and is compared in full."""
    return _digest(trace, _sorted_msgpack)[0]


def trace_proof(trace: object, digest: str) -> tuple[bool, bool]:
    """``(holds, finite)``: whether ``digest`` (a golden's stored ``trace_digest``) is
    :func:`trace_digest` of ``trace`` (the golden's trace as parsed from its file), proven without
    sorting, and whether the trace's floats are all finite (read from the same MessagePack bytes,
    :func:`agentsnap.storage.serialize.finite_msgpack`).

    The steps are encoded with their keys in the order the file holds them, which for a file
    agentsnap wrote (keys sorted) are the very bytes :func:`trace_digest` hashes: equal hashes
    mean equal values, types included. A file whose keys a tool reordered hashes differently and
    does not hold (the full path), as does one edited by hand, of another version or other
    rules. A trace that holds and is finite is written by msgspec as ``json`` writes it
    (:func:`agentsnap.storage.serialize.compact_bytes`'s ``finite_trace``)."""
    found, finite = _digest(trace, _msgpack_as_held, finite=True)
    return found == digest, finite


def _digest(
    trace: object, encode: Callable[[Any], bytes], *, finite: bool = False
) -> tuple[str | None, bool]:
    """The digest of ``trace`` with its steps encoded by ``encode``; and, asked for
    (``finite``), whether every step's bytes hold only finite floats (else False)."""
    if not isinstance(trace, list) and not getattr(trace, "is_steps", False):
        return None, False
    steps: Any = trace  # a list, or steps read one at a time (agentsnap.storage.lazy_steps)
    rules = _scrub_rules.active()
    digest = hashlib.blake2b(digest_size=32)
    all_finite = finite
    try:
        # a step at a time (MessagePack values delimit themselves; the count comes first): a
        # 5,000-call trace's ~15 MB of MessagePack is never held at once
        digest.update(
            _sorted_msgpack([_version(), list(rules.paths), list(rules.patterns), len(steps)])
        )
        for step in steps:
            packed = encode(step)
            digest.update(packed)
            if all_finite:
                all_finite = _serialize.finite_msgpack(packed)
    except (OverflowError, UnicodeEncodeError, TypeError, ValueError):
        return None, False
    return digest.hexdigest(), all_finite


def stamp_digest(snapshot: Snapshot, data: dict[str, Any]) -> None:
    """Give ``data`` (``snapshot``'s prepared dict, about to be written as its golden) the
    ``trace_digest`` it may carry, and ``snapshot`` the same: a fresh one when agentsnap derived
    the trace (:attr:`Snapshot.derived`), the one it was loaded with while that still matches the
    trace, else none (a trace changed in memory, a digest of another version or other rules)."""
    digest = snapshot.trace_digest
    if snapshot.derived or digest is not None:
        fresh = trace_digest(data["trace"])
        digest = fresh if snapshot.derived or fresh == digest else None
    snapshot.trace_digest = digest
    data.pop("trace_digest", None)
    if digest is not None:
        data["trace_digest"] = digest


#: files nest at most ~110 levels (agentsnap.storage.serialize.MAX_DEPTH plus the snapshot's own);

_MAX_NESTING = 160


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether ``data`` (parsed JSON) nests containers more than ``limit`` deep.

    Counted level by level in C: ``gc.get_referents`` of one level's objects is the next level
    (the values of its dicts and the items of its lists: a container's traversal must visit
    every container it holds, or the cycle collector could not see through it; strings and
    numbers have no traversal, so they drop out one level later). After ``n`` non-empty levels
    the deepest container is at most ``n + 1`` deep (``n + 1`` when it is empty), so only a
    document that comes within one level of ``limit`` is looked at again exactly
    (:func:`_levels_deeper_than`). About 5 ms for a 5,000-call golden's 145,000 containers,
    where the exact walk takes 20.
    """
    if limit < 1:
        return _levels_deeper_than(data, limit)
    level = [data]
    depth = 0
    while level:
        level = gc.get_referents(*level)
        if level:
            depth += 1
            if depth >= limit:
                return _levels_deeper_than(data, limit)
    return False


def _levels_deeper_than(data: Any, limit: int) -> bool:
    """:func:`_deeper_than`, exactly: each level's containers are gathered by one comprehension
    over the level above (no recursion), so every value is looked at once."""
    level = [data] if type(data) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [
            v
            for node in level
            for v in (node.values() if type(node) is dict else node)
            if type(v) in _CONTAINERS
        ]
    return False


#: what JSON parsing builds for objects and arrays (exact types: nothing else is loaded)
_CONTAINERS = frozenset({dict, list})


def _json_copy(value: Any) -> Any:
    """``copy.deepcopy(value)`` for parsed JSON, faster (no memo: parsed JSON shares no parts);
    anything but dicts, lists and JSON scalars goes to ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {k: _json_copy(v) for k, v in value.items()}
    if kind is list:
        return [_json_copy(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def dumps(data: dict[str, Any]) -> str:
    """Deterministic JSON text of a snapshot dict (see module doc); a lone
    surrogate (not encodable as UTF-8) is written as a ``\\uXXXX`` escape."""
    return escape_surrogates(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True)) + "\n"


def dump_pieces(data: dict[str, Any]) -> Iterator[str]:
    """:func:`dumps` of ``data`` in pieces, as the encoder makes them: ``"".join`` of them is
    ``dumps(data)``, so a file can be written step by step without the whole text (millions of
    short strings for a large golden) in memory. A string is one piece, so escaping lone
    surrogates piece by piece is escaping the whole text."""
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, sort_keys=True)
    for piece in encoder.iterencode(data):
        yield escape_surrogates(piece)
    yield "\n"


def _both_copies_of_messages(trace: list[Any]) -> list[Any]:
    """The in-memory view of a stored trace: ``messages_from`` resolved back to ``messages`` (a copy).

    Files written between agentsnap 1.0.0.dev releases kept an llm_call's ``messages`` once,
    as ``"messages_from": "exchange.request.body.<key>"``; they still load. Files are written
    with ``messages`` on every llm_call step, as agentsnap 0.5.1 documents the format."""
    for step in trace:
        if not isinstance(step, dict) or not isinstance(step.get("messages_from"), str):
            continue
        ref = step.pop("messages_from")
        key = ref.rsplit(".", 1)[-1]
        body = ((step.get("exchange") or {}).get("request") or {}).get("body")
        if ref.startswith("exchange.request.body.") and isinstance(body, dict) and key in body:
            step["messages"] = _json_copy(body[key])
    return trace
