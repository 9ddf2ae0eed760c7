"""A replayed httpx response built from parts made once (issue 30, row 3).

The stored headers become httpx's header triples through a memo of the (name, value) pairs that
repeat from response to response (``transports.httpx._triples``): each response still gets its
own header list, the library's own objects, equal to the live ones; a golden's header edited
between two serves is served as edited (the memo is keyed by the text, not by the entry).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from agentsnap.capture.transports import httpx as hx

httpx = pytest.importorskip("httpx")

URL = "https://api.openai.com/v1/chat/completions"
BODY = b'{"id":"chatcmpl-1","object":"chat.completion","choices":[],"model":"gpt-4o-mini"}'
EVENTS = [b'data: {"id":"c","choices":[]}\n\n', b"data: [DONE]\n\n"]


def _handler(status: int, streamed: bool) -> Any:
    def handle(request: Any) -> Any:
        if streamed:
            return httpx.Response(
                status,
                headers=[("content-type", "text/event-stream"), ("x-request-id", "req_s")],
                stream=httpx.ByteStream(b"".join(EVENTS)),
            )
        return httpx.Response(
            status,
            headers=[
                ("content-type", "application/json"),
                ("x-request-id", "req_1"),
                ("retry-after-ms", "20000"),
            ],
            content=BODY,
        )

    return handle


def _send(client: Any, streamed: bool) -> Any:
    request = client.build_request(
        "POST", URL, json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    )
    response = client.send(request, stream=streamed)
    if streamed:
        response.read()
    return response


def _recorded(status: int = 200, streamed: bool = False) -> tuple[Any, list[dict[str, Any]]]:
    client = httpx.Client(transport=httpx.MockTransport(_handler(status, streamed)))
    with Recording("capture") as rec:
        live = _send(client, streamed)
    return live, rec.trace.steps()


def _replayed(steps: list[dict[str, Any]], streamed: bool = False) -> Any:
    client = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(599)))
    with Recording("replay", cassette=Cassette(steps, strict=True)) as rec:
        response = _send(client, streamed)
    assert rec.misses == 0
    return response


@pytest.mark.parametrize("streamed", [False, True])
def test_each_serve_of_an_entry_is_its_own_response_equal_to_the_live_one(streamed: bool) -> None:
    live, steps = _recorded(streamed=streamed)
    one = _replayed(steps, streamed)
    assert type(one) is type(live) and type(one.headers) is type(live.headers)
    assert one.status_code == live.status_code and one.content == live.content
    # (names stored in lower case, as before)
    assert one.headers.multi_items() == live.headers.multi_items()
    one.headers["x-request-id"] = "changed"
    one.headers["x-added"] = "1"
    del one.headers["content-type"]
    two = _replayed(steps, streamed)  # the same golden entry, served again
    assert two.headers.multi_items() == live.headers.multi_items() and two.content == live.content
    assert two.headers._list is not one.headers._list


def test_a_header_edited_in_the_golden_between_serves_is_served_as_edited() -> None:
    _, steps = _recorded()
    assert _replayed(steps).headers["x-request-id"] == "req_1"
    edited = copy.deepcopy(steps)
    headers = next(s for s in edited if "exchange" in s)["exchange"]["response"]["headers"]
    headers["x-request-id"] = "req_edited"
    assert _replayed(edited).headers["x-request-id"] == "req_edited"
    assert _replayed(steps).headers["x-request-id"] == "req_1"


def test_an_error_status_is_served_with_an_immediate_retry() -> None:
    live, steps = _recorded(status=429)
    served = _replayed(steps)
    assert served.status_code == 429 and served.content == live.content
    assert served.headers.get_list("retry-after-ms") == ["1"]
    expected = [(k, v) for k, v in live.headers.multi_items() if k != "retry-after-ms"]
    assert served.headers.multi_items() == [*expected, ("retry-after-ms", "1")]


def test_stored_headers_that_are_not_ascii_text_are_left_to_the_library() -> None:
    """A hand-edited golden's header that is not ASCII: ``Headers`` raises what it raised."""
    _, steps = _recorded()
    edited = copy.deepcopy(steps)
    response = next(s for s in edited if "exchange" in s)["exchange"]["response"]
    response["headers"]["x-note"] = "caf\u00e9"
    with pytest.raises(UnicodeEncodeError):
        httpx.Headers({"x-note": "caf\u00e9"})
    with pytest.raises(UnicodeEncodeError):
        _replayed(edited)


@pytest.mark.parametrize(
    "pairs",
    [
        [("content-type", "application/json"), ("Content-Length", "5")],
        [["x-list", "pair"]],
        [(b"x-bytes", b"v")],
        [("x-n", 7)],
        [("x-v", "caf\u00e9")],
    ],
)
def test_the_triples_are_the_librarys_or_none(pairs: list[Any]) -> None:
    for _ in range(2):  # made, then from the memo
        got = hx._triples(pairs)
        try:
            expected = httpx.Headers(pairs)._list
        except Exception:
            assert got is None
            continue
        ascii_text = all(isinstance(x, str) and x.isascii() for pair in pairs for x in pair)
        assert got == (expected if ascii_text else None)


# --------------------------------------------------------------------------- the served request


def _served(recorded: dict[str, Any], request: dict[str, Any], *, strict: bool = True) -> Any:
    """``take_recorded`` of ``request`` against one recording: the exchange it leaves."""
    from agentsnap.capture.serving import take_recorded
    from agentsnap.storage import wire

    step = {"type": "llm_call", "exchange": {"request": recorded, "response": {"status": 200}}}
    rec = Recording("replay", cassette=Cassette([step], strict=strict))
    exchange = wire.Exchange(provider="openai", codec=None, request=request)
    take_recorded(rec, exchange)
    return exchange, recorded


def _request(**fields: Any) -> dict[str, Any]:
    return {"method": "POST", "path": "/v1/chat/completions", **fields}


@pytest.mark.parametrize(
    ("recorded", "sent", "shared"),
    [
        # equal: the recording's own object is kept (one copy in memory)
        (_request(body={"b": [1, 2.5], "a": "x"}), _request(body={"a": "x", "b": [1, 2.5]}), True),
        (_request(query="v=1", body={}), _request(query="v=1", body={}), True),
        # the key alike, the request not equal: each keeps its own
        (_request(path="/v1/x?v=1", body={}), _request(path="/v1/x", query="v=1", body={}), False),
        ({**_request(body={}), "method": "post"}, _request(body={}), False),
        (_request(text="one"), _request(text="two"), False),  # (a text body: not in the key)
        (_request(body=None, extra=1), _request(body=None, extra=2), False),
    ],
)
def test_a_request_served_by_its_key_shares_the_recording_only_when_equal(
    recorded: dict[str, Any], sent: dict[str, Any], shared: bool
) -> None:
    exchange, kept = _served(recorded, dict(sent))
    assert exchange.request_drift is None
    assert (exchange.request is kept) is shared
    assert (exchange.request == kept) is shared


def test_a_request_found_by_its_client_ids_keeps_its_own() -> None:
    """Equal but for a value the client minted (a tool call's id): served as exact, by the
    rename, not by the key; each keeps its own request."""

    def body(minted: str) -> dict[str, Any]:
        call = {"functionCall": {"id": minted, "name": "get_weather", "args": {}}}
        return {"contents": [{"role": "model", "parts": [call]}]}

    recorded = _request(body=body("tooluse_9PtJgVrPhqvnE9mEEUN6Yw"))
    sent = _request(body=body("tooluse_cxziFB5DMWnSsuxPlXNySQ"))
    cas = Cassette([{"type": "llm_call", "exchange": {"request": recorded, "response": {}}}])
    index, _, drift = cas.take(sent)
    assert drift is None and not cas.by_key(index)
    exchange, kept = _served(recorded, dict(sent))
    assert exchange.request_drift is None
    assert exchange.request is not kept and exchange.request == sent


# --------------------------------------------------------------------------- recognise, known


def test_a_known_clients_request_on_another_path_is_read_and_its_key_masked(
    fresh_scrub: None,
) -> None:
    """``recognise`` keeps a request it read by method and URL (``exchange._known_spec``): the
    same client's request on another path is read in full, so a key it carries is remembered
    and masked in what is stored, as on the first read."""
    from agentsnap.capture import exchange
    from agentsnap.capture.request import request_record
    from agentsnap.storage import scrub

    def sent(path: str, key: str, body: bytes) -> Any:
        headers = {"User-Agent": "OpenAI/Python 3.63.0", "Authorization": f"Bearer {key}"}
        return httpx.Request(
            "POST", "https://api.openai.com/v1" + path, headers=headers, content=body
        )

    first = exchange.recognise(sent("/chat/completions", "sk-path-known-0001", b'{"model":"m"}'))
    assert first is not None and first.name == "openai"
    assert exchange.recognise(sent("/chat/completions", "sk-path-known-0001", b"{}")) is first
    other_key = "pathother0002keyvalue"  # (no token shape: masked because remembered)
    echoed = json.dumps({"input": f"key {other_key}"}).encode()
    moved = sent("/embeddings", other_key, echoed)
    assert exchange.recognise(moved) is first
    assert other_key in scrub.remembered()
    assert other_key not in json.dumps(request_record(moved))


def test_how_a_recording_was_found_is_kept_per_recording() -> None:
    """Which recordings were found by their request's own key is the cassette's answer per
    recording, whatever was served after (another thread's request in between)."""
    recorded = [_request(body={"q": n}) for n in range(3)]
    cas = Cassette(
        [{"type": "llm_call", "exchange": {"request": r, "response": {}}} for r in recorded]
    )
    first, _, _ = cas.take(_request(body={"q": 0}))
    second, _, _ = cas.take(_request(body={"q": 1}))
    third, _, drift = cas.take(_request(body={"q": 99}))  # no recording of its key: by route
    assert (first, second, third) == (0, 1, 2) and drift is not None
    assert [cas.by_key(i) for i in (first, second, third)] == [True, True, False]
