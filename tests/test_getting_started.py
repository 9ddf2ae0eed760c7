"""docs/getting-started.md shows what agentsnap really prints and names.

The drift example is the report of a real replay run of the page's own example
(``tests/test_agent.py::test_weather`` whose system prompt gained a word), and
the example file name is the one that run's golden gets.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentsnap import SnapshotStore

pytest_plugins = ["pytester"]

DOC = Path(__file__).resolve().parent.parent / "docs" / "getting-started.md"
FAKE_PROVIDER = Path(__file__).with_name("fake_provider.py")
NODE = "tests/test_agent.py::test_weather"
QUIET_PLUGINS = ("-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")

CONFTEST = """
import pytest
from fake_provider import FakeOpenAI


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server
"""

TEST_AGENT = """
import pathlib

import openai
from fake_provider import text_reply, tool_calls_reply

PROMPT = (pathlib.Path(__file__).parent / "prompt.txt").read_text(encoding="utf-8")
TOOLS = [{"type": "function", "function": {"name": "get_weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]


def test_weather(fake):
    fake.script(tool_calls_reply([("call_1", "get_weather", {"city": "Paris"})]), text_reply("Sunny, 21 °C."))
    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    messages = [{"role": "system", "content": PROMPT}, {"role": "user", "content": "Weather in Paris?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages += [first.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 °C"}]
    final = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    assert final.choices[0].message.content
"""


def _drift_example() -> list[str]:
    """The ```text block of the page's section 4."""
    section = DOC.read_text(encoding="utf-8").split("## 4. When the agent drifts", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None
    return block.group(1).splitlines()


def test_the_drift_example_is_what_a_replay_of_a_changed_prompt_prints(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".toml", pyproject="")
    tests = pytester.mkpydir("tests")
    (tests / "fake_provider.py").write_text(FAKE_PROVIDER.read_text(encoding="utf-8"))
    (tests / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tests / "test_agent.py").write_text(TEST_AGENT, encoding="utf-8")
    (tests / "__init__.py").unlink()  # rootdir-relative node ids, as on the page
    (tests / "prompt.txt").write_text("You are a weather assistant.", encoding="utf-8")
    recorded = pytester.runpytest_subprocess(*QUIET_PLUGINS, "tests/", "--agentsnap-record")
    assert recorded.ret == 0, recorded.outlines

    # the page's example file name is the one the golden got
    golden = SnapshotStore(pytester.path / "__agent_snapshots__").path_for(NODE)
    assert golden.is_file()
    assert f"`{golden.name}`" in DOC.read_text(encoding="utf-8")
    assert [p.name for p in golden.parent.glob("*.json")] == [golden.name]

    (tests / "prompt.txt").write_text("You are a concise weather assistant.", encoding="utf-8")
    replayed = pytester.runpytest_subprocess(*QUIET_PLUGINS, "tests/", "--agentsnap-replay")
    assert replayed.ret == 1
    printed = [line.replace(str(pytester.path), "/home/you/project") for line in replayed.outlines]
    example = _drift_example()
    assert "[REQUESTS] FAIL — llm_requests: messages differ in 2 llm calls" in example
    start = printed.index(example[0])
    assert printed[start : start + len(example)] == example
