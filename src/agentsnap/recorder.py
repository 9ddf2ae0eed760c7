"""``AgentRecorder`` and ``AgentAsserter``: explicit record / assert blocks.

Both capture every LLM call any supported SDK makes inside the block (the
send-level hooks are installed on first use), from any thread — or, given
``adapters=[...]`` (:mod:`agentsnap.adapters`), only the calls of the wrapped
clients, graphs and tools. Usable as sync or async context managers::

    with AgentRecorder("my_agent", model="gpt-4o-mini") as rec:
        rec.input_data = {"query": "hello"}
        rec.output = run_agent(client, "hello")

    with AgentAsserter("my_agent", mode="replay") as a:
        a.output = run_agent(client, "hello")     # served from the snapshot, offline
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .capture.recording import Recording
from .config import Settings
from .config import apply as apply_settings
from .config import load as load_settings
from .exceptions import (
    AdapterNotWrappedError,
    ReplayMissError,
    SnapshotFormatError,
    SnapshotMissingInCIError,
    SnapshotNotFoundError,
)
from .lifecycle import (
    Outcome,
    OutcomeObserver,
    build_snapshot,
    observing,
    open_recording,
    publish,
    refusal,
    settle,
)
from .storage.snapshot import Snapshot
from .storage.store import SnapshotStore

__all__ = ["AgentAsserter", "AgentRecorder"]


#: the mode a pytest run's flag forces (``--agentsnap-replay`` …): set by the plugin for the
#: session, read by a block built without ``mode=`` and without ``settings=`` (0.5.1 code
#: builds ``AgentAsserter`` itself inside its tests)
_FORCED_MODE: str | None = None


def force_mode(mode: str | None) -> None:
    """Make blocks built without ``mode=`` run in ``mode`` (None: back to the settings)."""
    global _FORCED_MODE
    _FORCED_MODE = mode


def _snapshot_name(test_name: str, scenario: str | None) -> str:
    return f"{test_name}__{scenario}" if scenario else test_name


class _Block:
    """Shared plumbing: settings, store, the active recording, sync/async entry."""

    _mode = "live"
    _source = "record"

    def __init__(
        self,
        test_name: str,
        snapshot_dir: str | os.PathLike[str] | None,
        settings: Settings | None,
        scenario: str | None,
        adapters: Iterable[Any] | None = None,
    ) -> None:
        if not isinstance(test_name, str) or not test_name:
            raise ValueError("agentsnap: test_name must be a non-empty string")
        #: the explicit adapters this block is scoped to (empty: record every SDK call)
        self.adapters: list[Any] = list(adapters) if adapters is not None else []
        if self.adapters:
            from .adapters import AdapterScope

            AdapterScope(self.adapters, owner="")  # validate now: a TypeError names the bad entry
        if isinstance(snapshot_dir, str) and not snapshot_dir.strip():  # (Path("") is the cwd)
            raise ValueError(
                f"agentsnap: bad value {snapshot_dir!r} for snapshot_dir of {type(self).__name__}"
                f'({test_name!r}): expected a folder path, not an empty one ("." is the current folder)'
            )
        self.settings = apply_settings(settings or load_settings())
        directory = Path(snapshot_dir) if snapshot_dir is not None else self.settings.snapshot_path
        self.store = SnapshotStore(directory, force=self.settings.force)
        self.test_name = test_name
        self.scenario = scenario
        self.name = _snapshot_name(test_name, scenario)
        self.input_data: Any = None
        self.output: Any = None
        self.outcome: Outcome | None = None
        self._recording: Recording | None = None
        #: an observer of this block's own outcomes (:func:`agentsnap.lifecycle.observing`), besides
        #: the lifecycle's observers: the pytest fixture's blocks are counted in the summary with it
        self.on_outcome: OutcomeObserver | None = None

    # 0.5.1 spelled the asserter's attribute `input`
    @property
    def input(self) -> Any:
        return self.input_data

    @input.setter
    def input(self, value: object) -> None:
        self.input_data = value

    @property
    def path(self) -> Path:
        """The snapshot file this block reads or writes."""
        return self.store.path_for(self.name)

    def record_tool_call(
        self,
        name: str,
        args: object,
        result: object,
        *,
        id: str | None = None,
        error: object = None,
    ) -> None:
        """Report a tool call made inside the block (``error``: what it raised, if it did)."""
        if self._recording is not None:
            self._recording.trace.add_tool_call(name, args, result, id=id, error=error)

    def _begin(self) -> Recording:
        raise NotImplementedError

    def _finish(self, passed: bool) -> None:
        raise NotImplementedError

    def _by_input_name(self) -> str | None:
        """agentsnap 0.5.1's name for this run when it was given an input and no scenario:
        ``<test_name>__<input_sha8(input)>`` (None otherwise)."""
        if self.scenario is not None or self.input_data is None:
            return None
        from .storage.naming import input_sha8

        return f"{self.test_name}__{input_sha8(self.input_data)}"

    def _new_snapshot(self, model: str | None = None) -> Snapshot:
        assert self._recording is not None
        return build_snapshot(
            self.name,
            self._recording.trace.steps(),
            output=self.output,
            input=self.input_data,
            model=model,
            source=self._source,
            output_from_trace=self.output is None,
            traced=True,
        )

    def _here(self, exc: BaseException) -> SnapshotFormatError | None:
        """A refused snapshot file's error as this block says it outside pytest (its fix names
        the block's own switch, not pytest's flags), or None: raise it as it is."""
        from .capture.remedies import format_error_here

        return format_error_here(exc, self.name, recorder=isinstance(self, AgentRecorder))

    def __enter__(self) -> _Block:
        try:
            recording = self._begin()
        except SnapshotFormatError as exc:
            here = self._here(exc)
            if here is None:
                raise
            raise here from None
        if self.adapters:
            from .adapters import AdapterScope

            # read by the send wrappers: requests outside the adapters' scope are refused
            recording.adapter_scope = AdapterScope(
                self.adapters, owner=f"{type(self).__name__}({self.name!r})"
            )
        self._recording = recording.start()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        assert self._recording is not None
        self._recording.stop()
        if exc_type is not None and issubclass(
            exc_type, (SnapshotMissingInCIError, AdapterNotWrappedError)
        ):
            self._failed(exc)
            return
        miss = self._recording.first_miss
        if miss is not None and not isinstance(exc, ReplayMissError):
            # the code under test swallowed or replaced the miss: it is the cause, say so
            self._failed(miss)
            raise miss.with_traceback(None) from exc
        scope = self._recording.adapter_scope
        if scope is not None and scope.violations:
            # an unwrapped client was refused but the error was swallowed or replaced
            # on its way out (a retry loop, a framework's error handling): fail here
            self._failed(scope.violations[0])
            raise AdapterNotWrappedError(scope.violations[0]) from exc
        try:
            with observing(self.on_outcome):  # settle publishes what it reaches, its failures too
                self._finish(exc_type is None)
        except SnapshotFormatError as error:
            here = self._here(error)
            if here is None:
                raise
            raise here from exc  # (the block's own error, if it raised one)
        here = self._here(exc) if isinstance(exc, SnapshotFormatError) else None
        if here is not None:  # (a golden step replay could not serve, raised in the block)
            raise here from None

    def _failed(self, error: object) -> None:
        """Publish the failure of a block that never reached ``settle``."""
        with observing(self.on_outcome):
            publish(Outcome("failed", self.name, self.path, error=str(error)))

    async def __aenter__(self) -> _Block:
        return self.__enter__()

    async def __aexit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.__exit__(exc_type, exc, tb)


class AgentRecorder(_Block):
    """Record a golden snapshot of everything the agent does inside the block.

    ``test_name``: the snapshot name. ``snapshot_dir``: defaults to
    ``snapshot_dir`` from ``[tool.agentsnap]`` (``__agent_snapshots__``).
    ``model``: a label stored in the snapshot (default: the first model the
    trace names). ``scenario``: an optional suffix (``<test_name>__<scenario>``).

    On a clean exit the snapshot is written, approved (recording is explicit
    intent); when the block raises, nothing is written and any existing golden
    stays. Set ``rec.output`` (final answer) and optionally ``rec.input_data``.

    ``adapters``: explicit adapters (:mod:`agentsnap.adapters`) to scope the
    block to — only the traffic of the clients they wrap (and of the graphs a
    listed ``LangGraphAdapter`` runs) and the calls of the listed
    ``ToolAdapter``s are recorded; any other supported-SDK request inside the
    block raises :class:`~agentsnap.exceptions.AdapterNotWrappedError`. Without
    it every supported SDK call is recorded.
    """

    def __init__(
        self,
        test_name: str,
        snapshot_dir: str | os.PathLike[str] | None = None,
        model: str = "unknown",
        scenario: str | None = None,
        *,
        settings: Settings | None = None,
        source: str = "record",
        adapters: Iterable[Any] | None = None,
    ) -> None:
        super().__init__(test_name, snapshot_dir, settings, scenario, adapters)
        self.model = model
        self._source = source

    def _begin(self) -> Recording:
        return Recording("capture")

    def _finish(self, passed: bool) -> None:
        wanted = self._by_input_name()
        if (
            wanted is not None
            and self.store.locate(self.name) is None
            and self.store.locate(wanted) is not None
        ):
            self.name = wanted  # re-recording a 0.5.1 golden named by its input: keep that file
        snap = self._new_snapshot(self.model)
        self.outcome = settle(self.store, snap, self.settings, mode="record", test_passed=passed)


class AgentAsserter(_Block):
    """Run the agent and compare it with its approved snapshot on exit.

    ``mode``: ``"live"`` (the SDK calls the real API; responses are captured
    and compared) or ``"replay"`` (responses are served from the snapshot —
    offline, deterministic; the request each call sends is compared too).
    Thresholds default to the settings (``[tool.agentsnap]``):
    ``semantic_threshold`` (final output, 0..1), ``llm_threshold``
    (intermediate responses), ``structural_tolerance`` (edit distance of the
    tool sequence); ``ignored_fields``: dotted tool-argument paths to skip.
    ``embed_fn``: ``list[str] -> list[vector]`` for the semantic check;
    ``judge``: an :class:`~agentsnap.diff.meaning.judge.LLMJudge` (or any object with
    ``score(golden, new) -> (score, reason)``) that confirms the meaning check's
    failing verdicts (``judge_mode="confirm"``, the default) or scores every
    differing text (``judge_mode="score"``, agentsnap 0.5.1); ``None``/``False``: no judge.
    Keyword-only: ``min_score`` — also fail when the report's composite
    :attr:`~agentsnap.diff.DiffReport.score` is below it (0..1, with a 1e-9
    slack so an exact replay never fails on float noise); ``weights`` —
    ``{component: weight}`` for that composite; ``strict`` — tool arguments
    and requests compared by pure equality (``1`` vs ``1.0`` differ);
    ``strict_facts`` — fail a text check whose numbers, negation words or
    names changed; ``validate_tool_calls`` — ``"auto"`` (live and record runs),
    ``"on"`` or ``"off"``: each tool call the model made against the JSON Schema
    the agent sent for it (the ``tool_schema`` check); ``trajectory`` — how tool
    calls match (``"turns"``, ``"strict"``, ``"unordered"``, ``"subset"``,
    ``"superset"``); ``tool_args`` — which argument differences count (``"exact"``,
    ``"ignore"``, ``"subset"``, ``"superset"``); ``tools`` — per-tool
    ``{"args": mode, "optional": True}``; ``before`` — ``[["search", "answer"]]``:
    ``answer`` only after ``search``; ``budgets`` — limits of the ``budgets``
    check (``{"max_tokens_growth": 0.2, "max_llm_calls": 6}``: docs/concepts.md, "Budgets"),
    added to the settings' ones; ``judge_mode`` — ``"confirm"`` or
    ``"score"`` (see ``judge``); ``embedding_backend`` — ``"auto"``, ``"onnx"``,
    ``"sentence-transformers"`` or ``"lexical"``;
    ``replay_tools`` — in replay, calls of :class:`~agentsnap.adapters.ToolAdapter`
    tools return the golden's recorded results (in order, per tool name)
    instead of running the tool; a recorded error is raised again (as the
    built-in exception class of that name, else ``RuntimeError``), and a call
    with no recording left raises :class:`~agentsnap.ReplayMissError`.
    ``lexical_semantic_threshold`` / ``lexical_llm_threshold`` — the
    thresholds of lexical scores (used when no embedding backend is
    installed). Unset ones come from the settings. ``adapters`` — scope the
    block to these explicit adapters, as for :class:`AgentRecorder`.

    Raises on exit: :class:`~agentsnap.exceptions.SnapshotNotFoundError` when
    there is no snapshot (record one first); :class:`AgentRegressionError`
    (with ``.diff_report``) when the run drifted. A pending (unapproved)
    snapshot is not compared locally and fails in CI.
    """

    _source = "pytest"

    def __init__(
        self,
        test_name: str,
        snapshot_dir: str | os.PathLike[str] | None = None,
        semantic_threshold: float | None = None,
        llm_threshold: float | None = None,
        ignored_fields: Iterable[str] | None = None,
        embed_fn: Callable[[list[str]], Any] | None = None,
        judge: object = None,
        scenario: str | None = None,
        structural_tolerance: int | None = None,
        mode: str | None = None,
        replay_tools: bool = False,
        *,
        settings: Settings | None = None,
        missing: str = "raise",
        min_score: float | None = None,
        weights: Mapping[str, float] | None = None,
        strict: bool | None = None,
        strict_facts: bool | None = None,
        validate_tool_calls: str | None = None,
        trajectory: str | None = None,
        tool_args: str | None = None,
        tools: Mapping[str, Mapping[str, Any]] | None = None,
        before: Iterable[Sequence[str]] | None = None,
        budgets: Mapping[str, float] | None = None,
        judge_mode: str | None = None,
        embedding_backend: str | None = None,
        lexical_semantic_threshold: float | None = None,
        lexical_llm_threshold: float | None = None,
        adapters: Iterable[Any] | None = None,
        **knob_values: Any,
    ) -> None:
        arguments = dict(locals())
        super().__init__(test_name, snapshot_dir, settings, scenario, adapters)
        from .knobs import asserter_option_names, declared_knobs

        if judge is False:
            judge = None
        resolved = mode or (_FORCED_MODE if settings is None else None) or self.settings.mode
        if resolved not in ("live", "replay", "record"):
            raise ValueError(f"agentsnap: mode must be 'live', 'replay' or 'record', not {mode!r}")
        self.mode = resolved
        self.missing = missing
        self.judge = judge
        self.replay_tools = replay_tools
        # the comparison arguments are CompareOptions' ``asserter`` knobs (tests/test_compare_options.py
        # holds the signature to that list); None: the settings' value
        # the knobs checks declare in their own modules (agentsnap.knobs.declare) come as keywords
        declared = {k.name for k in declared_knobs() if k.asserter}
        unknown = sorted(set(knob_values) - declared)
        if unknown:
            raise TypeError(
                f"AgentAsserter() got unexpected keyword argument(s) {', '.join(unknown)}"
            )
        given = {**arguments, **knob_values, "judge": judge}
        self.overrides: dict[str, Any] = {}
        for key in asserter_option_names():
            value = given.get(key)
            if key == "ignored_fields" and value is not None:
                # a single string is one path, not a list of one-character paths
                value = [value] if isinstance(value, str) else list(value)
            elif key in ("weights", "budgets") and value is not None:
                value = dict(value)
            self.overrides[key] = value
        self.golden: Snapshot | None = None
        self.report: Any = None

    def _begin(self) -> Recording:
        self.golden = self.store.load(self.name)  # SnapshotFormatError names the path
        if self.golden is None and self.scenario is None:
            self._pick_input_golden()
        if refusal(self.golden, self.settings, mode=self.mode, missing=self.missing) == "missing":
            raise SnapshotNotFoundError(self.name, self.path)
        recording: Recording = open_recording(
            self.golden, self.settings, mode=self.mode, name=self.name, path=self.path
        )
        if self.replay_tools and self.mode == "replay" and self.golden is not None:
            from collections import deque

            served: dict[str, Any] = {}
            for index, step in enumerate(self.golden.trace):
                if step.get("type") == "tool_call" and isinstance(step.get("name"), str):
                    served.setdefault(step["name"], deque()).append((index, step))
            recording.tool_results = served
        return recording

    def _pick_input_golden(self) -> None:
        """No ``<name>`` snapshot: agentsnap 0.5.1 goldens named by input (``<name>__<hash>``)?

        The input is only set inside the block, so at entry one such golden is
        taken as this run's; with several, live mode picks by the input at exit
        and replay asks for ``scenario=`` (0.5.1's own rule).
        """
        self._input_names = self.store.input_hash_names(self.test_name)
        if len(self._input_names) == 1:
            self.name = self._input_names[0]
            self.golden = self.store.load(self.name)
        elif len(self._input_names) > 1 and self.mode == "replay":
            from .exceptions import ReplayError

            files = ", ".join(str(self.store.path_for(n).name) for n in self._input_names)
            raise ReplayError(
                f"agentsnap: replay of {self.test_name!r}: {self.store.root} holds {len(self._input_names)} agentsnap 0.5.1 goldens "
                f"named by input ({files}) and the input is only known inside the block. Pass scenario=<the 8 hex digits> "
                f"(e.g. AgentAsserter({self.test_name!r}, scenario={self._input_names[0].rsplit('__', 1)[1]!r})), as 0.5.1 required."
            )

    def _settle_input_name(self) -> None:
        """At exit: the input names the golden (0.5.1's ``<name>__<input hash>``) when goldens are named so."""
        wanted = self._by_input_name()
        if wanted is None or wanted == self.name or not getattr(self, "_input_names", None):
            return
        if self.mode == "replay":
            from .exceptions import ReplayError

            raise ReplayError(
                f"agentsnap: replay of {self.test_name!r} served {self.store.path_for(self.name)} (agentsnap 0.5.1, named by "
                f"input) but this run's input names {wanted!r}. Pass scenario={wanted.rsplit('__', 1)[1]!r} to replay that one, "
                "or record it: `pytest --agentsnap-record`."
            )
        self.name = wanted
        self.golden = self.store.load(wanted)

    def _finish(self, passed: bool) -> None:
        self._settle_input_name()
        snap = self._new_snapshot()
        self.outcome = settle(
            self.store,
            snap,
            self.settings,
            mode=self.mode,
            test_passed=passed,
            missing=self.missing,
            golden=self.golden,
            overrides=self.overrides,
        )
        self.report = self.outcome.report
