"""The snapshot file: model, deterministic JSON, and the file-backed store.

File format (one JSON file per snapshot): UTF-8 with non-ASCII kept literal,
``indent=2``, sorted keys, ``\\n`` newlines and a trailing newline, written
atomically (temp file in the same folder + ``os.replace``) and not rewritten
when only volatile fields changed (timestamps, request ids, provider response
ids) — so re-recording an unchanged agent leaves ``git diff`` empty.

Top-level keys: ``version`` (format version, ``"2.0"``), ``recorded_at``,
``model``, ``input``, ``trace`` (list of steps, see :mod:`agentsnap.capture.trace`),
``output``; review fields ``name`` (the full snapshot name, checked on load),
``approved``, ``source`` (``pytest`` | ``record`` | ``trace``), ``created_at``,
``updated_at``, ``agentsnap_version``. Files written by agentsnap 0.5.1
(``version`` ``"1.0"``/``"1.1"``) load too.

File name (:func:`preferred_filename`): ``<name>.json`` when the name already is
a safe, short file name (letters, digits, ``_ . -``; at most 100 characters; not
a Windows device name; not ending in ``-`` plus 8 hex digits, which is the
hashed form) with no upper-case letter (so two names never meet in one file on
a case-insensitive file system); otherwise ``<sanitized-name>-<sha1(name)[:8]>.json`` (:func:`snapshot_filename`) —
Windows-legal, at most 100 characters before the hash, collision-proof because
the hash is of the full name; any ``..`` or separator in a name is neutralised,
so every file lands inside the store's root.

Every earlier form is read (:meth:`SnapshotStore.locate`): the hashed form,
``<name>.json`` (what agentsnap 0.5.1 wrote), and 0.5.1's input-hash form
``<name>__<sha256(input)[:8]>.json``. A snapshot that already has a file keeps
it: saving, approving, updating and re-recording write where it was found.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import gc
import hashlib
import json
import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from glob import escape as glob_escape
from pathlib import Path
from typing import Any

import msgspec

from ._atomic import atomic_write
from .exceptions import SnapshotFormatError

__all__ = [
    "FORMAT_VERSION",
    "Snapshot",
    "SnapshotStore",
    "behaviour_changes",
    "dumps",
    "input_sha8",
    "name_from_file",
    "preferred_filename",
    "same_content",
    "snapshot_filename",
]

FORMAT_VERSION = "2.0"
_READABLE_VERSIONS = ("1.0", "1.1", "2.0")
_MAX_STEM = 100
_MAX_LEGACY_NAME = 200
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)
LAST_RUN_DIR = ".last_run"
#: ``Snapshot.agentsnap_version`` of a file that does not say which agentsnap wrote it
UNKNOWN_WRITER = "unknown (the file does not record it; agentsnap 0.5.1 wrote none)"


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def _version() -> str:
    from ._version import __version__

    return __version__


@dataclass
class Snapshot:
    """One recorded agent run plus its review state.

    ``trace``: list of step dicts (``llm_call``, ``tool_call``, ``http``).
    ``output``: the agent's final output (any JSON value). Timestamps are
    ISO-8601 UTC strings, filled on creation when empty.
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
    #: ``trace``, ``input`` and ``output`` are already as :func:`agentsnap.serialize.prepare`
    #: stores them (:func:`agentsnap.lifecycle.build_snapshot` sets it): saving skips that pass
    prepared: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        now = _now()
        self.created_at = self.created_at or now
        self.updated_at = self.updated_at or now
        self.recorded_at = self.recorded_at or now
        self.agentsnap_version = self.agentsnap_version or _version()

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict written to disk."""
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
            "trace": self.trace,
            "output": self.output,
            **({"comparison": self.comparison} if self.comparison is not None else {}),
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
        )

    @property
    def llm_calls(self) -> list[dict[str, Any]]:
        return [s for s in self.trace if s.get("type") == "llm_call"]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return [s for s in self.trace if s.get("type") == "tool_call"]


#: files nest at most ~110 levels (agentsnap.serialize.MAX_DEPTH plus the snapshot's own);
#: deeper ones are refused on load, so nothing downstream recurses without bound
_MAX_NESTING = 160


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether ``data`` (parsed JSON) nests containers more than ``limit`` deep.

    Level by level (no recursion): each level's containers are gathered by one
    comprehension over the level above, so every value is looked at once.
    """
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


def _loads(text: str) -> Any:
    """``json.loads(text)``, by msgspec's faster decoder where it reads the same JSON; what it
    refuses (``NaN``, a number beyond a float, a lone surrogate escape, an error: the message
    is ``json``'s) goes to ``json.loads``."""
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return json.loads(text)


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
    from .serialize import escape_surrogates

    return escape_surrogates(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True)) + "\n"


def snapshot_filename(name: str) -> str:
    """``<sanitized-name>-<sha1(name)[:8]>.json`` for a snapshot name."""
    digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    stem = name.replace("::", "__")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem)
    stem = re.sub(r"\.{2,}", "_", stem).strip("._ -")[:_MAX_STEM].rstrip("._ ")
    if not stem:
        stem = "snapshot"
    if stem.split(".", 1)[0].lower() in _RESERVED:
        stem = "_" + stem
    return f"{stem}-{digest}.json"


#: the top-level ``"name"`` line of a file this module wrote (``indent=2``: top-level keys have two spaces)
_STORED_NAME_LINE = re.compile(r'^  "name": ("(?:[^"\\\n]|\\.)*")', re.M)
_HASHED_STEM = re.compile(r"^(.+)-[0-9a-f]{8}$")


def name_from_file(path: Path) -> str:
    """The snapshot name a file stands for, also when it cannot be parsed (for the CLI's name lookup).

    In order: the ``"name"`` line of the file's text when one is still there
    (an indented file this module wrote, even if corrupt elsewhere); else
    what the file name says — ``<stem>-<8 hex>.json`` gives the stem with
    ``__`` read back as ``::`` (the other replaced characters stay ``_``, so
    this may differ from the real name; compare through :func:`snapshot_filename`
    when exactness matters); any other ``<name>.json`` (agentsnap 0.5.1) the
    stem. Never raises: an unreadable file falls back to its file name.
    """
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            head = fh.read(1 << 20)
    except OSError:
        head = ""
    found = _STORED_NAME_LINE.search(head)
    if found is not None:
        try:
            name = json.loads(found.group(1))
        except ValueError:
            name = None
        if isinstance(name, str) and name:
            return name
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    hashed = _HASHED_STEM.match(stem)
    return hashed.group(1).replace("__", "::") if hashed else stem


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_HASHED_TAIL = re.compile(r"-[0-9a-f]{8}$")


def _plain_ok(name: str) -> bool:
    """Whether ``name`` is already a safe, short file stem (module doc)."""
    return (
        len(name) <= _MAX_STEM
        and _PLAIN_NAME.fullmatch(name) is not None
        and ".." not in name
        and not name.endswith(".")
        and name.split(".", 1)[0].lower() not in _RESERVED
        and _HASHED_TAIL.search(name) is None
        and name == name.lower()
    )


def preferred_filename(name: str) -> str:
    """The file name a new snapshot ``name`` gets when nothing else is in the way:
    ``<name>.json`` for a safe, short name (module doc), else :func:`snapshot_filename`."""
    return f"{name}.json" if _plain_ok(name) else snapshot_filename(name)


def input_sha8(value: Any) -> str:
    """agentsnap 0.5.1's scenario of an input: ``sha256(json.dumps(value, sort_keys=True, default=str))[:8]``.

    0.5.1 named a golden recorded with ``input_data`` ``<name>__<input_sha8>.json``.
    """
    serialized = json.dumps(value, sort_keys=True, default=str).encode()
    return hashlib.sha256(serialized).hexdigest()[:8]


_INPUT_HASH_TAIL = re.compile(r"__[0-9a-f]{8}$")


# volatile fields: never a reason to rewrite a file
_VOLATILE_TOP = ("created_at", "updated_at", "recorded_at", "agentsnap_version", "comparison")
_VOLATILE_HEADERS = frozenset(
    {
        "x-request-id",
        "openai-processing-ms",
        "date",
        "request-id",
        "x-ratelimit-reset-requests",
        "x-ratelimit-reset-tokens",
        "content-length",
        "age",
        "expires",
        "etag",
        "last-modified",
    }
)
#: header names with these parts are minted per response: request/trace/correlation ids, timings, rate-limit counters
_VOLATILE_HEADER_PARTS = (
    "request-id",
    "trace-id",
    "correlation-id",
    "ratelimit",
    "processing-ms",
    "upstream-service-time",
    "cf-ray",
    "server-timing",
)
#: per-response timestamps and fingerprints inside a recorded response (any depth: stream events nest them)
_VOLATILE_RESPONSE_KEYS = frozenset({"created", "created_at", "createTime", "system_fingerprint"})
_VOLATILE_IN_CHUNK = re.compile(
    r'"(?:created|created_at|createTime|system_fingerprint)":\s*(?:"[^"]*"|\d+(?:\.\d+)?)'
)
#: keys whose string value is an id the provider (or the SDK) invented: a tool call's id and the
#: references to it (tool_call_id, tool_use_id, call_id), response / message / generation ids
_ID_KEYS = frozenset(
    {
        "id",
        "tool_call_id",
        "tool_use_id",
        "call_id",
        "item_id",
        "response_id",
        "responseId",
        "previous_response_id",
        "generation_id",
        "request_id",
    }
)
_ID_IN_TEXT = re.compile(r'"(?:' + "|".join(sorted(_ID_KEYS)) + r')":\s*"([^"\\]{1,200})"')
#: subtrees that hold the agent's own data (tool arguments and results, its input and output):
#: an "id" there is the agent's, and a change of it is a change
#: shorter values are not taken for minted ids (they would rename ordinary words and numbers)
_MIN_ID = 6
_PAYLOAD_KEYS = frozenset(
    {"args", "arguments", "parameters", "result", "functionResponse", "output", "content"}
)


def _by_key(item: tuple[Any, Any]) -> str:
    return str(item[0])


def _collect_ids(value: Any, found: dict[str, None], *, payload: bool = False) -> None:
    """Every provider-invented id in ``value`` (parsed JSON), in first-seen order.

    A string under an :data:`_ID_KEYS` key counts, except inside the agent's own
    data (:data:`_PAYLOAD_KEYS` holding an object; a tool's ``input`` object);
    ids inside streamed chunk text are found by :data:`_ID_IN_TEXT`. Objects are
    walked in sorted key order, so the order (and so the placeholders) does not
    depend on key order: a snapshot in memory (keys as built) and the same
    snapshot read from its file (keys sorted) rename alike.
    """
    stack: list[tuple[Any, bool]] = [(value, payload)]
    while stack:
        node, inside = stack.pop(0)
        if isinstance(node, dict):
            for key, item in sorted(node.items(), key=_by_key):
                if isinstance(item, str):
                    if key in _ID_KEYS and not inside and len(item) >= _MIN_ID:
                        found.setdefault(item, None)
                elif isinstance(item, (dict, list)):
                    mine = inside or (
                        isinstance(item, dict)
                        and (
                            key in _PAYLOAD_KEYS
                            or (key == "input" and node.get("type") != "message")
                        )
                    )
                    stack.append((item, mine))
            chunks = node.get("chunks")
            if isinstance(chunks, list):
                for chunk in chunks:
                    if isinstance(chunk, str):
                        for match in _ID_IN_TEXT.finditer(chunk):
                            if len(match.group(1)) >= _MIN_ID:
                                found.setdefault(match.group(1), None)
        elif isinstance(node, list):
            stack.extend((item, inside) for item in node)


def _rename_ids(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every id in ``names`` replaced by its placeholder (also inside longer strings)."""
    if not names:
        return value
    alternatives = "|".join(re.escape(k) for k in sorted(names, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z0-9_-])(?:{alternatives})(?![A-Za-z0-9_-])")

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return (
                names[node]
                if node in names
                else (
                    pattern.sub(lambda m: names[m.group(0)], node) if pattern.search(node) else node
                )
            )
        if isinstance(node, dict):
            return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(value)


def _drop_volatile_in_response(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _drop_volatile_in_response(v)
            for k, v in node.items()
            if k not in _VOLATILE_RESPONSE_KEYS
        }
    if isinstance(node, list):
        return [_drop_volatile_in_response(v) for v in node]
    return node


def _volatile_header(name: str) -> bool:
    lower = name.lower()
    return lower in _VOLATILE_HEADERS or any(part in lower for part in _VOLATILE_HEADER_PARTS)


def _strip_volatile(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` reduced to what a change means: review timestamps, per-response headers and
    timestamps dropped, each call's messages in full (``messages_from`` resolved), and the ids the provider invented
    renamed ``<id1>``, ``<id2>`` … in order of first appearance — so two recordings that differ
    only by fresh ids compare equal, while a changed id structure (a tool result now answering
    another call) still differs."""
    data = copy.deepcopy(data)
    if isinstance(data.get("trace"), list):
        _both_copies_of_messages(data["trace"])
    for key in _VOLATILE_TOP:
        data.pop(key, None)
    for step in data.get("trace") or []:
        if not isinstance(step, dict):
            continue
        resp = (step.get("exchange") or {}).get("response")
        if not isinstance(resp, dict):
            continue
        headers = resp.get("headers")
        if isinstance(headers, dict):
            resp["headers"] = {k: v for k, v in headers.items() if not _volatile_header(str(k))}
        if "text" in resp and "body" in resp and _parses_to(resp["text"], resp["body"]):
            del resp[
                "text"
            ]  # the server's exact text (capture/faithful.py): derivable from body for the decision
        if isinstance(resp.get("body"), (dict, list)):
            resp["body"] = _drop_volatile_in_response(resp["body"])
        if isinstance(resp.get("chunks"), list):
            resp["chunks"] = [
                _VOLATILE_IN_CHUNK.sub("", c) if isinstance(c, str) else c for c in resp["chunks"]
            ]
    ids: dict[str, None] = {}
    _collect_ids(data.get("trace") or [], ids)
    placeholders = {value: f"<id{i}>" for i, value in enumerate(ids, 1)}
    data["trace"] = _rename_ids(data.get("trace") or [], placeholders)
    return data


def _parses_to(text: Any, body: Any) -> bool:
    try:
        return isinstance(text, str) and json.loads(text) == body
    except ValueError:
        return False


def same_content(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two snapshot dicts differ only in volatile fields: review timestamps, per-response
    headers (request ids, rate limits, dates) and timestamps (``created``), provider-invented ids
    renamed consistently (tool-call ids ``call_…`` / ``toolu_…`` and the results that answer them,
    response and message ids), and whether a call's messages are stored once or twice."""
    return _strip_volatile(a) == _strip_volatile(b)


#: how many tool names :func:`behaviour_changes` lists on each side before "… (N more)"
_TOOLS_SHOWN = 6


def _tool_sequence(names: list[str]) -> str:
    if not names:
        return "(none)"
    shown = ", ".join(names[:_TOOLS_SHOWN])
    return shown if len(names) <= _TOOLS_SHOWN else f"{shown} … ({len(names) - _TOOLS_SHOWN} more)"


def behaviour_changes(old: Snapshot, new: Snapshot) -> list[str]:
    """What changed between two versions of a snapshot whose content differs (not
    :func:`same_content`), as a reviewer reads it first: ``steps 3 → 5``, ``tools get_weather →
    get_weather, get_weather`` (else ``tool arguments changed``), ``model A → B``, ``output
    changed``; when none of these did, ``llm requests or responses changed (same steps, tools and
    output)``. Tool-call ids are not compared (providers invent them)."""
    out: list[str] = []
    if len(old.trace) != len(new.trace):
        out.append(f"steps {len(old.trace)} → {len(new.trace)}")
    names = ([str(s.get("name")) for s in snap.tool_calls] for snap in (old, new))
    before, after = names
    if before != after:
        out.append(f"tools {_tool_sequence(before)} → {_tool_sequence(after)}")
    elif [s.get("args") for s in old.tool_calls] != [s.get("args") for s in new.tool_calls]:
        out.append("tool arguments changed")
    if old.model != new.model:
        out.append(f"model {old.model} → {new.model}")
    if old.output != new.output:
        out.append("output changed")
    return out or ["llm requests or responses changed (same steps, tools and output)"]


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


def _prepared_dict(snapshot: Snapshot) -> dict[str, Any]:
    """``prepare(snapshot.to_dict())``, without a second pass over a trace that is already prepared."""
    from .serialize import prepare

    data = snapshot.to_dict()
    if not snapshot.prepared:
        prepared: dict[str, Any] = prepare(data)
        return prepared
    parts = {key: data.pop(key) for key in ("input", "trace", "output")}
    data = {**prepare(data), **parts}
    data["trace"] = [
        dict(step) if isinstance(step, dict) else step for step in data["trace"]
    ]  # the snapshot keeps its view
    return data


def refuse_links(path: Path, root: Path | None = None) -> None:
    """Raise :class:`~agentsnap.exceptions.SnapshotFormatError` naming the first symbolic link
    among ``path`` and its parents below ``root`` (default: ``path``'s own folder only):
    agentsnap never follows or replaces a link inside the snapshot folder, so nothing it
    writes lands outside it. ``root`` itself may be a link (a folder kept elsewhere)."""
    stop = Path(root) if root is not None else path.parent.parent
    node = path
    while node != stop and node != node.parent:
        if node.is_symlink():
            try:
                target = os.readlink(node)
            except OSError:
                target = "?"
            raise SnapshotFormatError(
                f"agentsnap: {node} is a symbolic link (to {target}); agentsnap never follows or replaces a link inside "
                f"the snapshot folder, so it did not write {path}. Replace the link with a real "
                f"{'folder' if node != path else 'file'} (or remove it), then re-run."
            )
        node = node.parent


#: stale temp files (a writer killed between mkstemp and os.replace) older than this are removed
_STALE_TMP_SECONDS = 60.0
_cleaned: set[str] = set()


def clean_stale_temp(folder: Path, *, max_age: float = _STALE_TMP_SECONDS) -> list[Path]:
    """Remove the temp files ``_atomic_write`` leaves when killed mid-write
    (``.<name>.<random>.tmp``) older than ``max_age`` seconds; returns those removed.
    Fresh ones may belong to a writer still running (xdist) and are kept."""
    import time

    removed: list[Path] = []
    try:
        candidates = [
            p
            for p in folder.iterdir()
            if p.name.startswith(".") and p.name.endswith(".tmp") and ".json." in p.name
        ]
    except OSError:
        return removed
    now = time.time()
    for tmp in candidates:
        try:
            if tmp.is_symlink() or not tmp.is_file() or now - tmp.stat().st_mtime < max_age:
                continue
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            continue
    return removed


def _atomic_write(
    path: Path,
    text: str,
    *,
    durable: bool = True,
    root: Path | None = None,
    replace_link: bool = False,
) -> None:
    """Write ``text`` to ``path`` so that a reader (or a crash, even SIGKILL) only ever
    sees the old file or the new one (:func:`agentsnap._atomic.atomic_write`), after
    refusing a symbolic link on the way (:func:`refuse_links`) and, once per folder
    and process, removing the temp files a killed writer left (:func:`clean_stale_temp`).
    ``durable=False`` skips the fsyncs (scratch files). ``replace_link``: ``path`` itself
    may be a link (``--agentsnap-force``): the rename replaces the link, never its target."""
    checked = path.parent if replace_link else path
    stop = root if root is not None else path.parent.parent
    refuse_links(checked, stop)
    path.parent.mkdir(parents=True, exist_ok=True)
    refuse_links(checked, stop)  # (a link made in between)
    key = str(path.parent)
    if key not in _cleaned:  # once per folder and process: what a SIGKILL left behind
        _cleaned.add(key)
        clean_stale_temp(path.parent)
    atomic_write(path, text, durable=durable)


class SnapshotStore:
    """File-backed store: one JSON file per snapshot under ``root``.

    Nothing is created until the first :meth:`save` (building a store or
    listing an absent root touches nothing).
    """

    def __init__(
        self, root: str | os.PathLike[str] = "__agent_snapshots__", *, force: bool = False
    ) -> None:
        self.root = Path(root)
        #: ``--agentsnap-force``: an unreadable file loads as missing (with a warning)
        #: and :meth:`save` overwrites it
        self.force = force
        #: set once a write to ``.last_run/`` failed (:meth:`last_run_unwritable`): later
        #: ones are not tried, so a read-only folder costs one warning per store, not one per test
        self.last_run_error: str | None = None

    def __repr__(self) -> str:
        return f"SnapshotStore({str(self.root)!r})"

    # -- paths -------------------------------------------------------------
    def candidates(self, name: str) -> list[Path]:
        """Every file name ``name`` may be stored under, in the order they are tried:
        the hashed form (:func:`snapshot_filename`), then ``<name>.json`` when
        that is a safe file name (agentsnap 0.5.1's form and today's plain one)."""
        out = [self.root / snapshot_filename(name)]
        if _PLAIN_NAME.fullmatch(name) and ".." not in name and len(name) <= 200:
            out.append(self.root / f"{name}.json")
        return out

    def locate(self, name: str) -> Path | None:
        """Which file holds snapshot ``name``: the first of :meth:`candidates` that exists, else None.

        Looks at file names only (no file is parsed); :meth:`load` checks the
        name stored inside. The one function to ask "where is NAME" — the CLI
        and the pytest plugin use it, so every reader agrees.
        """
        for path in self.candidates(name):
            if path.is_symlink():
                refuse_links(path, self.root)  # never followed: raises naming the link
            if path.is_file():
                return path
        return None

    def input_hash_names(self, name: str) -> list[str]:
        """Names of the agentsnap 0.5.1 goldens recorded for ``name`` with an input
        (files ``<name>__<8 hex>.json``), sorted; [] when there are none."""
        if not self.root.is_dir() or not _PLAIN_NAME.fullmatch(name):
            return []
        out = []
        for path in self.root.glob(f"{glob_escape(name)}__*.json"):
            stem = path.stem
            if (
                stem[: len(name)] == name
                and _INPUT_HASH_TAIL.fullmatch(stem[len(name) :])
                and path.is_file()
            ):
                out.append(stem)
        return sorted(out)

    def path_for(self, name: str) -> Path:
        """The file of snapshot ``name``: where it already is (:meth:`locate`), else
        where a new one goes (:func:`preferred_filename`). Always directly inside ``root``.
        A golden that is a symbolic link raises (:func:`refuse_links`), except on a store
        made with ``force``: then it is that link, which :meth:`save` replaces."""
        try:
            found = self.locate(name)
        except SnapshotFormatError:
            link = self._link_to_replace(name) if self.force else None
            if link is None:
                raise
            return link
        if found is not None:
            return found
        return self.root / preferred_filename(name)

    def _link_to_replace(self, name: str) -> Path | None:
        """The first of ``name``'s :meth:`candidates` that is a symbolic link in a folder
        that is not one (a linked folder is never written into), or None."""
        link = next((p for p in self.candidates(name) if p.is_symlink()), None)
        if link is not None:
            refuse_links(link.parent, self.root)
        return link

    def last_run_path(self, name: str) -> Path:
        """Where the latest run of ``name`` is written: ``root/.last_run/`` plus the golden's file name."""
        return self.root / LAST_RUN_DIR / self.path_for(name).name

    def exists(self, name: str) -> bool:
        return self.locate(name) is not None

    # -- reading -----------------------------------------------------------
    @staticmethod
    def read_file(path: Path, *, expected_name: str | None = None) -> Snapshot:
        """Parse one snapshot file (see :meth:`_read_file`), with the cyclic garbage collector
        paused meanwhile: a golden is a burst of fresh, acyclic dicts and lists (hundreds of
        thousands for a 5,000-call golden) that would otherwise trigger collections walking
        all of them, several times, while nothing collectable exists yet."""
        if not gc.isenabled():
            return SnapshotStore._read_file(path, expected_name=expected_name)
        gc.disable()
        try:
            return SnapshotStore._read_file(path, expected_name=expected_name)
        finally:
            gc.enable()

    @staticmethod
    def _read_file(path: Path, *, expected_name: str | None = None) -> Snapshot:
        """Parse one snapshot file.

        Raises :class:`~agentsnap.exceptions.SnapshotFormatError` (a
        ``ValueError``) naming the path when the file is not valid JSON, not a
        snapshot, of an unknown format version, fails the schema
        (:mod:`agentsnap.schema`: the error names the JSON path), or holds
        another name.
        """
        fix = (
            "Fix or delete the file, or replace it with a new recording: `pytest --agentsnap-record --agentsnap-force` "
            "(without --agentsnap-force agentsnap never overwrites it)."
        )
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise SnapshotFormatError(
                f"agentsnap: corrupt snapshot file at {path}: not UTF-8 ({exc}). {fix}"
            ) from None
        if "\n<<<<<<< " in "\n" + text:
            raise SnapshotFormatError(
                f"agentsnap: snapshot file at {path} contains merge-conflict markers. Resolve the conflict, then re-run. {fix}"
            )
        try:
            data = _loads(text)  # JSON only: never pickle, YAML tags or eval
        except ValueError as exc:
            raise SnapshotFormatError(
                f"agentsnap: corrupt snapshot file at {path}: {exc}. {fix}"
            ) from None
        except RecursionError:
            raise SnapshotFormatError(
                f"agentsnap: corrupt snapshot file at {path}: nested too deeply to read. {fix}"
            ) from None
        from .legacy import from_toolscore, is_toolscore

        if is_toolscore(data):
            try:
                data = from_toolscore(
                    data, path
                )  # its calls become tool_call steps, or it is refused
            except ValueError as exc:
                raise SnapshotFormatError(f"agentsnap: {exc}. {fix}") from None
        if not isinstance(data, dict) or not isinstance(data.get("trace"), list):
            raise SnapshotFormatError(
                f"agentsnap: {path} is not an agentsnap snapshot (expected an object with a 'trace' list). {fix}"
            )
        if _deeper_than(data, _MAX_NESTING):
            raise SnapshotFormatError(
                f"agentsnap: corrupt snapshot file at {path}: nested deeper than {_MAX_NESTING} levels. {fix}"
            )
        bad_step = next(
            (i for i, step in enumerate(data.get("trace") or []) if not isinstance(step, dict)),
            None,
        )
        if bad_step is not None or not isinstance(data.get("name", ""), (str, type(None))):
            where = (
                f"trace[{bad_step}] is not an object"
                if bad_step is not None
                else "its 'name' is not a string"
            )
            raise SnapshotFormatError(
                f"agentsnap: {path} is not an agentsnap snapshot ({where}). {fix}"
            )
        version = str(data.get("version", FORMAT_VERSION))
        if version not in _READABLE_VERSIONS:
            raise SnapshotFormatError(
                f"agentsnap: snapshot {path} has format version {version!r}; this agentsnap reads {', '.join(_READABLE_VERSIONS)}. "
                "Upgrade agentsnap, or replace it with a new recording: `pytest --agentsnap-record --agentsnap-force`."
            )
        from .schema import validate

        validate(data, path)  # every field's type, the step kinds, the exchange shape (msgspec)
        stored_name = data.get("name")
        if expected_name is not None and stored_name is not None and stored_name != expected_name:
            raise SnapshotFormatError(
                f"agentsnap: {path} holds snapshot {stored_name!r}, not {expected_name!r} (file renamed or copied?). {fix}"
            )
        return Snapshot.from_dict(data, name=expected_name)

    def legacy_path_for(self, name: str) -> Path | None:
        """Where agentsnap 0.5.1 kept ``name`` (``<root>/<name>.json``), if that is a safe file name."""
        # a name too long for one file name (255 bytes on most file systems) never had a 0.5.1 file
        if _PLAIN_NAME.fullmatch(name) and ".." not in name and len(name) <= _MAX_LEGACY_NAME:
            return self.root / f"{name}.json"
        return None

    def load(self, name: str) -> Snapshot | None:
        """The snapshot named ``name``, or None when there is no file.

        The file is the one :meth:`locate` finds (any earlier name form,
        agentsnap 0.5.1's ``<root>/<name>.json`` included); later saves write
        to that same file. An unreadable file raises
        :class:`~agentsnap.exceptions.SnapshotFormatError`, or, on a store made
        with ``force=True``, warns and counts as missing.
        """
        try:
            return self._load(name)
        except SnapshotFormatError as exc:
            if not self.force:
                raise
            from .exceptions import AgentsnapWarning

            warnings.warn(
                AgentsnapWarning(
                    f"{exc} --agentsnap-force: treated as missing; this run's recording replaces it."
                ),
                stacklevel=2,
            )
            return None

    def _load(self, name: str) -> Snapshot | None:
        path = self.locate(name)
        if path is None:
            return None
        return self.read_file(path, expected_name=name)

    def last_run_files(self, name: str, golden_file: str | None = None) -> list[Path]:
        """The files under ``.last_run/`` that hold a latest run of ``name``, in the order
        :meth:`load_last_run` tries them (:meth:`last_run_path`, then the hashed form written
        before the golden's own file name was used); only those that exist. ``golden_file``:
        the golden's file name when it is known (an unreadable golden whose name is a guess)."""
        path = self.root / LAST_RUN_DIR / golden_file if golden_file else self.last_run_path(name)
        refuse_links(path, self.root)
        old = self.root / LAST_RUN_DIR / snapshot_filename(name)
        return [p for p in dict.fromkeys((path, old)) if p.is_file() and not p.is_symlink()]

    def load_last_run(self, name: str) -> Snapshot | None:
        found = self.last_run_files(name)
        return self.read_file(found[0], expected_name=name) if found else None

    def _iter_files(self) -> Iterator[Path]:
        if not self.root.is_dir():
            return iter(())
        links = sorted(p for p in self.root.glob("*.json") if p.is_symlink())
        for link in links:
            warnings.warn(
                f"agentsnap: skipped {link}: a symbolic link (agentsnap never follows one inside the snapshot folder)",
                stacklevel=3,
            )
        # only snapshot files: never the temp files of an interrupted write (.<name>.<random>.tmp)
        return iter(
            sorted(p for p in self.root.glob("*.json") if p.is_file() and not p.is_symlink())
        )

    def list(self) -> list[Snapshot]:
        """Every parseable snapshot, sorted by name; unparseable files warn and are skipped."""
        out = []
        for path in self._iter_files():
            try:
                out.append(self.read_file(path))
            except SnapshotFormatError as exc:
                warnings.warn(str(exc), stacklevel=2)
        return sorted(out, key=lambda s: s.name)

    def pending(self) -> builtins.list[Snapshot]:  # `list` here is the method above
        """Every snapshot not yet approved, sorted by name."""
        return [s for s in self.list() if not s.approved]

    # -- writing -----------------------------------------------------------
    def save(self, snapshot: Snapshot, *, force: bool | None = None) -> Path:
        """Write ``snapshot`` atomically; returns its path.

        What is written is :func:`agentsnap.serialize.prepare` of the snapshot:
        any Python value made JSON (bytes in an envelope, large bytes in a side
        file under ``root/blobs/``), secrets scrubbed. When the file already
        holds the same content apart from volatile fields, nothing is written
        (``updated_at`` only moves on real change). An existing file that
        cannot be parsed is never overwritten: raises
        :class:`~agentsnap.exceptions.SnapshotFormatError` unless ``force``
        (default: the store's ``force``); nor is a golden that is a symbolic link,
        which ``force`` replaces with a regular file (the link's target is never
        written).
        """
        from .serialize import write_blobs

        force = self.force if force is None else force
        path, linked = self._path_to_save(snapshot.name, force)
        new = _prepared_dict(snapshot)
        if not linked and path.is_file():
            try:
                self.read_file(path, expected_name=snapshot.name)  # a broken file raises, untouched
                old = json.loads(path.read_text(encoding="utf-8"))
            except SnapshotFormatError:
                if not force:
                    raise
                old = None
            if isinstance(old, dict) and same_content(old, new):
                write_blobs(
                    new, self.root
                )  # side files first: a snapshot never names a missing one
                return path
            if (
                isinstance(old, dict)
                and isinstance(old.get("created_at"), str)
                and old["created_at"]
            ):
                snapshot.created_at = new["created_at"] = old["created_at"]
        snapshot.updated_at = new["updated_at"] = _now()
        snapshot.agentsnap_version = new["agentsnap_version"] = _version()  # this file's writer
        write_blobs(new, self.root)  # side files first: a snapshot never names a missing one
        _atomic_write(path, dumps(new), root=self.root, replace_link=linked)
        return path

    def _path_to_save(self, name: str, force: bool) -> tuple[Path, bool]:
        """Where :meth:`save` writes ``name`` and whether that file is a symbolic link it
        replaces. A link is refused (:func:`refuse_links`) unless ``force``: then the golden's
        own link (never a linked folder) is replaced by the regular file, its target untouched."""
        try:
            path = self.path_for(name)
        except SnapshotFormatError:
            link = self._link_to_replace(name) if force else None
            if link is None:
                raise
            path = link
        linked = path.is_symlink()
        if linked and not force:
            refuse_links(path, self.root)  # raises, naming the link
        refuse_links(path.parent, self.root)
        return path, linked

    def save_last_run(self, snapshot: Snapshot) -> Path | None:
        """Write the latest run to ``root/.last_run/`` (git-ignored by a ``.gitignore`` there); its path.

        The latest run is a scratch copy for ``agentsnap diff`` / ``update``, never
        needed to compare or replay: when it cannot be written (a read-only snapshot
        folder, a file where ``.last_run`` should be, a full disk) that is one
        :class:`~agentsnap.exceptions.AgentsnapWarning` naming the path
        (:meth:`last_run_unwritable`) and None is returned. A symbolic link on the way
        still raises :class:`~agentsnap.exceptions.SnapshotFormatError`.
        """
        path = self.last_run_path(snapshot.name)
        refuse_links(path, self.root)  # a .last_run linked elsewhere is never written through
        if self.last_run_error is not None:
            return None  # said once already
        from .serialize import escape_surrogates, write_blobs

        try:
            self.write_last_run_ignore()
            data = _prepared_dict(snapshot)
            write_blobs(data, self.root)
            # a scratch copy read back by `agentsnap diff` / `update` (which re-save through `save`):
            # compact JSON (the C encoder; indented output takes the pure-Python one) and no fsync
            text = (
                escape_surrogates(
                    json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                )
                + "\n"
            )
            _atomic_write(path, text, durable=False, root=self.root)
        except OSError as exc:
            self.last_run_unwritable(path, exc)
            return None
        return path

    def write_last_run_ignore(self) -> None:
        """Write ``root/.last_run/.gitignore`` (ignore everything) unless it is there. Raises
        ``OSError`` when it cannot be written, :class:`SnapshotFormatError` for a link on the way."""
        ignore = self.root / LAST_RUN_DIR / ".gitignore"
        if not ignore.exists() and not ignore.is_symlink():
            _atomic_write(
                ignore,
                "# written by agentsnap: the latest runs, promoted with `agentsnap update`\n*\n",
                root=self.root,
            )

    def last_run_unwritable(self, path: Path, exc: OSError) -> None:
        """Say once, in one line, that ``path`` under ``.last_run/`` could not be written (``exc``):
        an :class:`~agentsnap.exceptions.AgentsnapWarning`. Later writes of this store to
        ``.last_run/`` are skipped (:meth:`save_last_run`); test results are unaffected."""
        if self.last_run_error is not None:
            return
        from .exceptions import AgentsnapWarning

        why = exc.strerror or type(exc).__name__
        self.last_run_error = f"{why}: {path}"
        warnings.warn(
            AgentsnapWarning(
                f"agentsnap: cannot write {path} ({why}); the tests' results are unaffected, but this run is not kept "
                f"for `agentsnap diff`, `agentsnap update` or `agentsnap prune` (is {self.root} read-only?)."
            ),
            stacklevel=3,
        )

    def approve(self, name: str) -> Snapshot:
        """Mark ``name`` approved and save it. Raises ``KeyError`` when absent."""
        snap = self.load(name)
        if snap is None:
            raise KeyError(name)
        snap.approved = True
        self.save(snap)
        return snap

    def delete(self, name: str) -> None:
        """Delete ``name`` (no error when absent)."""
        path = self.locate(name)
        if path is None:
            return
        refuse_links(path, self.root)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
