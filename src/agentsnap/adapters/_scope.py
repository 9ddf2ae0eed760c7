"""What a recording given ``adapters=[...]`` accepts: :class:`AdapterScope`.

Kept apart from :mod:`agentsnap.adapters._base` so the import graph is one-way:
``_base`` (the client proxy, the search) ← ``langgraph`` / ``tool`` (the
other adapter kinds) ← this module, which tells the three kinds apart.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from ..exceptions import AdapterNotWrappedError
from ._base import ClientAdapter, describe_client, running_graphs
from .langgraph import LangGraphAdapter
from .tool import ToolAdapter

__all__ = ["AdapterScope", "is_adapter"]


def is_adapter(obj: Any) -> bool:
    """Whether ``obj`` is one of agentsnap's adapters."""
    return issubclass(type(obj), (ClientAdapter, LangGraphAdapter, ToolAdapter))


class AdapterScope:
    """What a recording given adapters accepts (see the module doc).

    ``adapters``: client adapters, LangGraphAdapters and ToolAdapters.
    ``owner``: names the recording in messages (``"AgentRecorder('my_agent')"``).
    """

    def __init__(self, adapters: Iterable[Any], owner: str) -> None:
        self.owner = owner
        self.adapters = list(adapters)
        self._clients: list[ClientAdapter] = []
        self._graph_ids: set[int] = set()
        self._tool_ids: set[int] = set()
        for adapter in self.adapters:
            # isinstance() sees through proxies; type() does not
            kind = type(adapter)
            if issubclass(kind, ClientAdapter):
                self._clients.append(adapter)
            elif issubclass(kind, LangGraphAdapter):
                self._graph_ids.add(id(adapter.agentsnap_root))
            elif issubclass(kind, ToolAdapter):
                self._tool_ids.add(id(adapter))
            else:
                raise TypeError(
                    f"agentsnap: adapters= takes adapter objects (OpenAIAdapter(client), LangGraphAdapter(graph), "
                    f"ToolAdapter(fn), or agentsnap.adapters.wrap(obj)), not {kind.__module__}.{kind.__qualname__}"
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

    def admits(self, http_client: Any) -> bool:
        """Whether a request sent by ``http_client`` (now, in this context) is in scope."""
        if id(http_client) in self._ids:
            return True
        if self._graph_ids:
            for graph in running_graphs.get():
                if id(graph) in self._graph_ids:
                    return True
        if self._clients:
            self.refresh()
            return id(http_client) in self._ids
        return False

    def admits_tool(self, tool: Any) -> bool:
        return id(tool) in self._tool_ids

    def check(self, http_client: Any, request: Any, spec: Any) -> None:
        """Raise :class:`AdapterNotWrappedError` when the request is out of scope."""
        if self.admits(http_client):
            return
        message = (
            f"agentsnap: an unwrapped {describe_client(http_client, request, spec)} sent "
            f"{request.method} {request.url.path} inside {self.owner}, which was given adapters and records only "
            f"the clients they wrap. Wrap this client too (e.g. {_adapter_hint(spec)}(client), or "
            "agentsnap.adapters.wrap(client)) and add it to adapters=[...], or drop adapters= to record every SDK call. "
            "Nothing was sent."
        )
        with self._lock:
            self.violations.append(message)
        raise AdapterNotWrappedError(message)


def _adapter_hint(spec: Any) -> str:
    """The adapter class the spec's ``[adapter] class`` names, else ``wrap``."""
    from ..spec.provider_facts import provider_facts

    name = getattr(spec, "name", "")
    return next((f.adapter for f in provider_facts() if f.name == name and f.adapter), "wrap")
