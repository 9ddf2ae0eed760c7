"""Statistics over live runs: a test run N times against the real API, judged by its pass rate.

``--agentsnap-runs N`` (or ``@pytest.mark.agentsnap(runs=N)``; the flag wins)
in a live run: :func:`run_protocol` is the test's ``pytest_runtest_protocol``.
It drives pytest's own protocol (setup, call, teardown) once per sample, without
logging, so each sample gets fresh function-scoped fixtures and its own
recording, compared with the approved golden as a single live run is (the
golden is never written by a sample). Between samples only the test's own node is
torn down (the teardown is told the next item's chain is the test's parent), so
module- and session-scoped fixtures live across the samples; the last sample
tears down as pytest would. Then one setup, call and teardown report is logged:
the call passes when the pass rate is at least ``min_pass_rate``
(:class:`~.pass_rate.RunStats`), and its failure text lists the rate, its Wilson
interval, the per-check rates and each failing sample.

Every failing sample is kept (:meth:`SnapshotStore.save_sample`:
``.last_run/<golden file stem>.runs/<K>.json``); a test that finally passes keeps
none. ``pytest NODE --agentsnap-replay --agentsnap-replay-run K`` replays sample K's
recorded traffic offline (:func:`agentsnap.lifecycle.open_sample_replay`) and compares the run with the
approved golden as the live sample was compared, so it fails the same way; plain
``--agentsnap-replay`` still serves the golden.

A test with no approved golden yet runs once, as today (a statistic needs a
reference); a test skipped or xfailed in its first sample is not sampled further.
"""

from __future__ import annotations

import os
import shlex
from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest

from .markers import marker_name, marker_runs
from .pass_rate import RunStats, Sample

if TYPE_CHECKING:
    from ..lifecycle import Outcome
    from .session import AgentsnapSession

__all__ = ["check_options", "replay_command", "run_protocol", "sample_count"]

#: the summary counts a sample's settle may add; replaced by the one verdict of the test
_SAMPLE_ACTIONS = ("passed", "failed", "skipped")


def check_options(runs: int | None, replay_run: int | None, mode: str, instrument: bool) -> None:
    """Refuse flag combinations that have no meaning: ``pytest.UsageError`` saying why.

    ``--agentsnap-runs N`` needs N >= 1, and N > 1 needs a live run with
    auto-snapshots (replay is deterministic; record keeps one golden).
    ``--agentsnap-replay-run K`` needs K >= 1 and a replay run.
    """
    if runs is not None and runs < 1:
        raise pytest.UsageError(f"agentsnap: --agentsnap-runs must be at least 1, got {runs}")
    if runs is not None and runs > 1:
        if mode == "replay":
            raise pytest.UsageError(
                f"agentsnap: --agentsnap-runs {runs} samples live runs, and this run replays: replay serves the "
                "same recording every time, so every run would give the same verdict. Use --agentsnap-live; to "
                "reproduce a failing sample offline, use --agentsnap-replay --agentsnap-replay-run K."
            )
        if mode == "record":
            raise pytest.UsageError(
                f"agentsnap: --agentsnap-runs {runs} cannot be combined with --agentsnap-record: a record run keeps "
                "one golden per test. Record once, approve, then sample with --agentsnap-live --agentsnap-runs N."
            )
        if not instrument:
            raise pytest.UsageError(
                f"agentsnap: --agentsnap-runs {runs} samples the auto-snapshots of a live run: add --agentsnap-live."
            )
    if replay_run is not None:
        if replay_run < 1:
            raise pytest.UsageError(
                f"agentsnap: --agentsnap-replay-run must be at least 1, got {replay_run}"
            )
        if mode != "replay":
            raise pytest.UsageError(
                f"agentsnap: --agentsnap-replay-run {replay_run} replays a kept live sample offline: add --agentsnap-replay."
            )


def sample_count(item: pytest.Item, session: AgentsnapSession) -> int:
    """How many live runs ``item`` gets: the flag, else the marker's ``runs``, else 1; always 1
    unless the run is live with auto-snapshots."""
    if session.settings.mode != "live" or not session.settings.instrument:
        return 1
    if session.runs is not None:
        return session.runs
    runs, _ = marker_runs(item)
    return runs or 1


def replay_command(node_id: str) -> str:
    """The command that replays kept sample ``{run}`` of test ``node_id`` offline."""
    return f"pytest {shlex.quote(node_id)} --agentsnap-replay --agentsnap-replay-run {{run}}"


def run_protocol(
    item: pytest.Item, nextitem: pytest.Item | None, session: AgentsnapSession
) -> bool | None:
    """Run ``item`` as a statistics run (module doc) and log its reports; True when it did,
    None when the test runs once as usual (one run asked for, or no approved golden)."""
    runs = sample_count(item, session)
    if runs <= 1:
        return None
    from ..exceptions import SnapshotFormatError

    name = marker_name(item)
    try:
        golden = session.store.load(name)
    except SnapshotFormatError:
        return None  # the single run fails with the unreadable file
    if golden is None or not golden.approved:
        state = "no golden yet" if golden is None else "its golden is pending approval"
        session.run_stats[item.nodeid] = {
            "node": item.nodeid,
            "note": f"ran once, not {runs} times: {state}, and a statistics run compares with an approved golden",
        }
        return None
    _, marked_rate = marker_runs(item)
    min_rate = marked_rate if marked_rate is not None else session.settings.min_pass_rate
    session.store.clear_samples(name)  # an earlier statistics run's samples are not this one's
    before = Counter(session.counts)
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    samples: list[Sample] = []
    runs_reports: list[list[pytest.TestReport]] = []
    kept: dict[int, Outcome] = {}
    last_passed: Outcome | None = None
    for run in range(1, runs + 1):
        reports, outcomes = _one_run(item, nextitem if run == runs else item.parent)
        if run == 1 and any(r.skipped for r in reports):
            _log(item, reports)  # skipped or xfailed: not a statistic
            return True
        sample, outcome = _sample(item, session, name, run, runs, reports, outcomes)
        samples.append(sample)
        runs_reports.append(reports)
        if sample.passed:
            last_passed = outcome
        elif outcome is not None:
            kept[run] = outcome
        if item.session.shouldfail or item.session.shouldstop:
            break
    stats = RunStats(item.nodeid, name, samples, min_rate, replay=replay_command(item.nodeid))
    if stats.passed:
        session.store.clear_samples(name)
        for sample in samples:
            sample.kept = None
    session.run_stats[item.nodeid] = stats.to_json()
    _count_verdict(session, before, stats.passed)
    if session.report is not None:
        _report_entries(session, stats, kept, last_passed)
    _log(item, _verdict_reports(runs_reports, stats))
    return True


def _one_run(item: pytest.Item, teardown_to: Any) -> tuple[list[pytest.TestReport], list[Outcome]]:
    """One sample: pytest's protocol unlogged, the outcomes its snapshots reached."""
    from _pytest.runner import runtestprotocol

    from ..lifecycle import observing

    outcomes: list[Outcome] = []
    with observing(outcomes.append):
        # a parent node as "the next item": the teardown stops at the test's own node
        reports = runtestprotocol(item, log=False, nextitem=teardown_to)
    return reports, outcomes


def _sample(
    item: pytest.Item,
    session: AgentsnapSession,
    name: str,
    run: int,
    runs: int,
    reports: list[pytest.TestReport],
    outcomes: list[Outcome],
) -> tuple[Sample, Outcome | None]:
    """What sample ``run`` did (its :class:`Sample`, with the failing one kept) and the outcome of
    the test's own snapshot (None when it reached none)."""
    passed = all(r.passed for r in reports)
    compared = [o.report for o in outcomes if o.report is not None]
    failed_checks = list(dict.fromkeys(c for rep in compared for c in rep.failed_checks))
    error = None
    if not passed and not failed_checks:
        error = next((_crash(r) for r in reports if r.failed), "the test failed")
    own = next((o for o in reversed(outcomes) if o.name == name and o.new is not None), None)
    kept = None
    if not passed and own is not None and own.new is not None:
        own.new.comparison = {**(own.new.comparison or {}), "sample": {"run": run, "runs": runs}}
        path = session.store.save_sample(own.new, run)
        kept = _shown(path, item.config) if path is not None else None
    sample = Sample(
        run,
        passed,
        failed_checks=failed_checks,
        compared=bool(compared),
        error=error,
        kept=kept,
    )
    return sample, own


def _crash(report: pytest.TestReport) -> str:
    """One line: the phase (unless the call) and the exception of a failed report."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = (
        getattr(crash, "message", None) or (report.longreprtext.strip().splitlines() or ["?"])[-1]
    )
    first = str(message).strip().splitlines()[0] if str(message).strip() else "?"
    return first if report.when == "call" else f"in {report.when}: {first}"


def _shown(path: os.PathLike[str], config: pytest.Config) -> str:
    """``path`` relative to where pytest was started when it is below it."""
    base = str(config.invocation_params.dir)
    text = os.fspath(path)
    return os.path.relpath(text, base) if text.startswith(base + os.sep) else text


def _count_verdict(session: AgentsnapSession, before: Counter[str], passed: bool) -> None:
    """The summary counts the test once, by its verdict, not once per sample."""
    for action in _SAMPLE_ACTIONS:
        added = session.counts[action] - before.get(action, 0)
        if added > 0:
            session.counts[action] -= added
    session.counts["passed" if passed else "failed"] += 1


def _report_entries(
    session: AgentsnapSession,
    stats: RunStats,
    kept: dict[int, Outcome],
    last_passed: Outcome | None,
) -> None:
    """The HTML report: the test's row shows the verdict (with the statistics), and each kept
    failing sample has a row of its own, ``NAME (run K of N)``."""
    from ..html_report._entries import entry_from_outcome

    collector = session.report
    if collector is None:
        return
    by_run = {s.run: s for s in stats.samples}
    for run, outcome in kept.items():
        entry = entry_from_outcome(outcome)
        sample = by_run[run]
        entry["name"] = f"{stats.name} (run {run} of {stats.runs})"
        command = stats.replay.replace("{run}", str(run))
        where = f"kept in {sample.kept}; " if sample.kept else ""
        entry["error"] = (
            f"run {run} of {stats.runs}: {sample.what_failed()}; {where}offline: {command}"
        )
        collector.add(entry)
    verdict = last_passed if stats.passed else (kept[max(kept)] if kept else None)
    if verdict is not None:
        entry = entry_from_outcome(verdict)
        entry["state"] = "passed" if stats.passed else "failed"
        entry["error"] = "\n".join(stats.lines())
        collector.entries[stats.name] = entry


def _verdict_reports(
    runs_reports: list[list[pytest.TestReport]], stats: RunStats
) -> list[pytest.TestReport]:
    """The reports logged for the test: a passed setup, the call carrying the verdict, the last
    teardown. When no sample got past its setup, the last sample's reports, the statistics added."""
    last = runs_reports[-1]
    calls = [r for reports in runs_reports for r in reports if r.when == "call"]
    setups = [r for reports in runs_reports for r in reports if r.when == "setup" and r.passed]
    if not calls or not setups:
        for report in last:
            if report.failed:
                report.longrepr = f"{report.longreprtext}\n\n{stats.text()}"
        return last
    call = calls[-1]
    call.duration = sum(r.duration for r in calls)
    failing = [r for r in calls if r.failed]
    if stats.passed:
        call.outcome = "passed"
        call.longrepr = None
        call.sections.append(("agentsnap statistics over live runs", stats.text()))
    else:
        call.outcome = "failed"
        text = stats.text()
        if failing:
            text += f"\n\nThe last failing run's failure:\n{failing[-1].longreprtext}"
        call.longrepr = text
    teardown = next((r for r in reversed(last) if r.when == "teardown"), None)
    return [setups[-1], call] + ([teardown] if teardown is not None else [])


def _log(item: pytest.Item, reports: list[pytest.TestReport]) -> None:
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
