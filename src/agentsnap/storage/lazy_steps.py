"""A large golden's steps kept as their compact JSON text, decoded one at a time when read.

A golden's file is parsed into dicts and lists several times its size in memory (a 5,000-call
golden: 20 MB of file, 40 MB parsed, 12 MB as compact text). A golden file of at least
:data:`LAZY_FROM` bytes is read by :func:`read_lazy`: every step is parsed and checked as the
whole file is (:mod:`agentsnap.storage.schema`), one at a time, then kept as its compact JSON
(``msgspec.json.encode`` of the parsed step: it parses back to the same values, keys in the
same order) and dropped (a byte order mark at the file's start is skipped, as the whole read
skips it). Anything the step-by-step read cannot vouch for (a file that is not
JSON msgspec reads, a wrong value, a nesting too deep, an old file's ``messages_from``, another
name) is left to the whole read, which raises its error naming the file and the JSON path.
The file is read in pieces of 256 KiB: in agentsnap's own layout its steps are found by the
lines that close them (:func:`_read_pieces`, checked to be sound whatever the layout) and the
pieces read let go as the read goes, so the file and the texts are never held whole at once. Each
servable step's replay key is computed while it is parsed (the cassette decodes no request again).

The snapshot read so is a :class:`LazySnapshot`: its ``trace`` is a real list of step dicts,
decoded in full on the first read of the attribute (every reader of step dicts sees the values
a whole read gives) and kept from then on. The replay of a passing test reads no ``trace``: its
cassette (:class:`agentsnap.capture.cassette.Cassette`), the proof that the run is its golden
(:mod:`agentsnap._pytest.golden_run`), the comparison and the ``.last_run`` record read
:func:`raw_steps`, one step at a time. A file under :data:`LAZY_FROM` is read whole, as always
(the common small test pays nothing for this).
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from . import schema as _schema
from . import serialize as _serialize
from .snapshot import _MAX_NESTING, _READABLE_VERSIONS, FORMAT_VERSION, Snapshot, _deeper_than
from .wire import UTF8_BOM, replay_key

__all__ = [
    "LAZY_FROM",
    "LazySnapshot",
    "NoMemo",
    "RawSteps",
    "compared",
    "raw_steps",
    "read_large",
    "read_lazy",
    "readable",
    "same_steps",
    "scratch_dict",
    "stepwise",
]

#: golden files of at least this many bytes are read a step at a time (~2,000 calls of a chat
#: agent); smaller ones are read whole, as before (the steps as text cost instructions to read)
LAZY_FROM = 8 << 20

_decode = msgspec.json.decode
_encode = msgspec.json.encode
_top = msgspec.json.Decoder(dict[str, msgspec.Raw])
_items = msgspec.json.Decoder(list[msgspec.Raw])


class _Held:
    """The steps of one golden: their texts until the golden's ``trace`` is read, then the step
    dicts decoded from them (and no texts)."""

    __slots__ = ("decoded", "keys", "texts")

    def __init__(self, texts: list[bytes], keys: list[Any] | None = None) -> None:
        self.texts: list[bytes] | None = texts
        self.decoded: list[dict[str, Any]] | None = None
        #: each step's :func:`~agentsnap.storage.wire.replay_key`, computed while the file was
        #: read (None: a step a cassette does not serve as is; see :meth:`RawSteps.skeletons`)
        self.keys = keys

    def decode_all(self) -> list[dict[str, Any]]:
        if self.decoded is None:
            # (the texts list is never changed: a replay thread reading a step meanwhile reads it
            # whole; the texts are let go once every step is decoded)
            self.decoded = [_decode(text) for text in self.texts or ()]
            self.texts = None  # (every reader reads the dicts from now on)
        return self.decoded


class RawSteps:
    """A golden's steps as their compact JSON texts: :meth:`step` decodes one (a fresh dict),
    without the key ``drop`` (a golden's steps read as a replayed run's: ``latency_ms``). Once
    the golden's ``trace`` is read, its steps are those dicts (``drop``: a copy without it)."""

    __slots__ = ("drop", "held")

    #: read a step at a time by trace_digest and compact_pieces (agentsnap.storage.snapshot, .serialize)
    is_steps = True

    def __init__(self, held: _Held, drop: str | None = None) -> None:
        self.held = held
        self.drop = drop

    # (the texts are read before the dicts: ``decode_all`` sets the dicts before it lets the texts
    # go, so a reader in another thread finds one or the other, never neither)

    def __len__(self) -> int:
        held = self.held
        texts = held.texts
        return len(texts if texts is not None else held.decoded or ())

    def step(self, index: int) -> dict[str, Any]:
        held = self.held
        drop = self.drop
        texts = held.texts
        if texts is None:
            found = (held.decoded or [])[index]
            return found if drop is None else {k: v for k, v in found.items() if k != drop}
        step: dict[str, Any] = _decode(texts[index])
        if drop is not None:
            step.pop(drop, None)
        return step

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for index in range(len(self)):
            yield self.step(index)

    def decoded(self) -> list[dict[str, Any]]:
        """Every step, decoded once for all readers of these texts (then held as dicts)."""
        steps = self.held.decode_all()
        drop = self.drop
        return steps if drop is None else [{k: v for k, v in s.items() if k != drop} for s in steps]

    def skeletons(self) -> Iterator[dict[str, Any]]:
        """Each step as a cassette indexes it, decoding no more than that: an ``exchange`` of its
        ``request`` alone (decoded) and, for a ``response`` that is an object, ``{}``; a step with a
        ``session`` or ``connection`` (MCP, WebSocket), or once the steps are dicts, the whole step.
        A step whose replay key was computed when the file was read is not decoded: its skeleton
        is a request and a response, both ``{}``, the request carrying the key (:meth:`key`),
        which the file's steps then let go (the cassette holds it until served; a second
        cassette over these steps decodes the request)."""
        keys = self.held.keys
        for index in range(len(self)):
            texts = self.held.texts
            if texts is None:
                yield self.step(index)
                continue
            if keys is not None and (found := keys[index]) is not None:
                # (taken by one reader: another reading meanwhile finds the key or None, and
                # decodes the request then; either way the key it uses is the request's)
                keys[index] = None
                keyed = _Keyed()
                keyed.key = found
                yield {"exchange": {"request": keyed, "response": _EMPTY}}
                continue
            parts = _parts.decode(texts[index])
            if "session" in parts or "connection" in parts:
                yield self.step(index)
                continue
            exchange = parts.get("exchange")
            if exchange is None or not _is_object(exchange):
                yield {"exchange": None}
                continue
            ex = _parts.decode(exchange)
            request, response = ex.get("request"), ex.get("response")
            yield {
                "exchange": {
                    "request": None if request is None else _decode(request),
                    "response": {} if response is not None and _is_object(response) else None,
                }
            }

    def key(self, index: int, request: dict[str, Any]) -> tuple[str, str, bytes]:
        """The replay key of step ``index``'s ``request`` (as :meth:`skeletons` gave it): the one
        computed when the file was read, else computed now."""
        if type(request) is _Keyed:
            return request.key
        return replay_key(request)

    def any_true(self, key: str) -> bool:
        """Whether a step's ``key`` is truthy, read by decoding only the steps whose text holds it."""
        texts = self.held.texts
        if texts is None or key == self.drop:
            return key != self.drop and any(step.get(key) for step in self)
        marker = _encode(key) + b":"  # (in a string value its quotes would be escaped)
        return any(marker in text and self.step(i).get(key) for i, text in enumerate(texts))

    def without(self, key: str) -> RawSteps:
        """The same steps, read without ``key``."""
        return RawSteps(self.held, key)


class _Exchange(Mapping[str, Any]):
    """A step's ``exchange`` as the comparison reads it: decoded from its text on each read (the
    checks read exchanges through ``Mapping``; a comparison's trace holds no parsed exchange)."""

    __slots__ = ("text",)

    def __init__(self, text: msgspec.Raw) -> None:
        self.text = text

    def _value(self) -> dict[str, Any]:
        value: dict[str, Any] = _decode(self.text)
        return value

    def __getitem__(self, key: str) -> Any:
        return self._value()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._value())

    def __len__(self) -> int:
        return len(self._value())


_parts = msgspec.json.Decoder(dict[str, msgspec.Raw])
#: the response of a skeleton whose request is :class:`_Keyed` (:meth:`RawSteps.skeletons`; never changed)
_EMPTY: dict[str, Any] = {}


class _Keyed(dict[str, Any]):
    """The empty request of a step's skeleton whose replay key was computed when its file was
    read (:meth:`RawSteps.skeletons`): it carries the key."""

    __slots__ = ("key",)

    key: tuple[str, str, bytes]


def compared(
    steps: RawSteps, run_only: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The golden's steps and the run's (the same without ``steps.drop``) as a comparison reads
    them: every value decoded but each ``exchange``, read from its text when the checks ask
    (:class:`_Exchange`); the two sides share every value, as a golden-again run's steps do,
    and a value whose text repeats another step's (a short one: a usage, the tools offered, a
    system message) is the same object (:class:`_Shared`: the comparison changes none).
    ``run_only``: the run's steps made straight from the texts, given as both sides (no
    golden step dict made; :func:`agentsnap.lifecycle.compare_run` says when that is sound)."""
    held = steps.held
    drop = steps.drop
    golden: list[dict[str, Any]] = []
    if held.decoded is not None:
        golden = held.decoded
    else:
        shared = _Shared()
        for text in held.texts or ():
            step = _step_dict(
                (key, _Exchange(value) if key == "exchange" else shared.value(value))
                for key, value in _parts.decode(text).items()
                if not (run_only and key == drop)
            )
            golden.append(step)
        if run_only:
            return golden, golden
    run = [_step_dict((k, v) for k, v in step.items() if k != drop) for step in golden]
    return (run, run) if run_only else (golden, run)


class _StepKeys:
    """Nothing but the key table the comparison's step dicts share (:func:`_step_dict`)."""


def _step_dict(items: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A new ``dict`` of ``items``: the attribute dict of a new :class:`_StepKeys` (a step's
    keys are every step's, in the same order: CPython then holds such a dict's values alone,
    its keys in one table for all of them, 230 bytes a step of 13 keys instead of 500); a dict
    like any other (a step of other keys, or changed, holds its own table as any dict does)."""
    found = _StepKeys().__dict__
    found.update(items)
    return found


class _Shared:
    """Values decoded from text, a short text's value decoded once (a list's items each so)."""

    __slots__ = ("seen",)

    #: a text at most this long is looked up (the repeated values are short; a long one rarely
    #: repeats and would be held as the key)
    SHORT = 512
    #: a list's text at most this long is looked up whole
    SHORT_LIST = 64

    def __init__(self) -> None:
        self.seen: dict[bytes, Any] = {}

    def value(self, text: msgspec.Raw) -> Any:
        is_list = memoryview(text)[0] == 0x5B  # "["
        # a list is looked up whole only when short (the tools offered, no tool requested): a
        # longer one (a conversation so far) rarely repeats, its items do (5,000 calls: 1.6 MB
        # of keys held to the end of compared() for nothing)
        short = len(text) <= (self.SHORT_LIST if is_list else self.SHORT)
        if short:
            key = bytes(text)
            found = self.seen.get(key, _NONE)
            if found is not _NONE:
                return found
        # a list's items looked up each
        found = [self.value(item) for item in _items.decode(text)] if is_list else _decode(text)
        if short:
            self.seen[key] = found
        return found


_NONE = object()


def _is_object(text: msgspec.Raw) -> bool:
    """Whether compact JSON ``text`` is an object."""
    return memoryview(text)[0] == 0x7B  # "{"


class LazySnapshot(Snapshot):
    """A :class:`Snapshot` whose ``trace`` is decoded from :class:`RawSteps` on its first read."""

    def __init__(self, steps: RawSteps | None = None, **fields: Any) -> None:
        self._steps: RawSteps | None = None
        super().__init__(**fields)  # (its ``trace = []`` goes to the setter)
        self._steps = steps

    @property
    def trace(self) -> list[dict[str, Any]]:
        steps = self._steps
        if steps is not None:  # the first read: decoded in full, kept
            self.__dict__["trace"] = steps.decoded()
            self._steps = None
        found: list[dict[str, Any]] = self.__dict__["trace"]
        return found

    @trace.setter
    def trace(self, value: list[dict[str, Any]]) -> None:
        self.__dict__["trace"] = value
        self._steps = None


class NoMemo(dict[int, Any]):
    """A memo that keeps nothing (for :func:`agentsnap.diff.run_totals.measure`'s ``counted``
    over steps read from text: every body is a fresh dict, and keeping each would hold them all)."""

    def __setitem__(self, key: int, value: Any) -> None:
        return


def readable(
    snapshot: Snapshot, made: list[dict[str, Any]] | None = None
) -> Sequence[Mapping[str, Any]]:
    """``snapshot``'s steps for a reader that takes any ``Mapping`` step and exchange (the run's
    totals): its ``trace``, or, of a large golden's steps still text, ``made`` (the run's steps
    its comparison made of them: the same list, measured once), else made now by
    :func:`compared`."""
    raw = raw_steps(snapshot)
    if raw is None:
        return snapshot.trace
    return made if made is not None else compared(raw)[1]


def stepwise(snapshot: Snapshot, from_steps: int) -> bool:
    """Whether ``snapshot``'s record is written a step at a time: its steps are text, or at
    least ``from_steps`` of them (:meth:`agentsnap.storage.store.SnapshotStore.save_last_run`)."""
    return raw_steps(snapshot) is not None or len(snapshot.trace) >= from_steps


def scratch_dict(snapshot: Snapshot) -> dict[str, Any] | None:
    """The prepared dict of a scratch record (``.last_run``) of a prepared ``snapshot`` whose
    steps are text, its ``trace`` those steps (each decoded when written); None for any other."""
    raw = raw_steps(snapshot)
    if raw is None or not snapshot.prepared:
        return None
    data = snapshot.to_dict_with([])
    parts = {key: data.pop(key) for key in ("input", "trace", "output")}
    found: dict[str, Any] = {**_serialize.prepare(data), **parts, "trace": raw}
    return found


def same_steps(a: Snapshot, b: Snapshot) -> bool:
    """Whether ``a`` and ``b`` hold the same steps as text, neither decoded (one may read them
    without ``latency_ms``, a volatile field: the comparison ignores it)."""
    raw_a, raw_b = raw_steps(a), raw_steps(b)
    return (
        raw_a is not None
        and raw_b is not None
        and raw_a.held is raw_b.held
        and {raw_a.drop, raw_b.drop} <= {None, "latency_ms"}
    )


def read_large(path: Path, expected_name: str | None) -> LazySnapshot | None:
    """:func:`read_lazy` of the file at ``path`` when it holds at least :data:`LAZY_FROM` bytes
    (None: read it whole), the cyclic collector paused meanwhile (as for a whole read).

    A file in agentsnap's own layout is read in pieces of :data:`_PIECE` bytes, a step at a time
    (:func:`_read_pieces`): the file's bytes and the step texts are never held whole at once. Any
    other layout is read whole and parsed by :func:`read_lazy`. The file is read, not mapped: a
    file cut short by another process meanwhile reads short (the whole read then names it), where
    a mapping's page past the new end would kill the process (SIGBUS); a file written in place
    meanwhile (its size or times changed) is left to the whole read, not read as pieces of two."""
    if os.stat(path).st_size < LAZY_FROM:
        return None
    enabled = gc.isenabled()
    gc.disable()
    try:
        with open(path, "rb") as file:
            before = _version(os.fstat(file.fileno()))
            found = _read_pieces(file, expected_name)
            if before != _version(os.fstat(file.fileno())):
                return None  # (written in place meanwhile: pieces of two files; read it whole)
            if found is not _UNSURE:
                return found  # type: ignore[no-any-return]
            file.seek(0)
            return read_lazy(file.read(), path, expected_name)
    except OSError:  # (the whole read that follows names it)
        return None
    finally:
        if enabled:
            gc.enable()


def _version(stat: os.stat_result) -> tuple[int, int, int]:
    """What changes when a file is written in place: its size, its change and modify times."""
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def raw_steps(snapshot: object) -> RawSteps | None:
    """``snapshot``'s steps as texts, while its ``trace`` has not been read (else None: a list
    read may have been changed in place, and is what counts from then on)."""
    return snapshot._steps if isinstance(snapshot, LazySnapshot) else None


def read_lazy(raw: bytes, path: Path, expected_name: str | None) -> LazySnapshot | None:
    """The snapshot in file ``raw`` (at ``path``) with its steps kept as texts; None for anything
    the whole read must look at (and, if wrong, name: module doc)."""
    try:
        top = _top.decode(memoryview(raw)[3:] if raw[:3] == UTF8_BOM else raw)  # (module doc)
        items = _items.decode(top.pop("trace"))
        head = {key: _decode(value) for key, value in top.items()}
    except (KeyError, msgspec.DecodeError, RecursionError):
        return None
    del top
    keep = _Keep()
    for item in items:
        try:
            step = _decode(item)
        except (msgspec.DecodeError, RecursionError):
            return None
        if not keep.add(step):
            return None
    del items
    return keep.snapshot(head, expected_name)


class _Keep:
    """The steps of a golden read one at a time: each kept as its compact text, checked against
    the schema in batches (:func:`_valid`)."""

    __slots__ = ("batch", "held", "keys", "texts")

    def __init__(self) -> None:
        self.texts: list[bytes] = []
        self.keys: list[Any] = []  # (RawSteps.skeletons)
        self.batch: list[Any] = []
        self.held = 0  # the compact bytes of the steps in ``batch``

    def add(self, step: Any) -> bool:
        """Keep ``step`` (False: the whole read must look at it)."""
        if type(step) is not dict or "messages_from" in step:
            return False
        text = _encode(step)
        self.texts.append(text)
        self.keys.append(_key(step))
        self.batch.append(step)
        self.held += len(text)
        return (len(self.batch) < _BATCH and self.held < _BATCH_BYTES) or self.check()

    def check(self) -> bool:
        self.held = 0
        return _valid(self.batch)

    def snapshot(self, head: dict[str, Any], expected_name: str | None) -> LazySnapshot | None:
        """The snapshot of the file's other fields ``head`` and these steps (None: as above)."""
        name = head.get("name")
        if (
            str(head.get("version", FORMAT_VERSION)) not in _READABLE_VERSIONS
            or not isinstance(name, (str, type(None)))
            or (expected_name is not None and name is not None and name != expected_name)
            or _deeper_than(head, _MAX_NESTING)
            or not self.check()
        ):
            return None
        head["trace"] = []
        try:
            msgspec.convert(head, _schema.SnapshotFile, strict=True)
        except msgspec.ValidationError:
            return None
        built = Snapshot.from_dict(head, name=expected_name)
        fields = {key: getattr(built, key) for key in _FIELDS}
        return LazySnapshot(RawSteps(_Held(self.texts, self.keys)), **fields)


def _key(step: dict[str, Any]) -> tuple[str, str, bytes] | None:
    """The replay key of ``step``'s request, for a step any cassette serves as is (an
    ``exchange`` of a request and a response that are objects, no MCP ``session`` or WebSocket
    ``connection``); None for any other. A key that cannot be computed is left to the cassette."""
    ex = step.get("exchange")
    if (
        type(ex) is not dict
        or "session" in step
        or "connection" in step
        or type(ex.get("request")) is not dict
        or type(ex.get("response")) is not dict
    ):
        return None
    try:
        return replay_key(ex["request"])
    except Exception:  # (the cassette computes it again, and raises as it always did)
        return None


#: agentsnap's own layout (``json.dumps(indent=2)``): the trace opens on its own line, each step
#: closes at four spaces, followed by the next or by the trace's close (a JSON string holds no
#: raw newline, so these are never inside one)
_OPEN = b'\n  "trace": [\n'
_CLOSE = b"\n    }"
_CLOSE_AT = re.compile(re.escape(_CLOSE)).search


def _find_close(data: bytes, pos: int) -> int:
    """``data.find(_CLOSE, pos)``, found by the regular expression of that text alone (the same
    first place; the indented text's spaces and newlines make ``bytes.find`` step a byte at a
    time: a 5,000-call golden's steps 25-40 ms by ``find``, 9 ms so)."""
    found = _CLOSE_AT(data, pos)
    return -1 if found is None else found.start()


_NEXT = b",\n"
_END = b"\n  ]"
#: the trace's place in the file's other fields, checked to be the top level's ``trace``
_HOLE = b'"\\u0000agentsnap-trace"'
#: the file read this many bytes at a time (a step longer than it: more); a few MiB at a time
#: held a peak of ~10 MB more (the pieces joined while a step spans two)
_PIECE = 256 << 10
_UNSURE: Any = object()


def _read_pieces(file: BinaryIO, expected_name: str | None) -> Any:
    """:func:`read_lazy` of ``file`` in agentsnap's own layout, read in pieces a step at a time;
    ``_UNSURE`` for any other layout (or a file that ends early).

    Each step is the text between two of the separators (a ``}`` closing a line at four spaces,
    then ``,``); the read is sound whatever the layout: every piece must parse whole as one
    JSON value, so the trace is the array of them, and the file's other fields with a
    placeholder in the trace's place must parse with the placeholder as the top level's
    ``trace`` (else ``_UNSURE``)."""
    data = b""
    start = -1
    while start < 0:  # (the fields before the trace: a piece or a few; a long answer: more)
        more = file.read(max(_PIECE, len(data)))  # (as much again: each byte copied a few times)
        if not more:
            return _UNSURE
        data += more
        start = data.find(_OPEN, max(0, len(data) - len(more) - len(_OPEN)))
    front = data[3 if data.startswith(UTF8_BOM) else 0 : start + len(_OPEN) - 2]
    pos = start + len(_OPEN)
    keep = _Keep()
    while True:
        cut = _find_close(data, pos)
        while cut < 0 or len(data) < cut + len(_CLOSE) + len(_END):
            if pos >= _PIECE:  # (let the steps read go: what is left is part of one)
                data = data[pos:]
                cut -= pos if cut >= 0 else 0
                pos = 0
            searched = len(data)
            # (a step longer than a piece: read as much again, so its bytes are copied a few times)
            more = file.read(max(_PIECE, searched - pos))
            data += more
            if cut < 0:  # (what was searched holds no separator: search on from its end)
                cut = _find_close(data, max(pos, searched - len(_CLOSE) + 1))
            if not more:
                if cut < 0:
                    return _UNSURE
                break  # (the separator checks below see the file's end)
        cut += len(_CLOSE)
        try:
            step = _decode(memoryview(data)[pos:cut])
        except (msgspec.DecodeError, RecursionError):
            return _UNSURE
        if not keep.add(step):
            return _UNSURE  # (a step refused, or a piece of a layout not agentsnap's)
        if data.startswith(_NEXT, cut):
            pos = cut + len(_NEXT)
            continue
        if not data.startswith(_END, cut):
            return _UNSURE
        outside = b"".join((front, _HOLE, data[cut + len(_END) :], file.read()))
        break
    del data
    try:
        top = _top.decode(outside)
        if outside.count(_HOLE) != 1 or bytes(top.pop("trace")) != _HOLE:
            return _UNSURE
        head = {key: _decode(value) for key, value in top.items()}
    except (KeyError, msgspec.DecodeError, RecursionError):
        return _UNSURE
    return keep.snapshot(head, expected_name)


#: steps checked at once (one msgspec call, one depth walk: a step at a time cost ten times more),
#: and at most about this many bytes of them (a golden of large steps, long prompts and answers,
#: would otherwise hold 256 parsed steps beside the texts: more than the whole read holds)
_BATCH = 256
_BATCH_BYTES = 1 << 20
_steps_type = list[_schema.Step]


def _valid(batch: list[Any]) -> bool:
    """Whether the steps in ``batch`` pass the schema and nest no deeper than a file may (a
    step is two levels down in its file, one in ``batch``); ``batch`` is emptied."""
    try:
        if _deeper_than(batch, _MAX_NESTING - 1):
            return False
        msgspec.convert(batch, _steps_type, strict=True)
    except msgspec.ValidationError:
        return False
    finally:
        batch.clear()
    return True


_FIELDS = (
    "name",
    "output",
    "input",
    "model",
    "approved",
    "source",
    "created_at",
    "updated_at",
    "recorded_at",
    "version",
    "agentsnap_version",
    "comparison",
    "trace_digest",
)
