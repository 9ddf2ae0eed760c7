"""Structural layer: tool-name sequences, edit distance, edit ops, alignment."""

from __future__ import annotations

from typing import Any

import pytest

from agentsnap.diff import DiffReport, compute_diff
from agentsnap.diff.sequence import (
    ToolRef,
    aligned_pairs,
    edit_distance,
    requested_tools,
    sequence_diff,
    tool_calls,
    trace_steps,
)


def tool(step: int, name: str, args: Any = None) -> dict[str, Any]:
    return {
        "step": step,
        "type": "tool_call",
        "name": name,
        "args": args or {},
        "result": "ok",
        "id": None,
    }


def llm(
    step: int, response: str = "", requests: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "step": step,
        "type": "llm_call",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": ["get_weather", "get_time"],
        "response": response,
        "tool_requests": requests or [],
        "tokens": 10,
        "usage": None,
        "stream": False,
        "status": 200,
        "exchange": {"request": {}, "response": {}},
    }


def req(name: str, args: Any = None, id: str | None = "call_1") -> dict[str, Any]:
    return {"id": id, "name": name, "args": args or {}}


def snap_of_tools(*names: str) -> dict[str, Any]:
    return {"trace": [tool(i, n) for i, n in enumerate(names)], "output": "done"}


# --------------------------------------------------------------------- distance


@pytest.mark.parametrize(
    ("golden", "new", "distance"),
    [
        ([], [], 0),
        (["a"], ["a"], 0),
        (["a"], [], 1),
        ([], ["a", "b"], 2),
        (["get_weather", "search"], ["get_time", "search"], 1),
        (["a", "b"], ["b", "a"], 2),
        (["a", "b", "c"], ["x", "y"], 3),
        (["search", "search", "book"], ["search", "book"], 1),
    ],
)
def test_edit_distance(golden: list[str], new: list[str], distance: int) -> None:
    assert edit_distance(golden, new) == distance
    assert edit_distance(new, golden) == distance


def test_names_are_whole_tokens_not_characters() -> None:
    # "ab" vs "ac" would be 1 at character level; as tool names they are one substitution
    assert edit_distance(["ab", "cd"], ["ac", "cd"]) == 1
    assert edit_distance(["search"], ["search_v2"]) == 1


# --------------------------------------------------------------------- edit ops


def test_replace_op_records_positions_names_and_steps() -> None:
    report = compute_diff(
        snap_of_tools("get_weather", "search"), snap_of_tools("get_time", "search")
    )
    tools = report.details["tools"]
    assert tools["golden"] == ["get_weather", "search"]
    assert tools["new"] == ["get_time", "search"]
    assert tools["distance"] == 1
    assert tools["tolerance"] == 0
    assert tools["similarity"] == 0.5
    assert tools["passed"] is False
    assert tools["ops"] == [
        {
            "op": "replace",
            "golden_index": 0,
            "new_index": 0,
            "old": "get_weather",
            "new": "get_time",
            "golden_step": 0,
            "new_step": 0,
        }
    ]
    assert tools["aligned"] == [[1, 1]]
    assert report.failed_checks == ["structural"]


def test_insert_and_delete_ops() -> None:
    golden = {"trace": [tool(1, "a"), tool(3, "b"), tool(5, "c"), tool(7, "d")]}
    new = {"trace": [tool(1, "a"), tool(3, "c"), tool(4, "d"), tool(6, "e")]}
    tools = compute_diff(golden, new).details["tools"]
    assert tools["distance"] == 2
    assert tools["ops"] == [
        {
            "op": "delete",
            "golden_index": 1,
            "new_index": 1,
            "old": "b",
            "new": None,
            "golden_step": 3,
            "new_step": None,
        },
        {
            "op": "insert",
            "golden_index": 4,
            "new_index": 3,
            "old": None,
            "new": "e",
            "golden_step": None,
            "new_step": 6,
        },
    ]
    assert tools["aligned"] == [[0, 0], [2, 1], [3, 2]]
    assert tools["golden_steps"] == [1, 3, 5, 7]
    assert tools["new_steps"] == [1, 3, 4, 6]


def test_sequence_diff_of_empty_sequences() -> None:
    result = sequence_diff([], [], tolerance=0)
    assert result["distance"] == 0
    assert result["similarity"] == 1.0
    assert result["passed"] is True
    assert result["ops"] == []
    assert result["aligned"] == []


def test_sequence_diff_rejects_negative_tolerance() -> None:
    with pytest.raises(ValueError, match="structural_tolerance must be >= 0"):
        sequence_diff([ToolRef("a", 0, {})], [], tolerance=-1)


# --------------------------------------------------------------------- alignment


def test_alignment_pairs_only_equal_names() -> None:
    assert aligned_pairs(["a", "b", "c"], ["a", "x", "c"]) == [(0, 0), (2, 2)]
    assert aligned_pairs(["a", "b"], ["c", "d"]) == []
    assert aligned_pairs(["a", "b"], ["b", "a"]) == [(0, 1)]


def test_alignment_keeps_earliest_occurrence_of_a_repeated_tool() -> None:
    assert aligned_pairs(["search", "search"], ["search"]) == [(0, 0)]
    assert aligned_pairs(["search"], ["search", "search"]) == [(0, 0)]
    assert aligned_pairs(["a", "s", "s", "b"], ["a", "s", "b"]) == [
        (0, 0),
        (1, 1),
        (3, 2),
    ]


# --------------------------------------------------------------------- tolerance


def test_tolerance_boundary() -> None:
    golden = snap_of_tools("a", "b", "c")
    new = snap_of_tools("a", "x", "y")  # distance 2
    assert compute_diff(golden, new, structural_tolerance=2).failed_checks == []
    assert compute_diff(golden, new, structural_tolerance=2).details["tools"]["passed"] is True
    assert compute_diff(golden, new, structural_tolerance=1).failed_checks == ["structural"]
    assert compute_diff(golden, new, structural_tolerance=0).failed_checks == ["structural"]


@pytest.mark.parametrize("bad", [-1, -5])
def test_negative_tolerance_is_a_value_error(bad: int) -> None:
    with pytest.raises(ValueError, match="structural_tolerance must be >= 0"):
        compute_diff(snap_of_tools(), snap_of_tools(), structural_tolerance=bad)


@pytest.mark.parametrize("bad", [1.5, "1", True, None])
def test_non_int_tolerance_is_a_type_error(bad: Any) -> None:
    with pytest.raises(TypeError, match="structural_tolerance must be an int"):
        compute_diff(snap_of_tools(), snap_of_tools(), structural_tolerance=bad)


# --------------------------------------------------------------------- model tools


def test_model_tools_sequence_is_flattened_over_llm_calls() -> None:
    golden = {
        "trace": [
            llm(0, "", [req("get_weather"), req("get_time")]),
            llm(3, "done", [req("search")]),
        ]
    }
    new = {
        "trace": [
            llm(0, "", [req("get_weather")]),
            llm(2, "done", [req("search")]),
            llm(4, "extra"),
        ]
    }
    report = compute_diff(golden, new)
    model = report.details["model_tools"]
    assert model["compared"] is True
    assert model["skipped_reason"] is None
    assert model["golden"] == ["get_weather", "get_time", "search"]
    assert model["new"] == ["get_weather", "search"]
    assert model["golden_steps"] == [0, 0, 3]
    assert model["new_steps"] == [0, 2]
    assert model["distance"] == 1
    assert model["ops"] == [
        {
            "op": "delete",
            "golden_index": 1,
            "new_index": 1,
            "old": "get_time",
            "new": None,
            "golden_step": 0,
            "new_step": None,
        }
    ]
    assert report.failed_checks == ["model_tools"]


def test_model_tools_share_the_structural_tolerance() -> None:
    golden = {"trace": [llm(0, "", [req("search")])]}
    new = {"trace": [llm(0, "", [req("delete_file")])]}
    assert compute_diff(golden, new).failed_checks == ["model_tools"]
    assert compute_diff(golden, new, structural_tolerance=1).failed_checks == []


def test_model_tools_skipped_when_tool_requests_were_not_recorded() -> None:
    old_style = llm(0, "", [req("search")])
    del old_style["tool_requests"]
    golden = {"trace": [old_style]}
    new = {"trace": [llm(0, "", [req("delete_file")])]}
    report = compute_diff(golden, new)
    assert report.failed_checks == []
    model = report.details["model_tools"]
    assert model["compared"] is False
    assert model["passed"] is True
    assert model["skipped_reason"].startswith(
        "golden snapshot has llm_call steps without tool_requests"
    )


def test_none_tool_requests_counts_as_no_request() -> None:
    step = llm(0, "")
    step["tool_requests"] = None
    report = compute_diff({"trace": [step]}, {"trace": [llm(0, "")]})
    assert report.details["model_tools"]["compared"] is True
    assert report.failed_checks == []


def test_requested_tools_reads_names_steps_and_args() -> None:
    steps = [llm(7, "", [req("a", {"x": 1}), {"name": "b", "args": "not json"}])]
    assert requested_tools(steps) == [
        ToolRef("a", 7, {"x": 1}),
        ToolRef("b", 7, "not json"),
    ]


# --------------------------------------------------------------------- llm call count


def test_llm_call_count_difference_is_reported_but_fails_nothing() -> None:
    golden = {"trace": [llm(0, "hello"), tool(1, "a")], "output": "x"}
    new = {"trace": [llm(0, "hello"), tool(1, "a"), llm(2, "extra")], "output": "x"}
    report = compute_diff(golden, new)
    assert report.failed_checks == []
    assert report.details["llm_calls"] == {
        "golden": 1,
        "new": 2,
        "golden_steps": [0],
        "new_steps": [0, 2],
        "requests_compared": False,
    }
    assert list(report.semantic_scores) == ["llm_call[0]", "output"]
    assert (
        "  llm calls: 1 → 2 (count changed; only the first 1 are compared)"
        in report.render().splitlines()
    )


# --------------------------------------------------------------------- inputs


def test_other_step_types_are_ignored() -> None:
    http = {"step": 1, "type": "http", "exchange": {}}
    golden = {"trace": [tool(0, "a"), http, tool(2, "b")]}
    new = {"trace": [tool(0, "a"), tool(1, "b")]}
    assert compute_diff(golden, new).failed_checks == []


def test_missing_step_number_falls_back_to_list_index() -> None:
    golden = {
        "trace": [
            {"type": "tool_call", "name": "a"},
            {"type": "tool_call", "name": "b"},
        ]
    }
    assert [ref.step for ref in tool_calls(trace_steps(golden))] == [0, 1]


def test_missing_trace_and_output() -> None:
    report = compute_diff({}, {})
    assert isinstance(report, DiffReport)
    assert report.passed
    assert report.semantic_scores == {"output": 1.0}


@pytest.mark.parametrize(
    ("golden", "message"),
    [
        ([], "the golden snapshot must be a dict"),
        ({"trace": {"a": 1}}, "the golden snapshot's 'trace' must be a list"),
        (
            {"trace": [tool(0, "a"), "oops"]},
            r"the golden snapshot's trace\[1\] must be a dict",
        ),
    ],
)
def test_malformed_snapshots_raise_type_error(golden: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        compute_diff(golden, {})
