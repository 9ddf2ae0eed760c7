"""Row 4: replaying a session of 100, 1,000 and 10,000 groq chat calls, agentsnap vs vcrpy.

groq's SDK sends through ``httpx``, which vcrpy patches. Both sides replay the same
interactions, through the same SDK, on an in-process transport, and each timing
includes loading the recording from disk:

* agentsnap: ``SnapshotStore.load`` + ``Cassette`` + the calls inside a replay recording;
* vcrpy: ``use_cassette(record_mode="none")`` (YAML, libyaml when available) + the calls,
  with vcrpy's default ``match_on`` (method, scheme, host, port, path, query) — its
  cheapest matching; matching on the body as well costs about 10× more.

Sessions are built once: 100 / 1,000 calls recorded for real by each tool;
agentsnap's 10,000-call snapshot is the 1,000-call recording's pattern extended
(same request and response shapes, each with its own question number), checked by a
strict replay (an inexact match would raise).
"""

from __future__ import annotations

import copy
import gc
import json
import shutil
from pathlib import Path
from typing import Any

import _sdk
from _common import (
    Ctx,
    Section,
    clock,
    fmt_ratio,
    fmt_times,
    forget_scrub_memo,
    have,
    median,
    ratios,
)

SIZES = (100, 1000, 10000)
VCR_MAX = 1000  # vcrpy's per-request cost grows with the cassette: 10,000 would take hours


def _agentsnap_session(root: Path, n: int, client: Any) -> str:
    """Record (or, above 1,000, extend) an n-call groq session as a snapshot; returns its name."""
    from agentsnap.capture import Recording
    from agentsnap.snapshot import Snapshot, SnapshotStore, dumps

    name = f"groq_session_{n}"
    store = SnapshotStore(root)
    if n <= 1000:
        recording = Recording("capture").start()
        try:
            for i in range(n):
                _sdk.call(client, "groq", i, False)
        finally:
            recording.stop()
        # replay order is recording order; build steps without the capture-order grouping pass
        for index, ex in enumerate(recording.trace.exchanges):
            ex.replay_index = index
        steps = recording.trace.steps()
    else:
        base = json.loads(store.path_for("groq_session_1000").read_text(encoding="utf-8"))["trace"]
        llm = [s for s in base if s.get("type") == "llm_call"]
        steps = []
        for i in range(n):
            template = llm[i % len(llm)]
            j = i % len(llm)
            text = (
                json.dumps(template)
                .replace(f"Question {j}:", f"Question {i}:")
                .replace(f"city number {j} ", f"city number {i} ")
            )
            text = text.replace(f'chatcmpl-bench{j}"', f'chatcmpl-bench{i}"').replace(
                f'"req_{j}"', f'"req_{i}"'
            )
            step = json.loads(text)
            step["step"] = i
            steps.append(step)
    snap = Snapshot(name=name, trace=copy.deepcopy(steps), approved=True)
    path = store.path_for(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(snap.to_dict()), encoding="utf-8")
    return name


def _replay_agentsnap(root: Path, name: str, n: int, client: Any, *, strict: bool = False) -> float:
    """Load and replay the session; ``strict``: exact request matches only (a miss raises)."""
    from agentsnap.capture import Recording
    from agentsnap.replay import Cassette
    from agentsnap.snapshot import SnapshotStore

    forget_scrub_memo()  # as in a fresh process
    gc.collect()
    t0 = clock()
    snap = SnapshotStore(root).load(name)
    assert snap is not None
    recording = Recording("replay", cassette=Cassette(snap.trace, name=name, strict=strict)).start()
    try:
        for i in range(n):
            _sdk.call(client, "groq", i, False)
    finally:
        recording.stop()
    elapsed = clock() - t0
    assert recording.misses == 0 and not any(e.request_drift for e in recording.trace.exchanges)
    return elapsed


def _vcr_record(path: Path, n: int, client: Any) -> None:
    import vcr

    with vcr.VCR(record_mode="all").use_cassette(str(path)):
        for i in range(n):
            _sdk.call(client, "groq", i, False)


def _replay_vcr(path: Path, n: int, client: Any) -> float:
    import vcr

    gc.collect()
    t0 = clock()
    with vcr.VCR(record_mode="none").use_cassette(str(path)) as cassette:
        for i in range(n):
            _sdk.call(client, "groq", i, False)
    elapsed = clock() - t0
    assert cassette.play_count == n, cassette.play_count
    return elapsed


def run(ctx: Ctx) -> Section:
    sec = Section("4", "Replay at scale: a session of recorded groq calls, agentsnap vs vcrpy")
    if have("groq", "httpx"):
        sec.skipped = "groq is not installed (`pip install groq`)."
        return sec
    vcr_missing = have("vcr", "yaml")
    root = ctx.scratch / "row4"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    ours = _sdk.make_client("groq")
    bare = _sdk.make_client("groq", bare=True)
    sizes = SIZES
    results: dict[int, dict[str, list[float]]] = {}
    for n in sizes:
        ctx.log(f"  row 4: preparing {n} calls")
        name = _agentsnap_session(root, n, ours)
        if n <= 1000:
            _replay_agentsnap(root, name, n, ours)  # warm-up
        use_vcr = not vcr_missing and n <= VCR_MAX
        cassette = root / f"vcr_{n}.yaml"
        if use_vcr:
            _vcr_record(cassette, n, bare)
        rounds = ctx.rounds(3, 2) if n <= 100 else ctx.rounds(2, 1)
        res: dict[str, list[float]] = {"agentsnap": [], "vcrpy": []}
        ctx.log(f"  row 4: {n} calls ({rounds} rounds{', with vcrpy' if use_vcr else ''})")
        for r in range(rounds):
            order = ("agentsnap", "vcrpy") if r % 2 == 0 else ("vcrpy", "agentsnap")
            for side in order:
                if side == "agentsnap":
                    res["agentsnap"].append(_replay_agentsnap(root, name, n, ours, strict=True))
                elif use_vcr:
                    res["vcrpy"].append(_replay_vcr(cassette, n, bare))
        results[n] = res

    sec.add(
        "Each time includes loading the recording from disk. Median [min–max] over rounds, the two tools alternating "
        "within each round.",
        "",
    )
    if vcr_missing:
        sec.add("vcrpy column not measured: `pip install vcrpy` (with PyYAML).", "")
    rows = []
    for n, res in results.items():
        a = res["agentsnap"]
        v = res["vcrpy"]
        row = [f"{n:,}", fmt_times(a), f"{median(a) / n * 1e6:.0f} µs"]
        if v:
            row += [fmt_times(v), f"{median(v) / n * 1e6:.0f} µs", fmt_ratio(ratios(v, a), 1)]
        elif n > VCR_MAX and not vcr_missing:
            row += [
                f"not run (quadratic: {n // 1000}× the calls, each matched against {n // 1000}× the interactions)",
                "—",
                "—",
            ]
        else:
            row += ["—", "—", "—"]
        rows.append(row)
    sec.table(
        [
            "calls",
            "agentsnap (load + replay)",
            "agentsnap per call",
            "vcrpy (load + replay)",
            "vcrpy per call",
            "vcrpy / agentsnap",
        ],
        rows,
    )
    t1k = results.get(1000, {}).get("agentsnap")
    t10k = results.get(10000, {}).get("agentsnap")
    v1k = results.get(1000, {}).get("vcrpy")
    growth = None
    if t1k and t10k:
        growth = median(t10k) / median(t1k)
        sec.add(
            f"agentsnap growth from 1,000 to 10,000 calls: {growth:.1f}× (linear would be 10×).", ""
        )
    sec.target(
        "agentsnap ≥ 20× faster than vcrpy at 1,000 calls",
        (median(ratios(v1k, t1k)) >= 20) if v1k and t1k else None,
    )
    sec.target(
        "agentsnap grows linearly: 10,000 calls ≤ 12× the 1,000-call time",
        (growth <= 12) if growth is not None else None,
    )
    if v1k and t1k:
        sec.headline["vcr_1000"] = fmt_ratio(ratios(v1k, t1k), 0).split(" [")[0]
    if growth is not None:
        sec.headline["growth"] = f"{growth:.1f}×"
    return sec
