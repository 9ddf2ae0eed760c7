"""The weather agent as a LangGraph graph: a chat-model node and a tool node, looping.

Works with any LangChain chat model that supports tool calling::

    from langchain_openai import ChatOpenAI
    agent = build_agent(ChatOpenAI(model="gpt-4o-mini"))
    ask(agent, "What's the weather and time in Paris?")

    from langchain_anthropic import ChatAnthropic
    agent = build_agent(ChatAnthropic(model="claude-sonnet-4-6"))
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from weather_agent import SYSTEM_PROMPT, get_time, get_weather

TOOLS = [get_weather, get_time]


def build_agent(model: BaseChatModel) -> Any:
    """A compiled graph: ``model`` (with the tools bound) <-> ``tools``, until the model answers."""
    bound = model.bind_tools(TOOLS)

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke([SystemMessage(SYSTEM_PROMPT), *state["messages"]])]}

    async def acall_model(state: MessagesState) -> dict[str, Any]:
        return {
            "messages": [await bound.ainvoke([SystemMessage(SYSTEM_PROMPT), *state["messages"]])]
        }

    builder = StateGraph(MessagesState)
    builder.add_node("model", RunnableLambda(call_model, afunc=acall_model))
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)  # tool calls -> "tools", else the end
    builder.add_edge("tools", "model")
    return builder.compile()


def text_of(message: BaseMessage) -> str:
    """A message's text: its content string, or its text blocks joined (Anthropic-style content)."""
    if isinstance(message.content, str):
        return message.content
    return "".join(
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in message.content
        if isinstance(part, str) or part.get("type") == "text"
    )


def ask(agent: Any, question: str) -> str:
    """Run the graph on one question; returns the final answer's text."""
    state = agent.invoke({"messages": [HumanMessage(question)]})
    return text_of(state["messages"][-1])


async def aask(agent: Any, question: str) -> str:
    """``ask`` with ``ainvoke``."""
    state = await agent.ainvoke({"messages": [HumanMessage(question)]})
    return text_of(state["messages"][-1])


def stream_answer(agent: Any, question: str) -> Iterator[str]:
    """Yield the final answer's tokens as the model streams them (``stream_mode="messages"``)."""
    for chunk, metadata in agent.stream(
        {"messages": [HumanMessage(question)]}, stream_mode="messages"
    ):
        if (
            metadata.get("langgraph_node") == "model"
            and isinstance(chunk, AIMessageChunk)
            and text_of(chunk)
        ):
            yield text_of(chunk)


if __name__ == "__main__":  # pragma: no cover - needs OPENAI_API_KEY (or OPENAI_BASE_URL)
    import sys

    from langchain_openai import ChatOpenAI

    print(
        ask(
            build_agent(ChatOpenAI(model="gpt-4o-mini")),
            " ".join(sys.argv[1:]) or "What's the weather and time in Paris?",
        )
    )
