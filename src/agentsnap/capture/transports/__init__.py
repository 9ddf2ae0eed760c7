"""The transports: one module per HTTP library, each declared once in :data:`TRANSPORTS`.

* :mod:`.httpx`: ``httpx`` / ``httpx2`` ``Client.send`` and ``AsyncClient.send``
  (every Stainless SDK, google-genai, cohere, mistralai, LangChain's clients);
* :mod:`.stdlib`: ``http.client.HTTPConnection`` (``urllib.request`` and any
  code speaking ``http.client`` directly);
* :mod:`.urllib3`: ``urllib3.HTTPConnectionPool.urlopen`` (``requests``,
  botocore, plain urllib3);
* :mod:`.aiohttp`: ``aiohttp.ClientSession._request``;
* :mod:`.lm15`: DSPy's bundled transport (``dspy._vendor.lm15.transports``),
  which speaks HTTP/1.1 over raw sockets;
* ``mcp`` (:mod:`agentsnap.capture.mcp`): MCP client sessions, over every MCP transport;
* ``websocket`` (:mod:`agentsnap.capture.websocket`): WebSocket connections of the
  ``websockets`` library (OpenAI Realtime and Responses WebSocket mode, Gemini Live).

Each implements the contract of :mod:`agentsnap.capture.contract` and is
installed by :mod:`agentsnap.capture.hooks` (wrapt post-import hooks,
idempotent); none is imported before its library is. Adding one: a module
here and one :class:`~agentsnap.capture.contract.Transport` line below
(``docs/contributing.md``, "A transport").
"""

from __future__ import annotations

from ..contract import Registry, Transport

__all__ = ["TRANSPORTS"]

_HERE = "agentsnap.capture.transports"

#: every transport agentsnap installs, in installation order
TRANSPORTS = Registry(
    Transport("httpx", (("httpx", f"{_HERE}.httpx:patch"), ("httpx2", f"{_HERE}.httpx:patch"))),
    Transport("http.client", (("http.client", f"{_HERE}.stdlib:patch"),)),
    Transport("urllib3", (("urllib3.connectionpool", f"{_HERE}.urllib3:patch"),)),
    Transport("aiohttp", (("aiohttp.client", f"{_HERE}.aiohttp:patch"),)),
    Transport(
        "lm15",
        (
            ("dspy._vendor.lm15.transports._sync", f"{_HERE}.lm15:patch_sync"),
            ("dspy._vendor.lm15.transports._async", f"{_HERE}.lm15:patch_async"),
        ),
    ),
    # MCP sessions (agentsnap.capture.mcp): the client session and each transport that opens one
    Transport(
        "mcp",
        (
            ("mcp.client.session", "agentsnap.capture.mcp.patch:patch_session"),
            ("mcp.client.stdio", "agentsnap.capture.mcp.patch:patch_stdio"),
            ("mcp.client.streamable_http", "agentsnap.capture.mcp.patch:patch_streamable_http"),
            ("mcp.client.sse", "agentsnap.capture.mcp.patch:patch_sse"),
            ("mcp.client.websocket", "agentsnap.capture.mcp.patch:patch_websocket"),
        ),
    ),
    # WebSocket connections (agentsnap.capture.websocket): the Sans-I/O protocol every
    # websockets client shares, and where its asyncio and sync clients open the network
    Transport(
        "websocket",
        (
            ("websockets.protocol", "agentsnap.capture.websocket.seams:patch_protocol"),
            ("websockets.client", "agentsnap.capture.websocket.seams:patch_client"),
            ("websockets.asyncio.client", "agentsnap.capture.websocket.seams:patch_asyncio_client"),
            ("websockets.sync.client", "agentsnap.capture.websocket.seams:patch_sync_client"),
        ),
    ),
)
