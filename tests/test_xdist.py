"""pytest-xdist: parallel record runs leave every file whole; the summary adds up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentsnap.storage.store import SnapshotStore
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

pytest_plugins = ["pytester"]
REPO = Path(__file__).resolve().parents[1]
N = 200

CONFTEST = f"""
import os, sys
sys.path.insert(0, {str(REPO)!r})
import openai, pytest
from tests.fake_provider import FakeOpenAI, text_reply

@pytest.fixture(scope="session")
def client():
    with FakeOpenAI() as fake:
        fake.respond_with(lambda body: text_reply("answer to " + body["messages"][0]["content"]))
        yield openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
"""

TESTS = f"""
import pytest

@pytest.mark.parametrize("i", range({N}))
def test_agent(client, i):
    r = client.chat.completions.create(model="m", messages=[{{"role": "user", "content": f"q{{i}}"}}])
    assert r.choices[0].message.content == f"answer to q{{i}}"
"""


def _project(pytester: pytest.Pytester) -> Path:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_dir = "snaps"\n')
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_many=TESTS)
    return pytester.path / "snaps"


def _summary(result: pytest.RunResult) -> str:
    return next(line for line in result.outlines if line.startswith("agentsnap:"))


def test_parallel_record_repeated_leaves_every_file_complete(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    for round_ in range(3):
        res = pytester.runpytest_subprocess(
            "-n", "2", "--agentsnap-record", "-p", "no:randomly", "-q"
        )
        res.assert_outcomes(passed=N)
        files = sorted(root.glob("*.json"))
        assert len(files) == N, round_
        names = set()
        for path in files:
            data = json.loads(path.read_text(encoding="utf-8"))  # every file parses
            assert data["approved"] is True
            assert data["trace"][0]["response"] == "answer to q" + data["name"].split("[")[
                1
            ].rstrip("]")
            names.add(data["name"])
        assert names == {f"test_many.py::test_agent[{i}]" for i in range(N)}
        assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]
        expected = (
            f"agentsnap: {N} recorded (approved)"
            if round_ == 0
            else f"agentsnap: {N} re-recorded unchanged"
        )
        assert _summary(res) == expected


def test_xdist_summary_equals_serial_summary(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    skipped = sum(1 for i in range(N) if "7" in str(i))  # left unrecorded by -k
    pytester.runpytest_subprocess(
        "--agentsnap-record", "-p", "no:randomly", "-q", "-k", "not 7"
    ).assert_outcomes(passed=N - skipped, deselected=skipped)
    # one golden drifts, a few are missing (pending locally), the rest pass
    store = SnapshotStore(root)
    snap = store.load("test_many.py::test_agent[0]")
    assert snap is not None
    snap.trace[0]["response"] = "something else entirely, nothing alike"
    snap.output = "something else entirely, nothing alike"
    store.save(snap)
    serial = pytester.runpytest_subprocess("--agentsnap-live", "-p", "no:randomly", "-q")
    # the run created the missing ones as pending; restore that state for the parallel run
    for path in root.glob("*.json"):
        if json.loads(path.read_text(encoding="utf-8"))["approved"] is False:
            path.unlink()
    parallel = pytester.runpytest_subprocess(
        "-n", "2", "--agentsnap-live", "-p", "no:randomly", "-q"
    )
    expected = f"agentsnap: {N - skipped - 1} passed, 1 failed, {skipped} new (pending approval)"
    assert _summary(serial) == _summary(parallel) == expected
    serial.assert_outcomes(passed=N - 1, failed=1)
    parallel.assert_outcomes(passed=N - 1, failed=1)


def test_a_workers_payload_merges_into_the_controllers_session(
    request: pytest.FixtureRequest,
) -> None:
    """The publish/merge pair round-trips every part the summary and orphan detection use."""
    from agentsnap._pytest import xdist
    from agentsnap._pytest.session import AgentsnapSession
    from agentsnap.config import Settings

    worker = AgentsnapSession(request.config, Settings(ci=False))
    worker.counts.update({"passed": 2, "created": 1, "_http_requests": 3})
    worker.used.update({"t::a", "t::b"})
    worker.collected.update({"t::a", "t::b", "t::c"})
    worker.deselected = 1
    workeroutput: dict[str, object] = {}
    payload = xdist.publish(worker, workeroutput)
    assert json.loads(json.dumps(workeroutput)) == {"agentsnap": payload}  # plain JSON types

    controller = AgentsnapSession(request.config, Settings(ci=False))
    controller.counts["failed"] = 1
    xdist.merge(controller, workeroutput)
    xdist.merge(controller, workeroutput)
    xdist.merge(controller, {})  # a worker that published nothing adds nothing
    assert controller.counts == {"passed": 4, "created": 2, "failed": 1, "_http_requests": 6}
    assert controller.used == {"t::a", "t::b"}
    assert controller.collected == {"t::a", "t::b", "t::c"}
    assert controller.deselected == 2
