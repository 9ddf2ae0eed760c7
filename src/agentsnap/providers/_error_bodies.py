"""The error text of a provider's error body, one reading for every codec."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["error_message"]


def error_message(body: Any, *, json_text: bool = False, one_item_list: bool = False) -> str | None:
    """The message of an error body, or None when it carries none.

    Read in this order: ``{"error": {"message": str}}`` (OpenAI, Anthropic,
    Gemini, Mistral), ``{"error": str}`` (OpenRouter, some proxies),
    ``{"message": str}`` (Cohere, Mistral's validation errors); a non-empty
    text body (an HTML or plain error page in front of the API) is its own
    message, stripped. ``json_text``: a text body holding JSON is read as
    that JSON first (Anthropic's errors recorded as text). ``one_item_list``:
    a one-item list is read as its item (Gemini's streamed errors).
    """
    if json_text and isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return body.strip() or None
    if one_item_list and isinstance(body, list) and len(body) == 1:
        body = body[0]
    if isinstance(body, Mapping):
        err = body.get("error")
        nested = err.get("message") if isinstance(err, Mapping) else None
        if isinstance(nested, str):
            return nested
        if isinstance(err, str) and err:
            return err
        top = body.get("message")
        return top if isinstance(top, str) else None
    if isinstance(body, str) and body.strip():
        return body.strip()
    return None
