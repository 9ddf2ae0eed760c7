"""What a recording given ``adapters=[...]`` accepts: :class:`AdapterScope`, the check
every transport runs (:func:`agentsnap.capture.exchange.open_exchange`).

The capture layer does not import :mod:`agentsnap.adapters` (the adapters import
it: one-way). An adapter declares what it puts in scope by its class attribute
``agentsnap_scope`` (:data:`CLIENT`, :data:`GRAPH` or :data:`TOOL`):

* a client adapter: the HTTP clients its SDK client owns
  (``agentsnap_http_clients()``);
* a graph adapter: every request sent while one of its runs is in progress
  (:data:`running_graphs`, a context variable the graph adapter sets, which
  LangGraph and LangChain copy into their worker threads and tasks;
  ``agentsnap_root``);
* a tool adapter: its own calls (:meth:`AdapterScope.admits_tool`).

A refusal names the SDK client behind the request with the describer
:mod:`agentsnap.adapters` registers (:func:`set_describer`), which knows the SDKs.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterable
from typing import Any

from ..exceptions import AdapterNotWrappedError
from .contract import Request

__all__ = [
    "CLIENT",
    "GRAPH",
    "TOOL",
    "AdapterScope",
    "is_adapter",
    "running_graphs",
    "set_describer",
]

#: the values of an adapter class's ``agentsnap_scope``
CLIENT, GRAPH, TOOL = "client", "graph", "tool"

#: the graph adapter runs in progress in this context (outermost first)
running_graphs: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar(
    "agentsnap_running_graphs", default=()
)

#: ``(sender, request, spec) -> "openai.OpenAI (base URL …)"``: the SDK client behind a request
Describer = Callable[[object, Request, object], str]
_describer: list[Describer] = []


def set_describer(describe: Describer) -> None:
    """Name SDK clients in refusals with ``describe`` (registered by :mod:`agentsnap.adapters`)."""
    _describer[:] = [describe]


def _describe(sender: object, request: Request, spec: object) -> str:
    if _describer:
        return _describer[0](sender, request, spec)
    kind = type(sender)
    return f"{kind.__module__}.{kind.__qualname__} client"


def _kind(obj: object) -> str | None:
    # the class attribute: type() does not see through the adapters' proxies
    kind = getattr(type(obj), "agentsnap_scope", None)
    return kind if kind in (CLIENT, GRAPH, TOOL) else None


def is_adapter(obj: object) -> bool:
    """Whether ``obj`` is one of agentsnap's adapters."""
    return _kind(obj) is not None


class AdapterScope:
    """What a recording given adapters accepts (see the module doc).

    ``adapters``: client adapters, LangGraphAdapters and ToolAdapters.
    ``owner``: names the recording in messages (``"AgentRecorder('my_agent')"``).
    """

    def __init__(self, adapters: Iterable[Any], owner: str) -> None:
        self.owner = owner
        self.adapters = list(adapters)
        self._clients: list[Any] = []
        self._graph_ids: set[int] = set()
        self._tool_ids: set[int] = set()
        for adapter in self.adapters:
            kind = _kind(adapter)
            if kind == CLIENT:
                self._clients.append(adapter)
            elif kind == GRAPH:
                self._graph_ids.add(id(adapter.agentsnap_root))
            elif kind == TOOL:
                self._tool_ids.add(id(adapter))
            else:
                kind_of = type(adapter)
                raise TypeError(
                    f"agentsnap: adapters= takes adapter objects (OpenAIAdapter(client), LangGraphAdapter(graph), "
                    f"ToolAdapter(fn), or agentsnap.adapters.wrap(obj)), not {kind_of.__module__}.{kind_of.__qualname__}"
                )
        self._keep: list[Any] = []  # the http clients, kept alive so their ids stay theirs
        self._ids: frozenset[int] = frozenset()
        self._lock = threading.Lock()
        #: the refusals so far: the block raises the first one on exit even if
        #: the agent or a framework swallowed or replaced the exception
        self.violations: list[str] = []
        self.refresh()

    def refresh(self) -> None:
        """Search the client adapters' HTTP clients again (they may be created lazily)."""
        with self._lock:
            keep = [http for adapter in self._clients for http in adapter.agentsnap_http_clients()]
            self._keep = keep
            self._ids = frozenset(id(http) for http in keep)

    def admits(self, sender: object) -> bool:
        """Whether a request sent by ``sender`` (now, in this context) is in scope."""
        if id(sender) in self._ids:
            return True
        if self._graph_ids:
            for graph in running_graphs.get():
                if id(graph) in self._graph_ids:
                    return True
        if self._clients:
            self.refresh()
            return id(sender) in self._ids
        return False

    def admits_tool(self, tool: object) -> bool:
        return id(tool) in self._tool_ids

    def check(self, sender: object, request: Request, spec: object) -> None:
        """Raise :class:`AdapterNotWrappedError` when the request ``sender`` sent is out of scope."""
        if self.admits(sender):
            return
        message = (
            f"agentsnap: an unwrapped {_describe(sender, request, spec)} sent "
            f"{request.method} {request.url.path} inside {self.owner}, which was given adapters and records only "
            f"the clients they wrap. Wrap this client too (e.g. {_adapter_hint(spec)}(client), or "
            "agentsnap.adapters.wrap(client)) and add it to adapters=[...], or drop adapters= to record every SDK call. "
            "Nothing was sent."
        )
        with self._lock:
            self.violations.append(message)
        raise AdapterNotWrappedError(message)


def _adapter_hint(spec: object) -> str:
    """The adapter class the spec's ``[adapter] class`` names, else ``wrap``."""
    from ..spec.provider_facts import provider_facts

    name = getattr(spec, "name", "")
    return next((f.adapter for f in provider_facts() if f.name == name and f.adapter), "wrap")
