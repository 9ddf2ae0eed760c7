"""The weather agent again, with its tools on an MCP server instead of in-process.

The agent opens an MCP session to ``mcp_weather_server.py`` (stdio: the server is a
subprocess), offers the server's tools to the model, and calls them on the server as the
model asks. Nothing here knows about agentsnap: under ``--agentsnap-replay`` the session
is answered from the golden, and the server is never started.

    client = openai.AsyncOpenAI()
    asyncio.run(run_mcp_agent(client, "What's the weather and time in Paris?"))
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import openai
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from weather_agent import DEFAULT_MODEL, SYSTEM_PROMPT


def weather_server() -> StdioServerParameters:
    """How to start the MCP server this agent uses."""
    return StdioServerParameters(
        command=sys.executable, args=[str(Path(__file__).with_name("mcp_weather_server.py"))]
    )


def _openai_tools(listed: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description or "",
                "parameters": tool.inputSchema
                if hasattr(tool, "inputSchema")
                else tool.input_schema,
            },
        }
        for tool in listed.tools
    ]


async def run_mcp_agent(
    client: openai.AsyncOpenAI,
    question: str,
    server: StdioServerParameters | None = None,
    *,
    model: str = DEFAULT_MODEL,
    max_turns: int = 5,
) -> str:
    """Answer ``question`` with the MCP server's tools; returns the final text."""
    async with (
        stdio_client(server or weather_server()) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = _openai_tools(await session.list_tools())
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": question},
        ]
        for _ in range(max_turns):
            response = await client.chat.completions.create(
                model=model, messages=messages, tools=tools
            )
            message = response.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            messages.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {
                                "name": c.function.name,
                                "arguments": c.function.arguments,
                            },
                        }
                        for c in message.tool_calls
                    ],
                }
            )
            for call in message.tool_calls:
                result = await session.call_tool(
                    call.function.name, json.loads(call.function.arguments)
                )
                text = "".join(getattr(block, "text", "") for block in result.content)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    raise RuntimeError(f"no final answer after {max_turns} turns")
