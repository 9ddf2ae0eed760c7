"""Scrub by value: a credential the client sent is removed wherever its value appears.

Provider keys with no recognisable prefix (Azure OpenAI's 32 hex digits,
Mistral's 32 alphanumerics, Cohere's 40) cannot be found by a pattern, but
agentsnap knows them: the client sent them in its auth header. Each provider
SDK runs against its loopback fake with a fake key of that provider's real
shape, which comes back in the response body, in a 401 error body, in the
prompt (the user pasted the client's own key), and — for the streaming
providers — split across two SSE events inside its random part. No byte under
the snapshot folder (goldens, ``.last_run/``, ``blobs/``) nor of the HTML
report may contain it, and replay of the scrubbed snapshot still matches.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import string
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore, config
from agentsnap.html_report._collect import ReportCollector
from agentsnap.storage import scrub
from agentsnap.storage.scrub import credentials as scrub_credentials
from agentsnap.storage.scrub import text as text_rules
from tests._support.ci import clear_ci

pytestmark = [
    pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning"),
    pytest.mark.filterwarnings(
        "ignore:The `__fields__` attribute is deprecated:DeprecationWarning"
    ),
]


_RNG = random.Random(14)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


# fake keys of each provider's real shape
SHAPES: dict[str, str] = {
    "openai": "sk-proj-" + _rand(156, _ALNUM + "_-"),
    "azure": _rand(32, "0123456789abcdef"),
    "anthropic": "sk-ant-api03-" + _rand(93, _ALNUM + "_-") + "AA",
    "groq": "gsk_" + _rand(52),
    "mistral": _rand(32),
    "cohere": _rand(40),
    "google": "AIza" + _rand(35, _ALNUM + "_-"),
}


@pytest.fixture(autouse=True)
def _local_not_ci(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    clear_ci(monkeypatch)
    forget = getattr(
        scrub, "forget_secrets", lambda: None
    )  # (so that, without it, the tests fail rather than error)
    forget()
    yield
    forget()


def _leaks(data: bytes, key: str) -> list[str]:
    """Which forms of ``key`` (or a 12-character piece of its random part) ``data`` holds."""
    found = []
    tail = key[-16:]
    for label, form in (
        ("plain", key),
        ("json", json.dumps(key)[1:-1]),
        ("url", quote(key, safe="")),
        ("base64", base64.b64encode(key.encode()).decode()[:-4]),
        ("tail", tail),
        ("middle", key[len(key) // 2 - 6 : len(key) // 2 + 6]),
    ):
        if form.encode() in data:
            found.append(label)
    return found


def assert_no_key_bytes(root: Path, key: str, *extra: Path) -> None:
    files = [p for p in root.rglob("*") if p.is_file()] + list(extra)
    assert any(p.suffix == ".json" for p in files), f"nothing written under {root}"
    for path in files:
        leaks = _leaks(path.read_bytes(), key)
        assert not leaks, f"the key leaked into {path} ({', '.join(leaks)})"


def run_provider(
    tmp_path: Path, name: str, key: str, run: Callable[[], Any], stop: Callable[[], None]
) -> tuple[Any, Any]:
    root = tmp_path / "snaps"
    settings = config.load(tmp_path, env={})
    report = tmp_path / "report.html"
    collector = ReportCollector(report).start()
    try:
        with AgentRecorder(name, snapshot_dir=root, settings=settings):
            live = run()
        stop()
        with AgentAsserter(name, snapshot_dir=root, mode="replay", settings=settings):
            replayed = run()
        collector.write({"mode": "replay", "ci": False})
    finally:
        collector.stop()
    assert report.is_file()
    assert_no_key_bytes(root, key, report)
    last = SnapshotStore(root).load_last_run(name)
    assert last is not None
    assert [s.get("request_drift") for s in last.trace if s.get("request_drift")] == []
    return live, replayed


def _prompt(key: str) -> str:
    return f"My key is {key}; is it valid?"


def _echo(key: str) -> str:
    return f"You sent {key} as your key."


def _error(key: str) -> str:
    return f"Unauthorized: API key {key} is not valid"


def _split_events(reply: Any, marker: str, head: str, tail: str) -> Any:
    """``reply`` (a fake's SSE Reply) with the one event holding ``marker`` sent as two events: ``head`` then ``tail``."""
    events = []
    for event in reply.events:
        if marker in event:  # the word's delta ("XKEYX "): its head, then its tail with the space
            events.append(event.replace(marker + " ", head))
            events.append(event.replace(marker + " ", tail + " "))
        else:
            events.append(event)
    return dataclasses.replace(reply, events=tuple(events))


# --------------------------------------------------------------------------- OpenAI-compatible


@pytest.mark.parametrize("provider", ["openai", "azure", "groq"])
def test_openai_compatible_key_echoed_everywhere_is_kept_out(tmp_path: Path, provider: str) -> None:
    import openai

    from tests.fake_openai_extra import FakeGroq
    from tests.fake_provider import (
        FakeOpenAI,
        error_reply,
        stream_text_reply,
        text_reply,
    )

    class FakeAzure(FakeOpenAI):
        routes = (("POST", "/v1/deployments/gpt-4o-mini/chat/completions"),)

    key = SHAPES[provider]
    server = {"azure": FakeAzure, "groq": FakeGroq}.get(provider, FakeOpenAI)
    with server() as fake:
        if provider == "azure":
            client: Any = openai.AzureOpenAI(
                api_key=key, api_version="2024-06-01", base_url=fake.base_url, max_retries=0
            )
        elif provider == "groq":
            import groq

            client = groq.Groq(api_key=key, base_url=fake.origin, max_retries=0)
        else:
            client = openai.OpenAI(api_key=key, base_url=fake.base_url, max_retries=0)
        cut = len(key) // 2  # inside the random part

        def responder(body: dict) -> Any:
            if body.get("stream"):
                return stream_text_reply(["Your key is ", key[:cut], key[cut:], " ok"])
            if "error please" in json.dumps(body):
                return error_reply(
                    401,
                    retry_after=None,
                    message=_error(key),
                    type="invalid_request_error",
                    code="invalid_api_key",
                )
            return text_reply(_echo(key))

        fake.respond_with(responder)

        def run() -> tuple[str, str, str]:
            a = client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": _prompt(key)}]
            )
            parts = client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], stream=True
            )
            streamed = "".join(c.choices[0].delta.content or "" for c in parts if c.choices)
            try:
                client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "error please"}]
                )
            except openai.AuthenticationError as exc:
                err = str(exc)
            except Exception as exc:  # groq's own AuthenticationError
                assert type(exc).__name__ == "AuthenticationError", exc
                err = str(exc)
            else:
                raise AssertionError("no 401")
            return a.choices[0].message.content or "", streamed, err

        live, replayed = run_provider(tmp_path, provider, key, run, fake.stop)
    assert live[0] == _echo(key) and live[1] == f"Your key is {key} ok" and key in live[2]
    assert replayed[0] == "You sent <redacted> as your key."
    assert replayed[1] == "Your key is <redacted> ok"
    assert "API key <redacted> is not valid" in replayed[2] and key not in replayed[2]


# --------------------------------------------------------------------------- Anthropic


def test_anthropic_key_echoed_everywhere_is_kept_out(tmp_path: Path) -> None:
    import anthropic

    from tests.fake_anthropic import (
        FakeAnthropic,
        error_reply,
        stream_text_reply,
        text_reply,
    )

    key = SHAPES["anthropic"]
    cut = len(key) // 2
    with FakeAnthropic() as fake:
        client = anthropic.Anthropic(api_key=key, base_url=fake.base_url, max_retries=0)

        def responder(body: dict) -> Any:
            text = json.dumps(body)
            if body.get("stream"):
                return _split_events(
                    stream_text_reply("Your key is XKEYX ok"), "XKEYX", key[:cut], key[cut:]
                )
            if "error please" in text:
                return error_reply(401, message=_error(key), type="authentication_error")
            return text_reply(_echo(key))

        fake.respond_with(responder)

        def run() -> tuple[str, str, str]:
            a = client.messages.create(
                model="claude-sonnet-4-6",
                max_tokens=32,
                messages=[{"role": "user", "content": _prompt(key)}],
            )
            with client.messages.stream(
                model="claude-sonnet-4-6",
                max_tokens=32,
                messages=[{"role": "user", "content": "hi"}],
            ) as s:
                streamed = "".join(s.text_stream)
            with pytest.raises(anthropic.AuthenticationError) as err:
                client.messages.create(
                    model="claude-sonnet-4-6",
                    max_tokens=32,
                    messages=[{"role": "user", "content": "error please"}],
                )
            return a.content[0].text, streamed, str(err.value)

        live, replayed = run_provider(tmp_path, "anthropic", key, run, fake.stop)
    assert live[0] == _echo(key) and live[1] == f"Your key is {key} ok" and key in live[2]
    assert replayed[0] == "You sent <redacted> as your key."
    assert replayed[1] == "Your key is <redacted> ok"
    assert "<redacted>" in replayed[2] and key not in replayed[2]


# --------------------------------------------------------------------------- Mistral


def test_mistral_key_echoed_everywhere_is_kept_out(tmp_path: Path) -> None:
    from mistralai.client import Mistral

    from tests.fake_mistral import FakeMistral, error_reply, text_reply

    key = SHAPES["mistral"]
    with FakeMistral() as fake:
        client = Mistral(api_key=key, server_url=fake.base_url)

        def responder(body: dict) -> Any:
            if "error please" in json.dumps(body):
                return error_reply(401, message=_error(key))
            return text_reply(_echo(key))

        fake.respond_with(responder)

        def run() -> tuple[str, str]:
            a = client.chat.complete(
                model="mistral-small-latest", messages=[{"role": "user", "content": _prompt(key)}]
            )
            try:
                client.chat.complete(
                    model="mistral-small-latest",
                    messages=[{"role": "user", "content": "error please"}],
                )
            except Exception as exc:  # the SDK's SDKError / HTTPValidationError, by version
                err = str(exc)
            else:
                raise AssertionError("no 401")
            return str(a.choices[0].message.content), err

        live, replayed = run_provider(tmp_path, "mistral", key, run, fake.stop)
    assert live[0] == _echo(key) and key in live[1]
    assert replayed[0] == "You sent <redacted> as your key."
    assert key not in replayed[1] and "<redacted>" in replayed[1]


# --------------------------------------------------------------------------- Cohere


def test_cohere_key_echoed_everywhere_is_kept_out(tmp_path: Path) -> None:
    import cohere

    from tests.fake_cohere import FakeCohere, error_reply, v2_chat_reply

    key = SHAPES["cohere"]
    with FakeCohere() as fake:
        client = cohere.ClientV2(api_key=key, base_url=fake.base_url, max_retries=0)

        def responder(body: dict) -> Any:
            if "error please" in json.dumps(body):
                return error_reply(401, message=_error(key))
            return v2_chat_reply(_echo(key))

        fake.respond_with(responder)

        def run() -> tuple[str, str]:
            a = client.chat(
                model="command-r-plus", messages=[{"role": "user", "content": _prompt(key)}]
            )
            try:
                client.chat(
                    model="command-r-plus", messages=[{"role": "user", "content": "error please"}]
                )
            except Exception as exc:  # cohere's UnauthorizedError / ApiError
                err = str(exc)
            else:
                raise AssertionError("no 401")
            return a.message.content[0].text, err

        live, replayed = run_provider(tmp_path, "cohere", key, run, fake.stop)
    assert live[0] == _echo(key) and key in live[1]
    assert replayed[0] == "You sent <redacted> as your key."
    assert key not in replayed[1] and "<redacted>" in replayed[1]


# --------------------------------------------------------------------------- google-genai


def test_google_genai_key_echoed_everywhere_is_kept_out(tmp_path: Path) -> None:
    from google import genai
    from google.genai import errors, types

    from tests.fake_gemini import FakeGemini, error_reply, text_reply

    key = SHAPES["google"]
    with FakeGemini() as fake:
        client = genai.Client(api_key=key, http_options=types.HttpOptions(base_url=fake.base_url))

        def responder(body: dict) -> Any:
            if "error please" in json.dumps(body):
                return error_reply(401, _error(key))
            return text_reply(_echo(key))

        fake.respond_with(responder)

        def run() -> tuple[str, str]:
            a = (
                client.models.generate_content(model="gemini-2.5-flash", contents=_prompt(key)).text
                or ""
            )
            with pytest.raises(errors.ClientError) as err:
                client.models.generate_content(model="gemini-2.5-flash", contents="error please")
            return a, str(err.value)

        live, replayed = run_provider(tmp_path, "google", key, run, fake.stop)
    assert live[0] == _echo(key) and key in live[1]
    assert replayed[0] == "You sent <redacted> as your key."
    assert key not in replayed[1] and "<redacted>" in replayed[1]


# --------------------------------------------------------------------------- the remembering itself


def test_remember_credentials_reads_every_credential_a_request_carries() -> None:
    basic = base64.b64encode(b"svc-user:Pa55word-0123456789").decode()
    scrub.remember_credentials(
        [
            ("Authorization", "Bearer " + SHAPES["mistral"]),
            ("api-key", SHAPES["azure"]),
            ("x-goog-api-key", SHAPES["google"]),
            ("Proxy-Authorization", "Basic " + basic),
            ("x-custom-token", "tok-0123456789abcdefXYZ"),
            ("content-type", "application/json; charset=utf-8"),
            ("user-agent", "OpenAI/Python 1.99.0 a-long-user-agent"),
        ],
        "https://admin:UrlPassword-0123456789@api.example.com/v1/x?key=QueryKey0123456789abc&alt=json",
    )
    assert scrub.remembered() == {
        SHAPES["mistral"],
        SHAPES["azure"],
        SHAPES["google"],
        basic,
        "svc-user:Pa55word-0123456789",
        "Pa55word-0123456789",
        "tok-0123456789abcdefXYZ",
        "UrlPassword-0123456789",
        "QueryKey0123456789abc",
    }
    key = SHAPES["cohere"]
    assert scrub.remember_secret(key) is True and scrub.remember_secret(key) is False
    assert scrub.remember_secret("short") is False and scrub.remember_secret("a" * 40) is False


@pytest.mark.parametrize(
    "form",
    [
        lambda k: k,
        lambda k: json.dumps({"k": k}),
        lambda k: quote(f"q={k}&x=1"),
        lambda k: base64.b64encode(f"prefix {k} suffix".encode()).decode(),
        lambda k: base64.urlsafe_b64encode(f"ab{k}".encode()).decode(),
        lambda k: base64.b64encode(f"Authorization: Bearer {k}".encode()).decode(),
    ],
    ids=["plain", "json", "url", "base64", "base64-urlsafe", "base64-of-header"],
)
def test_a_remembered_value_is_removed_in_every_form(form: Callable[[str], str]) -> None:
    key = "Ab+/" + SHAPES["cohere"] + 'é"x'
    scrub.remember_secret(key)
    text = form(key)
    out = scrub.scrub_text(f"before {text} after")
    assert scrub.REDACTED in out
    for core in scrub.secret_forms(key):
        assert core not in out
    assert scrub.scrub_text(out) == out  # idempotent


def test_a_remembered_value_is_overwritten_in_bytes_of_the_same_length() -> None:
    key = SHAPES["mistral"]
    scrub.remember_secret(key)
    data = b"\x00\xff\x10" + key.encode() + b"\x80 sk-proj-" + b"A1" * 20 + b"\x00"
    out = scrub.scrub_bytes(data)
    assert len(out) == len(data)
    assert key.encode() not in out and b"sk-proj-A1A1" not in out
    assert out.startswith(b"\x00\xff\x10" + b"*" * len(key) + b"\x80 ")


def test_a_key_inside_a_large_binary_upload_never_reaches_blobs(tmp_path: Path) -> None:
    """A > 1 MiB non-UTF-8 upload is stored as a side file: scrubbed like everything else."""
    import httpx

    from tests.fake_provider import FakeOpenAI, text_reply

    key = SHAPES["azure"]
    shaped = "sk-proj-" + _rand(40)
    payload = (
        b"\xff\xfe" + bytes(range(256)) * 4200 + key.encode() + b"\x00" + shaped.encode() + b"\xff"
    )
    assert len(payload) > 1024 * 1024
    root = tmp_path / "snaps"
    settings = config.load(tmp_path, env={})
    with FakeOpenAI() as fake:
        fake.respond_with(lambda body: text_reply("ok"))
        with AgentRecorder("upload", snapshot_dir=root, settings=settings):
            with httpx.Client() as http:
                http.post(
                    fake.base_url + "/chat/completions",
                    content=payload,
                    headers={
                        "api-key": key,
                        "user-agent": "OpenAI/Python 1.99.0",
                        "content-type": "application/octet-stream",
                    },
                )
    blobs = list((root / "blobs").iterdir())
    assert len(blobs) == 1 and blobs[0].stat().st_size == len(payload)
    assert_no_key_bytes(root, key)
    assert shaped.encode() not in blobs[0].read_bytes()


# --------------------------------------------------------------------------- shapes without a remembered value


URL_PASSWORD = "Zq8-PASSWORD-0001"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
AWS_TOKEN = "FwoGZXIvYXdzEBYaDEXAMPLEsessionTOKEN0123456789/+abc=="


def test_url_passwords_and_aws_credentials_in_tool_values_and_prompts_are_kept_out(
    tmp_path: Path,
) -> None:
    root = tmp_path / "snaps"
    settings = config.load(tmp_path, env={})
    with AgentRecorder("shapes", snapshot_dir=root, settings=settings, model="m") as rec:
        rec.record_tool_call(
            "connect",
            {"dsn": f"postgresql://app:{URL_PASSWORD}@db.internal:5432/prod"},
            "connected",
        )
        rec.record_tool_call(
            "sts",
            {"role": "r"},
            {
                "Credentials": {
                    "AccessKeyId": "ASIAEXAMPLE0EXAMPLE0",
                    "SecretAccessKey": AWS_SECRET,
                    "SessionToken": AWS_TOKEN,
                    "Expiration": "2026-12-01T00:00:00Z",
                }
            },
        )
        rec.record_tool_call(
            "shell",
            {"cmd": "cat ~/.aws/credentials"},
            f"[default]\naws_secret_access_key = {AWS_SECRET}\naws_session_token={AWS_TOKEN}\n",
        )
        rec.record_tool_call(
            "json_text",
            {"q": "x"},
            json.dumps({"SecretAccessKey": AWS_SECRET, "note": f"mysql://u:{URL_PASSWORD}@h/db"}),
        )
    data = SnapshotStore(root).path_for("shapes").read_bytes()
    for secret in (URL_PASSWORD, AWS_SECRET, AWS_TOKEN, "ASIAEXAMPLE0EXAMPLE0"):
        assert secret.encode() not in data, secret
    snap = json.loads(data)
    tools = [s for s in snap["trace"] if s["type"] == "tool_call"]
    assert tools[0]["args"]["dsn"] == "postgresql://app:<redacted>@db.internal:5432/prod"
    assert tools[1]["result"]["Credentials"]["Expiration"] == "2026-12-01T00:00:00Z"
    assert (
        tools[2]["result"]
        == "[default]\naws_secret_access_key = <redacted>\naws_session_token=<redacted>\n"
    )


def test_without_the_aho_corasick_wheel_the_regex_fallback_scrubs_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ahocorasick-rs is a compiled wheel: where it cannot be installed, one combined expression does the same job."""
    import sys

    key = SHAPES["cohere"]
    text = (
        "x" * 300
        + f" key {key} and {base64.b64encode(key.encode()).decode()} and Bearer abcdefgh12345678 "
        + "y" * 300
    )
    scrub.remember_secret(key)
    expected = scrub.scrub_text(text)
    scrub.forget_secrets()
    monkeypatch.setitem(sys.modules, "ahocorasick_rs", None)  # import fails
    monkeypatch.setattr(text_rules, "_prefilter", None)
    scrub.remember_secret(key)
    import re

    assert isinstance(scrub_credentials._known.matcher, re.Pattern)
    assert scrub.scrub_text(text) == expected and key not in expected
    assert text_rules._prefilter is False
    assert scrub.scrub_bytes(key.encode()) == b"*" * len(key)


def test_text_with_a_lone_surrogate_is_scrubbed_around_it() -> None:
    """A JSON string may hold a lone surrogate ("\\ud800"); the remembered-credential automaton
    reads UTF-8, which has none, so the text is scrubbed piece by piece, the surrogate kept."""
    from agentsnap.storage.scrub.credentials import _scrub_known, forget_secrets, remember_secret

    forget_secrets()
    try:
        assert remember_secret("sk-surrogate-test-0123456789abcdef")
        text = (
            "key sk-surrogate-test-0123456789abcdef \ud800 and sk-surrogate-test-0123456789abcdef"
        )
        assert _scrub_known(text) == "key <redacted> \ud800 and <redacted>"
        assert _scrub_known("only \udfff here") == "only \udfff here"
    finally:
        forget_secrets()
