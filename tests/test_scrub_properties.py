"""Properties of the value scrubber: a generated secret placed anywhere never reaches a file.

For any secret the client sent (remembered from its auth header), placed
anywhere in a request, a response, a stream split at any byte or between any
two events, or a tool value (text, nested JSON, bytes), no file agentsnap
writes contains it in any form (plain, JSON-escaped, URL-encoded, base64).
Shaped secrets (an ``sk-proj-`` key) split across two SSE events at any
character are found too.
"""

from __future__ import annotations

import base64
import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from agentsnap import AgentRecorder, Snapshot, SnapshotStore, config
from agentsnap.storage import schema, scrub
from agentsnap.storage.scrub import REDACTED, scrub_chunks, scrub_json, scrub_text
from agentsnap.storage.scrub import credentials as scrub_credentials
from agentsnap.storage.scrub import rules as scrub_rules
from agentsnap.storage.scrub import text as text_rules
from tests._support.ci import CI_MARKERS

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


_KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+/=.~"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in CI_MARKERS:
        monkeypatch.delenv(var, raising=False)
    scrub.forget_secrets()
    yield
    scrub.forget_secrets()


#: what every snapshot file holds whatever was recorded (the names of its fields,
#: ``agentsnap_version`` …): a "secret" inside them is in every file and is not a leak. (Hypothesis
#: also draws strings from the project's own source, where these names are written.)
_FILE_WORDS = json.dumps(schema.json_schema())
secrets = st.text(alphabet=_KEY_CHARS, min_size=16, max_size=64).filter(
    lambda s: len(set(s)) >= 8 and s.strip() == s and s not in _FILE_WORDS
)
filler = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)


def _forms(secret: str) -> list[bytes]:
    """The forms a leak could take in a file."""
    out = {
        secret,
        json.dumps(secret)[1:-1],
        quote(secret, safe=""),
        base64.b64encode(secret.encode()).decode()[:-4],
    }
    return [f.encode() for f in out if len(f) >= 12]


def _assert_absent(data: bytes, secret: str) -> None:
    for form in _forms(secret):
        assert form not in data, f"{form!r} found"


def _fresh_secret(secret: str) -> None:
    scrub.forget_secrets()
    scrub.remember_credentials([("authorization", f"Bearer {secret}")])
    assert secret in scrub.remembered()


# --------------------------------------------------------------------------- documents


json_docs = st.recursive(
    st.none() | st.booleans() | st.integers() | filler,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(filler, inner, max_size=4),
    max_leaves=15,
)


def _place(doc: Any, secret: str, where: int, before: str, after: str) -> Any:
    """``doc`` with ``before + secret + after`` put at the ``where``-th place (a string leaf, a new key, or a new item)."""
    text = before + secret + after
    spots: list[Any] = []

    def walk(node: Any) -> None:
        spots.append(node)
        if isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    holder = {"doc": doc}
    walk(holder)
    target = [s for s in spots if isinstance(s, (dict, list))][
        where % len([s for s in spots if isinstance(s, (dict, list))])
    ]
    if isinstance(target, dict):
        target[f"k{where}" if where % 3 else text] = text
    else:
        target.append(text)
    return holder


@settings(max_examples=300, deadline=None)
@given(secret=secrets, doc=json_docs, where=st.integers(0, 50), before=filler, after=filler)
def test_property_a_remembered_secret_anywhere_in_a_document_is_removed(
    secret: str, doc: Any, where: int, before: str, after: str
) -> None:
    _fresh_secret(secret)
    placed = _place(doc, secret, where, before, after)
    clean = scrub_json(placed)
    for text in (json.dumps(clean), json.dumps(clean, ensure_ascii=False)):
        _assert_absent(text.encode("utf-8", "surrogatepass"), secret)
    assert scrub_json(clean) == clean  # idempotent


@settings(max_examples=200, deadline=None)
@given(
    secret=secrets,
    before=filler,
    after=filler,
    encoding=st.sampled_from(["json", "url", "base64", "base64url"]),
)
def test_property_a_remembered_secret_in_any_encoding_is_removed(
    secret: str, before: str, after: str, encoding: str
) -> None:
    _fresh_secret(secret)
    raw = before + secret + after
    if encoding == "json":
        text = json.dumps(raw)
    elif encoding == "url":
        text = quote(raw, safe="")
    elif encoding == "base64":
        text = base64.b64encode(raw.encode()).decode()
    else:
        text = base64.urlsafe_b64encode(raw.encode()).decode()
    clean = scrub_text(text)
    _assert_absent(clean.encode(), secret)
    if encoding.startswith(
        "base64"
    ):  # what base64 of the secret is fixed by the secret alone is gone
        for core in scrub.secret_forms(secret):
            assert core not in clean


# --------------------------------------------------------------------------- streams


def _openai_events(pieces: list[str]) -> list[str]:
    events = [
        json.dumps(
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"content": p}}],
            }
        )
        for p in pieces
    ]
    return [f"data: {e}\n\n" for e in events] + ["data: [DONE]\n\n"]


def _anthropic_events(pieces: list[str]) -> list[str]:
    out = ['event: message_start\ndata: {"type": "message_start"}\n\n']
    out += [
        f"event: content_block_delta\ndata: {json.dumps({'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'text_delta', 'text': p}})}\n\n"
        for p in pieces
    ]
    return [*out, 'event: message_stop\ndata: {"type": "message_stop"}\n\n']


@settings(max_examples=300, deadline=None)
@given(
    secret=secrets,
    cut=st.integers(0, 1000),
    before=filler,
    after=filler,
    kind=st.sampled_from(["openai", "anthropic"]),
    byte_cut=st.integers(0, 10_000),
)
def test_property_a_secret_split_across_events_or_at_any_byte_is_removed(
    secret: str, cut: int, before: str, after: str, kind: str, byte_cut: int
) -> None:
    _fresh_secret(secret)
    k = 1 + cut % (len(secret) - 1)  # inside the secret
    pieces = [before + secret[:k], secret[k:] + after]
    events = (_openai_events if kind == "openai" else _anthropic_events)(pieces)
    # split between events, and also the whole stream cut at any byte (a transport chunk boundary)
    joined = "".join(events)
    j = byte_cut % (len(joined) + 1)
    for chunks in (events, [joined[:j], joined[j:]]):
        out = "".join(c for c in scrub_chunks(list(chunks)) if isinstance(c, str))
        _assert_absent(out.encode(), secret)
        _assert_absent(out.encode(), secret[k:]) if len(secret) - k >= 12 else None
        _assert_absent(out.encode(), secret[:k]) if k >= 12 else None


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_shaped_key_split_inside_its_random_part_at_every_position_is_removed(kind: str) -> None:
    """No remembered value here: the key is found by its shape once the pieces are joined."""
    key = "sk-proj-Tf0ZDz47X2YefbQ1w9LrA6sVbN3cKp5mH8jR"
    for k in range(1, len(key)):
        events = (_openai_events if kind == "openai" else _anthropic_events)(
            ["Your key is " + key[:k], key[k:] + " ok"]
        )
        out = "".join(scrub_chunks(events))
        texts = [
            json.loads(line[5:])["choices"][0]["delta"]["content"]
            if kind == "openai"
            else json.loads(line[5:])["delta"]["text"]
            for line in out.splitlines()
            if line.startswith("data:") and ('"content"' in line or '"text_delta"' in line)
        ]
        assert "".join(texts) == f"Your key is {REDACTED} ok", (k, texts)


# --------------------------------------------------------------------------- the files, end to end


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    secret=secrets,
    args=json_docs,
    result=json_docs,
    where=st.integers(0, 50),
    before=filler,
    after=filler,
    as_bytes=st.booleans(),
)
def test_property_a_secret_in_a_tool_value_never_reaches_a_file(
    secret: str, args: Any, result: Any, where: int, before: str, after: str, as_bytes: bool
) -> None:
    _fresh_secret(secret)
    placed_args = _place(args, secret, where, before, after)
    placed_result: Any = (
        (before + secret + after).encode()
        if as_bytes
        else _place(result, secret, where + 1, before, after)
    )
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        store = SnapshotStore(root)
        snap = Snapshot(
            name="tools",
            trace=[
                {
                    "type": "tool_call",
                    "name": "t",
                    "args": placed_args,
                    "result": placed_result,
                    "id": "1",
                }
            ],
            input={"q": secret},
            output=[before, secret, after],
        )
        store.save(snap)
        store.save_last_run(snap)
        files = [p for p in root.rglob("*") if p.is_file()]
        assert files
        for path in files:
            _assert_absent(path.read_bytes(), secret)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    secret=secrets,
    before=filler,
    after=filler,
    cut=st.integers(0, 1000),
    status=st.sampled_from([200, 401]),
)
def test_property_a_secret_the_server_echoes_never_reaches_a_file(
    secret: str, before: str, after: str, cut: int, status: int
) -> None:
    """The real openai SDK over a real loopback server: the key it sent echoed in the body, an error body, a stream split anywhere."""
    import openai

    from tests.fake_provider import (
        FakeOpenAI,
        error_reply,
        stream_text_reply,
        text_reply,
    )

    assume(not any(c in before + after for c in "\r\n\x00"))
    scrub.forget_secrets()
    echoed = before + secret + after
    k = 1 + cut % (len(secret) - 1)
    with tempfile.TemporaryDirectory() as folder, FakeOpenAI() as fake:
        root = Path(folder) / "snaps"
        fake.script(
            text_reply(echoed)
            if status == 200
            else error_reply(401, retry_after=None, message=echoed),
            stream_text_reply([before + secret[:k], secret[k:] + after]),
        )
        client = openai.OpenAI(api_key=secret, base_url=fake.base_url, max_retries=0)
        with AgentRecorder("echo", snapshot_dir=root, settings=config.load(Path(folder), env={})):
            with contextlib.suppress(openai.AuthenticationError):
                client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": f"my key: {secret}"}]
                )
            stream = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "s"}], stream=True
            )
            assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == echoed
        files = [p for p in root.rglob("*") if p.is_file()]
        assert files
        for path in files:
            _assert_absent(path.read_bytes(), secret)


_PIECES = [
    "sk-",
    "proj-",
    "ant-",
    "AIza",
    "gsk_",
    "gh",
    "p_",
    "AKIA",
    "eyJ",
    "xoxb-",
    "sk_live_",
    "glpat-",
    "npm_",
    "SG.",
    "xai-",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "postgres://u:",
    "@h",
    "aws_secret_access_key=",
    "SessionToken",
    '"SecretAccessKey": "',
    "Bearer ",
    "Authorization: ",
    "api-key=",
    '"password": "',
    "?key=",
    "&token=",
    "abcdefghij0123456789",
    "ABCDEFGHIJKLMNOP",
    "=",
    '"',
    ".",
    "-",
    "_",
    " ",
    "\n",
    "<redacted>",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join), st.integers(0, 400))
# a short text each built-in rule changes (the pass decides for short texts too)
@example("ghp_abcdefghij0123456789abcdefghij0123456789", 0)
@example("sk-proj-abcdefghij0123456789ABCDEFGHIJ", 0)
@example("xoxb-abcdefghij0123456789", 0)
@example("postgres://u:pw@h", 0)
@example("aws_secret_access_key=abcdefghij0123456789ABCDEFGHIJ", 0)
@example("Bearer abcdefghij0123456789", 0)
@example("Authorization: Basic abcdefghij", 0)
@example('"password": "hunter2hunter2"', 0)
@example("?key=abcdefghij", 0)
def test_the_one_pass_prefilter_never_changes_what_is_scrubbed(text: str, pad: int) -> None:
    """One Aho-Corasick pass picks the rules to run (at any length, from a few characters to
    long texts): the result is what running every rule gives."""
    text = "lorem ipsum " * (pad // 12) + text
    expected = text
    for _ in range(scrub_rules._MAX_ROUNDS):
        new = expected
        if scrub_credentials._known.matcher is not None:
            new = text_rules._between_placeholders(new, scrub_credentials._scrub_known)
        for _may_match, rule in text_rules._BUILTIN_RULES:
            new = text_rules._between_placeholders(new, rule)
        if new == expected:
            break
        expected = new
    assert scrub_text(text, scrub.parse_redact(None)) == expected


_REMEMBERED = "rememberedCredential0123456789"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *_PIECES,
                "\u017f",
                "\u212a",
                "é",
                "Key",
                _REMEMBERED[:12],
                _REMEMBERED,
                _REMEMBERED.upper(),
            ]
        ),
        max_size=12,
    ).map("".join),
    st.sampled_from([None, {"patterns": ["acct_[0-9]+", "lorem"]}]),
    st.booleans(),
)
@example("x " + _REMEMBERED, None, True)
@example("x " + _REMEMBERED.upper(), None, True)  # its lower case holds the form's: scrubbed, kept
@example("lorem", {"patterns": ["lorem"]}, False)
@example("ghp_abcdefghij0123456789abcdefghij0123456789", None, False)
@example("pa\u017fsword=abcdef", None, False)  # (?i) matches the long s, str.lower() keeps it
def test_left_alone_answers_whether_scrub_text_keeps_the_text(
    text: str, redact: object, remember: bool
) -> None:
    """``left_alone`` (the literal check of a request body, decided without a scrubbing round
    for ASCII text no rule's literal is in) is ``scrub_text(text) == text``: remembered
    credentials, user patterns, placeholders, non-ASCII text (the long s, the Kelvin sign)."""
    rules = scrub.parse_redact(redact)
    if remember:
        scrub.remember_credentials([("authorization", f"Bearer {_REMEMBERED}")])
    assert text_rules.left_alone(text, rules) == (scrub_text(text, rules) == text)


@given(
    st.dictionaries(
        st.sampled_from(["n", "score", "api_key", "token", "password", "count", "x"]),
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False)),
        max_size=7,
    ),
    st.lists(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False)), max_size=5
    ),
)
def test_scrub_value_keeps_plain_scalars_and_redacts_secret_keys_ones(mapping, items):
    """Numbers, booleans and None are kept without a call where ``_scrub_value`` would keep them,
    and a secret key's number is still redacted (its check comes first)."""
    from agentsnap.storage.scrub import walk

    scrubbed = scrub.scrub_value({**mapping, "inner": items})
    assert scrubbed["inner"] == items
    for key, value in mapping.items():
        secret = walk._secret_key(key)
        redact = secret and isinstance(value, (int, float)) and not isinstance(value, bool)
        assert scrubbed[key] == (REDACTED if redact else value)
        assert type(scrubbed[key]) is (str if redact else type(value))


@given(st.text(max_size=12), st.text(max_size=12))
def test_a_text_with_a_space_is_never_a_secret_keys_name(head: str, tail: str) -> None:
    """The request literal check skips the secret-key lookup for a text holding a space: the
    names' folding (lower case, ``-`` and ``_`` dropped) keeps it, and no name holds one."""
    from agentsnap.storage.scrub import walk

    assert not any(" " in name for name in scrub_rules._SECRET_JSON_KEYS)
    assert not walk._secret_key(f"{head} {tail}")
    assert not walk._secret_key(" api_key") and walk._secret_key("API-Key")
