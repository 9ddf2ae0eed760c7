"""The tool_schema check (issue 28, part 3): each tool call the model made is validated against
the JSON Schema the agent sent for the tool, offline — through the real openai SDK against the
loopback fake, and per request format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.diff import compute_diff
from agentsnap.diff.checks.tool_schema import tool_schemas
from agentsnap.exceptions import AgentRegressionError
from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply

PARAMS = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": PARAMS}}]


def agent(fake: FakeOpenAI | str) -> str:
    """Ask, run the tool the model called, send its result, return the answer (``fake``: the
    server, or where it was)."""
    url = fake if isinstance(fake, str) else fake.base_url
    client = openai.OpenAI(base_url=url, api_key="sk-test-0123456789", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    second = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    return str(second.choices[0].message.content)


def script(fake: FakeOpenAI, args: dict[str, Any], name: str = "get_weather") -> None:
    fake.script(tool_calls_reply([("call_A", name, args)]), text_reply("Sunny in Paris."))


def test_a_call_missing_a_required_argument_fails_a_live_run_with_its_json_path(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as fake:
        script(fake, {"city": "Paris"})
        with AgentRecorder("schema::live", snapshot_dir=tmp_path):
            agent(fake)
        script(fake, {"days": "three"})  # the model now forgets the city, and mistypes days
        with pytest.raises(AgentRegressionError) as failed:
            with AgentAsserter("schema::live", snapshot_dir=tmp_path, mode="live"):
                agent(fake)
    said = str(failed.value)
    assert "tool_schema" in said and "[TOOL SCHEMA] FAIL" in said, said
    assert "1 of 1 tool call(s) invalid" in said
    assert "get_weather: $: 'city' is a required property" in said
    assert "get_weather: $.days: 'three' is not of type 'integer'" in said


def test_a_valid_call_passes_and_an_unknown_tool_is_named(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        script(fake, {"city": "Paris", "days": 2})
        with AgentRecorder("schema::ok", snapshot_dir=tmp_path):
            agent(fake)
        script(fake, {"city": "Paris", "days": 2})
        with AgentAsserter("schema::ok", snapshot_dir=tmp_path, mode="live") as check:
            agent(fake)
        assert check.report is not None and check.report.passed
        assert "[TOOL SCHEMA] ok — 1 tool call(s) valid" in check.report.render()

        script(fake, {"city": "Paris"}, name="get_forecast")
        with pytest.raises(AgentRegressionError) as unknown:
            with AgentAsserter("schema::ok", snapshot_dir=tmp_path, mode="live"):
                agent(fake)
    assert "get_forecast: unknown tool (offered: get_weather)" in str(unknown.value)


def test_replay_validates_only_when_asked(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        script(fake, {"days": 2})  # recorded invalid: replay serves the recorded call
        with AgentRecorder("schema::replay", snapshot_dir=tmp_path):
            agent(fake)
        where = fake.base_url
    with AgentAsserter("schema::replay", snapshot_dir=tmp_path, mode="replay") as check:
        agent(where)
    assert check.report is not None and check.report.passed
    assert "[TOOL SCHEMA]" not in check.report.render()  # auto: not in replay
    with pytest.raises(AgentRegressionError) as asked:
        with AgentAsserter(
            "schema::replay", snapshot_dir=tmp_path, mode="replay", validate_tool_calls="on"
        ):
            agent(where)
    assert "'city' is a required property" in str(asked.value)
    with pytest.raises(ValueError, match="validate_tool_calls"):
        with AgentAsserter(
            "schema::replay", snapshot_dir=tmp_path, mode="replay", validate_tool_calls="sometimes"
        ):
            agent(where)


def test_each_request_format_gives_its_tools_schemas() -> None:
    assert tool_schemas({"tools": TOOLS}) == {"get_weather": PARAMS}
    responses = {"tools": [{"type": "function", "name": "get_weather", "parameters": PARAMS}]}
    assert tool_schemas(responses) == {"get_weather": PARAMS}
    anthropic = {"tools": [{"name": "get_weather", "input_schema": PARAMS}]}
    assert tool_schemas(anthropic) == {"get_weather": PARAMS}
    gemini = {
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"city": {"type": "STRING", "nullable": True}},
                            "required": ["city"],
                        },
                    },
                    {"name": "now", "parametersJsonSchema": {"type": "object"}},
                ]
            }
        ]
    }
    assert tool_schemas(gemini) == {
        "get_weather": {
            "type": "object",
            "properties": {"city": {"type": ["string", "null"]}},
            "required": ["city"],
        },
        "now": {"type": "object"},
    }
    assert tool_schemas({"messages": []}) == {} and tool_schemas(None) == {}


def _schema_step(args: object, schema: object) -> dict[str, object]:
    body = {"tools": [{"type": "function", "function": {"name": "w", "parameters": schema}}]}
    return {
        "trace": [
            {
                "step": 0,
                "type": "llm_call",
                "tool_requests": [{"name": "w", "args": args}],
                "exchange": {"request": {"body": body}},
            }
        ]
    }


def test_a_remote_ref_is_never_fetched_and_the_call_is_not_judged() -> None:
    import http.server
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"type": "string"}')

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/city.json"
        schema = {"type": "object", "properties": {"city": {"$ref": url}}}
        run = _schema_step({"city": "Paris"}, schema)
        report = compute_diff(run, run, validate_tool_calls="on")
    finally:
        server.shutdown()
    assert hits == []
    assert report.passed
    text = report.render()
    assert (
        "[TOOL SCHEMA] ok — 0 tool call(s) valid against the schema the agent sent; 1 not judged"
        in text
    )
    assert (
        f"w: its schema refers to {url} outside itself, which is never fetched: not judged" in text
    )


def test_arguments_that_are_not_json_are_reported_as_such() -> None:
    run = _schema_step('{"city": "Par', {"type": "object"})
    report = compute_diff(run, run, validate_tool_calls="on")
    assert report.failed_checks == ["tool_schema"]
    assert 'llm_call step 0: w: arguments are not valid JSON: \'{"city": "Par\'' in report.render()


def test_a_record_run_warns_of_an_invalid_call_it_writes_into_the_golden(tmp_path: Path) -> None:
    from agentsnap.exceptions import AgentsnapWarning

    with FakeOpenAI() as fake:
        script(fake, {"days": 2})  # no city: the golden would keep an invalid call
        with pytest.warns(AgentsnapWarning, match="holds 1 of 1 tool call") as warned:
            with AgentRecorder("schema::record", snapshot_dir=tmp_path):
                agent(fake)
    said = next(str(w.message) for w in warned if "holds" in str(w.message))
    assert "get_weather: $: 'city' is a required property" in said
    assert "re-record (`pytest --agentsnap-record`)" in said
