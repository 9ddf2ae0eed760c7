"""Codecs: one per LLM wire format.

A codec is a pure function ``normalize(request, response) -> dict`` that turns
one raw recorded HTTP exchange into the normalised view a reviewer reads and
the diff compares. Codec modules are imported only when first asked for, so
importing this package costs nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agentsnap.providers.sse import SSEEvent, parse_sse

__all__ = ["Codec", "SSEEvent", "codec_names", "get_codec", "get_tool_results", "parse_sse"]

Codec = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
"""``normalize(request, response) -> view``; see each codec module for the shapes."""

# codec name -> "module:function". Names are what patches/<provider>.toml refer to.
_CODECS: dict[str, str] = {
    "openai_chat": "agentsnap.providers.openai_chat:normalize",
}


def codec_names() -> list[str]:
    """Return the registered codec names, sorted."""
    return sorted(_CODECS)


def get_codec(name: str) -> Codec:
    """Return the normalise function of the codec called *name*.

    The codec's module is imported on first use (later calls hit the module
    cache), so no codec's dependencies load until a recording needs it.

    Args:
        name: a registered codec name, e.g. ``"openai_chat"`` for the OpenAI
            chat-completions format (also groq, OpenRouter and other
            OpenAI-compatible servers).

    Returns:
        ``normalize(request: dict, response: dict) -> dict``.

    Raises:
        KeyError: *name* is not registered; the message lists the known codecs.
    """
    try:
        target = _CODECS[name]
    except (KeyError, TypeError):
        known = ", ".join(repr(n) for n in codec_names())
        raise KeyError(f"unknown codec {name!r}; known codecs: {known}") from None
    module_name, _, attr = target.partition(":")
    codec: Codec = getattr(importlib.import_module(module_name), attr)
    return codec


ToolResults = Callable[[Any], list[dict[str, Any]]]
"""``tool_results(request_body) -> [{"id": str, "result": Any}, ...]``."""


def get_tool_results(name: str) -> ToolResults | None:
    """The codec's ``tool_results`` function, or None when it has none.

    ``tool_results(request_body)`` lists the tool results an agent sent back
    in one request, in order: ``[{"id": <the tool call id the model gave>,
    "result": <what the agent sent>}]``. The trace pairs them with the tool
    calls the model requested earlier to build ``tool_call`` steps.

    Raises:
        KeyError: *name* is not registered (as :func:`get_codec`).
    """
    get_codec(name)  # validates the name, imports the module
    module_name = _CODECS[name].partition(":")[0]
    return getattr(importlib.import_module(module_name), "tool_results", None)
