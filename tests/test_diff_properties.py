"""Property tests of compute_diff over generated traces."""

from __future__ import annotations

import copy
import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsnap.diff import compute_diff
from tests._support.json_trees import json_trees

TOOL_NAMES = st.sampled_from(["get_weather", "get_time", "search", "book", "email"])

json_values = json_trees(
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.floats(allow_infinity=False)  # NaN included: a snapshot must equal itself
    | st.text(max_size=20),
    max_size=4,
    key_size=8,
)
args = st.dictionaries(st.text(max_size=8), json_values, max_size=4) | st.text(max_size=20)


@st.composite
def tool_step(draw: Any) -> dict[str, Any]:
    return {
        "type": "tool_call",
        "name": draw(TOOL_NAMES),
        "args": draw(args),
        "result": draw(json_values),
        "id": None,
    }


@st.composite
def llm_step(draw: Any) -> dict[str, Any]:
    requests = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.none() | st.text(max_size=6),
                    "name": TOOL_NAMES,
                    "args": args,
                }
            ),
            max_size=3,
        )
    )
    return {
        "type": "llm_call",
        "provider": "openai",
        "model": draw(st.none() | st.just("gpt-4o-mini")),
        "messages": [{"role": "user", "content": draw(st.text(max_size=30))}],
        "tools": [],
        "response": draw(st.text(max_size=40)),
        "tool_requests": requests,
        "tokens": draw(st.none() | st.integers(0, 500)),
        "stream": draw(st.booleans()),
        "status": 200,
        "exchange": {},
    }


@st.composite
def snapshots(draw: Any) -> dict[str, Any]:
    steps = draw(st.lists(st.one_of(tool_step(), llm_step()), max_size=8))
    for number, step in enumerate(steps):
        step["step"] = number
    return {"trace": steps, "output": draw(json_values)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshots())
def test_a_snapshot_always_matches_itself(snapshot: dict[str, Any]) -> None:
    report = compute_diff(snapshot, copy.deepcopy(snapshot), compare_requests=True, name="self")
    assert report.passed, report.render()
    assert report.failed_checks == []
    assert report.changes == []
    assert set(report.semantic_scores.values()) == {1.0}
    assert report.backend == "exact"
    assert report.details["tools"]["distance"] == 0
    assert report.details["model_tools"]["distance"] == 0
    assert report.summary_line().startswith("[agentsnap] 'self' PASSED | structural: ok")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshots(), snapshots())
def test_distance_is_symmetric_bounded_and_matches_its_edit_script(
    a: dict[str, Any], b: dict[str, Any]
) -> None:
    # texts are scored by the stdlib backend: this property is about the structural layer
    lex = {"embedding_backend": "lexical"}
    ab, ba = compute_diff(a, b, **lex), compute_diff(b, a, **lex)
    flat = compute_diff(a, b, trajectory="strict", **lex)
    for section in ("tools", "model_tools"):
        forward, backward = ab.details[section], ba.details[section]
        d = forward["distance"]
        assert d == backward["distance"]
        # the default mode (a turn's calls in any order) is never stricter than one flat order
        assert d <= flat.details[section]["distance"]
        assert (
            abs(len(forward["golden"]) - len(forward["new"]))
            <= d
            <= max(len(forward["golden"]), len(forward["new"]))
        )
        assert len(forward["ops"]) == d
        # aligned pairs hold equal names; in one flat order they are strictly increasing on
        # both sides (the default mode may cross pairs within a turn)
        pairs = forward["aligned"]
        assert all(forward["golden"][i] == forward["new"][j] for i, j in pairs)
        flat_pairs = flat.details[section]["aligned"]
        assert all(p[0] < q[0] and p[1] < q[1] for p, q in itertools.pairwise(flat_pairs))
        assert len(pairs) + sum(op["op"] == "replace" for op in forward["ops"]) + sum(
            op["op"] == "delete" for op in forward["ops"]
        ) == len(forward["golden"])
    # tolerance boundary: distance == tolerance passes, one less fails
    d = ab.details["tools"]["distance"]
    assert "structural" not in compute_diff(a, b, structural_tolerance=d, **lex).failed_checks
    if d:
        assert "structural" in compute_diff(a, b, structural_tolerance=d - 1, **lex).failed_checks
    assert "\x1b" not in ab.render()
    assert len(ab.render(max_lines=10).splitlines()) <= 10
