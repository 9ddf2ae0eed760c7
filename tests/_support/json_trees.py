"""Hypothesis strategies for JSON-like trees: the one recursive shape the property tests share,
each test choosing its own leaves (what it probes lives in the leaves)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def json_trees(
    leaves: st.SearchStrategy[Any],
    *,
    max_size: int = 3,
    key_size: int = 4,
    max_leaves: int = 12,
) -> st.SearchStrategy[Any]:
    """Leaves, and lists and text-keyed objects of them nested to any depth."""
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=max_size)
            | st.dictionaries(st.text(max_size=key_size), inner, max_size=max_size)
        ),
        max_leaves=max_leaves,
    )
