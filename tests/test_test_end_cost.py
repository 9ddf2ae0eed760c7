"""A replayed test's end, the parts that were cut from it: each fast answer against the slow one.

* ``golden_run.prepared_output``: a golden-again run's output, ``prepare({"output": ...})``'s
  value, an ASCII text the rules leave alone answered as itself;
* ``snapshot._now``: a second's text made once, the same text as
  ``datetime.now(timezone.utc).replace(microsecond=0).isoformat()``.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap._pytest.golden_run import prepared_output
from agentsnap.storage import snapshot as _snapshot
from agentsnap.storage.serialize import prepare, prepare_plain
from tests._support.scrub_samples import RULES, SECRET, TOUCHY, set_rules


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    """Each test starts from a new process's redaction state (conftest's ``fresh_scrub``)."""


#: texts a rule changes (a token shape, the remembered credential, a user pattern's match, a
#: placeholder), JSON texts a path rule reaches, and ordinary or non-ASCII text
_TEXT = st.one_of(
    st.sampled_from(
        [
            *TOUCHY,
            SECRET,
            "gh",
            '{"city": "Paris", "temp": 21}',
            '[{"city": "Oslo"}]',
            "The weather in Paris is mild and sunny today. (ref ece487fabc)",
            "a\ud800b",
        ]
    ),
    st.text(max_size=24),
    st.text(alphabet=st.characters(max_codepoint=127), max_size=40),
)
_OUTPUT = st.one_of(
    _TEXT,
    st.none(),
    st.integers(),
    st.floats(),
    st.lists(_TEXT, max_size=3),
    st.dictionaries(st.sampled_from(["city", "answer", "api_key"]), _TEXT, max_size=3),
)


def _same(got: Any, want: Any) -> None:
    assert type(got) is type(want)
    assert json.dumps(got, sort_keys=True, default=str) == json.dumps(
        want, sort_keys=True, default=str
    )  # (NaN is not equal to itself)


@settings(max_examples=600, deadline=None)
@given(output=_OUTPUT, rules=st.sampled_from(RULES), remember=st.booleans())
def test_property_prepared_output_is_prepare(output: Any, rules: object, remember: bool) -> None:
    """Any output, any rules, a credential remembered or not, asked twice: ``prepare``'s value."""
    set_rules(rules, remember)
    for _ in range(2):
        _same(prepared_output(output), prepare({"output": output})["output"])


@pytest.mark.parametrize(
    ("rules", "output", "scrubbed"),
    [
        (None, "token sk-proj-" + "A1b2C3d4" * 5, "token <redacted>"),  # a token shape
        (None, f"it is {SECRET} here", "it is <redacted> here"),  # a remembered credential
        ({"patterns": ["acct_[0-9]+"]}, "acct_12345 paid", "<redacted> paid"),  # a user pattern
        ({"paths": ["..city"]}, '{"city": "Paris"}', '{"city": "<redacted>"}'),  # a JSON path
    ],
)
def test_a_text_a_rule_changes_is_prepared(rules: object, output: str, scrubbed: str) -> None:
    """The fast answer is taken only for a text left alone: each rule's change is made."""
    set_rules(rules, True)
    got = prepared_output(output)
    assert got == prepare({"output": output})["output"]
    assert json.loads(got) == json.loads(scrubbed) if got.startswith("{") else got == scrubbed


def test_a_text_left_alone_is_itself() -> None:
    """The usual answer: the step's text itself, no copy."""
    set_rules(None, True)
    text = "The weather in Paris is mild and sunny today. (ref ece487fabc)"
    assert prepared_output(text) is text


_INSTANTS = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(timezone.utc)
)


@settings(max_examples=300, deadline=None)
@given(
    start=_INSTANTS,
    steps=st.lists(
        st.one_of(
            st.integers(min_value=0, max_value=2_000_000),  # microseconds later, a second crossed
            st.sampled_from([1, 999_999, 1_000_000, 86_400_000_000]),
        ),
        max_size=8,
    ),
    edge=st.sampled_from([0, 999_999, None]),
)
def test_property_now_is_the_clock_to_the_second(
    start: datetime, steps: list[int], edge: int | None
) -> None:
    """Readings in order (within a second, at its last microsecond, across seconds and days,
    the same instant twice): each the text of its own second."""
    if edge is not None:
        start = start.replace(microsecond=edge)
    times = [start]
    for step in steps:
        times.append(times[-1] + timedelta(microseconds=step))
    clock = iter(times)

    class _Clock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            assert tz is timezone.utc
            return next(clock)

    with (
        mock.patch.object(_snapshot, "datetime", _Clock),
        mock.patch.object(_snapshot, "_LAST_NOW", ((0, -1), "")),
    ):
        for when in times:
            assert _snapshot._now() == when.replace(microsecond=0).isoformat()


def test_now_reads_the_clock() -> None:
    """Unpatched: the real clock's second (read before and after: one of the two)."""
    before = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    got = _snapshot._now()
    after = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    assert got in (before, after)
    assert not math.isnan(datetime.fromisoformat(got).timestamp())


def test_prepare_plain_asks_again_when_rules_or_credentials_change() -> None:
    """``prepare_plain`` answers the text it last found left alone without a look, only under
    the same rules and remembered credentials: one remembered since, or a user pattern set
    since, is scrubbed from the same fields."""
    fields = {"version": "2.0", "name": "t::x", "model": SECRET, "comparison": {"n": "acct_12345"}}
    set_rules(None, False)
    for _ in range(2):
        assert prepare_plain(fields) == fields
    set_rules(None, True)  # the credential remembered
    assert prepare_plain(fields)["model"] == "<redacted>"
    assert prepare_plain(fields) == prepare(fields)
    set_rules({"patterns": ["acct_[0-9]+"]}, False)
    assert prepare_plain(fields)["comparison"] == {"n": "<redacted>"}
    set_rules(None, False)
    assert prepare_plain(fields) == fields


@pytest.mark.parametrize("remember", [False, True], ids=["no-credential", "credential"])
@pytest.mark.parametrize("rules", ["none", "patterns", "paths"])
@pytest.mark.parametrize(
    "shape",
    [
        "chat-error-400",
        "chat-stream-tool-calls",
        "chat-json-answer",
        "chat-stream-json-answer",
        "responses-two-text-parts",
    ],
)
def test_the_golden_again_record_is_the_built_runs_bytes(
    tmp_path: Path, shape: str, rules: str, remember: bool
) -> None:
    """The ``.last_run`` bytes of a golden again (its output answered by ``prepared_output``, its
    fields by ``prepare_plain``'s memo: written twice) are those of the snapshot built from the
    same replayed trace, the slow path, given the same times and comparison."""
    pytest.importorskip("openai")
    from agentsnap.storage import scrub
    from agentsnap.storage.store import SnapshotStore
    from tests._support.golden_again import record_and_replay
    from tests.test_golden_run_equivalence import RULES as SHAPE_RULES
    from tests.test_golden_run_equivalence import SHAPES

    make, agent, replies = SHAPES[shape]
    scrub.configure(SHAPE_RULES[rules])
    if remember:
        scrub.remember_credentials([("authorization", "Bearer ACC-1-remembered-key-0000")])
    _, again, built = record_and_replay(tmp_path, make(), agent, replies())
    store = SnapshotStore(tmp_path / "records")
    comparison = {"failed_checks": [], "mode": "replay", "request_drift": False, "score": 1.0}
    for snap in (again, built):
        snap.created_at = snap.updated_at = snap.recorded_at = "2026-12-07T10:28:06+00:00"
        snap.comparison = dict(comparison)
    written = [store._scratch_bytes(snap) for snap in (again, built, again)]
    assert written[0] == written[1] == written[2]
