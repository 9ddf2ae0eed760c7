"""DiffReport: fields, summary_line, render (sections, values, colour, truncation)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from agentsnap.diff import DiffReport, compute_diff


def tool(step: int, name: str, args: Any) -> dict[str, Any]:
    return {
        "step": step,
        "type": "tool_call",
        "name": name,
        "args": args,
        "result": "ok",
        "id": f"t{step}",
    }


def llm(step: int, response: str, requests: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "step": step,
        "type": "llm_call",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": ["get_weather", "get_time", "search"],
        "response": response,
        "tool_requests": requests if requests is not None else [],
        "tokens": 42,
        "usage": {"prompt_tokens": 30, "completion_tokens": 12},
        "stream": False,
        "status": 200,
        "exchange": {"request": {"body": {}}, "response": {"status": 200, "body": {}}},
    }


GOLDEN = {
    "trace": [
        llm(0, "", [{"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}]),
        tool(1, "get_weather", {"city": "Paris", "days": 3}),
        tool(2, "search", {"q": "umbrella"}),
        llm(3, "It is sunny in Paris."),
    ],
    "output": "It is sunny in Paris today.",
}

DRIFTED = {
    "trace": [
        llm(0, "", [{"id": "c7", "name": "get_time", "args": {"city": "Paris"}}]),
        tool(1, "get_time", {"tz": "CET"}),
        tool(2, "search", {"q": "umbrella", "city": "paris"}),
        llm(3, "It is sunny in Paris."),
    ],
    "output": "Rain all day.",
}


def test_fields_and_defaults() -> None:
    names = [f.name for f in dataclasses.fields(DiffReport)]
    assert names == [
        # agentsnap 0.5.1's fields, in its order, with its types
        "passed",
        "structural_diff",
        "structural_score",
        "structural_reason",
        "argument_diffs",
        "semantic_scores",
        "semantic_reasons",
        "failed_checks",
        "model_tools_diff",
        # the richer detail
        "details",
        "changes",
        "reasons",
        "name",
        "backend",
        "semantic_backend",
    ]
    empty = DiffReport()
    assert empty.passed is True
    assert (empty.structural_diff, empty.argument_diffs, empty.semantic_reasons) == (None, {}, {})
    assert empty.name == ""
    assert empty.summary_line() == "[agentsnap] PASSED | structural: ok"
    assert empty.render().splitlines()[0] == "[agentsnap] PASSED — all checks ok"


def test_051_fields_keep_051_types_and_check_names() -> None:
    # code written against agentsnap 0.5.1 reads these (the DiffReport of its docs)
    report = compute_diff(GOLDEN, DRIFTED, name="my_agent", ignored_fields=["days"])
    assert report.passed is False
    assert isinstance(report.structural_diff, str)
    assert report.structural_diff.startswith("Tool sequence changed (edit distance ")
    assert isinstance(report.argument_diffs, dict)
    assert all(
        re.fullmatch(r"(model_tool:)?[\w.-]+\[\d+\]|llm_call\[\d+\]\.messages", key)
        for key in report.argument_diffs
    )
    for entry in report.argument_diffs.values():
        assert {"old", "new", "added", "removed", "changed", "changes"} <= set(entry)
    assert "semantic:output" in report.failed_checks and "output" not in report.failed_checks
    assert all(isinstance(v, str) for v in report.semantic_reasons.values())
    same = compute_diff(GOLDEN, GOLDEN)
    assert (same.passed, same.structural_diff, same.argument_diffs, same.model_tools_diff) == (
        True,
        None,
        {},
        None,
    )
    # 0.5.1 code builds reports by hand
    made = DiffReport(passed=False, structural_diff="x", failed_checks=["semantic:output"])
    assert made.passed is False and made.structural_diff == "x"
    assert made.render().splitlines()[0] == "[agentsnap] FAILED — failed checks: semantic:output"
    assert DiffReport(failed_checks=["arguments"]).passed is False


def test_report_is_json_serialisable() -> None:
    report = compute_diff(GOLDEN, DRIFTED, name="my_agent", ignored_fields=["days"])
    assert (
        json.loads(json.dumps(dataclasses.asdict(report)))["failed_checks"] == report.failed_checks
    )


def test_passing_summary_line() -> None:
    report = compute_diff(GOLDEN, GOLDEN, name="my_agent")
    assert report.passed
    assert report.summary_line() == (
        "[agentsnap] 'my_agent' PASSED | structural: ok | llm_call[0]: 100% | llm_call[1]: 100% "
        "| output: 100%"
    )


def test_failing_summary_line() -> None:
    report = compute_diff(GOLDEN, DRIFTED, name="my_agent", embedding_backend="lexical")
    assert report.failed_checks == ["structural", "arguments", "model_tools", "semantic:output"]
    assert report.summary_line() == (
        "[agentsnap] 'my_agent' FAILED | structural: FAIL | llm_call[0]: 100% | llm_call[1]: 100% "
        "| output: 40% | failed: structural, arguments, model_tools, semantic:output"
    )


def test_render_failure_lines() -> None:
    report = compute_diff(GOLDEN, DRIFTED, name="my_agent", embedding_backend="lexical")
    assert report.render().splitlines() == [
        "[agentsnap] 'my_agent' FAILED — failed checks: structural, arguments, model_tools, semantic:output",
        "[STRUCTURAL] FAIL — structural: tool sequence edit distance 1 > tolerance 0 (50% match)",
        "  golden: ['get_weather', 'search']",
        "  new:    ['get_time', 'search']",
        "  replace #0 get_weather → get_time (golden step 1, new step 1)",
        "[ARGS] FAIL — arguments: changed in 1 tool call",
        "  #1 search (golden step 2, new step 2):",
        "    args.city: <absent> → 'paris' (added)",
        "[MODEL TOOLS] FAIL — model_tools: edit distance 1 > tolerance 0",
        "  golden: ['get_weather']",
        "  new:    ['get_time']",
        "  replace #0 get_weather → get_time (golden llm_call step 0, new llm_call step 0)",
        "[SEMANTIC] FAIL — backend: lexical",
        "  llm_call[0]: 100% ≥ threshold 75% ok",
        "  llm_call[1]: 100% ≥ threshold 75% ok",
        "  output: 40% < threshold 92% FAIL — changed",
        "    was: 'It is sunny in Paris today.'",
        "    now: 'Rain all day.'",
        '    changed: names differ (Paris → (none)): golden: "It is sunny in Paris today." → new: (nothing)',
        (
            "    changed: a different answer: no sentence has a counterpart: "
            'golden: "It is sunny in Paris today." → new: "Rain all day."'
        ),
    ]


def test_render_changed_value_line() -> None:
    golden = {"trace": [tool(0, "get_weather", {"city": "Paris", "days": 3})]}
    new = {"trace": [tool(0, "get_weather", {"city": "paris", "days": 3.0})]}
    lines = compute_diff(golden, new, name="w", strict=True).render().splitlines()
    assert "    args.city: 'Paris' → 'paris'" in lines
    assert "    args.days: 3 → 3.0 (type int → float)" in lines
    assert "[ARGS] FAIL — arguments: changed in 1 tool call" in lines
    assert "  #0 get_weather (golden step 0, new step 0):" in lines


def test_render_removed_value_and_ignored_fields() -> None:
    golden = {"trace": [tool(0, "a", {"x": 1, "ts": 1})]}
    new = {"trace": [tool(0, "a", {"ts": 2})]}
    lines = compute_diff(golden, new, ignored_fields=["ts"]).render().splitlines()
    assert "[ARGS] FAIL — arguments: changed in 1 tool call (ignoring ts)" in lines
    assert "    args.x: 1 → <absent> (removed)" in lines


def test_render_insert_and_delete_ops() -> None:
    golden = {
        "trace": [
            tool(1, "a", {}),
            tool(3, "b", {}),
            tool(5, "c", {}),
            tool(7, "d", {}),
        ]
    }
    new = {
        "trace": [
            tool(1, "a", {}),
            tool(3, "c", {}),
            tool(4, "d", {}),
            tool(6, "e", {}),
        ]
    }
    lines = compute_diff(golden, new, structural_tolerance=2).render().splitlines()
    assert (
        lines[1]
        == "[STRUCTURAL] ok — structural: tool sequence edit distance 2 ≤ tolerance 2 (50% match)"
    )
    assert "  delete #1 b (golden step 3)" in lines
    assert "  insert #3 e (new step 6)" in lines


def test_render_long_values_are_truncated_with_an_ellipsis() -> None:
    golden = {"trace": [tool(0, "search", {"q": "x"})]}
    new = {"trace": [tool(0, "search", {"q": "y" * 500})]}
    line = next(
        x for x in compute_diff(golden, new).render().splitlines() if x.startswith("    args.q")
    )
    assert line == "    args.q: 'x' → '" + "y" * 58 + "…"


def test_render_requests_section_only_when_compared() -> None:
    golden = {"trace": [llm(0, "hi")]}
    new = {"trace": [llm(0, "hi")]}
    new["trace"][0]["messages"] = [{"role": "user", "content": "Weather in Lyon?"}]
    new["trace"][0]["exchange"]["request"]["body"] = {"messages": new["trace"][0]["messages"]}
    golden["trace"][0]["exchange"]["request"]["body"] = {"messages": golden["trace"][0]["messages"]}
    assert "[REQUESTS]" not in compute_diff(golden, new).render()
    lines = compute_diff(golden, new, compare_requests=True, name="r").render().splitlines()
    assert "[REQUESTS] FAIL — llm_requests: messages differ in 1 llm call" in lines
    assert "  llm_call[0] (golden step 0, new step 0):" in lines
    assert "    messages[0].content: 'Weather in Paris?' → 'Weather in Lyon?'" in lines
    ok = compute_diff(golden, golden, compare_requests=True).render().splitlines()
    assert "[REQUESTS] ok — llm_requests: messages identical" in ok


def test_render_passing_report() -> None:
    lines = compute_diff(GOLDEN, GOLDEN, name="my_agent").render().splitlines()
    assert lines == [
        "[agentsnap] 'my_agent' PASSED — all checks ok",
        "[STRUCTURAL] ok — structural: 2 tool calls, same sequence",
        "[ARGS] ok — arguments: 2 aligned tool calls, same arguments",
        "[MODEL TOOLS] ok — model_tools: 1 request, same sequence",
        "[SEMANTIC] ok — backend: exact",
        "  llm_call[0]: 100% ≥ threshold 75% ok",
        "  llm_call[1]: 100% ≥ threshold 75% ok",
        "  output: 100% ≥ threshold 92% ok",
    ]


def test_render_model_tool_args() -> None:
    golden = {
        "trace": [
            llm(
                0,
                "",
                [{"id": "a", "name": "search", "args": {"query": "capital of France"}}],
            )
        ]
    }
    new = {
        "trace": [
            llm(
                0,
                "",
                [{"id": "b", "name": "search", "args": {"query": "capital of Spain"}}],
            )
        ]
    }
    lines = compute_diff(golden, new).render().splitlines()
    assert (
        "[MODEL TOOLS] FAIL — model_tools: 1 request, same sequence; "
        "model_tool_args: changed in 1 request" in lines
    )
    assert "  #0 search (golden llm_call step 0, new llm_call step 0):" in lines
    assert "    args.query: 'capital of France' → 'capital of Spain'" in lines


def test_color_false_has_no_escape_codes_and_color_true_has() -> None:
    report = compute_diff(GOLDEN, DRIFTED, name="my_agent")
    assert "\x1b" not in report.render(color=False)
    assert "\x1b" not in report.render()
    assert "\x1b" not in str(report)
    colored = report.render(color=True)
    assert "\x1b[31m" in colored
    assert len(colored.splitlines()) == len(report.render().splitlines())


def test_truncation_keeps_max_lines_and_says_how_many_were_cut() -> None:
    report = compute_diff(GOLDEN, DRIFTED, name="my_agent", embedding_backend="lexical")
    full = report.render(max_lines=1000).splitlines()
    assert len(full) == 20
    cut = report.render(max_lines=5).splitlines()
    assert len(cut) == 5
    assert cut[:4] == full[:4]
    assert cut[4] == "… 16 more lines cut; run `agentsnap diff my_agent` to see everything"
    assert report.render(max_lines=20).splitlines() == full
    assert report.render(max_lines=19).splitlines()[-1] == (
        "… 2 more lines cut; run `agentsnap diff my_agent` to see everything"
    )
    assert "\x1b" not in report.render(max_lines=5)


def test_truncation_of_many_argument_changes() -> None:
    golden = {"trace": [tool(0, "bulk", {f"k{i:03d}": i for i in range(300)})]}
    new = {"trace": [tool(0, "bulk", {f"k{i:03d}": -i for i in range(300)})]}
    lines = compute_diff(golden, new, name="bulk_agent").render().splitlines()
    assert len(lines) == 100
    assert lines[-1].startswith("… ")
    assert lines[-1].endswith("more lines cut; run `agentsnap diff bulk_agent` to see everything")


def test_max_lines_below_two_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="max_lines must be >= 2"):
        DiffReport().render(max_lines=1)


# --------------------------------------------------------------------- 0.5.1 snapshots


SNAPSHOT_051 = {
    "version": "1.1",
    "recorded_at": "2026-01-01T00:00:00+00:00",
    "model": "claude-haiku-4-5",
    "input": {"query": "What is Python?"},
    "trace": [
        {
            "step": 0,
            "type": "llm_call",
            "messages": [{"role": "user", "content": "What is Python?"}],
            "response": "",
            "tokens": 350,
            "raw_response": {"id": "msg_1"},
            "tool_requests": [{"name": "search", "args": {"query": "Python"}}],
        },
        {
            "step": 1,
            "type": "tool_call",
            "name": "search",
            "args": {"query": "Python"},
            "result": "Results",
        },
        {
            "step": 2,
            "type": "llm_call",
            "messages": [{"role": "user", "content": "What is Python?"}],
            "response": "Python is a programming language.",
            "tokens": 120,
            "tool_requests": [],
        },
    ],
    "output": "Python is a high-level programming language.",
}


def _new_format_of(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The same run as recorded by this version (extra keys, ids, exchange)."""
    trace = []
    for step in snapshot["trace"]:
        if step["type"] == "llm_call":
            requests = [{"id": f"call_{i}", **r} for i, r in enumerate(step["tool_requests"])]
            trace.append(
                {
                    **llm(step["step"], step["response"], requests),
                    "messages": step["messages"],
                }
            )
        else:
            trace.append({**step, "id": "t1"})
    return {
        "trace": trace,
        "output": snapshot["output"],
        "name": "py",
        "approved": True,
    }


def test_051_snapshot_against_itself_and_against_a_new_format_run() -> None:
    assert compute_diff(SNAPSHOT_051, SNAPSHOT_051).passed
    report = compute_diff(
        SNAPSHOT_051, _new_format_of(SNAPSHOT_051), compare_requests=True, name="py"
    )
    assert report.failed_checks == []
    assert report.details["model_tools"]["compared"] is True
    assert report.semantic_scores == {
        "llm_call[0]": 1.0,
        "llm_call[1]": 1.0,
        "output": 1.0,
    }


def test_051_snapshot_drift_is_detected() -> None:
    new = _new_format_of(SNAPSHOT_051)
    new["trace"][1]["args"] = {"query": "Python 3"}
    report = compute_diff(SNAPSHOT_051, new, name="py")
    assert report.failed_checks == ["arguments"]
    assert report.changes[0]["changes"] == [
        {"path": "args.query", "old": "Python", "new": "Python 3", "kind": "changed"}
    ]


def test_pre_tool_requests_snapshot_skips_model_tools() -> None:
    oldest = json.loads(json.dumps(SNAPSHOT_051))
    for step in oldest["trace"]:
        step.pop("tool_requests", None)
    new = _new_format_of(SNAPSHOT_051)
    new["trace"][0]["tool_requests"] = [{"id": "x", "name": "delete_file", "args": {}}]
    report = compute_diff(oldest, new, name="py")
    assert report.failed_checks == []
    lines = report.render().splitlines()
    assert lines[3] == (
        "[MODEL TOOLS] skipped — golden snapshot has llm_call steps without tool_requests "
        "(recorded before model tool requests were captured; re-record to compare them)"
    )


def test_importing_the_diff_package_does_not_import_deepdiff_or_rich() -> None:
    code = (
        "import sys, agentsnap.diff\n"
        "print(sorted(m for m in ('deepdiff', 'rich') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_llm_requests_compares_the_whole_recorded_request_body() -> None:
    """A changed tool schema (not only changed messages) is request drift."""
    golden = {"trace": [llm(0, "hi")]}
    new = {"trace": [llm(0, "hi")]}
    golden["trace"][0]["exchange"]["request"]["body"] = {
        "messages": [],
        "tools": [{"function": {"name": "get_weather"}}],
    }
    new["trace"][0]["exchange"]["request"]["body"] = {
        "messages": [],
        "tools": [{"function": {"name": "get_forecast"}}],
    }
    report = compute_diff(golden, new, compare_requests=True, name="r")
    assert report.failed_checks == ["llm_requests"]
    assert (
        "    tools[0].function.name: 'get_weather' → 'get_forecast'" in report.render().splitlines()
    )


def test_semantic_section_names_the_changed_sentence_and_explains_a_harmless_pass() -> None:
    """Issue 16: a failure names golden → new sentence; a pass below 1.0 says what differed and that it was judged harmless."""
    golden = {"trace": [], "output": "Your train arrives at 10:30."}
    changed = compute_diff(
        golden, {"trace": [], "output": "Your train arrives at 11:30."}, embedding_backend="lexical"
    )
    lines = changed.render().splitlines()
    assert "  output: 55.5% < threshold 92% FAIL — changed" in lines, lines
    assert "    was: 'Your train arrives at 10:30.'" in lines
    assert "    now: 'Your train arrives at 11:30.'" in lines
    assert (
        '    changed: times differ (10:30 → 11:30): golden: "Your train arrives at 10:30." '
        '→ new: "Your train arrives at 11:30."'
    ) in lines
    polite = compute_diff(
        golden,
        {"trace": [], "output": "Sure! Your train arrives at 10.30 am."},
        embedding_backend="lexical",
    )
    assert polite.passed
    lines = polite.render().splitlines()
    assert any(
        line.startswith("  output: ") and line.endswith("ok — same meaning") for line in lines
    ), lines
    assert '    harmless: courtesy added: golden: (nothing) → new: "Sure!"' in lines


def test_a_change_deep_in_a_long_string_is_shown_where_it_differs() -> None:
    """DSPy sends a ReAct tool result inside one long user message: the report shows the
    region around the first difference, not two identical beginnings."""
    from agentsnap.diff.report import _changed_pair

    prefix = "[[ ## question ## ]]\nWhat's the weather in Paris?\n\n[[ ## trajectory ## ]]\n[[ ## observation_0 ## ]]\n"
    old, new = _changed_pair(
        prefix + "Light rain, 18°C\n\nRespond.", prefix + "Heavy rain, 12°C\n\nRespond."
    )
    assert old == "'…observation_0 ## ]]\\nLight rain, 18°C\\n\\nRespond.'"
    assert new == "'…observation_0 ## ]]\\nHeavy rain, 12°C\\n\\nRespond.'"
    assert _changed_pair("Weather in Paris?", "Weather in Lyon?") == (
        "'Weather in Paris?'",
        "'Weather in Lyon?'",
    )
