"""Row 3b's worker: runs agentsnap 0.5.1 agent tests in its own venv, on request.

Started by ``bench/replay_legacy.py`` with the Python of a venv holding
``agentsnap==0.5.1`` and openai (0.5.1 shares the import name ``agentsnap`` with
this project, so it cannot live in the same environment). It reads one JSON
command per line on stdin and answers one JSON line on stdout:

* ``{"op": "hello"}`` → versions;
* ``{"op": "setup", "n": N, "stream": bool, "dir": path, "name": str}`` → records the
  golden of an N-call openai agent test with 0.5.1's ``AgentRecorder`` inside a
  ``PatchSet`` (the SDK talks to an in-process transport);
* ``{"op": "run", "n", "stream", "dir", "name", "reps"}`` → replays that test ``reps``
  times with ``PatchSet`` + ``AgentAsserter(mode="replay")`` and returns, per
  repetition, the seconds spent entering the blocks, in the calls, and exiting
  (0.5.1's diff and ``.last_run`` write);
* ``{"op": "diff", "golden": path, "new": path, "reps"}`` → row 7's baseline: 0.5.1's
  ``compute_diff`` on two snapshot files in its own format.

0.5.1 prints a line per passed test on stdout: the protocol uses a duplicate of
the original stdout, and ``sys.stdout`` goes to /dev/null.
"""

from __future__ import annotations

import gc
import importlib.metadata
import json
import os
import sys
import time
from typing import Any

import _sdk

clock = time.perf_counter


def _client() -> Any:
    return _sdk.make_client("openai", bare=True)


def _agent(client: Any, n: int, stream: bool) -> str:
    text = ""
    for i in range(n):
        last = _sdk.call(client, "openai", i, stream)
        if not stream:
            text = last.choices[0].message.content or ""
    return text or "".join(_sdk.ANSWER)


def setup(cmd: dict[str, Any]) -> dict[str, Any]:
    from agentsnap import AgentRecorder, PatchSet

    client = _client()
    with PatchSet(), AgentRecorder(cmd["name"], snapshot_dir=cmd["dir"]) as rec:
        rec.output = _agent(client, cmd["n"], cmd["stream"])
    return {"ok": True}


def run(cmd: dict[str, Any]) -> dict[str, Any]:
    from agentsnap import AgentAsserter, PatchSet

    client = _client()
    out = []
    for _ in range(cmd["reps"]):
        gc.collect()
        gc.disable()
        try:
            t0 = clock()
            patches = PatchSet()
            patches.__enter__()
            block = AgentAsserter(cmd["name"], snapshot_dir=cmd["dir"], mode="replay")
            block.__enter__()
            t1 = clock()
            block.output = _agent(client, cmd["n"], cmd["stream"])
            t2 = clock()
            block.__exit__(None, None, None)
            patches.__exit__(None, None, None)
            t3 = clock()
        finally:
            gc.enable()
        out.append({"enter": t1 - t0, "calls": t2 - t1, "exit": t3 - t2, "total": t3 - t0})
    return {"ok": True, "runs": out}


def diff(cmd: dict[str, Any]) -> dict[str, Any]:
    from agentsnap.core.diff import DiffConfig, compute_diff

    with open(cmd["golden"], encoding="utf-8") as fh:
        golden = json.load(fh)
    with open(cmd["new"], encoding="utf-8") as fh:
        new = json.load(fh)
    times = []
    load_times = []
    for _ in range(cmd["reps"]):
        t0 = clock()
        with open(cmd["golden"], encoding="utf-8") as fh:
            json.load(fh)
        load_times.append(clock() - t0)
        t0 = clock()
        try:
            compute_diff(
                golden,
                new["trace"],
                new.get("output", ""),
                config=DiffConfig(),
                embed_fn=_lexical_embed,
            )
        except Exception as exc:
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        times.append(clock() - t0)
    return {"ok": True, "diff": times, "load": load_times}


def _lexical_embed(texts: list[str]) -> list[list[float]]:
    """A cheap embedding for 0.5.1's semantic layer (it needs one for any changed text)."""
    out = []
    for text in texts:
        vec = [0.0] * 64
        for word in text.split():
            vec[hash(word) % 64] += 1.0
        out.append(vec)
    return out


def main() -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - 0.5.1's prints go nowhere
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd.get("op")
        try:
            if op == "hello":
                reply = {
                    "ok": True,
                    "agentsnap": importlib.metadata.version("agentsnap"),
                    "openai": importlib.metadata.version("openai"),
                    "python": sys.version.split()[0],
                }
            elif op == "setup":
                reply = setup(cmd)
            elif op == "run":
                reply = run(cmd)
            elif op == "diff":
                reply = diff(cmd)
            elif op == "quit":
                break
            else:
                reply = {"ok": False, "error": f"unknown op {op!r}"}
        except Exception as exc:
            import traceback

            reply = {
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc()[-2000:],
            }
        proto.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    main()
