"""Codecs: one per LLM wire format.

A codec is a pure function ``normalize(request, response) -> dict`` that turns
one raw recorded HTTP exchange into the normalised view a reviewer reads and
the diff compares. Codec modules are imported only when first asked for, so
importing this package costs nothing.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import Any

from agentsnap.providers.sse import SSEEvent, parse_sse

__all__ = [
    "Codec",
    "SSEEvent",
    "codec_for_response",
    "codec_names",
    "get_codec",
    "get_tool_results",
    "parse_sse",
]

Codec = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
"""``normalize(request, response) -> view``; see each codec module for the shapes."""

# A codec called NAME is the module agentsnap.providers.NAME with a
# ``normalize`` function (and optionally ``tool_results``). Names are what
# patches/<provider>.toml refer to. Modules here that are not codecs:
_NOT_CODECS = frozenset({"sse"})


def codec_names() -> list[str]:
    """Return the registered codec names (the codec modules of this package), sorted."""
    return list(_names())


@functools.lru_cache(maxsize=1)
def _names() -> tuple[str, ...]:
    import pkgutil

    return tuple(
        sorted(
            m.name
            for m in pkgutil.iter_modules(__path__)
            if not m.name.startswith("_") and m.name not in _NOT_CODECS
        )
    )


def _module(name: str) -> Any:
    if not isinstance(name, str) or name not in _names():
        known = ", ".join(repr(n) for n in codec_names())
        raise KeyError(f"unknown codec {name!r}; known codecs: {known}")
    return importlib.import_module(f"{__name__}.{name}")


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
    codec: Codec = _module(name).normalize
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
    return getattr(_module(name), "tool_results", None)


def __getattr__(name: str) -> Any:
    if name == "RESPONSE_CODECS":
        return response_codecs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _response_codecs(specs: tuple[Any, ...]) -> tuple[str, ...]:
    named = dict.fromkeys(codec for spec in specs for _, codec in spec.endpoints)
    return tuple(n for n in named if n in _names() and hasattr(_module(n), "looks_like_response"))


def response_codecs() -> tuple[str, ...]:
    """The codecs :func:`codec_for_response` asks, in order (also ``RESPONSE_CODECS``): those
    the provider specs' ``[[endpoints]]`` name, in spec-file order, that declare a response
    shape (``looks_like_response``; mistral_chat reads the openai_chat shape, so it does
    not). Their shapes exclude each other (tests/test_codec_registry.py), so the order
    decides nothing for a real response. Imports those codec modules."""
    from ..spec.provider_specs import load_specs

    return _response_codecs(load_specs())


def codec_for_response(body: object, among: tuple[str, ...] | None = None) -> str | None:
    """The codec whose response body ``body`` looks like (each codec's ``looks_like_response``),
    asked in the order of ``among`` (default :func:`response_codecs`); None for anything
    else (a non-mapping included).

    Used where a provider's body arrives without its request: ``extract_tool_calls`` and
    ``agentsnap record --from-trace``. Imports the codec modules it asks.
    """
    if not isinstance(body, Mapping):
        return None
    for name in response_codecs() if among is None else among:
        if _module(name).looks_like_response(body):
            return name
    return None
