"""A replayed test's ``.last_run`` record and golden lookup made cheaper, the same answers (issue 30).

* :func:`agentsnap.storage.serialize.prepare_plain`: a prepared snapshot's own fields (name,
  times, model, comparison) prepared without the walk when nothing in them changes; for any such
  dict and any rules it is ``prepare``'s result, in value and in bytes.
"""

from __future__ import annotations

import json
import math
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.storage import scrub
from agentsnap.storage import serialize as _serialize
from agentsnap.storage.serialize import compact_bytes, prepare, prepare_plain
from tests._support.scrub_samples import SECRET, TOUCHY

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    """Each test starts from a new process's redaction state (conftest's ``fresh_scrub``)."""


#: strings a rule changes or JSON spells oddly, the keys a path rule or the snapshot names, and
#: ordinary text; values JSON has no word for (NaN, an int past 64 bits, a lone surrogate, bytes)
_TEXT = st.one_of(
    st.sampled_from([*TOUCHY, "city", "name", "input", "output", "comparison", "\ud800", "gh"]),
    st.text(max_size=12),
)
_ODD = st.sampled_from([math.nan, math.inf, 2**70, -(2**64), b"raw", ("a", 1), 1e16, -0.0])
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _TEXT, _ODD),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=20,
)
_RULES = [None, {"patterns": ["acct_[0-9]+"]}, {"paths": ["..city"]}]


def _setup(rules: object, remember: bool) -> None:
    scrub.forget_secrets()
    scrub.configure(rules)
    if remember:
        scrub.remember_credentials([("authorization", f"Bearer {SECRET}")])


def _bytes(data: dict[str, Any]) -> bytes:
    return bytes(compact_bytes(data))


@settings(max_examples=500, deadline=None)
@given(
    fields=st.dictionaries(_TEXT, _VALUES, max_size=6),
    rules=st.sampled_from(_RULES),
    remember=st.booleans(),
)
def test_property_prepare_plain_is_prepare(
    fields: dict[str, Any], rules: object, remember: bool
) -> None:
    """Any dict, any rules, remembered credentials or not, asked twice (the second time its
    literals are known): ``prepare``'s value and bytes, and a dict of its own."""
    _setup(rules, remember)
    for _ in range(2):
        got = prepare_plain(fields)
        want = prepare(fields)
        assert got == want or json.dumps(got, sort_keys=True, default=str) == json.dumps(
            want, sort_keys=True, default=str
        )  # (NaN is not equal to itself)
        assert _bytes(got) == _bytes(want)
        assert got is not fields


def _rest(model: str = "gpt-4o-mini-2024-07-18", **more: Any) -> dict[str, Any]:
    """A replayed run's own fields, as a ``.last_run`` record holds them."""
    return {
        "version": "2.0",
        "name": "tests/test_agents_00.py::test_agent_0",
        "approved": False,
        "source": "pytest",
        "created_at": "2026-12-07T10:28:06+00:00",
        "updated_at": "2026-12-07T10:28:06+00:00",
        "recorded_at": "2026-12-07T10:28:06+00:00",
        "agentsnap_version": "1.0.0.dev0",
        "model": model,
        "comparison": {
            "semantic_backend": {},
            "semantic_scores": {"llm_call[0]": 1.0, "output": 1.0},
            "score": 1.0,
            "failed_checks": [],
            "mode": "replay",
            "request_drift": False,
        },
        **more,
    }


def test_a_replayed_runs_fields_are_not_walked() -> None:
    rest = _rest()
    with mock.patch.object(_serialize, "prepare", wraps=_serialize.prepare) as walk:
        got = prepare_plain(rest)
    assert not walk.called and got == rest and got is not rest


@pytest.mark.parametrize(
    ("rules", "rest", "changed"),
    [
        (None, _rest(model="sk-proj-" + "A1b2C3d4" * 5), "model"),  # a token shape
        (None, _rest(comparison={"password": "hunter22"}), "comparison"),  # a secret key
        ({"patterns": ["acct_[0-9]+"]}, _rest(model="acct_12345"), "model"),  # a user pattern
        # walked, changed or not: a user's JSON path (prepare applies it to input and output
        # only), a float JSON has no word for
        ({"paths": ["..city"]}, _rest(comparison={"city": "Paris"}), None),
        (None, _rest(comparison={"score": math.nan}), None),
    ],
)
def test_what_a_rule_may_change_is_walked(
    rules: object, rest: dict[str, Any], changed: str | None
) -> None:
    _setup(rules, remember=False)
    with mock.patch.object(_serialize, "prepare", wraps=_serialize.prepare) as walk:
        got = prepare_plain(rest)
    assert walk.called
    assert _bytes(got) == _bytes(prepare(rest))
    if changed is not None:
        assert got[changed] != rest[changed]


def test_a_trace_is_prepared_as_steps_are() -> None:
    """A step's exchange has its account headers masked by name (never a value's rule): a dict
    holding a ``trace`` is ``prepare``'s, walked."""
    step = {"type": "http", "exchange": {"response": {"headers": {"openai-organization": "org-1"}}}}
    got = prepare_plain({"name": "t", "trace": [step]})
    assert got == prepare({"name": "t", "trace": [step]})
    assert got["trace"][0]["exchange"]["response"]["headers"]["openai-organization"] != "org-1"
