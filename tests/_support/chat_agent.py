"""A tiny chat agent on the real openai SDK against the loopback fake: one client, the
conversation grown turn by turn (each question, then the model's answer)."""

from __future__ import annotations

from typing import Any


def chat_agent(fake: Any, questions: list[str]) -> str:
    """Ask ``questions`` in one conversation with ``fake`` (a ``tests.fake_provider.FakeOpenAI``);
    the last answer."""
    import openai

    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    answer = ""
    messages: list[dict[str, str]] = []
    for question in questions:
        messages.append({"role": "user", "content": question})
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=list(messages))
        answer = reply.choices[0].message.content or ""
        messages.append({"role": "assistant", "content": answer})
    return answer
