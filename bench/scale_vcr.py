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

vcrpy at 10,000 calls would take most of an hour: each request is matched against every
interaction played before it, so a call's time grows with its position. The 1,000-call vcrpy
runs time each call; a straight line fitted to those times (per-call time = a + b × position,
on the medians of ten 100-call blocks) and the cassette's load time scaled with its size give
vcrpy's time at 10,000 calls, marked as extrapolated. ``--vcr-max 10000`` runs vcrpy there
once instead (in the background of a long run: ~40 min here).
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
    fmt_time,
    fmt_times,
    forget_scrub_memo,
    have,
    median,
    ratios,
)

SIZES = (100, 1000, 10000)
FIT_AT = 1000  # vcrpy's per-call times at this size give the extrapolation to larger ones
#: issue 18: agentsnap at least this many times faster than vcrpy, by session size
VCR_RATIO_MIN = {1000: 12.0, 10000: 80.0}


def _agentsnap_session(root: Path, n: int, client: Any) -> str:
    """Record (or, above 1,000, extend) an n-call groq session as a snapshot; returns its name."""
    from agentsnap.capture.recording import Recording
    from agentsnap.storage.snapshot import Snapshot, dumps
    from agentsnap.storage.store import SnapshotStore

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
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording
    from agentsnap.storage.store import SnapshotStore

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


def _vcr_extend(source: Path, target: Path, n: int) -> None:
    """An n-interaction vcrpy cassette: the source cassette's interactions repeated in order."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    data = yaml.load(source.read_text(encoding="utf-8"), Loader=loader)
    base = data["interactions"]
    data["interactions"] = [base[i % len(base)] for i in range(n)]
    target.write_text(yaml.dump(data, Dumper=dumper), encoding="utf-8")


def _replay_vcr(path: Path, n: int, client: Any, calls: list[float] | None = None) -> float:
    """Load and replay the vcrpy cassette; ``calls`` receives the load time, then each call's."""
    import vcr

    gc.collect()
    t0 = clock()
    with vcr.VCR(record_mode="none").use_cassette(str(path)) as cassette:
        if calls is not None:
            calls.append(clock() - t0)
        for i in range(n):
            c0 = clock()
            _sdk.call(client, "groq", i, False)
            if calls is not None:
                calls.append(clock() - c0)
    elapsed = clock() - t0
    assert cassette.play_count == n, cassette.play_count
    return elapsed


def _fit(runs: list[list[float]], n_fit: int) -> tuple[float, float, float]:
    """(load per interaction, a, b) from timed vcrpy runs of ``n_fit`` calls: per-call time
    ``a + b × position``, least squares on the medians of ten equal blocks of calls."""
    load = median([r[0] for r in runs]) / n_fit
    blocks = 10
    size = n_fit // blocks
    xs, ys = [], []
    for k in range(blocks):
        per_run = [median(r[1 + k * size : 1 + (k + 1) * size]) for r in runs]
        xs.append(k * size + (size - 1) / 2)
        ys.append(median(per_run))
    mx, my = sum(xs) / blocks, sum(ys) / blocks
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return load, my - b * mx, b


def _predict(fit: tuple[float, float, float], n: int) -> float:
    load, a, b = fit
    return load * n + a * n + b * n * (n - 1) / 2


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
    fit_runs: list[list[float]] = []
    for n in sizes:
        ctx.log(f"  row 4: preparing {n} calls")
        name = _agentsnap_session(root, n, ours)
        if n <= 1000:
            _replay_agentsnap(root, name, n, ours)  # warm-up
        use_vcr = not vcr_missing and n <= max(ctx.vcr_max, FIT_AT)
        cassette = root / f"vcr_{n}.yaml"
        if use_vcr:
            if n <= 1000:
                _vcr_record(cassette, n, bare)
            else:  # the 1,000-call cassette's interactions, repeated (vcrpy matches on the URL only)
                _vcr_extend(root / "vcr_1000.yaml", cassette, n)
        rounds = ctx.rounds(3, 2) if n <= 100 else ctx.rounds(2, 1)
        res: dict[str, list[float]] = {"agentsnap": [], "vcrpy": []}
        ctx.log(f"  row 4: {n} calls ({rounds} rounds{', with vcrpy' if use_vcr else ''})")
        for r in range(rounds):
            order = ("agentsnap", "vcrpy") if r % 2 == 0 else ("vcrpy", "agentsnap")
            for side in order:
                if side == "agentsnap":
                    res["agentsnap"].append(_replay_agentsnap(root, name, n, ours, strict=True))
                elif use_vcr and (n <= 1000 or not res["vcrpy"]):  # above 1,000: once
                    timed: list[float] | None = [] if n == FIT_AT else None
                    res["vcrpy"].append(_replay_vcr(cassette, n, bare, timed))
                    if timed is not None:
                        fit_runs.append(timed)
        results[n] = res

    sec.add(
        "Each time includes loading the recording from disk. Median [min–max] over rounds, the two tools alternating "
        "within each round.",
        "",
    )
    if vcr_missing:
        sec.add("vcrpy column not measured: `pip install vcrpy` (with PyYAML).", "")
    fit = _fit(fit_runs, FIT_AT) if fit_runs else None
    vcr_ratio: dict[int, float] = {}
    extrapolated: set[int] = set()
    rows = []
    for n, res in results.items():
        a = res["agentsnap"]
        v = res["vcrpy"]
        row = [f"{n:,}", fmt_times(a), f"{median(a) / n * 1e6:.0f} µs"]
        if v:
            row += [
                fmt_times(v) if len(v) > 1 else f"{fmt_time(v[0])} (once)",
                f"{median(v) / n * 1e6:.0f} µs",
                fmt_ratio(ratios(v, a), 1) if len(v) > 1 else f"{v[0] / median(a):.1f}×",
            ]
            vcr_ratio[n] = median(ratios(v, a)) if len(v) > 1 else v[0] / median(a)
        elif fit is not None:
            guess = _predict(fit, n)
            extrapolated.add(n)
            vcr_ratio[n] = guess / median(a)
            row += [
                f"≈ {fmt_time(guess)} (extrapolated, not run)",
                f"≈ {guess / n * 1e6:.0f} µs",
                f"≈ {vcr_ratio[n]:.0f}× (extrapolated)",
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
    if fit is not None:
        load, a0, b0 = fit
        check = _predict(fit, FIT_AT) / median(results[FIT_AT]["vcrpy"])
        sec.add(
            f"vcrpy extrapolation: from the {len(fit_runs)} timed {FIT_AT:,}-call run(s), a call at position k takes "
            f"{a0 * 1e6:.0f} µs + {b0 * 1e6:.2f} µs × k (each request is matched against the interactions played "
            f"before it) and loading takes {load * 1e6:.0f} µs per interaction; the same formula gives "
            f"{check:.2f}× the measured {FIT_AT:,}-call time. "
            + (
                f"Rows marked *extrapolated* ({', '.join(f'{n:,}' for n in sorted(extrapolated))} calls) were not run "
                f"with vcrpy (`--vcr-max {max(extrapolated)}` runs them, once)."
                if extrapolated
                else ""
            ),
            "",
        )
    t1k = results.get(1000, {}).get("agentsnap")
    t10k = results.get(10000, {}).get("agentsnap")
    growth = None
    if t1k and t10k:
        growth = median(t10k) / median(t1k)
        sec.add(
            f"agentsnap growth from 1,000 to 10,000 calls: {growth:.1f}× (linear would be 10×).", ""
        )
    for n, minimum in VCR_RATIO_MIN.items():
        how = " (vcrpy extrapolated)" if n in extrapolated else ""
        sec.target(
            f"agentsnap ≥ {minimum:.0f}× faster than vcrpy at {n:,} calls{how}",
            (vcr_ratio[n] >= minimum) if n in vcr_ratio else None,
            key=f"4.vcr_{n}",
        )
    sec.target(
        "agentsnap grows linearly: 10,000 calls ≤ 12× the 1,000-call time",
        (growth <= 12) if growth is not None else None,
        key="4.growth",
    )
    if 1000 in vcr_ratio:
        sec.headline["vcr_1000"] = f"{vcr_ratio[1000]:.0f}×"
    if growth is not None:
        sec.headline["growth"] = f"{growth:.1f}×"
    return sec
