"""What LLM tokens cost: the price table shipped in ``spec/prices.toml`` and the user's.

The shipped table holds list prices of a handful of models (USD per one million tokens,
taken on the date :func:`taken` says: the user's to check); ``[tool.agentsnap.prices]``
adds models or replaces entries (:func:`parse_prices` checks it, :func:`configure` makes it
current, as :func:`agentsnap.config.apply` does). :func:`cost` prices one LLM call's
normalised usage. Standard library only (``tomllib`` / ``tomli``).
"""

from __future__ import annotations

import functools
import math
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["Price", "configure", "cost", "parse_prices", "price_for", "shipped", "taken"]

_FILE = Path(__file__).with_name("prices.toml")
_KEYS = ("input", "cached_input", "output")
#: a dated or versioned name of an entry: ``gpt-4o-mini-2024-07-18``
_VERSIONED = re.compile(r"-\d")


class Price(NamedTuple):
    """USD per one million tokens: ``input`` (not from the cache), ``cached_input`` (read from
    the provider's prompt cache; None: priced as ``input``), ``output`` (reasoning included)."""

    input: float
    output: float
    cached_input: float | None = None


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where} must be a number of USD per 1M tokens, got {value!r}")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{where} must be a finite number >= 0, got {value!r}")
    return float(value)


def parse_prices(table: object, where: str = "prices") -> dict[str, Price]:
    """``{model: Price}`` from ``{model: {input, output, cached_input?}}`` (USD per 1M tokens).

    Raises:
        TypeError / ValueError: not a table of tables, a missing ``input`` / ``output``, an
            unknown key or a value that is not a number >= 0 — naming ``where.model.key``.
    """
    if not isinstance(table, Mapping):
        raise TypeError(f"{where} must be a table of models, got {table!r}")
    out: dict[str, Price] = {}
    for model, entry in table.items():
        at = f"{where}.{model}"
        if not isinstance(entry, Mapping):
            raise TypeError(f"{at} must be a table {{input, output, cached_input}}, got {entry!r}")
        unknown = sorted(set(entry) - set(_KEYS))
        if unknown:
            raise ValueError(f"{at}: unknown key {unknown[0]!r} (known: {', '.join(_KEYS)})")
        for key in ("input", "output"):
            if key not in entry:
                raise ValueError(f"{at}: {key!r} is missing (USD per 1M tokens)")
        cached = entry.get("cached_input")
        out[str(model)] = Price(
            _number(entry["input"], f"{at}.input"),
            _number(entry["output"], f"{at}.output"),
            None if cached is None else _number(cached, f"{at}.cached_input"),
        )
    return out


@functools.cache
def _shipped_file() -> tuple[str, dict[str, Price]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    data = tomllib.loads(_FILE.read_text(encoding="utf-8"))
    return str(data.get("taken", "")), parse_prices(data.get("models", {}), "prices.toml models")


def shipped() -> dict[str, Price]:
    """The table shipped with agentsnap (a copy)."""
    return dict(_shipped_file()[1])


def taken() -> str:
    """When the shipped prices were taken from the providers' price pages (``"2025-08"``)."""
    return _shipped_file()[0]


_user: dict[str, Price] = {}
#: :func:`price_for`'s answers by model name, for the tables in force (emptied by :func:`configure`)
_found: dict[str, tuple[str, Price] | None] = {}


def configure(table: Mapping[str, Any] | None) -> None:
    """Make ``[tool.agentsnap.prices]`` current: its entries add to, or replace, the shipped
    ones. Raises what :func:`parse_prices` raises."""
    global _user
    _user = parse_prices(table or {})
    _found.clear()


def price_for(model: object) -> tuple[str, Price] | None:
    """``(entry name, Price)`` of ``model`` (the user's entries first), or None (unknown).

    A ``models/`` or ``provider/`` prefix is dropped; the name matches an entry exactly, or
    an entry followed by ``-`` and a digit (a date or version), the longest such entry.
    """
    if not isinstance(model, str) or not model:
        return None
    try:
        return _found[model]
    except KeyError:
        pass
    found = _found[model] = _lookup(model)
    if len(_found) > 4096:  # model names are few; a flood of them is not remembered
        _found.clear()
    return found


def _lookup(model: str) -> tuple[str, Price] | None:
    name = model.rsplit("/", 1)[-1]
    for table in (_user, _shipped_file()[1]):
        if name in table:
            return name, table[name]
        matches = [
            key
            for key in table
            if name.startswith(key) and _VERSIONED.match(name, len(key)) is not None
        ]
        if matches:
            best = max(matches, key=len)
            return best, table[best]
    return None


def cost(usage: object, model: object) -> float | None:
    """USD of one LLM call: ``input_tokens`` less ``cached_tokens`` at the input price, the
    cached ones at the cached price, ``output_tokens`` at the output price. None when the
    model has no price or the usage lacks input or output tokens."""
    found = price_for(model)
    if found is None or not (type(usage) is dict or isinstance(usage, Mapping)):
        return None
    price = found[1]
    given, produced = usage.get("input_tokens"), usage.get("output_tokens")
    if not isinstance(given, int) or not isinstance(produced, int):
        return None
    cached = usage.get("cached_tokens")
    cached = min(cached, given) if isinstance(cached, int) and cached > 0 else 0
    cached_price = price.cached_input if price.cached_input is not None else price.input
    return ((given - cached) * price.input + cached * cached_price + produced * price.output) / 1e6
