"""What every codec reads the same way: an HTTP status, a recorded JSON body, a preview of
an unusable payload, the ``llm_call`` view each codec's ``normalize`` returns, and the
skeleton of a chat format's ``normalize`` (:func:`read_exchange`), into which a codec
plugs what its wire format says (:class:`ChatFormat`).

A leaf of the codecs (standard library only): each ``providers/<format>.py`` keeps only
what its wire format says.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NO_ERROR",
    "ChatFormat",
    "Read",
    "asked_to_stream",
    "event_object",
    "is_error",
    "json_instead_of_stream",
    "llm_call_view",
    "object_body",
    "openai_style_usage",
    "preview",
    "read_exchange",
    "str_or_none",
    "with_usage_details",
]

PREVIEW = 80  # characters of an unusable payload quoted in a warning


class _NoError:
    def __repr__(self) -> str:
        return "NO_ERROR"


#: ``llm_call_view(error=...)`` default: the view has no ``error`` key (a value of None is kept)
NO_ERROR: Any = _NoError()


class Read:
    """What one response (streamed or not) contributed to a chat-style view: the chat
    formats' readers fill it (OpenAI chat completions and responses, mistral's, which is
    chat's, and Cohere's v1 and v2). ``stream_error``: an error a 2xx stream reported
    in an event (Cohere's ``message-end``), which becomes the view's ``error``."""

    __slots__ = (
        "complete",
        "error_body",
        "model",
        "stream_error",
        "text",
        "tool_requests",
        "usage",
    )

    def __init__(self) -> None:
        self.model: str | None = None
        self.text = ""
        self.tool_requests: list[dict[str, Any]] = []
        self.usage: dict[str, Any] | None = None
        self.complete = False
        self.error_body: Any = None
        self.stream_error: str | None = None


#: ``reader(body_or_chunks, status, warnings) -> Read``
Reader = Callable[[Any, Any, list[str]], Read]


def _messages_as_sent(body: Mapping[str, Any]) -> list[Any]:
    messages: list[Any] = _json_copy(body.get("messages", []))
    return messages


_IMMUTABLE = (str, int, float, bool, type(None))


def _json_copy(value: Any) -> Any:
    """A copy of ``value`` as ``copy.deepcopy`` makes it, faster for what a parsed body holds
    (plain dicts and lists; strings, numbers, None and dict keys kept); any other object is
    deep-copied. One difference: an object met twice is copied twice (a parsed body never
    shares one)."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _IMMUTABLE else _json_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _IMMUTABLE else _json_copy(v) for v in value]
    if kind in _IMMUTABLE:
        return value
    return copy.deepcopy(value)


@dataclass(frozen=True)
class ChatFormat:
    """What a chat wire format says, for :func:`read_exchange`.

    ``provider``: the view's ``provider``; ``read_body`` / ``read_stream``: a
    non-streamed body / the raw SSE chunks to a :class:`Read`; ``tool_names``:
    the tools a request body offers; ``error_text``: an error body's message;
    ``messages``: the conversation of a request body (default: its ``messages``
    as sent); ``verbatim_text``: a response stored as ``"text"`` (an error body
    kept verbatim, the spec's ``[replay] verbatim_error_bodies``) is read when
    there is no ``"body"``.
    """

    provider: str
    read_body: Reader
    read_stream: Reader
    tool_names: Callable[[Mapping[str, Any]], list[str]]
    error_text: Callable[[Any], str | None]
    messages: Callable[[Mapping[str, Any]], list[Any]] = _messages_as_sent
    verbatim_text: bool = True


def read_exchange(
    fmt: ChatFormat, request: Mapping[str, Any], response: Mapping[str, Any]
) -> dict[str, Any]:
    """One recorded exchange of a chat format as its ``llm_call`` view: the ``normalize``
    every chat codec shares. The request body (``{}`` when it is not an object) gives
    the model (unless the response names it), messages and tools; a response with
    ``"chunks"`` is a stream; ``error`` is the error body's message for an HTTP error,
    else a stream's in-band error, else absent."""
    req_body = request.get("body")
    if not isinstance(req_body, Mapping):
        req_body = {}
    status = response.get("status")
    warnings: list[str] = []
    streamed = "chunks" in response
    if streamed:
        read = fmt.read_stream(response.get("chunks") or [], status, warnings)
    else:
        verbatim = fmt.verbatim_text and "body" not in response
        read = fmt.read_body(
            response.get("text") if verbatim else response.get("body"), status, warnings
        )
    error: Any = NO_ERROR
    if is_error(status):
        error = fmt.error_text(read.error_body)
    elif read.stream_error is not None:
        error = read.stream_error
    return llm_call_view(
        fmt.provider,
        model=read.model or str_or_none(req_body.get("model")),
        messages=fmt.messages(req_body),
        tools=fmt.tool_names(req_body),
        response=read.text,
        tool_requests=read.tool_requests,
        usage=read.usage,
        streamed=streamed or asked_to_stream(request),
        status=status,
        complete=read.complete,
        error=error,
        warnings=warnings,
    )


def is_error(status: object) -> bool:
    """Whether ``status`` is an HTTP error status (an int >= 400; None: no response)."""
    return isinstance(status, int) and not isinstance(status, bool) and status >= 400


def str_or_none(value: object) -> str | None:
    """``value`` when it is a non-empty str, else None."""
    return value if isinstance(value, str) and value else None


def preview(text: str) -> str:
    """``text`` quoted for a warning, cut to :data:`PREVIEW` characters."""
    return repr(text if len(text) <= PREVIEW else text[:PREVIEW] + "...")


def object_body(body: object, status: object, warnings: list[str]) -> Any:
    """A recorded non-streamed response body as a codec reads it.

    A JSON object stored as text (an unexpected content-type, an error body kept
    verbatim) is parsed; anything else is returned as it is. A success answer
    without a JSON object adds ``"response has no body"`` or ``"response has a body
    that is not a JSON object: '…'"`` to ``warnings`` (an error answer's body may be
    anything). The caller reads the result only when it is a ``Mapping``.
    """
    if isinstance(body, str):
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, Mapping):
            body = parsed
    if not isinstance(body, Mapping) and not is_error(status):
        what = (
            "no body" if body is None else f"a body that is not a JSON object: {preview(str(body))}"
        )
        warnings.append(f"response has {what}")
    return body


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def with_usage_details(
    usage: dict[str, Any] | None, *, cached: object = None, reasoning: object = None
) -> dict[str, Any] | None:
    """``usage`` with ``cached_tokens`` (input tokens read from the provider's prompt cache)
    and ``reasoning_tokens`` (output tokens spent thinking) added, each only when the provider
    reported it as a whole number: an absent count stays absent, so a golden recorded from a
    response without them keeps its bytes. Returns ``usage`` (None stays None)."""
    if usage is None:
        return None
    for key, value in (("cached_tokens", cached), ("reasoning_tokens", reasoning)):
        count = _count(value)
        if count is not None:
            usage[key] = count
    return usage


def openai_style_usage(raw: object, given: str, produced: str) -> dict[str, Any] | None:
    """The normalised usage of an OpenAI-style ``usage`` object whose input and output counts
    are ``{given}_tokens`` / ``{produced}_tokens`` (chat: ``prompt`` / ``completion``; the
    Responses API: ``input`` / ``output``), with the ``cached_tokens`` of its
    ``{given}_tokens_details`` and the ``reasoning_tokens`` of its ``{produced}_tokens_details``
    when reported (:func:`with_usage_details`)."""
    if not isinstance(raw, Mapping):
        return None
    given_details = raw.get(f"{given}_tokens_details")
    produced_details = raw.get(f"{produced}_tokens_details")
    return with_usage_details(
        {
            "input_tokens": raw.get(f"{given}_tokens"),
            "output_tokens": raw.get(f"{produced}_tokens"),
            "total_tokens": raw.get("total_tokens"),
        },
        cached=given_details.get("cached_tokens") if isinstance(given_details, Mapping) else None,
        reasoning=(
            produced_details.get("reasoning_tokens")
            if isinstance(produced_details, Mapping)
            else None
        ),
    )


def asked_to_stream(request: Mapping[str, Any]) -> bool:
    """Whether a recorded request asked for a streamed answer: ``"stream": true`` in its
    JSON body, or a ``:stream…`` path (Gemini's ``:streamGenerateContent``). The view's
    ``stream`` says this even when the answer came back as one JSON body (an HTTP error
    to a stream request)."""
    body = request.get("body")
    if isinstance(body, Mapping) and body.get("stream") is True:
        return True
    return ":stream" in str(request.get("path") or "")


def llm_call_view(
    provider: str,
    *,
    model: str | None,
    messages: list[Any],
    tools: list[str],
    response: str,
    tool_requests: list[dict[str, Any]],
    usage: dict[str, Any] | None,
    streamed: bool,
    status: object,
    complete: bool = False,
    error: object = NO_ERROR,
    warnings: list[str] | None = None,
) -> dict[str, Any]:
    """The ``llm_call`` view of one exchange, in the key order every codec returns
    (see :class:`agentsnap.providers.Codec`): ``provider, model, messages, tools,
    response, tool_requests, tokens`` (``usage["total_tokens"]``), ``usage, stream,
    status``, then ``complete`` for a stream, ``error`` unless :data:`NO_ERROR`, and
    ``warnings`` when there are any."""
    view: dict[str, Any] = {
        "provider": provider,
        "model": model,
        "messages": messages,
        "tools": tools,
        "response": response,
        "tool_requests": tool_requests,
        "tokens": usage["total_tokens"] if usage is not None else None,
        "usage": usage,
        "stream": streamed,
        "status": status,
    }
    if streamed:
        view["complete"] = complete
    if error is not NO_ERROR:
        view["error"] = error
    if warnings:
        view["warnings"] = warnings
    return view


def json_instead_of_stream(text: str, events: list[Any]) -> Mapping[str, Any] | None:
    """The JSON object a stream request was answered with instead of events (an HTTP
    error, or a server that ignored ``stream: true``), else None. ``events``: what the
    codec parsed out of ``text`` (a JSON answer has none)."""
    if events or not text.lstrip().startswith("{"):
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    return body if isinstance(body, Mapping) else None


def event_object(data: str, where: str, warnings: list[str]) -> Mapping[str, Any] | None:
    """A stream event's data as the JSON object it should be, else None with a warning
    (``"<where>: data is not JSON: '…'"`` / ``"… is not a JSON object: '…'"``)."""
    try:
        payload = json.loads(data)
    except ValueError:
        warnings.append(f"{where}: data is not JSON: {preview(data)}")
        return None
    if not isinstance(payload, Mapping):
        warnings.append(f"{where}: data is not a JSON object: {preview(data)}")
        return None
    return payload
