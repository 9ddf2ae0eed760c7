"""Shared helpers of the bench rows: timing, statistics, formatting, the machine.

Every row measures agentsnap and its baseline in the same process (or the same
run, alternating), in interleaved rounds, and reports medians with their spread.
A ratio is computed per round (each round's agentsnap time over the same round's
baseline time), so a slow spell on this shared machine hits both sides of it.
"""

from __future__ import annotations

import gc
import importlib.metadata
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

clock = time.perf_counter


# --------------------------------------------------------------------------- run settings


@dataclass
class Ctx:
    """What every row gets: how hard to try, where to put scratch files, the legacy venv."""

    quick: bool = False
    scratch: Path = Path("/tmp")
    legacy_python: str | None = None
    #: row 4 runs vcrpy at sizes up to this (``--vcr-max``; above 1,000 once, it is quadratic)
    vcr_max: int = 1000
    log: Callable[[str], None] = lambda msg: print(msg, file=sys.stderr, flush=True)

    def rounds(self, full: int, quick: int) -> int:
        return quick if self.quick else full


# --------------------------------------------------------------------------- statistics


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def spread(values: Sequence[float]) -> tuple[float, float]:
    """(min, max) of the rounds."""
    return min(values), max(values)


def fmt_time(seconds: float) -> str:
    """A time with a unit chosen for it (µs, ms or s)."""
    if seconds < 0:
        return "-" + fmt_time(-seconds)
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs" if seconds < 1e-4 else f"{seconds * 1e6:.0f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms" if seconds < 1e-2 else f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_times(values: Sequence[float]) -> str:
    """``median [min–max]`` of per-round times."""
    lo, hi = spread(values)
    return f"{fmt_time(median(values))} [{fmt_time(lo)}–{fmt_time(hi)}]"


def fmt_ratio(values: Sequence[float], digits: int = 3) -> str:
    """``median× [min–max]`` of per-round ratios."""
    lo, hi = spread(values)
    return f"{median(values):.{digits}f}× [{lo:.{digits}f}–{hi:.{digits}f}]"


def fmt_pct(values: Sequence[float]) -> str:
    """Per-round ratios as ``+x.x % [lo–hi]`` added over the baseline."""
    lo, hi = spread(values)
    return f"{(median(values) - 1) * 100:+.1f} % [{(lo - 1) * 100:+.1f}–{(hi - 1) * 100:+.1f}]"


def ratios(num: Sequence[float], den: Sequence[float]) -> list[float]:
    """Per-round ratios of two equally long lists of round times."""
    return [a / b for a, b in zip(num, den, strict=True)]


def verdict(ok: bool | None) -> str:
    if ok is None:
        return "n/a"
    return "met" if ok else "**missed**"


# --------------------------------------------------------------------------- timing


def time_batch(fn: Callable[[], Any]) -> float:
    """Seconds one call of ``fn`` takes, with the garbage collector held off."""
    gc_was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        t0 = clock()
        fn()
        return clock() - t0
    finally:
        if gc_was:
            gc.enable()


class Config:
    """One configuration of a per-call comparison (see :func:`interleave_calls`).

    ``call(i)`` makes call ``i``; ``enter`` / ``exit`` switch the configuration
    on and off around each call, outside the timer; ``begin_round`` /
    ``end_round`` run once per round, also untimed.
    """

    def __init__(
        self,
        call: Callable[[int], Any],
        *,
        enter: Callable[[], None] | None = None,
        exit: Callable[[], None] | None = None,
        end_round: Callable[[], None] | None = None,
    ) -> None:
        self.call = call
        self._enter = enter
        self._exit = exit
        self._end_round = end_round

    def begin_round(self, round_no: int) -> None:
        pass

    def enter(self) -> None:
        if self._enter is not None:
            self._enter()

    def exit(self) -> None:
        if self._exit is not None:
            self._exit()

    def end_round(self) -> None:
        if self._end_round is not None:
            self._end_round()


class RecordingConfig(Config):
    """A :class:`Config` whose calls run inside an agentsnap recording when ``mode`` is
    ``"capture"`` (a fresh capture each round) or ``"replay"`` (each round replays the steps
    :meth:`replay_steps` gives); the recording is switched on and off around each call,
    outside the timer, and each round must end with no replay miss. ``mode`` None: no recording."""

    def __init__(self, call: Callable[[int], Any], mode: str | None = None) -> None:
        super().__init__(call)
        self.mode = mode
        self.recording: Any = None

    def replay_steps(self, round_no: int) -> list[dict[str, Any]]:
        raise NotImplementedError

    def begin_round(self, round_no: int) -> None:
        from agentsnap.capture.cassette import Cassette
        from agentsnap.capture.recording import Recording

        if self.mode == "replay":
            cassette = Cassette(self.replay_steps(round_no), strict=True)
            self.recording = Recording("replay", cassette=cassette)
        elif self.mode == "capture":
            self.recording = Recording("capture")

    def enter(self) -> None:
        if self.recording is not None:
            from agentsnap.capture import active

            active.activate(self.recording)

    def exit(self) -> None:
        if self.recording is not None:
            from agentsnap.capture import active

            active.deactivate(self.recording)

    def end_round(self) -> None:
        if self.recording is not None:
            self.recording.stop()
            assert self.recording.misses == 0


class RecordedRoundsConfig(RecordingConfig):
    """A :class:`RecordingConfig` of a session-shaped row (MCP, WebSocket): ``recorded`` holds
    one pre-recorded session's steps per round, which replay serves; ``kind`` names the
    transport or client; ``round`` is the round being run."""

    def __init__(self, kind: str, mode: str | None, recorded: list[list[dict[str, Any]]]) -> None:
        super().__init__(lambda i: None, mode)
        self.kind = kind
        self.recorded = recorded
        self.round = 0

    def replay_steps(self, round_no: int) -> list[dict[str, Any]]:
        return self.recorded[round_no]

    def begin_round(self, round_no: int) -> None:
        self.round = round_no
        super().begin_round(round_no)


def interleave_calls(
    configs: dict[str, Config],
    rounds: int,
    n: int,
    *,
    warmup: int = 1,
    stat: str = "mean",
    cpu: dict[str, list[float]] | None = None,
) -> dict[str, list[float]]:
    """Per-call comparison under noise: in each round, call ``i`` (0..n-1) is made
    once per configuration, back to back in a rotating order, each call timed
    alone; a round's result per configuration is its mean call time (``stat="median"``:
    the median of its calls, for calls over a socket, where the scheduler's wake-up of
    the other process now and then adds milliseconds to one call).

    ``cpu``: a dict that receives, per configuration, the same statistic of the calling
    thread's CPU time (``time.thread_time``) per call.

    Pairing at the level of single calls means a burst of load from other
    processes hits every configuration nearly alike.
    """
    names = list(configs)
    out: dict[str, list[float]] = {name: [] for name in names}
    if cpu is not None:
        cpu.update({name: [] for name in names})
    reduce = statistics.fmean if stat == "mean" else statistics.median
    thread_time = time.thread_time
    gc_was = gc.isenabled()
    for r in range(warmup + rounds):
        for cfg in configs.values():
            cfg.begin_round(r)
        walls: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        gc.collect()
        gc.disable()
        try:
            for i in range(n):
                shift = (i + r) % len(names)
                for name in names[shift:] + names[:shift]:
                    cfg = configs[name]
                    cfg.enter()
                    c0 = thread_time()
                    t0 = clock()
                    cfg.call(i)
                    walls[name].append(clock() - t0)
                    cpus[name].append(thread_time() - c0)
                    cfg.exit()
        finally:
            if gc_was:
                gc.enable()
        for cfg in configs.values():
            cfg.end_round()
        if r >= warmup:
            for name in names:
                out[name].append(reduce(walls[name]))
                if cpu is not None:
                    cpu[name].append(reduce(cpus[name]))
    return out


def interleave(
    configs: dict[str, Callable[[], float]], rounds: int, *, warmup: int = 1
) -> dict[str, list[float]]:
    """Run every config once per round, rotating the order each round.

    Each config callable runs one batch and returns its own time (it may time
    only part of its work). ``warmup`` rounds are run first and discarded.
    """
    names = list(configs)
    out: dict[str, list[float]] = {name: [] for name in names}
    for r in range(warmup + rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            value = configs[name]()
            if r >= warmup:
                out[name].append(value)
    return out


# --------------------------------------------------------------------------- the machine and versions


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                kib = int(line.split()[1])
                return f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError):
        pass
    return "?"


def loadavg() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def machine() -> dict[str, str]:
    return {
        "cpu": _cpu_model(),
        "cores": str(os.cpu_count()),
        "memory": _memory(),
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "load_start": loadavg(),
    }


VERSIONED = (
    "agentsnap",
    "openai",
    "anthropic",
    "groq",
    "httpx",
    "httpx2",
    "mcp",
    "websockets",
    "pydantic",
    "pydantic-core",
    "wrapt",
    "pytest",
    "pytest-xdist",
    "vcrpy",
    "PyYAML",
    "opentelemetry-instrumentation-openai",
    "opentelemetry-sdk",
    "deepdiff",
    "rapidfuzz",
    "onnxruntime",
    "sentence-transformers",
)


def versions(names: Iterable[str] = VERSIONED) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def forget_scrub_memo() -> None:
    """Empty agentsnap's memo of scrubbed strings, so a timed run scrubs what a fresh
    process would (nothing seen before); a no-op when there is no such memo."""
    try:
        from agentsnap.storage.scrub import text, walk
    except ImportError:
        return
    if isinstance(getattr(text, "_memo", None), tuple):  # scrubbed strings
        text._memo = (None, {}, [0], -1)
    if isinstance(getattr(walk, "_fixed", None), tuple):  # string literals known harmless
        walk._fixed = (None, -1, set())


def have(*modules: str) -> list[str]:
    """The modules of ``modules`` that cannot be imported (empty: all present)."""
    import importlib.util

    def missing(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):  # a parent package is missing
            return True

    return [m for m in modules if missing(m)]


# --------------------------------------------------------------------------- results


@dataclass
class Section:
    """One row's part of RESULTS.md."""

    row: str
    title: str
    lines: list[str] = field(default_factory=list)
    #: (target text, met?) — met None: not measured
    targets: list[tuple[str, bool | None]] = field(default_factory=list)
    #: target text -> its key in run.py's ``CAUSES`` (the profiled cause and next step of a miss)
    target_keys: dict[str, str] = field(default_factory=dict)
    skipped: str | None = None
    headline: dict[str, str] = field(default_factory=dict)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def table(self, header: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
        self.lines.append("| " + " | ".join(header) + " |")
        self.lines.append("|" + "---|" * len(header))
        for row in rows:
            self.lines.append("| " + " | ".join(str(c) for c in row) + " |")
        self.lines.append("")

    def target(self, text: str, ok: bool | None, key: str | None = None) -> None:
        """A target and whether it was met; ``key`` names it in run.py's ``CAUSES``
        (default: ``"<row>: <text>"``)."""
        self.targets.append((text, ok))
        self.target_keys[text] = key or f"{self.row}: {text}"

    def markdown(self) -> str:
        out = [f"## {self.row}. {self.title}", ""]
        if self.skipped:
            out += [f"Not run: {self.skipped}", ""]
            return "\n".join(out)
        out += self.lines
        if self.targets:
            out += ["", "| target | result |", "|---|---|"]
            out += [f"| {text} | {verdict(ok)} |" for text, ok in self.targets]
            out.append("")
        return "\n".join(out)
