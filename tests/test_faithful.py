"""Byte-faithful responses: what user code can read is the same live and in replay.

Each test records a call of a real SDK against a loopback fake, stops the
server, replays it with every socket refused, and compares what the SDK hands
user code: the raw response's headers (every one, ``content-length`` and
``transfer-encoding`` included) and the body bytes. The fakes answer JSON with
``json.dumps``'s default separators in insertion order, which the old
re-serialisation changed (google-genai's ``content-length`` 343 live, 317 replayed).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.capture.faithful import replay_body, response_body
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

MESSAGES = [{"role": "user", "content": "Weather in Paris? ☀"}]


def record_then_replay(
    tmp_path: Path, offline: Offline, fake: Any, name: str, run: Callable[[str], Any]
) -> tuple[Any, Any]:
    with fake:
        base = fake.base_url
        with AgentRecorder(name, snapshot_dir=tmp_path):
            live = run(base)
    with offline(), AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
        replayed = run(base)
    return live, replayed


def exchange_response(tmp_path: Path, name: str) -> dict[str, Any]:
    data = json.loads(SnapshotStore(tmp_path).path_for(name).read_text(encoding="utf-8"))
    (step,) = [s for s in data["trace"] if s["type"] == "llm_call"]
    return step["exchange"]["response"]


def same_headers(replayed: Any, live: Any) -> None:
    """Every (name, value) pair user code can iterate, as a multiset, and the mapping view."""
    assert sorted((k.lower(), v) for k, v in replayed.items()) == sorted(
        (k.lower(), v) for k, v in live.items()
    )
    assert "content-length" in {k.lower() for k in live} or "transfer-encoding" in {
        k.lower() for k in live
    }


# --------------------------------------------------------------------------- openai / groq (Stainless)


def test_openai_raw_response_headers_and_bytes(tmp_path: Path, offline: Offline) -> None:
    import openai

    from tests.fake_provider import FakeOpenAI, text_reply

    fake = FakeOpenAI()
    fake.script(text_reply("Sunny."))

    def run(base: str) -> tuple[Any, bytes]:
        client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=MESSAGES
        )
        return raw.http_response.headers, raw.http_response.content

    (live_h, live_b), (rep_h, rep_b) = record_then_replay(tmp_path, offline, fake, "oa_raw", run)
    assert rep_b == live_b
    same_headers(rep_h, live_h)
    assert rep_h["content-length"] == live_h["content-length"] == str(len(live_b))
    assert "server" in rep_h and "date" in rep_h
    stored = exchange_response(tmp_path, "oa_raw")
    assert stored["text"].encode("utf-8") == live_b and stored["body"] == json.loads(live_b)


def test_openai_streamed_response_headers_and_bytes(tmp_path: Path, offline: Offline) -> None:
    import openai

    from tests.fake_provider import FakeOpenAI, stream_text_reply

    fake = FakeOpenAI()
    fake.script(stream_text_reply(["Sun", "ny."]))

    def run(base: str) -> tuple[Any, bytes]:
        client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
        with client.chat.completions.with_streaming_response.create(
            model="gpt-4o-mini", messages=MESSAGES, stream=True
        ) as resp:
            return resp.headers, b"".join(resp.iter_bytes())

    (live_h, live_b), (rep_h, rep_b) = record_then_replay(tmp_path, offline, fake, "oa_stream", run)
    assert rep_b == live_b
    same_headers(rep_h, live_h)
    assert (
        rep_h["transfer-encoding"] == "chunked" and rep_h["x-request-id"] == live_h["x-request-id"]
    )


def test_groq_raw_response_headers_and_bytes(tmp_path: Path, offline: Offline) -> None:
    import groq

    from tests.fake_openai_extra import FakeGroq, groq_reply

    fake = FakeGroq()
    fake.script(groq_reply("Sunny."))

    def run(base: str) -> tuple[Any, bytes]:
        client = groq.Groq(base_url=base, api_key="gsk-test", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="llama-3.3-70b-versatile", messages=MESSAGES
        )
        return raw.http_response.headers, raw.http_response.content

    (live_h, live_b), (rep_h, rep_b) = record_then_replay(tmp_path, offline, fake, "groq_raw", run)
    assert rep_b == live_b
    same_headers(rep_h, live_h)


# --------------------------------------------------------------------------- anthropic


def test_anthropic_raw_response_headers_and_bytes_but_no_account_id(
    tmp_path: Path, offline: Offline
) -> None:
    import anthropic

    from tests.fake_anthropic import FakeAnthropic, text_reply

    fake = FakeAnthropic()
    fake.script(text_reply("Sunny."))

    def run(base: str) -> tuple[Any, bytes, str | None]:
        client = anthropic.Anthropic(base_url=base, api_key="sk-ant-test", max_retries=0)
        raw = client.messages.with_raw_response.create(
            model="claude-sonnet-4-6", max_tokens=64, messages=MESSAGES
        )
        return raw.http_response.headers, raw.http_response.content, raw.parse()._request_id

    (live_h, live_b, live_id), (rep_h, rep_b, rep_id) = record_then_replay(
        tmp_path, offline, fake, "an_raw", run
    )
    assert rep_b == live_b and rep_id == live_id is not None
    # the organisation id is an account identifier: replayed as <redacted>, every other
    # header as it was live, so the key set is the live one
    assert live_h["anthropic-organization-id"] == "org-fake-0001"
    assert rep_h["anthropic-organization-id"] == "<redacted>"
    same_headers(rep_h, {**live_h, "anthropic-organization-id": "<redacted>"})


def test_anthropic_stream_headers_and_bytes(tmp_path: Path, offline: Offline) -> None:
    import anthropic

    from tests.fake_anthropic import FakeAnthropic, stream_text_reply

    fake = FakeAnthropic()
    fake.script(stream_text_reply("Sunny and warm."))

    def run(base: str) -> tuple[Any, bytes]:
        client = anthropic.Anthropic(base_url=base, api_key="sk-ant-test", max_retries=0)
        with client.messages.with_streaming_response.create(
            model="claude-sonnet-4-6", max_tokens=64, messages=MESSAGES, stream=True
        ) as resp:
            return resp.headers, b"".join(resp.iter_bytes())

    (live_h, live_b), (rep_h, rep_b) = record_then_replay(tmp_path, offline, fake, "an_stream", run)
    assert rep_b == live_b
    same_headers(rep_h, {**live_h, "anthropic-organization-id": "<redacted>"})


# --------------------------------------------------------------------------- cohere


def test_cohere_v2_raw_response_headers_and_body(tmp_path: Path, offline: Offline) -> None:
    import cohere

    from tests.fake_cohere import FakeCohere, v2_chat_reply

    fake = FakeCohere()
    fake.script(v2_chat_reply("Sunny."))

    def run(base: str) -> tuple[dict[str, str], Any]:
        client = cohere.ClientV2(api_key="co-test", base_url=base)
        raw = client.with_raw_response.chat(model="command-a-03-2025", messages=MESSAGES)
        return dict(raw.headers), raw.data

    (live_h, live_d), (rep_h, rep_d) = record_then_replay(tmp_path, offline, fake, "co_raw", run)
    assert rep_h == live_h and "content-length" in rep_h and "x-debug-trace-id" in rep_h
    assert rep_d == live_d


# --------------------------------------------------------------------------- google-genai


def test_gemini_sdk_http_response_content_length_and_stream_request_id(
    tmp_path: Path, offline: Offline
) -> None:
    """The issue's two observations: a replayed generate_content showed another
    content-length (body re-serialised); a replayed stream lacked a header it had live."""
    from google import genai
    from google.genai import types

    from tests.fake_gemini import FakeGemini, stream_text_reply, text_reply

    fake = FakeGemini()
    fake.script(text_reply("Sunny."), stream_text_reply(["Sun", "ny."]))

    def run(base: str) -> tuple[Any, list[Any]]:
        client = genai.Client(api_key="gm-test", http_options=types.HttpOptions(base_url=base))
        one = client.models.generate_content(model="gemini-2.5-flash", contents="Weather?")
        chunks = list(
            client.models.generate_content_stream(model="gemini-2.5-flash", contents="Weather?")
        )
        return one, chunks

    (live, live_chunks), (rep, rep_chunks) = record_then_replay(tmp_path, offline, fake, "gm", run)
    assert rep.sdk_http_response.headers == live.sdk_http_response.headers
    assert (
        rep.sdk_http_response.headers["content-length"]
        == live.sdk_http_response.headers["content-length"]
    )
    assert [c.sdk_http_response.headers for c in rep_chunks] == [
        c.sdk_http_response.headers for c in live_chunks
    ]
    assert set(live_chunks[0].sdk_http_response.headers) >= {
        "x-request-id",
        "server",
        "date",
        "transfer-encoding",
    }
    assert [c.model_dump() for c in rep_chunks] == [c.model_dump() for c in live_chunks]


# --------------------------------------------------------------------------- the storage rule


@pytest.mark.parametrize(
    ("raw", "stored", "exact"),
    [
        # what the snapshot file gives back exactly (sorted keys, compact): stored parsed only
        (b'{"a":1,"b":[true,null]}', {"body": {"a": 1, "b": [True, None]}}, True),
        # any other layout: parsed (readable) and the text the server sent (served)
        (
            b'{\n  "b": 1,\n  "a": "\\u00e9"\n}\n',
            {"body": {"b": 1, "a": "\u00e9"}, "text": '{\n  "b": 1,\n  "a": "\\u00e9"\n}\n'},
            True,
        ),
        (b'{"b": 1, "a": 2}', {"body": {"b": 1, "a": 2}, "text": '{"b": 1, "a": 2}'}, True),
        (b"plain text", {"text": "plain text"}, True),
        (b"", {"body": None}, True),
    ],
)
def test_response_body_storage(raw: bytes, stored: dict[str, Any], exact: bool) -> None:
    assert response_body(raw, "application/json", verbatim=False) == (stored, exact)
    assert replay_body(stored) == (raw, True)


def test_a_hand_edited_body_is_served_as_edited() -> None:
    stored, _ = response_body(b'{"answer": "Sunny", "n": 1}', "application/json", verbatim=False)
    stored["body"]["answer"] = "Rainy"
    assert replay_body(stored) == (b'{"answer":"Rainy","n":1}', False)


def test_a_body_with_a_secret_is_stored_scrubbed_not_verbatim() -> None:
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
    stored, exact = response_body(
        json.dumps({"key": secret, "z": 1}).encode(), "application/json", verbatim=False
    )
    assert exact is False and "body" in stored and secret not in json.dumps(stored)


@pytest.mark.parametrize("module_name", ["httpx", "httpx2"])
@pytest.mark.parametrize(
    "pairs",
    [
        [("content-type", "application/json"), ("Content-Length", "544"), ("x-request-id", "r")],
        [("set-cookie", "a=1"), ("set-cookie", "b=2"), ("X-Mixed-Case", "")],
        [],
        [(b"x-bytes", b"v")],  # not strings: left to the library
        [("x-n", 7)],  # a value that is not a string: the library's TypeError
        [("x-caf\u00e9", "v")],  # not ASCII: the library's UnicodeEncodeError
        [("x-v", "caf\u00e9")],
    ],
)
def test_served_headers_are_the_library_s_own(module_name: str, pairs: list[Any]) -> None:
    """A replayed response's headers built in one pass (transports.httpx._served_triples and
    _headers_of) equal what ``Headers(pairs)`` builds, raise what it raises, and a response owns
    its copy."""
    module = pytest.importorskip(module_name)
    from agentsnap.capture.transports.httpx import _headers_of, _served_triples

    def _headers(module: Any, pairs: list[Any]) -> Any:
        return _headers_of(module, _served_triples(module, pairs))

    try:
        expected = module.Headers(pairs)
    except Exception as exc:
        with pytest.raises(type(exc)):
            _headers(module, pairs)
        return
    got = _headers(module, pairs)
    assert type(got) is type(expected)
    assert got._list == expected._list and got.raw == expected.raw
    assert got.multi_items() == expected.multi_items() and got.encoding == expected.encoding
    one = module.Response(200, headers=got, content=b"{}")
    two = module.Response(200, headers=got, content=b"{}")
    one.headers["x-added"] = "1"
    assert "x-added" not in two.headers and "x-added" not in got
    assert two.headers.raw == module.Response(200, headers=pairs, content=b"{}").headers.raw


def test_served_headers_without_the_private_list_are_the_library_s_own() -> None:
    """A ``Headers`` that keeps no ``_list`` (a release that renamed it) is built by the library
    itself from the pairs: the public path main took before the one-pass build."""
    import types

    class Headers:  # no ``_list``: only what it was given
        def __init__(self, pairs: Any = None) -> None:
            self.pairs = list(pairs or [])

    from agentsnap.capture.transports.httpx import _headers_of, _served_triples

    pairs = [("Content-Type", "application/json"), ("x-request-id", "req_1")]
    module = types.SimpleNamespace(Headers=Headers)
    got = _headers_of(module, _served_triples(module, pairs))  # type: ignore[arg-type]
    assert type(got) is Headers and got.pairs == pairs
