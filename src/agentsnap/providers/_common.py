"""What every codec reads the same way: an HTTP status, a recorded JSON body, a preview of
an unusable payload, and the ``llm_call`` view each codec's ``normalize`` returns.

A leaf of the codecs (standard library only): each ``providers/<format>.py`` keeps only
what its wire format says.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "NO_ERROR",
    "Read",
    "asked_to_stream",
    "event_object",
    "is_error",
    "json_instead_of_stream",
    "llm_call_view",
    "object_body",
    "preview",
    "str_or_none",
]

PREVIEW = 80  # characters of an unusable payload quoted in a warning


class _NoError:
    def __repr__(self) -> str:
        return "NO_ERROR"


#: ``llm_call_view(error=...)`` default: the view has no ``error`` key (a value of None is kept)
NO_ERROR: Any = _NoError()


class Read:
    """What one response (streamed or not) contributed to a chat-style view: the codecs of
    the OpenAI formats (chat completions, responses, and mistral's, which is chat's) fill it."""

    __slots__ = ("complete", "error_body", "model", "text", "tool_requests", "usage")

    def __init__(self) -> None:
        self.model: str | None = None
        self.text = ""
        self.tool_requests: list[dict[str, Any]] = []
        self.usage: dict[str, Any] | None = None
        self.complete = False
        self.error_body: Any = None


def is_error(status: Any) -> bool:
    """Whether ``status`` is an HTTP error status (an int >= 400; None: no response)."""
    return isinstance(status, int) and not isinstance(status, bool) and status >= 400


def str_or_none(value: Any) -> str | None:
    """``value`` when it is a non-empty str, else None."""
    return value if isinstance(value, str) and value else None


def preview(text: str) -> str:
    """``text`` quoted for a warning, cut to :data:`PREVIEW` characters."""
    return repr(text if len(text) <= PREVIEW else text[:PREVIEW] + "...")


def object_body(body: Any, status: Any, warnings: list[str]) -> Any:
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
    status: Any,
    complete: bool = False,
    error: Any = NO_ERROR,
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
