"""Statistics over live runs: a test's samples, their pass rate and its Wilson score interval.

A test run N times (``--agentsnap-runs N``) gives N samples; each passed or
failed, and each compared one (a :class:`~agentsnap.diff.DiffReport`) names the
checks it failed. :class:`RunStats` holds them as plain JSON types (an xdist
worker ships them to the controller) and says what the failure text and the
terminal summary show::

    4/5 runs passed (80 %, 95 % CI 38–96 %) < min_pass_rate 1.0

Standard library only: the pytest plugin imports it in every run that samples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Z_95", "RunStats", "Sample", "wilson_interval"]

#: the standard normal quantile of a two-sided 95 % interval
Z_95 = 1.959963984540054


def wilson_interval(passed: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate ``passed / total``: ``(low, high)`` in [0, 1].

    With p = passed/total, n = total::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z / (1 + z²/n) · sqrt(p(1 − p)/n + z²/4n²)

    Unlike the normal ("Wald") interval it stays inside [0, 1] and is not
    zero-wide at 0/n or n/n, which is what a handful of samples needs. Reference:
    E. B. Wilson, "Probable inference, the law of succession, and statistical
    inference", JASA 22 (1927) 209–212; L. D. Brown, T. T. Cai, A. DasGupta,
    "Interval estimation for a binomial proportion", Statistical Science 16
    (2001) 101–133 (its recommendation for small n).

    ``z``: the normal quantile (default :data:`Z_95`, a 95 % interval).
    Raises ``ValueError`` when ``total < 1``, ``passed`` is outside
    ``[0, total]`` or ``z`` is not a positive finite number.
    """
    if total < 1:
        raise ValueError(f"wilson_interval needs at least one sample, got total={total}")
    if not 0 <= passed <= total:
        raise ValueError(f"wilson_interval: passed={passed} is not within [0, {total}]")
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"wilson_interval: z must be a positive number, got {z!r}")
    p = passed / total
    z2 = z * z
    denominator = 1 + z2 / total
    centre = (p + z2 / (2 * total)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    # the exact ends are 0 and 1 at 0/n and n/n; rounding must not step past them or past p
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def _percent(value: float) -> str:
    return f"{round(value * 100)}"


class Sample:
    """One run of a test: ``run`` (1-based), whether it ``passed``, the checks it failed
    (``failed_checks``, empty when it was not compared), ``compared`` (a comparison ran),
    ``error`` (what failed when no check did: the test's exception), ``kept`` (the file
    the failing sample is kept in, relative to the snapshot folder, or None)."""

    __slots__ = ("compared", "error", "failed_checks", "kept", "passed", "run")

    def __init__(
        self,
        run: int,
        passed: bool,
        *,
        failed_checks: Sequence[str] = (),
        compared: bool = False,
        error: str | None = None,
        kept: str | None = None,
    ) -> None:
        self.run = run
        self.passed = passed
        self.failed_checks = list(failed_checks)
        self.compared = compared
        self.error = error
        self.kept = kept

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "passed": self.passed,
            "failed_checks": list(self.failed_checks),
            "compared": self.compared,
            "error": self.error,
            "kept": self.kept,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Sample:
        return cls(
            int(data["run"]),
            bool(data["passed"]),
            failed_checks=[str(c) for c in data.get("failed_checks") or ()],
            compared=bool(data.get("compared")),
            error=data.get("error"),
            kept=data.get("kept"),
        )

    def what_failed(self) -> str:
        """One line: the failed checks, else the error, else that the test failed."""
        if self.failed_checks:
            return "failed " + ", ".join(self.failed_checks)
        if self.error:
            return "error: " + self.error
        return "the test failed"


class RunStats:
    """A test's samples and the verdict: ``passed`` when the pass rate ≥ ``min_pass_rate``.

    ``node``: the test's node id; ``name``: its snapshot name; ``replay``: the
    command that reproduces failing sample K offline, with ``{run}`` standing for K.
    """

    __slots__ = ("min_pass_rate", "name", "node", "replay", "samples")

    def __init__(
        self,
        node: str,
        name: str,
        samples: Sequence[Sample],
        min_pass_rate: float,
        replay: str = "",
    ) -> None:
        self.node = node
        self.name = name
        self.samples = list(samples)
        self.min_pass_rate = min_pass_rate
        self.replay = replay

    @property
    def runs(self) -> int:
        return len(self.samples)

    @property
    def passes(self) -> int:
        return sum(1 for s in self.samples if s.passed)

    @property
    def rate(self) -> float:
        return self.passes / self.runs if self.samples else 0.0

    @property
    def passed(self) -> bool:
        # compared as counts, so 3/5 clears 0.6 whatever the float rounding of 3/5 and 0.6
        return bool(self.samples) and self.passes >= self.min_pass_rate * self.runs - 1e-9

    def check_rates(self) -> list[tuple[str, int, int]]:
        """``(check, passes, compared)`` for every check some compared sample failed, in the order
        first seen; ``compared`` counts the samples that reached a comparison (an error before
        it decides no check)."""
        compared = [s for s in self.samples if s.compared]
        names = list(dict.fromkeys(c for s in compared for c in s.failed_checks))
        return [
            (name, sum(1 for s in compared if name not in s.failed_checks), len(compared))
            for name in names
        ]

    def headline(self) -> str:
        """``4/5 runs passed (80 %, 95 % CI 38–96 %) < min_pass_rate 1.0`` (``≥`` when it passes)."""
        low, high = wilson_interval(self.passes, self.runs)
        sign = "≥" if self.passed else "<"
        return (
            f"{self.passes}/{self.runs} runs passed ({_percent(self.rate)} %, "
            f"95 % CI {_percent(low)}–{_percent(high)} %) {sign} min_pass_rate {self.min_pass_rate:g}"
        )

    def lines(self) -> list[str]:
        """The headline, the per-check rates, one line per failing sample (its kept file and the
        command replaying it offline)."""
        out = [self.headline()]
        rates = self.check_rates()
        if rates:
            out.append(
                "  per check: "
                + ", ".join(f"{name} {ok}/{n}" for name, ok, n in rates)
                + "; every other check passed in every compared run"
            )
        for s in self.samples:
            if s.passed:
                continue
            line = f"  run {s.run}: {s.what_failed()}"
            if s.kept:
                line += f" — kept in {s.kept}"
                if self.replay:
                    line += f"; offline: {self.replay.replace('{run}', str(s.run))}"
            out.append(line)
        return out

    def text(self) -> str:
        """What the failing test shows: ``agentsnap: <name>`` then :meth:`lines`."""
        return "\n".join([f"agentsnap: statistics over live runs of {self.name!r}", *self.lines()])

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "name": self.name,
            "samples": [s.to_json() for s in self.samples],
            "min_pass_rate": self.min_pass_rate,
            "replay": self.replay,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunStats:
        return cls(
            str(data["node"]),
            str(data["name"]),
            [Sample.from_json(s) for s in data.get("samples") or ()],
            float(data["min_pass_rate"]),
            str(data.get("replay") or ""),
        )
