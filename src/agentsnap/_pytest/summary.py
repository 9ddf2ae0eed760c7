"""What the terminal shows: the end-of-run count line, the syrupy note, agentsnap's failure text."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .session import AgentsnapSession

__all__ = [
    "ORDER",
    "add_failure_note",
    "clean_longrepr",
    "summary_line",
    "syrupy_note",
    "write_run_stats",
    "write_summary",
]

#: the summary's parts, in order: (count key, label)
ORDER = (
    ("passed", "passed"),
    ("failed", "failed"),
    ("created", "new (pending approval)"),
    ("recorded", "recorded (approved)"),
    ("updated", "updated (re-recorded, approved)"),
    ("unchanged", "re-recorded unchanged"),
    ("pending", "pending (not compared)"),
    ("skipped", "not saved (test failed)"),
    ("orphaned", "orphaned (`agentsnap prune` deletes them)"),
)


def summary_line(counts: Counter[str]) -> str | None:
    """``agentsnap: 3 passed, 1 failed, 2 new (pending approval)`` — non-zero parts only (None: all zero)."""
    parts = [f"{counts[key]} {label}" for key, label in ORDER if counts.get(key)]
    return "agentsnap: " + ", ".join(parts) if parts else None


def write_summary(terminalreporter: pytest.TerminalReporter, state: AgentsnapSession) -> None:
    """The end-of-run lines: the counts, the HTML report's path (or why it failed), and after a
    record run the review reminder or why nothing was written."""
    counts = Counter(state.counts)
    if state.orphans:
        counts["orphaned"] = len(state.orphans)
    line = summary_line(counts)
    if line:
        failed = counts.get("failed", 0)
        terminalreporter.write_line(
            line,
            red=bool(failed),
            yellow=not failed
            and bool(counts.get("created") or counts.get("pending") or counts.get("orphaned")),
        )
    if state.run_stats:
        write_run_stats(terminalreporter, state.run_stats)
    if state.report is not None and state.report.written is not None:
        terminalreporter.write_line(f"agentsnap: HTML report written to {state.report.written}")
    elif state.report is not None and state.report.error:
        terminalreporter.write_line(state.report.error, red=True)
    outside = counts.get("_outside_calls", 0)
    if outside:
        terminalreporter.write_line(
            f"agentsnap: {outside} LLM call(s) were made outside any test's recording (while a test "
            "module was imported or collected, in a hook, or in a fixture's teardown): no snapshot "
            "holds them, and a replay run refuses them. Make each call in the test itself or in a "
            "fixture's setup.",
            yellow=True,
        )
    written = counts.get("recorded", 0) + counts.get("updated", 0)
    if (
        state.settings.mode == "record"
        and not outside  # (the line above says where the calls went)
        and not written
        and not counts.get("unchanged")
        and not counts.get("created")
        and not counts.get("failed")  # (a golden that could not be written says why itself)
    ):
        requests, uncaptured = counts.get("_http_requests", 0), counts.get("_uncaptured", 0)
        if requests:
            why = (
                f"{uncaptured} of them looked like LLM calls but were not captured (see the warnings)"
                if uncaptured
                else "none of them was an LLM call agentsnap recognises"
            )
            terminalreporter.write_line(
                f"agentsnap: this record run's tests made {requests} HTTP request(s) but no snapshot was written: {why}. "
                "See docs/providers.md for what is recognised and how to add a `[[match.wire]]` rule.",
                red=True,
            )
    if written:
        terminalreporter.write_line(
            f"  {written} golden(s) written and approved in {state.store.root}: review them (`git diff`) before committing.",
            yellow=True,
        )
    if state.rerecorded:
        root = state.store.root
        terminalreporter.write_line(
            f"  {len(state.rerecorded)} re-recorded with changed behaviour:", yellow=True
        )
        for file, changes in sorted(state.rerecorded.items()):
            shown = Path(file).name if Path(file).parent == root else file
            terminalreporter.write_line(f"    {shown}: {'; '.join(changes)}", yellow=True)
    asked = bool(state.config.getoption("agentsnap_budgets", False))
    # a record run's growth is the re-recorded lines above: its budget lines only when asked for
    if state.budget_rows and (state.settings.mode != "record" or state.settings.budgets or asked):
        from .run_budget import summary_lines

        for text in summary_lines(state.budget_rows, state.settings.budgets, asked):
            terminalreporter.write_line(text)
    if state.run_cost_failure:
        terminalreporter.write_line(state.run_cost_failure, red=True)
    for text in state.late_failures:
        terminalreporter.write_line(text, red=True)


def write_run_stats(
    terminalreporter: pytest.TerminalReporter, run_stats: dict[str, dict[str, object]]
) -> None:
    """The statistics over live runs, one block per test (:class:`.pass_rate.RunStats`), and the
    tests that ran once for want of an approved golden."""
    from .pass_rate import RunStats

    terminalreporter.write_line("agentsnap: statistics over live runs")
    for node, data in sorted(run_stats.items()):
        if "samples" not in data:
            terminalreporter.write_line(f"  {node}: {data.get('note')}", yellow=True)
            continue
        stats = RunStats.from_json(data)
        head, *rest = stats.lines()
        terminalreporter.write_line(f"  {node}: {head}", red=not stats.passed, green=stats.passed)
        for line in rest:
            terminalreporter.write_line(f"  {line}")


def syrupy_note(config: pytest.Config, items: list[pytest.Item]) -> list[str]:
    """syrupy also has a ``snapshot`` fixture: say once which one the tests get, and how to pick
    (no lines without syrupy, or when no test asks for ``snapshot``). Who gets the name is
    settled by ``snapshot_fixture`` (:class:`agentsnap.pytest_plugin.SnapshotName`)."""
    if not config.pluginmanager.hasplugin("syrupy"):
        return []
    users = [item for item in items if "snapshot" in getattr(item, "fixturenames", ())]
    if not users:
        return []  # no test asks for `snapshot`: nothing to say
    owner = snapshot_fixture_owner(users[0])
    if owner is None:
        return []
    if owner.startswith("agentsnap"):
        return [
            "agentsnap: syrupy is installed too; `snapshot` is agentsnap's fixture here "
            '(snapshot_fixture = "agentsnap"). For syrupy\'s, remove that setting and use '
            "`agent_snapshot` for agentsnap."
        ]
    return [
        f"agentsnap: syrupy is installed too; `snapshot` is {owner.split('.')[0]}'s fixture here. "
        "agentsnap's fixture is `agent_snapshot` (the same object); to give agentsnap `snapshot`, "
        'set snapshot_fixture = "agentsnap" in [tool.agentsnap].'
    ]


def snapshot_fixture_owner(item: pytest.Item) -> str | None:
    """The module of the ``snapshot`` fixture ``item`` would get (None when pytest does not say)."""
    try:
        defs = item.session._fixturemanager.getfixturedefs("snapshot", item)
    except Exception:
        return None
    if not defs:
        return None
    module = getattr(defs[-1].func, "__module__", None)
    return module if isinstance(module, str) else None


def clean_longrepr(excinfo: pytest.ExceptionInfo[BaseException], item: pytest.Item) -> str:
    """agentsnap's own errors already say what, where and how to fix: no SDK traceback.

    A replay miss also names the line of the test's own code that made the call.
    """
    from ..exceptions import ReplayMissError

    text = str(excinfo.value)
    if isinstance(excinfo.value, ReplayMissError):
        root = str(item.config.rootpath)
        for entry in reversed(excinfo.traceback):
            path = str(entry.path)
            if path.startswith(root) and "site-packages" not in path and "/agentsnap/" not in path:
                text += (
                    f"\n  (the call was made at {os.path.relpath(path, root)}:{entry.lineno + 1})"
                )
                break
    return text


def add_failure_note(report: pytest.TestReport, note: str) -> None:
    """Add agentsnap's ``note`` to a failed test's report, after the test's own failure
    (a section of its traceback, or the end of a plain-text failure)."""
    longrepr = report.longrepr
    addsection = getattr(longrepr, "addsection", None)  # a traceback (pytest's ExceptionRepr)
    if callable(addsection):
        addsection("agentsnap", note)
    else:
        report.longrepr = f"{longrepr}\n\n{note}" if longrepr else note
