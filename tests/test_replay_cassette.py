"""Cassette: canonical keys, FIFO among equal keys, drift fallback, miss messages."""

from __future__ import annotations

import pytest

from agentsnap import ReplayMissError
from agentsnap.capture.cassette import Cassette, request_key


def _step(body: dict, reply: str, path: str = "/v1/chat/completions") -> dict:
    return {
        "type": "llm_call",
        "exchange": {
            "request": {"method": "POST", "path": path, "body": body},
            "response": {"status": 200, "headers": {}, "body": {"reply": reply}},
        },
    }


def _req(body: dict, path: str = "/v1/chat/completions") -> dict:
    return {"method": "POST", "path": path, "body": body}


def test_key_ignores_key_order_and_whitespace_but_not_values() -> None:
    a = request_key(_req({"model": "m", "messages": [{"role": "user", "content": "hi"}]}))
    b = request_key(_req({"messages": [{"content": "hi", "role": "user"}], "model": "m"}))
    c = request_key(_req({"messages": [{"content": "Hi", "role": "user"}], "model": "m"}))
    assert a == b != c
    assert a[0] == "POST" and a[1] == "/v1/chat/completions"


def test_requests_get_their_own_responses_in_any_order() -> None:
    cas = Cassette(
        [_step({"q": 1}, "one"), _step({"q": 2}, "two"), _step({"q": 3}, "three")], name="t"
    )
    order = [({"q": 3}, "three"), ({"q": 1}, "one"), ({"q": 2}, "two")]
    for body, reply in order:
        _idx, ex, drift = cas.take(_req(body))
        assert ex["response"]["body"]["reply"] == reply
        assert drift is None
    assert cas.unplayed() == 0


def test_equal_requests_are_served_in_recorded_order() -> None:
    cas = Cassette([_step({"q": 1}, "429"), _step({"q": 1}, "200")])
    assert [cas.take(_req({"q": 1}))[1]["response"]["body"]["reply"] for _ in range(2)] == [
        "429",
        "200",
    ]


def test_queues_keep_recorded_order_among_interleaved_equal_requests_and_by_route() -> None:
    """Each key's queue is a list served from its end (a tenth of a deque's size): three equal
    recordings around another one are served in recorded order, and the drift fallback then takes
    the route's one unplayed recording, skipping those already served."""
    cas = Cassette(
        [_step({"q": 1}, "a"), _step({"q": 2}, "x"), _step({"q": 1}, "b"), _step({"q": 1}, "c")]
    )
    served = [cas.take(_req({"q": 1})) for _ in range(3)]
    assert [(idx, ex["response"]["body"]["reply"], drift) for idx, ex, drift in served] == [
        (0, "a", None),
        (2, "b", None),
        (3, "c", None),
    ]
    idx, ex, drift = cas.take(_req({"q": 9}))
    assert (idx, ex["response"]["body"]["reply"], drift) == (1, "x", ["q: 2 → 9"])
    assert cas.unplayed() == 0


def test_changed_request_gets_next_recording_in_order_with_a_drift_report() -> None:
    cas = Cassette([_step({"messages": [{"role": "user", "content": "Paris"}]}, "r1")])
    idx, ex, drift = cas.take(_req({"messages": [{"role": "user", "content": "Lyon"}]}))
    assert idx == 0 and ex["response"]["body"]["reply"] == "r1"
    assert drift == ["messages[0].content: 'Paris' → 'Lyon'"]


def test_strict_mode_raises_instead_of_falling_back() -> None:
    cas = Cassette([_step({"q": 1}, "r1")], name="tests/t.py::t", path="snaps/t.json", strict=True)
    with pytest.raises(ReplayMissError) as err:
        cas.take(_req({"q": 2}))
    text = str(err.value)
    assert "LLM call index 0 (POST /v1/chat/completions)" in text
    assert "'tests/t.py::t' (snaps/t.json)" in text
    assert "q: 1 → 2" in text
    assert "--agentsnap-record" in text


def test_extra_call_beyond_the_recording_is_a_miss_naming_the_call_index() -> None:
    cas = Cassette([_step({"q": 1}, "r1")], name="n", path="p.json")
    cas.take(_req({"q": 1}))
    with pytest.raises(ReplayMissError) as err:
        cas.take(_req({"q": 1}))
    assert "LLM call index 1" in str(err.value)
    assert "all were already served" in str(err.value)
    assert not isinstance(err.value, Exception)  # SDK retry loops must not swallow it


def test_other_endpoint_is_a_miss_and_empty_cassette_says_so() -> None:
    with pytest.raises(ReplayMissError, match="none for POST /v1/embeddings"):
        Cassette([_step({"q": 1}, "r1")]).take(_req({"q": 1}, path="/v1/embeddings"))
    with pytest.raises(ReplayMissError, match="holds no recorded LLM calls"):
        Cassette([]).take(_req({"q": 1}))


def test_steps_without_exchanges_are_ignored() -> None:
    cas = Cassette([{"type": "tool_call", "name": "x", "args": {}}, _step({"q": 1}, "r1")])
    assert len(cas) == 1


def test_a_snapshot_that_kept_no_calls_is_not_blamed_on_a_change() -> None:
    """The one-line form without instrumentation keeps no LLM calls: replay says so, not "if the change is intended"."""
    with pytest.raises(ReplayMissError) as err:
        Cassette(
            [{"type": "tool_call", "name": "x", "args": {}}],
            name="tests/t.py::test_x",
            path="p.json",
        ).take(_req({"q": 1}))
    assert str(err.value) == (
        "agentsnap replay miss: LLM call index 0 (POST /v1/chat/completions) has no recorded response in snapshot 'tests/t.py::test_x' (p.json).\n"
        "  The snapshot holds no recorded LLM calls: the run that wrote it kept none (it was not instrumented, "
        "e.g. the one-line snapshot(actual) form without --agentsnap-instrument), so replay has nothing to serve. "
        "This is not a change in your agent.\n"
        "  Fix: record it once with its LLM calls: `pytest tests/t.py::test_x --agentsnap-record`, review the snapshot, commit it."
    )
    assert "change is intended" not in str(err.value)


def test_strict_miss_counts_what_was_served() -> None:
    cas = Cassette(
        [_step({"q": 1}, "r1"), _step({"q": 2}, "r2")], name="n", path="p.json", strict=True
    )
    cas.take(_req({"q": 1}))
    with pytest.raises(ReplayMissError) as err:
        cas.take(_req({"q": 3}))
    text = str(err.value)
    assert "all were already served" not in text
    assert (
        "The snapshot holds 2 call(s) for POST /v1/chat/completions: 1 already served, "
        "1 not served because it differs from this request (strict replay serves exact matches only)."
    ) in text
    assert "    q: 2 → 3" in text  # the nearest unserved recording


def test_request_changes_are_never_cut() -> None:
    from agentsnap.capture.cassette import request_changes

    old = "Answer in one short sentence about the weather in the city the user names."
    new = old + " Always add the temperature in Fahrenheit too."
    assert request_changes({"system": old}, {"system": new}) == [f"system: {old!r} → {new!r}"]
