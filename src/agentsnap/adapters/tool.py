"""``ToolAdapter``: record the calls of one Python tool as ``tool_call`` steps.

    def search(query: str, limit: int = 5) -> list[str]: ...

    search_tool = ToolAdapter(search, name="search")
    with AgentRecorder("my_agent") as rec:
        rec.output = my_agent(client, search_tool, "What is Python?")

Each call made while a recording is active adds a ``tool_call`` step:
``name``; ``args`` — the arguments bound to the function's parameter names
(positional and keyword alike: ``search_tool("python", limit=3)`` gives
``{"query": "python", "limit": 3}``; defaults not passed are not added;
``**kwargs`` are merged in, ``*args`` kept as a list under their name);
``result`` — what it returned (an async tool: what it returned once awaited);
and ``error`` — ``{"type", "message"}`` when it raised (``result`` is then
None); the exception is re-raised unchanged. Values that are not JSON are
stored as JSON-friendly data (pydantic models dumped, dataclasses as dicts,
anything else as ``str``).

Explicit tool calls replace the ones agentsnap would derive from the
conversation (the model's tool requests paired with the results sent back).
In a recording given ``adapters=[...]`` only the ToolAdapters listed there
report calls. With no active recording the adapter just calls the function.

The adapter is a transparent function proxy: ``__doc__``, the signature,
``inspect.iscoroutinefunction`` and method binding are the function's; its
``__name__`` is the tool name (so frameworks that name tools after the
function, such as LangChain's ``tool()``, use the same name).
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable
from typing import Any

import wrapt

from ..capture import active
from ..capture.scope import TOOL

__all__ = ["ToolAdapter"]


class ToolAdapter(wrapt.FunctionWrapper):  # type: ignore[type-arg]
    """Wrap ``fn`` (sync or async) so its calls are recorded as ``tool_call`` steps named ``name``."""

    #: what this adapter puts in a recording's scope (:mod:`agentsnap.capture.scope`)
    agentsnap_scope = TOOL

    def __init__(self, fn: Callable[..., Any], name: str | None = None) -> None:
        if isinstance(fn, ToolAdapter):
            name = name or fn.__name__
            fn = fn.__wrapped__
        if not callable(fn):
            raise TypeError(f"agentsnap: ToolAdapter wraps a callable, not {type(fn).__name__}")
        holder: list[ToolAdapter] = []

        def wrapper(
            wrapped: object, instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
        ) -> Any:
            return holder[0]._agentsnap_call(wrapped, instance, args, kwargs)

        super().__init__(fn, wrapper)
        holder.append(self)
        self._self_tool_name = str(name or getattr(fn, "__name__", None) or type(fn).__name__)
        try:
            self._self_signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            self._self_signature = None

    @property
    def __name__(self) -> str:
        return self._self_tool_name

    @__name__.setter
    def __name__(self, value: str) -> None:
        self._self_tool_name = str(value)

    @property
    def tool_name(self) -> str:
        """The name recorded in ``tool_call`` steps."""
        return self._self_tool_name

    def __repr__(self) -> str:
        return f"ToolAdapter({self.__wrapped__!r}, name={self._self_tool_name!r})"

    def __reduce_ex__(self, protocol: object) -> Any:
        return (ToolAdapter, (self.__wrapped__, self._self_tool_name))

    # ----------------------------------------------------------------- calls

    def _agentsnap_call(
        self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        recording = active.current()
        if recording is None:
            return wrapped(*args, **kwargs)
        bound = self._bind(wrapped, instance, args, kwargs)
        if recording.tool_results is not None:
            return self._replayed(wrapped, recording, bound)
        started = time.monotonic()  # places the call in the trace (see Trace.add_tool_call)
        try:
            result = wrapped(*args, **kwargs)
        except Exception as exc:
            self._report(recording, bound, None, exc, started=started)
            raise
        if inspect.iscoroutine(result):  # an async tool: its result is known once awaited
            return self._awaited(result, recording, bound, started)
        self._report(recording, bound, result, None, started=started)
        return result

    def _replayed(self, wrapped: Any, recording: Any, bound: dict[str, Any]) -> Any:
        """``replay_tools``: the next recorded result of this tool, without running it."""
        queue = recording.tool_results.get(self._self_tool_name)
        if not queue:
            from ..exceptions import ReplayMissError

            raise ReplayMissError(
                f"agentsnap replay miss: tool {self._self_tool_name!r} was called with {jsonable(bound)!r} but the snapshot "
                "has no recorded call of it left (replay_tools=True serves recorded tool results instead of running tools). "
                "If the agent is meant to call it now, re-record: `pytest --agentsnap-record`."
            )
        _, step = queue.popleft()
        error = step.get("error")
        self._report(
            recording, bound, None if error else step.get("result"), None, recorded_error=error
        )
        exc = _recorded_exception(error) if isinstance(error, dict) else None
        if _is_async(wrapped):

            async def served() -> Any:
                if exc is not None:
                    raise exc
                return step.get("result")

            return served()
        if exc is not None:
            raise exc
        return step.get("result")

    async def _awaited(
        self, awaitable: Any, recording: Any, bound: dict[str, Any], started: float
    ) -> Any:
        try:
            result = await awaitable
        except Exception as exc:
            self._report(recording, bound, None, exc, started=started)
            raise
        self._report(recording, bound, result, None, started=started)
        return result

    def _report(
        self,
        recording: Any,
        bound: dict[str, Any],
        result: Any,
        exc: BaseException | None,
        *,
        recorded_error: Any = None,
        started: float | None = None,
    ) -> None:
        scope = recording.adapter_scope
        if scope is not None and not scope.admits_tool(self):
            return
        error = (
            {"type": type(exc).__name__, "message": str(exc)} if exc is not None else recorded_error
        )
        recording.trace.add_tool_call(
            self._self_tool_name,
            jsonable(bound),
            None if exc is not None else jsonable(result),
            error=error,
            started=started,
        )

    def _bind(
        self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        signature = self._self_signature
        if instance is not None and wrapped is not self.__wrapped__:
            try:  # bound as a method: the bound callable's signature has no `self`
                signature = inspect.signature(wrapped)
            except (TypeError, ValueError):
                signature = None
        if signature is None:
            return {"args": list(args), **kwargs} if args else dict(kwargs)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:  # the call itself will raise; keep what was passed
            return {"args": list(args), **kwargs} if args else dict(kwargs)
        out: dict[str, Any] = {}
        for pname, value in bound.arguments.items():
            if signature.parameters[pname].kind is inspect.Parameter.VAR_KEYWORD:
                out.update(value)
            elif signature.parameters[pname].kind is inspect.Parameter.VAR_POSITIONAL:
                out[pname] = list(value)
            else:
                out[pname] = value
        return out


def jsonable(value: object, _depth: int = 0) -> Any:
    """``value`` as JSON data: containers converted, models dumped, other objects as text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if _depth > 32:
        return _text(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, _depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v, _depth + 1) for v in value]
        return sorted(items, key=repr)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            return jsonable(dump(mode="json"), _depth + 1)
        except Exception:
            pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value), _depth + 1)
    return _text(value)


def _text(value: object) -> str:
    cls = type(value)
    to_str: object = cls.__str__
    to_repr: object = cls.__repr__
    if to_str is object.__str__ and to_repr is object.__repr__:
        return f"<{cls.__module__}.{cls.__qualname__}>"  # no memory address: snapshots stay stable
    return str(value)


def _recorded_exception(error: dict[str, Any]) -> BaseException:
    """The exception a recorded ``{"type", "message"}`` stands for: the built-in class of that
    name when there is one (``ValueError``, ``KeyError`` …), else ``RuntimeError`` naming it."""
    import builtins

    name = str(error.get("type") or "")
    message = str(error.get("message") or "")
    cls = getattr(builtins, name, None)
    quote = message[:1]
    if (
        cls is KeyError
        and len(message) >= 2
        and quote in ("'", '"')
        and message[-1] == quote
        and quote not in message[1:-1]
        and "\\" not in message
    ):
        message = message[
            1:-1
        ]  # str(KeyError(k)) is repr(k): raise it with the key itself, as the tool did
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:
            pass
    return RuntimeError(f"{name}: {message}" if name else message)


def _is_async(fn: object) -> bool:
    """Whether calling ``fn`` gives a coroutine: an ``async def`` function or method, a
    ``functools.partial`` of one, or an object whose ``__call__`` is ``async def``. (A plain
    function that returns a coroutine cannot be told apart without calling it.)"""
    if inspect.iscoroutinefunction(fn):
        return True
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        return inspect.iscoroutinefunction(getattr(type(fn), "__call__", None))  # noqa: B004 - the class's __call__, not callable()
    return False
