"""docs/contributing.md's "a comparison check" recipe, performed as written (issue 25).

The page's code block — one module: a check and the knob it declares — is run
as a module; nothing else in agentsnap is edited. The knob then works from
``[tool.agentsnap]``, ``@pytest.mark.agentsnap(...)``, ``AgentAsserter`` and
``compute_diff``, shows in ``details["settings"]``, and a bad value fails naming
the knob, wherever it was set.
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentsnap import AgentAsserter, AgentRecorder, AgentRegressionError, config, knobs
from agentsnap.adapters import ToolAdapter
from agentsnap.diff import compute_diff
from agentsnap.diff.checks import registered_checks, unregister_check
from agentsnap.storage.snapshot import Snapshot
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

pytest_plugins = ["pytester"]

PAGE = Path(__file__).resolve().parent.parent / "docs" / "contributing.md"


def _recipe_block() -> str:
    section = PAGE.read_text(encoding="utf-8").split("### a comparison check", 1)[1]
    section = section.split("\n### ", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "docs/contributing.md: the comparison-check recipe has no python block"
    return found.group(1)


@pytest.fixture
def recipe() -> Iterator[types.ModuleType]:
    """The page's module, imported; afterwards the registry is as before."""
    before = [c.name for c in registered_checks()]
    module = types.ModuleType("agentsnap_recipe_check")
    exec(
        compile(_recipe_block(), "docs/contributing.md (a comparison check)", "exec"),
        module.__dict__,
    )
    try:
        yield module
    finally:
        unregister_check("step_budget")
        knobs.forget("max_steps")
        assert [c.name for c in registered_checks()] == before
        assert "max_steps" not in knobs.marker_option_names()


def _snap(steps: int) -> dict[str, Any]:
    trace = [
        {"step": i, "type": "tool_call", "name": "search", "args": {"q": "x"}, "result": "r"}
        for i in range(steps)
    ]
    return Snapshot(name="t::budget", trace=trace, output="done", approved=True).to_dict()


def _diff(**knob: Any) -> Any:
    return compute_diff(_snap(2), _snap(3), embedding_backend="lexical", **knob)


def test_the_check_reads_its_knob_from_compute_diff(recipe: types.ModuleType) -> None:
    failed = _diff(max_steps=2)
    assert "step_budget" in failed.failed_checks
    assert failed.details["checks"]["step_budget"]["summary"] == "3 steps, limit 2"
    assert failed.details["settings"]["max_steps"] == 2
    passed = _diff(max_steps=5)
    assert "step_budget" not in passed.failed_checks
    unset = _diff()
    assert unset.details["settings"]["max_steps"] is None
    assert unset.details["checks"]["step_budget"]["summary"] == "3 steps, no limit"
    assert "[STEP_BUDGET] FAIL — 3 steps, limit 2" in failed.render()


def test_a_bad_value_fails_naming_the_knob(recipe: types.ModuleType) -> None:
    with pytest.raises(TypeError, match=r"max_steps: expected a whole number or None, got 'abc'"):
        _diff(max_steps="abc")
    with pytest.raises(ValueError, match=r"max_steps: expected at least 1, got 0"):
        _diff(max_steps=0)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        _diff(max_stepz=3)


def test_the_knob_is_a_setting_a_marker_keyword_and_an_asserter_argument(
    recipe: types.ModuleType, tmp_path: Path
) -> None:
    assert "max_steps" in knobs.setting_option_names()
    assert "max_steps" in knobs.marker_option_names()
    assert "max_steps" in knobs.asserter_option_names()
    (tmp_path / "pyproject.toml").write_text("[tool.agentsnap]\nmax_steps = 4\n", encoding="utf-8")
    assert config.load(tmp_path, env={}).knob("max_steps") == 4
    (tmp_path / "pyproject.toml").write_text("[tool.agentsnap]\nmax_steps = 0\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"\[tool.agentsnap\] of .*pyproject.toml: max_steps: expected at least 1"
    ):
        config.load(tmp_path, env={})


def _agent(search: Any, calls: int) -> str:
    for _ in range(calls):
        search("x")
    return "done"


def test_agent_asserter_takes_the_knob(recipe: types.ModuleType, tmp_path: Path) -> None:
    search = ToolAdapter(lambda q: "r", name="search")
    with AgentRecorder("budget", snapshot_dir=tmp_path, adapters=[search]) as rec:
        rec.output = _agent(search, 2)
    with AgentAsserter("budget", snapshot_dir=tmp_path, adapters=[search], max_steps=5) as check:
        check.output = _agent(search, 2)
    with pytest.raises(AgentRegressionError) as failed:
        with AgentAsserter(
            "budget", snapshot_dir=tmp_path, adapters=[search], max_steps=1
        ) as check:
            check.output = _agent(search, 2)
    assert "step_budget" in failed.value.diff_report.failed_checks
    with pytest.raises(TypeError, match="unexpected keyword"):
        AgentAsserter("budget", snapshot_dir=tmp_path, max_stepz=1)


def test_the_marker_takes_the_knob(pytester: pytest.Pytester) -> None:
    """A conftest imports the check (as a project would); a marker sets the knob, good and bad."""
    pytester.makeconftest(_recipe_block())
    pytester.makepyfile(
        test_budget="""
        import pytest

        from agentsnap._pytest.markers import marker_options

        @pytest.mark.agentsnap(max_steps=3)
        def test_good_value(request):
            assert marker_options(request.node).overrides == {"max_steps": 3}

        @pytest.mark.agentsnap(max_steps=0)
        def test_bad_value(request):
            marker_options(request.node)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:syrupy", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_bad_value*max_steps: expected at least 1, got 0*"])
