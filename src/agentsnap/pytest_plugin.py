"""The pytest plugin: flags, auto-snapshots, the ``snapshot`` fixture, the summary.

Loaded through the ``pytest11`` entry point. Importing it loads only the
standard library and agentsnap's own light modules: no provider SDK, no httpx,
no wrapt until instrumentation is switched on.

Flags::

    --agentsnap-instrument   auto-snapshot every test that calls an LLM (no code changes)
    --agentsnap-replay       serve recorded responses; offline          } each implies
    --agentsnap-record       call the real API, overwrite goldens        } --agentsnap-instrument;
    --agentsnap-live         call the real API, compare with goldens     } record with another is
                                                                           an error, live beats replay
    --agentsnap-allow-pending   in CI, missing/pending snapshots warn instead of failing
    --agentsnap-snapshot-dir PATH   snapshot folder (relative to the rootdir)
    --agentsnap-force        an unreadable snapshot file counts as missing and is overwritten
    --agentsnap-runs N       live: run each test N times, pass on its pass rate (min_pass_rate)
    --agentsnap-replay-run K replay: serve kept failing live sample K instead of the golden
    --agentsnap-shard NAME   this run is one shard of a suite split across machines

Environment: ``AGENTSNAP_MODE=replay|record|live`` and ``AGENTSNAP_RECORD=1``
set the mode (for subprocesses, e.g. ``agentsnap record``); ``CI`` switches on
CI rules (see :mod:`agentsnap.config`).

This module holds the options and thin hooks; the work is done in the private
package :mod:`agentsnap._pytest` (``session``, ``fixture``, ``markers``,
``summary``, ``xdist``).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from . import config as _config
from ._pytest.fixture import SnapshotFixture
from ._pytest.fixture import make_fixture as _make_fixture
from ._pytest.markers import MARKER_DESCRIPTION, MARKER_OPTIONS, marker_options
from ._pytest.session import AgentsnapSession, end_session, start_session
from ._pytest.session import get_session as _session
from ._pytest.session import guard_run as _guard_run
from ._pytest.session import refuse_calls_outside_tests as _refuse_calls_outside_tests
from ._pytest.summary import add_failure_note as _add_failure_note
from ._pytest.summary import clean_longrepr as _clean_longrepr
from ._pytest.summary import summary_line, syrupy_note, write_summary
from .exceptions import (
    AgentRegressionError,
    ReplayMissError,
    SnapshotFormatError,
    SnapshotNotFoundError,
    SnapshotPendingError,
)

__all__ = [
    "MARKER_OPTIONS",
    "AgentsnapSession",
    "SnapshotFixture",
    "SnapshotName",
    "agent_snapshot",
    "marker_options",
    "summary_line",
]

_MODE_FLAGS = (
    ("record", "--agentsnap-record"),
    ("replay", "--agentsnap-replay"),
    ("live", "--agentsnap-live"),
)
_CLEAN_ERRORS = (
    AgentRegressionError,
    ReplayMissError,
    SnapshotFormatError,
    SnapshotNotFoundError,
    SnapshotPendingError,
)


def _leave_unrewritten() -> None:
    """Take agentsnap off the list of packages pytest rewrites the asserts of.

    pytest rewrites every module of a ``pytest11`` plugin's distribution as it is imported, so
    that a plugin's helper asserts explain themselves. agentsnap's asserts only narrow types for
    mypy; rewriting them explains nothing and costs each process pytest's own import path for
    ~80 modules (pytest's bytecode cache, or a parse and compile per module and per run where
    ``PYTHONDONTWRITEBYTECODE`` is set, as in many CI containers: 0.1 s a session). The
    modules the plugin loaded before this call are rewritten as before. The mark is pytest's
    private ``AssertionRewritingHook._must_rewrite`` set: when pytest keeps it elsewhere this
    does nothing and agentsnap is rewritten as before."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(marked, set) and __package__ in marked:
            marked.discard(__package__)
            answers = getattr(finder, "_marked_for_rewrite_cache", None)
            if isinstance(answers, dict):
                answers.clear()


_leave_unrewritten()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentsnap", "agentsnap: snapshot testing for LLM agents")
    group.addoption(
        "--agentsnap-instrument",
        action="store_true",
        default=None,
        dest="agentsnap_instrument",
        help="Capture every LLM call of every installed provider SDK and snapshot each test that makes one (no code changes).",
    )
    group.addoption(
        "--agentsnap-replay",
        action="store_true",
        default=False,
        dest="agentsnap_replay",
        help="Serve recorded responses to the unchanged SDK clients: offline and deterministic. Implies --agentsnap-instrument.",
    )
    group.addoption(
        "--agentsnap-record",
        action="store_true",
        default=False,
        dest="agentsnap_record",
        help="Call the real APIs and overwrite the goldens (marked approved). Implies --agentsnap-instrument.",
    )
    group.addoption(
        "--agentsnap-live",
        action="store_true",
        default=False,
        dest="agentsnap_live",
        help="Call the real APIs and compare with the goldens. Implies --agentsnap-instrument.",
    )
    group.addoption(
        "--agentsnap-allow-pending",
        action="store_true",
        default=None,
        dest="agentsnap_allow_pending",
        help="In CI, let missing or pending snapshots warn instead of failing (approved ones still fail on drift).",
    )
    group.addoption(
        "--agentsnap-force",
        action="store_true",
        default=None,
        dest="agentsnap_force",
        help="Treat a snapshot file that cannot be read (corrupt, merge conflict, other format version, other name) "
        "as missing, so this run's recording overwrites it. Without it such a file fails its test and is never written.",
    )
    group.addoption(
        "--agentsnap-snapshot-dir",
        default=None,
        dest="agentsnap_snapshot_dir",
        metavar="PATH",
        help="Snapshot folder, relative to the pytest rootdir (default: snapshot_dir from [tool.agentsnap], else __agent_snapshots__).",
    )
    group.addoption(
        "--agentsnap-report",
        default=None,
        dest="agentsnap_report",
        metavar="PATH",
        help="Write a self-contained HTML report of every snapshot the run touched to PATH (relative to the current directory).",
    )
    group.addoption(
        "--agentsnap-shard",
        default=None,
        dest="agentsnap_shard",
        metavar="NAME",
        help="This run is one shard of a suite split across machines (G/N for group G of N, or any name; "
        "env AGENTSNAP_SHARD). Found on its own from pytest-split's --splits/--group. A shard's run record "
        "never marks orphans: `agentsnap report --merge DIR...` merges the shards' .last_run folders.",
    )
    group.addoption(
        "--agentsnap-runs",
        type=int,
        default=None,
        dest="agentsnap_runs",
        metavar="N",
        help="Live runs only: run each selected test N times against the real API, compare each run with the "
        "approved golden and pass the test when the share of passing runs is at least min_pass_rate (default 1.0). "
        "Beats the marker's runs=.",
    )
    group.addoption(
        "--agentsnap-replay-run",
        type=int,
        default=None,
        dest="agentsnap_replay_run",
        metavar="K",
        help="With --agentsnap-replay: replay the kept failing live sample K of each test (from --agentsnap-runs) "
        "instead of its golden, offline, and compare it with the approved golden as the live run was compared.",
    )
    group.addoption(
        "--agentsnap-budgets",
        action="store_true",
        default=False,
        dest="agentsnap_budgets",
        help="Show the run's LLM calls, request tokens and cost, and the tests that grew most, in the summary "
        "(shown anyway when [tool.agentsnap.budgets] is set or something grew).",
    )
    for key in _config.SETTING_KEYS:
        parser.addini(f"agentsnap_{key}", f"agentsnap: {key} (see [tool.agentsnap])", default=None)


#: the note shown in the header when --agentsnap-replay and --agentsnap-live are both given
_LIVE_WINS = (
    "agentsnap: --agentsnap-replay and --agentsnap-live were both given: live wins (as in agentsnap 0.5.1); "
    "every test calls the real API."
)


def _resolve_mode(config: pytest.Config) -> str | None:
    """The mode the flags choose. ``--agentsnap-live`` beats ``--agentsnap-replay`` (0.5.1's
    precedence, with a note in the header); ``--agentsnap-record`` with another mode is a usage error."""
    chosen = [(mode, flag) for mode, flag in _MODE_FLAGS if config.getoption(f"agentsnap_{mode}")]
    if [mode for mode, _ in chosen] == ["replay", "live"]:
        config.stash[_NOTE_KEY] = _LIVE_WINS
        chosen = [chosen[1]]
    if len(chosen) > 1:
        raise pytest.UsageError(
            f"agentsnap: {chosen[0][1]} and {chosen[1][1]} cannot be combined; choose one mode per run."
        )
    return chosen[0][0] if chosen else None


_NOTE_KEY = pytest.StashKey[str]()


def pytest_report_header(config: pytest.Config) -> list[str]:
    note = config.stash.get(_NOTE_KEY, None)
    return [note] if note else []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_DESCRIPTION)
    mode = _resolve_mode(config)
    snapshot_dir = config.getoption("agentsnap_snapshot_dir")
    if snapshot_dir is not None and not snapshot_dir.strip():  # (not the rootdir, silently)
        raise pytest.UsageError(
            f"agentsnap: bad value {snapshot_dir!r} for 'snapshot_dir' in the command line "
            f"(--agentsnap-snapshot-dir): {_config.EMPTY_SNAPSHOT_DIR}"
        )
    if snapshot_dir is not None:
        snapshot_dir = str(Path(str(config.rootpath)) / snapshot_dir)
    overrides = {
        "mode": mode,
        "snapshot_dir": snapshot_dir,
        "allow_pending": config.getoption("agentsnap_allow_pending"),
        "force": config.getoption("agentsnap_force"),
        # a mode flag implies instrumentation as every other source of a mode does (config.load)
        "instrument": True if config.getoption("agentsnap_instrument") else None,
    }
    try:
        settings = _config.apply(
            _config.load(config.rootpath, ini=lambda key: config.getini(key), overrides=overrides)
        )
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    runs, replay_run = config.getoption("agentsnap_runs"), config.getoption("agentsnap_replay_run")
    if runs is not None or replay_run is not None:
        from ._pytest.runs import check_options

        check_options(runs, replay_run, settings.mode, settings.instrument)
    if _owns_snapshot_name(config, settings.snapshot_fixture):
        config.pluginmanager.register(SnapshotName(), "agentsnap-snapshot-name")
    state = start_session(config, settings, mode=mode, report=config.getoption("agentsnap_report"))
    state.runs, state.replay_run = runs, replay_run
    if settings.instrument and settings.mode != "replay":  # (replay refuses them: start_session)
        from ._pytest.outside_tests import note

        config.stash[_OUTSIDE] = note()  # a call made outside any test is counted, never lost


#: the recording that counts the calls made outside any test (record and live runs)
_OUTSIDE = pytest.StashKey[Any]()


def _outside_calls(config: pytest.Config) -> int:
    """Stop counting the calls made outside any test: how many (0: not counting, or stopped)."""
    noted = config.stash.get(_OUTSIDE, None)
    if noted is None:
        return 0
    del config.stash[_OUTSIDE]
    from ._pytest.outside_tests import finish

    return finish(noted)


def _replays_from_the_start(early_config: pytest.Config) -> bool:
    """Whether this run's mode is replay, as far as it is known before the first conftest
    is imported: a mode flag decides; without one, the environment, the ini options and
    ``[tool.agentsnap]`` do (what :func:`pytest_configure` will settle on). A config that
    cannot be read is not decided here: :func:`pytest_configure` reports it."""
    namespace = getattr(early_config, "known_args_namespace", None)
    if getattr(namespace, "agentsnap_replay", False):
        return not getattr(namespace, "agentsnap_live", False)
    if getattr(namespace, "agentsnap_record", False) or getattr(namespace, "agentsnap_live", False):
        return False
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pytest_configure's load warns once
            settings = _config.load(early_config.rootpath, ini=lambda key: early_config.getini(key))
    except ValueError:
        return False
    return settings.mode == "replay"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, None, None]:
    """Turn the run's socket guard on, and refuse LLM calls made outside a test (loopback
    included), before the first conftest is imported when the run replays (flag,
    ``AGENTSNAP_MODE``, ini option or ``[tool.agentsnap] mode``); :func:`pytest_configure`
    confirms or lifts both.

    A conftest that reaches the network or makes an LLM call while they are on gets a
    usage error naming the conftest, not pytest's internal traceback: agentsnap's
    :class:`ReplayMissError` (and :class:`NetworkBlockedError`) is a ``BaseException`` (an
    SDK's retry loop must not swallow it), which pytest's conftest import does not wrap.
    """
    if _replays_from_the_start(early_config):
        _guard_run(early_config)
        _refuse_calls_outside_tests(early_config)
    try:
        return (yield)
    except ReplayMissError as exc:  # NetworkBlockedError included
        where = _conftest_of(exc)
        raise pytest.UsageError(
            f"{exc}\n(raised while importing {where}: a conftest runs before any test, "
            "so in a replay run it can neither reach the network nor make an LLM call)"
        ) from None


def _conftest_of(exc: BaseException) -> str:
    """The innermost ``conftest.py`` in ``exc``'s traceback, or a generic phrase."""
    found = "a conftest.py"
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if os.path.basename(filename) == "conftest.py":
            found = filename
        tb = tb.tb_next
    return found


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """A statistics run (``--agentsnap-runs N``, the marker's ``runs``) runs the test N times and
    logs one verdict (:mod:`agentsnap._pytest.runs`); otherwise pytest's own protocol runs it."""
    session = _session(item.config)
    if session is None or session.settings.mode != "live" or not session.settings.instrument:
        return None
    if session.runs in (None, 1) and item.get_closest_marker("agentsnap") is None:
        return None  # nothing asks for more than one run: no import
    from ._pytest.runs import run_protocol

    return run_protocol(item, nextitem, session)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    session = _session(item.config)
    if session is not None and item.nodeid in session.name_clashes:
        pytest.fail(session.name_clashes[item.nodeid], pytrace=False)
    if session is not None and session.settings.instrument:
        session.start_test(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    session = _session(item.config)
    try:
        result = yield
    except (pytest.skip.Exception, pytest.xfail.Exception):
        if session is not None:
            session.drop_deferred(item)
            session.stop_test(item)  # skipped / xfailed: no snapshot, not a failure
        raise
    except BaseException as exc:
        if session is not None:
            miss = session.first_miss(item)
            try:
                session.settle_deferred(item, passed=False)
            finally:
                session.finish_test(item, passed=False)
            if miss is not None and not isinstance(exc, ReplayMissError):
                # the code under test swallowed or replaced the miss: it is the cause, say so
                raise miss.with_traceback(None) from exc
        raise
    if session is not None:
        # a request replay refused as uncapturable, swallowed (an asyncio transport's write
        # error closes the connection): the test fails with it
        refused = session.first_miss(item, refused=True)
        try:
            session.settle_deferred(item, passed=refused is None)
        finally:
            session.finish_test(item, passed=refused is None)
        if refused is not None:
            raise refused.with_traceback(None)
    return result


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    session = _session(item.config)
    if session is not None:
        session.stop_test(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, _CLEAN_ERRORS) and report.failed:
        report.longrepr = _clean_longrepr(call.excinfo, item)
    session = _session(item.config)
    note = session.failure_notes.pop(item.nodeid, None) if session is not None else None
    if note is not None and report.failed:
        _add_failure_note(report, note)
    return report


# -- fixtures -------------------------------------------------------------------


@pytest.fixture
def agent_snapshot(request: pytest.FixtureRequest) -> SnapshotFixture:
    """agentsnap's snapshot fixture (same object as ``snapshot``; use this name next to syrupy)."""
    return _make_fixture(request)


class SnapshotName:
    """The plugin that gives agentsnap's fixture the name ``snapshot`` as well.

    syrupy's fixture has the same name, and which of two plugins' fixtures a test gets
    would otherwise follow the order the entry points load in. So the name is settled
    on purpose (``snapshot_fixture`` in ``[tool.agentsnap]``): this plugin is
    registered in :func:`pytest_configure`, after every entry-point plugin, when the
    setting is ``agentsnap``, or ``auto`` and syrupy is not active (installing agentsnap
    never changes what an existing syrupy test gets). ``agent_snapshot`` is always
    agentsnap's.
    """

    @pytest.fixture
    def snapshot(self, request: pytest.FixtureRequest) -> SnapshotFixture:
        """agentsnap's snapshot fixture: ``snapshot.record_agent(name)`` / ``snapshot.assert_agent(name)``."""
        return _make_fixture(request)


def _owns_snapshot_name(config: pytest.Config, setting: str) -> bool:
    """Whether agentsnap's fixture is also ``snapshot`` (rule in :class:`SnapshotName`)."""
    if setting == "auto":
        return not config.pluginmanager.hasplugin("syrupy")
    return setting == "agentsnap"


# -- collection, summary and xdist ------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    """The run's tests, once every plugin and conftest has selected them. A test a conftest
    drops from ``items`` without saying so (``pytest_deselected``: "skip slow tests unless
    asked") still exists: it counts as collected, so ``agentsnap prune`` never takes its
    golden for an orphan."""
    state = _session(config)
    before = [item.nodeid for item in items] if state is not None else []
    result = yield
    if state is not None:
        here = {item.nodeid for item in items}
        state.collected.update(here)
        # dropped unsaid: collected too (a shard's merge then finds they ran in no shard)
        state.collected.update(n for n in before if n not in here and n not in state.deselected_ids)
        state.find_name_clashes(items)
    return result


def pytest_report_collectionfinish(
    config: pytest.Config, start_path: Path, items: list[pytest.Item]
) -> list[str]:
    """syrupy also has a ``snapshot`` fixture: say once which one the tests get, and how to pick."""
    return syrupy_note(config, items)


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        state = _session(items[0].config)
        if state is not None:
            state.deselected += len(items)
            state.deselected_ids.update(item.nodeid for item in items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _session(session.config)
    if state is None:
        return
    state.finish_last_runs()  # every .last_run written before anything reads them
    # (what the counting recording's observer warns is said with the run's other warnings)
    with warnings.catch_warnings(record=True) as outside_said:
        warnings.simplefilter("always")
        state.counts["_outside_calls"] += _outside_calls(session.config)
    state.note_http_totals()
    state.selected.update(item.nodeid for item in getattr(session, "items", None) or ())
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand everything to the controller
        from ._pytest.xdist import publish

        publish(state, workeroutput)
        _warn_late(session, state, outside_said)
        return
    # what the run record's pass warns (an unreadable golden) is said last: with warnings as
    # errors it must not stop the record, the report and the summary from being written
    with warnings.catch_warnings(record=True) as record_warnings:
        warnings.simplefilter("always")
        if (
            state.settings.snapshot_path.is_dir()
        ):  # else there is nothing to record (and no import to pay)
            if state.shard is not None:
                state.write_shard_record(int(exitstatus))
            else:
                from .storage.orphans import write_run_record

                state.orphans = write_run_record(state, session.config, int(exitstatus))
    if state.budget_rows and state.settings.budgets.get("max_run_cost") is not None:
        from ._pytest.run_budget import over_run_cost

        state.run_cost_failure = over_run_cost(state.budget_rows, state.settings.budgets)
        if state.run_cost_failure and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if state.report is not None:
        settings = state.settings
        state.report.write({"mode": settings.mode, "ci": settings.ci})
    _warn_late(session, state, [*outside_said, *record_warnings])
    try:  # last: the workers' too (merged), in the run's warnings summary
        state.warn_last_run_errors()
    except Warning as error:  # warnings are errors here (-W error): say it, fail the run
        from .storage.last_run_writer import unwritable_groups

        # the warning counts the other files of its own folder; these are the other folders
        more = len(unwritable_groups(state.last_run_errors)) - 1
        state.late_failures.append(
            str(error) + (f" (and {more} more such folders)" if more else "")
        )
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    with warnings.catch_warnings():  # a run that configured and never had a session (--help)
        warnings.simplefilter("ignore")
        _outside_calls(config)
    end_session(config)
    observe = sys.modules.get("agentsnap.capture.observe")  # not imported: nothing was observed
    if observe is not None:
        observe.unpark()  # a replay recording's parked socket observer


def _warn_late(
    session: pytest.Session, state: AgentsnapSession, said: list[warnings.WarningMessage]
) -> None:
    """Warn what was said while the session ended; with warnings as errors (``-W error``) each
    is a late failure of the run instead of an exception out of pytest's hook."""
    for one in said:
        try:
            warnings.warn_explicit(one.message, one.category, one.filename, one.lineno)
        except Warning as error:  # warnings are errors here (-W error): say it, fail the run
            state.late_failures.append(str(error))
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    state = _session(node.config)
    if state is not None:
        from ._pytest.xdist import merge

        merge(state, getattr(node, "workeroutput", None))


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    state = _session(config)
    if state is None or hasattr(config, "workerinput"):
        return
    write_summary(terminalreporter, state)
