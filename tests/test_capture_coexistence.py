"""agentsnap next to other instrumentation: every request is recorded exactly once."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent(
    """
    import atexit, json, os, shutil, sys, tempfile
    sys.path.insert(0, {repo!r})
    for var in ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL", "TF_BUILD"):
        os.environ.pop(var, None)
    import wrapt
    calls = {{"foreign_send": 0, "foreign_create": 0}}

    def foreign_send(wrapped, instance, args, kwargs):
        calls["foreign_send"] += 1
        return wrapped(*args, **kwargs)

    def foreign_create(wrapped, instance, args, kwargs):
        calls["foreign_create"] += 1
        return wrapped(*args, **kwargs)

    from agentsnap.capture.hooks import install
    {before}
    install(); install()
    import httpx2, openai
    from openai.resources.chat.completions import completions as mod
    {after}
    wrapt.wrap_function_wrapper(mod, "Completions.create", foreign_create)
    from agentsnap import AgentRecorder, AgentsnapWarning, SnapshotStore
    from tests._support.ci import clear_ci
    from tests.fake_provider import FakeOpenAI, text_reply
    out = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, out, True)
    with FakeOpenAI() as fake:
        fake.script(text_reply("one"), text_reply("two"))
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        with AgentRecorder("coexist", snapshot_dir=out) as rec:
            client.chat.completions.create(model="m", messages=[{{"role": "user", "content": "1"}}])
            client.chat.completions.with_raw_response.create(model="m", messages=[{{"role": "user", "content": "2"}}]).parse()
        served = len(fake.requests)
    snap = json.load(open(os.path.join(out, os.listdir(out)[0]), encoding="utf-8"))
    print(json.dumps({{"llm_calls": [s["response"] for s in snap["trace"] if s["type"] == "llm_call"], "served": served, **calls}}))
    """
)


def _run(before: str = "", after: str = "") -> dict:
    code = SCRIPT.format(repo=str(REPO), before=before, after=after)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


def test_foreign_send_wrapper_installed_after_agentsnap() -> None:
    res = _run(after="wrapt.wrap_function_wrapper(httpx2.Client, 'send', foreign_send)")
    assert res == {"llm_calls": ["one", "two"], "served": 2, "foreign_send": 2, "foreign_create": 2}


def test_foreign_send_wrapper_installed_before_agentsnap() -> None:
    before = "import httpx2 as _h\nwrapt.wrap_function_wrapper(_h.Client, 'send', foreign_send)"
    res = _run(before=before)
    assert res == {"llm_calls": ["one", "two"], "served": 2, "foreign_send": 2, "foreign_create": 2}


def test_httpx2_alias_makes_one_class_and_one_record() -> None:
    before = "import httpx2 as _h\n_h.alias_httpx() if hasattr(_h, 'alias_httpx') else None\nimport httpx"
    res = _run(before=before)
    assert res["llm_calls"] == ["one", "two"] and res["served"] == 2


# --------------------------------------------------------------------------- agentsnap's own module imported again


def wrapper_layers(func: object) -> list[str]:
    """The wrappers of every ``wrapt`` layer of ``func``, outermost first, by name."""
    names = []
    while func is not None:
        wrapper = getattr(func, "_self_wrapper", None)
        if wrapper is not None:
            names.append(f"{wrapper.__module__}.{wrapper.__qualname__}")
        func = getattr(func, "__wrapped__", None)
    return names


def test_a_transport_module_imported_again_wraps_the_library_once_with_its_newest_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytester's in-process runs drop the modules a run imported first (agentsnap's transports
    among them) while httpx stays: the next import's ``send_wrapper`` is a new object. Matched
    by identity it stacked a second layer on ``httpx.Client.send``, each layer storing the call."""
    httpx = pytest.importorskip("httpx")  # openai 3.x sends through httpx2; this test drives httpx
    import openai

    import agentsnap.capture.transports as package
    from agentsnap import AgentRecorder, AgentsnapWarning, SnapshotStore
    from agentsnap.capture import hooks
    from agentsnap.capture.transports import httpx as first
    from tests._support.ci import clear_ci
    from tests.fake_provider import FakeOpenAI, text_reply

    clear_ci(monkeypatch)
    hooks.install()
    hooks.ensure_patched()
    ours = ["agentsnap.capture.transports.httpx.send_wrapper"]
    assert wrapper_layers(httpx.Client.__dict__["send"]) == ours
    try:
        del sys.modules[first.__name__]
        second = importlib.import_module(first.__name__)
        assert second is not first and second.send_wrapper is not first.send_wrapper
        hooks.ensure_patched()  # what the next recording's start does
        layer = httpx.Client.__dict__["send"]
        assert wrapper_layers(layer) == ours
        assert layer._self_wrapper is second.send_wrapper  # the newest copy serves
        with FakeOpenAI() as fake:
            fake.script(text_reply("once"))
            client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
            with (
                pytest.warns(AgentsnapWarning, match="recorded golden 'reimported'"),
                AgentRecorder("reimported", snapshot_dir=tmp_path),
            ):
                client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "hi"}]
                )
            assert len(fake.requests) == 1
        golden = json.loads(SnapshotStore(tmp_path).path_for("reimported").read_bytes())
        assert [(step["type"], step["response"]) for step in golden["trace"]] == [
            ("llm_call", "once")
        ]
    finally:  # the process as the test found it: its own copy, one layer
        sys.modules[first.__name__] = first
        package.httpx = first  # type: ignore[attr-defined]
        hooks.ensure_patched()
    assert wrapper_layers(httpx.Client.__dict__["send"]) == ours
    assert httpx.Client.__dict__["send"]._self_wrapper is first.send_wrapper
