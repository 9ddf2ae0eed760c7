"""The ``snapshot`` / ``agent_snapshot`` fixture object: :class:`SnapshotFixture`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .. import config as _config
from .markers import marker_options
from .session import AgentsnapSession, DeferredSnapshot, get_session

if TYPE_CHECKING:
    from ..diff import DiffReport
    from ..recorder import AgentAsserter, AgentRecorder

__all__ = ["SnapshotFixture", "make_fixture"]


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
        self._node_id: str = request.node.nodeid
        #: ``@pytest.mark.agentsnap(name=..., thresholds...)``: the base name, assert_agent's defaults
        self._base, self._defaults = marker_options(request.node)
        self._session = session
        #: where record_agent / assert_agent keep snapshots: snapshot_dir, or — when it is not
        #: configured and the folder exists — agentsnap 0.5.1's __agent_snapshots__ next to the
        #: test's nearest conftest.py (docs/migrating.md)
        self.snapshot_dir: Path = session.settings.snapshot_path
        if not session.settings.snapshot_dir_configured:
            legacy = _config.legacy_snapshot_dir(
                Path(str(request.node.path)), request.config.rootpath
            )
            if legacy is not None:
                self.snapshot_dir = legacy
        self._unnamed = 0

    def __call__(
        self,
        actual: object,
        *,
        min_score: float = 1.0,
        weights: Mapping[str, float] | None = None,
        strict: bool = False,
        name: str | None = None,
    ) -> DiffReport | None:
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
        on drift, ``ValueError`` for an empty or non-string ``name``.

        Under ``--agentsnap-instrument`` an unnamed snapshot also stores the LLM
        calls the test made since its previous one (and the last one those
        made after it), so ``--agentsnap-replay`` serves them offline on the
        next run. A snapshot given a ``name`` holds the tool calls only; the
        test's LLM calls then stay in its own auto-snapshot (the node id).

        A new snapshot, or one re-recorded under ``--agentsnap-record``, is
        written when the test ends, and only if it passed.
        """
        from ..checking import tool_call_snapshot
        from ..lifecycle import refusal

        session, settings = self._session, self._session.settings
        if name is not None:
            if not isinstance(name, str) or not name:
                raise ValueError(
                    f"agentsnap: snapshot(..., name=...) must be a non-empty string, got {name!r}"
                )
            session.claim(name, self._node_id)
            new = tool_call_snapshot(name, actual, min_score=min_score, weights=weights)
        else:
            # the test's snapshots are its own: no auto-snapshot besides
            snap_name = self._name(None)
            new = tool_call_snapshot(
                snap_name,
                actual,
                llm_steps=session.take_llm_steps(self._node_id),
                min_score=min_score,
                weights=weights,
            )
        golden = session.store.load(new.name)  # SnapshotFormatError names the path
        entry = DeferredSnapshot(new, min_score, weights, strict, unnamed=name is None)
        if settings.mode == "record" or (
            golden is None and refusal(golden, settings, mode=settings.mode) is None
        ):
            session.defer(self._node_id, entry)  # written when the test ends, if it passes
            return None
        return session.settle_tool_calls(entry, golden=golden)

    def _name(self, name: str | None) -> str:
        self._session.claimed.add(self._node_id)
        if name:
            self._session.claim(name, self._node_id)
            return name
        self._unnamed += 1
        return self._base if self._unnamed == 1 else f"{self._base}-{self._unnamed}"

    def record_agent(
        self, test_name: str | None = None, model: str = "unknown", scenario: str | None = None
    ) -> AgentRecorder:
        """An :class:`~agentsnap.AgentRecorder` block bound to the run (see the class doc)."""
        from ..recorder import AgentRecorder

        block = AgentRecorder(
            self._name(test_name),
            self.snapshot_dir,
            model=model,
            scenario=scenario,
            settings=self._session.settings,
            source="pytest",
        )
        block.store.writer = self._session.last_run_writer  # .last_run failures named at the end
        block.on_outcome = self._session.observer_for(self._node_id)
        return block

    def assert_agent(self, test_name: str | None = None, **kwargs: Any) -> AgentAsserter:
        """An :class:`~agentsnap.AgentAsserter` block bound to the run (see the class doc).

        ``kwargs`` as for ``AgentAsserter``; the marker's settings are the
        defaults, the mode is the run's, and ``judge`` defaults to the
        session's judge (``judge=False``: embeddings only).
        """
        from ..recorder import AgentAsserter

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
        block.store.writer = self._session.last_run_writer  # .last_run failures named at the end
        block.on_outcome = self._session.observer_for(self._node_id)
        return block


def make_fixture(request: pytest.FixtureRequest) -> SnapshotFixture:
    """The fixture object for ``request``'s test (asserts that the plugin was configured)."""
    session = get_session(request.config)
    assert session is not None, "agentsnap plugin not configured"
    return SnapshotFixture(request, session)
