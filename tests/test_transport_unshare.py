"""Replay with no network at all: each transport's recording is replayed in a
child process started under ``unshare -n`` (a network namespace with no
interface up, not even loopback), the recording's server long gone.

Skipped where ``unshare -n`` is not permitted (it needs root or user namespaces).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import transport_kit as kit
from tests.fake_provider import FakeOpenAI, stream_text_reply, text_reply

ROOT = Path(__file__).resolve().parent.parent

CALLS = r"""
import asyncio, json, sys, urllib.request
from tests import transport_kit as kit

def urllib_call(url, body):
    req = urllib.request.Request(url, data=body, headers=kit.OPENAI_HEADERS, method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, resp.read().decode()

def requests_call(url, body):
    import requests
    resp = requests.post(url, data=body, headers=kit.OPENAI_HEADERS, timeout=5)
    return resp.status_code, resp.text

def aiohttp_call(url, body):
    import aiohttp
    async def main():
        async with aiohttp.ClientSession() as session:
            async with session.post(url, data=body, headers=kit.OPENAI_HEADERS) as resp:
                return resp.status, (await resp.read()).decode()
    return asyncio.run(main())

CALL = {"urllib": urllib_call, "requests": requests_call, "aiohttp": aiohttp_call}

def run(name, url):
    return [CALL[name](url, kit.openai_body()), CALL[name](url, kit.openai_body(stream=True))]
"""

REPLAY = (
    CALLS
    + r"""
from agentsnap.capture.recording import Recording
from agentsnap.capture.cassette import Cassette
name, url, path = sys.argv[1:4]
steps = json.load(open(path))
with Recording("replay", cassette=Cassette(steps)) as rec:
    out = run(name, url)
print(json.dumps({"out": out, "misses": rec.misses}))
"""
)


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="unshare -n is not permitted here")
@pytest.mark.parametrize("transport", ["urllib", "requests", "aiohttp"])
def test_replay_runs_with_no_network_namespace(
    transport: str, tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    pytest.importorskip(
        {"urllib": "urllib", "requests": "requests", "aiohttp": "aiohttp"}[transport]
    )
    fake_openai.script(text_reply("Sunny."), stream_text_reply(["Mild ", "and dry."]))
    url = fake_openai.base_url + "/chat/completions"
    namespace: dict = {}
    exec(compile(CALLS, "calls", "exec"), namespace)
    live, steps = kit.record(lambda: namespace["run"](transport, url))
    fake_openai.stop()
    path = tmp_path / "steps.json"
    path.write_text(json.dumps(steps), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    proc = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", REPLAY, transport, url, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["misses"] == 0
    (status, body), (sstatus, sbody) = result["out"]
    assert status == 200 and json.loads(body) == json.loads(live[0][1])
    assert sstatus == 200 and sbody == live[1][1]
    assert kit.openai_stream_result(sbody)[0] == "Mild and dry."
