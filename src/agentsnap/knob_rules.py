"""The rule each comparison knob's value must pass: ``rule(name, value)`` returns the value
normalised (``float(0)`` for ``0``) or raises ``TypeError`` / ``ValueError`` naming the knob.

:class:`agentsnap.knobs.CompareOptions` names a knob's rule in its field metadata and applies it in
``validated()``; the settings apply the same rules when they read ``[tool.agentsnap]``. Standard
library only (this sits below the knobs, which sit below every layer that reads one).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "ARG_MODES",
    "BUDGET_CEILING_KEYS",
    "BUDGET_GROWTH_KEYS",
    "TRAJECTORY_MODES",
    "as_is",
    "before",
    "callable_or_none",
    "check_budgets",
    "choice",
    "count",
    "flag",
    "json_text",
    "judge",
    "judge_mode",
    "tools",
    "unit",
    "unit_or_none",
]


def as_is(name: str, value: Any) -> Any:
    """No rule here (``ignored_fields`` is parsed by the checks, ``embedding_backend`` by the backends)."""
    return value


def flag(name: str, value: Any) -> bool:
    return bool(value)


def unit(name: str, value: Any) -> float:
    """``value`` as a float in [0, 1]; ``TypeError`` / ``ValueError`` naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number in [0, 1], got {value!r}")
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return float(value)


def unit_or_none(name: str, value: Any) -> float | None:
    return None if value is None else unit(name, value)


def count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


#: the ``trajectory`` modes and the ``tool_args`` (and per-tool ``args``) modes
TRAJECTORY_MODES = ("turns", "strict", "unordered", "subset", "superset")
ARG_MODES = ("exact", "ignore", "subset", "superset")


def choice(*choices: str) -> Callable[[str, Any], str]:
    """The rule of a knob with these values: ``name must be 'a', 'b' or 'c', got ...`` otherwise."""
    said = " or ".join([", ".join(map(repr, choices[:-1])), repr(choices[-1])])

    def rule(name: str, value: Any) -> str:
        if value not in choices:
            raise ValueError(f"{name} must be {said}, got {value!r}")
        return str(value)

    return rule


def json_text(value: Any, name: str = "") -> Any:
    """A structured knob given as text (an ini option, an env var): its JSON.

    Raises:
        ValueError: the text is not JSON; the message names the knob and shows the form.
    """
    if not (isinstance(value, str) and value.strip()):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise ValueError(
            f"{name or 'this value'}: given as text (an ini option or an environment variable) it must be "
            f'JSON, e.g. [["search", "answer"]] or {{"max_llm_calls": 6}}; got {value!r}'
        ) from None


def tools(name: str, value: Any) -> dict[str, dict[str, Any]]:
    """``{tool: {"args": mode, "optional": bool}}`` checked; errors name the knob, the tool, the key."""
    value = json_text(value, name) or {}
    if not isinstance(value, Mapping) or not all(
        isinstance(t, str) and t and isinstance(spec, Mapping) for t, spec in value.items()
    ):
        raise TypeError(
            f'{name} must be {{tool = {{args = "subset", optional = true}}}}, got {value!r}'
        )
    for tool, spec in value.items():
        where = f"{name}[{tool!r}]"
        if set(spec) - {"args", "optional"}:
            unknown = ", ".join(sorted(set(spec) - {"args", "optional"}))
            raise ValueError(f"{where}: unknown key(s) {unknown} (known: args, optional)")
        if not isinstance(spec.get("optional", False), bool):
            raise TypeError(f"{where}.optional must be true or false, got {spec['optional']!r}")
        if "args" in spec:
            choice(*ARG_MODES)(f"{where}.args", spec["args"])
    return {tool: dict(spec) for tool, spec in value.items()}


def before(name: str, value: Any) -> list[list[str]]:
    """``[[first, then], ...]`` checked: pairs of two different non-empty tool names."""
    value = json_text(value, name) or []
    for pair in value if isinstance(value, (list, tuple)) else [value]:
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2) or not all(
            isinstance(t, str) and t for t in pair
        ):
            raise ValueError(
                f"{name}: each entry must be [first, then], two tool names; got {pair!r}"
            )
        if pair[0] == pair[1]:
            raise ValueError(f"{name}: {pair!r} names one tool twice; a rule orders two tools")
    return [list(pair) for pair in value]


#: the keys of ``budgets``: allowed growth (a fraction of the golden's value: 0.2 = +20 %)
BUDGET_GROWTH_KEYS = (
    "max_calls_growth",
    "max_tool_calls_growth",
    "max_tokens_growth",
    "max_cost_growth",
    "max_latency_growth",
)
#: ... and ceilings: whole counts per test, then USD per test and per run
BUDGET_CEILING_KEYS = (
    "max_llm_calls",
    "max_tool_calls",
    "max_request_tokens",
    "max_cost",
    "max_run_cost",
)


def check_budgets(value: object, name: str = "budgets") -> dict[str, float]:
    """``budgets`` as ``{key: number >= 0}`` (None values dropped; whole numbers for the counts).

    Raises:
        TypeError: not a table, or a value of the wrong type, naming ``name.key``.
        ValueError: an unknown key, or a negative or infinite value, naming the key.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a table of limits, got {value!r}")
    out: dict[str, float] = {}
    for key, limit in value.items():
        if key not in BUDGET_GROWTH_KEYS + BUDGET_CEILING_KEYS:
            known = ", ".join(BUDGET_GROWTH_KEYS + BUDGET_CEILING_KEYS)
            raise ValueError(f"{name}: unknown key {key!r} (known: {known})")
        if limit is None:
            continue
        whole = key in ("max_llm_calls", "max_tool_calls", "max_request_tokens")
        if isinstance(limit, bool) or not isinstance(limit, int if whole else (int, float)):
            kind = "a whole number" if whole else "a number"
            raise TypeError(f"{name}.{key} must be {kind} >= 0, got {limit!r}")
        if not (math.isfinite(limit) and limit >= 0):
            raise ValueError(f"{name}.{key} must be >= 0, got {limit!r}")
        out[key] = limit if whole else float(limit)
    return out


def callable_or_none(name: str, value: Any) -> Any:
    if value is not None and not callable(value):
        raise TypeError(f"{name} must be callable or None, got {value!r}")
    return value


def judge_mode(name: str, value: Any) -> str:
    if value not in ("confirm", "score"):
        raise ValueError(f"{name} must be 'confirm' or 'score', got {value!r}")
    return str(value)


def judge(name: str, value: Any) -> Any:
    if value is not None and not callable(getattr(value, "score", None)):
        raise TypeError(f"{name} must have a score(golden, new) method, got {value!r}")
    return value
