"""Helpers several commands share: the snapshot folder, reading a snapshot file named on
the command line, printing one, the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..exceptions import SnapshotFormatError
from ._catalog import Scan, load_settings, snapshot_dir
from ._errors import CliError
from ._output import Output, age, plural
from ._render import snapshot_lines

CREATE_HINT = "Create them by running your tests with `pytest --agentsnap-instrument` (or `agentsnap record TEST_PATH`)."


def root_dir(option: Path | None, out: Output, code: int = 1) -> Path:
    try:
        return snapshot_dir(option, out.warn)
    except CliError as exc:
        raise CliError(exc.message, code) from None


def warn_broken(out: Output, found: Scan) -> None:
    for reason in found.broken.values():
        out.warn(reason)


def foreign_note(found: Scan) -> str:
    """``; N other JSON files there are not snapshots: a.json, b.json`` (the first three named),
    else "": why the folder's other files are not listed (:attr:`Scan.foreign`)."""
    if not found.foreign:
        return ""
    names = ", ".join(p.name for p in found.foreign[:3]) + (", …" if len(found.foreign) > 3 else "")
    other = plural(len(found.foreign), "other JSON file")
    return f"; {other} there {'is' if len(found.foreign) == 1 else 'are'} not snapshots: {names}"


def is_file_argument(value: str) -> bool:
    return value.endswith(".json") and Path(value).is_file()


def read_file(value: str, code: int) -> Any:
    from ..storage.store import SnapshotStore

    path = Path(value).absolute()
    try:
        snap = SnapshotStore.read_file(path)
    except SnapshotFormatError as exc:
        raise CliError(str(exc), code) from None
    snap.name = snap.name or path.stem
    return snap, path


def print_snapshot(out: Output, snap: Any, path: Path) -> None:
    for text, style in snapshot_lines(snap, path):
        out.line(text, style)


def file_age(path: Path) -> str:
    """:func:`age` of a file's last change (its own, not a link target's); ``?`` when it is gone."""
    from datetime import datetime, timezone

    try:
        changed = path.lstat().st_mtime
    except OSError:
        return "?"
    return age(datetime.fromtimestamp(changed, timezone.utc).isoformat())


def mode_of(last: Any) -> str:
    """The mode a last run ran in (stored since this version; older files: replay when requests drifted)."""
    recorded = last.comparison or {}
    mode = recorded.get("mode")
    if mode in ("live", "replay", "record"):
        return str(mode)
    if "llm_requests" in (recorded.get("failed_checks") or []) or any(
        s.get("request_drift") for s in last.trace
    ):
        return "replay"
    return "live"


def as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)


def settings_or_exit(out: Output, code: int) -> Any:
    try:
        return load_settings(out.warn)
    except CliError as exc:
        raise CliError(exc.message, code) from None
