"""Arguments layer: deep diffs of tool args, ignored_fields, request messages."""

from __future__ import annotations

from typing import Any

import pytest

from agentsnap.diff import compute_diff
from agentsnap.jsondiff import diff_values, format_path, parse_ignored_fields, strip_ignored


def tool(step: int, name: str, args: Any) -> dict[str, Any]:
    return {
        "step": step,
        "type": "tool_call",
        "name": name,
        "args": args,
        "result": "ok",
        "id": None,
    }


def llm(
    step: int, requests: list[dict[str, Any]] | None = None, messages: Any = None
) -> dict[str, Any]:
    return {
        "step": step,
        "type": "llm_call",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "messages": messages if messages is not None else [{"role": "user", "content": "hi"}],
        "tools": [],
        "response": "",
        "tool_requests": requests or [],
        "tokens": None,
        "usage": None,
        "stream": False,
        "status": 200,
        "exchange": {},
    }


def change(path: str, old: Any, new: Any, kind: str = "changed") -> dict[str, Any]:
    return {"path": path, "old": old, "new": new, "kind": kind}


# --------------------------------------------------------------------- diff_values


def test_equal_values_have_no_changes() -> None:
    assert diff_values({"city": "Paris", "days": [1, 2]}, {"days": [1, 2], "city": "Paris"}) == []


def test_changed_added_removed_and_type_changed() -> None:
    old = {"city": "Paris", "days": 3, "units": "metric", "meta": {"a": 1}}
    new = {"city": "paris", "days": 3.0, "lang": "fr", "meta": {"a": 1, "b": [1]}}
    assert diff_values(old, new, strict=True) == [
        change("args.city", "Paris", "paris"),
        change("args.days", 3, 3.0, "type_changed"),
        change("args.lang", None, "fr", "added"),
        change("args.meta.b", None, [1], "added"),
        change("args.units", "metric", None, "removed"),
    ]
    # by default numbers compare by value: 3 == 3.0
    assert diff_values(old, new) == [
        change("args.city", "Paris", "paris"),
        change("args.lang", None, "fr", "added"),
        change("args.meta.b", None, [1], "added"),
        change("args.units", "metric", None, "removed"),
    ]


def test_numbers_compare_by_value_unless_strict() -> None:
    old = {"n": 1, "xs": [2, 3.5], "m": {"k": 0}}
    new = {"m": {"k": 0.0}, "xs": [2.0, 3.5], "n": 1.0}
    assert diff_values(old, new) == []
    assert diff_values({"n": 1}, {"n": 1.5}) == [change("args.n", 1, 1.5)]
    assert diff_values(old, new, strict=True) == [
        change("args.m.k", 0, 0.0, "type_changed"),
        change("args.n", 1, 1.0, "type_changed"),
        change("args.xs[0]", 2, 2.0, "type_changed"),
    ]
    # key order never matters, in either mode
    assert diff_values({"a": 1, "b": 2}, {"b": 2, "a": 1}, strict=True) == []
    # a bool is not a number: True vs 1 stays a type change in both modes
    assert diff_values({"a": True}, {"a": 1}) == [change("args.a", True, 1, "type_changed")]


def test_nested_dicts_are_reported_per_key() -> None:
    # never collapsed into one change of the parent dict
    assert diff_values({"m": {"x": 1}}, {"m": {"y": 1}}) == [
        change("args.m.x", 1, None, "removed"),
        change("args.m.y", None, 1, "added"),
    ]


def test_list_order_matters() -> None:
    assert diff_values({"to": ["a@x", "b@x"]}, {"to": ["b@x", "a@x"]}) == [
        change("args.to[0]", "a@x", "b@x"),
        change("args.to[1]", "b@x", "a@x"),
    ]


def test_list_items_added_removed_and_paths_sorted_numerically() -> None:
    old = {"xs": list(range(12))}
    new = {"xs": [*range(2), 99, *range(3, 12), 12]}
    assert diff_values(old, new) == [
        change("args.xs[2]", 2, 99),
        change("args.xs[12]", None, 12, "added"),
    ]


def test_bool_vs_int_and_none_are_type_changes() -> None:
    assert diff_values({"a": True, "b": None}, {"a": 1, "b": ""}) == [
        change("args.a", True, 1, "type_changed"),
        change("args.b", None, "", "type_changed"),
    ]


def test_string_args_and_root_changes() -> None:
    assert diff_values("{bad json", "{bad json") == []
    assert diff_values("{bad json", "{worse") == [change("args", "{bad json", "{worse")]
    assert diff_values("{bad json", {"a": 1}) == [
        change("args", "{bad json", {"a": 1}, "type_changed")
    ]


def test_nan_equals_nan() -> None:
    assert diff_values({"x": float("nan")}, {"x": float("nan")}) == []


def test_non_identifier_keys_are_quoted() -> None:
    assert diff_values({"two words": 1, "x.y": 2}, {"two words": 2, "x.y": 3}) == [
        change('args["two words"]', 1, 2),
        change('args["x.y"]', 2, 3),
    ]


def test_format_path() -> None:
    assert format_path("args", ["items", 0, "id"]) == "args.items[0].id"
    assert format_path("messages", [3, "content"]) == "messages[3].content"
    assert format_path("args", []) == "args"
    assert format_path("args", ["é-key"]) == 'args["é-key"]'


# --------------------------------------------------------------------- ignored_fields


def test_bare_key_is_ignored_at_any_depth() -> None:
    old = {"timestamp": 1, "meta": {"timestamp": 1, "rows": [{"timestamp": 1, "v": 1}]}}
    new = {"timestamp": 2, "meta": {"timestamp": 2, "rows": [{"timestamp": 2, "v": 1}]}}
    assert diff_values(old, new) != []
    assert diff_values(old, new, ignored_fields=["timestamp"]) == []


def test_ignored_key_still_reports_non_ignored_sibling() -> None:
    old = {"timestamp": 1, "city": "Paris"}
    new = {"timestamp": 2, "city": "paris"}
    assert diff_values(old, new, ignored_fields=["timestamp"]) == [
        change("args.city", "Paris", "paris")
    ]


def test_dotted_path_is_anchored_at_args_root() -> None:
    old = {"meta": {"request_id": "r1", "user": "u1"}, "request_id": "top1"}
    new = {"meta": {"request_id": "r2", "user": "u2"}, "request_id": "top2"}
    assert diff_values(old, new, ignored_fields=["meta.request_id"]) == [
        change("args.meta.user", "u1", "u2"),
        change("args.request_id", "top1", "top2"),
    ]


def test_ignoring_a_key_ignores_its_whole_subtree() -> None:
    assert (
        diff_values(
            {"meta": {"a": 1}, "q": 1},
            {"meta": {"b": 2}, "q": 1},
            ignored_fields=["meta"],
        )
        == []
    )


def test_ignored_key_added_or_removed_is_ignored() -> None:
    assert diff_values({"q": 1}, {"q": 1, "ts": 5}, ignored_fields=["ts"]) == []
    assert diff_values({"q": 1, "ts": 5}, {"q": 1}, ignored_fields=["ts"]) == []


def test_index_and_wildcard_segments() -> None:
    old = {"items": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]}
    new = {"items": [{"id": 10, "name": "a"}, {"id": 20, "name": "b"}]}
    assert diff_values(old, new, ignored_fields=["items[0].id"]) == [
        change("args.items[1].id", 2, 20)
    ]
    assert diff_values(old, new, ignored_fields=["items.1.id"]) == [
        change("args.items[0].id", 1, 10)
    ]
    assert diff_values(old, new, ignored_fields=["items[*].id"]) == []
    assert diff_values(old, new, ignored_fields=["items.*.id"]) == []


def test_ignored_fields_do_not_misalign_list_items() -> None:
    # items that differ only in an ignored key compare equal, so the list diff
    # reports the one real insertion and nothing about the timestamps
    old = {"xs": [{"id": 1, "ts": 5}]}
    new = {"xs": [{"id": 1, "ts": 6}, {"id": 2, "ts": 7}]}
    assert diff_values(old, new, ignored_fields=["ts"]) == [
        change("args.xs[1]", None, {"id": 2}, "added")
    ]


def test_a_single_string_is_one_field() -> None:
    assert diff_values({"ts": 1}, {"ts": 2}, ignored_fields="ts") == []


@pytest.mark.parametrize(
    "entry",
    ["", "  ", "a..b", ".a", "a.", "items[0]", "a.*", "*", "a.3", "a[x]", "a[0]b"],
)
def test_malformed_ignored_fields_raise_value_error(entry: str) -> None:
    with pytest.raises(ValueError, match="ignored_fields entry"):
        parse_ignored_fields([entry])


def test_non_string_ignored_field_raises_type_error() -> None:
    with pytest.raises(TypeError, match="ignored_fields entries must be strings"):
        parse_ignored_fields([3])  # type: ignore[list-item]


def test_strip_ignored_does_not_modify_the_input() -> None:
    value = {"ts": 1, "nested": {"ts": 2, "keep": [1]}}
    rules = parse_ignored_fields(["ts"])
    assert strip_ignored(value, rules) == {"nested": {"keep": [1]}}
    assert value == {"ts": 1, "nested": {"ts": 2, "keep": [1]}}


# --------------------------------------------------------------------- compute_diff: arguments


def test_argument_diff_entry_shape() -> None:
    golden = {
        "trace": [
            tool(0, "get_weather", {"city": "Paris"}),
            tool(2, "search", {"q": "x"}),
        ]
    }
    new = {
        "trace": [
            tool(0, "get_weather", {"city": "Paris"}),
            tool(3, "search", {"q": "y"}),
        ]
    }
    report = compute_diff(golden, new)
    assert report.failed_checks == ["arguments"]
    assert report.changes == [
        {
            "check": "arguments",
            "index": 1,
            "tool": "search",
            "golden_step": 2,
            "new_step": 3,
            "changes": [change("args.q", "x", "y")],
        }
    ]


def test_ignored_fields_through_compute_diff() -> None:
    golden = {
        "trace": [
            tool(
                0,
                "get_weather",
                {"city": "Paris", "timestamp": 1, "meta": {"request_id": "a"}},
            )
        ]
    }
    same_but_volatile = {
        "trace": [
            tool(
                0,
                "get_weather",
                {"city": "Paris", "timestamp": 2, "meta": {"request_id": "b"}},
            )
        ]
    }
    sibling_changed = {
        "trace": [
            tool(
                0,
                "get_weather",
                {"city": "Lyon", "timestamp": 2, "meta": {"request_id": "b"}},
            )
        ]
    }
    ignore = ["timestamp", "meta.request_id"]
    assert compute_diff(golden, same_but_volatile).failed_checks == ["arguments"]
    assert compute_diff(golden, same_but_volatile, ignored_fields=ignore).failed_checks == []
    report = compute_diff(golden, sibling_changed, ignored_fields=ignore)
    assert report.failed_checks == ["arguments"]
    assert report.changes[0]["changes"] == [change("args.city", "Paris", "Lyon")]
    assert report.details["settings"]["ignored_fields"] == ignore


def test_args_of_different_tools_are_never_compared() -> None:
    golden = {"trace": [tool(0, "get_weather", {"city": "Paris"})]}
    new = {"trace": [tool(0, "get_time", {"tz": "CET"})]}
    report = compute_diff(golden, new)
    assert report.failed_checks == ["structural"]
    assert report.changes == []


def test_inserted_call_does_not_shift_argument_pairs() -> None:
    golden = {"trace": [tool(0, "a", {"n": 1}), tool(1, "b", {"n": 2})]}
    new = {
        "trace": [
            tool(0, "x", {"n": 9}),
            tool(1, "a", {"n": 1}),
            tool(2, "b", {"n": 2}),
        ]
    }
    report = compute_diff(golden, new, structural_tolerance=1)
    assert report.failed_checks == []
    assert report.details["tools"]["aligned"] == [[0, 1], [1, 2]]


def test_model_tool_args_are_diffed_for_aligned_requests() -> None:
    golden = {
        "trace": [
            llm(
                0,
                [
                    {
                        "id": "c1",
                        "name": "search",
                        "args": {"query": "capital of France"},
                    }
                ],
            )
        ]
    }
    new = {
        "trace": [
            llm(
                0,
                [{"id": "c9", "name": "search", "args": {"query": "capital of Spain"}}],
            )
        ]
    }
    report = compute_diff(golden, new)
    assert report.failed_checks == ["model_tool_args"]
    assert report.changes == [
        {
            "check": "model_tool_args",
            "index": 0,
            "tool": "search",
            "golden_step": 0,
            "new_step": 0,
            "changes": [change("args.query", "capital of France", "capital of Spain")],
        }
    ]


def test_ignored_fields_apply_to_model_tool_args() -> None:
    golden = {"trace": [llm(0, [{"name": "search", "args": {"q": "x", "nonce": 1}}])]}
    new = {"trace": [llm(0, [{"name": "search", "args": {"q": "x", "nonce": 2}}])]}
    assert compute_diff(golden, new, ignored_fields=["nonce"]).failed_checks == []


# --------------------------------------------------------------------- llm_requests


def test_requests_are_only_compared_when_asked() -> None:
    golden = {"trace": [llm(0, messages=[{"role": "user", "content": "hi"}])]}
    new = {"trace": [llm(0, messages=[{"role": "user", "content": "hello"}])]}
    assert compute_diff(golden, new).failed_checks == []
    assert "[REQUESTS]" not in compute_diff(golden, new).render()


def test_request_messages_diff_paths() -> None:
    msgs = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "function": {"name": "w", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    changed = [dict(m) for m in msgs]
    changed[3] = {**msgs[3], "content": "rainy"}
    golden = {"trace": [llm(0), llm(2, messages=msgs)]}
    new = {
        "trace": [
            llm(0),
            llm(5, messages=[*changed, {"role": "user", "content": "more"}]),
        ]
    }
    report = compute_diff(golden, new, compare_requests=True)
    assert report.failed_checks == ["llm_requests"]
    assert report.changes == [
        {
            "check": "llm_requests",
            "index": 1,
            "tool": None,
            "golden_step": 2,
            "new_step": 5,
            "changes": [
                change("messages[3].content", "sunny", "rainy"),
                change("messages[4]", None, {"role": "user", "content": "more"}, "added"),
            ],
        }
    ]
    assert report.details["llm_calls"]["requests_compared"] is True


def test_identical_requests_pass_in_replay_mode() -> None:
    golden = {"trace": [llm(0), llm(1)]}
    assert compute_diff(golden, golden, compare_requests=True).failed_checks == []


def test_ignored_fields_may_be_any_iterable() -> None:
    fields = (f for f in ["ts", "meta.id"])
    old = {"ts": 1, "meta": {"id": 1}, "q": 1}
    assert diff_values(old, {"ts": 2, "meta": {"id": 2}, "q": 1}, ignored_fields=fields) == []
    rules = parse_ignored_fields(["ts"])
    assert diff_values({"ts": 1}, {"ts": 2}, ignored_fields=rules) == []
