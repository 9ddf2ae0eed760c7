"""The meaning check on the two sets it is measured by (issue 29), held to today's numbers.

* ``tests/semantic_dev2.jsonl`` … ``tests/semantic_dev9.jsonl`` — the development sets the check
  was tuned on (158, 90, 114, 114, 116, 110, 116 and 90 pairs, each written by a helper that saw no
  code and no other set; dev set 3 weighted to the pass categories the check misjudged most; dev
  sets 4 to 8 on new topics, each measured once before any tuning on it: 69 %, 77 %, 66 %, 58 %
  and 69 %; dev set 7 is Markdown and paraphrase only, with a changed fact hidden in the fail
  pairs; dev set 8 read 69.0 % (lexical) / 71.6 % (onnx) both before and after the rules tuned
  on dev set 7, a second held-out reading; dev set 9 is reformatted answers only (markdown ↔ prose,
  polite, paraphrase; every fail pair reformatted too) and read 65.6 % (lexical) / 66.7 % (onnx) on
  arrival and 70.0 % / 70.0 % after a round tuned on dev sets 2 to 8 that never saw it; 73.3 % /
  73.3 % after two more rounds whose measuring scripts printed its totals, never its pairs);
  ``tests/semantic_dev11.jsonl`` (150 pairs, all 14 categories, five languages) was written during
  the round that split facts.py and reading.py and read 80.7 % (lexical) / 81.3 % (onnx) on
  arrival, measured with only that behaviour-neutral split in, and 89.3 % / 90.0 % at the end of
  that round (which tuned on it with the others);
* ``bench/semantic_frozen.jsonl`` — the evaluation set, frozen before any tuning (139 pairs,
  written by another helper that saw neither the code nor the dev sets). Nothing is tuned on it:
  these floors only stop a change from making it worse. ``python bench/semantic_accuracy.py``
  prints the per-category tables;
* ``bench/semantic_heldout10.jsonl`` (120 pairs), ``bench/semantic_heldout12.jsonl``,
  ``bench/semantic_heldout13.jsonl``, ``bench/semantic_heldout14.jsonl`` and
  ``bench/semantic_heldout15.jsonl`` (150 pairs each, all
  14 categories, five languages) —
  held-out sets, each written by a helper that saw no code and no data, read before a round
  (totals only) and once after it: a round is kept only when they do not drop. Held-out 12 read
  78.0 % (lexical) / 79.3 % (onnx) before round eight and 78.7 % / 81.3 % after it; held-out 13,
  written during round eight, read 82.0 % / 82.0 % at round eight's base, 82.7 % / 82.7 % after
  it, and the same after round nine; held-out 14, written before round ten, 80.0 % / 80.7 % at
  its base and after it (every held-out set unchanged by round ten; one of its readings, an
  outcome read across the whole answer, cost held-out 12 two false alarms and was taken out).
  Round eleven (false alarms on harmless rewording): held-out 10 93 -> 96 / 94 -> 96, held-out 12
  118 -> 119 (lexical), the others unchanged; its fixes of the reviewer's finds the same.
  Held-out 15, written before round twelve (its domains chosen away from the earlier sets'), read
  75.3 % / 74.7 % at round twelve's base: the lowest of the five, the honest figure for unseen text.
  Round twelve: held-out 12 119 -> 120 / 122 -> 123 (number words 13-29 in de/fr/es), the other
  sets unchanged. Four of its readings were taken out: a denial said once per clause (it let a
  negation pass on held-out 10), and, after a reviewer's reproducers (tests/test_brk10_*.py), a
  table header row read as a label, an inserted ordinal read as no claim and a sentence merged
  by its words in other forms (each let a changed fact pass); the dev sets are where they were.

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
    ("dev2", "lexical"): (0.98, 2),
    ("dev2", "onnx"): (0.96, 3),
    ("dev3", "lexical"): (0.99, 0),
    ("dev3", "onnx"): (0.99, 0),
    ("dev4", "lexical"): (0.95, 3),
    ("dev4", "onnx"): (0.93, 4),
    ("dev5", "lexical"): (0.97, 3),
    ("dev5", "onnx"): (0.97, 3),
    ("dev6", "lexical"): (0.94, 1),
    ("dev6", "onnx"): (0.93, 2),
    ("dev7", "lexical"): (0.85, 6),
    ("dev7", "onnx"): (0.87, 3),
    ("dev8", "lexical"): (0.90, 4),
    ("dev8", "onnx"): (0.90, 4),
    ("dev9", "lexical"): (0.91, 5),
    ("dev9", "onnx"): (0.91, 5),
    ("dev11", "lexical"): (0.94, 3),
    ("dev11", "onnx"): (0.94, 2),
    # 2026-12-06, round seven (m29s7) set the onnx floor one pair lower (said in CAUSES 8.frozen);
    # round eight (m29s8, 2026-12-06) raised both: 122 -> 124/139, false alarms 14 -> 12 and 13 -> 11
    # round ten (m29s10) 124 -> 125/139 on both (false passes 3 -> 2 and 4 -> 3)
    ("frozen", "lexical"): (0.89, 12),
    ("frozen", "onnx"): (0.89, 11),
    # the held-out sets, read once after each round (never tuned on): 93 and 94/120 after round eight
    ("heldout10", "lexical"): (0.80, 13),  # 93 -> 96/120 after round eleven
    ("heldout10", "onnx"): (0.80, 12),  # 94 -> 96/120 after round eleven
    # written before round eight and read once before it (117 and 119/150) and once after (118, 122)
    ("heldout12", "lexical"): (0.80, 17),  # 118 -> 119 -> 120/150 after rounds eleven, twelve
    ("heldout12", "onnx"): (0.82, 14),  # 122 -> 123/150 after round twelve
    # written before round nine: 123/150 on main before round eight, 124 before round nine and after it
    ("heldout13", "lexical"): (0.82, 12),
    ("heldout13", "onnx"): (0.82, 12),
    # written before round ten: 120 and 121/150 on main before it (false alarms 18 and 16), and after
    ("heldout14", "lexical"): (0.80, 18),
    ("heldout14", "onnx"): (0.80, 16),
    # written before round twelve: 113 and 112/150 on main before it (false alarms 20 and 20)
    ("heldout15", "lexical"): (0.75, 20),
    ("heldout15", "onnx"): (0.74, 20),
}
SETS = {
    "dev2": ROOT / "tests" / "semantic_dev2.jsonl",
    "dev3": ROOT / "tests" / "semantic_dev3.jsonl",
    "dev4": ROOT / "tests" / "semantic_dev4.jsonl",
    "dev5": ROOT / "tests" / "semantic_dev5.jsonl",
    "dev6": ROOT / "tests" / "semantic_dev6.jsonl",
    "dev7": ROOT / "tests" / "semantic_dev7.jsonl",
    "dev8": ROOT / "tests" / "semantic_dev8.jsonl",
    "dev9": ROOT / "tests" / "semantic_dev9.jsonl",
    "dev11": ROOT / "tests" / "semantic_dev11.jsonl",
    "frozen": accuracy.FROZEN,
    "heldout10": ROOT / "bench" / "semantic_heldout10.jsonl",
    "heldout12": ROOT / "bench" / "semantic_heldout12.jsonl",
    "heldout13": ROOT / "bench" / "semantic_heldout13.jsonl",
    "heldout14": ROOT / "bench" / "semantic_heldout14.jsonl",
    "heldout15": ROOT / "bench" / "semantic_heldout15.jsonl",
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
    sets = {name: accuracy.load(path) for name, path in SETS.items()}
    sizes = {name: len(pairs) for name, pairs in sets.items()}
    assert sizes == {
        "dev2": 158,
        "dev3": 90,
        "dev4": 114,
        "dev5": 114,
        "dev6": 116,
        "dev7": 110,
        "dev8": 116,
        "dev9": 90,
        "dev11": 150,
        "frozen": 139,
        "heldout10": 120,
        "heldout12": 150,
        "heldout13": 150,
        "heldout14": 150,
        "heldout15": 150,
    }
    assert not {p["golden"] for p in sets["frozen"]} & {
        p["golden"] for name, pairs in sets.items() if name != "frozen" for p in pairs
    }
    # each held-out set's writer chose its own topics; held-out 10 has one golden that dev set 11
    # also has (each with other new answers): no pair is in two sets
    dev_pairs = {
        (p["golden"], p["new"])
        for name, pairs in sets.items()
        if not name.startswith("heldout")
        for p in pairs
    }
    for name in ("heldout10", "heldout12", "heldout13", "heldout14", "heldout15"):
        assert not {(p["golden"], p["new"]) for p in sets[name]} & dev_pairs, name
    for pairs in sets.values():
        assert len({p["id"] for p in pairs}) == len(pairs)
        assert {p["lang"] for p in pairs} == {"en", "de", "fr", "ja", "es"}


@pytest.mark.parametrize(("name", "backend"), sorted(FLOORS))
def test_right_verdicts_stay_at_or_above_todays(name: str, backend: str) -> None:
    result = _result(name, backend)
    least, most_alarms = FLOORS[name, backend]
    table = accuracy.markdown(f"{name}, {backend}", result)
    assert result["right"] / result["total"] >= least, table
    assert result["false_alarms"] <= most_alarms, table


@pytest.mark.parametrize("name", ["dev2", "dev3", "dev4", "dev5", "dev8"])
@pytest.mark.parametrize("backend", ["lexical", "onnx"])
def test_on_the_dev_sets_no_changed_number_and_no_negation_passes(backend: str, name: str) -> None:
    result = _result(name, backend)
    for category in ("number", "negation"):
        right, total, _ = result["categories"][category]
        assert right == total, accuracy.markdown(f"{name}, {backend}", result)
