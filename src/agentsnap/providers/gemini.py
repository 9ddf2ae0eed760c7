"""Codec for the Gemini ``generateContent`` wire format (google-genai SDK).

Serves ``POST …/models/<model>:generateContent`` and
``POST …/models/<model>:streamGenerateContent?alt=sse`` on the Gemini
Developer API and on Vertex AI (``…/publishers/google/models/<model>:…``),
which speak the same JSON.

Pure functions over the recorded exchange (dicts and strings); the SDK is
never imported.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import json
import re
from collections.abc import Mapping
from typing import Any

from agentsnap.providers._common import (
    NO_ERROR,
    asked_to_stream,
    is_error,
    llm_call_view,
    str_or_none,
    with_usage_details,
)
from agentsnap.providers._error_bodies import error_message
from agentsnap.providers.sse import parse_sse

__all__ = ["normalize", "tool_results"]


def normalize(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one recorded Gemini exchange into the normalised view.

    Args:
        request: ``{"method", "path", "query"?, "body": <the JSON request>}``;
            the body holds ``contents`` (``[{"role": "user" | "model",
            "parts": [{"text"} | {"functionCall"} | {"functionResponse"} |
            ...]}]``), ``systemInstruction``, ``tools``, ``generationConfig``.
        response: ``{"status", "headers", "body"}`` (one
            ``GenerateContentResponse``) or ``{"status", "headers", "chunks"}``
            for a stream: the raw ``text/event-stream`` text, one whole
            ``GenerateContentResponse`` JSON object per ``data:`` event,
            chunk boundaries anywhere. Chunks stored as bytes because the
            stream was gzip/deflate-encoded are decompressed.

    Returns:
        A new dict (nothing aliases the inputs)::

            {"provider": "google-genai",
             "model": the response's modelVersion, else the model named in
                      the path (".../models/<model>:generateContent"), else None,
             "messages": request "contents" exactly as sent ([] when absent;
                         systemInstruction and generationConfig stay in the
                         stored request body, which the request diff compares),
             "tools": function names offered (tools[].functionDeclarations[].name,
                      in order), then the kind of each built-in tool offered
                      ("googleSearch", "codeExecution", ...),
             "response": the text parts of candidate 0 joined, thought parts
                         ("thought": true) left out ("" when none),
             "tool_requests": [{"id": functionCall.id or None, "name",
                                "args": the args object ({} when absent; a JSON
                                string is parsed, a non-JSON one kept raw)}],
             "tokens": usageMetadata.totalTokenCount or None,
             "usage": {"input_tokens": promptTokenCount,
                       "output_tokens": candidatesTokenCount + thoughtsTokenCount
                                        (thinking is billed as output),
                       "total_tokens": totalTokenCount,
                       "cached_tokens": cachedContentTokenCount and
                       "reasoning_tokens": thoughtsTokenCount, each only
                       when reported} or None,
             "stream": bool, "status": int,
             "complete": bool,   # streams only
             "error": str | None}  # only when status >= 400

        Candidate 0 is the candidate whose ``index`` is 0 or absent (proto3
        JSON omits a zero index).

    Streams: each event's candidate 0 text parts are concatenated in order,
    its ``functionCall`` parts collected in order (Gemini sends each call
    whole); ``usageMetadata`` and ``modelVersion`` come from the last event
    carrying them. A call sent in pieces (Vertex AI ``streamFunctionCallArguments``:
    ``willContinue: true`` then fragments with ``partialArgs``
    ``{jsonPath, stringValue | numberValue | boolValue | nullValue, willContinue}``)
    is assembled into one request: its name and id are taken once, never
    concatenated; a string value continues the value at the same JSON path
    while the previous piece of that path said ``willContinue``. ``complete``
    is True when candidate 0 reported a ``finishReason`` (or the prompt was
    blocked, ``promptFeedback.blockReason``) and no ``{"error": ...}`` event
    ended the stream; a stream cut before that keeps what was seen. An error
    answer to a stream request (a plain JSON body, or a JSON array of
    responses when ``alt=sse`` was not asked) is read as such.

    Raises:
        Nothing for any JSON-shaped input: malformed parts are skipped.
    """
    body = request.get("body")
    req_body: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    status = response.get("status")
    streamed = "chunks" in response
    acc = _Accumulator()
    if streamed:
        _read_stream(acc, _stream_text(response), status)
    else:
        _read_body(acc, response.get("body") if "body" in response else response.get("text"))

    usage = acc.usage
    contents = req_body.get("contents")
    failed = is_error(status)
    return llm_call_view(
        "google-genai",
        model=acc.model or _model_from_path(request.get("path")),
        messages=copy.deepcopy(contents) if isinstance(contents, list) else [],
        tools=_tool_names(req_body.get("tools")),
        response="".join(acc.text),
        tool_requests=acc.calls.requests(),
        usage=usage,
        streamed=streamed or asked_to_stream(request),
        status=status,
        complete=acc.finished and not acc.stream_error and not failed,
        error=error_message(acc.error_body, one_item_list=True) if failed else NO_ERROR,
    )


def tool_results(body: object) -> list[dict[str, Any]]:
    """The function results the agent sends back in this request.

    Gemini requests repeat the whole conversation, so only the turns after
    the last ``"model"`` turn are new: their ``functionResponse`` parts, in
    order, as ``{"id": functionResponse.id or None, "name": functionResponse.name,
    "result": functionResponse.response}``. Results sent earlier in the
    conversation were reported by the request that first carried them.

    Pairing with the model's calls (done by the trace, the same for every
    codec): by ``id`` when the model gave the call one and the result carries
    it; otherwise by position — the earliest call of that ``name`` not
    answered yet. google-genai's automatic function calling never sends ids
    back, the Gemini Developer API often sends calls without ids, and some
    clients (strands-agents) answer those under an id they made up.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("contents"), list):
        return []
    contents = [c for c in body["contents"] if isinstance(c, Mapping)]
    last_model = max((i for i, c in enumerate(contents) if c.get("role") == "model"), default=-1)
    results: list[dict[str, Any]] = []
    for content in contents[last_model + 1 :]:
        parts = content.get("parts")
        for part in parts if isinstance(parts, list) else []:
            fr = part.get("functionResponse") if isinstance(part, Mapping) else None
            if not isinstance(fr, Mapping):
                continue
            results.append(
                {
                    "id": str_or_none(fr.get("id")),
                    "name": str_or_none(fr.get("name")),
                    "result": copy.deepcopy(fr.get("response")),
                }
            )
    return results


# --------------------------------------------------------------------------
# helpers


def _model_from_path(path: object) -> str | None:
    if not isinstance(path, str) or ":" not in path:
        return None
    resource = path.rsplit(":", 1)[0]
    if "/models/" in resource:
        return resource.rsplit("/models/", 1)[1] or None
    if "/tunedModels/" in resource:
        return "tunedModels/" + resource.rsplit("/tunedModels/", 1)[1]
    return resource.rsplit("/", 1)[-1] or None


def _tool_names(tools: object) -> list[str]:
    functions: list[str] = []
    builtins: list[str] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, Mapping):
            continue
        for key, value in tool.items():
            if key in ("functionDeclarations", "function_declarations"):
                for decl in value if isinstance(value, list) else []:
                    if isinstance(decl, Mapping) and isinstance(decl.get("name"), str):
                        functions.append(decl["name"])
            elif key not in builtins:
                builtins.append(key)
    return functions + builtins


def _count(meta: Mapping[str, Any], key: str) -> int | None:
    value = meta.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(meta: object) -> dict[str, Any] | None:
    if not isinstance(meta, Mapping):
        return None
    candidates = _count(meta, "candidatesTokenCount")
    thoughts = _count(meta, "thoughtsTokenCount")
    output = (
        None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0)
    )
    return with_usage_details(
        {
            "input_tokens": _count(meta, "promptTokenCount"),
            "output_tokens": output,
            "total_tokens": _count(meta, "totalTokenCount"),
        },
        cached=meta.get("cachedContentTokenCount"),
        reasoning=thoughts,
    )


def _candidate_zero(candidates: object) -> Mapping[str, Any] | None:
    for cand in candidates if isinstance(candidates, list) else []:
        if (
            isinstance(cand, Mapping)
            and cand.get("index", 0) == 0
            and not isinstance(cand.get("index"), bool)
        ):
            return cand
    return None


def _parse_args(raw: object) -> Any:
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return copy.deepcopy(raw)


# --------------------------------------------------------------------------
# function calls (whole, or streamed in pieces)

_PATH_TOKEN = re.compile(
    r"\.([A-Za-z_][A-Za-z0-9_\-]*)|\[(\d+)\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*\"((?:[^\"\\]|\\.)*)\"\s*\]"
)


def _json_path(path: str) -> list[Any] | None:
    """``"$.a.b[0]['c d']"`` -> ``["a", "b", 0, "c d"]``; None when not that simple form."""
    if not path.startswith("$"):
        return None
    steps: list[Any] = []
    pos = 1
    while pos < len(path):
        match = _PATH_TOKEN.match(path, pos)
        if match is None:
            return None
        name, index, single, double = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            steps.append(name if name is not None else (single if single is not None else double))
        pos = match.end()
    return steps


def _set_path(root: dict[str, Any], steps: list[Any], value: object) -> None:
    node: Any = root
    for step, following in zip(steps, [*steps[1:], None], strict=False):
        container: Any = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            if not isinstance(node, list):
                return
            while len(node) <= step:
                node.append(None)
            if following is None:
                node[step] = value
                return
            if not isinstance(node[step], (dict, list)):
                node[step] = container
            node = node[step]
        else:
            if not isinstance(node, dict):
                return
            if following is None:
                node[step] = value
                return
            if not isinstance(node.get(step), (dict, list)):
                node[step] = container
            node = node[step]


class _Call:
    __slots__ = ("args", "call_id", "name", "partial", "partial_open")

    def __init__(self) -> None:
        self.name: str | None = None
        self.call_id: str | None = None
        self.args: Any = None
        self.partial: dict[str, Any] = {}  # json path -> value, in arrival order
        self.partial_open: set[str] = set()  # paths whose last piece said willContinue

    def absorb(self, fc: Mapping[str, Any]) -> None:
        if self.name is None:
            self.name = str_or_none(fc.get("name"))
        if self.call_id is None:
            self.call_id = str_or_none(fc.get("id"))
        if "args" in fc and fc["args"] is not None:
            args = _parse_args(fc["args"])
            if isinstance(args, dict) and isinstance(self.args, dict):
                self.args.update(args)
            else:
                self.args = args
        pieces = fc.get("partialArgs")
        for piece in pieces if isinstance(pieces, list) else []:
            if isinstance(piece, Mapping) and isinstance(piece.get("jsonPath"), str):
                self._absorb_piece(piece)

    def _absorb_piece(self, piece: Mapping[str, Any]) -> None:
        path = piece["jsonPath"]
        if "stringValue" in piece:
            value: Any = piece["stringValue"]
            if (
                path in self.partial_open
                and isinstance(self.partial.get(path), str)
                and isinstance(value, str)
            ):
                value = self.partial[path] + value
        elif "numberValue" in piece:
            value = piece["numberValue"]
        elif "boolValue" in piece:
            value = piece["boolValue"]
        else:  # nullValue, or no value at all
            value = None
        self.partial[path] = value
        if piece.get("willContinue") is True:
            self.partial_open.add(path)
        else:
            self.partial_open.discard(path)

    def request(self) -> dict[str, Any]:
        args = copy.deepcopy(self.args) if self.args is not None else {}
        if self.partial:
            if not isinstance(args, dict):
                args = {}
            for path, value in self.partial.items():
                steps = _json_path(path)
                if steps:
                    _set_path(args, steps, copy.deepcopy(value))
                else:
                    args[path] = copy.deepcopy(value)
        return {"id": self.call_id, "name": self.name, "args": args}


class _Calls:
    """Function calls of candidate 0 in arrival order; pieces of one call merged."""

    def __init__(self) -> None:
        self.calls: list[_Call] = []
        self.open: _Call | None = None  # the call whose last piece said willContinue

    def add(self, fc: Mapping[str, Any]) -> None:
        name = str_or_none(fc.get("name"))
        call_id = str_or_none(fc.get("id"))
        call = self.open
        continues = (
            call is not None
            and (name is None or call.name is None or name == call.name)
            and (call_id is None or call.call_id is None or call_id == call.call_id)
        )
        if not continues or call is None:
            call = _Call()
            self.calls.append(call)
        call.absorb(fc)
        self.open = call if fc.get("willContinue") is True else None

    def requests(self) -> list[dict[str, Any]]:
        return [c.request() for c in self.calls]


# --------------------------------------------------------------------------
# reading responses


class _Accumulator:
    __slots__ = ("calls", "error_body", "finished", "model", "stream_error", "text", "usage")

    def __init__(self) -> None:
        self.model: str | None = None
        self.text: list[str] = []
        self.calls = _Calls()
        self.usage: dict[str, Any] | None = None
        self.finished = False
        self.stream_error = False
        self.error_body: Any = None

    def absorb(self, payload: Mapping[str, Any]) -> None:
        """One ``GenerateContentResponse`` object (a whole body, or one stream event)."""
        model = str_or_none(payload.get("modelVersion"))
        if model is not None:
            self.model = model
        usage = _usage(payload.get("usageMetadata"))
        if usage is not None:
            self.usage = usage
        feedback = payload.get("promptFeedback")
        if isinstance(feedback, Mapping) and feedback.get("blockReason"):
            self.finished = True
        cand = _candidate_zero(payload.get("candidates"))
        if cand is None:
            return
        if cand.get("finishReason"):
            self.finished = True
        content = cand.get("content")
        parts = content.get("parts") if isinstance(content, Mapping) else None
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, Mapping):
                continue
            text = part.get("text")
            if isinstance(text, str) and part.get("thought") is not True:
                self.text.append(text)
            fc = part.get("functionCall")
            if isinstance(fc, Mapping):
                self.calls.add(fc)


def _read_body(acc: _Accumulator, body: object) -> None:
    if isinstance(body, str):
        with contextlib.suppress(ValueError):  # JSON stored as text (an unexpected content-type)
            body = json.loads(body)
    acc.error_body = body
    if isinstance(body, Mapping):
        if not body.get("error"):
            acc.absorb(body)
    elif isinstance(body, list):  # a JSON array of responses (stream without alt=sse)
        for item in body:
            if isinstance(item, Mapping) and not item.get("error"):
                acc.absorb(item)


def _stream_text(response: Mapping[str, Any]) -> str:
    chunks = response.get("chunks")
    if not isinstance(chunks, list):
        return ""
    if all(isinstance(c, str) for c in chunks):
        return "".join(chunks)
    raw = b"".join(
        c.encode("utf-8") if isinstance(c, str) else base64.b64decode(str(c.get("$bytes_b64", "")))
        for c in chunks
        if isinstance(c, (str, Mapping))
    )
    encoding = _header(response.get("headers"), "content-encoding").strip().lower()
    if encoding in ("gzip", "x-gzip", "deflate"):
        raw = _inflate(raw, encoding)
    return raw.decode("utf-8", errors="replace")


def _inflate(raw: bytes, encoding: str = "gzip") -> bytes:
    """gzip / zlib (auto-detected), else raw deflate (:func:`agentsnap.storage.wire.decompress`);
    a cut stream gives what it holds, bytes in none of these nothing."""
    from ..storage.wire import decompress

    try:
        return decompress(raw, encoding)
    except (LookupError, ValueError):
        return b""


def _header(headers: object, name: str) -> str:
    items = (
        headers.items()
        if isinstance(headers, Mapping)
        else headers
        if isinstance(headers, list)
        else []
    )
    for item in items:
        if isinstance(item, (list, tuple)) and len(item) == 2 and str(item[0]).lower() == name:
            return str(item[1])
    return ""


def _read_stream(acc: _Accumulator, text: str, status: object) -> None:
    events = parse_sse(text)
    if not events:
        stripped = text.strip()
        if stripped[:1] in ("{", "["):
            try:
                body = json.loads(stripped)
            except ValueError:
                return
            _read_body(acc, body)
            acc.finished = acc.finished and not is_error(status)
        return
    for event in events:
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(payload, Mapping):
            continue
        if payload.get("error"):
            acc.error_body = payload
            acc.stream_error = True
            break
        acc.absorb(payload)


def looks_like_response(body: Mapping[str, Any]) -> bool:
    """A ``GenerateContentResponse``."""
    return isinstance(body.get("candidates"), list)
