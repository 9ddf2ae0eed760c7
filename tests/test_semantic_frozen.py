"""The meaning check on the two sets it is measured by (issue 29), held to today's numbers.

* ``tests/semantic_dev2.jsonl`` and ``tests/semantic_dev3.jsonl`` — the development sets the check
  was tuned on (158 and 90 pairs, each written by a helper that saw no code; the second weighted
  to the pass categories the check misjudged most);
* ``bench/semantic_frozen.jsonl`` — the evaluation set, frozen before any tuning (139 pairs,
  written by another helper that saw neither the code nor the dev sets). Nothing is tuned on it:
  these floors only stop a change from making it worse. ``python bench/semantic_accuracy.py``
  prints the per-category tables.

The floors are today's measured accuracy at default settings, no judge; issue 29's target
(92 % on the frozen set, no changed number or negation passing) is not met yet.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from agentsnap.diff.meaning.backends import is_available

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "semantic_accuracy", ROOT / "bench" / "semantic_accuracy.py"
)
assert _spec is not None and _spec.loader is not None
accuracy = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("semantic_accuracy", accuracy)
_spec.loader.exec_module(accuracy)

#: (set, backend) -> least share of right verdicts, most false alarms (should pass, failed)
FLOORS = {
    ("dev2", "lexical"): (0.88, 15),
    ("dev2", "onnx"): (0.87, 14),
    ("dev3", "lexical"): (0.68, 25),
    ("dev3", "onnx"): (0.68, 24),
    ("frozen", "lexical"): (0.75, 25),
    ("frozen", "onnx"): (0.79, 17),
}
SETS = {
    "dev2": ROOT / "tests" / "semantic_dev2.jsonl",
    "dev3": ROOT / "tests" / "semantic_dev3.jsonl",
    "frozen": accuracy.FROZEN,
}
_RESULTS: dict[tuple[str, str], dict[str, Any]] = {}


def _result(name: str, backend: str) -> dict[str, Any]:
    if backend != "lexical" and not is_available(backend):
        pytest.skip(f"the {backend!r} backend is not installed (pip install 'agentsnap[semantic]')")
    if (name, backend) not in _RESULTS:
        pairs = accuracy.load(SETS[name])
        _RESULTS[name, backend] = accuracy.table(pairs, accuracy.verdicts(pairs, backend))
    return _RESULTS[name, backend]


def test_the_sets_are_what_their_docs_say() -> None:
    frozen, dev2, dev3 = (accuracy.load(SETS[name]) for name in ("frozen", "dev2", "dev3"))
    assert (len(frozen), len(dev2), len(dev3)) == (139, 158, 90)
    assert not {p["golden"] for p in frozen} & {p["golden"] for p in dev2 + dev3}
    for pairs in (frozen, dev2, dev3):
        assert len({p["id"] for p in pairs}) == len(pairs)
        assert {p["lang"] for p in pairs} == {"en", "de", "fr", "ja", "es"}


@pytest.mark.parametrize(("name", "backend"), sorted(FLOORS))
def test_right_verdicts_stay_at_or_above_todays(name: str, backend: str) -> None:
    result = _result(name, backend)
    least, most_alarms = FLOORS[name, backend]
    table = accuracy.markdown(f"{name}, {backend}", result)
    assert result["right"] / result["total"] >= least, table
    assert result["false_alarms"] <= most_alarms, table


@pytest.mark.parametrize("backend", ["lexical", "onnx"])
def test_on_the_dev_set_no_changed_number_and_no_negation_passes(backend: str) -> None:
    result = _result("dev2", backend)
    for category in ("number", "negation"):
        right, total, _ = result["categories"][category]
        assert right == total, accuracy.markdown(f"dev2, {backend}", result)
