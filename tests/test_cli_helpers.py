"""Helpers shared by the CLI tests (no tests here): snapshot builders, the runner, disk checks."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from agentsnap.cli import app
from agentsnap.storage.snapshot import Snapshot, dumps
from agentsnap.storage.store import SnapshotStore

runner = CliRunner()

PARIS = "tests/test_weather.py::test_paris"
LYON = "tests/test_weather.py::test_lyon"


def llm_step(
    step: int, *, response: str = "Hi", city: str | None = None, model: str = "gpt-4o-mini"
) -> dict[str, Any]:
    """An llm_call step; with ``city`` the model asks for get_weather(city)."""
    requests = [{"id": "call_A", "name": "get_weather", "args": {"city": city}}] if city else []
    return {
        "step": step,
        "type": "llm_call",
        "provider": "openai",
        "model": model,
        "messages": [{"role": "user", "content": "Weather?"}],
        "tools": ["get_weather"],
        "response": response,
        "tool_requests": requests,
        "tokens": 3,
        "usage": None,
        "stream": False,
        "status": 200,
    }


def tool_step(step: int, city: str = "Paris", result: str = "Sunny") -> dict[str, Any]:
    return {
        "step": step,
        "type": "tool_call",
        "name": "get_weather",
        "args": {"city": city},
        "result": result,
        "id": "call_A",
    }


def weather_trace(city: str = "Paris") -> list[dict[str, Any]]:
    """llm_call asking for get_weather(city), the tool call, the final llm_call: 3 steps."""
    return [
        llm_step(0, response="", city=city),
        tool_step(1, city),
        llm_step(2, response=f"Sunny in {city}"),
    ]


def make(
    root: Path,
    name: str,
    *,
    city: str = "Paris",
    approved: bool = False,
    source: str = "pytest",
    trace: list[dict[str, Any]] | None = None,
    output: Any = "Sunny",
    last_run: bool = False,
) -> Path:
    """Write a golden (or, with ``last_run``, a .last_run file) and return its path."""
    store = SnapshotStore(root)
    snap = Snapshot(
        name=name,
        trace=weather_trace(city) if trace is None else trace,
        output=output,
        model="gpt-4o-mini",
        approved=approved,
        source=source,
    )
    return store.save_last_run(snap) if last_run else store.save(snap)


def set_field(path: Path, key: str, value: Any) -> None:
    """Edit one top-level key of a snapshot file in place."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data[key] = value
    path.write_text(dumps(data), encoding="utf-8")


def ago(**delta: float) -> str:
    """An ISO timestamp ``delta`` (timedelta keywords) in the past."""
    return (datetime.now(timezone.utc) - timedelta(**delta)).replace(microsecond=0).isoformat()


def read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes), to prove nothing changed."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def invoke(
    *args: str, input: str | None = None, env: dict[str, str | None] | None = None
) -> Result:
    """Run ``agentsnap ARGS…`` in-process (stdout is not a TTY here)."""
    return runner.invoke(app, list(args), input=input, env=env)
