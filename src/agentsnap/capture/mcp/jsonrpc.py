"""The MCP SDK's message objects, as plain JSON-RPC dicts and back (mcp 1.x and 2.x).

Both SDK lines pass ``mcp.shared.message.SessionMessage`` objects over a
session's streams; its ``message`` is a pydantic model (1.x: the
``JSONRPCMessage`` root model; 2.x: one of ``mcp_types``' ``JSONRPCRequest``,
``JSONRPCNotification``, ``JSONRPCResponse``, ``JSONRPCError``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["as_dict", "session_message"]


def as_dict(item: object) -> dict[str, Any] | None:
    """The JSON-RPC message a stream item carries, as JSON (None: not a message, e.g. an
    exception a transport put on the read stream)."""
    message = getattr(item, "message", None)
    dump = getattr(message, "model_dump", None)
    if dump is None:
        return None
    data = dump(by_alias=True, mode="json", exclude_none=True)
    return data if isinstance(data, dict) else None


@functools.cache
def _decoder() -> Callable[[dict[str, Any]], Any]:
    import importlib

    try:  # mcp 2.x
        adapter: Any = importlib.import_module("mcp_types").jsonrpc_message_adapter
        decode: Callable[[dict[str, Any]], Any] = adapter.validate_python
    except ImportError:  # mcp 1.x: the JSONRPCMessage root model
        model: Any = importlib.import_module("mcp.types").JSONRPCMessage
        decode = model.model_validate
    return decode


def session_message(data: dict[str, Any]) -> Any:
    """A ``SessionMessage`` carrying the JSON-RPC message ``data``."""
    from mcp.shared.message import SessionMessage

    return SessionMessage(message=_decoder()({"jsonrpc": "2.0", **data}))
