"""The snapshot state machine: what a finished run does with its snapshot.

=============================  =======================================  =========================================
state                          locally                                  in CI
=============================  =======================================  =========================================
snapshot missing (live)        write a **pending** snapshot, warn        fail, write nothing
snapshot missing (replay)      fail naming path and record command;     same
                               no request sent, nothing written
snapshot pending               warn, don't assert                       fail (``allow_pending`` relaxes this)
mode ``record``                overwrite, mark approved, warn           same
approved                       compare, fail on drift                   same
=============================  =======================================  =========================================

The CI column's refusals (and ``AgentAsserter``'s ``missing="raise"``) are decided in one place,
:func:`refusal`; its callers (:func:`open_recording`, :func:`settle`, ``AgentAsserter`` at entry,
the pytest fixture's ``snapshot(actual)``) only choose what to do about it.

Every outcome travels one way: an :class:`Outcome` handed to
:func:`publish`, which gives it to each observer (:func:`add_observer`, and
:func:`observing` for the outcomes of one piece of code).
:func:`settle` publishes what it reaches, the pytest plugin publishes the
failures it sees without a settle (a CI refusal, a replay miss, a corrupt
file).

A run whose test failed never writes a golden. An unparseable snapshot file
fails loudly (naming the path) and is never overwritten. Every compared or
pending run also writes its trace to ``.last_run/`` for ``agentsnap diff`` and
``agentsnap update``; so does a run whose test failed when it has a golden to
compare with (``comparison["test_failed"]``: ``agentsnap update`` refuses it).
"""

from __future__ import annotations

import shlex
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from . import diff as _diff
from . import knobs as _knobs
from .capture import cassette as _cassette
from .capture import recording as _recording
from .capture.remedies import allow_pending, record_hint, replay_missing_message, under_pytest
from .config import Settings
from .diff.advice import dir_option as _dir_option
from .diff.advice import failed_test_note
from .diff.advice import fix_advice as fix_advice  # (first defined here: still found here)
from .diff.advice import record_command as _record_command
from .exceptions import (
    AgentRegressionError,
    AgentsnapWarning,
    SnapshotFormatError,
    SnapshotNotFoundError,
    SnapshotPendingError,
)
from .spec import frameworks as _frameworks
from .storage import lazy_steps as _steps
from .storage import legacy as _legacy
from .storage.snapshot import Snapshot
from .storage.store import SnapshotStore
from .storage.volatile import behaviour_changes, same_content

if TYPE_CHECKING:
    from .capture.recording import Recording
    from .diff import DiffReport

__all__ = [
    "Outcome",
    "OutcomeAction",
    "OutcomeObserver",
    "Refusal",
    "add_observer",
    "build_snapshot",
    "observing",
    "open_recording",
    "open_sample_replay",
    "publish",
    "refusal",
    "settle",
    "trace_output_and_model",
]

#: what became of a snapshot (:attr:`Outcome.action`)
OutcomeAction = Literal[
    "passed", "failed", "recorded", "updated", "unchanged", "created", "pending", "skipped"
]


@dataclass
class Outcome:
    """What became of one snapshot. ``action`` is one of ``passed``, ``failed``,
    ``recorded`` (a new golden was written), ``updated`` (an existing golden was
    re-recorded with changes), ``unchanged`` (re-record with nothing new),
    ``created`` (a pending snapshot was written), ``pending`` (compare skipped:
    not approved), ``skipped`` (test failed; nothing written).

    ``path``: the snapshot file (None when the failure has none to name).
    ``report``: the :class:`~agentsnap.diff.DiffReport` when one was compared.
    """

    action: OutcomeAction
    name: str
    path: Path | None
    report: DiffReport | None = None
    #: the golden the run was settled against (None when there was none) and the run itself
    #: (its steps share repeated parts: read-only, see :class:`~agentsnap.storage.snapshot.Snapshot`)
    golden: Snapshot | None = None
    new: Snapshot | None = None
    #: the message of a failure that has no diff (a missing or pending snapshot in CI, a
    #: replay miss, an unreadable file)
    error: str | None = None
    #: ``updated``: what the re-recording changed (:func:`agentsnap.storage.volatile.behaviour_changes`);
    #: empty when only the review state did (a pending snapshot approved as it was)
    changes: tuple[str, ...] = ()
    #: the run's steps as its comparison read them, when it made them from a large golden's texts
    #: (a run proven its golden's: :func:`compare_run`); the budget row measures the same list
    run_steps: list[dict[str, Any]] | None = None


#: a callable given outcomes (:func:`add_observer`, :func:`observing`)
OutcomeObserver = Callable[[Outcome], None]

#: callables given every Outcome published (see :func:`add_observer`)
_OBSERVERS: list[OutcomeObserver] = []
#: callables given the outcomes published in this context only (see :func:`observing`)
_SCOPED: ContextVar[tuple[OutcomeObserver, ...]] = ContextVar(
    "agentsnap_outcome_observers", default=()
)


def add_observer(callback: OutcomeObserver) -> Callable[[], None]:
    """Call ``callback(outcome)`` for every outcome published from now on (:func:`publish`).

    That is every outcome :func:`settle` reaches — also the failures it
    raises: an ``Outcome("failed", …)`` with the report (drift) or ``error``
    (CI refusal) is passed before the exception is raised — and the failures
    that never reach a settle (a block refused in CI, a replay miss, an
    unreadable snapshot file under the pytest plugin). Returns a function that
    removes the observer. ``--agentsnap-report`` collects the HTML report's
    data this way; an observer that raises only warns, it never changes a
    test's result.
    """
    _OBSERVERS.append(callback)

    def remove() -> None:
        if callback in _OBSERVERS:
            _OBSERVERS.remove(callback)

    return remove


@contextmanager
def observing(callback: OutcomeObserver | None) -> Iterator[None]:
    """Within the ``with`` block, also give ``callback`` each outcome published in this context.

    The context is the current thread or asyncio task (a
    :class:`~contextvars.ContextVar`), so a callback sees only the outcomes of
    the code it wraps: the pytest session counts its own blocks' and
    auto-snapshots' outcomes this way, not those of a block a test builds
    itself. ``None``: nothing is added. Raises nothing of its own.
    """
    if callback is None:
        yield
        return
    token = _SCOPED.set((*_SCOPED.get(), callback))
    try:
        yield
    finally:
        _SCOPED.reset(token)


def publish(outcome: Outcome) -> Outcome:
    """Give ``outcome`` to every observer (:func:`add_observer`, then :func:`observing`); return it.

    The one way an outcome travels. An observer that raises only warns
    (:class:`~agentsnap.exceptions.AgentsnapWarning`); nothing is raised.
    """
    for callback in (*_OBSERVERS, *_SCOPED.get()):
        try:
            callback(outcome)
        except Exception as exc:
            warnings.warn(
                AgentsnapWarning(f"agentsnap: outcome observer {callback!r} failed: {exc!r}"),
                stacklevel=2,
            )
    return outcome


def _refused(
    exc: Exception, path: Path, new: Snapshot, golden: Snapshot | None = None
) -> Exception:
    """Tell the observers about a refusal ``settle`` is about to raise; return the exception."""
    publish(Outcome("failed", new.name, path, golden=golden, new=new, error=str(exc)))
    return exc


def build_snapshot(
    name: str,
    steps: list[dict[str, Any]],
    *,
    output: object = None,
    input: object = None,
    model: str | None = None,
    source: str = "pytest",
    output_from_trace: bool = False,
    traced: bool = False,
) -> Snapshot:
    """A new :class:`Snapshot` from a trace's steps (``traced``: the list ``Trace.steps()``
    returned, whose LLM calls' views are agentsnap's own: kept, not copied).

    With ``output_from_trace`` (zero-code mode, where the test's result is not
    visible) the final output is the text of the last ``llm_call``, or the
    answer of the framework final-answer call that ends the trace
    (:func:`agentsnap.spec.frameworks.final_output`). ``model``
    defaults to the first model named in the trace.

    Steps, input and output are stored as :func:`agentsnap.storage.serialize.prepare`
    makes them (any Python value as explicit JSON, secrets scrubbed), so the
    new run compares with its golden exactly as it will be written.
    Raw exchanges captured by this process were scrubbed at capture and are
    not scrubbed again (:class:`agentsnap.storage.wire.StoredExchange`); a trace file
    from elsewhere is.
    """
    from .storage.serialize import prepare_parts

    output, model = trace_output_and_model(steps, output, model, output_from_trace)
    steps, input, output = prepare_parts(steps, input, output, traced=traced)
    return Snapshot(
        name=name,
        trace=steps,
        output=output,
        input=input,
        model=model,
        source=source,
        prepared=True,
    )


def trace_output_and_model(
    steps: list[dict[str, Any]], output: object, model: str | None, output_from_trace: bool
) -> tuple[object, str]:
    """:func:`build_snapshot`'s output and model of a run (see there), before they are prepared."""
    llm = [s for s in steps if s.get("type") == "llm_call"]
    if output_from_trace and output is None and llm:
        final = _frameworks.final_output(
            steps
        )  # a framework's final-answer tool call (smolagents, pydantic-ai)
        output = final if final is not None else llm[-1].get("response")
    if model in (None, "", "unknown"):
        model = next((str(s["model"]) for s in llm if s.get("model")), None) or (model or "unknown")
    return output, str(model)


#: why :func:`refusal` refuses a run (see there)
Refusal = Literal["missing", "ci-missing", "ci-pending"]


def refusal(
    golden: Snapshot | None, settings: Settings, *, mode: str, missing: str = "pending"
) -> Refusal | None:
    """Whether the state table (module doc) refuses a run against ``golden`` before comparing it, and why.

    * ``"missing"``: no snapshot and ``missing="raise"`` (the direct
      ``AgentAsserter`` contract: :class:`SnapshotNotFoundError`).
    * ``"ci-missing"``: no snapshot, in CI, without ``allow_pending``
      (row "snapshot missing (live)", column "in CI": fail, write nothing).
    * ``"ci-pending"``: the snapshot is not approved, in CI, without
      ``allow_pending`` (row "snapshot pending", column "in CI").

    None otherwise: record mode never refuses; locally a missing snapshot
    becomes pending and a pending one warns. A missing snapshot under replay
    is refused by replay itself, in CI and locally alike (row "snapshot
    missing (replay)"): callers check ``mode == "replay"`` before the CI
    reasons where it matters. Raises nothing.
    """
    if mode == "record":
        return None
    if golden is None and missing == "raise":
        return "missing"
    if not settings.ci or settings.allow_pending:
        return None
    if golden is None:
        return "ci-missing"
    return None if golden.approved else "ci-pending"


def open_recording(
    golden: Snapshot | None, settings: Settings, *, mode: str, name: str, path: Path
) -> Recording:
    """The capture scope a run starts with, given its golden (or None).

    ``record`` and ``live`` send for real; ``replay`` serves the golden's
    recordings (pending or approved); a missing snapshot in replay gives a blocked
    scope naming the record command, in CI and locally alike, whatever
    ``allow_pending`` says. In CI, a missing or pending snapshot
    (unless ``allow_pending``: :func:`refusal`) gives a blocked scope: the first
    LLM call raises before any socket opens, and nothing is written. Locally (live
    mode) a missing snapshot is captured live and becomes a pending snapshot.
    """
    if mode == "record":
        return _recording.Recording("capture")
    if (
        mode == "replay" and golden is None
    ):  # replay is offline, always (CI or not, allow_pending or not)
        return _recording.Recording("replay", block=replay_missing_message(name, path))
    if refusal(golden, settings, mode=mode) is not None:
        state = "no snapshot" if golden is None else "the snapshot is pending approval"
        remedy = (
            f"Record it locally with {record_hint(name, '`pytest --agentsnap-record`')}, review, commit."
            if golden is None
            else f"Review it locally and run {_fix_hint(name, path)}, then commit."
        )
        return _recording.Recording(
            "replay",
            block=f"agentsnap: {state} for {name!r} ({path}) and this is CI: no request is sent and nothing is written. {remedy} "
            f"({allow_pending()} relaxes this.)",
        )
    if mode == "replay" and golden is not None:
        legacy = _legacy.is_legacy_version(golden.version)
        raw = None if legacy else _steps.raw_steps(golden)  # a large golden's steps as text
        cassette = _cassette.Cassette(
            golden.trace if raw is None else raw,
            name=name,
            path=path,
            strict=settings.replay_strict,
            legacy=legacy,
        )
        if raw is None and not legacy and golden.trace_digest is not None:
            # the golden's digest checked once, here: its responses' texts are then served
            # without a parse each, and the test's end reads the answer (golden_run.golden_again)
            cassette.prove(golden.trace, golden.trace_digest)
        return _recording.Recording("replay", cassette=cassette)
    return _recording.Recording("capture")


def open_sample_replay(
    golden: Snapshot | None, settings: Settings, store: SnapshotStore, *, name: str, run: int
) -> Recording:
    """The capture scope of a test replaying kept live sample ``run`` of snapshot ``name``
    (``--agentsnap-replay-run``): a cassette of the sample's trace, offline as every replay; the
    run is then compared with the approved ``golden`` as the live sample was (``mode="live"``).
    Without an approved golden, or without that sample, a blocked scope whose first LLM call
    fails saying what is missing (nothing is sent)."""
    if golden is None or not golden.approved:
        state = "no golden" if golden is None else "a golden pending approval"
        return _recording.Recording(
            "replay",
            block=f"agentsnap: --agentsnap-replay-run {run} compares kept live sample {run} of {name!r} with the "
            f"approved golden, and there is {state} ({store.path_for(name)}). Nothing is sent.",
        )
    try:
        sample = store.load_sample(name, run)
    except SnapshotFormatError as exc:
        return _recording.Recording("replay", block=str(exc))
    if sample is None:
        kept = ", ".join(str(k) for k in store.sample_runs(name)) or "none"
        return _recording.Recording(
            "replay",
            block=f"agentsnap: no kept live sample {run} of {name!r} (looked for {store.sample_path(name, run)}; "
            f"kept: {kept}). Failing samples are kept by `pytest --agentsnap-live --agentsnap-runs N` (a test "
            "that passed keeps none). Nothing is sent.",
        )
    path = store.sample_path(name, run)
    return _recording.Recording(
        "replay",
        cassette=_cassette.Cassette(
            sample.trace, name=name, path=path, strict=settings.replay_strict
        ),
    )


def _rerecord(name: str) -> str:
    """What re-records ``name``: ``pytest NODE --agentsnap-record``, or outside pytest the block's switch."""
    return record_hint(name, f"`{_record_command(name)}`")


def _fix_hint(name: str, path: Path) -> str:
    return f"`agentsnap approve{_dir_option(path.parent)} {shlex.quote(name)}`"


def settle(
    store: SnapshotStore,
    new: Snapshot,
    settings: Settings,
    *,
    mode: str,
    test_passed: bool = True,
    missing: str = "pending",
    golden: Snapshot | None = None,
    overrides: dict[str, Any] | None = None,
    quiet_record: bool = False,
) -> Outcome:
    """Apply the state machine (module doc) to the finished run ``new``.

    ``quiet_record``: no per-snapshot warning when recording (the pytest
    summary reports them together). ``mode``: ``live``, ``replay`` or ``record``. ``missing``: ``"pending"``
    (pytest paths) or ``"raise"`` (the direct ``AgentAsserter`` contract:
    :class:`SnapshotNotFoundError`). ``golden``: the snapshot already loaded
    at the start of the run, if any (else it is loaded here). ``overrides``:
    per-test thresholds and ``ignored_fields``.

    Raises :class:`AgentRegressionError` on drift, :class:`SnapshotNotFoundError`
    / :class:`SnapshotPendingError` for a missing / pending snapshot in CI, and
    :class:`~agentsnap.exceptions.SnapshotFormatError` for a corrupt file.
    """
    name = new.name
    path = store.path_for(name)
    if not test_passed:
        return publish(_failed_test(store, new, mode=mode, golden=golden, path=path))
    if golden is None:
        golden = store.load(name)  # raises SnapshotFormatError on a corrupt file

    if mode == "record":
        new.approved = True
        store.save(new)
        _warn_invalid_calls(new, path, settings)
        same = golden is not None and _same(golden, new)
        if golden is not None and golden.approved and same:
            return publish(Outcome("unchanged", name, path, golden=golden, new=new))
        changes = tuple(behaviour_changes(golden, new)) if golden is not None and not same else ()
        if not quiet_record:
            what = f": {'; '.join(changes)}" if changes else ""
            warnings.warn(
                AgentsnapWarning(
                    f"agentsnap: recorded golden {name!r} -> {path} (approved){what}. Review the diff before committing."
                ),
                stacklevel=3,
            )
        action: OutcomeAction = "updated" if golden is not None else "recorded"
        return publish(Outcome(action, name, path, golden=golden, new=new, changes=changes))

    refused = refusal(golden, settings, mode=mode, missing=missing)
    if golden is None:
        if refused == "missing":
            raise _refused(SnapshotNotFoundError(name, path), path, new)
        if mode == "replay":
            raise _refused(
                SnapshotNotFoundError(name, path, replay_missing_message(name, path)), path, new
            )
        if refused == "ci-missing":
            raise _refused(
                SnapshotNotFoundError(
                    name,
                    path,
                    (
                        f"agentsnap: no snapshot for {name!r} ({path}) and this is CI: nothing is written. Record it locally "
                        f"({record_hint(name, '`pytest --agentsnap-record`')}, or run the test outside CI to write it pending), "
                        f"review and approve it (`agentsnap approve`), then commit. ({allow_pending()} relaxes this.)"
                    ),
                ),
                path,
                new,
            )
        new.approved = False
        store.save(new)
        warnings.warn(
            AgentsnapWarning(
                f"agentsnap: new snapshot {name!r} written to {path} as pending; review it, then run {_fix_hint(name, path)} (nothing was asserted)."
            ),
            stacklevel=3,
        )
        return publish(Outcome("created", name, path, new=new))

    if not golden.approved:
        new.comparison = {"mode": mode, "request_drift": _drifted(new)}
        store.save_last_run(new, golden_file=path.name)  # the golden's file, located above
        if refused == "ci-pending":
            raise _refused(
                SnapshotPendingError(
                    f"agentsnap: snapshot {name!r} ({path}) is pending approval; CI only compares against approved snapshots. "
                    f"Review it locally and run {_fix_hint(name, path)}, then commit "
                    f"(or {'pass' if under_pytest() else 'set'} {allow_pending()})."
                ),
                path,
                new,
                golden,
            )
        warnings.warn(
            AgentsnapWarning(
                f"agentsnap: snapshot {name!r} is pending approval; not compared. Run {_fix_hint(name, path)} once reviewed."
            ),
            stacklevel=3,
        )
        return publish(Outcome("pending", name, path, golden=golden, new=new))

    report, run_steps = compare_run(golden, new, settings, mode=mode, overrides=overrides)
    new.comparison = {
        "semantic_backend": report.semantic_backend,
        "semantic_scores": report.semantic_scores,
        "score": report.score,
        "failed_checks": report.failed_checks,
        # how it was run: `agentsnap diff` judges the .last_run the same way (replay compares requests), and
        # `agentsnap update` refuses a replayed run whose requests drifted (its responses are old recordings)
        "mode": mode,
        "request_drift": _drifted(new),
    }
    chosen = {k: (overrides or {}).get(k) for k in _REPLAYED_OPTIONS}
    if any(v is not None for v in chosen.values()):
        # how this run was judged (the one-line form's score gate, a block's min_score):
        # `agentsnap diff` judges the .last_run the same way
        new.comparison["options"] = {k: v for k, v in chosen.items() if v is not None}
    # (the golden's file, located above; a passed run's file may be held until the session's
    # end, a failed one's is written now: `agentsnap update` needs it even if the run is killed)
    store.save_last_run(new, golden_file=path.name, later=report.passed)
    if report.passed:
        return publish(
            Outcome("passed", name, path, report, golden=golden, new=new, run_steps=run_steps)
        )
    text = report.render(color=False)
    if mode == "replay" and _drifted(new):
        text += (
            f"\n\nGolden: {path}\nThe requests changed, so the responses this run got are the old recordings, "
            f"not what the model answers now. If the change is intended, re-record it live: {_rerecord(name)}, "
            "review the diff, commit (`agentsnap update` refuses this run: it would pair the new requests with old responses)."
        )
    else:
        text += (
            f"\n\nGolden: {path}\nIf this change is intended: `agentsnap update{_dir_option(path.parent)} {shlex.quote(name)}` "
            f"(promotes .last_run), or re-record it: {_rerecord(name)}."
        )
    publish(Outcome("failed", name, path, report, golden=golden, new=new, run_steps=run_steps))
    raise AgentRegressionError(text, report)


def _failed_test(
    store: SnapshotStore, new: Snapshot, *, mode: str, golden: Snapshot | None, path: Path
) -> Outcome:
    """The ``skipped`` outcome of a run whose test failed for its own reason (its ``assert``, an error).

    No golden is written. The run is still kept as the latest run of a snapshot
    that has a golden (``.last_run/``, with ``comparison["test_failed"]``), so
    ``agentsnap diff`` and the HTML report show it; ``agentsnap update`` never
    promotes it. When replay served recordings of other requests, the outcome's
    ``error`` says which calls changed and how to see the diff
    (:func:`failed_test_note`): the test's failure then shows it.
    """
    if golden is None:
        try:
            golden = store.load(new.name)
        except SnapshotFormatError:
            golden = None  # the test's own failure is what it reports; the broken file, next time
    kept: Path | None = None
    if golden is not None:
        new.comparison = {"mode": mode, "request_drift": _drifted(new), "test_failed": True}
        kept = store.save_last_run(new)
    note = failed_test_note(new, kept) if mode == "replay" and _drifted(new) else None
    return Outcome("skipped", new.name, path, golden=golden, new=new, error=note)


def _drifted(snap: Snapshot) -> bool:
    """Whether replay served any of the run's calls a recording of a different request (``request_drift``)."""
    if (raw := _steps.raw_steps(snap)) is not None:  # a large golden's steps as text: read there
        return raw.any_true("request_drift")
    return any(step.get("request_drift") for step in snap.trace)


#: the compare options a .last_run keeps (``comparison["options"]``) for ``agentsnap diff``
_REPLAYED_OPTIONS = ("gate", "min_score", "weights", "strict")


def _warn_invalid_calls(new: Snapshot, path: Path, settings: Settings) -> None:
    """A record run compares nothing, yet the calls it writes into a golden are checked against
    the schemas the agent sent (``validate_tool_calls`` not ``off``): an invalid one is warned
    about, since replay would serve it as the golden's forever."""
    if settings.validate_tool_calls == "off":
        return
    from .diff.checks.tool_schema import validate_calls

    checked = validate_calls(new.trace)
    if not checked.passed:
        warnings.warn(
            AgentsnapWarning(
                f"agentsnap: the golden just recorded for {new.name!r} ({path}) holds {checked.summary}: "
                + "; ".join(checked.lines[:5])
                + f". Fix the agent or its tool schemas and re-record ({record_hint(new.name, '`pytest --agentsnap-record`')})."
            ),
            stacklevel=4,
        )


_NO_FIELD: Any = object()  # ``getattr``'s answer for a knob no field of Settings holds (compare)


def compare(
    golden: Snapshot,
    new: Snapshot,
    settings: Settings,
    *,
    mode: str,
    overrides: dict[str, Any] | None = None,
) -> Any:
    """Run the three-layer diff of ``new`` against ``golden`` with the settings' thresholds.

    ``overrides``: per-test ``compute_diff`` options (None values are ignored), e.g. thresholds,
    ``embed_fn``, ``judge``, ``min_score``, ``weights``, ``strict``. The report's
    ``semantic_backend`` says which backend (and model sha256) scored the texts.
    """
    return compare_run(golden, new, settings, mode=mode, overrides=overrides)[0]


def compare_run(
    golden: Snapshot,
    new: Snapshot,
    settings: Settings,
    *,
    mode: str,
    overrides: dict[str, Any] | None = None,
) -> tuple[Any, list[dict[str, Any]] | None]:
    """:func:`compare`'s report, and the run's steps it made from a large golden's texts to read
    them (a run proven its golden's), else None: :attr:`Outcome.run_steps`."""
    # every comparison knob that is a setting (CompareOptions' ``setting`` fields), lists copied
    opts: dict[str, Any] = {}
    declared = settings.declared
    for key in _knobs.setting_option_names():
        # ``settings.knob(key)``, its usual answer read here (a call a knob, ~15 a test)
        value = declared[key] if key in declared else getattr(settings, key, _NO_FIELD)
        if value is _NO_FIELD:
            value = settings.knob(key)
        opts[key] = list(value) if isinstance(value, list) else value
    for key, value in (overrides or {}).items():
        if value is not None:
            # a test's budgets add to the settings' ones (a marker's max_calls_growth keeps the
            # table's max_tokens_growth)
            opts[key] = {**opts[key], **value} if key == "budgets" else value
    # a run proven its large golden's: both sides read from the same texts (raw_steps is None for
    # any snapshot read whole: the common case)
    run: list[dict[str, Any]] | None = None
    if (raw := _steps.raw_steps(new)) is not None and _steps.same_steps(golden, new):
        steps, run = _steps.compared(raw, _own_checks_alone(mode))
        sides = golden.to_dict_with(steps), new.to_dict_with(run)
    elif (
        mode == "replay"
        and _steps.raw_steps(golden) is None
        and _golden_steps(golden.trace, new.trace)
        and _own_checks_alone(mode)
    ):
        # the run's steps hold the golden's values themselves (a run proven its golden's):
        # compared with themselves, as above (the comparison's short answer, diff.run_checks)
        sides = golden.to_dict_with(new.trace), new.to_dict()
    else:
        sides = golden.to_dict(), new.to_dict()
    report = _diff.compute_diff(*sides, compare_requests=(mode == "replay"), name=new.name, **opts)
    return report, run


#: ``agentsnap.diff.checks`` once :func:`_own_checks_alone` imported it (the comparison's modules
#: load on first use)
_checks: Any = None


def _own_checks_alone(mode: str) -> bool:
    """The golden's steps differ from a run proven its golden's by their ``latency_ms`` alone,
    which only the budgets check reads, and only in a live run: a replay with agentsnap's own
    checks alone compares the run's steps with themselves (a registered check may read
    anything: it gets both sides as they are)."""
    if mode != "replay":
        return False
    # (the checks' module, looked up once: an import statement a test's end costs ~8 us cold)
    global _checks
    if _checks is None:
        from .diff import checks as _checks
    checks, own = _checks.registered_checks(), _checks.BUILTIN_CHECKS
    # (the usual registry is the built-in one, as it was made: one compare of the two tuples)
    return checks == own or all(any(check is mine for mine in own) for check in checks)


def _golden_steps(golden: list[dict[str, Any]], run: list[dict[str, Any]]) -> bool:
    """Whether each of the run's steps holds its golden step's values, the same objects, under
    the same keys, but ``latency_ms`` (which a replayed step never has): the golden's bytes."""
    if len(golden) != len(run):
        return False
    for g, n in zip(golden, run, strict=True):
        if type(g) is not dict or type(n) is not dict or "latency_ms" in n:
            return False
        if len(n) != len(g) - ("latency_ms" in g):
            return False
        for key, value in n.items():
            if g.get(key, _NO_FIELD) is not value:
                return False
    return True


def _same(a: Snapshot, b: Snapshot) -> bool:
    # a large golden's steps as text, the run's the same texts: the rest compared without them
    if _steps.same_steps(a, b) and _same_dicts(a.to_dict_with([]), b.to_dict_with([])):
        return True
    return _same_dicts(a.to_dict(), b.to_dict())


def _same_dicts(da: dict[str, Any], db: dict[str, Any]) -> bool:
    return same_content({**da, "approved": db["approved"]}, db)
