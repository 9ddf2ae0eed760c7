"""Real MCP servers for the MCP framework tests, and a helper that runs the HTTP one.

Stdlib only here (the servers themselves import ``mcp``); no agentsnap import: a Project's
conftest imports this module as a user's conftest would import its own test servers.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["WEATHER_SERVER", "free_port", "http_server", "starts"]

WEATHER_SERVER = str(Path(__file__).with_name("weather_server.py"))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def starts(log: str | os.PathLike[str]) -> list[str]:
    """The lines of a start log (one per server start); none when the file is not there."""
    path = Path(log)
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _answers(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        conn.request("GET", "/mcp")
        conn.getresponse().read()
        return True
    except OSError:
        return False
    finally:
        conn.close()


@contextlib.contextmanager
def http_server(
    port: int | None = None,
    env: Mapping[str, str] | None = None,
    script: str = WEATHER_SERVER,
    timeout: float = 20.0,
    transport: str = "http",
) -> Iterator[str]:
    """Run ``script --http PORT`` (streamable HTTP on 127.0.0.1; ``transport="sse"``: ``--sse``,
    the legacy SSE transport) with ``env`` over this process's environment; yields its URL
    (``http://127.0.0.1:PORT/mcp``, or ``/sse``) once it answers HTTP, and stops it on exit."""
    port = port or free_port()
    # its stderr goes to a file: a pipe nobody reads could fill up and block the server
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        proc = subprocess.Popen(
            [sys.executable, script, f"--{transport}", str(port)],
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            deadline = time.monotonic() + timeout
            while not _answers(port):
                if proc.poll() is not None:
                    errors.seek(0)
                    raise RuntimeError(
                        f"the MCP server exited ({proc.returncode}): {errors.read()}"
                    )
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"the MCP server on port {port} did not answer in {timeout}s"
                    )
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
