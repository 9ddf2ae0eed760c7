"""The default semantic check on the labelled answer set of tests/semantic_devset.py (issue 16).

At default settings and with no judge, through ``compute_diff`` (the answer as the final
output, so ``semantic_threshold`` 0.92 decides), on the bare install (``lexical``: sentences
aligned by character trigrams) and with MiniLM (``onnx``, the ``[semantic]`` extra):

* at least 90 % right verdicts overall, on the dev part and on the held-out part;
* no category below 75 %;
* no changed number and no negation passing;
* and on FRESH, a smaller set written after the tuning, at least 90 % as well.

The per-category table is printed (``pytest -s`` shows it) and attached to the assertion
message, so a failure says where the check went wrong.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from agentsnap.diff import compute_diff
from agentsnap.diff.meaning.backends import is_available
from tests.semantic_devset import (
    CASES,
    DEV,
    FAIL_CATEGORIES,
    FRESH,
    HELDOUT,
    PASS_CATEGORIES,
    Case,
)

_RESULTS: dict[str, dict[str, bool]] = {}


def _snap(text: str) -> dict[str, Any]:
    return {"trace": [], "output": text}


def _verdicts(backend: str) -> dict[str, bool]:
    """Case id -> whether the check passed the new answer."""
    if backend != "lexical" and not is_available(backend):
        pytest.skip(f"the {backend!r} backend is not installed (pip install 'agentsnap[semantic]')")
    if backend not in _RESULTS:
        _RESULTS[backend] = {
            case.id: compute_diff(
                _snap(case.golden), _snap(case.new), embedding_backend=backend
            ).passed
            for case in CASES + FRESH
        }
    return _RESULTS[backend]


def _table(
    cases: tuple[Case, ...], verdicts: dict[str, bool]
) -> tuple[float, dict[str, float], str]:
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wrong = []
    for case in cases:
        right = verdicts[case.id] == case.same
        per[case.category][0] += right
        per[case.category][1] += 1
        if not right:
            wrong.append(case.id)
    total = sum(a for a, _ in per.values()) / sum(b for _, b in per.values())
    rates = {k: a / b for k, (a, b) in per.items()}
    lines = [f"overall {total:.1%} of {len(cases)}"]
    lines += [f"  {k:<13} {per[k][0]:>2}/{per[k][1]:<2} {rates[k]:.0%}" for k in per]
    lines.append("  wrong: " + (", ".join(wrong) or "none"))
    return total, rates, "\n".join(lines)


def test_the_set_is_big_varied_and_split() -> None:
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.category for c in CASES} == set(PASS_CATEGORIES) | set(FAIL_CATEGORIES)
    assert {c.lang for c in CASES} == {"en", "de", "fr", "ja"}
    assert sum(c.lang != "en" for c in CASES) >= 40
    # long answers: 300+ words, in English, German and French
    longs = [c for c in CASES if c.category.startswith("long")]
    assert len(longs) >= 20 and min(len(c.golden.split()) for c in longs) >= 300
    assert {c.lang for c in longs} == {"en", "de", "fr"}
    assert (
        len(HELDOUT) >= 50
        and set(DEV).isdisjoint(HELDOUT)
        and len(DEV) + len(HELDOUT) == len(CASES)
    )
    assert {c.category for c in HELDOUT} == {c.category for c in CASES}
    # every pair differs, and the labels are what the category says
    assert all(c.golden != c.new for c in CASES)
    assert all(c.same == (c.category in PASS_CATEGORIES) for c in CASES)


@pytest.mark.parametrize("backend", ["lexical", "onnx"])
@pytest.mark.parametrize("part", ["dev", "held-out"])
def test_accuracy_per_category_meets_the_done_when_thresholds(backend: str, part: str) -> None:
    verdicts = _verdicts(backend)
    cases = DEV if part == "dev" else HELDOUT
    total, rates, table = _table(cases, verdicts)
    print(f"\n[{backend}, {part}] {table}")
    assert total >= 0.90, table
    assert min(rates.values()) >= 0.75, table


@pytest.mark.parametrize("backend", ["lexical", "onnx"])
def test_no_changed_number_and_no_negation_passes(backend: str) -> None:
    verdicts = _verdicts(backend)
    leaked = [c.id for c in CASES if c.category in ("number", "negation") and verdicts[c.id]]
    assert leaked == []


@pytest.mark.parametrize("backend", ["lexical", "onnx"])
def test_whole_set_accuracy(backend: str) -> None:
    total, rates, table = _table(CASES, _verdicts(backend))
    print(f"\n[{backend}, all] {table}")
    assert total >= 0.90 and min(rates.values()) >= 0.75, table


@pytest.mark.parametrize("backend", ["lexical", "onnx"])
def test_a_later_held_out_set_written_after_tuning(backend: str) -> None:
    """FRESH was written once the check was tuned and scored as it stands: 35/36 on both backends
    (the miss: "renews on the 1st of every month" → "every month … is renewed", a passive without
    "by" read as swapped roles)."""
    verdicts = _verdicts(backend)
    total, _, table = _table(FRESH, verdicts)
    print(f"\n[{backend}, fresh] {table}")
    assert total >= 0.90, table
    assert [c.id for c in FRESH if c.category in ("number", "negation") and verdicts[c.id]] == []
