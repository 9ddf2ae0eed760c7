"""Explicit adapters: scope a recording to particular clients, graphs and tools.

agentsnap needs no adapter: inside ``AgentRecorder`` / ``AgentAsserter`` (or
with ``--agentsnap-instrument``) every call of every supported SDK is
captured at the HTTP layer. Adapters are for narrowing that down::

    from agentsnap import AgentRecorder
    from agentsnap.adapters import OpenAIAdapter, ToolAdapter

    client = OpenAIAdapter(openai.OpenAI())          # behaves exactly like the client
    search = ToolAdapter(search_fn, name="search")   # records each call as a tool_call step

    with AgentRecorder("my_agent", adapters=[client, search]) as rec:
        rec.output = my_agent(client, search, "What is Python?")

Given ``adapters=[...]``, a recording (``AgentRecorder`` or ``AgentAsserter``)
records only the LLM traffic of the clients those adapters wrap (and of the
graphs a listed :class:`LangGraphAdapter` runs) and the calls of the listed
ToolAdapters; any other request of a supported SDK made inside the block
raises :class:`~agentsnap.exceptions.AdapterNotWrappedError` naming that
client, before anything is sent. Only ``adapters=`` turns scoping on: an
adapter merely created or used inside a block changes nothing there (without
``adapters=`` every SDK call is recorded, and every ToolAdapter called
reports its calls).

=====================  ==========================================================
adapter                wraps
=====================  ==========================================================
``OpenAIAdapter``      ``openai.OpenAI`` / ``AsyncOpenAI`` / Azure, ``ChatOpenAI``
``OpenRouterAdapter``  an ``openai`` client with OpenRouter's ``base_url``
``AnthropicAdapter``   ``anthropic.Anthropic`` / ``AsyncAnthropic``, ``ChatAnthropic``
``GeminiAdapter``      ``google.genai.Client``
``CohereAdapter``      ``cohere.ClientV2`` / ``Client`` (sync and async)
``MistralAdapter``     ``mistralai.client.Mistral``
``GroqAdapter``        ``groq.Groq`` / ``AsyncGroq``
``LangGraphAdapter``   a compiled LangGraph graph (any LangChain ``Runnable``)
``ToolAdapter``        any Python function, sync or async
=====================  ==========================================================

:func:`wrap` picks the adapter from the object's class. Importing this
package imports no SDK.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import urlsplit

from ._base import ClientAdapter, find_http_clients
from ._scope import AdapterScope, is_adapter
from .anthropic import AnthropicAdapter
from .cohere import CohereAdapter
from .google import GeminiAdapter
from .groq import GroqAdapter
from .langgraph import LangGraphAdapter
from .mistral import MistralAdapter
from .openai import OpenAIAdapter
from .openrouter import OPENROUTER_BASE_URL, OpenRouterAdapter
from .tool import ToolAdapter

__all__ = [
    "OPENROUTER_BASE_URL",
    "AdapterScope",
    "AnthropicAdapter",
    "ClientAdapter",
    "CohereAdapter",
    "GeminiAdapter",
    "GroqAdapter",
    "LangGraphAdapter",
    "MistralAdapter",
    "OpenAIAdapter",
    "OpenRouterAdapter",
    "ToolAdapter",
    "find_http_clients",
    "is_adapter",
    "wrap",
]


def _adapter_class(name: str) -> type:
    cls = globals()[name]
    assert isinstance(cls, type)
    return cls


@functools.cache
def _by_module() -> tuple[tuple[str, type], ...]:
    """Module prefix of a class in the object's MRO -> adapter: each spec's
    ``[adapter] client_modules`` (:mod:`agentsnap.spec.provider_facts`), then LangGraph."""
    from ..spec.provider_facts import provider_facts

    pairs = [
        (module, _adapter_class(facts.adapter))
        for facts in provider_facts()
        if facts.adapter
        for module in facts.client_modules
    ]
    return (*pairs, ("langgraph", LangGraphAdapter))


def _adapter_for(cls: type) -> type | None:
    by_module = _by_module()
    for klass in cls.__mro__:
        module = getattr(klass, "__module__", "") or ""
        for prefix, adapter in by_module:
            if module == prefix or module.startswith(prefix + "."):
                return adapter
    return None


def _is_openrouter(obj: Any) -> bool:
    for attr in ("base_url", "openai_api_base"):
        value = getattr(obj, attr, None)
        if value:
            host = urlsplit(str(value)).hostname or ""
            return host == "openrouter.ai" or host.endswith(".openrouter.ai")
    return False


def wrap(obj: Any, *, name: str | None = None) -> Any:
    """The adapter for ``obj``, chosen by its class.

    SDK clients (and LangChain chat models) get their provider's adapter — an
    ``openai`` client whose ``base_url`` is OpenRouter's gets
    :class:`OpenRouterAdapter`; compiled LangGraph graphs get
    :class:`LangGraphAdapter`; any other callable gets ``ToolAdapter(obj, name=name)``.
    An adapter is returned as is. Raises ``TypeError`` for anything else.
    """
    if is_adapter(obj):
        return obj
    adapter = _adapter_for(type(obj))
    if adapter is OpenAIAdapter and _is_openrouter(obj):
        adapter = OpenRouterAdapter
    if adapter is None and callable(getattr(obj, "invoke", None)) and _adapter_for_runnable(obj):
        adapter = LangGraphAdapter
    if adapter is not None:
        return adapter(obj)
    if callable(obj):
        return ToolAdapter(obj, name=name)
    raise TypeError(
        f"agentsnap: no adapter for {type(obj).__module__}.{type(obj).__qualname__}: wrap() takes an openai, anthropic, "
        "google-genai, cohere, mistralai or groq client, a LangChain chat model, a LangGraph graph, or a tool function"
    )


def _adapter_for_runnable(obj: Any) -> bool:
    """A LangChain Runnable (a graph built with langchain_core only, e.g. ``create_agent``)."""
    return any(
        (getattr(k, "__module__", "") or "").startswith(("langchain_core.", "langchain."))
        for k in type(obj).__mro__
    )
