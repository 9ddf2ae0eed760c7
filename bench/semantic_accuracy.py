"""Right verdicts of the default semantic check on a labelled set of answer pairs, per category.

    python bench/semantic_accuracy.py                       # the frozen evaluation set, every backend
    python bench/semantic_accuracy.py --set tests/semantic_dev2.jsonl --backends lexical
    python bench/semantic_accuracy.py --wrong               # also list each wrong verdict's findings

A set is a JSON-lines file, one pair a line: ``{"id", "category", "lang", "golden", "new",
"should": "pass" | "fail", "why"}``. Each pair goes through ``compute_diff`` at default settings and
with no judge, the new answer as the run's final output (so ``semantic_threshold`` decides), as
``tests/test_semantic_devset.py`` does. Reported: right verdicts overall, false alarms (should pass,
failed) and false passes (should fail, passed) as shares of their side, per category and per language.

``bench/semantic_frozen.jsonl`` is the evaluation set of issue 29: written by a helper that saw neither
the check's code nor its development sets, and frozen (committed) before any tuning. It is the number
the check is judged by; nothing is tuned on it (the dev sets are ``tests/semantic_devset.py`` and
``tests/semantic_dev2.jsonl`` … ``tests/semantic_dev5.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FROZEN = ROOT / "bench" / "semantic_frozen.jsonl"


def load(path: Path) -> list[dict[str, Any]]:
    """The pairs of a JSON-lines set, each checked for the fields a verdict needs."""
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        pair = json.loads(line)
        missing = {"id", "category", "golden", "new", "should"} - set(pair)
        if missing or pair["should"] not in ("pass", "fail"):
            raise SystemExit(f"{path}:{number}: a pair needs id, category, golden, new, should")
        pairs.append(pair)
    return pairs


def verdicts(pairs: list[dict[str, Any]], backend: str) -> dict[str, Any]:
    """``{pair id: DiffReport}`` at default settings with ``backend``."""
    from agentsnap.diff import compute_diff

    return {
        p["id"]: compute_diff(
            {"trace": [], "output": p["golden"]},
            {"trace": [], "output": p["new"]},
            embedding_backend=backend,
        )
        for p in pairs
    }


def table(pairs: list[dict[str, Any]], reports: dict[str, Any]) -> dict[str, Any]:
    """Totals and per-category / per-language counts of right verdicts."""
    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    should: dict[str, str] = {}
    wrong = []
    alarms = passes = n_pass = n_fail = 0
    for p in pairs:
        passed = reports[p["id"]].passed
        right = passed == (p["should"] == "pass")
        should.setdefault(p["category"], p["should"])
        for bucket in (per_cat[p["category"]], per_lang[p.get("lang", "?")]):
            bucket[0] += right
            bucket[1] += 1
        if p["should"] == "pass":
            n_pass += 1
            alarms += not right
        else:
            n_fail += 1
            passes += not right
        if not right:
            wrong.append(p)
    return {
        "right": sum(a for a, _ in per_cat.values()),
        "total": len(pairs),
        "false_alarms": alarms,
        "should_pass": n_pass,
        "false_passes": passes,
        "should_fail": n_fail,
        "categories": {k: (*v, should[k]) for k, v in per_cat.items()},
        "languages": dict(per_lang),
        "wrong": wrong,
    }


def markdown(name: str, result: dict[str, Any]) -> str:
    """The result as Markdown: one line of totals, then the per-category table."""
    r = result
    lines = [
        f"**{name}**: {r['right']}/{r['total']} right ({r['right'] / r['total']:.1%}); "
        f"false alarms {r['false_alarms']}/{r['should_pass']} "
        f"({r['false_alarms'] / max(r['should_pass'], 1):.1%}), "
        f"false passes {r['false_passes']}/{r['should_fail']}",
        "",
        "| category | should | right |",
        "|---|---|---|",
    ]
    order = sorted(r["categories"].items(), key=lambda kv: (kv[1][2] != "pass", kv[0]))
    lines += [f"| {cat} | {sh} | {a}/{b} |" for cat, (a, b, sh) in order]
    langs = ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(r["languages"].items()))
    lines += ["", f"by language: {langs}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=FROZEN, help="a JSON-lines set of pairs")
    parser.add_argument("--backends", nargs="+", default=["lexical", "onnx"])
    parser.add_argument("--wrong", action="store_true", help="list each wrong verdict")
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from agentsnap.diff.meaning.backends import is_available

    pairs = load(args.set)
    out = {}
    for backend in args.backends:
        if backend != "lexical" and not is_available(backend):
            print(f"{backend}: not installed, skipped\n")
            continue
        reports = verdicts(pairs, backend)
        result = table(pairs, reports)
        out[backend] = {k: v for k, v in result.items() if k != "wrong"}
        print(markdown(f"{args.set.name}, {backend}", result), end="\n\n")
        if args.wrong:
            for p in result["wrong"]:
                report = reports[p["id"]]
                score = report.semantic_scores.get("output")
                print(f"- {p['id']} ({p['category']}, should {p['should']}, score {score})")
                for reason in report.reasons.get("output", [])[:3]:
                    print(f"    {reason}")
            print()
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
