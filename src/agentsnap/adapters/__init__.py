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

There is one client adapter per provider spec that declares one
(``[adapter] class`` in ``patches/<provider>.toml``: ``OpenAIAdapter``,
``AnthropicAdapter``, ... — the README lists them, ``tests/test_provider_facts.py``
holds that list to the specs); the class is built from the spec
(:mod:`agentsnap.adapters._declared`) and reached as
``agentsnap.adapters.<Class>``. Besides them: :class:`LangGraphAdapter` for a
compiled LangGraph graph (any LangChain ``Runnable``) and :class:`ToolAdapter`
for any Python function, sync or async.

:func:`wrap` picks the adapter from the object's class. Importing this
package imports no SDK.
"""

from __future__ import annotations

import functools
from typing import Any

from ..capture.scope import AdapterScope as AdapterScope
from ..capture.scope import is_adapter as is_adapter
from ..spec.provider_specs import spec_derived

# the names below and the spec-declared adapters are the package's public names
# (``__all__``, computed on first use by ``__getattr__``)
from ._base import ClientAdapter as ClientAdapter
from ._base import find_http_clients as find_http_clients
from ._declared import adapter_class, adapter_for_host, adapter_names, client_adapters, sdk_names
from .langgraph import LangGraphAdapter as LangGraphAdapter
from .tool import ToolAdapter as ToolAdapter

_NAMES = (
    "OPENROUTER_BASE_URL",
    "AdapterScope",
    "ClientAdapter",
    "LangGraphAdapter",
    "ToolAdapter",
    "find_http_clients",
    "is_adapter",
    "wrap",
)


def __getattr__(name: str) -> Any:
    """The adapter classes the specs declare (and ``__all__``, which lists them), on first use."""
    if name == "__all__":
        return sorted({*_NAMES, *adapter_names()}, key=lambda n: (not n.isupper(), n))
    if name == "OPENROUTER_BASE_URL":
        from .openrouter import OPENROUTER_BASE_URL

        return OPENROUTER_BASE_URL
    if name in adapter_names():
        return adapter_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@spec_derived
@functools.cache
def _by_module() -> tuple[tuple[str, type[Any]], ...]:
    """Module prefix of a class in the object's MRO -> adapter: each spec's
    ``[adapter] client_modules`` (:mod:`agentsnap.spec.provider_facts`), then LangGraph."""
    return (*client_adapters(), ("langgraph", LangGraphAdapter))


def _adapter_for(cls: type) -> type[Any] | None:
    by_module = _by_module()
    for klass in cls.__mro__:
        module = getattr(klass, "__module__", "") or ""
        for prefix, adapter in by_module:
            if module == prefix or module.startswith(prefix + "."):
                return adapter
    return None


def wrap(obj: object, *, name: str | None = None) -> Any:
    """The adapter for ``obj``, chosen by its class.

    SDK clients (and LangChain chat models) get their provider's adapter — a
    client whose base URL is on the hosts of a host-limited spec of its SDK gets
    that spec's adapter (an ``openai`` client pointed at OpenRouter:
    ``OpenRouterAdapter``); compiled LangGraph graphs get
    :class:`LangGraphAdapter`; any other callable gets ``ToolAdapter(obj, name=name)``.
    An adapter is returned as is. Raises ``TypeError`` for anything else.
    """
    if is_adapter(obj):
        return obj
    adapter = _adapter_for(type(obj))
    if adapter is not None and issubclass(adapter, ClientAdapter):
        adapter = adapter_for_host(adapter, obj)
    if adapter is None and callable(getattr(obj, "invoke", None)) and _adapter_for_runnable(obj):
        adapter = LangGraphAdapter
    if adapter is not None:
        return adapter(obj)
    if callable(obj):
        return ToolAdapter(obj, name=name)
    raise TypeError(
        f"agentsnap: no adapter for {type(obj).__module__}.{type(obj).__qualname__}: wrap() takes an {sdk_names()} "
        "client, a LangChain chat model, a LangGraph graph, or a tool function"
    )


def _adapter_for_runnable(obj: object) -> bool:
    """A LangChain Runnable (a graph built with langchain_core only, e.g. ``create_agent``)."""
    return any(
        (getattr(k, "__module__", "") or "").startswith(("langchain_core.", "langchain."))
        for k in type(obj).__mro__
    )
