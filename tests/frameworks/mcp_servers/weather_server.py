"""The "weather" MCP server the MCP framework tests drive: a real server on the ``mcp`` SDK's
FastMCP (``mcp.server.fastmcp.FastMCP`` in mcp 1.x, ``mcp.server.mcpserver.MCPServer`` in 2.x).

Stdlib and ``mcp`` only (no agentsnap import). Run as a script:

* ``python weather_server.py``: MCP over stdio;
* ``python weather_server.py --http PORT``: streamable HTTP at ``http://127.0.0.1:PORT/mcp``;
* ``python weather_server.py --sse PORT``: the legacy SSE transport at ``http://127.0.0.1:PORT/sse``.

Tools:

* ``get_forecast(city)``: the forecast of :data:`WEATHER`; a city with no station (Oslo) or
  one it does not know raises, which the SDK sends as a result with ``isError: true``.

What a test can change without editing this file (environment):

* ``MCP_START_LOG``: a file to which each start of the server appends one line (the start counter);
* ``WEATHER_OVERRIDE``: a JSON object of forecasts that replace (or add to) :data:`WEATHER`;
* ``WEATHER_SCHEMA_V2=1``: ``get_forecast`` gains an optional ``units`` parameter (a new schema);
* ``WEATHER_HTTP_TOKEN``: over HTTP, a request without ``Authorization: Bearer <token>`` gets 401;
* ``WEATHER_EXTRAS=1``: more tools (progress, sampling, a crash, a slow one) and a prompt (:func:`add_extras`);
* ``WEATHER_NAME``: the name the server gives itself (default ``weather``);
* ``WEATHER_STAMP``: a tool ``report(city)`` and a resource ``weather://{city}/today``, whose
  JSON texts carry this value as their issue time (a value that changes every run,
  :func:`add_stamped`);
* ``WEATHER_API_KEY``: the upstream key a real server would need; the start line says only
  whether it was set.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

try:  # mcp 2.x
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context  # type: ignore[no-redef]
    from mcp.server.fastmcp import FastMCP as _Server  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]

# tests/frameworks/fake_models.WEATHER (the fake model's brain knows the same cities)
WEATHER = {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C", "Oslo": "Snow, -3°C"}
NO_STATION = {"Oslo"}


def forecasts() -> dict[str, str]:
    table = dict(WEATHER)
    table.update(json.loads(os.environ.get("WEATHER_OVERRIDE") or "{}"))
    return table


def forecast(city: str) -> str:
    if city in NO_STATION:
        raise ToolError(f"no weather station in {city}")
    table = forecasts()
    if city not in table:
        raise ToolError(f"unknown city: {city}")
    return table[city]


def build() -> Any:
    server = _Server(os.environ.get("WEATHER_NAME") or "weather", log_level="WARNING")
    tool = server.tool(description="Weather forecast for a city.", structured_output=False)
    if os.environ.get("WEATHER_SCHEMA_V2") == "1":

        def get_forecast_v2(city: str, units: str = "metric") -> str:
            return forecast(city)

        get_forecast_v2.__name__ = "get_forecast"
        tool(get_forecast_v2)
    else:

        def get_forecast(city: str) -> str:
            return forecast(city)

        tool(get_forecast)
    if os.environ.get("WEATHER_EXTRAS") == "1":
        add_extras(server)
    if os.environ.get("WEATHER_STAMP"):
        add_stamped(server, os.environ["WEATHER_STAMP"])
    return server


def add_stamped(server: Any, stamp: str) -> None:
    """``report(city)``: ``{"city", "sky", "issued_at": stamp}`` as JSON text; the resource
    ``weather://{city}/today``: ``{"city", "sky", "generated_at": stamp}`` as JSON text."""

    def report(city: str) -> str:
        return json.dumps({"city": city, "sky": forecast(city), "issued_at": stamp})

    server.tool(description="Forecast report with its issue time.", structured_output=False)(report)

    def today(city: str) -> str:
        return json.dumps({"city": city, "sky": forecast(city), "generated_at": stamp})

    server.resource("weather://{city}/today", mime_type="application/json")(today)


def add_extras(server: Any) -> None:
    """Tools that make the server talk while a call is pending: ``count_to(n)`` reports
    progress ``1..n`` of ``n``; ``summarize(text)`` asks the client's model (sampling) and
    returns its answer; ``crash()`` kills the server mid-call. And a prompt, ``brief(city)``."""
    from mcp.types import SamplingMessage, TextContent

    tool = server.tool(structured_output=False)

    async def count_to(n: int, ctx: Context) -> str:  # type: ignore[type-arg]
        for i in range(1, n + 1):
            await ctx.report_progress(i, n)
        return f"counted to {n}"

    async def summarize(text: str, ctx: Context) -> str:  # type: ignore[type-arg]
        reply = await ctx.session.create_message(
            messages=[
                SamplingMessage(
                    role="user", content=TextContent(type="text", text=f"Summarize: {text}")
                )
            ],
            max_tokens=50,
        )
        return f"summary: {reply.content.text}"

    def crash() -> str:
        os._exit(3)  # the server dies with the call pending

    async def slow(seconds: float) -> str:
        import anyio

        await anyio.sleep(seconds)
        return f"slept {seconds}"

    tool(slow)

    tool(count_to)
    tool(summarize)
    tool(crash)

    @server.prompt()
    def brief(city: str) -> str:
        return f"Write a one-line weather brief for {city}."

    add_resolved(server)


def add_resolved(server: Any) -> None:
    """mcp 2.x: ``headline(city)``, whose ``summary`` parameter a resolver fills by sampling the
    client's model. On a 2026-07-28 session the server answers the first call with its input
    requests inside the result, and the client calls again with the answers."""
    try:
        from typing import Annotated

        from mcp.server.mcpserver.resolve import Resolve, Sample
        from mcp.types import CreateMessageResult, SamplingMessage, TextContent
    except ImportError:  # mcp 1.x
        return

    def ask_model(city: str) -> Any:
        text = TextContent(type="text", text=f"A headline for {city}'s weather")
        return Sample([SamplingMessage(role="user", content=text)], max_tokens=20)

    async def headline(city: str, sampled: Any) -> str:
        return f"{city}: {sampled.content.text}"

    # evaluated here (this module's annotations are strings): the resolver marks the parameter
    headline.__annotations__ = {
        "city": str,
        "sampled": Annotated[CreateMessageResult, Resolve(ask_model)],
        "return": str,
    }
    server.tool(structured_output=False)(headline)


def log_start(transport: str) -> None:
    path = os.environ.get("MCP_START_LOG")
    if not path:
        return
    key = "set" if os.environ.get("WEATHER_API_KEY") else "unset"
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"start pid={os.getpid()} transport={transport} api_key={key}\n")


def bearer_required(app: Any, token: str) -> Any:
    """``app`` behind a check of ``Authorization: Bearer <token>`` (lifespan passes through)."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await app(scope, receive, send)

    return guarded


def serve_http(port: int, sse: bool = False) -> None:
    import uvicorn

    server = build()
    app = server.sse_app() if sse else server.streamable_http_app()
    token = os.environ.get("WEATHER_HTTP_TOKEN")
    if token:
        app = bearer_required(app, token)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--http"]:
        log_start("streamable-http")
        serve_http(int(argv[1]))
    elif argv[:1] == ["--sse"]:
        log_start("sse")
        serve_http(int(argv[1]), sse=True)
    else:
        log_start("stdio")
        build().run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
