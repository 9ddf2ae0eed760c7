"""A replayed request equal, as sent, to a proven golden's stored request: answered without scrubbing.

``request_record(request, cassette)`` first asks whether the request, parsed but not scrubbed, has
the replay key of one of the cassette's stored requests (``capture.request._stored_as_sent``);
when the golden's digest holds under the rules in force and no remembered credential is in the
request, that stored request is the record. The property: whatever the document, the rules, the
credentials remembered when it was recorded and after, the answer is the record the scrubbing path
makes (``record_of``), or no answer. Then the cases it declines (a credential remembered since, a
body with a backslash, a golden edited by hand, other rules), and a replay through the real
openai SDK that takes it (no scrub walk) and is served as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.capture import request as request_module
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.request import record_of
from agentsnap.storage import scrub
from agentsnap.storage.scrub import walk as scrub_walk
from agentsnap.storage.snapshot import trace_digest
from tests._support.scrub_samples import RULES, SECRET, TOUCHY

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

PATH = "/v1/chat/completions"
CTYPE = "application/json"


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    """Each test starts from a new process's redaction state (conftest's ``fresh_scrub``)."""


_TEXT = st.one_of(st.sampled_from([*TOUCHY, SECRET, "gh"]), st.text(max_size=12))
_DOCS = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=20,
)


def _remember(yes: bool) -> None:
    if yes:
        scrub.remember_credentials([("authorization", f"Bearer {SECRET}")])


def _cassette(stored: dict[str, Any]) -> tuple[Cassette, list[dict[str, Any]]]:
    """A cassette of one step holding ``stored`` as its request, as a golden's load gives it
    (keys sorted), its digest checked under the rules in force."""
    step = {
        "type": "llm_call",
        "exchange": {"request": stored, "response": {"status": 200, "body": {"ok": True}}},
    }
    trace: list[dict[str, Any]] = json.loads(json.dumps([step], sort_keys=True))
    cassette = Cassette(trace, name="as::sent")
    cassette.prove(trace, trace_digest(trace) or "")
    return cassette, trace


def _parts(
    body: object, *, path: str = PATH, ensure_ascii: bool = False, encoding: str = "utf-8"
) -> tuple[str, str, str, str, bytes]:
    raw = json.dumps(body, ensure_ascii=ensure_ascii, separators=(",", ":")).encode(encoding)
    return ("POST", path, "", CTYPE, raw)


@settings(max_examples=400, deadline=None)
@given(
    doc=st.dictionaries(_TEXT, _DOCS, max_size=5),
    rules=st.sampled_from(RULES),
    before=st.booleans(),
    after=st.booleans(),
    ascii_only=st.booleans(),
    encoding=st.sampled_from(["utf-8", "utf-8", "utf-16-le", "utf-32-le"]),
)
def test_property_the_answer_is_the_record_scrubbing_makes(
    doc: dict[str, Any], rules: object, before: bool, after: bool, ascii_only: bool, encoding: str
) -> None:
    scrub.forget_secrets()  # (each example a new recording process)
    scrub.configure(rules)
    _remember(before)  # the recording process's credentials
    parts = _parts(doc, ensure_ascii=ascii_only, encoding=encoding)
    stored = record_of(*parts)
    cassette, _ = _cassette(stored)
    scrub.forget_secrets()
    _remember(after)  # the replaying process's
    # the request as the SDK sends it now: the document again, or its stored form (a request
    # equal to the stored one, as an unchanged replay sends)
    for sent in (parts, _parts(stored["body"], ensure_ascii=ascii_only, encoding=encoding)):
        answer = request_module._stored_as_sent(sent, cassette)
        if answer is not None:
            assert answer == record_of(*sent)
            assert json.dumps(answer, sort_keys=True) == json.dumps(
                record_of(*sent), sort_keys=True
            )


def test_an_unchanged_request_is_answered_with_the_stored_one_without_a_walk() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "weather in Paris?"}]}
    stored = record_of(*_parts(body))
    cassette, trace = _cassette(stored)
    with mock.patch.object(
        scrub_walk, "scrub_parsed_json", wraps=scrub_walk.scrub_parsed_json
    ) as walk:
        answer = request_module._stored_as_sent(_parts(body), cassette)
    assert answer is trace[0]["exchange"]["request"]
    assert answer == record_of(*_parts(body)) and not walk.called


def test_a_credential_remembered_since_the_recording_is_scrubbed_as_before() -> None:
    body = {"messages": [{"role": "user", "content": f"my key is {SECRET}"}]}
    stored = record_of(*_parts(body))  # the recording process did not know it
    assert SECRET in json.dumps(stored)
    cassette, _ = _cassette(stored)
    _remember(True)
    assert request_module._stored_as_sent(_parts(body), cassette) is None
    assert SECRET not in json.dumps(record_of(*_parts(body)))  # the path taken instead


def test_a_credential_spelled_with_an_escape_is_scrubbed_as_before() -> None:
    """A JSON escape hides a credential from a search of the text: such a body is scrubbed."""
    hidden = SECRET.replace("-", "\\u002d", 1)  # "Zx9\u002dremembered..." in the JSON text
    raw = ('{"messages":[{"content":"' + hidden + '","role":"user"}]}').encode()
    parts = ("POST", PATH, "", CTYPE, raw)
    stored = record_of(*parts)  # the recording process did not know it
    assert SECRET in json.dumps(stored)
    cassette, _ = _cassette(stored)
    _remember(True)
    assert not any(form.encode() in raw for form in scrub.credentials._known.forms)
    assert request_module._stored_as_sent(parts, cassette) is None
    assert SECRET not in json.dumps(record_of(*parts))


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-32-le"])
def test_a_credential_in_a_utf16_or_utf32_body_is_scrubbed_as_before(encoding: str) -> None:
    """json reads UTF-16 and UTF-32 text too (a little-endian one starts with ``{``); the
    credentials' forms are looked for in UTF-8 (found by the reviewer break14)."""
    raw = json.dumps({"q": f"key is {SECRET}"}).encode(encoding)
    parts = ("POST", PATH, "", CTYPE, raw)
    stored = record_of(*parts)  # the recording process did not know it
    assert SECRET in json.dumps(stored)
    cassette, _ = _cassette(stored)
    _remember(True)
    assert request_module._stored_as_sent(parts, cassette) is None
    assert SECRET not in json.dumps(record_of(*parts))


def test_a_path_spelling_a_query_is_not_answered_with_a_request_that_has_one() -> None:
    """httpx's ``url.path`` is decoded: a request to ``/p%3Fa=1`` has the path ``/p?a=1`` and no
    query, the replay key of a stored ``/p`` with the query ``a=1``; their records differ (from
    the reviewer break14: the stored request's fields and path are compared, not only its key)."""
    raw = b'{"model":"m"}'
    stored = record_of("POST", "/p", "a=1", CTYPE, raw)
    assert stored["query"] == "a=1"
    cassette, _ = _cassette(stored)
    sent = ("POST", "/p?a=1", "", CTYPE, raw)
    assert record_of(*sent) != stored
    assert request_module._stored_as_sent(sent, cassette) is None


def test_a_method_spelled_otherwise_is_not_answered_with_the_stored_one() -> None:
    """The replay key upper-cases the method; the record keeps it as sent."""
    raw = b'{"model":"m"}'
    cassette, _ = _cassette(record_of("post", "/p", "", CTYPE, raw))
    sent = ("POST", "/p", "", CTYPE, raw)
    assert record_of(*sent) != record_of("post", "/p", "", CTYPE, raw)
    assert request_module._stored_as_sent(sent, cassette) is None


def test_a_credential_remembered_since_in_the_path_is_scrubbed_as_before() -> None:
    body = {"q": 1}
    path = f"/v1/models/{SECRET}:generate"
    stored = record_of(*_parts(body, path=path))
    cassette, _ = _cassette(stored)
    _remember(True)
    assert request_module._stored_as_sent(_parts(body, path=path), cassette) is None


@pytest.mark.parametrize(
    "why",
    ["digest-does-not-hold", "other-rules", "query", "not-json", "multipart"],
)
def test_what_it_declines(why: str) -> None:
    body = {"model": "m", "q": "hi"}
    parts = _parts(body)
    stored = record_of(*parts)
    cassette, trace = _cassette(stored)
    if why == "digest-does-not-hold":  # (a golden edited by hand keeps its old digest)
        cassette.prove(trace, "0" * 64)
    elif why == "other-rules":
        scrub.configure({"patterns": ["acct_[0-9]+"]})
    elif why == "query":
        parts = ("POST", PATH, "a=1", CTYPE, parts[4])
    elif why == "not-json":
        parts = ("POST", PATH, "", "text/plain", b"hello")
    elif why == "multipart":  # (its boundary "hi" in the JSON text: replaced by record_of)
        parts = ("POST", PATH, "", "multipart/form-data; boundary=hi", parts[4])
        assert record_of(*parts) != stored
    assert request_module._stored_as_sent(parts, cassette) is None


openai = pytest.importorskip("openai")

from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.golden_again import ask_openai, record_one_call


def test_a_replay_through_the_sdk_takes_the_stored_requests_unscrubbed(tmp_path: Path) -> None:
    from agentsnap._pytest import golden_run
    from agentsnap.config import Settings
    from agentsnap.lifecycle import open_recording

    store, url = record_one_call(tmp_path, "as::sent", "Sunny.")
    golden = store.load("as::sent")
    assert golden is not None
    replay = open_recording(
        golden, Settings(), mode="replay", name="as::sent", path=store.path_for("as::sent")
    )
    with mock.patch.object(
        request_module, "scrub_parsed_json", wraps=request_module.scrub_parsed_json
    ) as walk:
        replay.start()
        try:
            assert ask_openai(url) == "Sunny."  # its server stopped: served from the golden
        finally:
            replay.stop()
    assert not walk.called
    (exchange,) = replay.trace.exchanges
    assert exchange.request is golden.trace[0]["exchange"]["request"]
    assert exchange.request_drift is None
    assert golden_run.golden_again("as::sent", replay, golden) is not None


_PLAIN_OR_SECRET = st.sampled_from(["hi", "weather in Paris", f"key is {SECRET}", SECRET, "x" * 40])


@settings(max_examples=200, deadline=None)
@given(
    doc=st.dictionaries(
        _PLAIN_OR_SECRET,
        st.one_of(_PLAIN_OR_SECRET, st.lists(_PLAIN_OR_SECRET, max_size=3)),
        min_size=1,
        max_size=4,
    ),
    path=st.sampled_from([PATH, f"/v1/{SECRET}/chat"]),
)
def test_property_a_credential_remembered_since_is_never_answered_unscrubbed(
    doc: dict[str, Any], path: str
) -> None:
    """The recording process did not know the credential (stored as sent); this one does."""
    scrub.forget_secrets()  # (each example a new recording process)
    parts = _parts(doc, path=path)
    stored = record_of(*parts)
    cassette, _ = _cassette(stored)
    _remember(True)
    answer = request_module._stored_as_sent(parts, cassette)
    assert answer is None or answer == record_of(*parts)
    if SECRET not in parts[4].decode() and SECRET not in path:
        assert answer is not None  # nothing to remove: answered
