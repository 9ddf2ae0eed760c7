"""docs/contributing.md's recipe "a provider", performed: an OpenAI-compatible provider is one TOML file.

The test copies the shipped ``patches/`` folder to a temporary one, adds ONE
file, ``acme.toml`` (a provider whose wire format agentsnap knows: the OpenAI
chat format, so no codec), points the spec loader at the copy and forgets what
it had parsed (:func:`agentsnap.spec.provider_specs.reload_specs`). Nothing else is
edited. Then, through the real ``openai`` SDK pointed at Acme's public URL
(a loopback transport carries the socket to :class:`tests.fake_provider.FakeOpenAI`):

* Acme's traffic is recognised as ``acme`` and recorded, and replayed offline;
* ``agentsnap.adapters.AcmeAdapter`` exists, ``wrap()`` gives it to a client
  pointed at Acme, and a recording scoped to it names it for an unwrapped client;
* it is in the lists derived from the specs (``agentsnap.adapters.__all__``,
  the provider facts), and those lists lose it again with the file.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

import agentsnap.adapters
from agentsnap import AdapterNotWrappedError, AgentAsserter, AgentRecorder, SnapshotStore, wrap
from agentsnap.adapters import OpenAIAdapter
from agentsnap.spec import provider_specs as providers
from agentsnap.spec.provider_facts import judge_keys, provider_facts
from tests._support.offline import Offline
from tests.fake_openai_extra import LoopbackTransport, openai_http
from tests.fake_provider import FakeOpenAI, text_reply

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

#: the whole recipe: docs/contributing.md shows this file
ACME_TOML = """\
[provider]
name = "acme"
package = "openai"                  # the SDK that sends the traffic
api_key_env = ["ACME_API_KEY"]
versions = ">=1.40,<4"

[adapter]
class = "AcmeAdapter"               # agentsnap.adapters.AcmeAdapter
wraps = "an ``openai`` client with Acme's ``base_url``"

[match]
user_agent_prefixes = ["OpenAI/Python", "AsyncOpenAI/Python"]
hosts = ["api.acme.example"]        # this spec is limited to Acme's host (and wins there)
known_hosts = ["api.acme.example"]

[[match.wire]]
path_suffix = "/chat/completions"
body_keys = ["model", "messages"]

[[endpoints]]
path_suffix = "/chat/completions"
codec = "openai_chat"               # a known wire format: no codec to write

[response]
keep_headers = ["*"]
"""

ACME_BASE_URL = "https://api.acme.example/v1"
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
SDK_HTTP = openai_http()


@pytest.fixture
def acme_patches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The shipped patches/ plus acme.toml, as the spec loader's folder for the test."""
    patches = tmp_path / "patches"
    shutil.copytree(providers.patches_dir(), patches)
    (patches / "acme.toml").write_text(ACME_TOML, encoding="utf-8")
    with monkeypatch.context() as m:
        m.setattr(providers, "patches_dir", lambda: patches)
        providers.reload_specs()
        yield patches
    providers.reload_specs()


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def acme_client(origin: str, base_url: str = ACME_BASE_URL) -> openai.OpenAI:
    http = SDK_HTTP.Client(transport=LoopbackTransport(origin, SDK_HTTP))
    return openai.OpenAI(base_url=base_url, api_key="acme-key", http_client=http, max_retries=0)


def ask(client: Any) -> Any:
    return client.chat.completions.create(model="acme-large", messages=MESSAGES)


def test_acme_is_recognised_recorded_and_replayed_offline(
    acme_patches: Path, fake: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake.script(text_reply("Sunny, 21 C.", model="acme-large"))
    origin = fake.origin
    client = wrap(acme_client(origin))
    assert type(client) is agentsnap.adapters.AcmeAdapter
    assert isinstance(client, OpenAIAdapter)  # the SDK's adapter, under Acme's name

    with AgentRecorder("acme_chat", snapshot_dir=tmp_path, adapters=[client]):
        live = ask(client)
    fake.stop()
    # the asserter raises at its end when the replayed run drifts from the golden
    with offline(), AgentAsserter("acme_chat", snapshot_dir=tmp_path, mode="replay"):
        replayed = ask(wrap(acme_client(origin)))

    assert live.choices[0].message.content == "Sunny, 21 C."
    assert replayed.model_dump() == live.model_dump()
    (received,) = fake.requests
    assert received.path == "/v1/chat/completions"
    data = SnapshotStore.read_file(SnapshotStore(tmp_path).path_for("acme_chat")).to_dict()
    (step,) = [s for s in data["trace"] if s["type"] == "llm_call"]
    assert (step["provider"], step["model"], step["messages"], step["response"]) == (
        "acme",
        "acme-large",
        MESSAGES,
        "Sunny, 21 C.",
    )


def test_a_recording_scoped_to_acme_names_its_adapter_for_an_unwrapped_client(
    acme_patches: Path, fake: FakeOpenAI, tmp_path: Path
) -> None:
    scoped = wrap(acme_client(fake.origin))
    with (
        pytest.raises(AdapterNotWrappedError, match=r"AcmeAdapter\(client\)"),
        AgentRecorder("acme_scope", snapshot_dir=tmp_path, adapters=[scoped]),
    ):
        ask(acme_client(fake.origin))  # another client, not wrapped
    assert fake.requests == []  # refused before anything was sent


def test_acme_is_in_the_lists_derived_from_the_specs(acme_patches: Path) -> None:
    assert "AcmeAdapter" in agentsnap.adapters.__all__
    acme = next(f for f in provider_facts() if f.name == "acme")
    assert (acme.adapter, acme.sdk, acme.hosts, acme.client_modules) == (
        "AcmeAdapter",
        "openai",
        ("api.acme.example",),
        (),
    )
    # a client pointed elsewhere keeps the SDK's own adapter
    assert type(wrap(acme_client("http://127.0.0.1:9", "https://api.openai.com/v1"))) is (
        OpenAIAdapter
    )
    request = SDK_HTTP.Request(
        "POST", f"{ACME_BASE_URL}/chat/completions", headers={"user-agent": "OpenAI/Python 3.0"}
    )
    spec = providers.classify(request)
    assert spec is not None and spec.name == "acme"
    assert spec.codec_for("/v1/chat/completions") == "openai_chat"


def test_without_the_file_there_is_no_acme(acme_patches: Path) -> None:
    (acme_patches / "acme.toml").unlink()
    providers.reload_specs()
    assert "AcmeAdapter" not in agentsnap.adapters.__all__
    assert all(f.name != "acme" for f in provider_facts())
    with pytest.raises(AttributeError):
        agentsnap.adapters.AcmeAdapter  # noqa: B018 - the lookup is the test


def test_the_contributor_page_shows_this_file() -> None:
    page = (Path(__file__).parent.parent / "docs" / "contributing.md").read_text(encoding="utf-8")
    recipe = page[page.index("### a provider") : page.index("### a comparison check")]
    assert f"```toml\n{ACME_TOML}```" in recipe
    assert "tests/test_recipe_provider.py" in recipe


def test_a_judge_order_two_specs_share_is_an_error_naming_both(acme_patches: Path) -> None:
    # the recipe's [judge] table needs an order of its own (openai.toml has 2)
    acme = acme_patches / "acme.toml"
    acme.write_text(
        ACME_TOML + '\n[judge]\nhost = "acme.example"\nkey_env = "ACME_API_KEY"\norder = 2\n',
        encoding="utf-8",
    )
    providers.reload_specs()
    with pytest.raises(
        ValueError, match=r"acme\.toml and \S*openai\.toml: \[judge\] order = 2 twice"
    ):
        judge_keys()
    acme.write_text(acme.read_text(encoding="utf-8").replace("order = 2", "order = 7"))
    providers.reload_specs()
    assert judge_keys()[-1] == ("acme.example", "ACME_API_KEY")
