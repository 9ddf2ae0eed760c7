"""Bounded fuzzing of the snapshot loader and the stream reassembler.

    python tests/fuzz/run.py loader --seconds 60
    python tests/fuzz/run.py sse --seconds 60
    python tests/fuzz/run.py all --seconds 120        # the time split between the targets

With atheris installed (``pip install atheris``; wheels for CPython 3.8–3.11
on Linux x86-64) the run is coverage-guided (libFuzzer): agentsnap's modules
are instrumented, the corpus starts from ``tests/fuzz/seeds/<target>/`` and
grows in a temporary folder, and a crashing input is written to
``tests/fuzz/crashes/<target>-<sha1>``. Without atheris, hypothesis generates
inputs for the same time instead (not coverage-guided), and a failing input
is kept the same way.

Exit status: 0 when no input failed, 1 otherwise. Every file in
``tests/fuzz/crashes/`` is replayed by ``tests/fuzz/test_fuzz_regressions.py``
on every test run: after fixing the bug, keep the file.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CRASHES = HERE / "crashes"
SEEDS = HERE / "seeds"
NAMES = ("loader", "sse")


def keep_crash(target: str, data: bytes) -> Path:
    CRASHES.mkdir(exist_ok=True)
    path = CRASHES / f"{target}-{hashlib.sha1(data).hexdigest()}"
    path.write_bytes(data)
    return path


def _with_atheris(target: str, seconds: int) -> int:
    import atheris  # type: ignore[import-not-found]

    with atheris.instrument_imports(include=["agentsnap"]):
        from tests.fuzz.targets import TARGETS

    fn = TARGETS[target]
    corpus = Path(tempfile.mkdtemp(prefix=f"agentsnap-fuzz-{target}-"))
    for seed in sorted((SEEDS / target).glob("*")):
        shutil.copy(seed, corpus / seed.name)
    CRASHES.mkdir(exist_ok=True)
    argv = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={seconds}",
        f"-artifact_prefix={CRASHES}/{target}-",
        "-max_len=8192",
        "-timeout=10",
        "-rss_limit_mb=2048",
        "-print_final_stats=1",
        f"-dict={HERE / f'{target}.dict'}",
    ]
    atheris.Setup(argv, fn)
    atheris.Fuzz()  # exits the process: 0 when the time ran out, non-zero on a crash
    return 0  # pragma: no cover


def _with_hypothesis(target: str, seconds: int) -> int:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.fuzz.targets import TARGETS

    fn = TARGETS[target]
    seeds = [p.read_bytes() for p in sorted((SEEDS / target).glob("*"))] or [b"{}"]
    failing: list[bytes] = []

    def mutate(seed: bytes, cut: int, insert: bytes) -> bytes:
        cut = cut % (len(seed) + 1)
        return seed[:cut] + insert + seed[cut + len(insert) :]

    inputs = st.one_of(
        st.binary(max_size=2048),
        st.builds(mutate, st.sampled_from(seeds), st.integers(0, 10_000), st.binary(max_size=16)),
        st.sampled_from(seeds),
    )

    @settings(
        max_examples=500, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(inputs)
    def once(data: bytes) -> None:
        try:
            fn(data)
        except Exception:
            if not failing or len(data) < len(failing[-1]):
                failing.append(data)
            raise

    end = time.monotonic() + seconds
    runs = 0
    while time.monotonic() < end:
        try:
            once()
        except Exception as exc:
            path = keep_crash(target, failing[-1])
            print(
                f"fuzz {target}: failing input kept at {path}: {type(exc).__name__}: {exc}",
                file=sys.stderr,
            )
            return 1
        runs += 500
    print(
        f"fuzz {target}: {runs} inputs in {seconds}s (hypothesis, not coverage-guided: pip install atheris), no failure"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", choices=[*NAMES, "all"])
    parser.add_argument("--seconds", type=int, default=60, help="total time budget (default 60)")
    parser.add_argument("--engine", choices=["auto", "atheris", "hypothesis"], default="auto")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    if args.target == "all":  # atheris.Fuzz() never returns: one process per target
        share = max(1, args.seconds // len(NAMES))
        codes = [
            subprocess.call(
                [sys.executable, __file__, name, "--seconds", str(share), "--engine", args.engine],
                cwd=REPO,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
            for name in NAMES
        ]
        return 1 if any(codes) else 0
    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # type: ignore[import-not-found]  # noqa: F401

            engine = "atheris"
        except ImportError:
            engine = "hypothesis"
    if engine == "atheris":
        return _with_atheris(args.target, args.seconds)
    return _with_hypothesis(args.target, args.seconds)


if __name__ == "__main__":
    sys.exit(main())
