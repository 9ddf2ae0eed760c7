"""agentsnap: snapshot testing for LLM agents.

Public API (everything here is light to import; the diff layer, SDK hooks and
provider codecs load on first use)::

    from agentsnap import AgentRecorder, AgentAsserter, SnapshotStore, Snapshot
    from agentsnap import AgentRegressionError, SnapshotNotFoundError, ReplayMissError
    from agentsnap import wrap            # explicit adapters: see agentsnap.adapters
    from agentsnap import check, extract_tool_calls   # the one-line form
"""

from __future__ import annotations

from typing import Any

__version__ = "1.0.0.dev0"

from . import config
from .exceptions import (
    AdapterNotWrappedError,
    AgentRegressionError,
    AgentsnapWarning,
    NetworkBlockedError,
    ReplayError,
    ReplayMissError,
    SnapshotFormatError,
    SnapshotMissingInCIError,
    SnapshotNotFoundError,
    SnapshotPendingError,
)
from .recorder import AgentAsserter, AgentRecorder
from .snapshot import Snapshot, SnapshotStore

__all__ = [
    "__version__",
    "config",
    "AgentRecorder",
    "AgentAsserter",
    "Snapshot",
    "SnapshotStore",
    "DiffReport",
    "compute_diff",
    "LLMJudge",
    "wrap",
    "check",
    "extract_tool_calls",
    "AgentRegressionError",
    "SnapshotNotFoundError",
    "SnapshotFormatError",
    "SnapshotPendingError",
    "SnapshotMissingInCIError",
    "AdapterNotWrappedError",
    "ReplayError",
    "ReplayMissError",
    "NetworkBlockedError",
    "AgentsnapWarning",
]


def __getattr__(name: str) -> Any:  # PEP 562: keep the diff layer out of import time
    if name in ("DiffReport", "compute_diff"):
        from . import diff

        return getattr(diff, name)
    if name == "LLMJudge":
        from .judge import LLMJudge

        return LLMJudge
    if name == "check":  # module agentsnap.checking: a submodule named `check` would shadow this function
        from .checking import check

        return check
    if name == "extract_tool_calls":
        from .extract import extract_tool_calls

        return extract_tool_calls
    if name == "wrap":  # the adapters import wrapt: loaded on first use
        from .adapters import wrap

        return wrap
    raise AttributeError(f"module 'agentsnap' has no attribute {name!r}")
