"""``@pytest.mark.agentsnap(name=..., **comparison settings)``: what it accepts and how it is read."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from .. import config as _config
from ..knobs import declared_knobs, marker_option_names

__all__ = [
    "MARKER_DESCRIPTION",
    "MARKER_OPTIONS",
    "RUN_OPTIONS",
    "Marker",
    "marker_name",
    "marker_options",
    "marker_runs",
    "run_option",
]

#: what ``@pytest.mark.agentsnap(...)`` accepts besides ``name``: per-test comparison settings
MARKER_OPTIONS: tuple[str, ...] = marker_option_names()

#: what the marker also accepts: how a statistics run over live runs samples the test
#: (``runs``: how many runs, ``min_pass_rate``: the share that must pass); not comparison settings
RUN_OPTIONS: tuple[str, ...] = ("runs", "min_pass_rate")

#: the marker's line in ``pytest --markers``
MARKER_DESCRIPTION = (
    "agentsnap(name=None, runs=None, min_pass_rate=None, **settings): this test's snapshot name, how many live "
    "runs a statistics run makes and the share that must pass, and comparison settings "
    "(semantic_threshold, llm_threshold, structural_tolerance, ignored_fields, min_score, weights, strict, ...)"
)


def run_option(key: str, value: object) -> int | float:
    """``value`` checked for run option ``key``: ``runs`` a whole number >= 1, ``min_pass_rate`` a
    number in [0, 1]. Raises ``TypeError`` / ``ValueError`` naming the key."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{key} must be a number, got {value!r}")
    if key == "runs":
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"runs must be a whole number >= 1, got {value!r}")
        return value
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"min_pass_rate must be in [0, 1], got {value!r}")
    return float(value)


def marker_runs(item: pytest.Item) -> tuple[int | None, float | None]:
    """``(runs, min_pass_rate)`` the marker gives ``item`` (None where it gives none, or a bad
    value: :func:`marker_options` fails the test with it at setup). Raises nothing."""
    marker = item.get_closest_marker("agentsnap")
    found: list[int | float | None] = []
    for key in RUN_OPTIONS:
        value = marker.kwargs.get(key) if marker is not None else None
        try:
            found.append(None if value is None else run_option(key, value))
        except (TypeError, ValueError):
            found.append(None)
    runs, rate = found
    return (int(runs) if runs is not None else None), rate


class Marker(NamedTuple):
    """A test's snapshot name and comparison overrides (unpacks as ``name, overrides``)."""

    name: str
    overrides: dict[str, Any]


def marker_name(item: pytest.Item) -> str:
    """The snapshot name the marker gives ``item`` when it is a non-empty string, else its node id.

    Unchecked (collection time: :func:`marker_options` fails the test on a bad one). Raises nothing.
    """
    marker = item.get_closest_marker("agentsnap")
    name = marker.kwargs.get("name") if marker is not None else None
    return name if isinstance(name, str) and name else item.nodeid


def marker_options(item: pytest.Item) -> Marker:
    """``(snapshot name, comparison overrides)`` of a test from its ``@pytest.mark.agentsnap(...)``.

    ``name`` replaces the node id as the snapshot name; the other keywords
    (:data:`MARKER_OPTIONS`) override ``[tool.agentsnap]`` for this test's
    comparison, coerced as ``[tool.agentsnap]`` values are. Raises
    ``pytest.fail`` (the test errors, naming the keyword) for positional
    arguments, a bad name, an unknown keyword or a bad value.
    """
    marker = item.get_closest_marker("agentsnap")
    if marker is None:
        return Marker(item.nodeid, {})
    if marker.args:
        pytest.fail(
            f"agentsnap: @pytest.mark.agentsnap takes keywords only (name=..., {', '.join(MARKER_OPTIONS[:3])}, ...), "
            f"got positional {marker.args!r} on {item.nodeid}",
            pytrace=False,
        )
    options = dict(marker.kwargs)
    name = options.pop("name", None)
    if name is None:
        name = item.nodeid
    elif not isinstance(name, str) or not name:
        pytest.fail(
            f"agentsnap: @pytest.mark.agentsnap(name=...) must be a non-empty string on {item.nodeid}, got {name!r}",
            pytrace=False,
        )
    for (
        key
    ) in RUN_OPTIONS:  # the statistics run's, read by marker_runs: checked here, then set aside
        value = options.pop(key, None)
        if value is not None:
            try:
                run_option(key, value)
            except (TypeError, ValueError) as exc:
                pytest.fail(
                    f"agentsnap: @pytest.mark.agentsnap on {item.nodeid}: {exc}", pytrace=False
                )
    known = marker_option_names()  # the built-in knobs, then those checks declared
    unknown = sorted(set(options) - set(known))
    if unknown:
        pytest.fail(
            f"agentsnap: unknown @pytest.mark.agentsnap keyword(s) {', '.join(unknown)} on {item.nodeid}; "
            f"known: name, {', '.join(known)}, {', '.join(RUN_OPTIONS)}",
            pytrace=False,
        )
    if "ignored_fields" in options and isinstance(options["ignored_fields"], str):
        options["ignored_fields"] = [options["ignored_fields"]]  # one path, not its characters
    for key, value in options.items():
        if key in _config.SETTING_KEYS and value is not None:
            try:  # checked now, as [tool.agentsnap] is, rather than when the comparison runs
                options[key] = _config._coerce(
                    key, value, f"@pytest.mark.agentsnap on {item.nodeid}"
                )
            except (TypeError, ValueError) as exc:
                pytest.fail(str(exc), pytrace=False)
        elif value is not None and (
            knob := next((k for k in declared_knobs() if k.name == key), None)
        ):
            try:  # a knob a check declared: its own rule
                options[key] = knob.validate(value)
            except (TypeError, ValueError) as exc:
                pytest.fail(
                    f"agentsnap: @pytest.mark.agentsnap on {item.nodeid}: {exc}", pytrace=False
                )
    return Marker(name, options)
