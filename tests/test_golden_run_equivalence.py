"""The fast path's snapshot (``_pytest/golden_run.py``) against the snapshot built from the same
replayed trace, over shapes ``test_golden_run.py`` does not cover (error replies, streamed tool
calls, the Responses API with two text parts, other providers) and with user ``redact`` rules
in force: the same run, value for value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentsnap.jsondiff import same_json
from agentsnap.storage import scrub

openai = pytest.importorskip("openai")

from tests import fake_openai_extra as fx
from tests import fake_provider as fp
from tests._support.golden_again import record_and_replay


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    return None


def _client(fake: Any) -> Any:
    return openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)


def _chat_error(fake: Any) -> None:
    with pytest.raises(openai.BadRequestError):
        _client(fake).chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "bad"}]
        )


def _chat_stream_tools(fake: Any) -> None:
    stream = _client(fake).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Weather?"}], stream=True
    )
    list(stream)


def _chat_json(fake: Any) -> None:
    _client(fake).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "as JSON"}]
    )


def _chat_stream_json(fake: Any) -> None:
    list(
        _client(fake).chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "as JSON"}], stream=True
        )
    )


def _responses(fake: Any) -> None:
    _client(fake).responses.create(model="gpt-4.1-mini", input="as JSON")


def _two_parts() -> dict[str, Any]:
    item = fx.message_item('{"account": "ACC-1", ')
    item["content"].append({**item["content"][0], "text": '"answer": "ok"}'})
    return item


SHAPES: dict[str, tuple[Callable[[], Any], Callable[[Any], None], Callable[[], list[Any]]]] = {
    "chat-error-400": (
        fp.FakeOpenAI,
        _chat_error,
        lambda: [fp.error_reply(400, message="bad request sk-proj-" + "A" * 24)],
    ),
    "chat-stream-tool-calls": (
        fp.FakeOpenAI,
        _chat_stream_tools,
        lambda: [fp.stream_tool_calls_reply([("call_A", "get_weather", {"account": "ACC-1"})])],
    ),
    "chat-json-answer": (
        fp.FakeOpenAI,
        _chat_json,
        lambda: [fp.text_reply('{"account": "ACC-1", "answer": "ok"}')],
    ),
    "chat-stream-json-answer": (
        fp.FakeOpenAI,
        _chat_stream_json,
        lambda: [fp.stream_text_reply(['{"account": "AC', 'C-1", "answer": "ok"}'])],
    ),
    "responses-two-text-parts": (
        fx.FakeOpenAIResponses,
        _responses,
        lambda: [fx.responses_reply([_two_parts()])],
    ),
}

RULES = {
    "none": None,
    "patterns": {"patterns": ["ACC-[0-9]+"]},
    "paths": {"paths": ["account"]},
}


@pytest.mark.parametrize("rules", list(RULES), ids=list(RULES))
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_the_golden_again_is_the_built_snapshot(tmp_path: Path, shape: str, rules: str) -> None:
    make, agent, replies = SHAPES[shape]
    scrub.configure(RULES[rules])
    golden, again, built = record_and_replay(tmp_path, make(), agent, replies())
    for key in ("trace", "output", "model", "input"):
        assert same_json(again.to_dict()[key], built.to_dict()[key]), (
            key,
            again.to_dict()[key] if key != "trace" else "",
            built.to_dict()[key] if key != "trace" else "",
        )
    # and the built run is its golden (the normal path passes)
    assert same_json(built.to_dict()["output"], golden.output)


@pytest.mark.parametrize("rules", list(RULES), ids=list(RULES))
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_the_golden_again_record_is_written_as_with_the_key_sort(
    tmp_path: Path, shape: str, rules: str
) -> None:
    """A golden again's ``.last_run`` text encodes its trace without the key sort (its digest held
    on the keys as the steps hold them): the bytes the sort writes."""
    from agentsnap.storage.serialize import compact_bytes
    from agentsnap.storage.store import _prepared_dict

    make, agent, replies = SHAPES[shape]
    scrub.configure(RULES[rules])
    _, again, _ = record_and_replay(tmp_path, make(), agent, replies())
    assert again.finite_trace
    data = _prepared_dict(again)
    assert compact_bytes(data, finite_trace=True) == compact_bytes(data)


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_the_golden_again_budget_row_is_the_built_snapshots(tmp_path: Path, shape: str) -> None:
    """A golden again's budget row (its proven, finite bodies counted without the key sort and
    the null check: ``request_tokens``' ``proven``) is the row of the snapshot built from the
    same run."""
    from agentsnap._pytest import run_budget
    from agentsnap.diff import run_totals
    from agentsnap.lifecycle import Outcome

    make, agent, replies = SHAPES[shape]
    golden, again, built = record_and_replay(tmp_path, make(), agent, replies())
    assert again.finite_trace
    rows = []
    for new in (again, built):
        run_totals.forget_measured()
        rows.append(
            run_budget.row(Outcome("passed", golden.name, None, golden=golden, new=new), "replay")
        )
    assert rows[0] is not None and rows[0]["request_tokens"] and rows[0] == rows[1]
