"""Row 3b: an openai agent test replayed by agentsnap and by agentsnap 0.5.1, alternating.

The same test — 1, 100 or 1,000 different chat calls, JSON or streamed, the SDK on
an in-process transport — is recorded once by each, then replayed in rounds:
agentsnap in this process (``AgentAsserter(mode="replay")``), 0.5.1 in a worker
process started from its own venv (``bench/legacy_worker.py``: 0.5.1 shares our
import name), one after the other within each round, in alternating order.

Each test is timed in three phases: entering the block (snapshot load, cassette
index), the calls, and exiting it (trace normalisation, diff, ``.last_run``
write). 0.5.1 rebuilds SDK objects at the public methods, so its whole test is
harness overhead; agentsnap runs the SDK's own request building and parsing for
each call, and its own overhead is the enter and exit phases plus its share of
each call (row 3, "ours").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import _sdk
from _common import BENCH, Ctx, Section, fmt_ratio, fmt_time, fmt_times, have, median, ratios

SIZES = (1, 100, 1000)
SHAPES = (("json", False), ("stream", True))


class Legacy:
    """The 0.5.1 worker process."""

    def __init__(self, python: str) -> None:
        self.proc = subprocess.Popen(
            [python, str(BENCH / "legacy_worker.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=str(BENCH),
            # 0.5.1 shares our import name: a PYTHONPATH pointing at a checkout's src/ would win over
            # the venv's site-packages and time the wrong agentsnap
            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        )
        self.info = self.ask({"op": "hello"})

    def ask(self, cmd: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"agentsnap 0.5.1 worker exited ({self.proc.wait()})")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise RuntimeError(
                f"agentsnap 0.5.1 worker: {reply.get('error')}\n{reply.get('trace', '')}"
            )
        return reply

    def close(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def legacy_python(ctx: Ctx) -> tuple[str | None, str]:
    """The 0.5.1 venv's Python, or None and why not."""
    if not ctx.legacy_python:
        return (
            None,
            "no venv with agentsnap 0.5.1 given (`python bench/run.py --legacy-venv DIR` creates one)",
        )
    if not Path(ctx.legacy_python).exists():
        return None, f"{ctx.legacy_python} does not exist"
    return ctx.legacy_python, ""


class Ours:
    """agentsnap's side, in this process."""

    def __init__(self, root: Path) -> None:
        from agentsnap.config import load as load_settings
        from agentsnap.storage.last_run_writer import LastRunWriter

        self.root = root
        self.client = _sdk.make_client("openai")
        # one Settings for the run, as the pytest plugin has (not re-read per test)
        self.settings = load_settings(root)
        # the `.last_run` file written through the session's writer, as the pytest plugin's blocks
        # have it (`_pytest/fixture.py`, `_pytest/session.py`: held, written at the session's
        # end); `sync=True`: as a block outside pytest does (written inside the exit)
        self.writer = LastRunWriter()

    def agent(self, n: int, stream: bool) -> str:
        text = ""
        for i in range(n):
            last = _sdk.call(self.client, "openai", i, stream)
            if not stream:
                text = last.choices[0].message.content or ""
        return text or "".join(_sdk.ANSWER)

    def setup(self, name: str, n: int, stream: bool) -> None:
        from agentsnap import AgentRecorder

        with AgentRecorder(name, snapshot_dir=self.root, settings=self.settings) as rec:
            rec.output = self.agent(n, stream)

    def run(self, name: str, n: int, stream: bool, *, sync: bool = False) -> dict[str, float]:
        """One replayed test, timed by phase; the block's `.last_run` file is counted in ``exit``:
        held by the session's writer and written as the session's end writes it (``sync``: no
        writer, written inside the block's exit)."""
        import gc

        from _common import clock, forget_scrub_memo

        from agentsnap import AgentAsserter

        forget_scrub_memo()  # as in a fresh process: this test's strings not seen before
        gc.collect()
        gc.disable()
        try:
            t0 = clock()
            block = AgentAsserter(
                name, snapshot_dir=self.root, mode="replay", settings=self.settings
            )
            if not sync:
                block.store.writer = self.writer
            block.__enter__()
            t1 = clock()
            block.output = self.agent(n, stream)
            t2 = clock()
            block.__exit__(None, None, None)
            # the file the writer held, written as the session's end writes it: counted in the exit
            errors = self.writer.close()
            t3 = clock()
        finally:
            gc.enable()
        assert errors == []
        assert block.outcome is not None and block.outcome.action == "passed", block.outcome
        return {"enter": t1 - t0, "calls": t2 - t1, "exit": t3 - t2, "total": t3 - t0}


def _rounds(ctx: Ctx, n: int) -> int:
    if n >= 1000:
        return ctx.rounds(2, 1)
    if n >= 100:
        return ctx.rounds(5, 2)
    return ctx.rounds(15, 7)


def run(ctx: Ctx, ours_share: dict[str, str] | None = None) -> Section:
    sec = Section("3b", "Replay vs the previous-generation harness (agentsnap 0.5.1)")
    if have("openai", "httpx2"):
        sec.skipped = "openai is not installed."
        return sec
    python, why = legacy_python(ctx)
    root = ctx.scratch / "row3b"
    shutil.rmtree(root, ignore_errors=True)
    (root / "ours").mkdir(parents=True)
    (root / "legacy").mkdir(parents=True)
    (root / "ours" / "pyproject.toml").write_text("[tool.agentsnap]\n")
    ours = Ours(root / "ours")
    legacy = None
    if python:
        try:
            legacy = Legacy(python)
        except Exception as exc:
            why = f"the 0.5.1 worker did not start ({exc})"
    results: dict[tuple[int, str], dict[str, list[dict[str, float]]]] = {}
    try:
        for n in SIZES:
            for shape, stream in SHAPES:
                name = f"agent_{n}_{shape}"
                ours.setup(name, n, stream)
                if legacy:
                    legacy.ask(
                        {
                            "op": "setup",
                            "n": n,
                            "stream": stream,
                            "dir": str(root / "legacy"),
                            "name": name,
                        }
                    )
                rounds = _rounds(ctx, n)
                ctx.log(f"  row 3b: {n} calls {shape} ({rounds} rounds)")
                res: dict[str, list[dict[str, float]]] = {"ours": [], "sync": [], "legacy": []}
                ours.run(name, n, stream)  # warm-up
                if legacy:
                    legacy.ask(
                        {
                            "op": "run",
                            "n": n,
                            "stream": stream,
                            "dir": str(root / "legacy"),
                            "name": name,
                            "reps": 1,
                        }
                    )
                for r in range(rounds):
                    order = ("ours", "legacy") if r % 2 == 0 else ("legacy", "ours")
                    for side in order:
                        if side == "ours":
                            res["ours"].append(ours.run(name, n, stream))
                            res["sync"].append(ours.run(name, n, stream, sync=True))
                        elif legacy:
                            reply = legacy.ask(
                                {
                                    "op": "run",
                                    "n": n,
                                    "stream": stream,
                                    "dir": str(root / "legacy"),
                                    "name": name,
                                    "reps": 1,
                                }
                            )
                            res["legacy"].append(reply["runs"][0])
                results[(n, shape)] = res
    finally:
        if legacy:
            legacy.close()

    def col(runs: list[dict[str, float]], key: str) -> list[float]:
        return [r[key] for r in runs]

    def overhead(runs: list[dict[str, float]]) -> list[float]:
        return [r["enter"] + r["exit"] for r in runs]

    sec.add(
        "Per test: median [min–max] over rounds. *agentsnap overhead* = entering + exiting the `AgentAsserter` block "
        "with its `.last_run` file through the session's writer, as the pytest plugin's blocks do (snapshot load and index, "
        "trace normalisation, diff; the file held by the writer and written as the session's end writes it, that write counted "
        "in the exit: in place, or temp file and rename; a run of 500 steps or more in pieces, at once); "
        "*the same, `.last_run` written at once*: a block outside pytest, without the session's writer "
        "(the same write, inside the exit; a failure warns at once instead of at the session's end), like for like with 0.5.1, which "
        "writes its file inside the test too; *0.5.1 whole test* = everything 0.5.1 "
        "does for the test (`PatchSet` and `AgentAsserter` enter, replayed calls, diff, `.last_run` write), which is all "
        "harness. agentsnap's calls run the SDK's own request building and parsing (row 3).",
        "",
    )
    if legacy is None:
        sec.add(f"agentsnap 0.5.1 side not run: {why}. Only agentsnap's side is shown.", "")
    else:
        sec.add(
            f"0.5.1 worker: agentsnap {legacy.info['agentsnap']}, openai {legacy.info['openai']}, Python {legacy.info['python']}.",
            "",
        )
    rows = []
    met: dict[int, bool | None] = dict.fromkeys(SIZES)
    for (n, shape), res in results.items():
        o = res["ours"]
        over = overhead(o)
        row = [
            f"{n} call{'s' if n > 1 else ''} {shape}",
            fmt_times(col(o, "total")),
            fmt_time(median(col(o, "calls")) / n),
            fmt_times(over),
            fmt_times(overhead(res["sync"])),
        ]
        if res["legacy"]:
            lg = res["legacy"]
            legacy_total = col(lg, "total")
            ratio = ratios(over, legacy_total)
            row += [
                fmt_times(legacy_total),
                fmt_time(median(col(lg, "calls")) / n),
                fmt_ratio(ratio, 2),
                fmt_ratio(ratios(col(o, "total"), legacy_total), 1),
            ]
            ok = median(ratio) <= 1.0
            met[n] = ok if met[n] is None else (met[n] and ok)
        else:
            row += ["—", "—", "—", "—"]
        rows.append(row)
    sec.table(
        [
            "agent test",
            "agentsnap whole test",
            "agentsnap per call",
            "agentsnap overhead (enter+exit)",
            "the same, `.last_run` written at once",
            "0.5.1 whole test",
            "0.5.1 per call",
            "agentsnap overhead / 0.5.1 whole test",
            "whole test: agentsnap / 0.5.1",
        ],
        rows,
    )
    if ours_share:
        sec.add(
            f"What is ours inside each replayed call (row 3): {ours_share.get('ours_share', '?')} of an openai JSON call "
            f"(at most {ours_share.get('ours_share_max', '?')} over every SDK and shape).",
            "",
        )
    for n in SIZES:  # issue 18: at 1, 100 and 1,000 calls
        sec.target(
            f"agentsnap's per-test overhead ≤ 0.5.1's whole per-test time, {n:,}-call test (JSON and streamed)",
            met[n],
            key=f"3b.{n}",
        )
    for key, label in (((1, "json"), "1"), ((1000, "json"), "1000")):
        res = results.get(key)
        if res and res["legacy"]:
            sec.headline[f"overhead_vs_legacy_{label}"] = fmt_ratio(
                ratios(overhead(res["ours"]), col(res["legacy"], "total")), 2
            ).split(" [")[0]
    return sec
