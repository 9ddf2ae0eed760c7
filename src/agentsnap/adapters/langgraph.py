"""``LangGraphAdapter``: scope a recording to the runs of one LangGraph graph.

LangGraph makes no LLM calls itself: its chat models (``ChatOpenAI``,
``ChatAnthropic``, ...) call the provider SDKs, whose requests agentsnap
captures at ``send`` with or without an adapter. So an unchanged graph records
and replays with no adapter at all; wrap it only to scope a recording::

    graph = LangGraphAdapter(create_react_agent(ChatOpenAI(model="gpt-4o-mini"), tools))
    with AgentRecorder("weather", adapters=[graph]) as rec:
        rec.output = graph.invoke({"messages": [("user", "Weather in Paris?")]})

While ``invoke`` / ``ainvoke`` / ``stream`` / ``astream`` / ``batch`` /
``abatch`` / ``astream_events`` / ... of the adapter is running (including
every step of a stream being iterated), the requests any chat model sends on
the graph's behalf are in the adapter's scope. The mark is a context variable,
which LangGraph copies into the worker threads of sync runs and into the
tasks of async runs. ``with_config`` / ``with_retry`` / ``copy`` / ... return
adapters that share the scope. Everything else is the graph's own attribute.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ..capture.scope import GRAPH, running_graphs
from ._base import _Proxy

__all__ = ["LangGraphAdapter"]

# how each method of a Runnable / Pregel graph returns its work
_CALLS = frozenset({"invoke", "batch", "get_state", "update_state", "bulk_update_state"})
_ACALLS = frozenset({"ainvoke", "abatch", "aget_state", "aupdate_state", "abulk_update_state"})
_ITERS = frozenset(
    {"stream", "batch_as_completed", "transform", "stream_events", "get_state_history"}
)
_AITERS = frozenset(
    {
        "astream",
        "abatch_as_completed",
        "atransform",
        "astream_events",
        "astream_log",
        "aget_state_history",
    }
)
_DERIVED = frozenset(
    {
        "with_config",
        "with_retry",
        "with_listeners",
        "with_alisteners",
        "with_types",
        "with_fallbacks",
        "bind",
        "copy",
    }
)


class LangGraphAdapter(_Proxy):  # type: ignore[misc]
    """A transparent proxy around a compiled LangGraph graph (any LangChain ``Runnable``)."""

    #: what this adapter puts in a recording's scope (:mod:`agentsnap.capture.scope`)
    agentsnap_scope = GRAPH

    def __init__(self, graph: object, *, _root: LangGraphAdapter | None = None) -> None:
        if isinstance(graph, LangGraphAdapter):
            _root = _root or graph.agentsnap_root
            graph = graph.__wrapped__
        if not callable(getattr(graph, "invoke", None)):
            raise TypeError(
                f"agentsnap: LangGraphAdapter wraps a compiled graph (anything with .invoke), "
                f"not {type(graph).__module__}.{type(graph).__qualname__}"
            )
        super().__init__(graph)
        self._self_root = _root

    @property
    def agentsnap_root(self) -> LangGraphAdapter:
        """The adapter whose scope this one shares (itself, unless derived by ``with_config`` & co.)."""
        return self._self_root if self._self_root is not None else self

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.__wrapped__, name)
        if not callable(value) or name not in _SCOPED:
            return value
        return _SCOPED[name](self, value)

    def __repr__(self) -> str:
        return f"LangGraphAdapter({self.__wrapped__!r})"


def _enter(adapter: LangGraphAdapter) -> Any:
    return running_graphs.set((*running_graphs.get(), adapter.agentsnap_root))


def _scoped_call(adapter: LangGraphAdapter, method: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: object, **kwargs: object) -> Any:
        token = _enter(adapter)
        try:
            result = method(*args, **kwargs)
        finally:
            running_graphs.reset(token)
        return result

    return _named(call, method)


def _scoped_acall(adapter: LangGraphAdapter, method: Callable[..., Any]) -> Callable[..., Any]:
    async def call(*args: object, **kwargs: object) -> Any:
        token = _enter(adapter)
        try:
            return await method(*args, **kwargs)
        finally:
            running_graphs.reset(token)

    return _named(call, method)


def _scoped_iter(adapter: LangGraphAdapter, method: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: object, **kwargs: object) -> Any:
        token = _enter(adapter)
        try:
            result = method(*args, **kwargs)
        finally:
            running_graphs.reset(token)
        if hasattr(result, "__next__"):
            return _scoped_iterator(adapter, lambda: result)
        return (
            result  # e.g. stream_events(version="v3"): a run object, driven by its own projections
        )

    return _named(call, method)


def _scoped_iterator(adapter: LangGraphAdapter, make: Callable[[], Any]) -> Iterator[Any]:
    """Iterate ``make()`` with the scope set around each step (and around close)."""
    iterator = make()
    try:
        while True:
            token = _enter(adapter)
            try:
                item = next(iterator)
            except StopIteration:
                return
            finally:
                running_graphs.reset(token)
            yield item
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            token = _enter(adapter)
            try:
                close()
            finally:
                running_graphs.reset(token)


def _scoped_aiter(adapter: LangGraphAdapter, method: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: object, **kwargs: object) -> AsyncIterator[Any]:
        token = _enter(adapter)
        try:
            result = method(*args, **kwargs)
        finally:
            running_graphs.reset(token)
        return _scoped_async_iterator(adapter, result)

    return _named(call, method)


async def _scoped_async_iterator(adapter: LangGraphAdapter, result: Any) -> AsyncIterator[Any]:
    if inspect.isawaitable(result) and not hasattr(result, "__anext__"):
        token = _enter(adapter)
        try:
            result = await result
        finally:
            running_graphs.reset(token)
    iterator = result.__aiter__()
    try:
        while True:
            token = _enter(adapter)
            try:
                item = await iterator.__anext__()
            except StopAsyncIteration:
                return
            finally:
                running_graphs.reset(token)
            yield item
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            token = _enter(adapter)
            try:
                await aclose()
            finally:
                running_graphs.reset(token)


def _derived(adapter: LangGraphAdapter, method: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: object, **kwargs: object) -> Any:
        result = method(*args, **kwargs)
        if callable(getattr(result, "invoke", None)):
            return LangGraphAdapter(result, _root=adapter.agentsnap_root)
        return result

    return _named(call, method)


def _named(call: Callable[..., Any], method: Callable[..., Any]) -> Callable[..., Any]:
    for attr in ("__name__", "__qualname__", "__doc__"):
        with contextlib.suppress(AttributeError, TypeError):
            setattr(call, attr, getattr(method, attr))
    call.__wrapped__ = method  # type: ignore[attr-defined]
    return call


_SCOPED: dict[str, Callable[[LangGraphAdapter, Callable[..., Any]], Callable[..., Any]]] = {
    **{name: _scoped_call for name in _CALLS},
    **{name: _scoped_acall for name in _ACALLS},
    **{name: _scoped_iter for name in _ITERS},
    **{name: _scoped_aiter for name in _AITERS},
    **{name: _derived for name in _DERIVED},
}
