"""Answers that are JSON objects or arrays, compared leaf by leaf: key order, layout and ``1000``
vs ``1000.0`` do not matter; any changed, missing or added leaf is harmful."""

from __future__ import annotations

import json
from typing import Any

from .findings import Finding, Verdict, pair_message

__all__ = ["json_leaves", "json_verdict"]

_MISSING = object()


def json_leaves(text: str) -> dict[str, Any] | None:
    """A JSON object or array as ``{path: leaf value}`` (key order, layout and ``1000`` vs ``1000.0`` do not matter), else None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    leaves: dict[str, Any] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key in node:
                walk(node[key], f"{path}.{key}" if path else str(key))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{path}[{index}]")
        else:
            leaves[path or "(value)"] = node

    walk(value, "")
    return leaves


def json_verdict(golden: dict[str, Any], new: dict[str, Any]) -> Verdict:
    """Two JSON answers: every leaf is a fact; a changed, missing or added leaf is harmful."""
    findings = []
    for path in dict.fromkeys([*golden, *new]):
        g, n = golden.get(path, _MISSING), new.get(path, _MISSING)
        same = (g == n and type(g) is type(n)) or (
            isinstance(g, (int, float))
            and isinstance(n, (int, float))
            and not isinstance(g, bool)
            and not isinstance(n, bool)
            and g == n
        )
        if same:
            continue
        left = "(missing)" if g is _MISSING else json.dumps(g, ensure_ascii=False)
        right = "(missing)" if n is _MISSING else json.dumps(n, ensure_ascii=False)
        findings.append(
            Finding(
                "value",
                "harmful",
                f"{path}: {left}",
                f"{path}: {right}",
                pair_message(
                    f"JSON value at {path} differs", f"{path}: {left}", f"{path}: {right}"
                ),
            )
        )
    if findings:
        return Verdict(0.5, findings)
    return Verdict(
        0.99,
        [
            Finding(
                "format", "harmless", "", "", "same JSON values; only key order or layout differ"
            )
        ],
    )
