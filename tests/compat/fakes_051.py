"""The loopback fakes the compat project talks to, with deterministic answers.

Stdlib plus ``tests/fake_provider.py`` / ``tests/fake_anthropic.py`` (no agentsnap
import), so the same module drives the recording under agentsnap 0.5.1
(``record_051.py``, run by the 0.5.1 venv's Python) and the live comparison
under agentsnap from this repo (``test_project_051.py``).

OpenAI: a first question gets a ``get_weather`` tool call for the city it names,
a request whose last message is a tool result gets the answer, a streamed
request gets a streamed description. Anthropic: the same with ``tool_use``.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root: `tests.fake_*`

from tests import fake_anthropic as fa
from tests import fake_provider as fp


def _city(text: Any) -> str:
    found = re.search(r"(?:in|over) ([A-Z][a-z]+)", str(text))
    return found.group(1) if found else "Nowhere"


def _first_user_text(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return str(message["content"])
    return ""


def openai_reply(body: dict[str, Any]) -> fp.Reply:
    messages = body.get("messages") or []
    city = _city(_first_user_text(messages))
    if body.get("stream"):
        return fp.stream_text_reply(["Grey ", "clouds ", "over ", city, "."])
    if messages and messages[-1].get("role") == "tool":
        return fp.text_reply(f"It is 18C with light rain in {city}.")
    return fp.tool_calls_reply([("call_" + city.lower(), "get_weather", {"city": city})])


def anthropic_reply(body: dict[str, Any]) -> fp.Reply:
    messages = body.get("messages") or []
    city = _city(_first_user_text(messages))
    if body.get("stream"):
        return fa.stream_reply(
            fa.text_block(f"Low grey clouds over {city}."), model="claude-haiku-4-5"
        )
    last = messages[-1].get("content") if messages else None
    if isinstance(last, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in last
    ):
        return fa.text_reply(f"In {city} it is 18C with light rain.", model="claude-haiku-4-5")
    return fa.tool_use_reply(
        [("toolu_" + city.lower(), "get_weather", {"city": city})], model="claude-haiku-4-5"
    )


@contextlib.contextmanager
def running() -> Iterator[dict[str, str]]:
    """Both fakes started; yields the environment the project reads their URLs from."""
    with fp.FakeOpenAI() as oai, fa.FakeAnthropic() as ant:
        oai.respond_with(openai_reply)
        ant.respond_with(anthropic_reply)
        yield {"WEATHER_OPENAI_URL": oai.base_url, "WEATHER_ANTHROPIC_URL": ant.base_url}
