"""Row 6: a generated suite of 500 snapshot tests (each a 5-call openai agent) in replay mode.

The suite (50 files × 10 tests) is recorded once with ``--agentsnap-record`` (the SDK on
an in-process transport), then replayed with ``--agentsnap-replay`` in rounds:
serially, with ``-n 2`` (pytest-xdist), and — as the floor — serially without agentsnap
(``-p no:agentsnap``: the same tests calling the SDK on its in-process transport, no
snapshot). Each is a fresh pytest process; its wall time includes start-up.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from _common import BENCH, Ctx, Section, clock, fmt_ratio, fmt_times, have, median, ratios

FILES, PER_FILE, CALLS = 50, 10, 5
#: issue 18: the replayed suite's wall time over the same suite without agentsnap
FLOOR_MAX = 1.05

_CONFTEST = '''
import sys

import pytest

sys.path.insert(0, {bench!r})
import _sdk  # noqa: E402  (the bench's in-process transport)


@pytest.fixture(scope="session")
def client():
    return _sdk.make_client("openai")


def agent(client, test_no):
    """A 5-call agent: each call asks its own question; returns the last answer."""
    answer = None
    for k in range({calls}):
        answer = _sdk.call(client, "openai", test_no * {calls} + k, False).choices[0].message.content
    return answer
'''


def make_suite(root: Path) -> Path:
    suite = root / "suite"
    shutil.rmtree(suite, ignore_errors=True)
    (suite / "tests").mkdir(parents=True)
    (suite / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.agentsnap]\nsnapshot_dir = "snapshots"\n'
    )
    (suite / "tests" / "conftest.py").write_text(_CONFTEST.format(bench=str(BENCH), calls=CALLS))
    for f in range(FILES):
        body = ["from conftest import agent", ""]
        for t in range(PER_FILE):
            no = f * PER_FILE + t
            body += [
                f"def test_agent_{t}(client):",
                f"    assert agent(client, {no}).startswith('The weather')",
                "",
            ]
        (suite / "tests" / f"test_agents_{f:02d}.py").write_text("\n".join(body))
    return suite


def _env() -> dict[str, str]:
    from startup import clean_env

    env = clean_env()
    for var in (
        "CI",
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "BUILDKITE",
        "CIRCLECI",
        "JENKINS_URL",
        "TF_BUILD",
    ):
        env.pop(var, None)  # local rules: the suite's goldens are approved anyway
    return env


#: ``python`` + these: pytest, quiet, no cache folder written, no random order
PYTEST_QUIET = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
_SUMMARY = re.compile(r"(\d+) passed.* in ([\d.]+)s")


def _pytest(suite: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, pytest's own reported seconds) of one run; raises unless all passed."""
    cmd = [sys.executable, *PYTEST_QUIET, *args]
    t0 = clock()
    done = subprocess.run(cmd, cwd=suite, env=env, capture_output=True, text=True, check=False)
    wall = clock() - t0
    found = _SUMMARY.search(done.stdout)
    if done.returncode != 0 or not found or int(found.group(1)) != FILES * PER_FILE:
        raise RuntimeError(
            f"`pytest {' '.join(args)}` failed ({done.returncode}):\n{done.stdout[-2500:]}\n{done.stderr[-1500:]}"
        )
    return wall, float(found.group(2))


def run(ctx: Ctx) -> Section:
    sec = Section(
        "6", "Suite scale: 500 snapshot tests (5-call agents) in replay, serial vs `-n 2`"
    )
    missing = have("openai", "httpx2", "xdist")
    if missing:
        sec.skipped = f"needs {', '.join(missing)} (`pip install openai pytest-xdist`)."
        return sec
    root = ctx.scratch / "row6"
    suite = make_suite(root)
    env = _env()
    n = FILES * PER_FILE
    ctx.log("  row 6: recording the suite's goldens")
    _pytest(
        suite, ["--agentsnap-record", "-n", "2", "-W", "ignore::agentsnap.AgentsnapWarning"], env
    )
    goldens = len(list((suite / "snapshots").glob("*.json")))
    configs = {
        "serial": ["--agentsnap-replay"],
        "xdist": ["--agentsnap-replay", "-n", "2"],
        "floor": ["-p", "no:agentsnap"],
    }
    rounds = ctx.rounds(2, 1)  # the recording run above warmed the file cache and bytecode
    res: dict[str, list[tuple[float, float]]] = {k: [] for k in configs}
    for r in range(rounds):
        ctx.log(f"  row 6: round {r + 1}/{rounds}")
        names = list(configs)
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            res[name].append(_pytest(suite, configs[name], env))

    def wall(name: str) -> list[float]:
        return [w for w, _ in res[name]]

    def inner(name: str) -> list[float]:
        return [s for _, s in res[name]]

    rows = []
    labels = {
        "serial": "agentsnap replay, serial",
        "xdist": "agentsnap replay, `-n 2`",
        "floor": "no agentsnap (`-p no:agentsnap`), serial",
    }
    for name in configs:
        rows.append(
            [
                labels[name],
                fmt_times(wall(name)),
                f"{n / median(wall(name)):.0f}",
                fmt_times(inner(name)),
                f"{n / median(inner(name)):.0f}",
            ]
        )
    sec.add(
        f"{goldens} goldens of {CALLS} calls each. {rounds} rounds, the configurations rotating; median [min–max]. "
        "*wall*: the whole pytest process (interpreter and SDK imports, collection, run); *session*: the time pytest reports.",
        "",
    )
    sec.table(["run", "wall", "tests/s (wall)", "session", "tests/s (session)"], rows)
    speedup = ratios(wall("serial"), wall("xdist"))
    sec.add(
        f"`-n 2` vs serial: {fmt_ratio(speedup, 2)} faster (wall). agentsnap vs no agentsnap, serial: "
        f"{fmt_ratio(ratios(wall('serial'), wall('floor')), 2)} the wall time.",
        "",
    )
    floor = ratios(wall("serial"), wall("floor"))
    sec.target(
        "agentsnap replay, serial: ≤ 1.05× the wall time of the same suite without agentsnap",
        median(floor) <= FLOOR_MAX,
        key="6.floor",
    )
    sec.target(
        "≥ 100 snapshot tests per second serial (wall, whole process)",
        n / median(wall("serial")) >= 100,
        key="6.tests_per_s",
    )
    sec.target(
        "`-n 2` at least 1.6× faster than serial (wall)", median(speedup) >= 1.6, key="6.xdist"
    )
    sec.headline["vs_floor"] = f"{median(floor):.2f}×"
    sec.headline["tests_per_s"] = f"{n / median(wall('serial')):.0f}"
    sec.headline["xdist"] = f"{median(speedup):.2f}×"
    return sec
