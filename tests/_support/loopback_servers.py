"""An inner pytest project's ``conftest.py`` (text, for ``pytester.makeconftest``) whose fixtures
start real servers on 127.0.0.1 in every mode, as a user's fixtures often do:

* ``mcp_url``: an MCP server on the ``mcp`` SDK (``MCPServer`` in 2.x, ``FastMCP`` in 1.x) with
  one tool, ``get_forecast(city)`` -> ``"Sunny in CITY"``, over streamable HTTP served by uvicorn
  in a thread; yields ``http://127.0.0.1:PORT/mcp``;
* ``ws_url``: a ``websockets`` echo server (``echo:MESSAGE``) in a thread; yields
  ``ws://127.0.0.1:PORT`` (any path).

Each appends a line to ``server.log`` beside the conftest when it starts (``mcp server up``,
``ws server up``), for every HTTP request it receives (``http METHOD PATH``) and every
WebSocket handshake (``ws PATH``): what reached the live servers.
"""

from __future__ import annotations

__all__ = ["CONFTEST"]

CONFTEST = '''
import socket, threading, time
from pathlib import Path

import pytest

LOG = Path(__file__).with_name("server.log")


def log(line):
    with LOG.open("a", encoding="utf-8") as f:
        f.write(line + "\\n")


@pytest.fixture
def mcp_url():
    """An MCP server (the mcp SDK) over streamable HTTP, served by uvicorn, in every mode."""
    import uvicorn
    try:
        from mcp.server.mcpserver import MCPServer as Server
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server

    server = Server("weather", log_level="WARNING")

    @server.tool(description="Weather forecast for a city.")
    def get_forecast(city: str) -> str:
        return f"Sunny in {city}"

    app = server.streamable_http_app()

    async def logged(scope, receive, send):
        if scope["type"] == "http":
            log(f"http {scope['method']} {scope['path']}")
        await app(scope, receive, send)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(logged, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    log("mcp server up")
    yield f"http://127.0.0.1:{port}/mcp"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture
def ws_url():
    """A websockets echo server, in every mode."""
    from websockets.sync.server import serve

    def echo(ws):
        for message in ws:
            ws.send(f"echo:{message}")

    def seen(connection, request):
        log(f"ws {request.path}")

    server = serve(echo, "127.0.0.1", 0, process_request=seen)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    log("ws server up")
    yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}"
    server.shutdown()
    thread.join(10)
'''
