"""The environment variables that switch agentsnap into CI mode, and a fixture that clears them.

``CI_MARKERS`` is ``CI`` plus the CI systems' own markers, read from
:mod:`agentsnap.config` (the rule lives there), so a new marker needs no
test edit. A test module that describes local behaviour imports the fixture::

    from tests._support.ci import _local_not_ci  # noqa: F401 - autouse fixture

and a fixture of its own that does more calls :func:`clear_ci`.
"""

from __future__ import annotations

import pytest

from agentsnap import config

__all__ = ["AGENTSNAP_ENV", "CI_MARKERS", "_local_not_ci", "clear_ci"]

CI_MARKERS: tuple[str, ...] = ("CI", *config._CI_MARKERS)
#: agentsnap's own variables that set a run's mode and folder (a test of a run clears them too)
AGENTSNAP_ENV: tuple[str, ...] = ("AGENTSNAP_MODE", "AGENTSNAP_RECORD", "AGENTSNAP_SNAPSHOT_DIR")


def clear_ci(monkeypatch: pytest.MonkeyPatch, also: tuple[str, ...] = ()) -> None:
    """Unset every CI marker, and the variables in ``also``, for the test (undone by
    ``monkeypatch`` afterwards)."""
    for var in (*CI_MARKERS, *also):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _local_not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests describe local behaviour: clear every CI marker agentsnap reads."""
    clear_ci(monkeypatch)
