"""Snapshots written by agentsnap 0.5.1: what replay and comparison need from them.

0.5.1 (format ``"1.0"`` / ``"1.1"``) stored no HTTP exchange. Each ``llm_call``
step kept ``raw_response``: the SDK object's ``model_dump()`` (a
``ChatCompletion``, an Anthropic ``Message``, a Responses ``Response``), or for a
stream ``{"__stream__": true, "chunks": [<model_dump of each chunk / event>]}``.
A ``model_dump`` is the wire JSON the SDK parsed (plus the optional fields it
filled with ``null``), so it can be served again as that response:

* a chat completion, message or response: a ``200`` JSON body;
* a stream: ``text/event-stream``, one SSE event per stored chunk — OpenAI chat
  as ``data: <chunk>`` lines ended by ``data: [DONE]``, Anthropic and Responses
  events as ``event: <type>`` + ``data: <event>``.

The SDK's own parser then builds the objects 0.5.1 users got. 0.5.1 matched
recorded calls by position (no request key), and so does replay of these
steps: the next unplayed one is served if it was recorded for the same
endpoint (``/chat/completions``, ``/messages``, ``/responses``).

0.5.1 also stored each call's ``messages`` as the list object the agent passed,
so a list the agent extended after the call was written with its later
messages: :func:`messages_match` compares a new request's messages with the
recorded ones on that basis (the recorded list starts with the new one).

Nothing here rewrites a file: the conversion happens when a replay cassette is
built (:class:`agentsnap.capture.cassette.Cassette`).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "ENDPOINTS",
    "LegacyStep",
    "from_toolscore",
    "is_legacy_version",
    "is_toolscore",
    "legacy_exchange",
    "messages_match",
]

#: the request path suffix each kind of recorded response answers
ENDPOINTS = {
    "openai_chat": "/chat/completions",
    "anthropic_messages": "/messages",
    "openai_responses": "/responses",
}


def is_legacy_version(version: object) -> bool:
    """Whether a snapshot's ``version`` is one agentsnap 0.5.1 wrote (``1.x``)."""
    return isinstance(version, str) and version.startswith("1.")


class LegacyStep:
    """Why a 0.5.1 ``llm_call`` step cannot be served, or what to serve for it.

    ``exchange``: ``{"request": {...}, "response": {...}}`` in the current
    stored form, or None with ``problem`` saying what the step lacks.
    ``kind``: one of :data:`ENDPOINTS`' keys (None when unknown).
    """

    def __init__(
        self,
        step_no: object,
        kind: str | None,
        exchange: dict[str, Any] | None,
        problem: str | None,
    ) -> None:
        self.step_no = step_no
        self.kind = kind
        self.exchange = exchange
        self.problem = problem


def _kind(raw: dict[str, Any]) -> str | None:
    obj, typ = raw.get("object"), raw.get("type")
    if obj in ("chat.completion", "chat.completion.chunk"):
        return "openai_chat"
    if obj == "response" or (isinstance(typ, str) and typ.startswith("response.")):
        return "openai_responses"
    if typ in (
        "message",
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    ):
        return "anthropic_messages"
    if isinstance(raw.get("choices"), list):
        return "openai_chat"
    if isinstance(raw.get("content"), list) and raw.get("role") == "assistant":
        return "anthropic_messages"
    return None


def _sse(kind: str, chunks: list[Any]) -> list[str]:
    out = []
    for chunk in chunks:
        data = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
        if kind == "openai_chat":
            out.append(f"data: {data}\n\n")
        else:
            event = chunk.get("type") if isinstance(chunk, dict) else None
            out.append(
                (f"event: {event}\n" if isinstance(event, str) else "") + f"data: {data}\n\n"
            )
    if kind == "openai_chat":
        out.append("data: [DONE]\n\n")
    return out


def legacy_exchange(step: dict[str, Any]) -> LegacyStep:
    """The exchange to serve for one 0.5.1 ``llm_call`` step (see module doc)."""
    step_no = step.get("step")
    raw = step.get("raw_response")
    if not isinstance(raw, dict) or not raw:
        return LegacyStep(
            step_no,
            None,
            None,
            "has no raw_response (0.5.1 kept only its text: written before 0.5.1 stored raw "
            "responses, or by a provider 0.5.1 could not replay)",
        )
    request = {"method": "POST", "path": None, "body": None, "legacy": True}
    if raw.get("__stream__") is True:
        chunks = raw.get("chunks")
        if (
            not isinstance(chunks, list)
            or not chunks
            or not all(isinstance(c, dict) for c in chunks)
        ):
            return LegacyStep(
                step_no, None, None, "holds a streamed raw_response without its chunks"
            )
        kind = _kind(chunks[0])
        if kind is None:
            return LegacyStep(
                step_no,
                None,
                None,
                "holds a streamed raw_response of a provider replay does not know",
            )
        response = {
            "status": 200,
            "headers": {"content-type": "text/event-stream"},
            "chunks": _sse(kind, chunks),
        }
        return LegacyStep(step_no, kind, {"request": request, "response": response}, None)
    kind = _kind(raw)
    if kind is None:
        return LegacyStep(
            step_no,
            None,
            None,
            "holds a raw_response of a provider replay does not know (0.5.1 replayed "
            "only OpenAI and Anthropic)",
        )
    response = {"status": 200, "headers": {"content-type": "application/json"}, "body": raw}
    return LegacyStep(step_no, kind, {"request": request, "response": response}, None)


def messages_match(recorded: object, new: object) -> bool:
    """Whether a new request's ``messages`` agree with what 0.5.1 recorded for that call.

    Equal, or the recorded list starts with the new one (0.5.1 kept the
    caller's list, which the agent may have extended after the call).
    """
    if recorded == new:
        return True
    return (
        isinstance(recorded, list)
        and isinstance(new, list)
        and len(new) <= len(recorded)
        and recorded[: len(new)] == new
    )


def is_toolscore(data: object) -> bool:
    """Whether a parsed file is a toolscore snapshot (``schema_version`` + ``calls``, no ``trace``)."""
    return (
        isinstance(data, dict)
        and "trace" not in data
        and "calls" in data
        and "schema_version" in data
    )


def from_toolscore(data: dict[str, Any], where: object) -> dict[str, Any]:
    """A toolscore snapshot (``{"schema_version": 1, "name", "calls": [{"tool", "args"}], "approved",
    "source", "created_at", "updated_at", "toolscore_version"}``) as an agentsnap snapshot dict: one
    ``tool_call`` step per call, in order (what the one-line ``snapshot(actual)`` form stores).

    Raises ``ValueError`` naming ``where`` and the bad entry when ``calls`` is
    not a list of ``{"tool": str, "args": ...}`` objects, or the schema version
    is not 1 — a file is loaded whole or refused, never with its calls dropped.
    """
    version = data.get("schema_version")
    if version != 1:
        raise ValueError(
            f"{where} is a toolscore snapshot of schema_version {version!r}; agentsnap reads schema_version 1"
        )
    calls = data.get("calls")
    if not isinstance(calls, list):
        raise ValueError(f"{where} is a toolscore snapshot whose 'calls' is not a list")
    steps = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str) or not call["tool"]:
            raise ValueError(
                f'{where}: calls[{i}] is not a toolscore call {{"tool": name, "args": {{...}}}}: {call!r:.80}'
            )
        steps.append(
            {"step": i, "type": "tool_call", "name": call["tool"], "args": call.get("args", {})}
        )
    out: dict[str, Any] = {
        key: data[key]
        for key in ("name", "approved", "source", "created_at", "updated_at")
        if key in data
    }
    out.update(
        {
            "version": "2.0",
            "trace": steps,
            "output": None,
            "agentsnap_version": f"toolscore {data.get('toolscore_version') or '(unknown)'}",
        }
    )
    return out
