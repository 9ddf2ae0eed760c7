"""A fake Gemini API (``generateContent`` / ``streamGenerateContent``) on 127.0.0.1.

Drives the real ``google-genai`` SDK in tests::

    with FakeGemini() as fake:
        fake.script(text_reply("hi"))
        client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=fake.base_url))
        client.models.generate_content(model="gemini-2.5-flash", contents="hello")

Wire format, as the Gemini Developer API sends it:

* ``POST /v1/models/<model>:generateContent`` (or ``/v1beta/...``) answers one
  ``GenerateContentResponse`` JSON object: ``{"candidates": [{"content":
  {"parts": [...], "role": "model"}, "finishReason", "index"}],
  "usageMetadata": {"promptTokenCount", "candidatesTokenCount",
  "totalTokenCount", "promptTokensDetails"}, "modelVersion", "responseId"}``.
* ``POST /v1/models/<model>:streamGenerateContent?alt=sse`` answers
  ``text/event-stream``: one ``data: <GenerateContentResponse>\\r\\n\\r\\n``
  event per HTTP chunk; the last one carries ``finishReason``.
* Errors: ``{"error": {"code", "message", "status"}}`` with the HTTP status.

Stdlib only; built on :class:`tests.fake_provider.FakeProvider`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from tests.fake_provider import FakeProvider, RecordedRequest, Reply

__all__ = [
    "MODEL",
    "FakeGemini",
    "error_reply",
    "function_call_reply",
    "stream_reply",
    "stream_text_reply",
    "text_reply",
]

MODEL = "gemini-2.5-flash"

#: (name, args, id or None)
Call = tuple[str, dict, "str | None"]

_ERROR_STATUS = {
    400: "INVALID_ARGUMENT",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


class FakeGemini(FakeProvider):
    """The fake Gemini API; ``base_url`` is what ``HttpOptions(base_url=...)`` takes."""

    label = "FakeGemini"
    routes = (
        ("POST", "/v1/models/*"),
        ("POST", "/v1beta/models/*"),
        (
            "POST",
            "/v1/projects/*",
        ),  # Vertex AI: .../locations/L/publishers/google/models/M:generateContent
        ("POST", "/v1beta1/projects/*"),
    )

    def wants_stream(self, request: RecordedRequest) -> bool:
        return request.path.endswith(":streamGenerateContent")

    @property
    def base_url(self) -> str:
        """``"http://127.0.0.1:<port>/"`` -- the SDK appends ``v1/models/...``."""
        return f"{self.origin}/"


def _response_id(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:22]


def _usage(prompt: int, output: int) -> dict:
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
    }


def _response(
    parts: list, *, finish: str | None, usage: tuple[int, int] | None, model: str, response_id: str
) -> dict:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate]}
    if usage is not None:
        body["usageMetadata"] = _usage(*usage)
    body["modelVersion"] = model
    body["responseId"] = response_id
    return body


def _call_part(name: str, args: dict, call_id: str | None) -> dict:
    call: dict[str, Any] = {"name": name, "args": args}
    if call_id is not None:
        call["id"] = call_id
    return {"functionCall": call}


def text_reply(
    text: str,
    *,
    model: str = MODEL,
    usage: tuple[int, int] = (8, 4),
    response_id: str | None = None,
) -> Reply:
    """A plain answer: one text part, ``finishReason: STOP``."""
    body = _response(
        [{"text": text}],
        finish="STOP",
        usage=usage,
        model=model,
        response_id=response_id or _response_id(text),
    )
    return Reply(body=body)


def function_call_reply(
    calls: Sequence[Call],
    *,
    text: str | None = None,
    model: str = MODEL,
    usage: tuple[int, int] = (20, 6),
    response_id: str | None = None,
) -> Reply:
    """The model calls functions: ``calls = [("get_weather", {"city": "Paris"}, None), ...]``."""
    parts: list = [{"text": text}] if text else []
    parts += [_call_part(name, args, cid) for name, args, cid in calls]
    seed = json.dumps(calls, sort_keys=True)
    return Reply(
        body=_response(
            parts,
            finish="STOP",
            usage=usage,
            model=model,
            response_id=response_id or _response_id(seed),
        )
    )


def stream_reply(events: Iterable[dict]) -> Reply:
    """A stream of whole ``GenerateContentResponse`` objects, one SSE event (and HTTP chunk) each."""
    frames = tuple(f"data: {json.dumps(event, separators=(',', ':'))}\r\n\r\n" for event in events)
    return Reply(events=frames, content_type="text/event-stream")


def stream_text_reply(
    pieces: Sequence[str],
    *,
    calls: Sequence[Call] = (),
    model: str = MODEL,
    usage: tuple[int, int] = (8, 4),
    response_id: str | None = None,
) -> Reply:
    """A streamed answer: one text piece per event, then the ``calls`` (one event each),
    ``finishReason: STOP`` and the full usage on the last event."""
    rid = response_id or _response_id("|".join(pieces))
    parts: list[list] = [[{"text": p}] for p in pieces] + [[_call_part(*c)] for c in calls]
    events = []
    for n, part in enumerate(parts):
        last = n == len(parts) - 1
        partial_usage = usage if last else (usage[0], 0)
        events.append(
            _response(
                part,
                finish="STOP" if last else None,
                usage=partial_usage,
                model=model,
                response_id=rid,
            )
        )
    return stream_reply(events)


def error_reply(status: int, message: str | None = None) -> Reply:
    """A Gemini API error: ``{"error": {"code", "message", "status"}}``."""
    error = {
        "code": status,
        "message": message or f"Fake Gemini error {status}.",
        "status": _ERROR_STATUS.get(status, "UNKNOWN"),
    }
    return Reply(status=status, body={"error": error})
