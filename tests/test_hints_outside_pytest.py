"""An ``AgentAsserter`` (or ``agentsnap.check``) in a plain script: its failures' fix hints name
what works there — the block's own ``mode="record"``, ``check(..., update=True)``, the
``[tool.agentsnap]`` key, the CLI's ``agentsnap update NAME --dir DIR`` — never a pytest flag.
Under pytest (this suite runs under the plugin) the same failures keep naming pytest's flags."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from agentsnap import AgentAsserter, AgentRecorder, check
from agentsnap.exceptions import AgentRegressionError, SnapshotFormatError, SnapshotNotFoundError
from tests._support.ci import AGENTSNAP_ENV, CI_MARKERS, clear_ci

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import json, os, socket, sys, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import openai
from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore, check
from tests.fake_provider import FakeOpenAI, text_reply

snaps = "snaps"
said = {{}}


def ask(base_url, question):
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{{"role": "user", "content": question}}])
    return reply.choices[0].message.content


def case(key, run):
    try:
        run()
        said[key] = None
    except BaseException as exc:
        said[key] = str(exc)


def missing():
    with AgentAsserter("weather", snapshot_dir=snaps) as block:
        block.output = "x"


case("missing", missing)
with FakeOpenAI() as fake:
    fake.script(text_reply("Sunny in Paris."), text_reply("Sunny in Paris."))
    with AgentRecorder("weather", snapshot_dir=snaps) as rec:
        rec.record_tool_call("get_weather", {{"city": "Paris"}}, "sunny")
        rec.output = ask(fake.base_url, "Weather in Paris?")
    base = fake.base_url

    def live_drift():
        with AgentAsserter("weather", snapshot_dir=snaps) as block:
            block.record_tool_call("get_weather", {{"city": "Lyon"}}, "rain")
            block.output = ask(fake.base_url, "Weather in Paris?")

    case("live_drift", live_drift)


def replay(question, more=None):
    def run():
        with AgentAsserter("weather", snapshot_dir=snaps, mode="replay") as block:
            block.record_tool_call("get_weather", {{"city": "Paris"}}, "sunny")
            block.output = ask(base, question)
            if more is not None:
                more()
    return run


case("replay_drift", replay("Weather in Lyon?"))
case("replay_miss", replay("Weather in Paris?", lambda: ask(base, "And tomorrow?")))
case("blocked", replay("Weather in Paris?", lambda: socket.create_connection(("203.0.113.7", 80), 1)))


def replay_nothing():
    with AgentAsserter("nothing", snapshot_dir=snaps, mode="replay", missing="pending") as block:
        block.output = ask(base, "Weather in Paris?")


case("replay_nothing", replay_nothing)


def ci_pending():
    store = SnapshotStore(snaps)
    golden = store.load("weather")
    golden.approved = False
    store.save(golden)
    os.environ["CI"] = "true"
    with AgentAsserter("weather", snapshot_dir=snaps, mode="replay") as block:
        block.output = ask(base, "Weather in Paris?")


case("ci_pending", ci_pending)
os.environ.pop("CI")
check("calls", [{{"tool": "search", "args": {{"q": "a"}}}}], snapshot_dir=snaps, update=True)
case("check_drift", lambda: check("calls", [{{"tool": "search", "args": {{"q": "b"}}}}], snapshot_dir=snaps))
with open(os.path.join(snaps, "bad.json"), "w", encoding="utf-8") as f:
    f.write('{{"name": "bad", "trace": [')  # a truncated golden


def corrupt_asserter():
    with AgentAsserter("bad", snapshot_dir=snaps, mode="replay") as block:
        block.output = "x"


def corrupt_recorder():
    with AgentRecorder("bad", snapshot_dir=snaps) as rec:
        rec.output = "x"


case("corrupt_asserter", corrupt_asserter)
case("corrupt_recorder", corrupt_recorder)
case("corrupt_check", lambda: check("bad", [{{"tool": "search", "args": {{}}}}], snapshot_dir=snaps))


def forecast():
    import asyncio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from tests.frameworks.mcp_servers import WEATHER_SERVER

    async def main():
        params = StdioServerParameters(command=sys.executable, args=[WEATHER_SERVER])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("get_forecast", {{"city": "Paris"}})

    asyncio.run(main())


with AgentRecorder("tools", snapshot_dir=snaps):
    forecast()
golden = os.path.join(snaps, "tools.json")
with open(golden, encoding="utf-8") as f:
    data = json.load(f)
(call,) = [s for s in data["trace"] if s.get("method") == "tools/list"]
call["exchange"]["response"]["body"] = {{"result": 5}}  # a hand edit replay cannot serve
with open(golden, "w", encoding="utf-8") as f:
    json.dump(data, f)


def broken_mcp_step():
    with AgentAsserter("tools", snapshot_dir=snaps, mode="replay"):
        forecast()


case("broken_mcp_step", broken_mcp_step)
said["broken_mcp_step_index"] = call["step"]
print("SAID " + json.dumps(said))
"""


@pytest.fixture(scope="module")
def said(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    """What each failure of the plain script said (None: it did not fail)."""
    folder = tmp_path_factory.mktemp("script")
    script = folder / "weather.py"
    script.write_text(SCRIPT.format(root=str(ROOT)), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (*CI_MARKERS, *AGENTSNAP_ENV)}
    env.pop("PYTEST_CURRENT_TEST", None)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("SAID "))
    found: dict[str, str | None] = json.loads(line[len("SAID ") :])
    return found


RECORD = "`AgentAsserter('weather', ..., mode=\"record\")`"


def _no_pytest_flag(text: str | None) -> str:
    assert text is not None
    assert "pytest" not in text and "--agentsnap" not in text, text
    return text


def test_a_missing_snapshot_names_the_blocks_record_switch(said: dict[str, str | None]) -> None:
    assert _no_pytest_flag(said["missing"]) == (
        "agentsnap: no snapshot for 'weather' at snaps/weather.json. Record it first: "
        f"`with AgentRecorder('weather'): ...`, or this block once with {RECORD}."
    )


def test_a_drift_names_the_cli_update_and_the_blocks_record_switch(
    said: dict[str, str | None],
) -> None:
    text = _no_pytest_flag(said["live_drift"])
    assert text.endswith(
        "\n\nGolden: snaps/weather.json\nIf this change is intended: `agentsnap update --dir snaps "
        f"weather` (promotes .last_run), or re-record it: {RECORD}."
    )


def test_a_replayed_drift_and_a_replay_miss_name_the_blocks_record_switch(
    said: dict[str, str | None],
) -> None:
    assert f"If the change is intended, re-record it live: {RECORD}, review the diff" in (
        _no_pytest_flag(said["replay_drift"])
    )
    assert _no_pytest_flag(said["replay_miss"]).endswith(
        f"  Fix: if the change is intended, re-record with {RECORD}, review the snapshot, commit it."
    )
    assert _no_pytest_flag(said["replay_nothing"]) == (
        "agentsnap: no snapshot for 'nothing' (snaps/nothing.json) and this block replays "
        '(mode="replay"): replay never calls the API, so no request is sent and nothing is '
        "written. Record it first: `AgentAsserter('nothing', ..., mode=\"record\")`, review it, "
        "then commit."
    )


def test_the_offline_guard_and_ci_name_the_blocks_mode_and_the_config_key(
    said: dict[str, str | None],
) -> None:
    assert _no_pytest_flag(said["blocked"]).endswith(
        'to call the real API, give the block mode="record" (or mode="live").'
    )
    assert _no_pytest_flag(said["ci_pending"]).endswith(
        "Review it locally and run `agentsnap approve --dir snaps weather`, then commit. "
        "(`allow_pending = true` in [tool.agentsnap] relaxes this.)"
    )


def test_check_names_its_own_update_switch(said: dict[str, str | None]) -> None:
    assert _no_pytest_flag(said["check_drift"]).endswith(
        "or re-record it: `agentsnap.check('calls', actual, ..., update=True)`."
    )


CORRUPT = (
    "agentsnap: corrupt snapshot file at snaps/bad.json: Expecting value: line 1 column 27 (char 26). "
    "Fix or delete the file, or replace it with a new recording: {switch} once the file is gone "
    "(agentsnap never overwrites it)."
)


def test_a_corrupt_golden_names_the_blocks_own_switch(said: dict[str, str | None]) -> None:
    assert _no_pytest_flag(said["corrupt_asserter"]) == CORRUPT.format(
        switch="`AgentAsserter('bad', ..., mode=\"record\")`"
    )
    assert _no_pytest_flag(said["corrupt_recorder"]) == CORRUPT.format(
        switch="`AgentRecorder('bad', ...)`"
    )
    assert _no_pytest_flag(said["corrupt_check"]) == CORRUPT.format(
        switch="`agentsnap.check('bad', actual, ..., update=True)`"
    )


def test_a_hand_broken_mcp_step_names_the_blocks_own_switch(said: dict[str, str | None]) -> None:
    """(Raised inside the block, as the session opens, and given the block's switch at its exit.)"""
    step = said["broken_mcp_step_index"]
    assert _no_pytest_flag(said["broken_mcp_step"]) == (
        f"agentsnap: snaps/tools.json is not a valid snapshot: at $.trace[{step}].exchange.response.body: "
        "not {'result': {…}} or {'error': {…}}. Correct the value (the file's schema: `agentsnap schema` "
        "prints it), or replace the file with a new recording: `AgentAsserter('tools', ..., "
        'mode="record")` once the file is gone (agentsnap never overwrites it).'
    )


# ---------------------------------------------------------------------------- under pytest
@pytest.fixture
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_ci(monkeypatch, also=AGENTSNAP_ENV)


@pytest.mark.usefixtures("_local")
def test_under_pytest_the_same_failures_name_pytests_flags(tmp_path: Path) -> None:
    """(Unchanged: pinned so that the script's hints stay outside pytest.)"""
    with pytest.raises(SnapshotNotFoundError) as missing, AgentAsserter("w", snapshot_dir=tmp_path):
        pass
    assert str(missing.value).endswith(
        "Record it first: `with AgentRecorder('w'): ...` or `pytest --agentsnap-record`."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with AgentRecorder("w", snapshot_dir=tmp_path) as rec:
            rec.record_tool_call("get_weather", {"city": "Paris"}, "sunny")
    with (
        pytest.raises(AgentRegressionError) as drift,
        AgentAsserter("w", snapshot_dir=tmp_path) as a,
    ):
        a.record_tool_call("get_weather", {"city": "Lyon"}, "rain")
    assert str(drift.value).endswith(
        "or re-record it: `pytest --agentsnap-record (add the test's node id)`."
    )


@pytest.mark.usefixtures("_local")
def test_under_pytest_a_corrupt_golden_names_pytests_flags(tmp_path: Path) -> None:
    """(Unchanged: the same corrupt golden, raised under pytest, names --agentsnap-force.)"""
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "bad", "trace": [', encoding="utf-8")
    corrupt = (
        f"agentsnap: corrupt snapshot file at {bad}: Expecting value: line 1 column 27 (char 26). "
        "Fix or delete the file, or replace it with a new recording: `pytest --agentsnap-record "
        "--agentsnap-force` (without --agentsnap-force agentsnap never overwrites it)."
    )
    with (
        pytest.raises(SnapshotFormatError) as asserter,
        AgentAsserter("bad", snapshot_dir=tmp_path),
    ):
        pass
    assert str(asserter.value) == corrupt
    with (
        pytest.raises(SnapshotFormatError) as recorder,
        AgentRecorder("bad", snapshot_dir=tmp_path),
    ):
        pass
    assert str(recorder.value) == corrupt
    with pytest.raises(SnapshotFormatError) as checked:
        check("bad", [{"tool": "search", "args": {}}], snapshot_dir=tmp_path)
    assert str(checked.value) == corrupt
