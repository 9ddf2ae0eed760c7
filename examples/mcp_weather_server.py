"""The weather agent's two tools served over MCP (stdio): what an MCP tool server looks like.

    python examples/mcp_weather_server.py      # speaks MCP on stdin/stdout

Built on the ``mcp`` SDK's server (``MCPServer`` in mcp 2.x, ``FastMCP`` in 1.x).
"""

from __future__ import annotations

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef]

from weather_agent import get_time, get_weather

server = Server("weather-and-time")
server.tool(description="Get the current weather in a city.")(get_weather)
server.tool(description="Get the current local time in an IANA time zone.")(get_time)

if __name__ == "__main__":
    server.run()
