"""The ``websocket`` check: what the agent sent on each WebSocket connection (replay), what a
plain server sent back (live).

Each connection's model turns are ``llm_call`` steps, which every other check compares; this
one compares the connection itself, so a change is caught on any connection, also one whose
API agentsnap does not read as turns (a plain ``websockets`` client):

* the connections: how many, and the URL path of each (by ``connection`` number);
* per connection, the client's messages: how many, and the JSON paths where one sent in this
  run differs from the recorded one (replay keeps them on the step as ``request_drift``: a
  message the golden could still answer), values the client minted compared up to a renaming.

Like ``llm_requests``, that runs with ``compare_requests`` (replay): in a live run the server's
answers differ, and so may the messages they lead to. Any difference fails
(``websocket_messages``).

In a live (or record) run, where the server really answered, it compares what a plain server
(a connection agentsnap reads no API of: no ``api`` on the step) sent back instead: per
connection, the server's messages in order, JSON at its own paths, each message the root of
``ignored_fields`` (``session.id``; a bare key at any depth). A changed, missing or extra
message fails (``websocket_replies``), named by connection, server message index and frame.
A provider's connection is left to the checks of its turns (model text differs run to run).
A run with nothing of this to compare leaves no trace of the check in the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...jsondiff import IgnoreRule, diff_values, json_text
from ._api import Check, CheckContext, CheckResult, ReportDraft, as_dict

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


def _received(step: Mapping[str, Any]) -> list[tuple[int, Any]]:
    """``(frame index, compared value)`` of each server message on a connection's step: its
    JSON, text (read as JSON when it is) or binary (its stored digest)."""
    frames = step.get("frames")
    out = []
    for index, frame in enumerate(frames if isinstance(frames, list) else []):
        if not isinstance(frame, Mapping) or frame.get("dir") != "recv":
            continue
        if "json" in frame:
            value = frame["json"]
        elif "text" in frame:
            value = json_text(frame["text"])
        else:
            value = frame.get("binary")
        out.append((index, value))
    return out


def _reply_lines(
    where: str,
    golden: Mapping[str, Any],
    new: Mapping[str, Any],
    rules: tuple[IgnoreRule, ...],
    strict: bool,
) -> list[str]:
    """One line per JSON path where a server message of ``new`` differs from the golden's (and
    one when there are more or fewer)."""
    g_msgs, n_msgs = _received(golden), _received(new)
    lines = []
    for number, ((_, old), (frame, now)) in enumerate(zip(g_msgs, n_msgs, strict=False)):
        for change in diff_values(old, now, root="", ignored_fields=rules, strict=strict):
            kind = change.get("kind")
            before = "<absent>" if kind == "added" else repr(change.get("old"))
            after = "<absent>" if kind == "removed" else repr(change.get("new"))
            path = str(change.get("path") or "").lstrip(".") or "(whole message)"
            lines.append(
                f"{where}: server message {number} (frame {frame}): {path}: {before} → {after}"
            )
    if len(g_msgs) != len(n_msgs):
        lines.append(
            f"{where}: {len(g_msgs)} server message(s) recorded, {len(n_msgs)} received in this run"
        )
    return lines


def _one_side(number: int, g: Mapping[str, Any] | None, n: Mapping[str, Any] | None) -> str:
    """The line for a connection only one side has: recorded and not opened, or the reverse."""
    side = "recorded, not opened in this run" if n is None else "opened in this run, not recorded"
    return f"connection {number} ({(g or n or {}).get('url')}) was {side}"


@dataclass
class WebSocketResult(CheckResult):
    """``lines``: one per difference (``summary`` says how many connections were compared)."""

    #: False: nothing to compare in this run (the report holds no trace of the check)
    compared: bool = True
    connections: int = 0
    #: True: a live or record run's comparison of what plain servers sent (``websocket_replies``)
    replies: bool = False


class WebSocketCheck(Check[WebSocketResult]):
    """In replay: each WebSocket connection's path and the messages the client sent on it; in
    live and record runs: the messages each plain server sent (see the module doc)."""

    name = "websocket"
    title = "[WEBSOCKET]"
    fails_as = ("websocket_messages", "websocket_replies")
    always_decides = True

    def run(self, ctx: CheckContext) -> WebSocketResult:
        golden, new = _connections(ctx.golden_steps), _connections(ctx.new_steps)
        if not golden and not new:
            return WebSocketResult(True, compared=False)  # nothing to compare: no line
        if not ctx.options.compare_requests:
            return self._replies(ctx, golden, new)
        result = WebSocketResult(True, connections=len(new))
        for number in sorted(set(golden) | set(new)):
            g, n = golden.get(number), new.get(number)
            if g is None or n is None:
                result.lines.append(_one_side(number, g, n))
                continue
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

    def contribute(self, result: WebSocketResult, draft: ReportDraft) -> None:
        """Stored as the default does; fails as ``websocket_replies`` (live, record) or
        ``websocket_messages`` (replay)."""
        if not result.compared:
            return
        draft.details.setdefault("checks", {})[self.name] = as_dict(result)
        if not result.passed:
            draft.fail(self.name, "websocket_replies" if result.replies else "websocket_messages")

    def _replies(
        self,
        ctx: CheckContext,
        golden: dict[int, Mapping[str, Any]],
        new: dict[int, Mapping[str, Any]],
    ) -> WebSocketResult:
        """Live and record runs: what the plain servers sent back (see the module doc)."""
        plain = [
            number
            for number in sorted(set(golden) | set(new))
            if not (golden.get(number) or {}).get("api") and not (new.get(number) or {}).get("api")
        ]
        if not plain:
            return WebSocketResult(True, compared=False)  # a provider's connections only: no line
        result = WebSocketResult(True, connections=len(plain), replies=True)
        for number in plain:
            g, n = golden.get(number), new.get(number)
            if g is None or n is None:
                result.lines.append(_one_side(number, g, n))
                continue
            where = f"connection {number} ({n.get('url')})"
            result.lines += _reply_lines(where, g, n, ctx.rules, ctx.options.strict)
        result.passed = not result.lines
        count = f"{len(plain)} connection(s) to a plain server"
        result.summary = (
            f"{count}, the same server messages received"
            if result.passed
            else f"{count}, {len(result.lines)} difference(s) in what the server sent"
        )
        return result
