"""The agentsnap CLI run commands: record (-- CMD, TEST_PATH, --from-trace) and run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentsnap.storage.store import SnapshotStore
from tests.test_cli_helpers import PARIS, invoke, make, read, tree

CHECK_RECORD_ENV = "import os,sys; sys.exit(0 if os.environ.get('AGENTSNAP_MODE')=='record' else 3)"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AGENTSNAP_SNAPSHOT_DIR", "AGENTSNAP_MODE", "AGENTSNAP_RECORD", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)


# ---------------------------------------------------------------------------- record -- CMD
def test_record_runs_the_command_with_recording_switched_on() -> None:
    result = invoke("record", "--", sys.executable, "-c", CHECK_RECORD_ENV)
    assert result.exit_code == 0, result.output
    assert "AGENTSNAP_MODE=record" in result.stderr
    assert "AGENTSNAP_MODE" not in os.environ  # only the child's environment


def test_the_check_command_fails_without_record() -> None:
    # negative control: the probe really tells the two cases apart
    assert (
        subprocess.run([sys.executable, "-c", CHECK_RECORD_ENV], check=False, timeout=60).returncode
        == 3
    )


def test_record_passes_the_exit_code_through() -> None:
    result = invoke("record", "--", sys.executable, "-c", "import sys; sys.exit(7)")
    assert result.exit_code == 7


def test_record_update_is_accepted_and_changes_nothing() -> None:
    result = invoke("record", "--update", "--", sys.executable, "-c", CHECK_RECORD_ENV)
    assert result.exit_code == 0


def test_record_dir_reaches_the_child(tmp_path: Path) -> None:
    code = f"import os,sys; sys.exit(0 if os.environ.get('AGENTSNAP_SNAPSHOT_DIR')=={str(tmp_path)!r} else 4)"
    result = invoke("record", "--dir", str(tmp_path), "--", sys.executable, "-c", code)
    assert result.exit_code == 0


def test_record_command_not_found_exits_127() -> None:
    result = invoke("record", "--", "agentsnap-no-such-command-xyz")
    assert result.exit_code == 127
    assert "command not found: 'agentsnap-no-such-command-xyz'" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "nothing to record"),
        (["--"], "nothing to record"),
        (["--name", "x", "--", "true"], "--name and --format go with --from-trace"),
    ],
)
def test_record_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = invoke("record", *args)
    assert result.exit_code == 2
    assert message in result.output


# ---------------------------------------------------------------------------- pytest shortcuts
def _write_test(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "test_probe.py"
    path.write_text(body, encoding="utf-8")
    return path


def test_record_test_path_runs_pytest_with_agentsnap_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = _write_test(
        tmp_path / "probe",
        "def test_flags(request):\n    assert request.config.getoption('agentsnap_record') is True\n",
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("record", str(probe), "--", "-q", "-p", "no:cacheprovider")
    assert result.exit_code == 0, result.output


def test_run_uses_assert_mode_and_passes_pytest_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snaps = tmp_path / "snaps"
    seen = tmp_path / "seen.json"
    probe = _write_test(
        tmp_path / "probe",
        "import json, os\n"
        "def test_flags(request):\n"
        "    seen = {'instrument': request.config.getoption('agentsnap_instrument'),\n"
        "            'record': request.config.getoption('agentsnap_record'),\n"
        "            'mode': os.environ.get('AGENTSNAP_MODE'),\n"
        "            'dir': os.environ.get('AGENTSNAP_SNAPSHOT_DIR')}\n"
        f"    open({str(seen)!r}, 'w').write(json.dumps(seen))\n"
        "def test_fails():\n"
        "    assert False\n",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTSNAP_MODE", "record")  # a leftover export must not re-record

    result = invoke("run", str(probe), "--dir", str(snaps), "--", "-q", "-p", "no:cacheprovider")

    assert result.exit_code == 1  # pytest's: a test failed
    assert json.loads(seen.read_text(encoding="utf-8")) == {
        "instrument": True,
        "record": False,
        "mode": None,
        "dir": str(snaps),
    }


# ---------------------------------------------------------------------------- record --from-trace
def completion(
    text: str = "Hello!", model: str = "gpt-4o-mini-2024-07-18", tool_calls: list[Any] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    }


CONVERSATION = {
    "model": "gpt-4o-mini",
    "messages": [
        {"role": "system", "content": "You answer weather questions."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_A",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_A", "content": "Sunny"},
        {"role": "assistant", "content": "It is sunny in Paris."},
    ],
}


def _trace_file(tmp_path: Path, data: Any, name: str = "trace.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_from_trace_seeds_a_pending_snapshot_from_a_completion(tmp_path: Path) -> None:
    trace = _trace_file(tmp_path, completion())
    snaps = tmp_path / "snaps"

    result = invoke("record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(snaps))

    assert result.exit_code == 0, result.output
    path = SnapshotStore(snaps).path_for(PARIS)
    assert (
        result.stdout
        == f"Seeded pending snapshot '{PARIS}' from {trace}: 1 step (1 llm_call, 0 tool_call) -> {path}\n"
    )
    assert f"agentsnap approve {PARIS}" in result.stderr
    data = read(path)
    assert data["approved"] is False and data["source"] == "trace" and data["name"] == PARIS
    assert data["model"] == "gpt-4o-mini-2024-07-18"
    assert data["output"] == "Hello!"
    step = data["trace"][0]
    assert step["type"] == "llm_call" and step["step"] == 0
    assert step["response"] == "Hello!" and step["tokens"] == 7 and step["status"] == 200
    assert step["exchange"]["request"]["path"] == "/v1/chat/completions"
    assert step["exchange"]["response"]["body"]["id"] == "chatcmpl-1"


def test_from_trace_into_a_folder_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    """The file system refused the write (here a file stands where the folder should be): the
    message says so, with no advice about --update or --force, which are for a broken file."""
    trace = _trace_file(tmp_path, completion())
    blocker = tmp_path / "snaps"
    blocker.write_text("a file, not a folder\n", encoding="utf-8")
    snaps = blocker / "inner"  # (a folder under a file: never made)

    result = invoke("record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(snaps))

    assert result.exit_code == 1, result.output
    assert "cannot write the golden" in result.output
    assert f"Make {snaps} a writable folder, or use another snapshot folder." in result.output
    assert "--force" not in result.output and "--agentsnap-" not in result.output
    assert blocker.read_text(encoding="utf-8") == "a file, not a folder\n"


def test_from_trace_list_of_completions(tmp_path: Path) -> None:
    trace = _trace_file(tmp_path, [completion("one"), completion("two", model="gpt-4o")])
    result = invoke(
        "record",
        "--from-trace",
        str(trace),
        "--name",
        "two-calls",
        "--format",
        "openai",
        "--dir",
        str(tmp_path / "s"),
    )
    assert result.exit_code == 0, result.output
    data = read(SnapshotStore(tmp_path / "s").path_for("two-calls"))
    assert [s["response"] for s in data["trace"]] == ["one", "two"]
    assert [s["step"] for s in data["trace"]] == [0, 1]
    assert data["output"] == "two"


def test_from_trace_conversation_gives_llm_and_tool_steps(tmp_path: Path) -> None:
    trace = _trace_file(tmp_path, CONVERSATION)
    result = invoke(
        "record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(tmp_path / "s")
    )
    assert result.exit_code == 0, result.output
    path = SnapshotStore(tmp_path / "s").path_for(PARIS)
    data = SnapshotStore.read_file(
        path
    ).to_dict()  # as loaded (the file stores each call's messages once)
    kinds = [s["type"] for s in data["trace"]]
    assert kinds == ["llm_call", "tool_call", "llm_call"]
    first, tool, last = data["trace"]
    assert first["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert len(first["messages"]) == 2 and len(last["messages"]) == 4
    assert tool == {
        "step": 1,
        "type": "tool_call",
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": "Sunny",
        "id": "call_A",
    }
    assert data["input"] == "Weather in Paris?"
    assert data["output"] == "It is sunny in Paris."
    assert data["model"] == "gpt-4o-mini"


def test_from_trace_output_is_shown_like_a_recorded_snapshot(tmp_path: Path) -> None:
    trace = _trace_file(tmp_path, CONVERSATION)
    invoke("record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(tmp_path / "s"))
    shown = invoke("show", PARIS, "--dir", str(tmp_path / "s"))
    assert "source    trace" in shown.stdout and "state     pending" in shown.stdout
    assert '      args: {"city": "Paris"}' in shown.stdout


def test_from_trace_scrubs_secrets(tmp_path: Path) -> None:
    data = json.loads(json.dumps(CONVERSATION))
    data["messages"][1]["content"] = "my key is sk-proj-abcdefghijklmnopqrstuvwx"
    trace = _trace_file(tmp_path, data)
    invoke("record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(tmp_path / "s"))
    text = SnapshotStore(tmp_path / "s").path_for(PARIS).read_text(encoding="utf-8")
    assert "sk-proj-abcdefghijklmnopqrstuvwx" not in text
    assert "<redacted>" in text


def test_from_trace_refuses_to_overwrite_without_update(tmp_path: Path) -> None:
    existing = make(tmp_path, PARIS, approved=True)
    trace = _trace_file(tmp_path, completion())
    before = tree(tmp_path)

    result = invoke("record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(tmp_path))

    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"error: snapshot '{PARIS}' already exists at {existing}; nothing was written."
    )
    assert "--update" in result.stderr
    assert tree(tmp_path) == before


def test_from_trace_update_overwrites_and_approves(tmp_path: Path) -> None:
    existing = make(tmp_path, PARIS, approved=False)
    trace = _trace_file(tmp_path, completion("replaced"))
    result = invoke(
        "record", "--from-trace", str(trace), "--name", PARIS, "--update", "--dir", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    data = read(existing)
    assert data["output"] == "replaced" and data["approved"] is True and data["source"] == "trace"
    assert len(data["trace"]) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        (json.dumps({"hello": "world"}), "is not in a recognised format"),
        (json.dumps([completion(), {"x": 1}]), "item [1] is not a chat.completion object"),
        (json.dumps({"messages": [{"role": "user", "content": "hi"}]}), "has no assistant message"),
        (json.dumps({"messages": ["hi"]}), "messages[0] is not a chat message"),
    ],
)
def test_from_trace_bad_input_is_a_clear_error_and_writes_nothing(
    tmp_path: Path, content: str, message: str
) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(content, encoding="utf-8")
    snaps = tmp_path / "snaps"
    result = invoke("record", "--from-trace", str(trace), "--name", PARIS, "--dir", str(snaps))
    assert result.exit_code == 1
    assert message in result.stderr and str(trace) in result.stderr
    assert "Traceback" not in result.output
    assert not snaps.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from-trace", "{trace}"], "needs --name NAME"),
        (["--from-trace", "{missing}", "--name", "x"], "does not exist"),
        (["--from-trace", "{trace}", "--name", "x", "tests/"], "takes no TEST_PATH"),
        (["--from-trace", "{trace}", "--name", "x", "--format", "yaml"], "--format"),
    ],
)
def test_from_trace_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    trace = _trace_file(tmp_path, completion())
    filled = [a.format(trace=trace, missing=tmp_path / "missing.json") for a in args]
    result = invoke("record", *filled, "--dir", str(tmp_path / "s"))
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "s").exists()


ANTHROPIC_MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-haiku-4-5",
    "content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ],
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 10, "output_tokens": 5},
}
GEMINI_RESPONSE = {
    "candidates": [
        {
            "content": {"role": "model", "parts": [{"text": "Sunny in Paris."}]},
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 3, "totalTokenCount": 7},
    "modelVersion": "gemini-2.0-flash",
}


@pytest.mark.parametrize(
    "fmt, data, expected",
    [
        (
            "anthropic",
            ANTHROPIC_MESSAGE,
            (
                "claude-haiku-4-5",
                "Let me check.",
                [{"id": "toolu_1", "name": "get_weather", "args": {"city": "Paris"}}],
            ),
        ),
        (
            "auto",
            [ANTHROPIC_MESSAGE],
            (
                "claude-haiku-4-5",
                "Let me check.",
                [{"id": "toolu_1", "name": "get_weather", "args": {"city": "Paris"}}],
            ),
        ),
        ("gemini", GEMINI_RESPONSE, ("gemini-2.0-flash", "Sunny in Paris.", [])),
        ("auto", GEMINI_RESPONSE, ("gemini-2.0-flash", "Sunny in Paris.", [])),
    ],
)
def test_from_trace_reads_anthropic_and_gemini_responses(
    tmp_path: Path, fmt: str, data: object, expected: tuple
) -> None:
    import json as _json

    from typer.testing import CliRunner

    from agentsnap.cli import app
    from agentsnap.storage.store import SnapshotStore

    trace = tmp_path / "trace.json"
    trace.write_text(_json.dumps(data), encoding="utf-8")
    root = tmp_path / "snaps"
    res = CliRunner().invoke(
        app,
        [
            "record",
            "--from-trace",
            str(trace),
            "--name",
            "seeded",
            "--format",
            fmt,
            "--dir",
            str(root),
        ],
    )
    assert res.exit_code == 0, res.output
    snap = SnapshotStore(root).load("seeded")
    assert snap is not None and snap.approved is False and snap.source == "trace"
    step = snap.llm_calls[0]
    assert (step["model"], step["response"], step["tool_requests"]) == expected
    assert snap.output == expected[1]


def test_from_trace_with_the_wrong_format_says_what_it_expected(tmp_path: Path) -> None:
    import json as _json

    from typer.testing import CliRunner

    from agentsnap.cli import app

    trace = tmp_path / "trace.json"
    trace.write_text(_json.dumps(GEMINI_RESPONSE), encoding="utf-8")
    res = CliRunner().invoke(
        app,
        [
            "record",
            "--from-trace",
            str(trace),
            "--name",
            "x",
            "--format",
            "anthropic",
            "--dir",
            str(tmp_path / "s"),
        ],
    )
    assert res.exit_code == 1
    assert "is not in the anthropic format" in res.output
    assert not (tmp_path / "s").exists()
