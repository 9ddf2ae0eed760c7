"""The HTML drift report: entries, the page's content, escaping, the pytest flag (serial and xdist), the CLI.

The end-to-end tests build a small project with ``pytester`` (the fake OpenAI
server and a weather agent on the plain ``openai`` SDK), record three goldens,
then change the scenario so that two drift and one is pending, and run pytest
with ``--agentsnap-live --agentsnap-report``. :func:`drift_run` is shared with
``test_report_browser.py``, which opens the same page in Chromium.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from agentsnap import SnapshotStore
from agentsnap.diff import compute_diff
from agentsnap.html_report import entry_from_outcome, error_entry, render_html, write_report
from agentsnap.html_report._collect import ReportCollector
from agentsnap.html_report.html import timeline, word_diff
from agentsnap.lifecycle import Outcome
from agentsnap.storage.snapshot import Snapshot
from tests._support.ci import CI_MARKERS

FAKE_PROVIDER = Path(__file__).with_name("fake_provider.py")

QUIET_PLUGINS = (
    "-p",
    "no:randomly",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "-p",
    "no:langsmith_plugin",
)
INJECTED = (
    "<script>document.title='pwned';document.body.setAttribute('data-injected','yes')</script>"
)

CONFTEST = """
import pytest
from fake_provider import FakeOpenAI


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server
"""

AGENT_LIB = """
import json

import openai

TOOLS = [{"type": "function", "function": {"name": "get_weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]


def client_for(server):
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)


def weather_agent(client, question):
    messages = [{"role": "user", "content": question}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    message = first.choices[0].message
    messages.append({"role": "assistant", "content": message.content,
                     "tool_calls": [call.model_dump() for call in message.tool_calls]})
    for call in message.tool_calls:
        city = json.loads(call.function.arguments)["city"]
        messages.append({"role": "tool", "tool_call_id": call.id, "content": f"sunny in {city}"})
    final = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    return final.choices[0].message.content
"""

TEST_AGENTS = """
import json
import pathlib

from agent_lib import client_for, weather_agent
from fake_provider import text_reply, tool_calls_reply

HERE = pathlib.Path(__file__).parent


def scenario(name):
    return json.loads((HERE / "scenario.json").read_text(encoding="utf-8"))[name]


def test_weather(fake):
    s = scenario("weather")
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": s["city"]})]), text_reply(s["answer"]))
    assert weather_agent(client_for(fake), "What is the weather like?")


def test_trip(fake):
    s = scenario("trip")
    calls = [(f"call_{i}", "get_weather", {"city": city}) for i, city in enumerate(s["cities"])]
    fake.script(tool_calls_reply(calls), text_reply(s["answer"]))
    assert weather_agent(client_for(fake), "Plan a two-city trip")


def test_greeting(fake):
    s = scenario("greeting")
    fake.script(text_reply(s["answer"]))
    client_for(fake).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])


def test_no_llm():
    assert True
"""

GOLDEN_SCENARIO = {
    "weather": {"city": "Paris", "answer": "It is sunny in Paris today, 21 degrees."},
    "trip": {"cities": ["Lyon"], "answer": "Lyon is sunny: a good day for the river walk."},
    "greeting": {"answer": "Hello! How can I help you today?"},
}
DRIFT_SCENARIO = {
    "weather": {"city": "Rome", "answer": "It is sunny in Rome today, 24 degrees."},
    "trip": {
        "cities": ["Lyon", "Nice"],
        "answer": f"Lyon and Nice are sunny {INJECTED} pack light.",
    },
    "greeting": {"answer": "Hi there! What can I do for you?"},
}
WEATHER = "test_agents.py::test_weather"
TRIP = "test_agents.py::test_trip"
GREETING = "test_agents.py::test_greeting"


class DriftRun:
    """The inner project after the drift run: its root, the report path and pytest's result."""

    def __init__(self, root: Path, report: Path, result: subprocess.CompletedProcess[str]) -> None:
        self.root, self.report, self.result = root, report, result

    @property
    def html(self) -> str:
        return self.report.read_text(encoding="utf-8")


def run_inner(
    root: Path, *args: str, env: dict[str, str] | None = None, drop: frozenset[str] = frozenset()
) -> subprocess.CompletedProcess[str]:
    """``python -m pytest ARGS`` in the inner project, local (not CI), outside any outer xdist run;
    ``drop``: more variables of this process left out, ``env``: variables set for the run."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in CI_MARKERS
        and k not in drop
        and not k.startswith(
            ("AGENTSNAP_", "PYTEST_XDIST", "PYTEST_CURRENT_TEST", "PYTEST_ADDOPTS")
        )
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", *QUIET_PLUGINS, *args],
        cwd=root,
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def set_scenario(root: Path, scenario: dict[str, Any]) -> None:
    (root / "scenario.json").write_text(json.dumps(scenario), encoding="utf-8")


def write_suite(root: Path) -> None:
    """The three-test agent suite (its fake provider, conftest, agent and tests) in ``root``,
    the fake set to the golden scenario."""
    (root / "fake_provider.py").write_text(
        FAKE_PROVIDER.read_text(encoding="utf-8"), encoding="utf-8"
    )
    (root / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (root / "agent_lib.py").write_text(AGENT_LIB, encoding="utf-8")
    (root / "test_agents.py").write_text(TEST_AGENTS, encoding="utf-8")
    set_scenario(root, GOLDEN_SCENARIO)


def drift_run(root: Path, *extra: str, report_name: str = "report.html") -> DriftRun:
    """In an empty folder: record three goldens, make test_greeting's pending, drift the other two; run live with the report."""
    write_suite(root)
    recorded = run_inner(root, "--agentsnap-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    store = SnapshotStore(root / "__agent_snapshots__")
    greeting = store.load(GREETING)
    assert greeting is not None
    greeting.approved = False
    store.save(greeting)
    set_scenario(root, DRIFT_SCENARIO)
    return rerun(root, *extra, report_name=report_name)


def rerun(root: Path, *extra: str, report_name: str) -> DriftRun:
    """The drift run again (goldens are never rewritten by it), with the report at out/REPORT_NAME."""
    report = root / "out" / report_name
    result = run_inner(root, "--agentsnap-live", f"--agentsnap-report=out/{report_name}", *extra)
    assert report.is_file(), result.stdout + result.stderr
    return DriftRun(root, report, result)


@pytest.fixture(scope="module")
def drifted(tmp_path_factory: pytest.TempPathFactory) -> DriftRun:
    return drift_run(tmp_path_factory.mktemp("drift"))


# --------------------------------------------------------------------------- a tiny DOM for assertions


class _Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: _Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Any] = []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> Any:
        for child in self.children:
            if isinstance(child, _Node):
                yield child
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[_Node]:
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag)
            and (cls is None or cls in n.classes)
            and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


_VOID = {"meta", "link", "br", "hr", "img", "input", "col", "wbr"}


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#document", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in _VOID:
            self.cur = node

    def handle_endtag(self, tag: str) -> None:
        node = self.cur
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.cur = node.parent

    def handle_data(self, data: str) -> None:
        self.cur.children.append(data)


def parse(html: str) -> _Node:
    tree = _Tree()
    tree.feed(html)
    return tree.root


# --------------------------------------------------------------------------- unit: building blocks


def _llm(
    step: int, response: str = "", requests: tuple[tuple[str, dict[str, Any]], ...] = ()
) -> dict[str, Any]:
    return {
        "step": step,
        "type": "llm_call",
        "model": "gpt-4o-mini",
        "response": response,
        "tool_requests": [
            {"id": f"c{step}{i}", "name": n, "args": a} for i, (n, a) in enumerate(requests)
        ],
        "messages": [{"role": "user", "content": "secret prompt text"}],
        "exchange": {"request": {"body": {"x": 1}}},
    }


def _tool(step: int, name: str, args: dict[str, Any], result: str) -> dict[str, Any]:
    return {
        "step": step,
        "type": "tool_call",
        "name": name,
        "args": args,
        "result": result,
        "id": f"t{step}",
    }


def _pair() -> tuple[Snapshot, Snapshot]:
    golden = Snapshot(
        name="t::weather",
        approved=True,
        output="It is sunny in Paris.",
        trace=[
            _llm(0, requests=(("get_weather", {"city": "Paris"}),)),
            _tool(1, "get_weather", {"city": "Paris"}, "sunny"),
            _tool(2, "get_time", {"tz": "CET"}, "10:00"),
            _llm(3, "It is sunny in Paris."),
        ],
    )
    new = Snapshot(
        name="t::weather",
        output="It is rainy in Rome.",
        trace=[
            _llm(0, requests=(("get_weather", {"city": "Rome"}),)),
            _tool(1, "get_weather", {"city": "Rome"}, "rain"),
            _tool(2, "get_news", {"q": "Rome"}, "..."),
            _tool(3, "book", {}, "ok"),
            _llm(4, "It is rainy in Rome."),
        ],
    )
    return golden, new


def _failed_entry() -> dict[str, Any]:
    golden, new = _pair()
    report = compute_diff(
        golden.to_dict(), new.to_dict(), name=golden.name, embedding_backend="lexical"
    )
    return entry_from_outcome(
        Outcome("failed", golden.name, Path("/snaps/g.json"), report, golden=golden, new=new)
    )


def test_word_diff_marks_changed_words_and_keeps_the_text() -> None:
    left, right = word_diff("It is sunny in Paris, 21°C.", "It is rainy in Paris, 14°C.")
    assert "".join(t for _, t in left) == "It is sunny in Paris, 21°C."
    assert "".join(t for _, t in right) == "It is rainy in Paris, 14°C."
    assert [t for k, t in left if k == "del"] == ["sunny", "21"]
    assert [t for k, t in right if k == "ins"] == ["rainy", "14"]
    assert word_diff("same", "same") == ([("eq", "same")], [("eq", "same")])


def test_entry_is_small_json_without_exchanges_or_messages() -> None:
    entry = _failed_entry()
    text = json.dumps(entry)
    assert json.loads(text) == entry
    assert "exchange" not in text and "secret prompt text" not in text
    assert entry["state"] == "failed" and entry["report"]["failed_checks"]
    assert entry["golden"]["trace"][1] == {
        "step": 1,
        "type": "tool_call",
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": "sunny",
        "id": "t1",
    }


def test_long_strings_are_cut_in_entries() -> None:
    golden = Snapshot(
        name="t::long",
        approved=True,
        output="x" * 50_000,
        trace=[_tool(0, "read", {"path": "a"}, "y" * 10_000)],
    )
    entry = entry_from_outcome(Outcome("created", "t::long", Path("/s.json"), new=golden))
    assert entry["state"] == "new"
    assert len(entry["new"]["output"]) < 20_100 and entry["new"]["output"].endswith(
        "[30000 more characters]"
    )
    assert entry["new"]["trace"][0]["result"].endswith("[6000 more characters]")


def test_timeline_follows_the_structural_edit_script() -> None:
    entry = _failed_entry()
    rows = timeline(entry["golden"], entry["new"], entry["report"])
    ops = [
        (r["op"], r["golden"] and r["golden"]["step"], r["new"] and r["new"]["step"]) for r in rows
    ]
    # golden tools get_weather, get_time; new get_weather, get_news, book: the edit script inserts
    # get_news and replaces get_time by book, and the rows say exactly that
    script = [
        (op["op"], op["golden_step"], op["new_step"])
        for op in entry["report"]["details"]["tools"]["ops"]
    ]
    assert script == [("insert", None, 2), ("replace", 2, 3)]
    assert ops == [
        ("changed", 0, 0),
        ("changed", 1, 1),
        ("insert", None, 2),
        ("replace", 2, 3),
        ("changed", 3, 4),
    ]
    weather = rows[1]
    assert weather["changes"] == [
        {
            "path": "args.city",
            "kind": "changed",
            "old": '"Paris"',
            "new": '"Rome"',
            "old_absent": False,
            "new_absent": False,
        }
    ]
    assert weather["new"]["args"] == [{"key": "city", "value": '"Rome"', "changed": True}]
    # the model's request of get_weather changed its argument too, on the llm row
    assert rows[0]["new"]["asks"][0]["args"] == [
        {"key": "city", "value": '"Rome"', "changed": True}
    ]


def test_page_has_a_summary_row_per_snapshot_and_a_section_per_failed_pending_or_new() -> None:
    golden, _ = _pair()
    # (a greeting reworded, "Hello!" → "Hi!", is the same meaning now: the shop's hours change instead)
    pending_golden = Snapshot(
        name="t::pending", approved=False, output="We open at 9.", trace=[_llm(0, "We open at 9.")]
    )
    pending_new = Snapshot(
        name="t::pending", output="We open at 10.", trace=[_llm(0, "We open at 10.")]
    )
    passed = compute_diff(golden.to_dict(), golden.to_dict(), embedding_backend="lexical")
    entries = [
        _failed_entry(),
        entry_from_outcome(
            Outcome(
                "pending", "t::pending", Path("/p.json"), golden=pending_golden, new=pending_new
            )
        ),
        entry_from_outcome(
            Outcome("passed", "t::ok", Path("/ok.json"), passed, golden=golden, new=golden)
        ),
        entry_from_outcome(
            Outcome("recorded", "t::rec", Path("/rec.json"), golden=None, new=golden)
        ),
        entry_from_outcome(Outcome("created", "t::new", Path("/new.json"), new=pending_new)),
        error_entry("t::miss", "agentsnap: no recording <for> this call"),
    ]
    html = render_html(entries, meta={"mode": "live"})
    doc = parse(html)
    rows = [r for r in doc.find_all("tr") if "data-state" in r.attrs]
    assert [(r.attrs["data-state"], r.find_all("td")[0].text().strip()) for r in rows] == [
        ("failed", "t::miss"),
        ("failed", "t::weather"),
        ("pending", "t::pending"),
        ("new", "t::new"),
        ("recorded", "t::rec"),
        ("passed", "t::ok"),
    ]
    sections = doc.find_all("section", cls="snap")
    assert [s.find_all("h2")[0].text() for s in sections] == [
        "t::miss",
        "t::weather",
        "t::pending",
        "t::new",
    ]
    # summary links point at the sections
    links = [
        a.attrs["href"] for a in doc.find_all("a") if a.attrs.get("href", "").startswith("#snap-")
    ]
    assert links == ["#" + s.attrs["id"] for s in sections]
    assert "agentsnap: no recording &lt;for&gt; this call" in html
    assert "agentsnap update t::weather" in html and "agentsnap approve t::pending" in html
    # a pending snapshot is not compared: its differences are shown, not failed
    pending_row = rows[2]
    assert not pending_row.find_all(cls="bad") and "would differ" in pending_row.text()


def test_model_and_tool_text_is_escaped_and_only_our_script_may_run() -> None:
    golden = Snapshot(
        name="t::x<y>",
        approved=True,
        output="fine",
        trace=[_tool(0, "look<up>", {"q": "</dd><marquee>"}, "ok")],
    )
    new = Snapshot(
        name="t::x<y>",
        output=f"bad {INJECTED}",
        trace=[_tool(0, "look<up>", {"q": "<img src=x onerror=alert(1)>"}, "ok")],
    )
    report = compute_diff(golden.to_dict(), new.to_dict(), embedding_backend="lexical")
    html = render_html(
        [
            entry_from_outcome(
                Outcome("failed", "t::x<y>", Path("/g.json"), report, golden=golden, new=new)
            )
        ]
    )
    assert INJECTED not in html and "<img src=x" not in html and "<marquee>" not in html
    assert "&lt;script&gt;document.title=&#39;pwned&#39;" in html
    assert html.count("<script") == 1  # ours, at the end
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp and "default-src 'none'" in csp.group(1) and "script-src 'sha256-" in csp.group(1)
    assert not re.search(r"\b(src|href)=\"(https?:)?//", html)  # nothing fetched


def test_write_report_creates_folders_and_is_self_contained(tmp_path: Path) -> None:
    target = write_report(tmp_path / "a" / "b" / "r.html", [_failed_entry()])
    assert target == (tmp_path / "a" / "b" / "r.html").absolute()
    text = target.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<style>" in text and "<link" not in text


def test_empty_run_says_why() -> None:
    html = render_html([])
    assert "touched no snapshot" in html


def test_collector_keeps_failures_and_round_trips_through_json() -> None:
    a, b = ReportCollector("r.html", base="/tmp"), ReportCollector("r.html", base="/tmp")
    a.add(_failed_entry())
    a.count("passed", "t::weather")  # the block's own count: settle already reported it
    b.count("created", "t::other")
    merged = ReportCollector("r.html", base="/tmp")
    merged.merge_json(a.to_json())
    merged.merge_json(b.to_json())
    assert {n: e["state"] for n, e in merged.entries.items()} == {
        "t::weather": "failed",
        "t::other": "new",
    }
    assert merged.path == Path("/tmp/r.html")


def test_import_of_the_plugin_and_the_report_package_loads_no_jinja2() -> None:
    import subprocess
    import sys

    code = "import agentsnap.pytest_plugin, agentsnap.html_report, agentsnap.html_report._collect, sys; print('jinja2' in sys.modules, 'markupsafe' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "False"]


# --------------------------------------------------------------------------- end to end


def _summary_rows(doc: _Node) -> dict[str, tuple[str, list[str]]]:
    out = {}
    for row in doc.find_all("tr"):
        if "data-state" in row.attrs:
            cells = row.find_all("td")
            out[cells[0].text().strip()] = (
                row.attrs["data-state"],
                [c.text() for c in cells[2].find_all(cls="check")],
            )
    return out


def test_pytest_flag_writes_a_report_of_two_drifts_and_a_pending_snapshot(
    drifted: DriftRun,
) -> None:
    run = drifted
    out = run.result.stdout
    assert run.result.returncode == 1, out
    assert re.search(r"\b2 failed, 2 passed\b", out), out
    assert f"agentsnap: HTML report written to {run.report}" in out
    doc = parse(run.html)
    rows = _summary_rows(doc)
    assert set(rows) == {WEATHER, TRIP, GREETING}  # test_no_llm touched no snapshot
    assert rows[WEATHER][0] == rows[TRIP][0] == "failed" and rows[GREETING][0] == "pending"
    assert {"arguments", "model_tool_args", "semantic:output"} <= set(rows[WEATHER][1])
    assert {"structural", "model_tools", "semantic:output"} <= set(rows[TRIP][1])
    # the changed argument, highlighted with both values
    weather = next(
        s for s in doc.find_all("section", cls="snap") if s.find_all("h2")[0].text() == WEATHER
    )
    assert [c.text() for c in weather.find_all("td", cls="arg-new")][:1] == ['"Rome"']
    assert '"Paris"' in [c.text() for c in weather.find_all("td", cls="arg-old")]
    assert [d.text() for d in weather.find_all("dd", cls="kv-changed")] == [
        '"Paris"',
        '"Rome"',
        '"Paris"',
        '"Rome"',
    ]
    # the inserted tool call of the trip, and its word-level output diff with the script as text
    trip = next(
        s for s in doc.find_all("section", cls="snap") if s.find_all("h2")[0].text() == TRIP
    )
    inserted = [r for r in trip.find_all(cls="tl-row") if r.attrs.get("data-op") == "insert"]
    assert len(inserted) == 1 and "Nice" in inserted[0].text()
    assert INJECTED in "".join(i.text() for i in trip.find_all("ins"))
    assert INJECTED not in run.html
    # the pending snapshot: both sides shown, nothing failed
    greeting = next(
        s for s in doc.find_all("section", cls="snap") if s.find_all("h2")[0].text() == GREETING
    )
    assert "agentsnap approve test_agents.py::test_greeting" in greeting.text()
    assert not greeting.find_all(cls="bad")


def test_report_under_xdist_equals_the_serial_one(drifted: DriftRun) -> None:
    run = rerun(drifted.root, "-n", "2", report_name="xdist.html")
    assert "2 workers" in run.result.stdout
    serial, parallel = _summary_rows(parse(drifted.html)), _summary_rows(parse(run.html))
    assert parallel == serial
    assert {name: state for name, (state, _) in parallel.items()} == {
        WEATHER: "failed",
        TRIP: "failed",
        GREETING: "pending",
    }
    sections = [s.find_all("h2")[0].text() for s in parse(run.html).find_all("section", cls="snap")]
    assert sections == [TRIP, WEATHER, GREETING]
    assert INJECTED not in run.html


def test_cli_diff_html_writes_the_page_for_one_snapshot(
    drifted: DriftRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from agentsnap.cli import app

    monkeypatch.chdir(drifted.root)
    result = CliRunner().invoke(
        app,
        ["diff", WEATHER, "--html", "one.html", "--dir", str(drifted.root / "__agent_snapshots__")],
    )
    assert result.exit_code == 1, result.output
    assert "HTML report written to" in result.output
    doc = parse((drifted.root / "one.html").read_text(encoding="utf-8"))
    assert list(_summary_rows(doc)) == [WEATHER]
    assert len(doc.find_all("section", cls="snap")) == 1
    assert [c.text() for c in doc.find_all("td", cls="arg-new")][:1] == ['"Rome"']


def test_cli_diff_html_of_a_pending_snapshot_shows_it_as_pending(
    drifted: DriftRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from agentsnap.cli import app

    monkeypatch.chdir(drifted.root)
    result = CliRunner().invoke(
        app,
        [
            "diff",
            GREETING,
            "--html",
            "pending.html",
            "--dir",
            str(drifted.root / "__agent_snapshots__"),
        ],
    )
    assert "HTML report written to" in result.output
    rows = _summary_rows(parse((drifted.root / "pending.html").read_text(encoding="utf-8")))
    assert rows[GREETING][0] == "pending"


def test_the_output_check_names_the_changed_sentence_and_a_harmless_pass_says_what_differed() -> (
    None
):
    """Issue 16: a failure shows golden → new sentence of each finding; a pass below 1.0 says what was judged harmless."""
    golden = Snapshot(
        name="t::train", approved=True, output="Your train arrives at 10:30.", trace=[]
    )
    changed = Snapshot(name="t::train", output="Your train arrives at 11:30.", trace=[])
    report = compute_diff(
        golden.to_dict(), changed.to_dict(), name=golden.name, embedding_backend="lexical"
    )
    html = render_html(
        [
            entry_from_outcome(
                Outcome("failed", golden.name, Path("/g.json"), report, golden=golden, new=changed)
            )
        ]
    )
    doc = parse(html)
    items = [li for li in doc.find_all("li") if "finding" in li.attrs.get("class", "")]
    assert len(items) == 1 and "harmful" in items[0].attrs["class"]
    text = " ".join(items[0].text().split())
    assert (
        text
        == "changed times differ (10:30 → 11:30) golden: “Your train arrives at 10:30.” → new: “Your train arrives at 11:30.”"
    )
    assert "· changed" in html
    polite = Snapshot(
        name="t::train", output="Sure! Your train arrives at 10.30 am. Have a great day!", trace=[]
    )
    passed = compute_diff(
        golden.to_dict(), polite.to_dict(), name=golden.name, embedding_backend="lexical"
    )
    assert passed.passed and passed.semantic_scores["output"] < 1.0
    from agentsnap.html_report import entry_for_diff

    # the single-snapshot page (agentsnap diff --html) shows a passing snapshot's section too
    doc = parse(render_html([entry_for_diff(golden.name, golden, polite, passed)]))
    labels = [
        " ".join(li.text().split())
        for li in doc.find_all("li")
        if "finding" in li.attrs.get("class", "")
    ]
    assert labels == [
        "harmless courtesy added golden: (nothing) → new: “Sure!”",
        "harmless courtesy added golden: (nothing) → new: “Have a great day!”",
    ]


# --------------------------------------------------------------------------- replay drift: advice, changed tool step, verdict colour

TEST_TOOL_RESULT = """
import json
import pathlib

import openai
from fake_provider import text_reply, tool_calls_reply

HERE = pathlib.Path(__file__).parent
TOOLS = [{"type": "function", "function": {"name": "get_weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]


def test_forecast(fake):
    result = json.loads((HERE / "scenario.json").read_text(encoding="utf-8"))["result"]
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": "Paris"})]), text_reply("Dress for it."))
    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    messages = [{"role": "user", "content": "What should I wear in Paris?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    message = first.choices[0].message
    messages.append({"role": "assistant", "content": message.content,
                     "tool_calls": [call.model_dump() for call in message.tool_calls]})
    for call in message.tool_calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    final = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    assert final.choices[0].message.content
"""
FORECAST = "test_forecast.py::test_forecast"


def _meter_classes(doc: _Node) -> dict[str, set[str]]:
    """Each summary row's score bar classes, by snapshot name."""
    out = {}
    for row in doc.find_all("tr"):
        if "data-state" in row.attrs:
            meters = row.find_all("span", cls="meter")
            out[row.find_all("td")[0].text().strip()] = meters[0].classes if meters else set()
    return out


def test_replayed_request_drift_report_advises_what_the_cli_accepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool whose result changed, replayed: the page shows that tool step as changed, paints
    the failed run's bar red though its score is high, and advises live re-recording, the
    command ``agentsnap diff`` gives and not ``agentsnap update`` (which refuses the run)."""
    from typer.testing import CliRunner

    from agentsnap.cli import app

    (tmp_path / "fake_provider.py").write_text(
        FAKE_PROVIDER.read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tmp_path / "test_forecast.py").write_text(TEST_TOOL_RESULT, encoding="utf-8")
    (tmp_path / "scenario.json").write_text('{"result": "sunny, 21 degrees"}', encoding="utf-8")
    recorded = run_inner(tmp_path, "--agentsnap-record")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr

    same = run_inner(tmp_path, "--agentsnap-replay", "--agentsnap-report=out/same.html")
    assert same.returncode == 0, same.stdout + same.stderr
    passed = parse((tmp_path / "out" / "same.html").read_text(encoding="utf-8"))
    assert _summary_rows(passed)[FORECAST][0] == "passed"
    assert _meter_classes(passed)[FORECAST] == {"meter"}

    (tmp_path / "scenario.json").write_text('{"result": "heavy rain, 9 degrees"}', encoding="utf-8")
    drift = run_inner(tmp_path, "--agentsnap-replay", "--agentsnap-report=out/drift.html")
    assert drift.returncode == 1, drift.stdout + drift.stderr
    doc = parse((tmp_path / "out" / "drift.html").read_text(encoding="utf-8"))
    assert _summary_rows(doc)[FORECAST] == ("failed", ["llm_requests"])
    # the verdict colours the bar: red although the score itself is high
    score_cell = next(r for r in doc.find_all("tr") if "data-state" in r.attrs).find_all(
        "td", cls="score"
    )[0]
    assert float(score_cell.text().strip().rstrip("%")) >= 90
    assert _meter_classes(doc)[FORECAST] == {"meter", "low"}
    # the timeline: llm call same, tool step changed (its result), the next llm call changed
    rows = doc.find_all(cls="tl-row")
    assert [(r.attrs["data-op"], r.find_all(cls="tl-op")[0].text()) for r in rows] == [
        ("same", "="),
        ("changed", "≠"),
        ("changed", "≠"),
    ]
    assert "sunny, 21 degrees" in rows[1].text() and "heavy rain, 9 degrees" in rows[1].text()
    # the advice: live re-recording, as agentsnap diff says; agentsnap update refuses this run
    record = f"pytest {FORECAST} --agentsnap-record"
    commands = [c.find_all("code")[0].text() for c in doc.find_all("div", cls="cmd")]
    assert commands == [record, f"agentsnap diff {FORECAST}"]
    assert not any("agentsnap update" in c for c in commands)
    # the pytest failure (the text report) says the same
    assert f"re-record it live: `{record}`" in drift.stdout, drift.stdout
    assert "`agentsnap update` refuses this run" in drift.stdout
    monkeypatch.chdir(tmp_path)
    snapshots = str(tmp_path / "__agent_snapshots__")
    diff = CliRunner().invoke(app, ["diff", FORECAST, "--dir", snapshots])
    assert diff.exit_code == 1 and f"re-record it live: {record}" in diff.output, diff.output
    update = CliRunner().invoke(app, ["update", FORECAST, "--dir", snapshots])
    assert update.exit_code != 0 and f"Re-record it live: `{record}`" in update.output, (
        update.output
    )
