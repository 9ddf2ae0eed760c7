"""A value the client made up and the server echoes back is still the client's.

The OpenAI Realtime API answers a client's ``conversation.item.create`` (with an
``item.id`` the client chose) with ``conversation.item.created`` carrying that same
``item.id``, and names it again as the next item's ``previous_item_id``. The server is
real: :class:`tests.fake_websocket.FakeWebSocketAPI` (a ``websockets`` server on
127.0.0.1, which keeps a client's item id and echoes it), stopped before replay. The agents
are the real ``websockets`` clients (sync and asyncio) and the openai SDK's realtime
client; each makes up a fresh ``item_…`` id and ``event_…`` id for every item it creates.

For each: record, then replay offline: the unchanged agent passes, and the server's echo
carries the id this run's agent sent (not the recorded one); an agent that sends another
text, or one id for two items, still fails naming the message and the JSON path. The same
holds over HTTP: a Responses API request whose ``metadata`` holds a uuid4 the response
echoes.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.exceptions import AgentRegressionError
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline
from tests.fake_websocket import FakeWebSocketAPI

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

TEXTS = ("hi", "bye")
BETA = {"OpenAI-Beta": "realtime=v1", "Authorization": "Bearer sk-test"}

#: what an agent saw: per item (the id it sent, the item.id the server's echo carried, the
#: echo's previous_item_id), and the answer's text
Seen = tuple[list[tuple[str, str, Any]], str]


def _minted(prefix: str) -> str:
    """A fresh random id that always has the minted shape: 19 hex digits and a letter (a hex
    run of digits alone, about one draw in 10,000, is not taken for a minted id by
    ``client_ids.looks_minted``, and the test would fail by chance)."""
    return f"{prefix}_{uuid.uuid4().hex[:19]}f"


def _events(texts: tuple[str, ...], reuse: bool) -> list[dict[str, Any]]:
    """The client's item creations: a fresh item id and event id each (``reuse``: the first
    item's id again for every item: a real change)."""
    ids = [_minted("item") for _ in texts]
    if reuse:
        ids = [ids[0]] * len(ids)
    return [
        {
            "type": "conversation.item.create",
            "event_id": _minted("event"),
            "item": {
                "id": item_id,
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": text}],
            },
        }
        for item_id, text in zip(ids, texts, strict=True)
    ]


SESSION = {"type": "session.update", "session": {"modalities": ["text"]}}


def plain_sync(url: str, texts: tuple[str, ...] = TEXTS, reuse: bool = False) -> Seen:
    """The ``websockets`` sync client speaking the Realtime API's beta events."""
    from websockets.sync.client import connect

    seen = []
    with connect(url, additional_headers=BETA) as ws:
        assert json.loads(ws.recv())["type"] == "session.created"
        ws.send(json.dumps(SESSION))
        assert json.loads(ws.recv())["type"] == "session.updated"
        for event in _events(texts, reuse):
            ws.send(json.dumps(event))
            echo = json.loads(ws.recv())
            assert echo["type"] == "conversation.item.created", echo
            seen.append((event["item"]["id"], echo["item"]["id"], echo["previous_item_id"]))
        ws.send(json.dumps({"type": "response.create", "event_id": _minted("event")}))
        text = []
        while (event := json.loads(ws.recv()))["type"] != "response.done":
            if event["type"] == "response.text.delta":
                text.append(event["delta"])
    return seen, "".join(text)


def plain_async(url: str, texts: tuple[str, ...] = TEXTS, reuse: bool = False) -> Seen:
    """The same session on the ``websockets`` asyncio client."""
    from websockets.asyncio.client import connect

    async def session() -> Seen:
        seen = []
        async with connect(url, additional_headers=BETA) as ws:
            assert json.loads(await ws.recv())["type"] == "session.created"
            await ws.send(json.dumps(SESSION))
            assert json.loads(await ws.recv())["type"] == "session.updated"
            for event in _events(texts, reuse):
                await ws.send(json.dumps(event))
                echo = json.loads(await ws.recv())
                assert echo["type"] == "conversation.item.created", echo
                seen.append((event["item"]["id"], echo["item"]["id"], echo["previous_item_id"]))
            await ws.send(json.dumps({"type": "response.create", "event_id": _minted("event")}))
            text = []
            while (event := json.loads(await ws.recv()))["type"] != "response.done":
                if event["type"] == "response.text.delta":
                    text.append(event["delta"])
        return seen, "".join(text)

    return asyncio.run(session())


def openai_realtime(url: str, texts: tuple[str, ...] = TEXTS, reuse: bool = False) -> Seen:
    """``OpenAI(...).realtime.connect`` (the GA events: ``conversation.item.added`` then
    ``.done``, each echoing the item), creating items under ids and event ids it makes up."""
    from openai import OpenAI

    base_url = url.split("/realtime", 1)[0].replace("ws://", "http://", 1)
    seen = []
    with OpenAI(base_url=base_url, api_key="sk-test", max_retries=0) as client:
        with client.realtime.connect(model="gpt-realtime") as conn:
            conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
            for event in _events(texts, reuse):
                conn.conversation.item.create(item=event["item"], event_id=event["event_id"])
                for got in conn:
                    if got.type == "conversation.item.done":
                        seen.append((event["item"]["id"], got.item.id, got.previous_item_id))
                        break
            conn.response.create(event_id=_minted("event"))
            text = []
            for got in conn:
                if got.type == "response.output_text.delta":
                    text.append(got.delta)
                elif got.type == "response.done":
                    break
    return seen, "".join(text)


AGENTS: dict[str, Callable[..., Seen]] = {
    "websockets-sync": plain_sync,
    "websockets-asyncio": plain_async,
    "openai-realtime": openai_realtime,
}


def _needs(agent: str) -> None:
    if agent == "openai-realtime":
        pytest.importorskip("openai")


def _record(agent: str, snaps: Path) -> tuple[str, Seen]:
    with FakeWebSocketAPI() as fake:
        url = f"{fake.ws_url}/realtime?model=gpt-realtime"
        with AgentRecorder("echo", snapshot_dir=snaps):
            seen = AGENTS[agent](url)
    return url, seen


def _echoes_its_own(seen: Seen) -> None:
    """Each echo carries the id the agent sent for that item, the next one the previous id."""
    items, _ = seen
    assert [got for _, got, _ in items] == [sent for sent, _, _ in items]
    assert [previous for _, _, previous in items] == [None] + [s for s, _, _ in items[:-1]]


@pytest.mark.parametrize("agent", list(AGENTS))
def test_an_unchanged_agent_replays_clean_and_gets_its_own_ids_echoed(
    agent: str, tmp_path: Path, offline: Offline
) -> None:
    _needs(agent)
    snaps = tmp_path / "snaps"
    url, live = _record(agent, snaps)
    _echoes_its_own(live)
    assert live[1] == "You said: bye"
    (golden,) = snaps.glob("*.json")
    recorded = [
        f["json"]["item"]["id"]
        for f in json.loads(golden.read_bytes())["trace"][0]["frames"]
        if f["dir"] == "send" and f["json"]["type"] == "conversation.item.create"
    ]
    assert recorded == [sent for sent, _, _ in live[0]]

    with offline(), AgentAsserter("echo", snapshot_dir=snaps, mode="replay") as run:
        replayed = AGENTS[agent](url)
    assert run.outcome is not None and run.outcome.report is not None
    assert run.outcome.report.failed_checks == []
    sent = [s for s, _, _ in replayed[0]]
    assert not set(sent) & set(recorded)  # fresh ids this run...
    _echoes_its_own(replayed)  # ...and the server's echo carries exactly these
    assert replayed[1] == "You said: bye"


@pytest.mark.parametrize("agent", list(AGENTS))
def test_another_text_or_one_id_for_two_items_still_fails(
    agent: str, tmp_path: Path, offline: Offline
) -> None:
    _needs(agent)
    snaps = tmp_path / "snaps"
    url, _ = _record(agent, snaps)

    with (
        pytest.raises(AgentRegressionError) as text_changed,
        offline(),
        AgentAsserter("echo", snapshot_dir=snaps, mode="replay"),
    ):
        AGENTS[agent](url, texts=("hi", "ciao"))
    said = str(text_changed.value)
    assert "websocket_messages" in said, said
    assert "item.content[0].text: 'bye' → 'ciao'" in said, said
    assert "item.id" not in said and "event_id" not in said, said  # the ids matched

    with (
        pytest.raises(AgentRegressionError) as reused,
        offline(),
        AgentAsserter("echo", snapshot_dir=snaps, mode="replay"),
    ):
        AGENTS[agent](url, reuse=True)
    said = str(reused.value)
    # the recording's second item had an id of its own; this run sent the first one again
    # (each side numbers its client ids over the connection: one name, one value)
    lines = [line for line in said.splitlines() if "item.id" in line]
    assert len(lines) == 1, said
    assert "client message 2 " in lines[0], said
    assert "item.id: '<client4>' → '<client2>'" in lines[0], said


def test_the_rule_is_who_said_it_first() -> None:
    from agentsnap.capture.client_ids import live_values, normalise, server_minted

    mine, theirs = "item_6cb3ee70b3c940c58d87", "call_Zt81kQm2Pq7Lw0Vt"
    known = server_minted(
        [
            (False, {"type": "session.created", "session": {"id": "sess_Q1w2E3r4T5y6U7"}}),
            (True, {"type": "conversation.item.create", "item": {"id": mine}}),
            (False, {"type": "conversation.item.created", "item": {"id": mine}}),
            (False, {"type": "response.done", "output": [{"call_id": theirs}]}),
            (True, {"type": "conversation.item.create", "item": {"call_id": theirs}}),
        ]
    )
    assert known == {"sess_Q1w2E3r4T5y6U7", theirs}  # the echo of the client's id is not
    golden: dict[str, str] = {}
    live: dict[str, str] = {}
    fresh = "item_0f1e2d3c4b5a69788796"
    assert normalise({"item": {"id": mine}}, known, golden)[0] == {"item": {"id": "<client1>"}}
    assert normalise({"item": {"id": fresh}}, known, live)[0] == {"item": {"id": "<client1>"}}
    assert normalise({"item": {"call_id": theirs}}, known, live)[1] is False
    assert live_values(golden, live) == {mine: fresh}


# --------------------------------------------------------------------------- HTTP


def test_an_http_response_that_echoes_a_client_uuid_replays_clean_and_echoes_this_runs(
    tmp_path: Path, offline: Offline
) -> None:
    """The Responses API returns a request's ``metadata`` as it was sent: a uuid4 the client
    put there comes back in the response."""
    openai = pytest.importorskip("openai")
    from tests import fake_openai_extra as fx
    from tests.fake_provider import Reply

    def echoing(body: dict[str, Any]) -> Reply:
        question = body["input"][0]["content"] if isinstance(body["input"], list) else body["input"]
        answer = fx.response_object([fx.message_item(f"You asked: {question}")])
        return Reply(body={**answer, "metadata": body.get("metadata") or {}})

    def ask(base: str, question: str = "Weather in Paris?") -> tuple[str, str, str]:
        client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
        request_id = str(uuid.uuid4())
        answer = client.responses.create(
            model="gpt-4o-mini", input=question, metadata={"request_id": request_id}
        )
        return answer.output_text, request_id, (answer.metadata or {}).get("request_id", "")

    with fx.FakeOpenAIResponses() as fake:
        fake.respond_with(echoing)
        base = fake.base_url
        with AgentRecorder("meta", snapshot_dir=tmp_path) as rec:
            text, sent, echoed = ask(base)
            rec.output = text
    assert echoed == sent and text == "You asked: Weather in Paris?"

    with offline(), AgentAsserter("meta", snapshot_dir=tmp_path, mode="replay") as run:
        text, fresh, echoed = ask(base)
        run.output = text
    assert run.outcome is not None and run.outcome.report is not None
    assert run.outcome.report.failed_checks == []
    assert fresh != sent and echoed == fresh  # the echo carries this run's id

    with (
        pytest.raises(AgentRegressionError) as info,
        offline(),
        AgentAsserter("meta", snapshot_dir=tmp_path, mode="replay") as changed,
    ):
        changed.output = ask(base, "Weather in Rome?")[0]
    report = info.value.diff_report
    assert "llm_requests" in report.failed_checks
    assert "Weather in Rome?" in str(report) and "request_id" not in str(report)
