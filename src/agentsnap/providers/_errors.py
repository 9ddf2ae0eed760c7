"""The error text of a provider's error body, one reading for every codec."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["error_message"]


def error_message(body: Any, *, plain_text: bool = False) -> str | None:
    """The message of an error body, or None when it carries none.

    Read in this order: ``{"error": {"message": str}}`` (OpenAI, Anthropic,
    Gemini, Mistral), ``{"error": str}`` (OpenRouter, some proxies),
    ``{"message": str}`` (Cohere, Mistral's validation errors). With
    ``plain_text``, a non-empty text body (an HTML or plain error page in
    front of the API) is its own message, stripped.
    """
    if isinstance(body, Mapping):
        err = body.get("error")
        nested = err.get("message") if isinstance(err, Mapping) else None
        if isinstance(nested, str):
            return nested
        if isinstance(err, str) and err:
            return err
        top = body.get("message")
        return top if isinstance(top, str) else None
    if plain_text and isinstance(body, str) and body.strip():
        return body.strip()
    return None
