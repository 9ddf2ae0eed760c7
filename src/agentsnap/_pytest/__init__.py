"""The pytest plugin's inside; :mod:`agentsnap.pytest_plugin` holds the options and thin hooks over it.

=================  ==============================================================
module             what it holds
=================  ==============================================================
``session``        :class:`~.session.AgentsnapSession`: a run's settings, store,
                   per-test recordings, counts; the run's socket guard
``fixture``        :class:`~.fixture.SnapshotFixture`: the ``snapshot`` /
                   ``agent_snapshot`` fixture object
``markers``        ``@pytest.mark.agentsnap(...)``: :data:`~.markers.MARKER_OPTIONS`,
                   :func:`~.markers.marker_options`
``summary``        the terminal: the count line, the syrupy note, clean failure text
``xdist``          the worker → controller hand-over: :func:`~.xdist.publish` /
                   :func:`~.xdist.merge`
=================  ==============================================================

Import cost: every pytest run loads these modules with the plugin, so they
import only the standard library, pytest and agentsnap's light modules
(:mod:`agentsnap.config`, :mod:`agentsnap.exceptions`) at module level; the
store, capture, lifecycle and diff load on first use.
"""
