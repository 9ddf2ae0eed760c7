"""Kept after the change was taken out again (issue 30, sixteenth session): a regression test for
what a fast path here must not lose. ensure_patched's fast path (ff82630) vs a hooked module reloaded in place.

``importlib.reload`` re-executes a module in the *same* module object: ``sys.modules`` holds the
very object the last full pass saw, but its classes are new (unwrapped) objects, and the seams
``wrapping.seams_held`` tracks are the old classes' (still wrapped). The fast path skips the pass,
so calls through the reloaded module's classes are neither recorded nor replayed; the full pass
(02d7d57) wraps the new classes at the next recording's start. Run in a subprocess: a reload of
``http.client`` must not leak into the rest of the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent(
    """
    import importlib, json, os, sys
    sys.path.insert(0, {repo!r})
    for var in ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL", "TF_BUILD"):
        os.environ.pop(var, None)
    import {module}
    from agentsnap.capture import hooks
    from agentsnap.capture.recording import Recording
    hooks.install()
    with Recording("capture"):  # a first recording: the full pass, everything settled
        pass
    importlib.reload({module})
    with Recording("capture"):  # the next recording's start: its ensure_patched
        pass
    owner = {owner}
    print(json.dumps({{"wrapped": hasattr(owner.__dict__[{attr!r}], "_self_wrapper")}}))
    """
)

E2E = textwrap.dedent(
    """
    import importlib, json, os, sys, urllib.request
    sys.path.insert(0, {repo!r})
    for var in ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL", "TF_BUILD"):
        os.environ.pop(var, None)
    import http.client
    from agentsnap.capture import hooks
    from agentsnap.capture.recording import Recording
    from tests import transport_kit as kit
    from tests.fake_provider import FakeOpenAI, text_reply
    hooks.install()
    with Recording("capture"):
        pass
    importlib.reload(http.client)  # urllib.request reads http.client.HTTPConnection at each call
    with FakeOpenAI() as fake:
        fake.script(text_reply("Sunny."))
        url = fake.base_url + "/chat/completions"
        def call():
            req = urllib.request.Request(url, data=kit.openai_body(), headers=kit.OPENAI_HEADERS, method="POST")
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.read()
        _, steps = kit.record(call)
    print(json.dumps({{"steps": [s["type"] for s in steps]}}))
    """
)


def _run(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("module", "owner", "attr"),
    [
        ("http.client", "http.client.HTTPConnection", "request"),
        ("urllib3.connectionpool", "urllib3.connectionpool.HTTPConnectionPool", "urlopen"),
    ],
)
def test_a_hooked_module_reloaded_in_place_gets_its_new_class_wrapped(
    module: str, owner: str, attr: str
) -> None:
    if module.startswith("urllib3"):
        pytest.importorskip("urllib3")
    res = _run(SCRIPT.format(repo=str(REPO), module=module, owner=owner, attr=attr))
    assert res == {"wrapped": True}


def test_a_call_after_http_client_reloaded_is_recorded() -> None:
    res = _run(E2E.format(repo=str(REPO)))
    assert res == {"steps": ["llm_call"]}
