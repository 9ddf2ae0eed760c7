"""pytest-xdist: each worker publishes its part of the run, the controller merges them.

A worker's :func:`publish` puts one :class:`WorkerPayload` under
``workeroutput["agentsnap"]`` at session finish; the controller's
:func:`merge` adds each finished worker's payload to its own session (counts
summed, names united, the HTML report's entries and the statistics over live runs merged). Only the controller
writes the run record and the report, and prints the summary.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from .session import AgentsnapSession

__all__ = ["KEY", "WorkerPayload", "merge", "publish"]

#: the ``workeroutput`` key the payload travels under
KEY = "agentsnap"


class WorkerPayload(TypedDict):
    """What a worker hands the controller (plain JSON types: execnet carries them)."""

    #: the summary's counts (``AgentsnapSession.counts``)
    counts: dict[str, int]
    #: snapshot names the worker's tests produced, node ids it collected, tests it deselected
    used: list[str]
    collected: list[str]
    deselected: int
    #: node ids the worker ran and deselected (a shard's record)
    selected: list[str]
    deselected_ids: list[str]
    #: the HTML report's entries as JSON (``ReportCollector.to_json``), None without a report
    report: str | None
    #: snapshot file -> what re-recording it changed (``AgentsnapSession.rerecorded``)
    rerecorded: dict[str, list[str]]
    #: node id -> its statistics over live runs (``AgentsnapSession.run_stats``)
    runs: dict[str, dict[str, Any]]
    #: what each snapshot's run used (``AgentsnapSession.budget_rows``): the summary's totals
    #: and movers, and ``max_run_cost``
    budget_rows: list[dict[str, Any]]
    #: the ``.last_run`` files the worker could not write (``AgentsnapSession.last_run_errors``)
    last_run_errors: list[list[str]]


def publish(state: AgentsnapSession, workeroutput: MutableMapping[str, Any]) -> WorkerPayload:
    """Put the worker's payload into ``workeroutput`` (under :data:`KEY`); return it."""
    payload = WorkerPayload(
        counts=dict(state.counts),
        used=sorted(state.used),
        collected=sorted(state.collected),
        deselected=state.deselected,
        selected=sorted(state.selected),
        deselected_ids=sorted(state.deselected_ids),
        report=state.report.to_json() if state.report is not None else None,
        rerecorded=dict(state.rerecorded),
        runs=dict(state.run_stats),
        budget_rows=list(state.budget_rows),
        last_run_errors=list(state.last_run_errors),
    )
    workeroutput[KEY] = payload
    return payload


def merge(state: AgentsnapSession, workeroutput: Mapping[str, Any] | None) -> None:
    """Add a finished worker's payload (from its ``workeroutput``) to the controller's session.

    A worker that published nothing (it crashed, or agentsnap was off there)
    adds nothing. Raises nothing.
    """
    payload: WorkerPayload | None = (workeroutput or {}).get(KEY)
    if not payload:
        return
    state.counts.update(payload.get("counts") or {})
    state.used.update(payload.get("used") or ())
    state.collected.update(payload.get("collected") or ())
    state.deselected += int(payload.get("deselected") or 0)
    state.selected.update(payload.get("selected") or ())
    state.deselected_ids.update(payload.get("deselected_ids") or ())
    state.rerecorded.update(payload.get("rerecorded") or {})
    state.run_stats.update(payload.get("runs") or {})
    state.budget_rows.extend(payload.get("budget_rows") or ())
    state.last_run_errors.extend(payload.get("last_run_errors") or ())
    if state.report is not None:
        state.report.merge_json(payload.get("report"))
