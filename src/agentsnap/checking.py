"""The one-line snapshot form: ``agentsnap.check(name, actual)`` and the fixture's ``snapshot(actual)``.

``actual`` is what the test already holds — a provider response, a LangGraph
state, a list of ``{"tool", "args"}`` dicts — turned into tool calls by
:func:`agentsnap.extract.extract_tool_calls`. The snapshot stores those calls
as ``tool_call`` steps (and, under ``--agentsnap-instrument``, the LLM calls
the test made before it, so replay serves them offline) and follows the
snapshot state table (:mod:`agentsnap.lifecycle`):

==========================  ======================================  ===========================
state                       locally                                 in CI
==========================  ======================================  ===========================
snapshot missing            write it pending, warn, return ``None``  fail, write nothing
snapshot pending            warn, return ``None``                    fail (unless allow_pending)
``update`` / record mode    overwrite, approve, return ``None``      same
approved                    compare; fail below ``min_score``       same
==========================  ======================================  ===========================
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .capture import remedies
from .config import Settings
from .config import apply as apply_settings
from .config import load as load_settings
from .exceptions import SnapshotFormatError
from .lifecycle import build_snapshot, settle
from .storage.store import SnapshotStore

if TYPE_CHECKING:
    from .diff import DiffReport

__all__ = ["check"]


def _tool_calls_only() -> dict[str, float]:
    """The one-line form scores the tool calls (the checks marked ``one_line_form``: structural,
    arguments): what the LLM calls stored with them (under --agentsnap-instrument) add is kept
    for replay and shown in the report, but weighs nothing. Read from the check registry."""
    from .diff.checks import registered_checks

    return {
        component: 0.0
        for check in registered_checks()
        if not check.one_line_form
        for component in check.components
    }


def check(
    name: str,
    actual: object,
    *,
    snapshot_dir: str | os.PathLike[str] | None = None,
    store: SnapshotStore | None = None,
    update: bool = False,
    min_score: float = 1.0,
    weights: Mapping[str, float] | None = None,
    strict: bool = False,
    settings: Settings | None = None,
) -> DiffReport | None:
    """Snapshot the tool calls in ``actual`` under ``name``; compare them once the snapshot is approved.

    ``actual``: see :func:`~agentsnap.extract.extract_tool_calls`.
    ``snapshot_dir`` / ``store``: where snapshots live (default: the
    ``snapshot_dir`` setting of ``[tool.agentsnap]``). ``update``: overwrite
    and approve (also when the ``record`` mode is selected, e.g.
    ``AGENTSNAP_RECORD=1`` as ``agentsnap record -- CMD`` sets it).
    ``min_score``: the lowest composite :attr:`DiffReport.score` that passes
    (0..1, default 1.0 = the same calls and arguments; a 1e-9 slack absorbs
    float noise). The score alone decides: lower it to tolerate some drift
    (a changed argument, an extra call), which the report still lists. ``weights``: ``{component: weight}`` for that composite
    (see :data:`agentsnap.diff.report.COMPONENTS`): by default only
    ``structural`` and ``arguments`` count, the others weigh 0 unless given. ``strict``: arguments
    compared by pure equality (``1`` and ``1.0`` differ). ``settings``:
    defaults to :func:`agentsnap.config.load` (CI is read from the
    environment at call time).

    Returns the :class:`~agentsnap.diff.DiffReport` when an approved
    snapshot was compared, else ``None`` (a new pending snapshot, a pending
    one, or an update).

    Raises:
        AgentRegressionError: the calls drifted (a failed check, or the
            composite is below ``min_score``); ``.diff_report`` holds the report.
        SnapshotNotFoundError / SnapshotPendingError: in CI, the snapshot is
            missing / not approved (nothing is written).
        SnapshotFormatError: the snapshot file is unreadable (it is kept).
        ExtractionError: ``actual`` is not a shape agentsnap reads.
    """
    if isinstance(snapshot_dir, str) and not snapshot_dir.strip():  # (Path("") is the cwd)
        raise ValueError(
            f"agentsnap: bad value {snapshot_dir!r} for snapshot_dir of check({name!r}): "
            'expected a folder path, not an empty one ("." is the current folder)'
        )
    settings = apply_settings(settings or load_settings())
    if store is None:
        store = SnapshotStore(
            Path(snapshot_dir) if snapshot_dir is not None else settings.snapshot_path,
            force=settings.force,
        )
    new = tool_call_snapshot(name, actual, min_score=min_score, weights=weights)
    with remedies.checking():  # (outside pytest, a hint names update=True, not a block's mode)
        try:
            return settle_tool_calls(
                new,
                store=store,
                settings=settings,
                mode="record" if update else settings.mode,
                min_score=min_score,
                weights=weights,
                strict=strict,
            )
        except SnapshotFormatError as exc:
            here = remedies.format_error_here(exc, name)
            if here is None:
                raise
            raise here from None


def tool_call_snapshot(
    name: str,
    actual: object,
    *,
    llm_steps: Sequence[dict[str, Any]] = (),
    min_score: float = 1.0,
    weights: Mapping[str, float] | None = None,
) -> Any:
    """The new :class:`~agentsnap.Snapshot` of the tool calls in ``actual`` (options checked first, nothing written).

    Raises ``ValueError`` / ``TypeError`` for a bad name, ``min_score`` or
    ``weights``, and :class:`~agentsnap.extract.ExtractionError` for an
    ``actual`` agentsnap cannot read.
    """
    from .diff._compare import _check_weights
    from .extract import extract_tool_calls

    if not isinstance(name, str) or not name:
        raise ValueError(f"agentsnap: a snapshot name must be a non-empty string, got {name!r}")
    if (
        isinstance(min_score, bool)
        or not isinstance(min_score, (int, float))
        or not 0.0 <= float(min_score) <= 1.0
    ):
        raise ValueError(f"agentsnap: min_score must be a number within [0, 1], got {min_score!r}")
    _check_weights(weights)
    calls = extract_tool_calls(actual)
    steps = [dict(s) for s in llm_steps]
    # ids are left out: providers mint new ones every live run, and the diff never compares them
    steps += [
        {
            "type": "tool_call",
            "name": c["tool"],
            "args": c["args"],
            "result": c.get("result"),
            "id": None,
        }
        for c in calls
    ]
    return build_snapshot(name, steps, source="pytest")


def settle_tool_calls(
    new: Any,
    *,
    store: SnapshotStore,
    settings: Settings,
    mode: str,
    min_score: float,
    weights: Mapping[str, float] | None,
    strict: bool,
    test_passed: bool = True,
    golden: Any = None,
) -> DiffReport | None:
    """The state table for a snapshot made by :func:`tool_call_snapshot`; the report when one was compared."""
    outcome = settle(
        store,
        new,
        settings,
        mode=mode,
        missing="pending",
        test_passed=test_passed,
        golden=golden,
        overrides={
            "min_score": min_score,
            "weights": {**_tool_calls_only(), **(weights or {})},
            "strict": strict,
            "gate": "score",
        },
    )
    return outcome.report if outcome.action == "passed" else None
