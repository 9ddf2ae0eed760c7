"""A pytest run's agentsnap state: :class:`AgentsnapSession`, and how a run starts and ends.

One session per pytest process (the xdist controller and each worker have
their own; :mod:`.xdist` adds the workers' up). It holds the settings, the
snapshot store, each running test's auto-recording (:class:`ActiveTest`), the
``snapshot(actual)`` snapshots written when their test ends
(:class:`DeferredSnapshot`) and the counts of the end-of-run summary.

Counts change in one place, :meth:`AgentsnapSession.tally`, which takes an
:class:`~agentsnap.lifecycle.Outcome`; failures the session sees without a
settle are also published (:func:`agentsnap.lifecycle.publish`) so the
lifecycle's observers (the HTML report) get them like every other outcome.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import sys
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, get_args

import pytest

from .. import config as _config
from ..exceptions import _PYTEST_SESSIONS, SnapshotFormatError
from .markers import marker_name, marker_options

if TYPE_CHECKING:
    from ..capture.recording import Recording
    from ..diff import DiffReport
    from ..diff.meaning.judge import LLMJudge
    from ..html_report._collect import ReportCollector
    from ..lifecycle import Outcome, OutcomeAction, OutcomeObserver
    from ..storage.last_run_writer import LastRunWriter
    from ..storage.snapshot import Snapshot
    from ..storage.store import SnapshotStore

__all__ = [
    "DUMMY_KEY",
    "SESSION_KEY",
    "ActiveTest",
    "AgentsnapSession",
    "DeferredSnapshot",
    "end_session",
    "get_session",
    "guard_run",
    "start_session",
    "unguard_run",
]

#: the API key replay sets for SDKs that refuse to build without one (never a real key)
DUMMY_KEY = "agentsnap-replay-dummy-key"


class ActiveTest:
    """A running test's auto-recording (``--agentsnap-instrument``).

    ``recording``: the capture scope, started. ``golden``: the golden loaded when
    the test started (None: none, or the file is unreadable). ``load_error``: why
    the snapshot file could not be read (the test fails with it when it ends).
    ``taken``: how many of the recording's exchanges ``snapshot(actual)``
    snapshots already took. ``judged_as``: the mode the run is compared as when
    it is not the session's (a kept live sample replayed: ``live``), else None.
    """

    # plain classes, not dataclasses, here: this module is imported by every pytest run,
    # and each dataclass costs its generated methods' compilation at import (issue 15, row 5)
    __slots__ = ("golden", "judged_as", "load_error", "recording", "taken")

    def __init__(
        self,
        recording: Recording,
        golden: Snapshot | None,
        load_error: SnapshotFormatError | None = None,
        taken: int = 0,
        judged_as: str | None = None,
    ) -> None:
        self.recording = recording
        self.golden = golden
        self.load_error = load_error
        self.taken = taken
        self.judged_as = judged_as


class DeferredSnapshot:
    """A ``snapshot(actual)`` snapshot settled when its test ends (a new or re-recorded one).

    ``snapshot``: what :func:`agentsnap.checking.tool_call_snapshot` built.
    ``unnamed``: made without a ``name``: the last such one also takes the LLM
    calls the test made after it.
    """

    __slots__ = ("min_score", "snapshot", "strict", "unnamed", "weights")

    def __init__(
        self,
        snapshot: Snapshot,
        min_score: float,
        weights: Mapping[str, float] | None,
        strict: bool,
        unnamed: bool,
    ) -> None:
        self.snapshot = snapshot
        self.min_score = min_score
        self.weights = weights
        self.strict = strict
        self.unnamed = unnamed


class AgentsnapSession:
    """Per-run state: settings, the store, the per-test recordings, the counts.

    ``counts``: the summary's counts by :data:`~agentsnap.lifecycle.OutcomeAction`
    (plus ``_http_requests`` / ``_uncaptured``, the never-silent line's totals).
    ``used`` / ``collected`` / ``deselected`` / ``orphans``: orphan detection
    (:mod:`agentsnap.storage.orphans`); ``shard``, ``selected``, ``deselected_ids``: a
    shard's record (:mod:`agentsnap.storage.shards`). ``claimed``: node ids of tests that used the
    fixture's blocks (no auto-snapshot for them). ``owners``: snapshot name →
    the node id of the test that uses it (one test per name). ``name_clashes``:
    node id → why it fails at setup (its marker name is another test's too).
    """

    def __init__(
        self,
        config: pytest.Config,
        settings: _config.Settings,
        report: ReportCollector | None = None,
    ) -> None:
        self.config = config
        self.settings = settings
        #: the HTML report's collector with ``--agentsnap-report``, else None
        self.report = report
        self.counts: Counter[str] = Counter()
        self.used: set[str] = set()
        self.collected: set[str] = set()
        self.deselected = 0
        self.orphans: list[str] = []
        #: node ids of the tests that ran (``session.items``) and of those deselected: a shard's
        #: record lists both (:mod:`agentsnap.storage.shards`)
        self.selected: set[str] = set()
        self.deselected_ids: set[str] = set()
        #: this run's shard (:func:`agentsnap._pytest.shard_identity.detect`), None: the whole suite
        self.shard: dict[str, object] | None = None
        self.claimed: set[str] = set()
        self.owners: dict[str, str] = {}
        self.name_clashes: dict[str, str] = {}
        #: node id -> what agentsnap adds to that test's failure (a replayed test that failed on
        #: its own after its requests changed: :func:`agentsnap.diff.advice.failed_test_note`)
        self.failure_notes: dict[str, str] = {}
        #: snapshot file -> what re-recording it changed (``updated`` outcomes with changes:
        #: :func:`agentsnap.storage.volatile.behaviour_changes`), for the summary's warning
        self.rerecorded: dict[str, list[str]] = {}
        #: what each settled snapshot's run used (:func:`agentsnap._pytest.run_budget.row`), and
        #: the line that fails the run when its cost is over ``max_run_cost``
        self.budget_rows: list[dict[str, object]] = []
        self.run_cost_failure: str | None = None
        #: failures found after the last test (red in the summary)
        self.late_failures: list[str] = []
        self._active: dict[str, ActiveTest] = {}
        self._deferred: dict[str, list[DeferredSnapshot]] = {}
        #: ``--agentsnap-runs N`` (None: not given; the marker's ``runs`` then decides)
        self.runs: int | None = None
        #: ``--agentsnap-replay-run K``: replay serves kept live sample K, not the golden (:mod:`.runs`)
        self.replay_run: int | None = None
        #: node id -> its statistics over live runs as JSON (:class:`.pass_rate.RunStats`)
        self.run_stats: dict[str, dict[str, object]] = {}
        #: writes the run's ``.last_run`` files and keeps those it could not write (made on first
        #: use; handed over by :meth:`finish_last_runs`), and those files (``[path, why]``)
        self._writer: LastRunWriter | None = None
        self.last_run_errors: list[list[str]] = []

    def __repr__(self) -> str:
        return f"AgentsnapSession(mode={self.settings.mode!r}, counts={dict(self.counts)!r})"

    # -- names -----------------------------------------------------------------
    def claim(self, name: str, node_id: str) -> None:
        """Note that test ``node_id`` uses snapshot ``name``; fail it (``pytest.fail``) when another
        test of this run uses the same name (two tests sharing one golden would overwrite each other)."""
        owner = self.owners.setdefault(name, node_id)
        if owner != node_id:
            pytest.fail(clash_message(name, [owner, node_id]), pytrace=False)

    def find_name_clashes(self, items: list[pytest.Item]) -> None:
        """Before any test runs: every test whose explicit snapshot name (marker) another test
        also has fails, naming them all (checked on collection, so xdist workers agree)."""
        users: dict[str, list[str]] = {}
        for item in items:
            users.setdefault(marker_name(item), []).append(item.nodeid)
        for name, nodes in users.items():
            if len(set(nodes)) > 1:
                for node in nodes:
                    self.name_clashes[node] = clash_message(name, nodes)
            else:
                self.owners[name] = nodes[0]

    @functools.cached_property
    def store(self) -> SnapshotStore:
        """The run's :class:`~agentsnap.SnapshotStore` (built on first use: a run that snapshots nothing never loads it)."""
        from ..storage.store import SnapshotStore

        store = SnapshotStore(self.settings.snapshot_path, force=self.settings.force)
        store.writer = self.last_run_writer
        store.listed = self.settings.mode == "replay" and not hasattr(self.config, "workerinput")
        return store

    @property
    def last_run_writer(self) -> LastRunWriter:
        """The run's writer of ``.last_run`` files (:mod:`agentsnap.storage.last_run_writer`):
        the session's store and the fixture's blocks hand it their latest runs."""
        if self._writer is None:
            from ..storage.last_run_writer import LastRunWriter

            self._writer = LastRunWriter()
        return self._writer

    def finish_last_runs(self) -> None:
        """The session's end, an xdist worker's end: the run's ``.last_run`` files the writer
        holds are written, and those that could not be join :attr:`last_run_errors`."""
        if self._writer is not None:
            self.last_run_errors += [[path, why] for path, why in self._writer.close()]

    def warn_last_run_errors(self) -> None:
        """One :class:`~agentsnap.exceptions.AgentsnapWarning` per ``.last_run`` folder and reason
        the run (its workers too) could not write files for, naming the first file and counting
        the others, as a test writing it at once would have said."""
        if not self.last_run_errors:
            return  # (a run that wrote nothing imports nothing of the store)
        from ..storage.last_run_writer import unwritable_groups, warn_unwritable

        for path, why, more in unwritable_groups(self.last_run_errors):
            warn_unwritable(path, why, more=more)

    # -- auto-snapshots ------------------------------------------------------
    def start_test(self, item: pytest.Item) -> None:
        """Start ``item``'s auto-recording, given its golden (see :func:`agentsnap.lifecycle.open_recording`).

        An unreadable snapshot file is kept as :attr:`ActiveTest.load_error`
        (under replay the recording refuses every call with its message): the
        test fails with it when it ends. ``pytest.fail`` for a bad marker.
        """
        import agentsnap.lifecycle as _lifecycle

        name = marker_options(item).name
        try:
            golden = self.store.load(name)
        except SnapshotFormatError as exc:
            from ..capture.recording import Recording

            rec = (
                Recording("replay", block=str(exc))
                if self.settings.mode == "replay"
                else Recording("capture")
            )
            self._active[item.nodeid] = ActiveTest(rec.start(), None, load_error=exc)
            return
        if self.replay_run is not None and self.settings.mode == "replay":
            from ..lifecycle import open_sample_replay

            rec = open_sample_replay(
                golden, self.settings, self.store, name=name, run=self.replay_run
            )
            self._active[item.nodeid] = ActiveTest(rec.start(), golden, judged_as="live")
            return
        served = (
            self._with_later_snapshots(name, golden)
            if golden is not None and self.settings.mode == "replay"
            else golden
        )
        rec = _lifecycle.open_recording(
            served,
            self.settings,
            mode=self.settings.mode,
            name=name,
            path=self.store.located(name) or self.store.path_for(name),  # (the file load found)
        )
        self._active[item.nodeid] = ActiveTest(rec.start(), golden)

    def _with_later_snapshots(self, name: str, golden: Snapshot) -> Snapshot:
        """The golden whose recordings replay serves: with those of ``name-2``, ``name-3`` … appended.

        A test that calls the ``snapshot(actual)`` form more than once stores
        each part's LLM calls in its own snapshot; replay serves them all, in order.
        """
        later: list[dict[str, Any]] = []  # (the golden's own trace read only when there are more)
        for index in itertools.count(2):
            try:
                found = self.store.load_listed(f"{name}-{index}")  # (no stat for a name none has)
            except SnapshotFormatError:
                break  # the block that owns it reports the broken file
            if found is None:
                break
            later += found.trace
        return dataclasses.replace(golden, trace=golden.trace + later) if later else golden

    def take_llm_steps(self, node_id: str) -> list[dict[str, object]]:
        """The llm_call/http steps of the exchanges test ``node_id``'s auto-recording captured
        since the previous call (none without an auto-recording)."""
        active = self._active.get(node_id)
        if active is None:
            return []
        from ..capture.trace import Trace

        exchanges = list(active.recording.trace.exchanges)
        part = Trace()
        part.exchanges = exchanges[active.taken :]
        active.taken = len(exchanges)
        return [step for step in part.steps() if step.get("type") != "tool_call"]

    def first_miss(self, item: pytest.Item, *, refused: bool = False) -> BaseException | None:
        """``item``'s first replay miss, or with ``refused`` its first refused request (or None)."""
        if (active := self._active.get(item.nodeid)) is None:
            return None
        return active.recording.refused if refused else active.recording.first_miss

    def stop_test(self, item: pytest.Item) -> ActiveTest | None:
        """Stop ``item``'s auto-recording; return it (None when it had none or it was stopped already)."""
        active = self._active.pop(item.nodeid, None)
        if active is not None:
            active.recording.stop()
        return active

    def stop_tests(self) -> None:
        """Stop the auto-recordings of tests that never reached their end: a ``KeyboardInterrupt``
        or ``pytest.exit`` in a fixture's setup skips the call and teardown hooks."""
        while self._active:
            self._active.popitem()[1].recording.stop()

    def finish_test(self, item: pytest.Item, passed: bool) -> None:
        """Stop ``item``'s auto-recording and settle its auto-snapshot (the state table). Raises
        the unreadable file's :class:`SnapshotFormatError`, and what
        :func:`agentsnap.lifecycle.settle` raises (drift, CI refusals)."""
        active = self.stop_test(item)
        if active is None:
            return
        # `import a.b as c`: a cheap import on every test's end (a `from m import x` of a module
        # costs a formatted AttributeError for its missing __path__ each time on CPython 3.11)
        import agentsnap._pytest.golden_run as _golden_run
        import agentsnap.lifecycle as _lifecycle

        recording = active.recording
        name, overrides = marker_options(item)
        # the session's judge confirms failing texts of auto-snapshots (and of each live sample)
        # as it does in the fixture's blocks; None when no judge key resolves
        overrides = {"judge": self.judge(), **(overrides or {})}
        if active.load_error is not None:
            failed = _lifecycle.Outcome("failed", item.nodeid, None, error=str(active.load_error))
            self.tally(_lifecycle.publish(failed), used=False)
            raise active.load_error
        if recording.blocked_calls or recording.misses:
            miss = f"replay: {recording.misses} call(s) had no recording; the test's failure shows the request and the nearest recording"
            why = recording.block if recording.blocked_calls else miss
            failed = _lifecycle.Outcome("failed", name, self.store.path_for(name), error=str(why))
            self.tally(_lifecycle.publish(failed), used=False)
            return  # CI refused the calls, or replay had no recording: the test failed with that error, nothing is written
        if item.nodeid in self.claimed:
            return  # the test snapshots explicitly with the `snapshot` fixture: its blocks own the snapshots
        if not recording.trace.has_traffic and (active.golden is None or not active.golden.trace):
            return  # no LLM or MCP traffic and no golden holding calls (else: settled as any run)
        self.used.add(name)
        snap = _golden_run.run_snapshot(name, recording, active.golden, judged_as=active.judged_as)
        try:
            # settle publishes what it reaches, its refusals too
            with _lifecycle.observing(self.observer_for(item.nodeid)):
                _lifecycle.settle(
                    self.store,
                    snap,
                    self.settings,
                    mode=active.judged_as or self.settings.mode,
                    test_passed=passed,
                    golden=active.golden,
                    quiet_record=True,
                    overrides=overrides,
                )
        except SnapshotFormatError as exc:
            # the golden could not be read or written: settle reached no outcome
            failed = _lifecycle.Outcome("failed", name, self.store.path_for(name), error=str(exc))
            self.tally(_lifecycle.publish(failed))
            raise

    # -- the fixture's snapshot(actual) --------------------------------------------
    def defer(self, node_id: str, entry: DeferredSnapshot) -> None:
        """Keep ``entry`` until test ``node_id`` ends (:meth:`settle_deferred`)."""
        self._deferred.setdefault(node_id, []).append(entry)

    def drop_deferred(self, item: pytest.Item) -> None:
        """Forget ``item``'s deferred snapshots (a skipped or xfailed test writes none)."""
        self._deferred.pop(item.nodeid, None)

    def settle_deferred(self, item: pytest.Item, passed: bool) -> None:
        """Write the test's new or re-recorded ``snapshot(actual)`` snapshots (a failed test writes none).

        LLM calls the test made after its last unnamed snapshot join that one, so
        replay can serve them too. Raises what :meth:`settle_tool_calls` raises.
        """
        entries = self._deferred.pop(item.nodeid, [])
        if not entries:
            return
        from ..lifecycle import build_snapshot

        last = next((entry for entry in reversed(entries) if entry.unnamed), None)
        if last is not None and passed:
            trailing = self.take_llm_steps(item.nodeid)
            if trailing:
                new = last.snapshot
                last.snapshot = build_snapshot(
                    new.name, list(new.trace) + trailing, source="pytest"
                )
        for entry in entries:
            self.settle_tool_calls(entry, test_passed=passed)

    def settle_tool_calls(
        self, entry: DeferredSnapshot, *, test_passed: bool = True, golden: Snapshot | None = None
    ) -> DiffReport | None:
        """Settle one ``snapshot(actual)`` snapshot now (:func:`agentsnap.checking.settle_tool_calls`),
        counting its outcome; the report when an approved snapshot was compared.

        Raises :class:`AgentRegressionError` on drift, :class:`SnapshotNotFoundError`
        / :class:`SnapshotPendingError` for CI refusals.
        """
        from ..checking import settle_tool_calls
        from ..lifecycle import observing

        with observing(self.tally):
            report: DiffReport | None = settle_tool_calls(
                entry.snapshot,
                store=self.store,
                settings=self.settings,
                mode=self.settings.mode,
                min_score=entry.min_score,
                weights=entry.weights,
                strict=entry.strict,
                test_passed=test_passed,
                golden=golden,
            )
        return report

    # -- counting --------------------------------------------------------------------
    def tally(self, outcome: Outcome, *, used: bool = True) -> None:
        """Count ``outcome`` in the summary: the one place the counts change.

        The session's observer of its own outcomes (:func:`agentsnap.lifecycle.observing`):
        auto-snapshots, ``snapshot(actual)`` and the fixture's blocks (their
        ``on_outcome``); a block a test builds itself is not counted. ``used``:
        the snapshot counts as produced by this run (orphan detection).
        """
        self.counts[outcome.action] += 1
        if used:
            self.used.add(outcome.name)
        if outcome.action == "updated" and outcome.changes:
            self.rerecorded[str(outcome.path or outcome.name)] = list(outcome.changes)
        if outcome.new is not None:
            import agentsnap._pytest.run_budget as _run_budget

            budgets = self.settings.budgets
            exact = "max_tokens_growth" in budgets or "max_request_tokens" in budgets
            measured = _run_budget.row(outcome, self.settings.mode, exact)
            if measured is not None:
                self.budget_rows.append(measured)

    def observer_for(self, node_id: str) -> OutcomeObserver:
        """:meth:`tally` for the outcomes of test ``node_id``'s snapshots; one whose test failed with
        something to add (its ``error``) is kept for the failure (:attr:`failure_notes`)."""

        def observe(outcome: Outcome) -> None:
            self.tally(outcome)
            if outcome.action == "skipped" and outcome.error:
                self.failure_notes[node_id] = outcome.error

        return observe

    def write_shard_record(self, exitstatus: int) -> None:
        """Write this shard's run record and report entries into ``.last_run/``
        (:func:`agentsnap.storage.shards.write_shard_record`); :attr:`shard` must be set."""
        from ..storage.shards import write_shard_record
        from .shard_identity import suite_of

        assert self.shard is not None
        write_shard_record(
            self,
            self.config,
            exitstatus,
            shard=self.shard,
            suite=suite_of(self.config, self.settings),
            collected=self.collected | self.deselected_ids | self.selected,
            selected=self.selected,
            counts=self.counts,
            entries=self.report.to_json() if self.report is not None else "[]",
        )

    def count(self, action: str, name: str | None = None) -> None:
        """Count a bare outcome (the ``(action, name)`` form blocks once reported): :meth:`tally`,
        and a row in the HTML report when nothing else gave the name one. Raises ``ValueError``
        for an action that is not an :data:`~agentsnap.lifecycle.OutcomeAction`."""
        if name is None:
            self.counts[_action(action)] += 1
            return
        from ..lifecycle import Outcome

        self.tally(Outcome(_action(action), name, None))
        if self.report is not None:
            self.report.count(action, name)

    def note_http_totals(self) -> None:
        """Add the HTTP requests the capture layer saw (the never-silent summary line's numbers)."""
        observed = sys.modules.get("agentsnap.capture.observe")
        if observed is not None:  # loaded only when something was recorded
            seen = observed.totals()
            self.counts["_http_requests"] += seen["requests"]
            self.counts["_uncaptured"] += seen["uncaptured"]

    # -- the judge -------------------------------------------------------------------
    @functools.cached_property
    def _judge(self) -> LLMJudge | None:
        from ..diff.meaning.judge import LLMJudge

        return LLMJudge.from_env(self.settings, ignore=(DUMMY_KEY,))

    def judge(self) -> LLMJudge | None:
        """The session's LLM judge (resolved once), or None when no judge API key resolves.

        Key order: ``AGENTSNAP_JUDGE_API_KEY``, then the provider key matching
        ``judge_base_url`` (:data:`agentsnap.config.PROVIDER_KEY_MAP`); the
        placeholder keys replay mode sets count as unset.
        """
        return self._judge


def _action(action: str) -> OutcomeAction:
    from ..lifecycle import OutcomeAction

    for known in get_args(OutcomeAction):
        if action == known:
            return known  # type: ignore[no-any-return]  # get_args is untyped
    raise ValueError(f"agentsnap: unknown outcome action {action!r}")


def clash_message(name: str, nodes: list[str]) -> str:
    """The failure of tests that share snapshot ``name``."""
    listed = " and ".join(dict.fromkeys(nodes))
    return (
        f"agentsnap: snapshot name {name!r} is used by more than one test ({listed}); they would overwrite each "
        "other's golden. Give each test its own name: @pytest.mark.agentsnap(name=...) / the block's name."
    )


SESSION_KEY = pytest.StashKey[AgentsnapSession]()


def get_session(config: pytest.Config) -> AgentsnapSession | None:
    """The run's session (None before ``pytest_configure`` or when agentsnap is not configured)."""
    return config.stash.get(SESSION_KEY, None)


# -- a run's start and end ----------------------------------------------------------------


def start_session(
    config: pytest.Config, settings: _config.Settings, *, mode: str | None, report: str | None
) -> AgentsnapSession:
    """Build the run's session and switch on what its settings ask for.

    ``mode``: the mode a flag chose (None: none did); ``report``: the
    ``--agentsnap-report`` path. Blocks built without ``mode=`` follow the
    flag's mode; ``--agentsnap-report`` (or a shard run: :mod:`.shard_identity`) starts
    the HTML report's collector;
    ``instrument`` installs the capture hooks; replay sets placeholder API
    keys and keeps the run offline (:func:`guard_run`).
    """
    session = AgentsnapSession(config, settings)
    config.stash[SESSION_KEY] = session
    _PYTEST_SESSIONS.add(id(config))  # fix hints name pytest's flags (capture.remedies)
    if mode in ("replay", "live"):
        from ..recorder import force_mode

        force_mode(mode)  # AgentAsserter blocks the tests build themselves follow the flag too
    if _may_be_shard(config):
        from .shard_identity import detect

        if not hasattr(config, "workerinput"):  # an xdist worker writes no record
            from ..storage.orphans import forget_run_record

            # the previous run's record goes now: a shard that stops early (a usage error, a
            # crash) leaves none, rather than one that looks like its own
            forget_run_record(settings.snapshot_path)
        session.shard = detect(config)
    if report or session.shard is not None:  # a shard keeps its entries for `report --merge`
        from ..html_report._collect import ReportCollector

        session.report = ReportCollector(report, base=config.invocation_params.dir).start()
    if settings.instrument:
        from ..capture.hooks import install

        install()
    if settings.mode == "replay":
        set_dummy_api_keys()
        guard_run(config)
        refuse_calls_outside_tests(config)
    else:  # replay was seen early (pytest_load_initial_conftests), but the settled mode is not replay
        allow_calls_outside_tests(config)
        unguard_run(config)
    return session


def _may_be_shard(config: pytest.Config) -> bool:
    """Whether the run may be a shard (:mod:`.shard_identity` decides): a shard name is given,
    or pytest-split's ``--splits`` is (read without importing anything for the other runs)."""
    return bool(
        config.getoption("agentsnap_shard", None)
        or os.environ.get("AGENTSNAP_SHARD", "").strip()
        or config.getoption("splits", None)
    )


def end_session(config: pytest.Config) -> None:
    """Undo :func:`start_session`: the recordings of tests an interrupt left running, the run's
    guard, the forced mode, the report's observer. The process is left as the run found it."""
    session = get_session(config)
    _PYTEST_SESSIONS.discard(id(config))
    if session is not None:
        session.stop_tests()
    allow_calls_outside_tests(config)
    unguard_run(config)
    if session is None:
        return
    session.finish_last_runs()  # (written already when the session finished)
    recorder = sys.modules.get("agentsnap.recorder")  # not imported: nothing was forced
    if recorder is not None:
        recorder.force_mode(None)
    if session.report is not None:
        session.report.stop()


def set_dummy_api_keys() -> None:
    """SDK constructors refuse to build without an API key; replay needs none."""
    from ..spec.provider_specs import load_specs

    for spec in load_specs():
        for var in spec.api_key_env:
            if not os.environ.get(var):
                os.environ[var] = DUMMY_KEY


RUN_GUARD = pytest.StashKey[object]()
RUN_GUARD_REASON = 'this run replays (--agentsnap-replay, or mode = "replay"), so it runs offline from collection to the end'


def guard_run(config: pytest.Config) -> None:
    """Replay is offline for the whole run: the socket guard on from the start of the
    run (conftest and test-module imports included) until ``pytest_unconfigure``."""
    if RUN_GUARD not in config.stash:
        from ..capture import guard

        config.stash[RUN_GUARD] = guard.activate(RUN_GUARD_REASON)


#: the replay run's recording under every test's: refuses the LLM calls made outside a test
OUTSIDE_TESTS = pytest.StashKey["Recording"]()
OUTSIDE_TESTS_MESSAGE = (
    "agentsnap: an LLM call was made outside any test (while importing a conftest.py, importing or "
    "collecting a test module, or in a hook) and this run replays: replay serves a test's calls from its snapshot, so this one "
    "has nothing to serve and no request is sent. Make the call inside the test (or a fixture it uses)."
)


def refuse_calls_outside_tests(config: pytest.Config) -> None:
    """Replay: an LLM call made while no test runs (a module-level SDK call at collection)
    is refused before it is sent, even to loopback: a recording at the bottom of the stack,
    under each test's own (:meth:`AgentsnapSession.start_test`), blocks it."""
    if OUTSIDE_TESTS not in config.stash:
        from ..capture.recording import Recording
        from ..exceptions import ReplayMissError

        config.stash[OUTSIDE_TESTS] = Recording(
            "replay",
            block=OUTSIDE_TESTS_MESSAGE,
            block_error=ReplayMissError,
            offline_reason=RUN_GUARD_REASON,
        ).start()


def allow_calls_outside_tests(config: pytest.Config) -> None:
    """Lift :func:`refuse_calls_outside_tests` (nothing when it is not on)."""
    outside = config.stash.get(OUTSIDE_TESTS, None)
    if outside is not None:
        outside.stop()
        del config.stash[OUTSIDE_TESTS]


def unguard_run(config: pytest.Config) -> None:
    """Lift :func:`guard_run`'s guard (nothing when it is not on)."""
    token = config.stash.get(RUN_GUARD, None)
    if token is not None:
        from ..capture import guard

        guard.deactivate(token)
        del config.stash[RUN_GUARD]
