"""Report entries: one small JSON-ready dict per snapshot a run touched.

This module imports only the standard library, so the pytest plugin can build
entries in every process (xdist workers included) and ship them to the
controller as JSON. An entry holds what the HTML page shows and nothing more:
the traces without their raw HTTP ``exchange`` and request ``messages``, long
strings cut, and the :class:`~agentsnap.diff.DiffReport` as a plain dict.

Entry keys::

    name         the snapshot name
    state        "passed" | "failed" | "pending" | "new" | "recorded"
    action       the lifecycle action behind the state ("updated", "unchanged", …)
    path         the golden snapshot file (str) or None
    error        the error message of a failure that has no diff (CI refusal,
                 replay miss, corrupt file), else None
    report       DiffReport fields as a dict (plus "score"), or None
    preview      True when ``report`` was computed for review only (a pending
                 snapshot is not compared by the test)
    golden, new  slim snapshots ({"name", "approved", "model", "source",
                 "updated_at", "output", "trace", "request_drift", "test_failed"})
                 or None
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "STATES",
    "entry_from_outcome",
    "error_entry",
    "report_dict",
    "slim_snapshot",
    "state_of",
]

#: the states of the summary table, in the order the page lists them
STATES = ("failed", "pending", "new", "recorded", "passed")

_STATE_OF_ACTION = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "failed",  # the test itself failed: nothing was compared or written
    "pending": "pending",
    "created": "new",
    "recorded": "recorded",
    "updated": "recorded",
    "unchanged": "recorded",
}

#: longest string kept in a step (responses, tool results, argument values)
STEP_TEXT_LIMIT = 4000
#: longest final output kept (the page diffs it word by word)
OUTPUT_LIMIT = 20000
_STEP_KEYS = {
    "llm_call": (
        "step",
        "type",
        "model",
        "provider",
        "response",
        "tool_requests",
        "tokens",
        "status",
        "stream",
    ),
    "tool_call": ("step", "type", "name", "args", "result", "id", "is_error", "error"),
    "http": ("step", "type", "provider", "method", "path", "status"),
    "mcp": ("step", "type", "server", "session", "method", "transport"),
    # the frames stay out of the page (they can be large); url, api and close say what it was
    "websocket": ("step", "type", "connection", "url", "api", "status", "close", "request_drift"),
}


def state_of(action: str) -> str:
    """The summary-table state of a lifecycle action (unknown actions show as themselves)."""
    return _STATE_OF_ACTION.get(action, action)


def _cut(value: Any, limit: int) -> Any:
    """``value`` with every string longer than ``limit`` cut, marked with ``… [N more characters]``."""
    if isinstance(value, str):
        if len(value) > limit:
            return value[:limit] + f"… [{len(value) - limit} more characters]"
        return value
    if isinstance(value, Mapping):
        return {str(k): _cut(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cut(v, limit) for v in value]
    return value


def _jsonable(value: Any) -> Any:
    """A deep copy made only of JSON types (anything else becomes its ``repr``)."""
    return json.loads(json.dumps(value, default=repr, ensure_ascii=False))


def _slim_step(step: Mapping[str, Any], index: int) -> dict[str, Any]:
    kind = str(step.get("type") or "")
    keys = _STEP_KEYS.get(kind, ("step", "type", "name"))
    out = {key: step[key] for key in keys if key in step}
    if not isinstance(out.get("step"), int) or isinstance(out.get("step"), bool):
        out["step"] = index
    out["type"] = kind or "step"
    if kind == "websocket" and isinstance(step.get("frames"), list):
        dirs = [f.get("dir") for f in step["frames"] if isinstance(f, Mapping)]
        out["sent"], out["received"] = dirs.count("send"), dirs.count("recv")
    cut: dict[str, Any] = _cut(out, STEP_TEXT_LIMIT)
    return cut


def slim_snapshot(snapshot: Any) -> dict[str, Any] | None:
    """The parts of a snapshot (a :class:`~agentsnap.storage.snapshot.Snapshot` or its dict) the page shows."""
    if snapshot is None:
        return None
    data = snapshot.to_dict() if hasattr(snapshot, "to_dict") else dict(snapshot)
    trace = data.get("trace") or []
    slim: dict[str, Any] = _jsonable(
        {
            "name": data.get("name"),
            "approved": bool(data.get("approved")),
            "model": data.get("model"),
            "source": data.get("source"),
            "updated_at": data.get("updated_at"),
            "output": _cut(data.get("output"), OUTPUT_LIMIT),
            "trace": [_slim_step(s, i) for i, s in enumerate(trace) if isinstance(s, Mapping)],
            # what decides the page's advice (agentsnap.diff.advice.fix_advice)
            "request_drift": any(
                isinstance(s, Mapping) and bool(s.get("request_drift")) for s in trace
            ),
            "test_failed": bool((data.get("comparison") or {}).get("test_failed")),
        }
    )
    return slim


def report_dict(report: Any) -> dict[str, Any] | None:
    """A :class:`~agentsnap.diff.DiffReport` as a JSON-ready dict with its composite ``score``."""
    if report is None:
        return None
    if dataclasses.is_dataclass(report) and not isinstance(report, type):
        data = dataclasses.asdict(report)
    else:
        data = dict(report)
    try:
        data["score"] = float(report.score)
    except Exception:
        data["score"] = None
    out: dict[str, Any] = _jsonable(_cut(data, STEP_TEXT_LIMIT))
    return out


def _brief(report: Any) -> dict[str, Any] | None:
    """Just the score, failed checks and backend of a report (rows without a section)."""
    full = report_dict(report)
    if full is None:
        return None
    return {key: full.get(key) for key in ("score", "failed_checks", "backend")}


def _preview(golden: Any, new: Any) -> Any:
    """A diff of a pending snapshot and this run, for review only (lexical text scores: no model load)."""
    import warnings

    from ..diff import compute_diff

    g = golden.to_dict() if hasattr(golden, "to_dict") else golden
    n = new.to_dict() if hasattr(new, "to_dict") else new
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compute_diff(g, n, name=str(n.get("name") or ""), embedding_backend="lexical")


def entry_from_outcome(outcome: Any) -> dict[str, Any]:
    """The entry of one :class:`~agentsnap.lifecycle.Outcome` (its ``golden``, ``new``, ``report``, ``error``).

    Traces are kept only where the page has a section for the snapshot
    (failed, pending, new); a pending snapshot that has a run to compare with
    gets a preview diff.
    """
    action = str(outcome.action)
    state = state_of(action)
    golden = getattr(outcome, "golden", None)
    new = getattr(outcome, "new", None)
    report = getattr(outcome, "report", None)
    preview = False
    if state == "pending" and report is None and golden is not None and new is not None:
        try:
            report = _preview(golden, new)
            preview = True
        except Exception:
            report = None
    detailed = state in ("failed", "pending", "new")
    if state == "new" and new is None:
        new = golden
    return {
        "name": str(outcome.name),
        "state": state,
        "action": action,
        "path": str(outcome.path) if getattr(outcome, "path", None) is not None else None,
        "error": getattr(outcome, "error", None),
        "report": report_dict(report) if detailed else _brief(report),
        "preview": preview,
        "golden": slim_snapshot(golden) if detailed and state != "new" else None,
        "new": slim_snapshot(new) if detailed else None,
    }


def error_entry(
    name: str, message: str, *, path: Any = None, state: str = "failed"
) -> dict[str, Any]:
    """The entry of a snapshot that failed without a diff (CI refusal, replay miss, corrupt file)."""
    return {
        "name": str(name),
        "state": state,
        "action": "failed",
        "path": str(path) if path is not None else None,
        "error": str(message),
        "report": None,
        "preview": False,
        "golden": None,
        "new": None,
    }
