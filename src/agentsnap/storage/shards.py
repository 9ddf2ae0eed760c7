"""Shards' run records: what one shard writes, and how several merge into one full run.

A suite split across CI machines runs as shards (pytest-split's
``--splits N --group G``, or ``--agentsnap-shard NAME`` with the team's own
selection). One shard never judges orphans: its record (``.last_run/run.json``,
:func:`shard_fields`) says which shard it was, whether it was a *full shard*
(the only filtering was the shard's own selection: no ``--ignore``, no
narrower paths, no ``-x``, exit status 0), the tests it collected (those it
deselected included: the suite), the tests it ran, and the goldens they used.
It also holds the run's HTML-report entries (``report_entries``).

:func:`check_one_suite` and :func:`merge` read several shards' records
(:func:`read_shard`) and build one: the shards must be of one suite (same
commit, mode, agentsnap version and snapshot folder where recorded; every
group ``1..N`` once when ``N`` is known). The merged run is full when every
shard was a full shard, every shard collected the same tests, every
collected test ran in some shard, and the checkout the merge reads is at the
commit the shards ran (:func:`check_commit`; not checked when either is
unknown, and the merge says so); only then are orphans computed, from the
union of the goldens the shards used (:func:`merged_record`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..exceptions import AgentsnapError
from .orphans import (
    RUN_RECORD,
    SHARD_HOW,
    RunState,
    changed_since_commit,
    find_orphans,
    full_run_problem,
    write_run_record,
)
from .snapshot import LAST_RUN_DIR

if TYPE_CHECKING:
    import pytest

    from .store import SnapshotStore

__all__ = [
    "CommitCheck",
    "Merged",
    "ShardMergeError",
    "ShardRun",
    "check_commit",
    "check_one_suite",
    "head_commit",
    "local_rootdir",
    "merge",
    "merged_record",
    "read_shard",
    "shard_fields",
    "write_merged_record",
    "write_shard_record",
]

#: the suite keys that must agree between shards (when both recorded one)
_SUITE_KEYS = ("commit", "mode", "agentsnap", "snapshot_dir")
_MERGE_HINT = "Collect every shard's .last_run folder and run `agentsnap report --merge DIR...`"


class ShardMergeError(AgentsnapError, ValueError):
    """Shards' records cannot be merged: a folder holds none, a shard is missing or twice, or the
    shards are of different suites. The message names the folders and what to do."""


def shard_fields(
    shard: Mapping[str, Any],
    suite: Mapping[str, Any],
    *,
    problem: str | None,
    collected: set[str],
    selected: set[str],
    used: set[str],
    counts: Mapping[str, int],
    entries: list[dict[str, Any]],
) -> dict[str, Any]:
    """The fields a shard's run record adds to the plain one (and the ones it overrides).

    ``problem``: why the shard is not a full shard (None: it is). ``collected``:
    every test the shard collected, deselected ones included; ``selected``:
    those that ran; ``used``: snapshot names the run's tests produced;
    ``counts``: the summary's counts; ``entries``: the HTML report's entries
    (:mod:`agentsnap.html_report._entries`). The record says ``full_run: false``
    (a shard alone never finds orphans) and why.
    """
    name = shard.get("name")
    return {
        "full_run": False,
        "not_full_because": (
            f"this run is shard {name} alone (from {shard.get('source')}): orphans are found from "
            f"all shards' records together. {_MERGE_HINT}, then `agentsnap prune`"
        ),
        "orphans": [],
        "shard": dict(shard),
        "full_shard": problem is None,
        "not_full_shard_because": problem,
        "suite": dict(suite),
        "counts": {k: int(v) for k, v in sorted(counts.items()) if not k.startswith("_")},
        "collected": sorted(collected),
        "selected": sorted(selected),
        "used": sorted(used),
        "report_entries": entries,
    }


def write_shard_record(
    state: RunState,
    config: pytest.Config,
    exitstatus: int,
    *,
    shard: Mapping[str, Any],
    suite: Mapping[str, Any],
    collected: set[str],
    selected: set[str],
    counts: Mapping[str, int],
    entries: str,
) -> None:
    """Write a shard's ``.last_run/run.json`` (:func:`shard_fields`; ``entries``: the report's
    entries as JSON text); as :func:`agentsnap.storage.orphans.write_run_record`, a folder that
    cannot be written only warns."""
    fields = shard_fields(
        shard,
        suite,
        problem=full_run_problem(config, exitstatus, 0, selection_ok=True),
        collected=collected,
        selected=selected,
        used=state.used,
        counts=counts,
        entries=json.loads(entries),
    )
    write_run_record(state, config, exitstatus, extra=fields)


@dataclass
class ShardRun:
    """One shard's artefact: the ``.last_run`` folder read (``folder``), the folder named on the
    command line (``given``), its run record and its report entries (JSON text)."""

    given: Path
    folder: Path
    record: dict[str, Any]
    entries: str

    @property
    def name(self) -> str:
        return str(self.record["shard"].get("name"))

    @property
    def group(self) -> int | None:
        value = self.record["shard"].get("group")
        return value if isinstance(value, int) else None

    @property
    def splits(self) -> int | None:
        value = self.record["shard"].get("splits")
        return value if isinstance(value, int) else None

    def names(self, key: str) -> set[str]:
        """The record's list ``key`` (``collected``, ``selected``, ``used``) as a set."""
        return {str(v) for v in self.record.get(key) or ()}


def read_shard(given: Path) -> ShardRun:
    """The shard whose artefact is ``given``: a copied ``.last_run`` folder or a snapshot folder holding one.

    Raises:
        ShardMergeError: no run record there, an unreadable one, or the record of a run that was
            not a shard (run without ``--agentsnap-shard`` or pytest-split's ``--splits``/``--group``).
    """
    given = Path(given)
    if not given.is_dir():
        raise ShardMergeError(f"{given} is not a folder: give each shard's .last_run folder")
    folder = next(
        (f for f in (given, given / LAST_RUN_DIR) if (f / RUN_RECORD).is_file()),
        None,
    )
    if folder is None:
        raise ShardMergeError(
            f"{given} holds no agentsnap run record ({RUN_RECORD} or {LAST_RUN_DIR}/{RUN_RECORD}): "
            "give each shard's .last_run folder (or the snapshot folder holding it), as the shard job uploaded it"
        )
    path = folder / RUN_RECORD
    try:
        record = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        raise ShardMergeError(f"cannot read the run record {path}: {exc}") from None
    if isinstance(record, dict) and record.get("merged_from"):
        raise ShardMergeError(
            f"{path} is a merged record (`agentsnap report --merge` wrote it), not a shard's: "
            "merge the shards' own .last_run folders, as their CI jobs uploaded them"
        )
    if not isinstance(record, dict) or not isinstance(record.get("shard"), dict):
        raise ShardMergeError(
            f"{path} is the record of a run that was not a shard: run each shard with pytest-split's "
            "`--splits N --group G` or with `--agentsnap-shard NAME`, then merge their .last_run folders"
        )
    entries = record.get("report_entries")
    if not isinstance(entries, list):
        raise ShardMergeError(
            f"{path} holds no report entries (report_entries): it is not a shard's record"
        )
    return ShardRun(given=given, folder=folder, record=record, entries=json.dumps(entries))


def check_one_suite(shards: Sequence[ShardRun]) -> None:
    """Check ``shards`` are the shards of one run of one suite, each once, none missing.

    Raises:
        ShardMergeError: no shard; a shard given twice (both folders named); shards of different
            splits, commits, modes, agentsnap versions or snapshot folders; a group of ``1..N`` missing.
    """
    if not shards:
        raise ShardMergeError("no shard to merge: give each shard's .last_run folder")
    seen: dict[str, ShardRun] = {}
    for shard in shards:
        first = seen.setdefault(shard.name, shard)
        if first is not shard:
            raise ShardMergeError(
                f"shard {shard.name} is given twice: {first.given} and {shard.given}; "
                "give each shard's .last_run folder once"
            )
    for key in _SUITE_KEYS:
        values = {
            s.given: str(s.record.get("suite", {}).get(key))
            for s in shards
            if s.record.get("suite", {}).get(key) is not None
        }
        if len(set(values.values())) > 1:
            listed = "; ".join(f"{given}: {key} {v}" for given, v in values.items())
            raise ShardMergeError(
                f"the shards are not of one suite run ({listed}); merge the shards of one CI run"
            )
    splits = {s.splits for s in shards}
    if len(splits) > 1:
        listed = "; ".join(f"{s.given}: shard {s.name}" for s in shards)
        raise ShardMergeError(f"the shards split the suite differently ({listed})")
    count = next(iter(splits))
    if count is not None:
        missing = sorted(set(range(1, count + 1)) - {s.group for s in shards})
        if missing:
            named = ", ".join(f"{g}/{count}" for g in missing)
            have = ", ".join(sorted(f"{s.name} ({s.given})" for s in shards))
            raise ShardMergeError(
                f"missing shard{'s' if len(missing) > 1 else ''} {named} (merged: {have}); "
                f"every group 1..{count} is needed: download every shard job's .last_run folder"
            )


@dataclass
class Merged:
    """Several shards as one run: the unions of their tests and goldens, and whether it is full."""

    shards: list[ShardRun]
    collected: set[str] = field(default_factory=set)
    selected: set[str] = field(default_factory=set)
    used: set[str] = field(default_factory=set)
    #: why the merged run cannot tell orphans (None: it can)
    not_full_because: str | None = None

    @property
    def commit(self) -> str | None:
        """The commit the shards ran (their records' ``suite.commit``; None: none recorded one)."""
        for shard in self.shards:
            value = (shard.record.get("suite") or {}).get("commit")
            if isinstance(value, str) and value.strip():
                return value
        return None


def _few(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def merge(shards: Sequence[ShardRun]) -> Merged:
    """The shards (already checked by :func:`check_one_suite`) as one run; says why it is not full."""
    merged = Merged(shards=list(shards))
    for shard in shards:
        merged.collected |= shard.names("collected")
        merged.selected |= shard.names("selected")
        merged.used |= shard.names("used")
    problems = [
        f"shard {s.name} ({s.given}) was not a full shard: {s.record.get('not_full_shard_because')}"
        for s in shards
        if not s.record.get("full_shard")
    ]
    for shard in shards:
        if shard.names("collected") != merged.collected:
            problems.append(
                f"the shards collected different tests (shard {shard.name} lacks "
                f"{_few(sorted(merged.collected - shard.names('collected')))}): {SHARD_HOW}"
            )
            break
    never = sorted(merged.collected - merged.selected)
    if never:
        problems.append(f"{len(never)} test(s) ran in no shard: {_few(never)}")
    merged.not_full_because = "; ".join(problems) or None
    return merged


def local_rootdir(root: Path, shards: Sequence[ShardRun]) -> Path:
    """The pytest rootdir here, for snapshot folder ``root``: the shards recorded the folder
    relative to theirs (``suite.snapshot_dir``); when ``root`` does not end with it, the
    current directory."""
    root = Path(root).absolute()
    for shard in shards:
        relative = shard.record.get("suite", {}).get("snapshot_dir")
        if isinstance(relative, str) and relative and not Path(relative).is_absolute():
            parts = Path(relative).parts
            if root.parts[-len(parts) :] == parts:
                return Path(*root.parts[: -len(parts)])
    return Path.cwd()


def head_commit(folder: Path) -> str | None:
    """``git rev-parse HEAD`` run in ``folder``: the commit its checkout is at, or None when there
    is no git, ``folder`` is in no repository, or git fails (10 s at most)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    head = done.stdout.strip()
    return head if done.returncode == 0 and head else None


@dataclass(frozen=True)
class CommitCheck:
    """The commit the shards ran (``ran``) against the one the checkout at ``folder`` is at
    (``here``); either is None when unknown."""

    folder: Path
    ran: str | None
    here: str | None

    @property
    def problem(self) -> str | None:
        """Why the checkout cannot judge the shards' orphans (None: it can, or it was not checked):
        a test added after the shards' commit would make its golden look orphaned."""
        if self.ran is None or self.here is None or self.ran.lower() == self.here.lower():
            return None
        return (
            f"the shards ran commit {self.ran}; this checkout is at {self.here}: check out "
            f"{self.ran}, or merge in the CI job"
        )

    @property
    def note(self) -> str | None:
        """Why the commits were not compared (None: they were)."""
        if self.ran is None:
            return (
                "the shards recorded no commit (no git, no CI commit variable): whether this "
                "checkout is at the commit they ran was not checked"
            )
        if self.here is None:
            return (
                f"this checkout's commit could not be read (no git repository at {self.folder}): "
                f"the orphans are those of commit {self.ran}; prune only at that commit"
            )
        return None


def check_commit(ran: object, folder: Path) -> CommitCheck:
    """:class:`CommitCheck` of the commit ``ran`` (a run record's ``suite.commit``) against the
    checkout holding ``folder`` (:func:`head_commit`)."""
    recorded = str(ran) if isinstance(ran, str) and ran.strip() else None
    return CommitCheck(Path(folder), recorded, head_commit(folder))


def merged_record(
    merged: Merged,
    store: SnapshotStore,
    rootdir: Path,
    *,
    commit: CommitCheck,
    counts: Mapping[str, int],
) -> dict[str, Any]:
    """The run record of the merged run (what ``agentsnap prune`` reads): orphans from the union
    of the shards' goldens when the merged run is full and ``commit`` finds no problem, else
    none and why. ``counts``: the merged report's snapshots per state, each snapshot once."""
    problems = [p for p in (commit.problem, merged.not_full_because) if p]
    full = not problems
    orphans = find_orphans(store, merged.collected, merged.used, rootdir) if full else []
    # a golden or test file this checkout changed since the commit: the shards never ran it
    kept = changed_since_commit(
        {n: store.locate(n) for n in orphans}, rootdir, store.root, commit.ran
    )
    return {
        "finished_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "full_run": full,
        "not_full_because": "; ".join(problems) or None,
        "rootdir": str(rootdir),
        "orphans": [n for n in orphans if n not in kept],
        "kept_changed": kept,
        "merged_from": [
            {
                "dir": str(s.given),
                "shard": s.record.get("shard"),
                "finished_at": s.record.get("finished_at"),
                "full_shard": s.record.get("full_shard"),
            }
            for s in merged.shards
        ],
        "suite": {**(merged.shards[0].record.get("suite") or {}), "commit": commit.ran}
        if merged.shards
        else None,
        "checkout_commit": commit.here,
        "commit_not_checked_because": commit.note,
        "counts": dict(counts),
        "collected": sorted(merged.collected),
        "selected": sorted(merged.selected),
        "used": sorted(merged.used),
    }


def write_merged_record(store: SnapshotStore, record: Mapping[str, Any]) -> Path:
    """Write ``record`` as ``store.root/.last_run/run.json`` (atomically; ``.last_run/.gitignore``
    too). Returns the path. Raises ``OSError`` when it cannot be written,
    :class:`~agentsnap.exceptions.SnapshotFormatError` for a symbolic link on the way."""
    from .atomic import store_write

    path = store.root / LAST_RUN_DIR / RUN_RECORD
    store.write_last_run_ignore()
    store_write(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n", root=store.root)
    return path
