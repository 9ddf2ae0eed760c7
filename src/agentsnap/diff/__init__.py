"""Comparison of a new agent run with its golden snapshot.

:func:`compute_diff` runs every registered check (:mod:`agentsnap.diff.checks`:
structural, arguments, model tools, LLM requests, the text checks) and returns
a :class:`DiffReport`. The algorithms behind the checks live beside them:
:mod:`~agentsnap.diff.sequence` (tool-name sequences, Levenshtein distance),
:mod:`~agentsnap.jsondiff` (deep diffs of tool arguments and request
messages), :mod:`~agentsnap.diff.meaning.verdict` and :mod:`~agentsnap.diff.meaning.scores`
(text scores), :mod:`~agentsnap.diff.meaning.judge` (the LLM judge). The knobs are
:class:`~agentsnap.diff.options.CompareOptions`.

Importing this package loads nothing: the names below load on first use
(PEP 562). Nothing below the diff layer imports it: the knobs the settings
read are in :mod:`agentsnap.knobs`, the JSON diff replay uses in
:mod:`agentsnap.jsondiff`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._compare import compute_diff
    from .legacy_config import DiffConfig
    from .options import CompareOptions
    from .report import DiffReport

__all__ = ["CompareOptions", "DiffConfig", "DiffReport", "compute_diff"]

_LAZY = {
    "compute_diff": "._compare",
    "CompareOptions": ".options",
    "DiffConfig": ".legacy_config",
    "DiffReport": ".report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
