"""Row 7: loading and diffing long traces, and a trace carrying a 5 MB tool output.

Two 1,000-step traces (500 model calls, each requesting one tool, and the 500 tool
calls they lead to) are generated as snapshots; the new one has 10 % of its steps
edited — half structural (a tool renamed, inserted or dropped), half in the arguments
(of the executed tool and of the model's request). Model response texts are
unchanged, so no embedding model is involved (row 8 times those); the lexical
backend is named so that nothing is loaded even if a text changed.

Timed, in interleaved rounds:

* load: ``SnapshotStore.load`` of the golden (read, parse, validate), next to a bare
  ``json.loads`` of the same file (the floor any JSON store pays);
* diff: ``compute_diff`` of golden and new, next to agentsnap 0.5.1's ``compute_diff``
  on the same traces (when its venv is given);
* the same two with one tool output of 5 MB (changed near its end in the new trace);
* the rendered failure message: its length, and that it points to ``agentsnap diff``.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

from _common import Ctx, Section, clock, fmt_times, median

STEPS = 1000
BIG = 5 * 1024 * 1024
TOOLS = (
    "search",
    "read_page",
    "summarise",
    "lookup_user",
    "get_weather",
    "calculate",
    "send_email",
    "translate",
)


def _args(rng: random.Random, tool: str, i: int) -> dict[str, Any]:
    return {
        "query": f"{tool} item {i}",
        "limit": rng.randint(1, 50),
        "filters": {
            "lang": rng.choice(["en", "fr", "de"]),
            "tags": [f"t{rng.randint(0, 9)}" for _ in range(3)],
        },
        "strict": bool(i % 2),
    }


def traces(
    seed: int = 7, *, big: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(golden, new) step lists: 1,000 steps, 10 % of the new one's edited."""
    rng = random.Random(seed)
    golden: list[dict[str, Any]] = []
    for k in range(STEPS // 2):
        tool = TOOLS[k % len(TOOLS)]
        args = _args(rng, tool, k)
        golden.append(
            {
                "type": "llm_call",
                "provider": "openai",
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": f"Step {k}: continue the task."}],
                "response": None,
                "tool_requests": [{"id": f"call_{k}", "name": tool, "args": args}],
                "tokens": 132,  # 0.5.1 stores one number (the total)
            }
        )
        golden.append(
            {
                "type": "tool_call",
                "name": tool,
                "args": args,
                "result": f"result of {tool} #{k}: " + "ok " * 20,
                "id": f"call_{k}",
            }
        )
    if big:
        golden[301]["result"] = ("lorem ipsum dolor sit amet " * (BIG // 27 + 1))[:BIG]
    new = json.loads(json.dumps(golden))
    edits = rng.sample(range(1, STEPS - 1, 2), STEPS // 10)  # tool steps (odd indices)
    structural, argument = edits[: len(edits) // 2], edits[len(edits) // 2 :]
    drop = set(structural[: len(structural) // 3])
    insert = set(structural[len(structural) // 3 : 2 * len(structural) // 3])
    rename = set(structural[2 * len(structural) // 3 :])
    for i in argument:
        new[i]["args"]["limit"] += 1
        new[i - 1]["tool_requests"][0]["args"]["filters"]["lang"] = "es"
    for i in rename:
        new[i]["name"] = new[i]["name"] + "_v2"
    if big:
        text = new[301]["result"]
        new[301]["result"] = text[:-100] + "changed " * 12 + text[-4:]
    out: list[dict[str, Any]] = []
    for i, step in enumerate(new):
        if i in drop:
            continue
        out.append(step)
        if i in insert:
            out.append(
                {
                    "type": "tool_call",
                    "name": "retry",
                    "args": {"attempt": 2},
                    "result": "ok",
                    "id": None,
                }
            )
    for n, step in enumerate(golden):
        step["step"] = n
    for n, step in enumerate(out):
        step["step"] = n
    return golden, out


def _write(root: Path, big: bool) -> tuple[str, str, Path, Path]:
    from agentsnap.storage.snapshot import Snapshot
    from agentsnap.storage.store import SnapshotStore

    golden, new = traces(big=big)
    store = SnapshotStore(root)
    gname, nname = ("golden_big", "new_big") if big else ("golden", "new")
    store.save(Snapshot(name=gname, trace=golden, output="done", approved=True), force=True)
    store.save(Snapshot(name=nname, trace=new, output="done", approved=True), force=True)
    # the same traces in 0.5.1's format (a snapshot dict with "trace" and "output")
    lg, ln = root / f"legacy_{gname}.json", root / f"legacy_{nname}.json"
    lg.write_text(
        json.dumps({"version": "1.1", "trace": golden, "output": "done"}), encoding="utf-8"
    )
    ln.write_text(json.dumps({"version": "1.1", "trace": new, "output": "done"}), encoding="utf-8")
    return gname, nname, lg, ln


def run(ctx: Ctx, legacy: Any = None) -> Section:
    from agentsnap.diff import compute_diff
    from agentsnap.storage.store import SnapshotStore

    sec = Section("7", "Diff cost: two 1,000-step traces with 10 % edits, and a 5 MB tool output")
    root = ctx.scratch / "row7"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    store = SnapshotStore(root)
    rounds = ctx.rounds(9, 3)
    rows = []
    report_text = ""
    checks: dict[str, bool] = {}
    for big in (False, True):
        gname, nname, lg, ln = _write(root, big)
        path = store.path_for(gname)
        size = path.stat().st_size
        golden_doc = store.load(gname).to_dict()
        new_doc = store.load(nname).to_dict()
        res: dict[str, list[float]] = {"load": [], "json": [], "diff": [], "legacy": []}
        report = None
        for r in range(rounds + 1):
            t0 = clock()
            store.load(gname)
            t_load = clock() - t0
            t0 = clock()
            json.loads(path.read_text(encoding="utf-8"))
            t_json = clock() - t0
            t0 = clock()
            report = compute_diff(golden_doc, new_doc, name=gname, embedding_backend="lexical")
            t_diff = clock() - t0
            if r == 0:
                continue  # warm-up
            res["load"].append(t_load)
            res["json"].append(t_json)
            res["diff"].append(t_diff)
        if legacy is not None:
            try:
                reply = legacy.ask(
                    {"op": "diff", "golden": str(lg), "new": str(ln), "reps": rounds}
                )
                res["legacy"] = reply["diff"]
            except Exception as exc:
                sec.add(f"0.5.1 diff failed: {exc}", "")
        assert report is not None and not report.passed
        label = "with a 5 MB tool output" if big else "1,000 steps"
        rows.append(
            [
                label,
                f"{size / 1e6:.1f} MB",
                fmt_times(res["load"]),
                fmt_times(res["json"]),
                fmt_times(res["diff"]),
                fmt_times(res["legacy"]) if res["legacy"] else "—",
                ", ".join(sorted(report.failed_checks)),
            ]
        )
        if big:
            checks["diff_big"] = median(res["diff"]) < 1.0
            checks["load_big"] = median(res["load"]) < 1.0
        else:
            checks["load"] = median(res["load"]) < 0.1
            checks["diff"] = median(res["diff"]) < 0.05
            text = report.render(color=False)
            report_text = text
    lines = report_text.splitlines()
    pointer = "agentsnap diff" in report_text
    checks["render"] = len(lines) <= 120 and pointer
    sec.add(
        f"{rounds} rounds, median [min–max]. Edits: 100 of the new trace's 1,000 steps (50 structural: dropped, inserted or "
        "renamed tool calls; 50 argument changes in the tool call and in the model's request for it). "
        "Embedding backend: lexical (no text changed).",
        "",
    )
    sec.table(
        [
            "traces",
            "golden file",
            "agentsnap load",
            "json.loads alone",
            "agentsnap diff",
            "0.5.1 diff",
            "failed checks",
        ],
        rows,
    )
    if legacy is None:
        sec.add("0.5.1 column not measured: no agentsnap 0.5.1 venv given.", "")
    sec.add(
        f"Rendered failure message (1,000-step traces): {len(lines)} lines, {len(report_text):,} characters; "
        f"points to `agentsnap diff`: {'yes' if pointer else 'no'}. Its last lines:",
        "",
        "```",
        *lines[-4:],
        "```",
        "",
    )
    sec.target("load of a 1,000-step snapshot < 100 ms", checks.get("load"))
    sec.target("diff of the 1,000-step traces < 50 ms", checks.get("diff"))
    sec.target("diff with a 5 MB tool output < 1 s", checks.get("diff_big"))
    sec.target(
        "the failure message is truncated and points to `agentsnap diff`", checks.get("render")
    )
    return sec
