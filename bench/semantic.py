"""Cold start and per-pair time of each semantic backend and of the meaning check, as Markdown tables.

    python bench/semantic.py                    # every installed backend, 5 rounds
    python bench/semantic.py --rounds 3 --backends lexical onnx
    python bench/semantic.py --fp32-onnx /path/model.onnx   # also an fp32 ONNX export
    python bench/semantic.py --reference        # print fp32 reference scores (needs [semantic-st])

Method: every round runs each backend once in a fresh Python process, backends
interleaved (round 1: a, b, c; round 2: a, b, c; ...), so a slow spell on a shared
machine hits all of them alike. Each process measures:

* cold start — from before ``import agentsnap.diff.meaning.backends`` to the end of the first
  scored pair: imports, model load, sha256 check, session creation, first inference;
* cold process — from just before the parent spawns the child to the end of the first
  scored pair (interpreter start and ``import agentsnap`` included): what one pytest
  process, or each pytest-xdist worker, pays once;
* warm pair — one short pair (both texts within the window) scored alone, median of the
  table's short pairs, each scored 5 times;
* warm long pair — one pair of >256-piece texts (chunked), median over the long pairs;
* table — all pairs of tests/semantic_pairs.py in one ``score`` call.

A second table times the meaning check (``agentsnap.diff.meaning.verdict.compare_many`` with the
backend's encoder: what ``compute_diff`` runs by default) in its own fresh processes, on
tests/semantic_devset.py: cold start to the first compared pair, every pair of at most 40
words on each side, and six 500-word pairs (a 300-word answer and 180 words of another,
the new side carrying both answers' edits).

Reported: the median over rounds, with the best round in brackets. Nothing here is
asserted by the test suite; numbers depend on the machine and its load (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import time
import json, os, statistics, sys
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from agentsnap.diff.meaning.backends import get_backend
backend = get_backend({name!r})
from tests.semantic_pairs import PAIRS
short = [p for p in PAIRS if not p.kind.startswith("long")]
long = [p for p in PAIRS if p.kind.startswith("long")]
backend.score([(short[0].golden, short[0].new)])
cold = time.perf_counter() - t0
cold_process = time.time() - {spawned!r}

def each(pairs, repeat):
    times = []
    for pair in pairs:
        runs = []
        for _ in range(repeat):
            t = time.perf_counter()
            backend.score([(pair.golden, pair.new)])
            runs.append(time.perf_counter() - t)
        times.append(statistics.median(runs))
    return statistics.median(times)

warm_short = each(short, 5)
warm_long = each(long, 3)
t = time.perf_counter()
backend.score([(p.golden, p.new) for p in PAIRS])
table = time.perf_counter() - t
print(json.dumps({{"cold": cold, "process": cold_process, "short": warm_short, "long": warm_long, "table": table,
                  "threads": getattr(backend, "threads", None), "pairs": len(PAIRS)}}))
"""

#: the meaning check (agentsnap.diff.meaning.verdict, the default semantic check) on the labelled set
MEANING_CHILD = r"""
import time
import json, os, statistics, sys
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from agentsnap.diff.meaning.backends import get_backend
from agentsnap.diff.meaning.verdict import compare_many
backend = get_backend({name!r})
encoder = backend.encoder()
compare_many([("The train arrives at 10:30.", "Your train gets in at 10.30 am.")], encoder)
cold = time.perf_counter() - t0
cold_process = time.time() - {spawned!r}
from tests.semantic_devset import CASES
short = [c for c in CASES if len(c.golden.split()) <= 40 and len(c.new.split()) <= 40]
longs = [c for c in CASES if c.category.startswith("long")]

def words(text, n):
    return " ".join(text.split()[:n])

# 500-word pairs: a long answer followed by the first 180 words of another; the new side has the
# other pair's edits (reworded middle sentences, a changed fact at the end)
big = []
for a, b in zip(longs[:6], longs[6:12]):
    big.append((a.golden + "\n\n" + words(b.golden, 180), a.new + "\n\n" + words(b.new, 180)))

def each(pairs, repeat):
    times = []
    for golden, new in pairs:
        runs = []
        for _ in range(repeat):
            t = time.perf_counter()
            compare_many([(golden, new)], encoder)
            runs.append(time.perf_counter() - t)
        times.append(statistics.median(runs))
    return statistics.median(times), max(times)

short_med, short_max = each([(c.golden, c.new) for c in short], 3)
big_med, big_max = each(big, 3)
t = time.perf_counter()
compare_many([(c.golden, c.new) for c in CASES], encoder)
table = time.perf_counter() - t
print(json.dumps({{"cold": cold, "process": cold_process, "short": short_med, "short_max": short_max,
                  "big": big_med, "big_max": big_max, "big_words": statistics.median(len(g.split()) for g, _ in big),
                  "table": table, "pairs": len(CASES), "short_pairs": len(short)}}))
"""


def available() -> list[str]:
    sys.path.insert(0, str(ROOT / "src"))
    from agentsnap.diff.meaning.backends import is_available

    return [name for name in ("lexical", "onnx", "sentence-transformers") if is_available(name)]


def run_child(name: str, env: dict[str, str], template: str = CHILD) -> dict[str, float]:
    code = template.format(root=str(ROOT), name=name, spawned=time.time())
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{name}: child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt(values: list[float], unit: str) -> str:
    scale = 1000.0 if unit == "ms" else 1.0
    med, best = statistics.median(values) * scale, min(values) * scale
    digits = 2 if unit == "s" else (3 if med < 1 else 1)
    return f"{med:.{digits}f} {unit} [{best:.{digits}f}]"


def reference() -> None:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "src"))
    from agentsnap.diff.meaning.backends import get_backend
    from tests.semantic_pairs import PAIRS

    scores = get_backend("sentence-transformers").score([(p.golden, p.new) for p in PAIRS])
    for pair, score in zip(PAIRS, scores, strict=True):
        print(f'    "{pair.id}": {score:.6f},')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--backends", nargs="*", default=None, help="default: every installed one")
    parser.add_argument(
        "--fp32-onnx", default=None, help="also time this fp32 ONNX export (as onnx-fp32)"
    )
    parser.add_argument(
        "--reference", action="store_true", help="print fp32 reference scores and exit"
    )
    args = parser.parse_args()
    if args.reference:
        reference()
        return
    names = args.backends or available()
    variants: list[tuple[str, str, dict[str, str]]] = []
    base_env = {**os.environ}
    base_env.pop("AGENTSNAP_EMBEDDING_MODEL", None)
    for name in names:
        variants.append((name, name, base_env))
    if args.fp32_onnx:
        variants.append(
            ("onnx-fp32", "onnx", {**base_env, "AGENTSNAP_EMBEDDING_MODEL": args.fp32_onnx})
        )
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in variants}
    meaning: dict[str, list[dict[str, float]]] = {
        name: [] for name in names if name != "sentence-transformers"
    }
    for round_no in range(args.rounds):
        for label, name, env in variants:
            results[label].append(run_child(name, env))
        for name in meaning:
            meaning[name].append(run_child(name, base_env, MEANING_CHILD))
        print(f"round {round_no + 1}/{args.rounds} done", file=sys.stderr)

    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
        f"{', '.join(f'{x:.1f}' for x in load)} after the run; {args.rounds} interleaved rounds, "
        "median [best]."
    )
    print()
    print(
        "| backend | cold start (imports + load + first pair) | cold process (spawn → first pair) | warm short pair | warm long pair (chunked) | whole table in one call | threads |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, _, _ in variants:
        rows = results[label]
        pairs = int(rows[0]["pairs"])
        print(
            f"| {label} | {fmt([r['cold'] for r in rows], 's')} | {fmt([r['process'] for r in rows], 's')} "
            f"| {fmt([r['short'] for r in rows], 'ms')} | {fmt([r['long'] for r in rows], 'ms')} "
            f"| {fmt([r['table'] for r in rows], 'ms')} ({pairs} pairs) | {rows[0].get('threads') or '-'} |"
        )
    if meaning:
        print()
        print(
            "The meaning check (the default semantic check, `agentsnap.diff.meaning.verdict`) on tests/semantic_devset.py;"
        )
        print(
            "budget (issue 16): cold start <= 1 s with the model, <= 20 ms per short pair, <= 150 ms per 500-word pair."
        )
        print()
        print(
            "| sentences aligned by | cold start (imports + load + first pair) | cold process (spawn → first pair) | short pair (median / worst) | 500-word pair (median / worst) | whole set in one call |"
        )
        print("|---|---|---|---|---|---|")
        for name, rows in meaning.items():
            label = (
                "character trigrams (`lexical`, bare install)"
                if name == "lexical"
                else f"MiniLM + trigrams (`{name}`)"
            )
            print(
                f"| {label} | {fmt([r['cold'] for r in rows], 's')} | {fmt([r['process'] for r in rows], 's')} "
                f"| {fmt([r['short'] for r in rows], 'ms')} / {fmt([r['short_max'] for r in rows], 'ms')} "
                f"({int(rows[0]['short_pairs'])} pairs) "
                f"| {fmt([r['big'] for r in rows], 'ms')} / {fmt([r['big_max'] for r in rows], 'ms')} "
                f"({int(rows[0]['big_words'])} words) "
                f"| {fmt([r['table'] for r in rows], 'ms')} ({int(rows[0]['pairs'])} pairs) |"
            )


if __name__ == "__main__":
    main()
