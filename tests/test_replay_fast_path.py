"""Replay's request record without the scrub walk (issue 30): ``scrub_parsed_json``.

A replayed request is scrubbed before it is looked up. When every string literal of the
SDK's body text is one the rules in force leave alone, the parsed body is the scrubbed body
and is used as it is (no walk); otherwise the body is walked as before. The properties: for
any document, any JSON encoding of it, any rules, the fast path gives exactly what
``scrub_json`` gives; a stored (scrubbed) body is scrub-stable, so replaying the exact
request takes the fast path. Then, through the real openai SDK: an exact request is served
with no drift on the fast path, and a stored body the run's rules would now change falls
through to the walk and is served as before (as drift).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.storage import scrub
from agentsnap.storage.scrub import REDACTED, scrub_json, scrub_parsed_json
from agentsnap.storage.scrub import walk as scrub_walk
from tests._support.scrub_samples import RULES, SECRET, TOUCHY, set_rules

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    """Each test starts from a new process's redaction state (conftest's ``fresh_scrub``)."""


#: strings a rule changes (a token shape, a remembered credential, a user pattern's match,
#: a secret key's name, an escaped quote) mixed with ordinary text
_TOUCHY = st.sampled_from([*TOUCHY, "gh"])
_TEXT = st.one_of(_TOUCHY, st.text(max_size=12))
_DOCS = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=20,
)
_ENCODINGS = [
    {"ensure_ascii": False, "separators": (",", ":")},  # httpx's
    {"ensure_ascii": True},  # json.dumps' default
    {"ensure_ascii": False, "indent": 2, "sort_keys": True},  # a golden's
]


@settings(max_examples=400, deadline=None)
@given(
    doc=_DOCS,
    encoding=st.sampled_from(_ENCODINGS),
    rules=st.sampled_from(RULES),
    remember=st.booleans(),
)
def test_property_the_fast_path_gives_what_the_walk_gives(
    doc: Any, encoding: dict[str, Any], rules: object, remember: bool
) -> None:
    set_rules(rules, remember)
    raw = json.dumps(doc, **encoding).encode("utf-8")
    for _ in range(2):  # the second time, the literals are known
        fast = scrub_parsed_json(json.loads(raw), raw)
        assert fast == scrub_json(json.loads(raw))
        assert json.dumps(fast, sort_keys=True) == json.dumps(
            scrub_json(json.loads(raw)), sort_keys=True
        )


@settings(max_examples=400, deadline=None)
@given(
    doc=_DOCS,
    encoding=st.sampled_from(_ENCODINGS),
    rules=st.sampled_from(RULES[:2]),
    remember=st.booleans(),
)
def test_property_a_stored_body_is_scrub_stable_and_taken_without_a_walk(
    doc: Any, encoding: dict[str, Any], rules: object, remember: bool
) -> None:
    """A stored body is ``scrub_json`` of what was sent: scrubbing it again under the same
    rules gives the same value, and the same bytes in any encoding; the fast path returns
    the parsed body itself, not walked unless one of its strings names a secret key
    (``password``: such a body is always walked, the literals do not say which strings are
    keys; the walk, finding nothing to change, returns it itself too: nothing copied)."""
    set_rules(rules, remember)
    stored = scrub_json(doc)
    assert scrub_json(stored) == stored
    raw = json.dumps(stored, **encoding).encode("utf-8")
    assert json.dumps(scrub_json(json.loads(raw)), **encoding).encode("utf-8") == raw
    parsed = json.loads(raw)
    names_a_secret_key = any(
        scrub_walk._secret_key(json.loads(b'"' + lit + b'"')) for lit in scrub_walk._literals(raw)
    )
    with mock.patch.object(scrub_walk, "scrub_json", wraps=scrub_walk.scrub_json) as walk:
        got = scrub_parsed_json(parsed, raw)
    assert walk.called is names_a_secret_key
    assert got == parsed
    if isinstance(parsed, (dict, list)) or not walk.called:  # (a string walked: an equal one)
        assert got is parsed


def test_a_body_with_a_user_json_path_is_always_walked() -> None:
    set_rules({"paths": ["..city"]}, remember=False)
    raw = b'{"city":"Paris"}'
    parsed = json.loads(raw)
    out = scrub_parsed_json(parsed, raw)
    assert out == {"city": REDACTED} and out is not parsed


def test_utf16_json_is_walked_not_cut_at_its_quote_bytes() -> None:
    raw = json.dumps({"k": "sk-proj-" + "Q" * 40}).encode("utf-16")
    parsed = json.loads(raw)
    assert scrub_parsed_json(parsed, raw) == {"k": REDACTED}


def test_new_rules_or_credentials_start_the_known_literals_over() -> None:
    raw = json.dumps({"note": "acct_777 " + SECRET}).encode()
    assert scrub_parsed_json(json.loads(raw), raw) == json.loads(raw)  # nothing to change yet
    scrub.configure({"patterns": ["acct_[0-9]+"]})
    assert scrub_parsed_json(json.loads(raw), raw) == {"note": f"{REDACTED} {SECRET}"}
    scrub.configure(None)
    scrub.remember_credentials([("x-api-key", SECRET)])
    assert scrub_parsed_json(json.loads(raw), raw) == {"note": f"acct_777 {REDACTED}"}
    assert scrub_walk._fixed[1] == scrub.credentials._known.version


# --------------------------------------------------------------------------- through the openai SDK


def _record_and_replay(
    tmp_path: Path, prompt: str, *, replay_rules: object = None
) -> tuple[list[Any], Any, Any]:
    """Record one openai call of ``prompt``, save and load its golden, then replay the same call
    under ``replay_rules``; the replayed trace's exchanges, the served answer and the golden."""
    import openai

    from agentsnap import Snapshot, SnapshotStore
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording
    from tests.fake_provider import FakeOpenAI, text_reply

    def ask(base: str) -> Any:
        client = openai.OpenAI(api_key="sk-test-not-real-0001", base_url=base, max_retries=0)
        done = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}]
        )
        return done.choices[0].message.content

    with FakeOpenAI() as fake:
        fake.respond_with(lambda body: text_reply("Sunny, 21 °C."))
        base = fake.base_url
        with Recording("capture") as rec:
            assert ask(base) == "Sunny, 21 °C."
    store = SnapshotStore(tmp_path)
    store.save(Snapshot("fast", trace=rec.trace.steps()))
    golden = store.load("fast")
    assert golden is not None
    scrub.configure(replay_rules)
    with Recording("replay", cassette=Cassette(golden.trace, name="fast")) as replay:
        answer = ask(base)  # the fake is stopped: only the cassette can answer
    assert replay.misses == 0
    return replay.trace.exchanges, answer, golden


def test_an_exact_request_is_served_on_the_fast_path_with_no_drift(tmp_path: Path) -> None:
    exchanges, answer, golden = _record_and_replay(tmp_path, "Weather in Paris? ☀")
    assert answer == "Sunny, 21 °C."
    (ex,) = exchanges
    assert ex.replay_index == 0 and ex.request_drift is None
    assert ex.request is golden.trace[0]["exchange"]["request"]  # the recording's, not a copy
    assert ex.request["body"]["messages"] == [{"role": "user", "content": "Weather in Paris? ☀"}]
    raw = json.dumps(ex.request["body"], ensure_ascii=False, separators=(",", ":")).encode()
    assert scrub_walk._fixed[2].issuperset(scrub_walk._literals(raw))  # every literal known


def test_a_stored_body_the_run_now_scrubs_falls_through_to_the_walk_and_drifts(
    tmp_path: Path,
) -> None:
    """A redact rule added after recording: the golden's body holds ``acct_4242`` as it was
    sent. The replayed request is walked (its text is not left alone), stored scrubbed, and so
    no longer equals the recording: served in recorded order with the drift named, as before."""
    exchanges, answer, golden = _record_and_replay(
        tmp_path, "Bill acct_4242 please", replay_rules={"patterns": ["acct_[0-9]+"]}
    )
    assert answer == "Sunny, 21 °C."
    (ex,) = exchanges
    assert ex.replay_index == 0 and ex.request is not golden.trace[0]["exchange"]["request"]
    assert ex.request["body"]["messages"][0]["content"] == f"Bill {REDACTED} please"
    assert ex.request_drift == [
        f"messages[0].content: 'Bill acct_4242 please' → 'Bill {REDACTED} please'"
    ]


#: what an agent's long request repeats from call to call (a system prompt, tool schemas)
_LONG_PARTS = {
    "system": "You are a careful assistant. " * 40,
    "tools": [{"name": f"tool_{i}", "description": "Looks a thing up. " * 4} for i in range(12)],
}


@settings(max_examples=300, deadline=None)
@given(
    before=_DOCS,
    after=_DOCS,
    encoding=st.sampled_from(_ENCODINGS),
    rules=st.sampled_from(RULES[:2]),
    remember=st.booleans(),
    where=st.sampled_from(["first", "middle", "last"]),
)
def test_property_a_long_body_read_beside_the_last_gives_what_the_walk_gives(
    before: Any, after: Any, encoding: dict[str, Any], rules: object, remember: bool, where: str
) -> None:
    """A long body (``scrub.walk._LONG``) is compared with the last long body whose literals were
    all harmless, and only the literals it changed are looked up (``_literals_beside``): for any
    two documents set anywhere in a long request, the second gives exactly what the walk gives."""
    set_rules(rules, remember)

    def long_body(doc: Any) -> bytes:
        parts = [("model", "m"), *_LONG_PARTS.items()]
        at = {"first": 0, "middle": 2, "last": len(parts)}[where]
        parts.insert(at, ("messages", [{"role": "user", "content": doc}]))
        return json.dumps(dict(parts), **encoding).encode("utf-8")

    first, second = long_body(before), long_body(after)
    assert len(first) >= scrub_walk._LONG and len(second) >= scrub_walk._LONG
    for raw in (first, second, second, first):
        fast = scrub_parsed_json(json.loads(raw), raw)
        assert json.dumps(fast, sort_keys=True) == json.dumps(
            scrub_json(json.loads(raw)), sort_keys=True
        )


def test_a_long_body_changing_one_literal_looks_up_that_literal_alone() -> None:
    """After a long body whose literals were all harmless, the next one's shared start and end
    are not cut up: only the literal they differ in is looked up, or walked when it is a secret."""
    body = {"model": "m", **_LONG_PARTS, "messages": [{"role": "user", "content": "hi"}]}
    raw = json.dumps(body).encode()
    assert scrub_parsed_json(json.loads(raw), raw) == body
    changed = raw.replace(b'"hi"', b'"hello there"')
    assert scrub_walk._literals_beside(raw, changed) == [b"hello there"]
    secret = raw.replace(b'"hi"', json.dumps(f"key {SECRET}").encode())
    assert scrub_walk._literals_beside(raw, secret) == [f"key {SECRET}".encode()]
    scrub.remember_credentials([("authorization", f"Bearer {SECRET}")])
    assert SECRET not in json.dumps(scrub_parsed_json(json.loads(secret), secret))
    # a cut inside a literal takes the whole literal
    inside = raw.replace(b"careful assistant. You", b"careful assistant! You", 1)
    literals = scrub_walk._literals_beside(raw, inside)
    assert len(literals) == 1 and literals[0].startswith(b"You are a careful assistant!")
