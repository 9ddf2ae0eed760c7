"""agentsnap next to other instrumentation: every request is recorded exactly once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent(
    """
    import json, os, sys, tempfile
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
    from agentsnap import AgentRecorder
    from tests.fake_provider import FakeOpenAI, text_reply
    out = tempfile.mkdtemp()
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
