"""Collect report entries during a pytest run (``--agentsnap-report=PATH``).

The collector observes every outcome :func:`agentsnap.lifecycle.settle`
reaches (auto-snapshots and the ``snapshot`` fixture's blocks alike) and the
failures the plugin sees without a settle (CI refusals, replay misses, corrupt
files). Under xdist each worker ships its entries to the controller as one
JSON string in ``workeroutput``; the controller merges them and writes the
page. Standard library only, like :mod:`._entries`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ._entries import entry_from_outcome, error_entry, state_of

__all__ = ["ReportCollector"]

# when a name is reported twice, the more serious state wins
_RANK = {"failed": 0, "pending": 1, "new": 2, "recorded": 3, "passed": 4}


class ReportCollector:
    """The entries of one run, by snapshot name, and where the page goes."""

    def __init__(
        self, path: str | os.PathLike[str] | None, *, base: str | os.PathLike[str] | None = None
    ) -> None:
        #: where the page goes; None: no page, the entries are kept for a shard's run record
        self.path: Path | None = None
        if path is not None:
            target = Path(path)
            self.path = target if target.is_absolute() else Path(base or Path.cwd()) / target
        self.entries: dict[str, dict[str, Any]] = {}
        self.written: Path | None = None
        self.error: str | None = None
        self._remove: Callable[[], None] | None = None

    # -- collecting -------------------------------------------------------------------
    def start(self) -> ReportCollector:
        from ..lifecycle import add_observer

        if self._remove is None:
            self._remove = add_observer(self.outcome)
        return self

    def stop(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    def add(self, entry: Mapping[str, Any]) -> None:
        name = str(entry.get("name"))
        old = self.entries.get(name)
        if old is not None and _RANK.get(str(old.get("state")), 9) < _RANK.get(
            str(entry.get("state")), 9
        ):
            return  # keep the failure when the same snapshot is reported again
        self.entries[name] = dict(entry)

    def outcome(self, outcome: Any) -> None:
        """An :class:`~agentsnap.lifecycle.Outcome` from ``settle`` (the observer)."""
        self.add(entry_from_outcome(outcome))

    def failure(self, name: str, message: str, path: Any = None) -> None:
        """A snapshot that failed without reaching ``settle`` (CI refusal, replay miss, corrupt file)."""
        self.add(error_entry(name, message, path=path))

    def count(self, action: str, name: str) -> None:
        """An outcome a fixture block reported (adds a bare row only when ``settle`` did not already)."""
        if name not in self.entries:
            message = (
                "the snapshot block failed before it could be compared (see the test's failure)"
                if state_of(action) == "failed"
                else None
            )
            entry = error_entry(name, message or "", state=state_of(action))
            entry["action"] = action
            entry["error"] = message
            self.add(entry)

    # -- xdist ------------------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(list(self.entries.values()), ensure_ascii=False)

    def merge_json(self, text: str | None) -> None:
        if not text:
            return
        for entry in json.loads(text):
            if isinstance(entry, dict):
                self.add(entry)

    # -- the page ---------------------------------------------------------------------
    def write(self, meta: Mapping[str, Any] | None = None) -> Path | None:
        """Write the page; on failure keep the message in :attr:`error` and return None (also
        when there is no :attr:`path`)."""
        from . import ReportError, write_report

        if self.path is None:
            return None
        try:
            self.written = write_report(self.path, list(self.entries.values()), meta=meta)
        except ReportError as exc:
            self.error = str(exc)
            return None
        return self.written
