"""The pytest plugin: flags, auto-snapshots, the ``snapshot`` fixture, the summary.

Loaded through the ``pytest11`` entry point. Importing it loads only the
standard library and agentsnap's own light modules: no provider SDK, no httpx,
no wrapt until instrumentation is switched on.

Flags::

    --agentsnap-instrument   auto-snapshot every test that calls an LLM (no code changes)
    --agentsnap-replay       serve recorded responses; offline          } at most one;
    --agentsnap-record       call the real API, overwrite goldens        } each implies
    --agentsnap-live         call the real API, compare with goldens     } --agentsnap-instrument
    --agentsnap-allow-pending   in CI, missing/pending snapshots warn instead of failing
    --agentsnap-snapshot-dir PATH   snapshot folder (relative to the rootdir)
    --agentsnap-force        an unreadable snapshot file counts as missing and is overwritten

Environment: ``AGENTSNAP_MODE=replay|record|live`` and ``AGENTSNAP_RECORD=1``
set the mode (for subprocesses, e.g. ``agentsnap record``); ``CI`` switches on
CI rules (see :mod:`agentsnap.config`).
"""

from __future__ import annotations

import functools
import os
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from . import config as _config
from .exceptions import (
    AgentRegressionError,
    ReplayMissError,
    SnapshotFormatError,
    SnapshotNotFoundError,
    SnapshotPendingError,
)

_MODE_FLAGS = (
    ("record", "--agentsnap-record"),
    ("replay", "--agentsnap-replay"),
    ("live", "--agentsnap-live"),
)
_DUMMY_KEY = "agentsnap-replay-dummy-key"
_CLEAN_ERRORS = (
    AgentRegressionError,
    ReplayMissError,
    SnapshotFormatError,
    SnapshotNotFoundError,
    SnapshotPendingError,
)


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
    for key in _config.SETTING_KEYS:
        parser.addini(f"agentsnap_{key}", f"agentsnap: {key} (see [tool.agentsnap])", default=None)


class AgentsnapSession:
    """Per-run state: settings, the store, the per-test recordings, the counts."""

    #: the HTML report's collector (agentsnap.report._collect.ReportCollector) with --agentsnap-report, else None
    report: Any = None

    def __init__(self, config: pytest.Config, settings: _config.Settings) -> None:
        self.config = config
        self.settings = settings
        self.counts: Counter[str] = Counter()
        self._active: dict[str, Any] = {}
        #: snapshot names this run touched, collected node ids, deselected count (orphan detection)
        self.used: set[str] = set()
        self.collected: set[str] = set()
        self.deselected = 0
        self.orphans: list[str] = []
        #: node ids of tests that used the snapshot fixture's blocks (no auto-snapshot for them)
        self.claimed: set[str] = set()
        #: node id -> snapshots of ``snapshot(actual)`` written when the test ends (new or re-recorded)
        self._deferred: dict[str, list[tuple[Any, dict[str, Any], bool, Any]]] = {}
        #: snapshot name -> the node id of the test that uses it (one test per name)
        self.owners: dict[str, str] = {}
        #: node id -> why it fails at setup (its @pytest.mark.agentsnap(name=...) is another test's too)
        self.name_clashes: dict[str, str] = {}

    def claim(self, name: str, node_id: str) -> None:
        """Note that test ``node_id`` uses snapshot ``name``; fail it when another test of this
        run uses the same name (two tests sharing one golden would overwrite each other)."""
        owner = self.owners.setdefault(name, node_id)
        if owner != node_id:
            pytest.fail(_clash_message(name, [owner, node_id]), pytrace=False)

    def find_name_clashes(self, items: list[pytest.Item]) -> None:
        """Before any test runs: every test whose explicit snapshot name (marker) another test
        also has fails, naming them all (checked on collection, so xdist workers agree)."""
        users: dict[str, list[str]] = {}
        for item in items:
            marker = item.get_closest_marker("agentsnap")
            name = marker.kwargs.get("name") if marker is not None else None
            users.setdefault(name if isinstance(name, str) and name else item.nodeid, []).append(
                item.nodeid
            )
        for name, nodes in users.items():
            if len(set(nodes)) > 1:
                for node in nodes:
                    self.name_clashes[node] = _clash_message(name, nodes)
            else:
                self.owners[name] = nodes[0]

    @functools.cached_property
    def store(self) -> Any:
        """The run's :class:`~agentsnap.SnapshotStore` (built on first use: a run that snapshots nothing never loads it)."""
        from .snapshot import SnapshotStore

        return SnapshotStore(self.settings.snapshot_path, force=self.settings.force)

    # -- auto-snapshots ------------------------------------------------------
    def start_test(self, item: pytest.Item) -> None:
        from .lifecycle import open_recording

        name, _ = marker_options(item)
        try:
            golden = self.store.load(name)
        except SnapshotFormatError as exc:
            from .capture import Recording

            rec = (
                Recording("replay", block=str(exc))
                if self.settings.mode == "replay"
                else Recording("capture")
            )
            rec.load_error = exc  # type: ignore[attr-defined]
            self._active[item.nodeid] = (rec.start(), None)
            return
        served = (
            self._with_later_snapshots(name, golden)
            if golden is not None and self.settings.mode == "replay"
            else golden
        )
        rec = open_recording(
            served,
            self.settings,
            mode=self.settings.mode,
            name=name,
            path=self.store.path_for(name),
        )
        self._active[item.nodeid] = (rec.start(), golden)

    def _with_later_snapshots(self, name: str, golden: Any) -> Any:
        """The golden whose recordings replay serves: with those of ``name-2``, ``name-3`` … appended.

        A test that calls the ``snapshot(actual)`` form more than once stores
        each part's LLM calls in its own snapshot; replay serves them all, in order.
        """
        import dataclasses

        trace = list(golden.trace)
        index = 2
        while True:
            try:
                later = self.store.load(f"{name}-{index}")
            except SnapshotFormatError:
                break  # the block that owns it reports the broken file
            if later is None:
                break
            trace += later.trace
            index += 1
        return golden if index == 2 else dataclasses.replace(golden, trace=trace)

    def defer(self, node_id: str, entry: tuple[Any, dict[str, Any], bool, Any]) -> None:
        self._deferred.setdefault(node_id, []).append(entry)

    def drop_deferred(self, item: pytest.Item) -> None:
        self._deferred.pop(item.nodeid, None)

    def settle_deferred(self, item: pytest.Item, passed: bool) -> None:
        """Write the test's new or re-recorded ``snapshot(actual)`` snapshots (a failed test writes none).

        LLM calls the test made after its last unnamed snapshot join that one, so
        replay can serve them too.
        """
        entries = self._deferred.pop(item.nodeid, [])
        if not entries:
            return
        from .checking import settle_tool_calls
        from .lifecycle import build_snapshot

        last = next((i for i in range(len(entries) - 1, -1, -1) if entries[i][2]), None)
        if last is not None and passed:
            new, options, unnamed, fixture = entries[last]
            trailing = fixture._llm_steps()
            if trailing:
                new = build_snapshot(
                    new.name, list(new.trace) + trailing, source="pytest", captured=True
                )
                entries[last] = (new, options, unnamed, fixture)
        for new, options, _, _ in entries:
            settle_tool_calls(new, test_passed=passed, **options)

    def first_miss(self, item: pytest.Item) -> BaseException | None:
        """The first replay miss of ``item``'s auto-recording (None when every call was served)."""
        entry = self._active.get(item.nodeid)
        return entry[0].first_miss if entry is not None else None

    def stop_test(self, item: pytest.Item) -> tuple[Any, Any] | None:
        entry = self._active.pop(item.nodeid, None)
        if entry is not None:
            entry[0].stop()
        return entry

    def finish_test(self, item: pytest.Item, passed: bool) -> None:
        entry = self.stop_test(item)
        if entry is None:
            return
        from .lifecycle import build_snapshot, settle

        recording, golden = entry
        name, overrides = marker_options(item)
        load_error = getattr(recording, "load_error", None)
        if load_error is not None:
            self.counts["failed"] += 1
            if self.report is not None:
                self.report.failure(item.nodeid, str(load_error))
            raise load_error
        if recording.blocked_calls or recording.misses:
            self.counts["failed"] += 1
            if self.report is not None:
                why = (
                    recording.block
                    if recording.blocked_calls
                    else (
                        f"replay: {recording.misses} LLM call(s) had no recording; the test's failure shows the request and the nearest recording"
                    )
                )
                self.report.failure(name, str(why), self.store.path_for(name))
            return  # CI refused the calls, or replay had no recording: the test failed with that error, nothing is written
        if item.nodeid in self.claimed:
            return  # the test snapshots explicitly with the `snapshot` fixture: its blocks own the snapshots
        if not recording.trace.exchanges:
            return  # no LLM traffic: nothing to snapshot
        self.used.add(name)
        snap = build_snapshot(
            name, recording.trace.steps(), source="pytest", output_from_trace=True, captured=True
        )
        try:
            outcome = settle(
                self.store,
                snap,
                self.settings,
                mode=self.settings.mode,
                test_passed=passed,
                golden=golden,
                quiet_record=True,
                overrides=overrides,
            )
        except (
            AgentRegressionError,
            SnapshotNotFoundError,
            SnapshotPendingError,
            SnapshotFormatError,
        ):
            self.counts["failed"] += 1
            raise
        self.counts[outcome.action] += 1

    # -- explicit blocks (the fixture) report here too ------------------------
    def count(self, action: str, name: str | None = None) -> None:
        self.counts[action] += 1
        if name is not None:
            self.used.add(name)
            if self.report is not None:
                self.report.count(action, name)

    def judge(self) -> Any:
        """The session's LLM judge (resolved once), or None when no judge API key resolves.

        Key order: ``AGENTSNAP_JUDGE_API_KEY``, then the provider key matching
        ``judge_base_url`` (:data:`agentsnap.config.PROVIDER_KEY_MAP`); the
        placeholder keys replay mode sets count as unset.
        """
        if not hasattr(self, "_judge"):
            from .judge import LLMJudge

            self._judge = LLMJudge.from_env(self.settings, ignore=(_DUMMY_KEY,))
        return self._judge


def _clash_message(name: str, nodes: list[str]) -> str:
    listed = " and ".join(dict.fromkeys(nodes))
    return (
        f"agentsnap: snapshot name {name!r} is used by more than one test ({listed}); they would overwrite each "
        "other's golden. Give each test its own name: @pytest.mark.agentsnap(name=...) / the block's name."
    )


_SESSION_KEY = pytest.StashKey[AgentsnapSession]()

#: what ``@pytest.mark.agentsnap(...)`` accepts besides ``name``: per-test comparison settings
#: (the knobs of agentsnap.diff.options.CompareOptions marked ``marker``, in field order)
MARKER_OPTIONS: tuple[str, ...] = __import__(
    "agentsnap.diff.options", fromlist=["marker_option_names"]
).marker_option_names()


def marker_options(item: pytest.Item) -> tuple[str, dict[str, Any]]:
    """``(snapshot name, comparison overrides)`` of a test from its ``@pytest.mark.agentsnap(...)``.

    ``name`` replaces the node id as the snapshot name; the other keywords
    (:data:`MARKER_OPTIONS`) override ``[tool.agentsnap]`` for this test's
    comparison. Raises ``pytest.fail`` (the test errors, naming the keyword)
    for anything else.
    """
    marker = item.get_closest_marker("agentsnap")
    if marker is None:
        return item.nodeid, {}
    if marker.args:
        pytest.fail(
            f"agentsnap: @pytest.mark.agentsnap takes keywords only (name=..., {', '.join(MARKER_OPTIONS[:3])}, ...), "
            f"got positional {marker.args!r} on {item.nodeid}",
            pytrace=False,
        )
    options = dict(marker.kwargs)
    name = options.pop("name", None)
    if name is None:
        name = item.nodeid
    elif not isinstance(name, str) or not name:
        pytest.fail(
            f"agentsnap: @pytest.mark.agentsnap(name=...) must be a non-empty string on {item.nodeid}, got {name!r}",
            pytrace=False,
        )
    unknown = sorted(set(options) - set(MARKER_OPTIONS))
    if unknown:
        pytest.fail(
            f"agentsnap: unknown @pytest.mark.agentsnap keyword(s) {', '.join(unknown)} on {item.nodeid}; "
            f"known: name, {', '.join(MARKER_OPTIONS)}",
            pytrace=False,
        )
    if "ignored_fields" in options and isinstance(options["ignored_fields"], str):
        options["ignored_fields"] = [options["ignored_fields"]]  # one path, not its characters
    for key, value in options.items():
        if key in _config.SETTING_KEYS and value is not None:
            try:  # checked now, as [tool.agentsnap] is, rather than when the comparison runs
                options[key] = _config._coerce(
                    key, value, f"@pytest.mark.agentsnap on {item.nodeid}"
                )
            except (TypeError, ValueError) as exc:
                pytest.fail(str(exc), pytrace=False)
    return name, options


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
    config.addinivalue_line(
        "markers",
        "agentsnap(name=None, **settings): this test's snapshot name and comparison settings "
        "(semantic_threshold, llm_threshold, structural_tolerance, ignored_fields, min_score, weights, strict, ...)",
    )
    mode = _resolve_mode(config)
    snapshot_dir = config.getoption("agentsnap_snapshot_dir")
    if snapshot_dir is not None:
        snapshot_dir = str(Path(str(config.rootpath)) / snapshot_dir)
    overrides = {
        "mode": mode,
        "snapshot_dir": snapshot_dir,
        "allow_pending": config.getoption("agentsnap_allow_pending"),
        "force": config.getoption("agentsnap_force"),
        "instrument": True if (mode or config.getoption("agentsnap_instrument")) else None,
    }
    try:
        settings = _config.load(
            config.rootpath, ini=lambda key: config.getini(key), overrides=overrides
        )
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if (
        settings.mode != "live"
        and mode is None
        and (os.environ.get("AGENTSNAP_MODE") or os.environ.get("AGENTSNAP_RECORD"))
    ):
        settings.instrument = True  # an env-selected mode implies instrumentation, like the flags
    session = AgentsnapSession(config, settings)
    config.stash[_SESSION_KEY] = session
    if mode in ("replay", "live"):
        from .recorder import force_mode

        force_mode(mode)  # AgentAsserter blocks the tests build themselves follow the flag too
    if config.getoption("agentsnap_report"):
        from .report._collect import ReportCollector

        session.report = ReportCollector(
            config.getoption("agentsnap_report"), base=config.invocation_params.dir
        ).start()
    if settings.instrument:
        from .capture import install

        install()
    if settings.mode == "replay":
        _set_dummy_api_keys()
        _guard_run(config)
    else:
        _unguard_run(config)  # the flag was seen early, but the settled mode is not replay


_RUN_GUARD = pytest.StashKey[object]()
_RUN_GUARD_REASON = (
    "this run replays (--agentsnap-replay), so it runs offline from collection to the end"
)


def _guard_run(config: pytest.Config) -> None:
    """Replay is offline for the whole run: the socket guard on from the start of the
    run (conftest and test-module imports included) until ``pytest_unconfigure``."""
    if _RUN_GUARD not in config.stash:
        from .capture import guard

        config.stash[_RUN_GUARD] = guard.activate(_RUN_GUARD_REASON)


def _unguard_run(config: pytest.Config) -> None:
    token = config.stash.get(_RUN_GUARD, None)
    if token is not None:
        from .capture import guard

        guard.deactivate(token)
        del config.stash[_RUN_GUARD]


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """Turn the run's socket guard on before the first conftest is imported when replay is asked for
    (flag or ``AGENTSNAP_MODE=replay``); :func:`pytest_configure` confirms or lifts it."""
    namespace = getattr(early_config, "known_args_namespace", None)
    if (
        getattr(namespace, "agentsnap_replay", False)
        or os.environ.get("AGENTSNAP_MODE", "").strip().lower() == "replay"
    ):
        _guard_run(early_config)


def _set_dummy_api_keys() -> None:
    """SDK constructors refuse to build without an API key; replay needs none."""
    from .capture.spec import load_specs

    for spec in load_specs():
        for var in spec.api_key_env:
            if not os.environ.get(var):
                os.environ[var] = _DUMMY_KEY


def _session(config: pytest.Config) -> AgentsnapSession | None:
    return config.stash.get(_SESSION_KEY, None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    session = _session(item.config)
    if session is not None and item.nodeid in session.name_clashes:
        pytest.fail(session.name_clashes[item.nodeid], pytrace=False)
    if session is not None and session.settings.instrument:
        session.start_test(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
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
        try:
            session.settle_deferred(item, passed=True)
        finally:
            session.finish_test(item, passed=True)
    return result


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    session = _session(item.config)
    if session is not None:
        session.stop_test(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report: Any = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, _CLEAN_ERRORS) and report.failed:
        report.longrepr = _clean_longrepr(call.excinfo, item)
    return report


def _clean_longrepr(excinfo: Any, item: pytest.Item) -> str:
    """agentsnap's own errors already say what, where and how to fix: no SDK traceback."""
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


# -- fixtures -------------------------------------------------------------------


class SnapshotFixture:
    """The ``snapshot`` / ``agent_snapshot`` fixture object.

    ``record_agent(name=None, ...)`` and ``assert_agent(name=None, ...)`` return
    an :class:`~agentsnap.AgentRecorder` / :class:`~agentsnap.AgentAsserter`
    bound to this run's settings. ``name`` defaults to the test's node id; a
    second unnamed block in the same test gets ``-2``, then ``-3`` ….
    ``assert_agent`` follows the snapshot state table (a missing snapshot is
    written as pending locally and fails in CI) instead of raising
    ``SnapshotNotFoundError``; under ``--agentsnap-record`` it re-records.
    A test that uses these blocks owns its snapshots: under
    ``--agentsnap-instrument`` it is not auto-snapshotted as well (calls made
    outside its blocks are not recorded).
    """

    def __init__(self, request: pytest.FixtureRequest, session: AgentsnapSession) -> None:
        self._node_id = request.node.nodeid
        #: ``@pytest.mark.agentsnap(name=..., thresholds...)``: the base name, assert_agent's defaults
        self._base, self._defaults = marker_options(request.node)
        self._session = session
        #: where record_agent / assert_agent keep snapshots: snapshot_dir, or — when it is not
        #: configured and the folder exists — agentsnap 0.5.1's __agent_snapshots__ next to the
        #: test's nearest conftest.py (docs/migrating.md)
        self.snapshot_dir = session.settings.snapshot_path
        if not session.settings.snapshot_dir_configured:
            legacy = _config.legacy_snapshot_dir(
                Path(str(request.node.path)), request.config.rootpath
            )
            if legacy is not None:
                self.snapshot_dir = legacy
        self._unnamed = 0
        self._exchanges_taken = 0

    def __call__(
        self,
        actual: Any,
        *,
        min_score: float = 1.0,
        weights: Mapping[str, float] | None = None,
        strict: bool = False,
        name: str | None = None,
    ) -> Any:
        """Snapshot the tool calls in ``actual``; return the ``DiffReport`` once an approved snapshot was compared.

        ``actual``: a provider response object, a LangGraph state or message
        list, or a list of ``{"tool": name, "args": {...}}`` dicts (see
        :func:`agentsnap.extract.extract_tool_calls`). ``name`` defaults to the
        test's node id (``-2``, ``-3`` … for later unnamed snapshots in the
        same test). ``min_score`` (0..1, default 1.0: the same calls and
        arguments), ``weights`` and ``strict``: as for
        :func:`agentsnap.check`. Follows the snapshot state table: ``None``
        for a new, pending or re-recorded snapshot (in CI a missing or
        pending one fails); raises :class:`~agentsnap.AgentRegressionError`
        on drift.

        Under ``--agentsnap-instrument`` an unnamed snapshot also stores the LLM
        calls the test made since its previous one (and the last one those
        made after it), so ``--agentsnap-replay`` serves them offline on the
        next run. A snapshot given a ``name`` holds the tool calls only; the
        test's LLM calls then stay in its own auto-snapshot (the node id).

        A new snapshot, or one re-recorded under ``--agentsnap-record``, is
        written when the test ends, and only if it passed.
        """
        from .checking import settle_tool_calls, tool_call_snapshot

        session, settings = self._session, self._session.settings
        if name is not None:
            if not isinstance(name, str) or not name:
                raise ValueError(
                    f"agentsnap: snapshot(..., name=...) must be a non-empty string, got {name!r}"
                )
            session.claim(name, self._node_id)
            new = tool_call_snapshot(name, actual, min_score=min_score, weights=weights)
            unnamed = False
        else:
            snap_name = self._name(
                None
            )  # the test's snapshots are its own: no auto-snapshot besides
            new = tool_call_snapshot(
                snap_name, actual, llm_steps=self._llm_steps(), min_score=min_score, weights=weights
            )
            unnamed = True
        golden = session.store.load(new.name)  # SnapshotFormatError names the path
        options = {
            "store": session.store,
            "settings": settings,
            "mode": settings.mode,
            "min_score": min_score,
            "weights": weights,
            "strict": strict,
            "on_outcome": session.count,
        }
        refused = (
            settings.ci
            and not settings.allow_pending
            and golden is None
            and settings.mode != "record"
        )
        if (settings.mode == "record" or golden is None) and not refused:
            session.defer(self._node_id, (new, options, unnamed, self))
            return None
        return settle_tool_calls(new, golden=golden, **options)

    def _llm_steps(self) -> list[dict[str, Any]]:
        """The llm_call/http steps of the exchanges this test's auto-recording captured since the last call."""
        entry = self._session._active.get(self._node_id)
        if entry is None:
            return []
        from .trace import Trace

        recording = entry[0]
        exchanges = list(recording.trace.exchanges)
        part = Trace()
        part.exchanges = exchanges[self._exchanges_taken :]
        self._exchanges_taken = len(exchanges)
        return [step for step in part.steps() if step.get("type") != "tool_call"]

    def _name(self, name: str | None) -> str:
        self._session.claimed.add(self._node_id)
        if name:
            self._session.claim(name, self._node_id)
            return name
        self._unnamed += 1
        return self._base if self._unnamed == 1 else f"{self._base}-{self._unnamed}"

    def record_agent(
        self, test_name: str | None = None, model: str = "unknown", scenario: str | None = None
    ) -> Any:
        from .recorder import AgentRecorder

        block = AgentRecorder(
            self._name(test_name),
            self.snapshot_dir,
            model=model,
            scenario=scenario,
            settings=self._session.settings,
            source="pytest",
        )
        block.on_outcome = self._session.count
        return block

    def assert_agent(self, test_name: str | None = None, **kwargs: Any) -> Any:
        from .recorder import AgentAsserter

        for key, value in self._defaults.items():
            kwargs.setdefault(key, value)
        kwargs.setdefault("mode", self._session.settings.mode)
        if "judge" not in kwargs:
            kwargs["judge"] = self._session.judge()  # on when a judge key resolves
        elif kwargs["judge"] is False:
            kwargs["judge"] = None  # force embeddings
        block = AgentAsserter(
            self._name(test_name),
            self.snapshot_dir,
            settings=self._session.settings,
            missing="pending",
            **kwargs,
        )
        block.on_outcome = self._session.count
        return block


def _make_fixture(request: pytest.FixtureRequest) -> SnapshotFixture:
    session = _session(request.config)
    assert session is not None, "agentsnap plugin not configured"
    return SnapshotFixture(request, session)


@pytest.fixture
def agent_snapshot(request: pytest.FixtureRequest) -> SnapshotFixture:
    """agentsnap's snapshot fixture (same object as ``snapshot``; use this name next to syrupy)."""
    return _make_fixture(request)


@pytest.fixture
def snapshot(request: pytest.FixtureRequest) -> SnapshotFixture:
    """agentsnap's snapshot fixture: ``snapshot.record_agent(name)`` / ``snapshot.assert_agent(name)``."""
    return _make_fixture(request)


# -- summary and xdist ------------------------------------------------------------

_ORDER = (
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
    """``agentsnap: 3 passed, 1 failed, 2 new (pending approval)`` — non-zero parts only."""
    parts = [f"{counts[key]} {label}" for key, label in _ORDER if counts.get(key)]
    return "agentsnap: " + ", ".join(parts) if parts else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    state = _session(config)
    if state is not None:
        state.collected.update(item.nodeid for item in items)
        state.find_name_clashes(items)


def pytest_report_collectionfinish(
    config: pytest.Config, start_path: Path, items: list[pytest.Item]
) -> list[str]:
    """syrupy also has a ``snapshot`` fixture: say once which one the tests get, and how to pick."""
    if not config.pluginmanager.hasplugin("syrupy"):
        return []
    users = [item for item in items if "snapshot" in getattr(item, "fixturenames", ())]
    if not users:
        return []  # no test asks for `snapshot`: nothing to say
    owner = _snapshot_fixture_owner(users[0])
    if owner is None:
        return []
    if owner.startswith("agentsnap"):
        return [
            "agentsnap: syrupy is installed too; `snapshot` is agentsnap's fixture here. For syrupy's, add "
            "`from syrupy import snapshot` to your conftest.py and use `agent_snapshot` for agentsnap."
        ]
    return [
        f"agentsnap: syrupy is installed too; `snapshot` is {owner.split('.')[0]}'s fixture here. "
        "agentsnap's fixture is `agent_snapshot` (the same object)."
    ]


def _snapshot_fixture_owner(item: pytest.Item) -> str | None:
    """The module of the ``snapshot`` fixture ``item`` would get (None when pytest does not say)."""
    try:
        defs = item.session._fixturemanager.getfixturedefs("snapshot", item)
    except Exception:
        return None
    if not defs:
        return None
    return getattr(defs[-1].func, "__module__", None)


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        state = _session(items[0].config)
        if state is not None:
            state.deselected += len(items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _session(session.config)
    if state is None:
        return
    observed = sys.modules.get("agentsnap.capture.observe")
    if observed is not None:  # HTTP requests seen while recording (the never-silent summary line)
        seen = observed.totals()
        state.counts["_http_requests"] += seen["requests"]
        state.counts["_uncaptured"] += seen["uncaptured"]
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand everything to the controller
        workeroutput["agentsnap_counts"] = dict(state.counts)
        workeroutput["agentsnap_used"] = sorted(state.used)
        workeroutput["agentsnap_collected"] = sorted(state.collected)
        workeroutput["agentsnap_deselected"] = state.deselected
        if state.report is not None:
            workeroutput["agentsnap_report"] = state.report.to_json()
        return
    from .orphans import write_run_record

    state.orphans = write_run_record(state, session.config, int(exitstatus))
    if state.report is not None:
        settings = state.settings
        state.report.write({"mode": settings.mode, "ci": settings.ci})


def pytest_unconfigure(config: pytest.Config) -> None:
    _unguard_run(config)
    state = _session(config)
    if state is not None:
        from .recorder import force_mode

        force_mode(None)
    if state is not None and state.report is not None:
        state.report.stop()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    state = _session(node.config)
    out = getattr(node, "workeroutput", {}) or {}
    if state is None:
        return
    state.counts.update(out.get("agentsnap_counts") or {})
    state.used.update(out.get("agentsnap_used") or ())
    state.collected.update(out.get("agentsnap_collected") or ())
    state.deselected += int(out.get("agentsnap_deselected") or 0)
    if state.report is not None:
        state.report.merge_json(out.get("agentsnap_report"))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = _session(config)
    if state is None or hasattr(config, "workerinput"):
        return
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
    if state.report is not None and state.report.written is not None:
        terminalreporter.write_line(f"agentsnap: HTML report written to {state.report.written}")
    elif state.report is not None and state.report.error:
        terminalreporter.write_line(state.report.error, red=True)
    written = counts.get("recorded", 0) + counts.get("updated", 0)
    if (
        state.settings.mode == "record"
        and not written
        and not counts.get("unchanged")
        and not counts.get("created")
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
