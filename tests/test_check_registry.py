"""A comparison check is one registered object: added here, it runs, fails and shows in both reports.

The demonstration of the contributor page's "add a check": the test
registers an "output length" check (a :class:`~agentsnap.diff.checks.Check`
whose result is a :class:`~agentsnap.diff.checks.CheckResult`), and neither
``compute_diff`` nor the text or HTML renderer is touched. The fixture
unregisters it, so the built-in registry is what every other test sees.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from agentsnap.diff import compute_diff
from agentsnap.diff.checks import (
    BUILTIN_CHECKS,
    Check,
    CheckContext,
    CheckResult,
    register_check,
    registered_checks,
    unregister_check,
)
from agentsnap.diff.report import CHECK_ORDER, COMPONENTS
from agentsnap.html_report import entry_from_outcome, render_html
from agentsnap.lifecycle import Outcome
from agentsnap.storage.snapshot import Snapshot


@dataclasses.dataclass
class LengthResult(CheckResult):
    golden_length: int = 0
    new_length: int = 0


class OutputLengthCheck(Check[LengthResult]):
    """The final output's length: fails when it changed by more than half."""

    name = "output_length"
    title = "[OUTPUT LENGTH]"

    def run(self, ctx: CheckContext) -> LengthResult:
        old, new = len(str(ctx.golden.get("output") or "")), len(str(ctx.new.get("output") or ""))
        passed = abs(new - old) <= old / 2
        return LengthResult(
            passed=passed,
            summary=f"output length changed: {old} → {new} characters",
            lines=[] if passed else ["more than half of the output was added or dropped"],
            golden_length=old,
            new_length=new,
        )


@pytest.fixture
def length_check() -> Iterator[OutputLengthCheck]:
    check = OutputLengthCheck()
    register_check(check)
    try:
        yield check
    finally:
        unregister_check(check.name)
    assert registered_checks() == BUILTIN_CHECKS


def _snap(output: str) -> Snapshot:
    return Snapshot(
        name="t::length",
        trace=[{"step": 0, "type": "tool_call", "name": "search", "args": {"q": "x"}}],
        output=output,
        approved=True,
    )


GOLDEN = _snap("Short answer.")
NEW = _snap("Short answer. " + "And then a great deal more text nobody asked for. " * 3)


def _diff() -> Any:
    return compute_diff(
        GOLDEN.to_dict(), NEW.to_dict(), name="t::length", embedding_backend="lexical"
    )


def test_the_builtin_registry_gives_the_documented_checks_and_components() -> None:
    assert [c.name for c in registered_checks()] == [
        "structural",
        "arguments",
        "model_tools",
        "llm_requests",
        "mcp",
        "websocket",
        "tool_schema",
        "budgets",
        "semantic",
    ]
    assert CHECK_ORDER == (
        "structural",
        "arguments",
        "model_tools",
        "model_tool_args",
        "llm_requests",
        "mcp_tools",
        "mcp_results",
        "mcp_resources",
        "mcp_requests",
        "websocket_messages",
        "websocket_replies",
        "tool_schema",
        "budgets",
    )
    assert COMPONENTS == (
        "structural",
        "arguments",
        "model_tools",
        "model_tool_args",
        "llm_requests",
        "llm_calls",
        "output",
    )
    for check in registered_checks():
        assert check.__doc__ and check.__doc__.strip(), check.name


def test_without_the_extra_check_the_report_has_no_trace_of_it() -> None:
    report = _diff()
    assert "checks" not in report.details
    assert "OUTPUT LENGTH" not in report.render()


def test_a_registered_check_runs_fails_and_shows_in_the_text_report(
    length_check: OutputLengthCheck,
) -> None:
    report = _diff()
    assert report.details["checks"]["output_length"] == {
        "passed": False,
        "summary": f"output length changed: 13 → {len(NEW.output)} characters",
        "lines": ["more than half of the output was added or dropped"],
        "golden_length": 13,
        "new_length": len(NEW.output),
    }
    # after the built-in checks, in registry order
    assert report.failed_checks[-1] == "output_length"
    assert not report.passed
    text = report.render()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[OUTPUT LENGTH]"))
    assert lines[at] == (
        f"[OUTPUT LENGTH] FAIL — output length changed: 13 → {len(NEW.output)} characters"
    )
    assert lines[at + 1] == "  more than half of the output was added or dropped"
    assert at > next(i for i, line in enumerate(lines) if line.startswith("[SEMANTIC]"))
    # the report still reads back from JSON (as `.last_run` and the HTML entries store it)
    assert json.loads(json.dumps(report.details))["checks"]["output_length"]["passed"] is False


def test_a_registered_check_shows_in_the_html_report(length_check: OutputLengthCheck) -> None:
    report = _diff()
    entry = entry_from_outcome(
        Outcome("failed", "t::length", Path("/snaps/t.json"), report, golden=GOLDEN, new=NEW)
    )
    page = unescape(re.sub(r"\s+", " ", render_html([entry])))
    assert "Other checks" in page
    assert "[OUTPUT LENGTH]" in page
    assert f"output length changed: 13 → {len(NEW.output)} characters" in page
    assert "more than half of the output was added or dropped" in page
    assert 'class="check bad">output_length<' in page  # listed with the failed checks


def test_a_passing_registered_check_says_ok(length_check: OutputLengthCheck) -> None:
    report = compute_diff(
        GOLDEN.to_dict(), GOLDEN.to_dict(), name="t::length", embedding_backend="lexical"
    )
    assert report.passed and "output_length" not in report.failed_checks
    assert "[OUTPUT LENGTH] ok — output length changed: 13 → 13 characters" in report.render()


def test_under_the_score_gate_a_registered_check_is_scored_not_decisive(
    length_check: OutputLengthCheck,
) -> None:
    report = compute_diff(
        GOLDEN.to_dict(),
        NEW.to_dict(),
        embedding_backend="lexical",
        min_score=0.0,
        gate="score",
    )
    assert report.failed_checks == []
    assert "[OUTPUT LENGTH] scored" in report.render()


def test_registering_checks_is_checked() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_check(BUILTIN_CHECKS[0].__class__())
    with pytest.raises(TypeError):
        register_check(object())  # type: ignore[arg-type]
    with pytest.raises(LookupError):
        unregister_check("no such check")
    with pytest.raises(ValueError, match="no registered check"):
        register_check(OutputLengthCheck(), before="nope")
    assert registered_checks() == BUILTIN_CHECKS


def test_a_check_registered_before_another_runs_and_renders_before_it() -> None:
    register_check(OutputLengthCheck(), before="semantic")
    try:
        text = _diff().render()
        assert text.index("[OUTPUT LENGTH]") < text.index("[SEMANTIC]")
    finally:
        unregister_check("output_length")
