"""Trajectory match modes (issue 28, part 1): parallel tool calls in another order, the
multiset modes, argument modes, optional tools and ordering constraints — end to end
through the real openai SDK against the loopback fake, and over step lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

openai = pytest.importorskip("openai")

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.diff import compute_diff
from agentsnap.diff.sequence import ToolRef, requested_tools, sequence_diff, tool_calls
from agentsnap.exceptions import AgentRegressionError
from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply

pytest_plugins = ["pytester"]

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
    for n in ("get_weather", "get_time")
]
WEATHER = ("call_A", "get_weather", {"city": "Paris"})
TIME = ("call_B", "get_time", {"tz": "CET"})


def agent(url: str) -> str:
    """One turn of parallel tool calls, run in the order the model listed them, then the answer."""
    client = openai.OpenAI(base_url=url, api_key="sk-test-0123456789", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Weather and time in Paris?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    message = first.choices[0].message
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls or []:
        messages.append(
            {"role": "tool", "tool_call_id": call.id, "content": f"{call.function.name} ok"}
        )
    second = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    return str(second.choices[0].message.content)


def test_parallel_calls_in_another_order_pass_by_default_and_fail_under_strict(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as fake:
        fake.script(tool_calls_reply([WEATHER, TIME]), text_reply("Sunny, 10:30."))
        with AgentRecorder("traj::parallel", snapshot_dir=tmp_path):
            agent(fake.base_url)

        # the model now lists the two calls the other way round; the agent runs them so
        fake.script(tool_calls_reply([TIME, WEATHER]), text_reply("Sunny, 10:30."))
        with AgentAsserter("traj::parallel", snapshot_dir=tmp_path, mode="live") as check:
            agent(fake.base_url)
        report = check.report
        assert report is not None and report.passed, report.render()
        text = report.render(color=False)
        assert (
            "[STRUCTURAL] ok — structural: 2 tool calls, same sequence; "
            "2 reordered within their turn (mode turns)"
        ) in text
        assert "[ARGS] ok — arguments: 2 aligned tool calls, same arguments" in text
        assert "[MODEL TOOLS] ok — model_tools: 2 requests, same sequence; 2 reordered" in text
        assert report.details["tools"]["new"] == ["get_time", "get_weather"]  # as recorded
        assert report.details["settings"]["trajectory"] == "turns"

        fake.script(tool_calls_reply([TIME, WEATHER]), text_reply("Sunny, 10:30."))
        with pytest.raises(AgentRegressionError) as failed:
            with AgentAsserter(
                "traj::parallel", snapshot_dir=tmp_path, mode="live", trajectory="strict"
            ):
                agent(fake.base_url)
    said = str(failed.value)
    assert failed.value.diff_report.failed_checks == ["structural", "model_tools"]
    assert (
        "[STRUCTURAL] FAIL — structural: tool sequence edit distance 2 > tolerance 0 "
        "(0% match) (mode strict)"
    ) in said
    # the golden ran get_weather at step 1 and get_time at step 2; the new run the reverse
    assert "out of order: get_time (golden step 2, new step 1)" in said, said
    assert "out of order: get_llm_call" not in said
    assert "out of order: get_time (golden llm_call step 0, new llm_call step 0)" in said


def test_a_marker_sets_the_mode_of_a_pytest_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    quiet = ("-p", "no:randomly", "-p", "no:cacheprovider")
    test = """
import pytest
from tests.test_trajectory import agent

{marker}
def test_parallel(snapshot):
    with snapshot.assert_agent("parallel"):
        agent({url!r})
"""
    with FakeOpenAI() as fake:
        pytester.makepyfile(test_agent=test.format(marker="", url=fake.base_url))
        fake.script(tool_calls_reply([WEATHER, TIME]), text_reply("ok"))
        pytester.runpytest_inprocess(*quiet, "--agentsnap-record").assert_outcomes(passed=1)
        fake.script(tool_calls_reply([TIME, WEATHER]), text_reply("ok"))
        pytester.runpytest_inprocess(*quiet, "--agentsnap-live").assert_outcomes(passed=1)
        marker = '@pytest.mark.agentsnap(trajectory="strict")'
        pytester.makepyfile(test_agent=test.format(marker=marker, url=fake.base_url))
        fake.script(tool_calls_reply([TIME, WEATHER]), text_reply("ok"))
        result = pytester.runpytest_inprocess(*quiet, "--agentsnap-live")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*(mode strict)*", "*out of order: get_time (golden step 2, new step 1)*"]
    )


# -- over step lists ---------------------------------------------------------------------


def llm(step: int, *requests: str) -> dict[str, Any]:
    return {
        "step": step,
        "type": "llm_call",
        "response": "",
        "tool_requests": [{"name": r, "args": {}} for r in requests],
    }


def tool(step: int, name: str, **args: Any) -> dict[str, Any]:
    return {"step": step, "type": "tool_call", "name": name, "args": args}


def trace(*calls: tuple[str, dict[str, Any]], turns: list[int] | None = None) -> dict[str, Any]:
    """One llm_call, then the calls (one turn each unless ``turns`` groups them), then the answer."""
    steps: list[dict[str, Any]] = []
    turns = turns or list(range(len(calls)))
    for i, (name, args) in enumerate(calls):
        if i == 0 or turns[i] != turns[i - 1]:
            steps.append(llm(len(steps)))
        steps.append(tool(len(steps), name, **args))
    steps.append(llm(len(steps)))
    return {"trace": steps, "output": "done"}


def diff(golden: dict[str, Any], new: dict[str, Any], **knobs: Any) -> Any:
    return compute_diff(golden, new, embedding_backend="lexical", **knobs)


SEARCH, ANSWER, FETCH = ("search", {"q": "x"}), ("answer", {}), ("fetch", {"url": "u"})


@pytest.mark.parametrize(
    ("mode", "new", "passes"),
    [
        ("unordered", [ANSWER, SEARCH, FETCH], True),
        ("unordered", [SEARCH, ANSWER], False),  # fetch missing
        ("subset", [SEARCH, ANSWER], True),  # fewer is fine
        ("subset", [SEARCH, FETCH, ANSWER, ("email", {})], False),  # email is extra
        ("superset", [SEARCH, FETCH, ("email", {}), ANSWER], True),  # extras are fine
        ("superset", [SEARCH, ANSWER], False),  # fetch missing
    ],
)
def test_multiset_modes(mode: str, new: list[Any], passes: bool) -> None:
    report = diff(trace(SEARCH, FETCH, ANSWER), trace(*new), trajectory=mode)
    assert ("structural" not in report.failed_checks) is passes, report.render()
    text = report.render(color=False)
    assert f"(mode {mode})" in text
    if not passes:
        assert ("missing: fetch" in text) or ("extra: email" in text), text


def test_the_tolerance_is_the_budget_of_the_multiset_modes() -> None:
    report = diff(trace(SEARCH, FETCH, ANSWER), trace(SEARCH), trajectory="unordered")
    assert report.details["tools"]["distance"] == 2 and "structural" in report.failed_checks
    again = diff(
        trace(SEARCH, FETCH, ANSWER), trace(SEARCH), trajectory="unordered", structural_tolerance=2
    )
    assert "structural" not in again.failed_checks


@pytest.mark.parametrize(
    ("mode", "new_args", "passes"),
    [
        ("exact", {"q": "x", "lang": "en"}, False),
        ("ignore", {"q": "y"}, True),
        ("subset", {"q": "x"}, True),  # a golden key left out
        ("subset", {"q": "x", "lang": "en", "page": 2}, False),  # a key the golden lacks
        ("superset", {"q": "x", "lang": "en", "opts": {"a": 1, "b": 2, "c": 3}, "p": 2}, True),
        ("superset", {"q": "x"}, False),  # golden's lang missing
        ("subset", {"q": "x", "opts": {"a": 1}}, True),  # nested: a golden key left out
        ("subset", {"q": "x", "opts": {"a": 1, "b": 2, "c": 3}}, False),  # nested: an extra key
    ],
)
def test_argument_modes(mode: str, new_args: dict[str, Any], passes: bool) -> None:
    golden = trace(("search", {"q": "x", "lang": "en", "opts": {"a": 1, "b": 2}}))
    new = trace(("search", new_args))
    report = diff(golden, new, tool_args=mode)
    assert ("arguments" not in report.failed_checks) is passes, report.render()
    assert "structural" not in report.failed_checks
    # the same mode as a per-tool override; another tool's override leaves search exact
    per_tool = diff(golden, new, tools={"search": {"args": mode}})
    assert ("arguments" not in per_tool.failed_checks) is passes
    other = diff(golden, new, tools={"fetch": {"args": "ignore"}})
    assert "arguments" in other.failed_checks


def test_an_optional_tool_may_be_called_or_not_and_its_args_compare_in_order() -> None:
    golden = trace(SEARCH, ("log", {"n": 1}), ANSWER)
    assert "structural" in diff(golden, trace(SEARCH, ANSWER)).failed_checks
    report = diff(golden, trace(SEARCH, ANSWER), tools={"log": {"optional": True}})
    assert report.passed, report.render()
    assert "optional: log (mode turns)" in report.render(color=False)
    twice = diff(
        golden,
        trace(("log", {"n": 1}), SEARCH, ("log", {"n": 3}), ANSWER),
        tools={"log": {"optional": True}},
    )
    assert "structural" not in twice.failed_checks
    assert twice.failed_checks == []  # the first log pairs the golden's (n=1); the second has none
    changed = diff(
        golden, trace(SEARCH, ("log", {"n": 2}), ANSWER), tools={"log": {"optional": True}}
    )
    assert changed.failed_checks == ["arguments"]
    assert (
        changed.changes[0]["tool"] == "log" and changed.changes[0]["changes"][0]["path"] == "args.n"
    )


def test_before_constraints() -> None:
    golden = trace(SEARCH, ANSWER)
    ok = diff(golden, trace(SEARCH, ANSWER), before=[["search", "answer"]])
    assert ok.passed
    swapped = diff(
        golden, trace(ANSWER, SEARCH), before=[["search", "answer"]], trajectory="unordered"
    )
    assert swapped.failed_checks == ["structural"]
    assert (
        "before: answer (step 1) needs an earlier search; its first search came at step 3"
        in swapped.render(color=False)
    )
    never = diff(golden, trace(ANSWER), before=[["search", "answer"]], trajectory="subset")
    assert "search was never called" in never.render(color=False)
    # `answer` not called at all: nothing to constrain
    assert diff(golden, trace(SEARCH), before=[["search", "answer"]], trajectory="subset").passed


def test_parallel_calls_of_one_tool_pair_by_equal_arguments() -> None:
    a, b = ("search", {"q": "a"}), ("search", {"q": "b"})
    golden = trace(a, b, ANSWER, turns=[0, 0, 1])
    report = diff(golden, trace(b, a, ANSWER, turns=[0, 0, 1]))
    assert report.passed, report.render()
    # one changed: only that pair differs (q=b against q=c), not both
    changed = diff(golden, trace(("search", {"q": "c"}), a, ANSWER, turns=[0, 0, 1]))
    assert changed.failed_checks == ["arguments"]
    assert [c["changes"][0]["old"] for c in changed.changes] == ["b"]


def test_model_tools_use_the_modes_too() -> None:
    golden = {"trace": [llm(0, "get_weather", "get_time"), llm(1)], "output": "x"}
    new = {"trace": [llm(0, "get_time", "get_weather"), llm(1)], "output": "x"}
    assert diff(golden, new).passed
    strict = diff(golden, new, trajectory="strict")
    assert strict.failed_checks == ["model_tools"]
    # across turns the order counts: search asked a turn before the parallel two
    first = {"trace": [llm(0, "get_weather", "get_time"), llm(1, "search"), llm(2)], "output": "x"}
    later = {"trace": [llm(0, "search"), llm(1, "get_time", "get_weather"), llm(2)], "output": "x"}
    assert "model_tools" in diff(first, later).failed_checks
    assert diff(first, later, trajectory="unordered").passed
    # never stricter than one flat order: the turn split in two, in the same order, matches
    split = {"trace": [llm(0, "get_weather"), llm(1, "get_time"), llm(2)], "output": "x"}
    assert diff(golden, split).passed


@pytest.mark.parametrize(
    ("knobs", "said"),
    [
        (
            {"trajectory": "loose"},
            "trajectory must be 'turns', 'strict', 'unordered', 'subset' or 'superset'",
        ),
        ({"tool_args": "some"}, "tool_args must be 'exact', 'ignore', 'subset' or 'superset'"),
        (
            {"tools": {"search": {"arg": "subset"}}},
            "tools['search']: unknown key(s) arg (known: args, optional)",
        ),
        ({"tools": {"search": {"args": "loose"}}}, "tools['search'].args must be 'exact'"),
        (
            {"tools": {"search": {"optional": "yes"}}},
            "tools['search'].optional must be true or false",
        ),
        ({"tools": ["search"]}, "tools must be {tool = {args"),
        (
            {"before": [["search"]]},
            "before: each entry must be [first, then], two tool names; got ['search']",
        ),
        (
            {"before": [["a", "a"]]},
            "before: ['a', 'a'] names one tool twice; a rule orders two tools",
        ),
        (
            {"before": "search"},
            "before: given as text (an ini option or an environment variable) it must be JSON",
        ),
    ],
)
def test_bad_values_name_the_knob_and_the_tool(knobs: dict[str, Any], said: str) -> None:
    with pytest.raises((TypeError, ValueError)) as bad:
        diff(trace(SEARCH), trace(SEARCH), **knobs)
    assert said in str(bad.value)


def test_the_settings_read_the_knobs_from_pyproject(tmp_path: Path) -> None:
    from agentsnap import config

    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\ntrajectory = "subset"\nbefore = [["search", "answer"]]\n'
        '[tool.agentsnap.tools.search]\nargs = "subset"\noptional = true\n',
        encoding="utf-8",
    )
    loaded = config.load(tmp_path, env={})
    assert (loaded.trajectory, loaded.tools, loaded.before) == (
        "subset",
        {"search": {"args": "subset", "optional": True}},
        [["search", "answer"]],
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap.tools.search]\nargz = "subset"\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"'tools' in \[tool.agentsnap\].*unknown key\(s\) argz"):
        config.load(tmp_path, env={})


# -- sequential agents: the default is exactly the flat order, and today's rule ----------------

OLD_KEYS = (
    "golden",
    "new",
    "golden_steps",
    "new_steps",
    "distance",
    "tolerance",
    "similarity",
    "passed",
    "ops",
    "aligned",
)


@st.composite
def sequential(draw: Any) -> dict[str, Any]:
    """A trace whose every turn holds at most one executed call and one requested tool."""
    steps: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 6))):
        name = draw(st.sampled_from(["a", "b", "c"]))
        args = {"x": draw(st.integers(0, 2))}
        requested = draw(st.booleans())
        steps.append(
            {
                "step": len(steps),
                "type": "llm_call",
                "response": "",
                "tool_requests": [{"name": name, "args": args}] if requested else [],
            }
        )
        if draw(st.booleans()):
            steps.append(tool(len(steps), draw(st.sampled_from(["a", "b", "c"])), **args))
    steps.append(llm(len(steps)))
    return {"trace": steps, "output": "same"}


@settings(max_examples=200, deadline=None)
@given(sequential(), sequential(), st.integers(0, 2))
def test_sequential_agents_get_the_flat_order_and_the_old_report(
    golden: dict[str, Any], new: dict[str, Any], tolerance: int
) -> None:
    default = diff(golden, new, structural_tolerance=tolerance)
    strict = diff(golden, new, structural_tolerance=tolerance, trajectory="strict")
    assert default.failed_checks == strict.failed_checks
    old_tools = sequence_diff(
        tool_calls(golden["trace"]), tool_calls(new["trace"]), tolerance=tolerance
    )
    old_model = sequence_diff(
        requested_tools(golden["trace"]) or [],
        requested_tools(new["trace"]) or [],
        tolerance=tolerance,
    )
    for report in (default, strict):
        assert {k: report.details["tools"][k] for k in OLD_KEYS} == old_tools
        assert {k: report.details["model_tools"][k] for k in OLD_KEYS} == old_model
    # the report reads as before the modes: the same text as from the old sections alone
    text = default.render(color=False)
    default.details["tools"] = old_tools
    default.details["model_tools"] = {**old_model, "compared": True, "skipped_reason": None}
    assert default.render(color=False) == text
    assert "(mode" not in text


@pytest.mark.parametrize(
    ("knobs", "new"),
    [
        ({"trajectory": "subset"}, [SEARCH, ANSWER]),  # a turn fewer
        ({"trajectory": "superset"}, [SEARCH, FETCH, ("email", {}), ANSWER]),  # a turn more
        ({"tools": {"fetch": {"optional": True}}}, [SEARCH, ANSWER]),  # an optional tool not called
    ],
)
def test_a_mode_that_lets_turns_come_and_go_pairs_the_answers_not_the_positions(
    knobs: dict[str, Any], new: list[Any]
) -> None:
    golden, run = trace(SEARCH, FETCH, ANSWER), trace(*new)
    golden["trace"][-1]["response"] = run["trace"][-1]["response"] = "Done: the answer is 42."
    report = diff(golden, run, **knobs)
    assert report.passed, report.render()
    # one text compared: the golden's last call's answer against the new run's last call's
    assert report.semantic_scores == {"llm_call[3]": 1.0, "output": 1.0}
    strict = diff(golden, run)  # the default turns mode: still by position, and structural fails
    assert "structural" in strict.failed_checks


def test_the_arguments_line_names_the_argument_mode_that_made_them_the_same() -> None:
    report = diff(trace(("search", {"q": "x"})), trace(("search", {"q": "y"})), tool_args="ignore")
    assert report.passed
    assert (
        "[ARGS] ok — arguments: 1 aligned tool call, same arguments (tool_args ignore)"
        in report.render(color=False)
    )


def test_a_mode_that_let_a_call_go_says_both_counts() -> None:
    report = diff(trace(SEARCH, FETCH, ANSWER), trace(SEARCH, ANSWER), trajectory="subset")
    assert (
        "[STRUCTURAL] ok — structural: 3 → 2 tool calls, as the mode allows (mode subset)"
        in report.render(color=False)
    )


@pytest.mark.parametrize("mode", ["turns", "strict", "unordered", "subset", "superset"])
@pytest.mark.parametrize("tolerance", [0, 2])
@pytest.mark.parametrize(
    ("optional", "before"),
    [(frozenset(), ()), (frozenset({"search"}), (("search", "answer"), ("a", "b")))],
)
def test_no_call_on_either_side_is_an_empty_passing_section(
    mode: str, tolerance: int, optional: frozenset[str], before: tuple[tuple[str, str], ...]
) -> None:
    """A run without tool calls against a golden without any (every tool-less agent, twice a
    comparison): every list empty, no ``before`` pair broken, no optional tool named, keys in
    the order of a section with calls."""
    from agentsnap.diff import trajectory as _trajectory

    got = _trajectory.trajectory_diff(
        [], [], [], [], mode=mode, tolerance=tolerance, optional=optional, before=before
    )
    expected = {
        "golden": [],
        "new": [],
        "golden_steps": [],
        "new_steps": [],
        "distance": 0,
        "tolerance": tolerance,
        "similarity": 1.0,
        "passed": True,
        "ops": [],
        "aligned": [],
        "mode": mode,
        "parallel": False,
        "optional": [],
        "missing": [],
        "extra": [],
        "out_of_order": [],
        "order_violations": [],
        "in_turn_moves": 0,
    }
    assert list(got.items()) == list(expected.items())
    with_calls = _trajectory.trajectory_diff(
        [ToolRef("search", 1, {})], [ToolRef("search", 1, {})], [0], [0], mode=mode
    )
    assert list(with_calls) == list(expected)
