"""The schema of the snapshot file, checked on every load (msgspec).

Every field's type, the step kinds (``llm_call``, ``tool_call``, ``http``, ``mcp``,
``websocket``, told apart by ``type``) and the shape of the raw ``exchange`` replay serves.
Strict about types — ``"approved": "false"`` is a string, not a boolean, and
is refused rather than read as ``bool("false") is True`` — and lenient about
keys it does not know (a newer agentsnap, a codec's extra view fields, a
reviewer's note), so files written by agentsnap 0.5.1 (format ``1.x``: no
review fields, steps with ``step``/``type``/``messages``/``response``/
``tokens`` or ``name``/``args``/``result``) keep loading.

:func:`validate` raises :class:`~agentsnap.exceptions.SnapshotFormatError`
naming the file, the JSON path of every bad value (the first
:data:`MAX_PROBLEMS`), what was expected, and the fix. The JSON Schema (for
editors and other tools) is :func:`json_schema`: ``agentsnap schema`` prints
it from the installed package; ``docs/snapshot.schema.json`` is its committed
copy (regenerate it with ``agentsnap schema > docs/snapshot.schema.json``).
"""

# no ``from __future__ import annotations`` here: msgspec reads these classes' annotations on the
# first load of a run, and a string annotation costs it a ``typing.ForwardRef`` compile (~95 of
# them, ~0.9 ms); the classes are defined in order, so every annotation evaluates where it stands
import functools
import re
import typing
from pathlib import Path
from typing import Any

import msgspec

from ..exceptions import SnapshotFormatError

__all__ = ["FORCED_RECORD", "SnapshotFile", "json_schema", "schema_text", "validate"]


class _Lenient(msgspec.Struct, forbid_unknown_fields=False, omit_defaults=True):
    """Unknown keys are allowed (and ignored here); known keys must have their type."""


class BytesChunk(_Lenient):
    """A streamed chunk that was not UTF-8 text: ``{"$bytes_b64": base64}``."""

    bytes_b64: str = msgspec.field(name="$bytes_b64")


class TransportError(_Lenient):
    """A request that got no HTTP response: the exception's class name and message."""

    type: str
    message: str = ""


class StoredRequest(_Lenient):
    """A recorded request (headers are never stored): ``body`` JSON, ``text``, or ``body_b64`` + ``sha256``."""

    method: str
    path: str
    query: str | None = None
    body: Any = None
    text: str | None = None
    body_b64: str | None = None
    sha256: str | None = None


class StoredResponse(_Lenient):
    """A recorded response: ``status`` and kept ``headers``, then ``body`` (JSON), ``text``,
    ``chunks`` (a stream: text, or ``{"$bytes_b64"}``) or ``body_b64``; or ``error`` (no response)."""

    status: int | None = None
    headers: dict[str, str] = {}
    body: Any = None
    text: str | None = None
    chunks: list[str | BytesChunk] | None = None
    body_b64: str | None = None
    sha256: str | None = None
    error: TransportError | None = None
    #: an MCP request's: what the server sent before its answer (notifications; requests with the client's ``reply``)
    messages: list[dict[str, Any]] | None = None


class Exchange(_Lenient):
    """What replay serves for one call: the recorded request and response."""

    request: StoredRequest
    response: StoredResponse


class LLMCall(_Lenient, tag_field="type", tag="llm_call"):
    """One LLM call: the normalised view a reviewer reads, plus the raw ``exchange``."""

    step: int | None = None
    provider: str | None = None
    model: str | None = None
    messages: list[Any] | None = None
    tools: list[Any] | None = None
    response: str | None = None
    tool_requests: list[Any] | None = None
    tokens: int | None = None
    usage: dict[str, Any] | None = None
    status: int | None = None
    stream: bool | None = None
    complete: bool | None = None
    error: str | None = None
    request_drift: list[str] | None = None
    #: how long the call took in a live or record run (request sent to response read), in
    #: milliseconds; volatile: a re-recording that differs only here leaves the file alone
    latency_ms: int | None = None
    exchange: Exchange | None = None
    #: a model turn of WebSocket connection ``connection`` (no ``exchange``: replay plays the connection)
    connection: int | None = None


class ToolCall(_Lenient, tag_field="type", tag="tool_call"):
    """One tool call: its name, arguments and result (any JSON), the call id, what it raised."""

    name: str | None = None
    step: int | None = None
    args: Any = None
    result: Any = None
    id: str | None = None
    error: Any = None
    #: an MCP tool call (``name`` ``mcp:<server>.<tool>``): its server and session, whether the
    #: tool reported a failure, and the ``exchange`` replay serves
    server: str | None = None
    session: int | None = None
    is_error: bool | None = None
    exchange: Exchange | None = None


class HttpCall(_Lenient, tag_field="type", tag="http"):
    """Provider traffic that is not an LLM call (file uploads, retrieve, cancel …)."""

    step: int | None = None
    provider: str | None = None
    method: str | None = None
    path: str | None = None
    status: int | None = None
    exchange: Exchange | None = None


class McpStep(_Lenient, tag_field="type", tag="mcp"):
    """MCP traffic that is not a tool call: a session's ``connect`` (its ``transport``), or one
    request (``initialize``, ``tools/list``, …) with the ``exchange`` replay serves."""

    step: int | None = None
    method: str | None = None
    server: str | None = None
    session: int | None = None
    transport: dict[str, Any] | None = None
    #: ``connect``: its rank among the sessions to the same server, in the order they were opened
    opened: int | None = None
    request_drift: list[str] | None = None
    exchange: Exchange | None = None


class WebSocketFrame(_Lenient):
    """One message of a WebSocket connection: its direction (``send``: client to server, ``recv``),
    seconds since the handshake, and ``json`` (a JSON text message, parsed; a large base64 string
    inside it as a side-file reference ``{"$blob", "sha256", "size", "base64": true}``), ``text``
    or ``binary`` (``{"$bytes_b64", "sha256"}``)."""

    dir: typing.Literal["send", "recv"]
    at: float | None = None
    json: Any = None
    #: ``"binary"``: the JSON came in a binary frame (and is replayed in one)
    frame: typing.Literal["binary"] | None = None
    text: str | None = None
    binary: BytesChunk | None = None


class WebSocketClose(_Lenient):
    """How a connection closed: who sent the close frame first, its code and reason."""

    by: typing.Literal["client", "server"]
    code: int | None = None
    reason: str | None = None


class WebSocketStep(_Lenient, tag_field="type", tag="websocket"):
    """One WebSocket connection: its URL (scrubbed), the API it speaks, the names of the headers
    it was opened with, the handshake's status and subprotocol, every message, the close — what
    replay plays back. Its model turns are ``llm_call`` steps carrying the same ``connection``."""

    connection: int
    step: int | None = None
    url: str | None = None
    api: str | None = None
    headers: list[str] | None = None
    status: int | None = None
    subprotocol: str | None = None
    frames: list[WebSocketFrame] = []
    close: WebSocketClose | None = None
    request_drift: list[str] | None = None


Step = LLMCall | ToolCall | HttpCall | McpStep | WebSocketStep


class SnapshotFile(_Lenient):
    """One snapshot file (see :mod:`agentsnap.storage.snapshot` for what each field means)."""

    trace: list[Step] = []
    version: str = "2.0"
    name: str | None = None
    approved: bool | None = None
    source: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    recorded_at: str | None = None
    agentsnap_version: str | None = None
    model: str | None = None
    input: Any = None
    output: Any = None
    comparison: dict[str, Any] | None = None
    #: a hash (BLAKE2b) binding ``trace`` to the agentsnap version and ``redact`` rules that derived it
    #: from its exchanges (:func:`agentsnap.storage.snapshot.trace_digest`)
    trace_digest: str | None = None


@functools.cache
def _at() -> re.Pattern[str]:
    return re.compile(r"^(?P<what>.*?)(?: - at `(?P<where>[^`]*)`)?$", re.DOTALL)


#: the command that prints the schema (the CLI ships with the package; docs/ does not)
SCHEMA_COMMAND = "agentsnap schema"

#: how a pytest run replaces a snapshot file agentsnap refuses to read: the clause every such
#: error's fix ends with (:func:`agentsnap.capture.remedies.format_error_here` gives a script's
#: blocks their own)
FORCED_RECORD = "`pytest --agentsnap-record --agentsnap-force` (without --agentsnap-force agentsnap never overwrites it)"

FIX = (
    f"Correct the value (the file's schema: `{SCHEMA_COMMAND}` prints it), or replace the file with a new recording: "
    f"{FORCED_RECORD}."
)

#: at most this many problems of one file are listed (the count says how many there are)
MAX_PROBLEMS = 20


def _problem(exc: msgspec.ValidationError, where: str) -> str:
    """``at JSON_PATH: WHAT`` of msgspec's error for the value at ``where``."""
    m = _at().match(str(exc))
    what = (m.group("what") if m else str(exc)).strip()
    inner = (m.group("where") if m else None) or "$"
    at = where + inner[1:]
    if re.fullmatch(r"\$\.trace\[\d+\]\.type", at):
        what += " (a step's type is one of llm_call, tool_call, http, mcp, websocket)"
    return f"at {at}: {what}"


def _struct_of(value: object, typ: object) -> type[msgspec.Struct] | None:
    """The struct ``typ`` reads the dict ``value`` as: through ``X | None``, and in a tagged
    union the member whose tag the value carries; None when there is no single one."""
    if not isinstance(value, dict):
        return None
    members = [t for t in typing.get_args(typ) if t is not type(None)] or [typ]
    structs = [t for t in members if isinstance(t, type) and issubclass(t, msgspec.Struct)]
    if len(structs) > 1:  # a tagged union: the member whose tag the value carries
        structs = [
            t
            for t in structs
            if value.get(t.__struct_config__.tag_field) == t.__struct_config__.tag
        ]
    return structs[0] if len(structs) == 1 else None


def _problems(value: Any, typ: Any, where: str = "$") -> list[str]:
    """Every wrong value under ``value`` (typed ``typ``), each ``at JSON_PATH: WHAT``: a struct's
    missing keys and its fields' problems, a list's items' problems, else ``value``'s own."""
    try:
        msgspec.convert(value, typ, strict=True)
        return []
    except msgspec.ValidationError as exc:
        own = _problem(exc, where)
    found: list[str] = []
    if isinstance(value, list) and typing.get_origin(typ) is list:
        (item,) = typing.get_args(typ)
        found = [p for i, v in enumerate(value) for p in _problems(v, item, f"{where}[{i}]")]
    elif (struct := _struct_of(value, typ)) is not None:
        for f in msgspec.structs.fields(struct):
            if f.encode_name in value:
                found += _problems(value[f.encode_name], f.type, f"{where}.{f.encode_name}")
            elif f.required:
                found.append(f"at {where}: Object missing required field `{f.encode_name}`")
    return found or [own]


def validate(data: object, path: str | Path) -> None:
    """Check a loaded snapshot document against :class:`SnapshotFile`.

    Raises :class:`~agentsnap.exceptions.SnapshotFormatError` naming every wrong
    value (the first :data:`MAX_PROBLEMS`, with the count) by its JSON path:
    ``agentsnap: PATH is not a valid snapshot: at $.trace[0].exchange.response.status: Expected `int`, got `str`. FIX``,
    or for several ``…: 3 problems:`` and one ``  at …`` line each, then ``FIX``.
    """
    try:
        msgspec.convert(data, SnapshotFile, strict=True)
        return
    except msgspec.ValidationError:
        pass
    problems = _problems(data, SnapshotFile)
    if len(problems) == 1:
        raise SnapshotFormatError(
            f"agentsnap: {path} is not a valid snapshot: {problems[0]}. {FIX}"
        ) from None
    shown = [f"  {p}" for p in problems[:MAX_PROBLEMS]]
    if len(problems) > MAX_PROBLEMS:
        shown.append(f"  … and {len(problems) - MAX_PROBLEMS} more")
    raise SnapshotFormatError(
        f"agentsnap: {path} is not a valid snapshot: {len(problems)} problems:\n"
        + "\n".join(shown)
        + f"\n{FIX}"
    ) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a snapshot file, generated from :class:`SnapshotFile`."""
    schema = msgspec.json.schema(SnapshotFile)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentsnap snapshot file",
        "description": "Generated by `agentsnap schema` from agentsnap.storage.schema.SnapshotFile; do not edit.",
        **schema,
    }


def schema_text() -> str:
    """:func:`json_schema` as the text committed in ``docs/snapshot.schema.json``."""
    import json

    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


if (
    __name__ == "__main__"
):  # pragma: no cover - `python -m agentsnap.storage.schema > docs/snapshot.schema.json`
    import sys

    sys.stdout.write(schema_text())
