"""docs/contributing.md, "A transport", performed: the page cannot drift from the code.

The recipe is followed literally against a temporary registry, for a toy HTTP
library written to ``tmp_path`` (a ``Session.send(request)`` seam that answers
without any network): one transport module (the ``patch`` function and its
wrapper, written to ``tmp_path`` too) and one
:class:`~agentsnap.capture.contract.Transport` registered. Nothing of agentsnap
is edited, and the toy transport then gets what every transport gets from the
shared path: record → replay offline (the seam is not called in replay), the
adapter-scope check, and never-silent reporting of an LLM-looking request no
spec recognises.
"""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import openai
import pytest

from agentsnap.adapters import OpenAIAdapter
from agentsnap.capture import hooks
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.contract import Registry, Transport, TransportRegistryError
from agentsnap.capture.recording import Recording
from agentsnap.capture.scope import AdapterScope
from agentsnap.exceptions import (
    AdapterNotWrappedError,
    AgentsnapError,
    AgentsnapWarning,
    NetworkBlockedError,
)
from tests import transport_kit as kit

#: the toy library: a seam that never touches the network (it counts its calls)
TOY_LIBRARY = """
import json


class Request:
    def __init__(self, method, url, headers, body):
        self.method, self.url, self.headers, self.body = method, url, dict(headers), body


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, list(headers), body

    def json(self):
        return json.loads(self.body)


class Session:
    calls = 0

    def send(self, request):
        Session.calls += 1
        sent = json.loads(request.body)
        prompt = sent["messages"][-1]["content"] if "messages" in sent else sent["prompt"]
        answer = {
            "id": "chatcmpl-toy",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "toy says: " + prompt}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
        }
        return Response(200, [("content-type", "application/json")], json.dumps(answer).encode())
"""

#: the transport module, as docs/contributing.md's recipe writes it
TOY_TRANSPORT = """
import sys

from agentsnap.capture import active, exchange, ownership, serving, sinks
from agentsnap.capture.request import WireRequest
from agentsnap.capture.wrapping import wrap_once

NAME = "toy"


def send_wrapper(wrapped, instance, args, kwargs):
    recording = active.current()
    if recording is None or ownership.owner() is not None:
        return wrapped(*args, **kwargs)
    request = args[0]
    wire = WireRequest(request.method, request.url, request.headers.items(), request.body)
    started = exchange.open_exchange(recording, wire, instance)
    if started is None:
        return wrapped(*args, **kwargs)
    spec, exc = started
    library = sys.modules[type(instance).__module__]
    if recording.mode == "replay":
        stored = serving.take_recorded(recording, exc)
        body = b"".join(serving.stored_body_bytes(stored))
        return library.Response(int(stored["status"]), serving.replay_headers(stored), body)
    with exchange.sending(exc, NAME):
        response = wrapped(*args, **kwargs)
    ctype = dict(response.headers).get("content-type")
    sinks.record_read_body(exc, spec, response.status, response.headers, response.body, ctype)
    return response


def patch(module):
    wrap_once(module.Session, "send", send_wrapper)
"""

URL = "https://api.openai.com/v1/chat/completions"


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The toy library, imported after a temporary registry holding its transport was installed."""
    # unique module names per test: wrapt's post-import hooks live as long as the process
    suffix = tmp_path.name.replace("-", "_").replace(".", "_")
    library, transport = f"toyhttp_{suffix}", f"toyhttp_transport_{suffix}"
    (tmp_path / f"{library}.py").write_text(textwrap.dedent(TOY_LIBRARY), encoding="utf-8")
    (tmp_path / f"{transport}.py").write_text(textwrap.dedent(TOY_TRANSPORT), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    registry = Registry()
    registry.register(Transport("toy", ((library, f"{transport}:patch"),)))
    hooks.install(registry)
    module = importlib.import_module(library)  # the post-import hook patches Session.send
    yield module
    for name in (library, transport):
        sys.modules.pop(name, None)


def _ask(toy: ModuleType, prompt: str, *, legacy: bool = False) -> object:
    """One chat request through the toy seam (``legacy``: from an unknown client, a body with
    ``prompt`` and no ``messages``, which no spec recognises)."""
    sent = (
        {"model": "m", "prompt": prompt}
        if legacy
        else {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": prompt}]}
    )
    body = json.dumps(sent).encode()
    headers = {"User-Agent": "mine/1"} if legacy else kit.OPENAI_HEADERS
    return toy.Session().send(toy.Request("POST", URL, headers, body))


def test_a_registered_toy_transport_records_and_replays_offline(toy: ModuleType) -> None:
    with Recording("capture") as rec:
        live = _ask(toy, "Weather in Paris?")
    assert toy.Session.calls == 1
    assert live.json()["choices"][0]["message"]["content"] == "toy says: Weather in Paris?"  # type: ignore[attr-defined]
    [step] = rec.trace.steps()
    assert (step["type"], step["provider"], step["response"]) == (
        "llm_call",
        "openai",
        "toy says: Weather in Paris?",
    )
    assert step["exchange"]["request"]["body"]["messages"][0]["content"] == "Weather in Paris?"

    with Recording("replay", cassette=Cassette(rec.trace.steps(), name="toy")) as replay:
        again = _ask(toy, "Weather in Paris?")
    assert toy.Session.calls == 1  # served from the recording: the seam was not called
    assert type(again) is toy.Response and again.status == 200  # type: ignore[attr-defined]
    assert again.json() == live.json()  # type: ignore[attr-defined]
    assert replay.misses == 0 and len(replay.trace.exchanges) == 1


def test_the_toy_transport_replays_under_the_socket_guard(toy: ModuleType) -> None:
    """Replay turns the guard on; the toy seam is served without reaching for a socket, while a
    real connection attempt in the same block is refused."""
    import socket

    with Recording("capture") as rec:
        _ask(toy, "Rain?")
    with Recording("replay", cassette=Cassette(rec.trace.steps(), name="toy")):
        assert _ask(toy, "Rain?").json()["choices"][0]["message"]["content"] == "toy says: Rain?"  # type: ignore[attr-defined]
        with pytest.raises(NetworkBlockedError):
            socket.create_connection(("192.0.2.1", 443), timeout=1)


def test_the_adapter_scope_check_applies_to_the_toy_transport(toy: ModuleType) -> None:
    wrapped = OpenAIAdapter(openai.OpenAI(api_key="sk-test", base_url="https://api.openai.com/v1"))
    with Recording("capture") as rec:
        rec.adapter_scope = AdapterScope([wrapped], owner="AgentRecorder('toy')")
        with pytest.raises(AdapterNotWrappedError, match="inside AgentRecorder\\('toy'\\)"):
            _ask(toy, "Weather in Paris?")
    assert toy.Session.calls == 0 and rec.trace.exchanges == []  # nothing sent, nothing stored


def test_the_toy_transport_reports_an_llm_call_no_spec_recognises(toy: ModuleType) -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with Recording("capture") as rec:
            _ask(toy, "Weather?", legacy=True)
    assert toy.Session.calls == 1 and rec.trace.exchanges == []  # sent untouched, not stored
    assert rec.uncaptured == 1
    [message] = [str(w.message) for w in seen if issubclass(w.category, AgentsnapWarning)]
    assert message.startswith(
        "agentsnap: POST api.openai.com/v1/chat/completions looks like an LLM call but was not "
        "captured: its JSON body has no top-level 'messages'"
    )


def test_a_registry_refuses_a_second_transport_of_the_same_name() -> None:
    registry = Registry(Transport("toy", (("toy_http", "toy_transport:patch"),)))
    with pytest.raises(TransportRegistryError, match="'toy' is already registered"):
        registry.register(Transport("toy", (("other", "other:patch"),)))
    with pytest.raises(AgentsnapError, match="declares no hook"):  # every error is one
        registry.register(Transport("empty", ()))
    assert [t.name for t in registry] == ["toy"]
    assert list(registry.hooks()) == [("toy_http", "toy_transport:patch")]


def test_the_shipped_registry_declares_every_transport_once() -> None:
    from agentsnap.capture.transports import TRANSPORTS

    assert [t.name for t in TRANSPORTS] == [
        "httpx",
        "http.client",
        "urllib3",
        "aiohttp",
        "lm15",
        "mcp",
        "websocket",
    ]
    modules = [module for module, _ in TRANSPORTS.hooks()]
    assert modules[:2] == ["httpx", "httpx2"] and len(modules) == len(set(modules))
    for _, call in TRANSPORTS.hooks():  # every declared patch function exists
        mod_name, _, func = call.partition(":")
        assert callable(getattr(importlib.import_module(mod_name), func))
