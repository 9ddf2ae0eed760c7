"""Every seed and every input a fuzz run ever failed on, replayed through the
fuzz targets (see ``tests/fuzz/run.py``); plus a short hypothesis pass over
random and mutated inputs, so the targets stay exercised between fuzz runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.targets import TARGETS

HERE = Path(__file__).resolve().parent
KEPT = sorted(p for p in (HERE / "crashes").glob("*") if p.is_file() and p.name != ".gitkeep")
SEEDS = sorted(p for p in (HERE / "seeds").rglob("*") if p.is_file())


def _target_of(path: Path) -> str:
    name = path.parent.name if path.parent.name in TARGETS else path.name.split("-", 1)[0]
    assert name in TARGETS, f"{path}: name it <target>-<anything> (targets: {', '.join(TARGETS)})"
    return name


@pytest.mark.parametrize("path", KEPT + SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_kept_inputs_and_seeds(path: Path) -> None:
    TARGETS[_target_of(path)](path.read_bytes())


def _mutate(seed: bytes, at: int, insert: bytes, drop: int) -> bytes:
    at %= len(seed) + 1
    return seed[:at] + insert + seed[at + drop :]


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_and_mutated_inputs(target: str, data: st.DataObject) -> None:
    seeds = [p.read_bytes() for p in SEEDS if _target_of(p) == target]
    blob = data.draw(
        st.one_of(
            st.binary(max_size=512),
            st.builds(
                _mutate,
                st.sampled_from(seeds),
                st.integers(0, 20_000),
                st.binary(max_size=12),
                st.integers(0, 12),
            ),
        )
    )
    TARGETS[target](blob)


def test_the_loaders_scratch_folder_is_removed_when_the_process_exits(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    # a process of its own, its temp folder pointed at tmp_path: what it leaves there is seen
    script = (
        "from tests.fuzz.targets import snapshot_loader, _scratch\n"
        "snapshot_loader(b'{}')\n"
        "print(_scratch())\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=HERE.parent.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    scratch = Path(done.stdout.strip())
    assert scratch.parent == tmp_path
    assert not scratch.exists()
    assert list(tmp_path.iterdir()) == []
