"""What the agentsnap 0.5.1 docs' code blocks take for granted: the user's own agent and clients.

The blocks call ``my_agent(client, search_tool, input=...)``, ``my_agent(wrapped_client, ...)``
and ``run_agent(...)`` and use ``client`` / ``search_tool`` / ``wrapped_client``; this module
is that user code (real SDK clients talking to the loopback fakes whose URLs are in
``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL``). ``DOCS_AGENT_VARIANT=changed`` makes the agent
answer differently (the "intentional change" of the approval flow).
"""

from __future__ import annotations

import os
from typing import Any

import anthropic
import openai

from agentsnap.adapters.anthropic import AnthropicAdapter
from agentsnap.adapters.openai import OpenAIAdapter
from agentsnap.adapters.tool import ToolAdapter


def search(query: str) -> str:
    return f"Results for: {query}"


client = AnthropicAdapter(anthropic.Anthropic(max_retries=0))
search_tool = ToolAdapter(search, name="search")
wrapped_client = OpenAIAdapter(openai.OpenAI(max_retries=0))


#: what the changed agent answers instead (the "intentional change" of the approval flow)
CHANGED_ANSWER = "Bananas grow in warm, humid places."


def _changed() -> bool:
    return os.environ.get("DOCS_AGENT_VARIANT") == "changed"


def my_agent(llm: Any, tool: Any = None, input: str = "What is Python?") -> str:
    """Ask the model, run the search tool, return the answer (either SDK)."""
    tool = tool if callable(tool) else search_tool
    found = tool(query="Python")
    if hasattr(llm, "messages"):
        reply = llm.messages.create(
            model="claude-haiku-4-5",
            max_tokens=128,
            messages=[{"role": "user", "content": f"{input} {found}"}],
        )
        text = "".join(b.text for b in reply.content if b.type == "text")
    else:
        reply = llm.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": f"{input} {found}"}]
        )
        text = reply.choices[0].message.content or ""
    return CHANGED_ANSWER if _changed() else text


def run_agent(*args: Any) -> str:
    return my_agent(wrapped_client, search_tool, input="What is Python?")
