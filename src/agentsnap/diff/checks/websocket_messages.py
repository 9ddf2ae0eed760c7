"""The ``websocket`` check: what the agent sent on each WebSocket connection (replay mode).

Each connection's model turns are ``llm_call`` steps, which every other check compares; this
one compares the connection itself, so a change is caught on any connection, also one whose
API agentsnap does not read as turns (a plain ``websockets`` client):

* the connections: how many, and the URL path of each (by ``connection`` number);
* per connection, the client's messages: how many, and the JSON paths where one sent in this
  run differs from the recorded one (replay keeps them on the step as ``request_drift``: a
  message the golden could still answer), values the client minted compared up to a renaming.

Like ``llm_requests``, it runs with ``compare_requests`` (replay): in a live run the server's
answers differ, and so may the messages they lead to. Any difference fails
(``websocket_messages``). A live run, or one with no WebSocket connection on either side,
leaves no trace of the check in the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._api import Check, CheckContext, CheckResult

__all__ = ["WebSocketCheck", "WebSocketResult"]


def _connections(steps: Sequence[Mapping[str, Any]]) -> dict[int, Mapping[str, Any]]:
    return {
        int(s["connection"]): s
        for s in steps
        if s.get("type") == "websocket" and isinstance(s.get("connection"), int)
    }


def _path(url: object) -> str:
    rest = str(url or "").split("://", 1)[-1]
    slash = rest.find("/")
    return rest[slash:].split("?", 1)[0] if slash >= 0 else "/"


def _sent(step: Mapping[str, Any]) -> int:
    frames = step.get("frames")
    return sum(
        1
        for f in (frames if isinstance(frames, list) else [])
        if isinstance(f, Mapping) and f.get("dir") == "send"
    )


@dataclass
class WebSocketResult(CheckResult):
    """``lines``: one per difference (``summary`` says how many connections were compared)."""

    #: False: nothing to compare in this run (the report holds no trace of the check)
    compared: bool = True
    connections: int = 0


class WebSocketCheck(Check[WebSocketResult]):
    """In replay: each WebSocket connection's path and the messages the client sent on it (see
    the module doc)."""

    name = "websocket"
    title = "[WEBSOCKET]"
    fails_as = ("websocket_messages",)
    always_decides = True

    def run(self, ctx: CheckContext) -> WebSocketResult:
        golden, new = _connections(ctx.golden_steps), _connections(ctx.new_steps)
        if (not golden and not new) or not ctx.options.compare_requests:
            return WebSocketResult(True, compared=False)  # nothing to compare: no line
        result = WebSocketResult(True, connections=len(new))
        for number in sorted(set(golden) | set(new)):
            g, n = golden.get(number), new.get(number)
            if n is None and g is not None:
                result.lines.append(
                    f"connection {number} ({g.get('url')}) was recorded, not opened in this run"
                )
                continue
            if g is None and n is not None:
                result.lines.append(
                    f"connection {number} ({n.get('url')}) was opened in this run, not recorded"
                )
                continue
            assert g is not None and n is not None
            where = f"connection {number} ({n.get('url')})"
            if _path(g.get("url")) != _path(n.get("url")):
                result.lines.append(f"{where}: path {_path(g.get('url'))!r} recorded")
            for drift in n.get("request_drift") or []:
                result.lines.append(f"{where}: {drift}")
            recorded, sent = _sent(g), _sent(n)
            if sent != recorded:
                result.lines.append(
                    f"{where}: {recorded} client message(s) recorded, {sent} sent in this run"
                )
        result.passed = not result.lines
        count = f"{len(set(golden) | set(new))} connection(s)"
        result.summary = (
            f"{count}, the same messages sent"
            if result.passed
            else f"{count}, {len(result.lines)} difference(s) in what the agent sent"
        )
        return result
