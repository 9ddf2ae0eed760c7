"""The loopback fake providers of ``tests/`` in a process of their own (rows 9 and 10).

    python bench/_loopback.py echo      # one fake OpenAI chat endpoint answering each question
    python bench/_loopback.py models    # tests/frameworks/fake_models: chat, responses, anthropic

The server prints its base URLs as one JSON line and serves until its stdin closes. In its
own process it does not compete with the measured client for the GIL, so the client
thread's CPU time is the client's alone. Its handlers send with ``TCP_NODELAY``: without
it, a keep-alive client waits for the delayed ACK of the reply's header segment before
the body comes (~40 ms a call on Linux loopback), which would swamp what is measured.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


class Loopback:
    """A fake-provider server process; ``urls`` are its base URLs."""

    def __init__(self, kind: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), kind],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=str(ROOT),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the loopback server exited ({self.proc.wait()})")
        self.urls: dict[str, str] = json.loads(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def __enter__(self) -> Loopback:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _question(body: Any) -> str:
    messages = (body or {}).get("messages") or [{}]
    content = messages[-1].get("content")
    return content if isinstance(content, str) else "?"


def _serve(kind: str) -> None:
    sys.path.insert(0, str(ROOT))
    from tests import fake_provider as fp

    fp._Handler.disable_nagle_algorithm = True  # see the module doc
    if kind == "echo":

        def answer(body: Any) -> Any:
            text = f"You asked: {_question(body)}"
            if (body or {}).get("stream"):
                return fp.stream_text_reply(["You asked:", " ", _question(body)])
            return fp.text_reply(text)

        fake = fp.FakeOpenAI().respond_with(answer).start()
        urls = {"chat": fake.base_url}
        print(json.dumps(urls), flush=True)
        sys.stdin.read()
        fake.stop()
        return
    from tests.frameworks import fake_models

    with fake_models.start(running=True) as servers:
        urls = {
            "chat": servers.chat,
            "responses": servers.responses,
            "anthropic": servers.anthropic,
        }
        print(json.dumps(urls), flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    _serve(sys.argv[1] if len(sys.argv) > 1 else "echo")
