"""Which shard of a suite this pytest run is, when the suite is split across CI machines.

A shard is named by ``--agentsnap-shard NAME`` (or the ``AGENTSNAP_SHARD``
environment variable; the flag wins), or found from pytest-split's
``--splits N --group G`` when that plugin is active. A NAME of the form
``G/N`` (``2/3``) says which group of how many, as pytest-split's options
do, so a merge can tell a missing shard; any other NAME (``unit``,
``linux-py312``) only tells shards apart.

pytest-split is never imported: its options are read off the config, and
only when pytest-split is loaded (it splits only when both are given).

The shard goes into the run record (:func:`agentsnap.storage.shards.shard_fields`):
``{"name", "group", "splits", "source"}``, plus the suite it belongs to
(:func:`suite_of`: commit, mode, agentsnap version, snapshot folder).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

    from .. import config as _config

__all__ = ["COMMIT_VARS", "ENV", "detect", "suite_of"]

#: the environment variable that names the shard when the flag is not given
ENV = "AGENTSNAP_SHARD"
#: the names pytest-split is registered under: its entry point, its module (``-p``), and the
#: splitting plugin it adds in its ``pytest_configure`` (which may run after ours)
_PYTEST_SPLIT = ("pytest-split", "pytest_split.plugin", "pytestsplitplugin")
_GROUP_OF = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
#: where CI services put the commit a job runs, checked before asking git
COMMIT_VARS = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "CIRCLE_SHA1", "GIT_COMMIT")


def _whole_number(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _split_options(config: pytest.Config) -> tuple[int, int] | None:
    """pytest-split's ``(group, splits)`` when it is loaded and both options are given, else None."""
    if not any(config.pluginmanager.has_plugin(name) for name in _PYTEST_SPLIT):
        return None
    try:
        group = _whole_number(config.getoption("group", None))
        splits = _whole_number(config.getoption("splits", None))
    except (ValueError, AttributeError):  # another plugin's options under those names
        return None
    if group is None or splits is None or not 1 <= group <= splits:
        return None
    return group, splits


def detect(config: pytest.Config) -> dict[str, object] | None:
    """This run's shard: ``{"name", "group", "splits", "source"}``, or None when it is the whole suite.

    ``source`` says where the name came from: ``--agentsnap-shard``,
    ``AGENTSNAP_SHARD`` or ``pytest-split``. ``group`` / ``splits`` are whole
    numbers when known (from pytest-split, or a ``G/N`` name), else None.

    Raises:
        pytest.UsageError: the name is empty or holds a control character (a newline, a tab, an
            escape), or a ``G/N`` name has N below 1 or G outside 1..N.
    """
    import pytest

    name = config.getoption("agentsnap_shard", None)
    source = "--agentsnap-shard"
    if name is None and os.environ.get(ENV, "").strip():
        name, source = os.environ[ENV], ENV
    split = _split_options(config)
    if name is None:
        if split is None:
            return None
        return {
            "name": f"{split[0]}/{split[1]}",
            "group": split[0],
            "splits": split[1],
            "source": "pytest-split",
        }
    name = str(name).strip()
    if not name:
        raise pytest.UsageError(
            f"agentsnap: the shard name given by {source} is empty; name the shard "
            "(`--agentsnap-shard 2/3` for group 2 of 3, or any word that tells the shards apart)."
        )
    if not name.isprintable():
        raise pytest.UsageError(
            f"agentsnap: the shard name {name!r} given by {source} holds a control character "
            "(a newline, a tab, an escape); name the shard with printable characters "
            "(`--agentsnap-shard 2/3`, `--agentsnap-shard linux-py312`)."
        )
    group_of = _GROUP_OF.match(name)
    if group_of is not None:
        group, splits = int(group_of.group(1)), int(group_of.group(2))
        if splits < 1:
            raise pytest.UsageError(
                f"agentsnap: shard {name!r} (from {source}) splits the suite into {splits} "
                "shards; the number of shards must be at least 1 (`--agentsnap-shard 2/3` is "
                "group 2 of 3)."
            )
        if not 1 <= group <= splits:
            raise pytest.UsageError(
                f"agentsnap: shard {name!r} (from {source}) is group {group} of {splits}; "
                f"the group must be 1 to {splits}."
            )
        name = f"{group}/{splits}"
    elif split is not None:
        group, splits = split
    else:
        return {"name": name, "group": None, "splits": None, "source": source}
    return {"name": name, "group": group, "splits": splits, "source": source}


def _commit(rootdir: Path) -> str | None:
    """The commit the suite runs at: a CI service's variable, else ``git rev-parse HEAD``, else None."""
    for var in COMMIT_VARS:
        value = os.environ.get(var, "").strip()
        if value:
            return value
    from ..storage.shards import head_commit

    return head_commit(rootdir)


def suite_of(config: pytest.Config, settings: _config.Settings) -> dict[str, object]:
    """What every shard of one suite shares: ``commit`` (or None), ``mode``, ``agentsnap``
    (the version) and ``snapshot_dir`` (relative to the rootdir when inside it, POSIX form)."""
    from .._version import __version__

    rootdir = Path(str(config.rootpath))
    snapshots = Path(settings.snapshot_path)
    try:
        snapshot_dir = snapshots.resolve().relative_to(rootdir.resolve()).as_posix()
    except ValueError:
        snapshot_dir = str(snapshots)
    return {
        "commit": _commit(rootdir),
        "mode": settings.mode,
        "agentsnap": __version__,
        "snapshot_dir": snapshot_dir,
    }
