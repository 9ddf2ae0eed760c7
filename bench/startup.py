"""Row 5: pytest start-up with the plugin installed and inactive, vs ``-p no:agentsnap``.

A generated suite of 500 plain tests (50 files × 10) that imports no LLM SDK is
collected with ``pytest --collect-only -q`` in fresh processes, the two
configurations alternating within each round. A separate run records which modules
were imported, to check that no provider SDK (nor httpx) is loaded when the suite
imports none.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from _common import Ctx, Section, clock, fmt_time, fmt_times, median

FILES, PER_FILE = 50, 10
SDK_MODULES = (
    "openai",
    "anthropic",
    "groq",
    "mistralai",
    "cohere",
    "google.genai",
    "httpx",
    "httpx2",
)

_MODULES_CONFTEST = """
import json, os, sys

def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("AGENTSNAP_BENCH_MODULES")
    if out:
        with open(out, "w") as fh:
            json.dump(sorted(sys.modules), fh)
"""


def make_suite(root: Path) -> Path:
    suite = root / "suite"
    shutil.rmtree(suite, ignore_errors=True)
    (suite / "tests").mkdir(parents=True)
    (suite / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    (suite / "conftest.py").write_text(_MODULES_CONFTEST)
    for f in range(FILES):
        body = ["import math", ""]
        for t in range(PER_FILE):
            body += [f"def test_case_{t}():", f"    assert math.isfinite({f}.{t})", ""]
        (suite / "tests" / f"test_mod_{f:02d}.py").write_text("\n".join(body))
    return suite


def clean_env() -> dict[str, str]:
    """This environment without agentsnap's and pytest's variables, and with bytecode caching on.

    Users' interpreters cache bytecode. A machine that sets ``PYTHONDONTWRITEBYTECODE``
    (this one does) makes every fresh process compile agentsnap's sources again, so a
    start-up row would time the compiler, which grows with the source, not the import.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTSNAP_", "PYTEST_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _collect(suite: Path, extra: list[str], env: dict[str, str]) -> float:
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *extra]
    t0 = clock()
    done = subprocess.run(cmd, cwd=suite, env=env, capture_output=True, text=True, check=False)
    elapsed = clock() - t0
    if done.returncode != 0 or f"{FILES * PER_FILE} tests collected" not in done.stdout:
        raise RuntimeError(
            f"collection failed ({done.returncode}):\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
        )
    return elapsed


def _plugins(env: dict[str, str]) -> str:
    """The pytest plugins this environment autoloads (entry points), by distribution."""
    code = (
        "import importlib.metadata as m; print(', '.join(sorted({(e.dist.name if e.dist else e.name) "
        "for e in m.entry_points(group='pytest11')})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    return done.stdout.strip() or "none found"


def run(ctx: Ctx) -> Section:
    sec = Section(
        "5", "pytest start-up: 500-test suite, plugin installed and inactive vs `-p no:agentsnap`"
    )
    root = ctx.scratch / "row5"
    suite = make_suite(root)
    env = clean_env()
    # the plugin must be installed (entry point) for the comparison to mean anything
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import importlib.metadata as m; print([e.value for e in m.entry_points(group='pytest11') if e.name == 'agentsnap'])",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if "agentsnap.pytest_plugin" not in probe.stdout:
        sec.skipped = (
            "the agentsnap pytest plugin is not installed in this environment (`pip install -e .`)."
        )
        return sec
    rounds = ctx.rounds(7, 3)
    bare_env = {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    # (extra args, env) per configuration; "alone": no other plugin autoloaded, agentsnap's loaded by -p
    setups = {
        "plugin": ([], env),
        "none": (["-p", "no:agentsnap"], env),
        "plugin_alone": (["-p", "agentsnap.pytest_plugin"], bare_env),
        "none_alone": ([], bare_env),
    }
    times: dict[str, list[float]] = {k: [] for k in setups}
    ctx.log(f"  row 5: {rounds} rounds")
    for extra, e in setups.values():
        _collect(suite, extra, e)  # warm the file cache
    names = list(setups)
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            extra, e = setups[name]
            times[name].append(_collect(suite, extra, e))
    added = [a - b for a, b in zip(times["plugin"], times["none"], strict=True)]
    added_alone = [a - b for a, b in zip(times["plugin_alone"], times["none_alone"], strict=True)]
    base = median(times["none"])
    allowed = max(0.020, 0.03 * base)

    # which modules a whole run imported, with the inactive plugin and without it
    def modules(extra: list[str]) -> set[str]:
        out = root / "modules.json"
        out.unlink(missing_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
            cwd=suite,
            env={**env, "AGENTSNAP_BENCH_MODULES": str(out)},
            capture_output=True,
            text=True,
            check=False,
        )
        return set(json.loads(out.read_text())) if out.exists() else set()

    with_plugin, without = modules([]), modules(["-p", "no:agentsnap"])
    by_us = [m for m in SDK_MODULES if m in with_plugin and m not in without]
    by_others = [m for m in SDK_MODULES if m in without]
    ours = sorted(m for m in with_plugin if m == "agentsnap" or m.startswith("agentsnap."))
    sec.add(
        f"{rounds} rounds, each a fresh `python -m pytest --collect-only -q` of {FILES * PER_FILE} tests per configuration, "
        "the configurations rotating; wall time of the process, median [min–max]. Added time is taken per round. "
        f"*as installed*: every plugin of this environment autoloads ({_plugins(env)}); *alone*: "
        "`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`, agentsnap's plugin loaded with `-p agentsnap.pytest_plugin`, against bare pytest.",
        "",
    )
    sec.table(
        ["configuration", "with agentsnap (inactive)", "without", "added by agentsnap"],
        [
            [
                "as installed (`-p no:agentsnap` to leave it out)",
                fmt_times(times["plugin"]),
                fmt_times(times["none"]),
                f"{fmt_time(median(added))} [{fmt_time(min(added))} to {fmt_time(max(added))}]",
            ],
            [
                "alone (no other plugin)",
                fmt_times(times["plugin_alone"]),
                fmt_times(times["none_alone"]),
                f"{fmt_time(median(added_alone))} [{fmt_time(min(added_alone))} to {fmt_time(max(added_alone))}]",
            ],
        ],
    )
    sec.add(
        f"Allowed: {fmt_time(allowed)} (20 ms or 3 % of the run without agentsnap, whichever is larger).",
        "",
    )
    sec.add(
        f"A whole run of the suite with the inactive plugin imported {len(ours)} agentsnap modules "
        f"({', '.join(ours) if ours else 'none'}). Of {', '.join(SDK_MODULES)}, imported because of agentsnap: "
        f"{', '.join(by_us) if by_us else 'none'}; imported without agentsnap too (by other plugins of this environment): "
        f"{', '.join(by_others) if by_others else 'none'}.",
        "",
    )
    sec.target(
        "added ≤ 20 ms or ≤ 3 %, whichever is larger (median, as installed)",
        median(added) <= allowed,
        key="5.added",
    )
    sec.target(
        "no provider SDK (nor httpx) imported because of agentsnap when the suite imports none",
        not by_us,
    )
    sec.headline["startup_added"] = fmt_time(median(added))
    return sec
