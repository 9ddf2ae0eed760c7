"""A replayed golden whose ``trace_digest`` holds: its digest checked once, as its cassette is made.

* the check's answer is kept on the cassette (``Cassette.prove``): ``golden_again`` reads it at the
  test's end instead of hashing the steps again (the same answer: counted by a spy), and only for
  the very steps it checked under the ``redact`` rules it checked them with;
* while it holds and every float is finite, each recorded response that keeps its exact text beside
  its parsed body is served that text without parsing it again (``replay_body(proven=True)``):
  the bytes are the recorded ones, as the parse-and-compare path serves them;
* a body or text edited by hand, a NaN in the steps, a digest of other steps: not proven, and the
  body is served as the parse-and-compare path serves it (an edited body re-serialised).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agentsnap import SnapshotStore
from agentsnap._pytest import golden_run
from agentsnap.capture import faithful
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.faithful import replay_body, response_body
from agentsnap.capture.recording import Recording
from agentsnap.config import Settings
from agentsnap.lifecycle import open_recording
from agentsnap.storage import scrub
from agentsnap.storage import snapshot as snapshot_module
from agentsnap.storage.snapshot import trace_digest
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

openai = pytest.importorskip("openai")

from tests._support.golden_again import ask_openai, record_one_call

NAME = "proven::texts"
#: a body the server sends with spaces and unsorted keys: stored as its body and its exact text
WIRE = b'{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sunny."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}'


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    return None


def _step(stored: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "http",
        "exchange": {
            "request": {"method": "POST", "path": "/v1/x", "body": {"q": 1}},
            "response": {"status": 200, "headers": {}, **stored},
        },
    }


def _as_read(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``trace`` as a golden file holds it and a load gives it back (keys sorted)."""
    found: list[dict[str, Any]] = json.loads(json.dumps(trace, sort_keys=True))
    return found


def _texts_trace() -> list[dict[str, Any]]:
    stored, exact = response_body(WIRE, "application/json", verbatim=False)
    assert exact and set(stored) == {"body", "text"}  # the exact text kept beside the body
    return _as_read([_step(stored)])


def test_a_proven_cassette_serves_each_text_as_recorded_without_parsing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = _texts_trace()
    cassette = Cassette(trace, name=NAME)
    assert cassette.proof is None and not cassette.texts_parse_to_bodies
    cassette.prove(trace, trace_digest(trace) or "")
    assert cassette.texts_parse_to_bodies
    assert cassette.proven(trace) == (True, True)
    stored = trace[0]["exchange"]["response"]
    parsed: list[object] = []
    real = faithful.wire.json_loads
    monkeypatch.setattr(faithful.wire, "json_loads", lambda t: parsed.append(t) or real(t))
    assert replay_body(stored, proven=True) == (WIRE, True)
    assert parsed == []
    assert replay_body(stored) == (WIRE, True)  # the parse-and-compare path: the same bytes
    assert len(parsed) == 1


def test_a_trace_that_does_not_hold_its_digest_is_served_as_the_parse_path_serves_it() -> None:
    trace = _texts_trace()
    digest = trace_digest(trace) or ""
    edited = copy.deepcopy(trace)
    edited[0]["exchange"]["response"]["body"]["choices"][0]["message"]["content"] = "Rainy."
    cassette = Cassette(edited, name=NAME)
    cassette.prove(edited, digest)  # the file's digest, kept by a hand edit
    assert cassette.proven(edited) == (False, True)
    assert not cassette.texts_parse_to_bodies
    stored = edited[0]["exchange"]["response"]
    body, exact = replay_body(stored, proven=cassette.texts_parse_to_bodies)
    assert not exact and json.loads(body)["choices"][0]["message"]["content"] == "Rainy."


def test_a_nan_anywhere_in_the_steps_keeps_the_parse_and_compare() -> None:
    trace = _texts_trace() + _as_read(
        [{"type": "tool_call", "tool": "t", "args": {"x": float("nan")}}]
    )
    cassette = Cassette(trace, name=NAME)
    cassette.prove(trace, trace_digest(trace) or "")
    assert cassette.proven(trace) == (True, False)
    assert not cassette.texts_parse_to_bodies


def test_the_kept_answer_is_for_those_steps_under_those_rules_only() -> None:
    trace = _texts_trace()
    cassette = Cassette(trace, name=NAME)
    cassette.prove(trace, trace_digest(trace) or "")
    assert cassette.proven(copy.deepcopy(trace)) is None  # other steps (equal values): not these
    scrub.configure({"patterns": ["acct_[0-9]+"]})
    assert cassette.proven(trace) is None  # other rules: checked again by the caller


def _record(folder: Path) -> tuple[SnapshotStore, str]:
    return record_one_call(folder, NAME, "Sunny in Paris.")


def _replay(store: SnapshotStore, url: str) -> tuple[Recording, Any]:
    golden = store.load(NAME)
    assert golden is not None
    recording = open_recording(
        golden, Settings(), mode="replay", name=NAME, path=store.path_for(NAME)
    )
    recording.start()
    try:
        answer = ask_openai(url)  # its server stopped: replay never reaches it
    finally:
        recording.stop()
    assert answer == "Sunny in Paris."
    return recording, golden


def test_a_replayed_golden_is_proven_once_at_its_start_and_its_end_reads_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, url = _record(tmp_path)
    proofs: list[object] = []
    real = snapshot_module.trace_proof

    def counted(trace: object, digest: str) -> tuple[bool, bool]:
        proofs.append(trace)
        return real(trace, digest)

    monkeypatch.setattr(snapshot_module, "trace_proof", counted)
    recording, golden = _replay(store, url)
    assert recording.cassette is not None and recording.cassette.texts_parse_to_bodies
    assert proofs == [golden.trace]  # checked as the cassette was made
    again = golden_run.golden_again(NAME, recording, golden)
    assert again is not None and proofs == [golden.trace]  # the end read the kept answer
    # a recording whose cassette was made without the check: the end checks, as before
    bare = Recording("replay", cassette=Cassette(golden.trace, name=NAME)).start()
    try:
        ask_openai(url)
    finally:
        bare.stop()
    assert golden_run.golden_again(NAME, bare, golden) is not None
    assert proofs == [golden.trace, golden.trace]


def test_a_golden_whose_response_was_edited_serves_the_edit(tmp_path: Path) -> None:
    store, url = _record(tmp_path)
    path = store.path_for(NAME)
    data = json.loads(path.read_text(encoding="utf-8"))
    (response,) = [s["exchange"]["response"] for s in data["trace"] if "exchange" in s]
    assert "Sunny in Paris." in response["text"]
    response["body"]["choices"][0]["message"]["content"] = "Rainy in Paris."  # the text left
    path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    golden = store.load(NAME)
    assert golden is not None and golden.trace_digest is not None  # the hand edit kept it
    recording = open_recording(
        golden, Settings(), mode="replay", name=NAME, path=store.path_for(NAME)
    )
    assert recording.cassette is not None and not recording.cassette.texts_parse_to_bodies
    recording.start()
    try:
        answer = ask_openai(url)
    finally:
        recording.stop()
    assert answer == "Rainy in Paris."  # the edited body, not the recorded text


def test_the_fakes_response_is_stored_with_its_exact_text(tmp_path: Path) -> None:
    """What the two tests above replay: a response kept as its body and its exact text."""
    store, _ = _record(tmp_path)
    golden = store.load(NAME)
    assert golden is not None
    (response,) = [s["exchange"]["response"] for s in golden.trace if "exchange" in s]
    assert {"body", "text"} <= set(response)
