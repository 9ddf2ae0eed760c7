"""agentsnap: snapshot testing for LLM agents.

Public API (everything here is light to import; the diff layer, SDK hooks and
provider codecs load on first use)::

    from agentsnap import AgentRecorder, AgentAsserter, SnapshotStore, Snapshot
    from agentsnap import AgentRegressionError, SnapshotNotFoundError, ReplayMissError
    from agentsnap import AgentsnapError  # the base of every agentsnap exception
    from agentsnap import wrap            # explicit adapters: see agentsnap.adapters
    from agentsnap import check, extract_tool_calls   # the one-line form
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import config
from ._version import __version__
from .exceptions import (
    AdapterNotWrappedError,
    AgentRegressionError,
    AgentsnapError,
    AgentsnapWarning,
    NetworkBlockedError,
    ReplayError,
    ReplayMissError,
    SnapshotFormatError,
    SnapshotMissingInCIError,
    SnapshotNotFoundError,
    SnapshotPendingError,
)

if TYPE_CHECKING:
    from .adapters.tool import ToolAdapter
    from .checking import check
    from .diff import DiffConfig, DiffReport, compute_diff
    from .diff.meaning.judge import LLMJudge
    from .extract import extract_tool_calls
    from .recorder import AgentAsserter, AgentRecorder
    from .storage.snapshot import Snapshot
    from .storage.store import SnapshotStore

#: public names loaded on first use (PEP 562): `import agentsnap` — which every pytest run pays
#: through the plugin — loads only the settings and the exceptions
_LAZY = {
    "AgentRecorder": "recorder",
    "AgentAsserter": "recorder",
    "Snapshot": "storage.snapshot",
    "SnapshotStore": "storage.store",
    "DiffReport": "diff",
    "DiffConfig": "diff",
    "compute_diff": "diff",
    # shared/DESIGN.md: next to agentsnap.adapters.tool, as the docs import it
    "ToolAdapter": "adapters.tool",
    "LLMJudge": "diff.meaning.judge",
    "wrap": "adapters",  # imports wrapt
    # the module is `checking`: a submodule named `check` would replace this function on the package
    "check": "checking",
    "extract_tool_calls": "extract",
}

__all__ = [
    "AdapterNotWrappedError",
    "AgentAsserter",
    "AgentRecorder",
    "AgentRegressionError",
    "AgentsnapError",
    "AgentsnapWarning",
    "DiffConfig",
    "DiffReport",
    "LLMJudge",
    "NetworkBlockedError",
    "ReplayError",
    "ReplayMissError",
    "Snapshot",
    "SnapshotFormatError",
    "SnapshotMissingInCIError",
    "SnapshotNotFoundError",
    "SnapshotPendingError",
    "SnapshotStore",
    "ToolAdapter",
    "__version__",
    "check",
    "compute_diff",
    "config",
    "extract_tool_calls",
    "wrap",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentsnap' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
