"""Regenerate the compat fixtures: the project's goldens, recorded by agentsnap 0.5.1 from PyPI.

Run with the Python of a venv holding ``agentsnap==0.5.1`` (and openai, anthropic,
pytest), never this repo's agentsnap (both are imported as ``agentsnap``)::

    python3 -m venv /work/venv-051
    /work/venv-051/bin/pip install agentsnap==0.5.1 openai anthropic pytest
    /work/venv-051/bin/python tests/compat/record_051.py

It deletes ``project_051/tests/__agent_snapshots__/`` and runs the project's own
tests twice under 0.5.1 against the loopback fakes (``fakes_051.py``): once
plainly (every ``assert_agent`` block finds no golden and records one, as 0.5.1
does: ``weather_plain.json``, ``lookup__<input hash>.json``, …) and once with
``--agentsnap-instrument`` for the raw-client test. The files are committed as
fixture data; ``test_project_051.py`` runs the same project with this repo's
agentsnap, unchanged.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "project_051"
GOLDENS = PROJECT / "tests" / "__agent_snapshots__"

sys.path.insert(0, str(HERE))
import fakes_051


def main() -> int:
    version = importlib.metadata.version("agentsnap")
    if version != "0.5.1":
        print(
            f"record_051.py needs agentsnap 0.5.1 (this Python has {version}); see the module docstring.",
            file=sys.stderr,
        )
        return 2
    shutil.rmtree(GOLDENS, ignore_errors=True)
    with fakes_051.running() as urls:
        env = {**os.environ, **urls, "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("CI", None)
        for args in (["tests/test_weather.py"], ["--agentsnap-instrument", "tests/test_raw.py"]):
            proc = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                cwd=PROJECT,
                env=env,
            )
            if proc.returncode != 0:
                return proc.returncode
    shutil.rmtree(GOLDENS / ".last_run", ignore_errors=True)
    for path in sorted(GOLDENS.glob("*.json")):
        print(path.relative_to(HERE))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
