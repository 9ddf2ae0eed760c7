"""LLM calls made outside any test in a run that records or runs live (``--agentsnap-record``,
``--agentsnap-instrument``): a module-level call while a test module is imported or collected,
one made in a hook, or in a fixture's teardown (a test's recording runs from its setup to its
call's end). No test's recording holds them, so no snapshot keeps them, and a replay run
refuses them (:func:`agentsnap._pytest.session.refuse_calls_outside_tests`). A capture
recording under every test's own (:func:`note`, kept in the config's stash by the plugin) counts
them, and the summary says so (:func:`finish`, ``counts["_outside_calls"]``, xdist workers'
merged): never silently lost.

A conftest's calls come before the session starts and are not counted (the settled mode is
known only then). Stopped when the session ends, or at unconfigure for a run that never had
one (``--help``).
"""

from __future__ import annotations

from ..capture.recording import Recording

__all__ = ["finish", "note"]


def note() -> Recording:
    """Start counting the calls made outside any test: the recording to hand to :func:`finish`."""
    return Recording("capture").start()


def finish(noted: Recording) -> int:
    """Stop counting; the LLM and MCP calls made outside any test."""
    noted.stop()
    trace = noted.trace
    return len(trace.exchanges) + sum(len(c.calls) for c in trace.mcp_channels)
