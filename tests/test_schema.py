"""The snapshot file's schema (msgspec): checked on every load, published as JSON Schema.

A wrong type anywhere is refused naming the file, the JSON path and the fix —
by the store, by replay, and by every CLI command (no traceback) — and such a
file is never overwritten without ``--agentsnap-force``. Old goldens (the
repository's own, agentsnap 0.5.1's format) keep validating: strict about
types, lenient about keys the schema does not know.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsnap import Snapshot, SnapshotStore
from agentsnap.exceptions import SnapshotFormatError
from agentsnap.storage.schema import FIX, MAX_PROBLEMS, schema_text, validate
from agentsnap.storage.snapshot import dumps
from tests.test_cli_helpers import invoke, make, tree

REPO = Path(__file__).resolve().parents[1]
NAME = "tests/test_agent.py::test_weather"

EXCHANGE = {
    "request": {
        "method": "POST",
        "path": "/v1/chat/completions",
        "body": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    },
    "response": {
        "status": 200,
        "headers": {"content-type": "application/json"},
        "body": {"choices": []},
    },
}
STREAM_EXCHANGE = {
    "request": {"method": "POST", "path": "/v1/chat/completions", "body": {"stream": True}},
    "response": {"status": 200, "headers": {}, "chunks": ["data: {}\n\n", {"$bytes_b64": "AAE="}]},
}


def good() -> dict[str, Any]:
    """A valid current-format snapshot document (with an unknown extra key or two)."""
    return {
        "version": "2.0",
        "name": NAME,
        "approved": True,
        "source": "pytest",
        "created_at": "2026-01-01T00:00:00+00:00",
        "updated_at": "2026-01-01T00:00:00+00:00",
        "recorded_at": "2026-01-01T00:00:00+00:00",
        "agentsnap_version": "1.0.0",
        "model": "gpt-4o-mini",
        "input": None,
        "trace": [
            {
                "step": 0,
                "type": "llm_call",
                "provider": "openai",
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [],
                "response": "hello",
                "tool_requests": [],
                "tokens": 3,
                "usage": None,
                "status": 200,
                "stream": False,
                "exchange": EXCHANGE,
                "a_codec_extra": {"x": 1},
            },
            {
                "step": 1,
                "type": "tool_call",
                "name": "lookup",
                "args": {"city": "Paris"},
                "result": "sunny",
                "id": "call_1",
            },
            {
                "step": 2,
                "type": "llm_call",
                "stream": True,
                "complete": True,
                "exchange": STREAM_EXCHANGE,
            },
            {
                "step": 3,
                "type": "http",
                "provider": "openai",
                "method": "GET",
                "path": "/v1/files",
                "status": 200,
                "exchange": {
                    "request": {"method": "GET", "path": "/v1/files"},
                    "response": {"error": {"type": "ConnectError", "message": "x"}},
                },
            },
        ],
        "output": "hello",
        "reviewer_note": "unknown top-level keys are allowed",
    }


V051 = {  # agentsnap 0.5.1's documented format (no review fields, no exchanges)
    "version": "1.0",
    "recorded_at": "2026-01-01T00:00:00+00:00",
    "model": "claude-haiku-4-5",
    "input": {"query": "What is Python?"},
    "trace": [
        {
            "step": 0,
            "type": "llm_call",
            "messages": [{"role": "user", "content": "What is Python?"}],
            "response": "...",
            "tokens": 350,
        },
        {
            "step": 1,
            "type": "tool_call",
            "name": "search",
            "args": {"query": "Python"},
            "result": "...",
        },
    ],
    "output": "Python is a high-level programming language...",
}


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


# every malformed file of the issue, and where the error must point
BAD = [
    (
        ("trace", 0, "exchange", "response", "status"),
        "two hundred",
        "$.trace[0].exchange.response.status",
        "Expected `int | null`, got `str`",
    ),
    (
        ("trace", 0, "exchange", "response", "headers"),
        "content-type: json",
        "$.trace[0].exchange.response.headers",
        "Expected `object`, got `str`",
    ),
    (
        ("trace", 2, "exchange", "response", "chunks"),
        7,
        "$.trace[2].exchange.response.chunks",
        "Expected `array | null`, got `int`",
    ),
    (("trace", 0, "messages"), "hi", "$.trace[0].messages", "Expected `array | null`, got `str`"),
    (("approved",), "false", "$.approved", "Expected `bool | null`, got `str`"),
    (
        ("trace", 0, "exchange", "request"),
        "POST /v1/chat/completions",
        "$.trace[0].exchange.request",
        "Expected `object`, got `str`",
    ),
    (("trace", 1, "name"), 3, "$.trace[1].name", "Expected `str | null`, got `int`"),
    (
        ("trace", 0, "type"),
        "llm-call",
        "$.trace[0].type",
        "Invalid value 'llm-call' (a step's type is one of llm_call, tool_call, http, mcp, websocket)",
    ),
    (
        ("trace", 2, "exchange", "response", "chunks"),
        ["ok", {"$bytes_b64": 5}],
        "$.trace[2].exchange.response.chunks[1].$bytes_b64",
        "Expected `str`, got `int`",
    ),
]


def test_the_published_json_schema_is_the_generated_one() -> None:
    committed = (REPO / "docs" / "snapshot.schema.json").read_text(encoding="utf-8")
    assert committed == schema_text(), "regenerate it: agentsnap schema > docs/snapshot.schema.json"
    schema = json.loads(committed)
    assert set(schema["$defs"]) >= {
        "SnapshotFile",
        "LLMCall",
        "ToolCall",
        "HttpCall",
        "Exchange",
        "StoredRequest",
        "StoredResponse",
    }


def test_a_good_file_validates_and_round_trips(tmp_path: Path) -> None:
    path = SnapshotStore(tmp_path).path_for(NAME)
    path.write_text(dumps(good()), encoding="utf-8")
    snap = SnapshotStore(tmp_path).load(NAME)
    assert (
        snap is not None
        and snap.approved is True
        and [s["type"] for s in snap.trace] == ["llm_call", "tool_call", "llm_call", "http"]
    )


@pytest.mark.parametrize(("where", "value", "json_path", "what"), BAD, ids=[b[2] for b in BAD])
def test_a_wrong_type_is_refused_naming_the_file_the_json_path_and_the_fix(
    tmp_path: Path, where: tuple[Any, ...], value: Any, json_path: str, what: str
) -> None:
    store = SnapshotStore(tmp_path)
    path = store.path_for(NAME)
    path.write_text(dumps(_set(good(), where, value)), encoding="utf-8")
    with pytest.raises(SnapshotFormatError) as err:
        store.load(NAME)
    message = str(err.value)
    assert message.startswith(
        f"agentsnap: {path} is not a valid snapshot: at {json_path}: {what}. "
    )
    assert (
        "`pytest --agentsnap-record --agentsnap-force`" in message
        and "(the file's schema: `agentsnap schema` prints it)" in message
    )


@pytest.mark.parametrize(
    ("where", "value", "json_path", "what"), BAD[:5], ids=[b[2] for b in BAD[:5]]
)
def test_a_file_failing_validation_is_never_overwritten_without_force(
    tmp_path: Path, where: tuple[Any, ...], value: Any, json_path: str, what: str
) -> None:
    store = SnapshotStore(tmp_path)
    path = store.path_for(NAME)
    text = dumps(_set(good(), where, value))
    path.write_text(text, encoding="utf-8")
    with pytest.raises(
        SnapshotFormatError,
        match=json_path.replace("$", r"\$").replace("[", r"\[").replace("]", r"\]"),
    ):
        store.save(Snapshot(name=NAME, trace=[], output="new", approved=True))
    assert path.read_text(encoding="utf-8") == text
    SnapshotStore(tmp_path, force=True).save(
        Snapshot(name=NAME, trace=[], output="new", approved=True)
    )
    assert json.loads(path.read_text(encoding="utf-8"))["output"] == "new"


def test_approved_false_as_a_string_is_never_approved(tmp_path: Path) -> None:
    """``bool("false") is True``: a pending snapshot must not pass in CI because of a string."""
    store = SnapshotStore(tmp_path)
    path = store.path_for(NAME)
    path.write_text(dumps(_set(good(), ("approved",), "false")), encoding="utf-8")
    with pytest.raises(SnapshotFormatError, match=r"at \$\.approved"):
        store.load(NAME)
    with pytest.warns(UserWarning, match=r"at \$\.approved"):
        assert store.pending() == [] and store.list() == []


def test_old_goldens_keep_validating(tmp_path: Path) -> None:
    """The repository's committed goldens, the example agents' and agentsnap 0.5.1's documented format."""
    files = sorted((REPO / "snapshots").glob("*.json")) + sorted(
        (REPO / "examples").rglob("*.json")
    )
    goldens = [
        f
        for f in files
        if isinstance(json.loads(f.read_text(encoding="utf-8")), dict)
        and "trace" in json.loads(f.read_text(encoding="utf-8"))
    ]
    assert goldens, "no committed goldens found"
    for path in goldens:
        SnapshotStore.read_file(path)  # raises on a schema failure
    legacy = tmp_path / "my_agent.json"
    legacy.write_text(json.dumps(V051), encoding="utf-8")
    snap = SnapshotStore(tmp_path).load("my_agent")
    assert snap is not None and snap.approved is True and snap.trace[1]["name"] == "search"


def test_replay_of_a_malformed_golden_fails_naming_the_file_not_a_bare_type_error(
    tmp_path: Path,
) -> None:
    from agentsnap import AgentAsserter, config

    store = SnapshotStore(tmp_path)
    path = store.path_for("weather")
    path.write_text(
        dumps(
            _set(
                {**good(), "name": "weather"},
                ("trace", 0, "exchange", "response", "status"),
                "two hundred",
            )
        ),
        encoding="utf-8",
    )
    with pytest.raises(
        SnapshotFormatError,
        match=r"is not a valid snapshot: at \$\.trace\[0\]\.exchange\.response\.status",
    ) as err:
        with AgentAsserter(
            "weather", snapshot_dir=tmp_path, mode="replay", settings=config.load(tmp_path, env={})
        ):
            pass
    assert str(path) in str(err.value)


# --------------------------------------------------------------------------- the CLI reports it the same way


@pytest.mark.parametrize("command", ["show", "approve", "diff", "update", "list"])
def test_every_cli_command_reports_a_schema_failure_as_one_error_line(
    tmp_path: Path, command: str
) -> None:
    make(tmp_path, NAME, last_run=True)
    golden = SnapshotStore(tmp_path).path_for(NAME)
    golden.write_text(
        dumps(_set(good(), ("trace", 0, "messages"), "a string, not a list")), encoding="utf-8"
    )
    before = tree(tmp_path)
    args = [command] if command == "list" else [command, NAME]
    result = invoke(*args, "--dir", str(tmp_path))
    assert "Traceback" not in result.output
    text = result.stderr
    assert (
        f"{golden} is not a valid snapshot: at $.trace[0].messages: Expected `array | null`, got `str`"
        in text
    )
    if command != "list":  # list warns about the file and lists the rest
        assert result.exit_code != 0
        assert text.startswith("error: ")
    assert tree(tmp_path) == before


def test_agentsnap_schema_prints_the_schema_the_loader_checks() -> None:
    """The schema error's pointer works without the repository's docs/: the installed CLI prints it."""
    result = invoke("schema")
    assert result.exit_code == 0, result.output
    assert (
        result.stdout
        == schema_text()
        == (REPO / "docs" / "snapshot.schema.json").read_text(encoding="utf-8")
    )
    assert json.loads(result.stdout)["title"] == "agentsnap snapshot file"


def test_every_wrong_value_of_a_hand_broken_golden_is_listed_with_its_json_path(
    tmp_path: Path,
) -> None:
    make(tmp_path, NAME, last_run=True)
    golden = SnapshotStore(tmp_path).path_for(NAME)
    doc = _set(good(), ("approved",), "false")
    doc = _set(doc, ("trace", 0, "messages"), "a string, not a list")
    doc = _set(doc, ("trace", 1, "name"), 7)
    del doc["trace"][2]["exchange"]["request"]["path"]
    golden.write_text(dumps(doc), encoding="utf-8")
    before = tree(tmp_path)
    result = invoke("show", NAME, "--dir", str(tmp_path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.splitlines() == [
        f"error: {golden} is not a valid snapshot: 4 problems:",
        "  at $.trace[0].messages: Expected `array | null`, got `str`",
        "  at $.trace[1].name: Expected `str | null`, got `int`",
        "  at $.trace[2].exchange.request: Object missing required field `path`",
        "  at $.approved: Expected `bool | null`, got `str`",
        f"{FIX} To delete it instead: `agentsnap rm {NAME}`.",
    ]
    assert tree(tmp_path) == before


def test_a_golden_with_many_wrong_values_lists_the_first_twenty_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    path = SnapshotStore(tmp_path).path_for(NAME)
    doc = good()
    doc["trace"] = [{"type": "tool_call", "step": i, "name": i} for i in range(MAX_PROBLEMS + 5)]
    path.write_text(dumps(doc), encoding="utf-8")
    with pytest.raises(SnapshotFormatError) as err:
        SnapshotStore(tmp_path).load(NAME)
    lines = str(err.value).splitlines()
    assert lines[0] == f"agentsnap: {path} is not a valid snapshot: {MAX_PROBLEMS + 5} problems:"
    assert lines[1:-2] == [
        f"  at $.trace[{i}].name: Expected `str | null`, got `int`" for i in range(MAX_PROBLEMS)
    ]
    assert lines[-2:] == ["  … and 5 more", FIX]


# --------------------------------------------------------------------------- properties


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here] if here else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*here, i))
    return out


_TYPED = [
    p
    for p in _paths(good())
    if p[-1]
    in {
        "status",
        "headers",
        "chunks",
        "messages",
        "approved",
        "request",
        "response",
        "name",
        "method",
        "path",
        "version",
        "step",
        "tokens",
        "stream",
        "trace",
    }
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(_TYPED), value=_json)
def test_property_a_value_of_the_wrong_type_anywhere_is_refused_at_its_path(
    where: tuple[Any, ...], value: Any
) -> None:
    """Replace one typed field by any JSON value: either it is still of an allowed type, or validation names that path."""
    doc = _set(good(), where, value)
    try:
        validate(doc, "f.json")
    except SnapshotFormatError as exc:
        json_path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where)
        assert f"at {json_path}" in str(exc), (where, value, str(exc))
    else:
        import msgspec

        from agentsnap.storage.schema import SnapshotFile

        msgspec.convert(doc, SnapshotFile)  # accepted only because the value fits the field's type


@settings(max_examples=200, deadline=None)
@given(doc=_json)
def test_fuzz_any_json_document_loads_or_is_refused_cleanly(doc: Any) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        try:
            SnapshotStore.read_file(path)
        except SnapshotFormatError as exc:
            assert str(path) in str(exc)


def test_the_schema_classes_hold_evaluated_annotations_msgspec_reads_without_compiling() -> None:
    """The schema module keeps its annotations as objects (no ``from __future__ import
    annotations``): msgspec's first ``convert`` of a run then compiles no ``ForwardRef``."""
    import msgspec

    from agentsnap.storage import schema

    structs = [
        v
        for v in vars(schema).values()
        if isinstance(v, type) and issubclass(v, msgspec.Struct) and v.__module__ == schema.__name__
    ]
    assert len(structs) > 5
    assert not [
        (cls.__name__, name)
        for cls in structs
        for name, hint in vars(cls).get("__annotations__", {}).items()
        if isinstance(hint, str)
    ]
