"""Machinery shared by the explicit adapters: the client proxy and the search.

An adapter never intercepts an SDK method. Capture happens where it always
does, at the send seam of the HTTP library (:mod:`agentsnap.capture.transports`);
an adapter only tells the active recording which traffic is *in scope*:

* a client adapter (:class:`ClientAdapter`) stands for the HTTP client
  instances its SDK client owns (found by :func:`find_http_clients`);
* a :class:`~agentsnap.adapters.langgraph.LangGraphAdapter` marks every request
  sent while one of its runs is in progress (a context variable, which
  LangGraph and LangChain copy into their worker threads and tasks);
* a :class:`~agentsnap.adapters.tool.ToolAdapter` reports its own calls.

A recording given adapters (``AgentRecorder(name, adapters=[...])``) carries an
:class:`~agentsnap.capture.scope.AdapterScope`; every transport asks it, for each request of a
recognised SDK, whether the request is in scope (one set lookup on the hot
path) and refuses the others with
:class:`~agentsnap.exceptions.AdapterNotWrappedError`.
"""

from __future__ import annotations

import functools
import gc
import sys
import types
from collections.abc import Callable
from typing import Any

import wrapt

from ..capture.scope import CLIENT, running_graphs, set_describer
from ..spec.provider_facts import READER_STEP, provider_facts
from ..spec.provider_specs import spec_derived

__all__ = [
    "ClientAdapter",
    "base_url_of",
    "call_in_graph_scope",
    "describe_client",
    "find_http_clients",
    "module_matches",
]

#: wrapt 2.x: the proxy without the legacy ``__iter__``; wrapt 1.x: ObjectProxy
_Proxy: type = getattr(wrapt, "BaseObjectProxy", wrapt.ObjectProxy)

_HTTP_MODULES = ("httpx", "httpx2")
_LEAVES = (
    str,
    bytes,
    bytearray,
    int,
    float,
    complex,
    bool,
    type(None),
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    range,
    memoryview,
)


# --------------------------------------------------------------------------- finding http clients


def _http_client_classes() -> tuple[type, ...]:
    """``Client`` / ``AsyncClient`` of httpx and httpx2, among those already imported."""
    found: list[type] = []
    for name in _HTTP_MODULES:
        module = sys.modules.get(name)
        for cls_name in ("Client", "AsyncClient"):
            cls = getattr(module, cls_name, None) if module is not None else None
            if isinstance(cls, type) and cls not in found:
                found.append(cls)
    return tuple(found)


def find_http_clients(obj: object, *, depth: int = 5, limit: int = 5000) -> list[Any]:
    """The ``httpx``/``httpx2`` client instances reachable from ``obj``'s attributes.

    A breadth-first walk over instance ``__dict__`` values and plain containers,
    ``depth`` levels deep, visiting at most ``limit`` objects. It finds, for
    example, ``OpenAI()._client``, ``ClientV2()._client_wrapper.httpx_client.httpx_client``
    (cohere), ``Mistral().sdk_configuration.client`` / ``.async_client``,
    ``genai.Client()._api_client._httpx_client`` / ``._async_httpx_client`` and
    the clients of a LangChain ``ChatOpenAI`` / ``ChatAnthropic`` — without
    naming any private attribute, so it survives SDK refactors. Objects created
    lazily (``ChatAnthropic._client`` before its first call) are found once
    they exist: :class:`~agentsnap.adapters.AdapterScope` searches again before refusing a request.
    """
    classes = _http_client_classes()
    if not classes:
        return []
    if isinstance(obj, _Proxy):
        obj = obj.__wrapped__  # type: ignore[attr-defined]
    found: list[Any] = []
    seen: set[int] = set()
    level = [obj]
    visited = 0
    for _ in range(depth + 1):
        nxt: list[Any] = []
        for item in level:
            if isinstance(item, _Proxy):
                item = item.__wrapped__  # type: ignore[attr-defined]
            if id(item) in seen or isinstance(item, _LEAVES):
                continue
            seen.add(id(item))
            visited += 1
            if visited > limit:
                return found
            if isinstance(item, classes):
                found.append(item)  # and look inside: google-genai's async client sends
                # through one inner httpx2.AsyncClient per event loop (`_loop_clients`)
            if isinstance(item, dict):
                nxt.extend(item.values())
            elif isinstance(item, (list, tuple, set, frozenset)):
                nxt.extend(item)
            else:
                try:
                    attrs = object.__getattribute__(item, "__dict__")
                except (AttributeError, TypeError):
                    continue
                if isinstance(attrs, dict):
                    nxt.extend(attrs.values())
        level = nxt
        if not level:
            break
    return found


# --------------------------------------------------------------------------- naming a client


@spec_derived
@functools.cache
def _clients() -> tuple[tuple[str, ...], frozenset[str]]:
    """The SDKs' client classes (every spec's ``[adapter] clients``): their module
    roots, and their class names."""
    pairs = [c.partition(":") for f in provider_facts() for c in f.clients]
    roots = tuple(dict.fromkeys(module for module, _, _ in pairs))
    return roots, frozenset(cls for _, _, cls in pairs)


def _sdk_module(obj: object) -> str | None:
    module = getattr(type(obj), "__module__", "") or ""
    for root in _clients()[0]:
        if module == root or module.startswith(root + "."):
            return module
    return None


def _owners(http_client: object, *, depth: int = 6, width: int = 200) -> list[Any]:
    """SDK objects that hold ``http_client``, nearest first (error path only: one gc scan per level)."""
    out: list[Any] = []
    seen: set[int] = {id(http_client)}
    level = [http_client]
    for _ in range(depth):
        nxt: list[Any] = []
        for ref in gc.get_referrers(*level):
            if id(ref) in seen or isinstance(ref, types.FrameType) or ref is level:
                continue
            seen.add(id(ref))
            if isinstance(ref, dict):
                nxt.append(ref)  # an instance __dict__: its owner is one more step up
            elif _sdk_module(ref) is not None:
                out.append(ref)
                nxt.append(ref)
        level = nxt[:width]
        if not level:
            break
    return out


@spec_derived
@functools.cache
def _base_url_paths() -> tuple[str, ...]:
    """Where clients keep their base URL (every spec's ``[adapter] base_url``), in spec order."""
    return tuple(dict.fromkeys(path for f in provider_facts() for path in f.base_url))


def _read(obj: object, path: str) -> object:
    """``obj`` followed along an ``[adapter] base_url`` path (``a.b``, ``a.get()[0]``)."""
    value: Any = obj
    for step in path.split("."):
        found = READER_STEP.fullmatch(step)
        assert found is not None  # the spec loader checked the path
        attr, call, index = found.groups()
        value = getattr(value, attr)
        if call:
            value = value()
        if index is not None:
            value = value[int(index)]
    return value


def base_url_of(client: object) -> str | None:
    """The base URL an SDK client (or LangChain chat model) sends to, or None."""
    for path in _base_url_paths():
        try:
            value = _read(client, path)
        except Exception:
            continue
        if value:
            return str(value)
    return None


def _client_on_stack(limit: int = 80) -> Any:
    """The SDK client whose method is sending (a ``self`` in the calling frames), if one is."""
    frame: types.FrameType | None = sys._getframe(2)
    for _ in range(limit):
        if frame is None:
            break
        candidate = frame.f_locals.get("self")
        if (
            candidate is not None
            and type(candidate).__name__ in _clients()[1]
            and _sdk_module(candidate) is not None
        ):
            return candidate
        frame = frame.f_back
    return None


def describe_client(http_client: Any, request: Any, spec: Any) -> str:
    """``"openai.OpenAI (base URL http://127.0.0.1:5000/v1)"`` for the SDK client behind a request.

    The client is found on the call stack (Stainless and cohere clients send from
    their own methods), else by following references to the HTTP client up (gc).
    """
    client = _client_on_stack()
    if client is None:
        owners = _owners(http_client)
        names = _clients()[1]
        clients = [o for o in owners if type(o).__name__ in names]
        # one HTTP client can sit under a sync and an async SDK client (google-genai's Client and
        # its .aio share an API client): name the one of the same kind as the HTTP client
        is_async = type(http_client).__name__.startswith("Async")
        clients.sort(key=lambda o: type(o).__name__.startswith("Async") != is_async)
        client = clients[0] if clients else (owners[-1] if owners else None)
    if client is not None:
        cls = type(client)
        name = f"{cls.__module__.split('.')[0]}.{cls.__qualname__}"
        if cls.__module__.startswith("google.genai"):
            name = f"google.genai.{cls.__qualname__}"
    else:
        name = f"{getattr(spec, 'package', None) or getattr(spec, 'name', 'SDK')} client"
    base = base_url_of(client) if client is not None else None
    if base is None:
        url = request.url
        path = url.path
        for suffix, _codec in getattr(spec, "endpoints", ()):
            if path.endswith(suffix):
                path = path[: -len(suffix)]
                break
        else:
            path = ""
        base = f"{url.scheme}://{url.netloc.decode('ascii', 'replace') if isinstance(url.netloc, bytes) else url.netloc}{path}"
    return f"{name} (base URL {base})"


set_describer(describe_client)


# --------------------------------------------------------------------------- the proxy


def module_matches(cls: type, prefixes: tuple[str, ...]) -> bool:
    """Whether ``cls`` is defined in one of the modules ``prefixes`` or below one."""
    module = getattr(cls, "__module__", "") or ""
    return any(module == p or module.startswith(p + ".") for p in prefixes)


class ClientAdapter(_Proxy):  # type: ignore[misc]
    """A transparent proxy around one SDK client (or a LangChain chat model of that SDK).

    Attribute access, method calls, ``isinstance`` and ``with`` / ``async with``
    behave as on the client itself (``with OpenAIAdapter(OpenAI()) as c`` binds
    the adapter). What the adapter adds: inside a recording given this adapter
    (``AgentRecorder(name, adapters=[adapter])``), requests sent by the HTTP
    client this SDK client owns are in scope; requests of other SDK clients are
    refused with :class:`~agentsnap.exceptions.AdapterNotWrappedError`.

    The scope follows the SDK client's HTTP client, not the Python reference
    used: ``client.with_options(...)`` and ``client.copy()`` share it and stay
    in scope; so does the unwrapped object the adapter was built from.
    """

    #: what this adapter puts in a recording's scope (:mod:`agentsnap.capture.scope`)
    agentsnap_scope = CLIENT

    #: module prefixes of the objects this adapter accepts (subclasses set it)
    accepts: tuple[str, ...] = ()
    #: the SDK's distribution name, for messages
    sdk: str = ""

    def __init__(self, client: object) -> None:
        if isinstance(client, ClientAdapter):
            client = client.__wrapped__
        if self.accepts and not any(module_matches(c, self.accepts) for c in type(client).__mro__):
            raise TypeError(
                f"agentsnap: {type(self).__name__} wraps a {self.sdk} client, not {type(client).__module__}.{type(client).__qualname__}; "
                "agentsnap.adapters.wrap(obj) picks the adapter for any supported client."
            )
        super().__init__(client)

    def agentsnap_http_clients(self) -> list[Any]:
        """The httpx/httpx2 client instances whose requests this adapter puts in scope."""
        return find_http_clients(self.__wrapped__)

    def __enter__(self) -> Any:
        entered = self.__wrapped__.__enter__()
        return self if entered is self.__wrapped__ else entered

    def __exit__(self, *exc: object) -> Any:
        return self.__wrapped__.__exit__(*exc)

    async def __aenter__(self) -> Any:
        entered = await self.__wrapped__.__aenter__()
        return self if entered is self.__wrapped__ else entered

    async def __aexit__(self, *exc: object) -> Any:
        return await self.__wrapped__.__aexit__(*exc)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__wrapped__!r})"

    def __reduce_ex__(
        self, protocol: object
    ) -> Any:  # pragma: no cover - SDK clients do not pickle either
        raise TypeError(f"cannot pickle {type(self).__name__}")


def call_in_graph_scope(
    root: object, fn: Callable[..., Any], *args: object, **kwargs: object
) -> Any:
    """Call ``fn`` with ``root`` pushed on :data:`running_graphs`."""
    token = running_graphs.set((*running_graphs.get(), root))
    try:
        return fn(*args, **kwargs)
    finally:
        running_graphs.reset(token)
