"""The HTML drift report: one self-contained page per run (or per snapshot).

``pytest --agentsnap-report=PATH`` collects one entry per snapshot the run
touched (see :mod:`agentsnap.html_report._entries`) and writes the page at the end;
``agentsnap diff NAME --html PATH`` writes the page for one snapshot.

Importing this package loads only the standard library: Jinja2 (and the diff
machinery) is imported by :func:`render_html` / :func:`write_report` when a
page is actually written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..exceptions import AgentsnapError
from ..storage.atomic import atomic_write
from ._entries import STATES, entry_from_outcome, error_entry, slim_snapshot, state_of

__all__ = [
    "STATES",
    "ReportError",
    "entry_for_diff",
    "entry_from_outcome",
    "error_entry",
    "render_html",
    "slim_snapshot",
    "state_of",
    "write_report",
]


class ReportError(AgentsnapError, RuntimeError):
    """The HTML report could not be written (Jinja2 missing, or the file cannot be created)."""


def entry_for_diff(
    name: str, golden: Any, new: Any, report: Any, *, path: Any = None
) -> dict[str, Any]:
    """The entry ``agentsnap diff NAME --html`` shows: the golden against its last run."""

    from ..lifecycle import Outcome, OutcomeAction

    approved = bool(getattr(golden, "approved", True))
    # a pending golden: the preview diff is computed the same way as in a test run
    report_for_page = report if approved else None
    passed = report is not None and report.passed
    action: OutcomeAction = "pending" if not approved else ("passed" if passed else "failed")
    outcome = Outcome(
        action=action,
        name=name,
        path=path,
        report=report_for_page,
        golden=golden,
        new=new,
    )
    entry = entry_from_outcome(outcome)
    entry["force_section"] = True
    if entry["state"] == "passed":
        # a single-snapshot page always shows its section, also when nothing changed
        from ._entries import report_dict

        entry["report"] = report_dict(report)
        entry["golden"], entry["new"] = slim_snapshot(golden), slim_snapshot(new)
    return entry


def render_html(
    entries: Iterable[Mapping[str, Any]], *, meta: Mapping[str, Any] | None = None
) -> str:
    """The report page as a string (see :func:`agentsnap.html_report.html.render`)."""
    try:
        from .html import render
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ReportError(
            f"agentsnap: the HTML report needs Jinja2 ({exc}); install it with `pip install jinja2` "
            "(it comes with agentsnap's report dependencies)."
        ) from None
    return render(list(entries), meta=dict(meta or {}))


def write_report(
    path: str | os.PathLike[str],
    entries: Iterable[Mapping[str, Any]],
    *,
    meta: Mapping[str, Any] | None = None,
) -> Path:
    """Render the page and write it to ``path`` (folders created, written atomically). Returns the absolute path.

    Raises:
        ReportError: Jinja2 is not installed, or the file cannot be written.
    """
    target = Path(path).absolute()
    text = render_html(entries, meta=meta)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, text, durable=False)
    except OSError as exc:
        raise ReportError(
            f"agentsnap: cannot write the HTML report to {target}: {exc.strerror or exc}"
        ) from None
    return target
