"""LLM calls made outside any test in a run that records or runs live (``--agentsnap-record``,
``--agentsnap-instrument``): a module-level call while a test module is imported or collected,
one made in a hook, or in a fixture's teardown (a test's recording runs from its setup to its
call's end). No test's recording holds them, so no snapshot keeps them, and a replay run
refuses them (:func:`agentsnap._pytest.session.refuse_calls_outside_tests`). A capture
recording under every test's own (:func:`note`) counts them, and the summary says so
(:func:`finish`, ``counts["_outside_calls"]``, xdist workers' merged): never silently lost.

A conftest's calls come before the session starts and are not counted (the settled mode is
known only then). Stopped when the session ends, or at unconfigure for a run that never had
one (``--help``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..capture.recording import Recording

__all__ = ["finish", "note"]

#: the run's recording under every test's own (record and live runs)
NOTED: pytest.StashKey[Recording] = pytest.StashKey()


def note(config: pytest.Config) -> None:
    """Start counting the calls made outside any test (once a run)."""
    if NOTED not in config.stash:
        from ..capture.recording import Recording

        config.stash[NOTED] = Recording("capture").start()


def finish(config: pytest.Config) -> int:
    """Stop counting; the LLM and MCP calls made outside any test (0 when not counting)."""
    noted = config.stash.get(NOTED, None)
    if noted is None:
        return 0
    del config.stash[NOTED]
    noted.stop()
    trace = noted.trace
    return len(trace.exchanges) + sum(len(c.calls) for c in trace.mcp_channels)
