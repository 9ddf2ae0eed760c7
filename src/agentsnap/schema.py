"""The schema of the snapshot file, checked on every load (msgspec).

Every field's type, the step kinds (``llm_call``, ``tool_call``, ``http``,
told apart by ``type``) and the shape of the raw ``exchange`` replay serves.
Strict about types — ``"approved": "false"`` is a string, not a boolean, and
is refused rather than read as ``bool("false") is True`` — and lenient about
keys it does not know (a newer agentsnap, a codec's extra view fields, a
reviewer's note), so files written by agentsnap 0.5.1 (format ``1.x``: no
review fields, steps with ``step``/``type``/``messages``/``response``/
``tokens`` or ``name``/``args``/``result``) keep loading.

:func:`validate` raises :class:`~agentsnap.exceptions.SnapshotFormatError`
naming the file, the JSON path of the first bad value, what was expected, and
the fix. The published JSON Schema (``docs/snapshot.schema.json``, for
editors and other tools) is :func:`json_schema`; regenerate it with
``python -m agentsnap.schema > docs/snapshot.schema.json``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from .exceptions import SnapshotFormatError

__all__ = ["SnapshotFile", "json_schema", "schema_text", "validate"]


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
    exchange: Exchange | None = None


class ToolCall(_Lenient, tag_field="type", tag="tool_call"):
    """One tool call: its name, arguments and result (any JSON), the call id, what it raised."""

    name: str | None = None
    step: int | None = None
    args: Any = None
    result: Any = None
    id: str | None = None
    error: Any = None


class HttpCall(_Lenient, tag_field="type", tag="http"):
    """Provider traffic that is not an LLM call (file uploads, retrieve, cancel …)."""

    step: int | None = None
    provider: str | None = None
    method: str | None = None
    path: str | None = None
    status: int | None = None
    exchange: Exchange | None = None


Step = LLMCall | ToolCall | HttpCall


class SnapshotFile(_Lenient):
    """One snapshot file (see :mod:`agentsnap.snapshot` for what each field means)."""

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


_AT = re.compile(r"^(?P<what>.*?)(?: - at `(?P<where>[^`]*)`)?$", re.DOTALL)

FIX = (
    "Correct that value (the file's schema: docs/snapshot.schema.json), or replace the file with a new recording: "
    "`pytest --agentsnap-record --agentsnap-force` (without --agentsnap-force agentsnap never overwrites it)."
)


def validate(data: Any, path: str | Path) -> None:
    """Check a loaded snapshot document against :class:`SnapshotFile`.

    Raises :class:`~agentsnap.exceptions.SnapshotFormatError`:
    ``agentsnap: PATH is not a valid snapshot: at $.trace[0].exchange.response.status: Expected `int`, got `str`. FIX``.
    """
    try:
        msgspec.convert(data, SnapshotFile, strict=True)
    except msgspec.ValidationError as exc:
        m = _AT.match(str(exc))
        what = (m.group("what") if m else str(exc)).strip()
        where = (m.group("where") if m else None) or "$"
        if re.fullmatch(r"\$\.trace\[\d+\]\.type", where):
            what += " (a step's type is one of llm_call, tool_call, http)"
        raise SnapshotFormatError(
            f"agentsnap: {path} is not a valid snapshot: at {where}: {what}. {FIX}"
        ) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a snapshot file, generated from :class:`SnapshotFile`."""
    schema = msgspec.json.schema(SnapshotFile)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentsnap snapshot file",
        "description": "Generated by `python -m agentsnap.schema` from agentsnap.schema.SnapshotFile; do not edit.",
        **schema,
    }


def schema_text() -> str:
    """:func:`json_schema` as the text committed in ``docs/snapshot.schema.json``."""
    import json

    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


if (
    __name__ == "__main__"
):  # pragma: no cover - `python -m agentsnap.schema > docs/snapshot.schema.json`
    import sys

    sys.stdout.write(schema_text())
