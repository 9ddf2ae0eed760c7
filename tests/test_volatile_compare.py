"""``same_content`` compares two snapshots without copying either (issue 30: re-recording a
5,000-call golden deep-copied it, then copied it again renamed, on each side).

The reference below is the copying definition it replaced, verbatim in what it decides:
each side deep-copied, reduced to what a change means, its ids renamed into a new copy, the
two copies compared with ``==``. Hypothesis holds the two to the same answer on snapshots
built from a small pool of ids (so that equal-but-renamed, half-renamed and colliding cases
come up), with every volatile field and both message storage forms.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.storage import volatile
from agentsnap.storage.snapshot import _both_copies_of_messages
from agentsnap.storage.volatile import same_content


def _reference_strip(data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    if isinstance(data.get("trace"), list):
        _both_copies_of_messages(data["trace"])
    for key in volatile._VOLATILE_TOP:
        data.pop(key, None)
    for step in data.get("trace") or []:
        if not isinstance(step, dict):
            continue
        if step.get("type") == "websocket" and isinstance(step.get("frames"), list):
            sides: dict[str, list[Any]] = {"send": [], "recv": []}
            for f in step["frames"]:
                if not isinstance(f, dict):
                    continue
                kept = {k: v for k, v in f.items() if k not in ("at", "dir")}
                if f.get("dir") == "recv" and "json" in kept:
                    kept["json"] = volatile._drop_volatile_in_response(kept["json"])
                sides["send" if f.get("dir") == "send" else "recv"].append(kept)
            step["frames"] = sides
            continue
        step.pop("latency_ms", None)
        resp = (step.get("exchange") or {}).get("response")
        if not isinstance(resp, dict):
            continue
        headers = resp.get("headers")
        if isinstance(headers, dict):
            resp["headers"] = {
                k: v for k, v in headers.items() if not volatile._volatile_header(str(k))
            }
        if "text" in resp and "body" in resp and volatile._parses_to(resp["text"], resp["body"]):
            del resp["text"]
        if isinstance(resp.get("body"), (dict, list)):
            resp["body"] = volatile._drop_volatile_in_response(resp["body"])
        if isinstance(resp.get("chunks"), list):
            resp["chunks"] = [
                volatile._volatile_in_chunk().sub("", c) if isinstance(c, str) else c
                for c in resp["chunks"]
            ]
    ids: dict[str, None] = {}
    volatile._collect_ids(data.get("trace") or [], ids)
    rename = volatile._renamer({value: f"<id{i}>" for i, value in enumerate(ids, 1)})

    def walk(node: object) -> Any:
        if isinstance(node, str):
            return rename(node)
        if isinstance(node, dict):
            return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    data["trace"] = walk(data.get("trace") or [])
    for key in data:  # the output and input renamed by the trace's ids too (never the name)
        if key not in ("trace", "name"):
            data[key] = walk(data[key])
    return data


def _reference(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return _reference_strip(a) == _reference_strip(b)


_IDS = ["call_aaaaaa", "call_bbbbbb", "toolu_cccccc", "msg_dddddd", "ab", "<id1>", "<id2>"]
_ID = st.sampled_from(_IDS)
_TEXT = st.one_of(
    _ID,
    st.sampled_from(["sunny", "see call_aaaaaa", "call_bbbbbb and <id1>", ""]),
    st.text(alphabet="ab_<>1 ", max_size=6),
)
_NUMBER = st.one_of(st.integers(-2, 2), st.sampled_from([1.0, 0.5, True, False, None]))


def _response_body(draw: st.DrawFn) -> dict[str, Any]:
    body: dict[str, Any] = {"id": draw(_ID), "content": draw(_TEXT)}
    if draw(st.booleans()):
        body["created"] = draw(st.integers(0, 3))
    if draw(st.booleans()):
        body["tool_calls"] = [
            {"id": draw(_ID), "input": {"id": draw(_ID), "q": draw(_TEXT)}}
            for _ in range(draw(st.integers(0, 2)))
        ]
    return body


@st.composite
def _llm_call(draw: st.DrawFn) -> dict[str, Any]:
    messages = [
        {"role": draw(st.sampled_from(["user", "tool"])), "tool_call_id": draw(_ID)},
        {"role": "assistant", "content": draw(_TEXT)},
    ][: draw(st.integers(0, 2))]
    body = _response_body(draw)
    response: dict[str, Any] = {
        "status": 200,
        "headers": draw(
            st.dictionaries(
                st.sampled_from(["x-request-id", "content-type", "date", "openai-model"]),
                _TEXT,
                max_size=3,
            )
        ),
        "body": body,
    }
    text_kind = draw(st.sampled_from(["none", "same", "other"]))
    if text_kind == "same":
        response["text"] = json.dumps(body)
    elif text_kind == "other":
        response["text"] = draw(_TEXT)
    if draw(st.booleans()):
        response["chunks"] = [
            f'{{"id":"{draw(_ID)}","created":{draw(st.integers(0, 2))}}}',
            draw(_TEXT),
        ]
    step: dict[str, Any] = {
        "type": "llm_call",
        "exchange": {
            "request": {"body": {"messages": messages, "model": "m"}},
            "response": response,
        },
    }
    if draw(st.booleans()):
        step["messages_from"] = draw(
            st.sampled_from(["exchange.request.body.messages", "exchange.request.body.nope"])
        )
    else:
        step["messages"] = copy.deepcopy(messages)
    if draw(st.booleans()):
        step["latency_ms"] = draw(st.integers(0, 9))
    return step


@st.composite
def _tool_call(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "type": "tool_call",
        "id": draw(_ID),
        "args": {"id": draw(_ID), "q": draw(_TEXT)},
        "result": draw(st.one_of(_TEXT, _NUMBER)),
    }


@st.composite
def _websocket(draw: st.DrawFn) -> dict[str, Any]:
    frames = [
        {
            "dir": draw(st.sampled_from(["send", "recv"])),
            "at": draw(st.integers(0, 3)),
            "json": {"event_id": draw(_ID), "created": draw(st.integers(0, 2))},
        }
        for _ in range(draw(st.integers(0, 3)))
    ]
    return {"type": "websocket", "frames": frames}


_STEP = st.one_of(_llm_call(), _tool_call(), _websocket(), st.just("not a step"))


@st.composite
def _snapshot(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {"name": "t", "output": draw(_TEXT)}
    for key in ("created_at", "updated_at", "agentsnap_version"):
        if draw(st.booleans()):
            data[key] = draw(_TEXT)
    if draw(st.integers(0, 9)):
        data["trace"] = draw(st.lists(_STEP, max_size=4))
    return data


def _renamed(data: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """``data`` with whole-word ids swapped by ``mapping`` in its JSON text (a recording
    that minted other ids, or the same ids swapped around)."""
    pattern = re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)))
    text = json.dumps(data)
    return json.loads(pattern.sub(lambda m: mapping[m.group(0)], text))  # type: ignore[no-any-return]


@st.composite
def _pair(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    a = draw(_snapshot())
    how = draw(st.sampled_from(["copy", "renamed", "swapped", "other", "volatile"]))
    if how == "copy":
        b = copy.deepcopy(a)
    elif how == "renamed":
        b = _renamed(a, {"call_aaaaaa": "call_zzzzzz", "toolu_cccccc": "toolu_yyyyyy"})
    elif how == "swapped":
        b = _renamed(a, {"call_aaaaaa": "call_bbbbbb", "call_bbbbbb": "call_aaaaaa"})
    elif how == "other":
        b = draw(_snapshot())
    else:
        b = copy.deepcopy(a)
        b["updated_at"] = "later"
        for step in b.get("trace") or []:
            if isinstance(step, dict) and step.get("type") == "llm_call":
                step["latency_ms"] = 99
                step["exchange"]["response"]["headers"]["x-request-id"] = "req_new"
                step["exchange"]["response"]["body"]["created"] = 7
    return a, b


@settings(max_examples=1500, deadline=None)
@given(pair=_pair())
def test_property_same_content_decides_as_the_copying_definition(
    pair: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    a, b = pair
    before = (json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True))
    assert same_content(a, b) == _reference(a, b)
    assert same_content(b, a) == _reference(b, a)
    assert (json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True)) == before  # untouched


def test_fresh_ids_and_volatile_fields_are_the_same_content_a_moved_reference_is_not() -> None:
    def run(first: str, second: str, latency: int, answers: str | None = None) -> dict[str, Any]:
        return {
            "name": "t",
            "updated_at": f"2026-12-0{latency}",
            "trace": [
                {
                    "type": "llm_call",
                    "latency_ms": latency,
                    "exchange": {
                        "request": {"body": {"messages": []}},
                        "response": {
                            "headers": {"x-request-id": f"req_{latency}"},
                            "body": {"tool_calls": [{"id": first}, {"id": second}]},
                        },
                    },
                },
                {"type": "tool_call", "id": first, "result": f"answers {answers or first}"},
                {"type": "tool_call", "id": second, "result": f"answers {second}"},
            ],
        }

    golden = run("call_aaaaaa", "call_bbbbbb", 1)
    assert same_content(golden, run("call_xxxxxx", "call_yyyyyy", 2))  # fresh ids, timings
    # the first result now names the second call: the id structure changed
    assert not same_content(golden, run("call_xxxxxx", "call_yyyyyy", 2, answers="call_yyyyyy"))
    changed = run("call_aaaaaa", "call_bbbbbb", 1)
    changed["trace"][1]["result"] = "another answer"
    assert not same_content(golden, changed)
