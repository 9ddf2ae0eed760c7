"""A value's exact shape, for tests that compare conversions: one copy."""

from __future__ import annotations

import math


def shape(value: object) -> object:
    """``value`` with every container's type and every float's bits spelled out (so NaN equals
    NaN, ``1`` differs from ``1.0`` and ``True``, and a dict subclass differs from a dict)."""
    if isinstance(value, dict):
        return (type(value).__name__, [(shape(k), shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [shape(v) for v in value])
    if isinstance(value, float):
        return ("float", value.hex() if not math.isnan(value) else "nan")
    return (type(value).__name__, value)
