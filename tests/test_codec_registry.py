"""The codec registry in agentsnap.providers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentsnap import providers
from agentsnap.providers import codec_names, get_codec
from agentsnap.providers.openai_chat import normalize


def test_openai_chat_codec() -> None:
    assert get_codec("openai_chat") is normalize


def _codec_modules() -> list[str]:
    folder = Path(providers.__file__).parent
    return sorted(
        p.stem for p in folder.glob("*.py") if not p.stem.startswith("_") and p.stem != "sse"
    )


def test_known_names_are_the_codec_modules() -> None:
    names = codec_names()
    assert "openai_chat" in names and "sse" not in names
    assert names == _codec_modules()
    for name in names:  # every registered codec really is one
        assert callable(get_codec(name))


@pytest.mark.parametrize("name", ["anthropic_messages_typo", "", "OpenAI_Chat"])
def test_unknown_name_lists_the_known_codecs(name: str) -> None:
    with pytest.raises(KeyError) as info:
        get_codec(name)
    known = ", ".join(repr(n) for n in _codec_modules())
    assert info.value.args[0] == f"unknown codec {name!r}; known codecs: {known}"


def test_unhashable_name_is_a_key_error_too() -> None:
    with pytest.raises(KeyError, match="known codecs"):
        get_codec(["openai_chat"])  # type: ignore[arg-type]


def test_codec_modules_are_imported_lazily() -> None:
    src = Path(providers.__file__).resolve().parents[2]
    code = (
        "import sys, agentsnap.providers as p\n"
        "assert 'agentsnap.providers.openai_chat' not in sys.modules\n"
        "assert not {'openai', 'httpx', 'httpx2'} & set(sys.modules)\n"
        "p.get_codec('openai_chat')\n"
        "assert 'agentsnap.providers.openai_chat' in sys.modules\n"
        "assert 'openai' not in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_public_names() -> None:
    assert set(providers.__all__) == {
        "Codec",
        "SSEEvent",
        "codec_for_response",
        "codec_names",
        "get_codec",
        "get_tool_results",
        "parse_sse",
    }


@pytest.mark.parametrize(
    ("body", "codec"),
    [
        ({"id": "c", "object": "chat.completion", "choices": []}, "openai_chat"),
        (
            {"id": "r", "object": "response", "status": "completed", "output": []},
            "openai_responses",
        ),
        ({"type": "message", "role": "assistant", "content": []}, "anthropic_messages"),
        ({"candidates": [{"content": {"parts": []}}]}, "gemini"),
        ({"id": "x", "message": {"role": "assistant", "content": []}}, "cohere_chat"),
        ({"generation_id": "g", "text": "hi"}, "cohere_v1"),
        # an input item of the same type but another role is no response
        ({"type": "message", "role": "user", "content": []}, None),
        ({"messages": []}, None),
        ([{"choices": []}], None),
    ],
)
def test_codec_for_response_asks_each_codec_its_own_shape(body: object, codec: str | None) -> None:
    assert providers.codec_for_response(body) == codec


def test_the_response_codecs_are_those_the_specs_name_and_their_shapes_exclude_each_other() -> None:
    from agentsnap.spec.provider_specs import load_specs

    named = {codec for spec in load_specs() for _, codec in spec.endpoints}
    assert set(providers.RESPONSE_CODECS) == named - {"mistral_chat"}
    samples = [
        {"id": "c", "object": "chat.completion", "choices": []},
        {"id": "r", "object": "response", "status": "completed", "output": []},
        {"type": "message", "role": "assistant", "content": []},
        {"candidates": [{"content": {"parts": []}}]},
        {"id": "x", "message": {"role": "assistant", "content": []}},
        {"generation_id": "g", "text": "hi"},
    ]
    for body in samples:  # so the order codec_for_response asks them in decides nothing
        claims = [
            n for n in providers.RESPONSE_CODECS if providers._module(n).looks_like_response(body)
        ]
        assert len(claims) == 1, (body, claims)


def test_every_response_codec_declares_its_shape() -> None:
    for name in providers.RESPONSE_CODECS:
        assert name in providers.codec_names()
        module = __import__(f"agentsnap.providers.{name}", fromlist=["looks_like_response"])
        assert module.looks_like_response({}) is False


def test_openai_chat_tool_results_lists_tool_turns_in_order() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_A"}, {"id": "call_B"}],
            },
            {"role": "tool", "tool_call_id": "call_B", "content": "09:30"},
            {"role": "tool", "tool_call_id": "call_A", "content": "Sunny"},
        ]
    }
    tool_results = providers.get_tool_results("openai_chat")
    assert tool_results is not None
    assert tool_results(body) == [
        {"id": "call_B", "result": "09:30"},
        {"id": "call_A", "result": "Sunny"},
    ]
    assert tool_results(None) == [] and tool_results({"messages": "x"}) == []


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"user-agent": "cohere/7.3.1"}, "cohere"),
        # cohere 5.x before 5.16 sent no cohere/ User-Agent: its Fern header names the SDK
        ({"user-agent": "python-httpx/0.28.1", "x-fern-sdk-name": "cohere"}, "cohere"),
        ({"x-fern-sdk-name": "cohere"}, "cohere"),
        ({"user-agent": "python-httpx/0.28.1", "x-fern-sdk-name": "someone-else"}, None),
        ({"user-agent": "python-httpx/0.28.1"}, None),
        ({}, None),
    ],
)
def test_specs_recognise_an_sdk_by_user_agent_or_by_its_own_header(
    headers: dict[str, str], expected: str | None
) -> None:
    import httpx

    from agentsnap.spec.provider_specs import classify

    spec = classify(httpx.Request("POST", "https://api.cohere.com/v2/chat", headers=headers))
    assert (spec.name if spec is not None else None) == expected
