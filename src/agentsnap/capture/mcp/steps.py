"""Recorded MCP sessions as snapshot steps, placed in the trace.

Each session (a :class:`~.channel.Channel`) becomes, in order:

* a ``connect`` step: ``{"type": "mcp", "method": "connect", "server", "session",
  "transport"}`` (:mod:`.servers`: who it talks to, scrubbed);
* per request, a step carrying the ``exchange`` replay serves:
  ``tools/call`` is a ``tool_call`` step named ``mcp:<server>.<tool>`` (``args``,
  ``result``, ``is_error`` when the tool reported a failure, ``error`` when the
  server answered a JSON-RPC error); every other request (``initialize``,
  ``tools/list``, ``server/discover``, ``resources/read``…) an ``mcp`` step
  named by its ``method``.

``server`` is the name the server gave itself (``serverInfo.name``), else the
transport's label; ``session`` numbers the test's sessions in a deterministic
order (by server, transport, then opening order).

Placement (:func:`with_mcp_steps`): a tool call the model asked for and the
agent ran on an MCP server is one step — the step derived from the
conversation for it (same tool name, a framework's prefix allowed, in order) is
replaced by the MCP step (and the setup steps of a session opened for it go
just before it). Every other MCP step follows the last exchange step
(``llm_call``/``http``) that had ended when it started, as explicit tool calls
do; steps that overlapped in time are ordered by content, so scheduling never
changes the trace.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from .channel import LISTINGS, Call, Channel
from .servers import server_key

__all__ = ["channel_steps", "tool_result", "with_mcp_steps"]

#: (started, ended, seq, step, the golden's step number in replay) of one MCP step, as the trace places it
Timed = tuple[float, float, int, dict[str, Any], int | None]


def tool_result(result: object) -> Any:
    """What a ``tools/call`` result says, as a reviewer reads it: the text of a single text
    block, else ``structuredContent``, else the texts of text-only content, else the content."""
    if not isinstance(result, Mapping):
        return result
    content = result.get("content")
    blocks = content if isinstance(content, list) else []
    texts = [b.get("text") for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"]
    if len(blocks) == 1 and len(texts) == 1:
        return texts[0]
    if result.get("structuredContent") is not None:
        return result["structuredContent"]
    if blocks and len(texts) == len(blocks):
        return texts
    return content


def _step(call: Call, server: str, number: int) -> dict[str, Any]:
    exchange = call.exchange()
    params = call.params if isinstance(call.params, Mapping) else {}
    step: dict[str, Any]
    if call.method == "tools/call":
        step = {
            "type": "tool_call",
            "name": f"mcp:{server}.{params.get('name')}",
            "args": params.get("arguments") if params.get("arguments") is not None else {},
            "result": tool_result(call.result),
        }
        if isinstance(call.result, Mapping) and call.result.get("isError") is True:
            step["is_error"] = True
        if isinstance(call.error, Mapping):
            step["error"] = call.error.get("message") or call.error
        elif call.error is not None:
            step["error"] = "no answer"
    else:
        step = {"type": "mcp", "method": call.method}
    step.update(server=server, session=number, exchange=exchange)
    if call.request_drift:
        step["request_drift"] = call.request_drift
    return step


def _signature(channel: Channel) -> str:
    return json.dumps([(c.method, c.params) for c in channel.calls], sort_keys=True, default=str)


def _numbered(channels: list[Channel]) -> list[Channel]:
    """The sessions in their ``session`` order: a replay's as the golden numbered them; else by
    server and transport, then opening order, except that sessions opened concurrently (each
    opened before the other's first answer) are ordered by their requests."""
    if channels and all(c.replay_session is not None for c in channels):
        return sorted(channels, key=lambda c: (c.replay_session, c.seq))
    groups: dict[tuple[str, str], list[Channel]] = {}
    for channel in channels:
        key = (channel.label, json.dumps(dict(channel.server.described), sort_keys=True))
        groups.setdefault(key, []).append(channel)
    out: list[Channel] = []
    for key in sorted(groups):
        cluster: list[Channel] = []
        reach = float("-inf")
        for channel in sorted(groups[key], key=lambda c: (c.started, c.seq)):
            if cluster and channel.started >= reach:
                out += sorted(cluster, key=lambda c: (_signature(c), c.seq))
                cluster = []
            cluster.append(channel)
            first = channel.calls[0] if channel.calls else None
            answered = (
                first.ended if first is not None and first.ended is not None else channel.started
            )
            reach = max(reach, answered)
        out += sorted(cluster, key=lambda c: (_signature(c), c.seq))
    return out


def channel_steps(channels: Iterable[Channel]) -> list[Timed]:
    """Every session's steps, each with when it started and ended (see the module doc).

    A repeat of an identical listing (``tools/list`` … :data:`~.channel.LISTINGS`, same request
    and answer) in one session is left out: SDKs repeat them a varying number of times.
    """
    out: list[Timed] = []
    numbered = _numbered(list(channels))
    # sessions to one server (same key): which was opened first, so replay matches them in order
    same: dict[tuple[str, ...], list[Channel]] = {}
    for channel in numbered:
        same.setdefault(server_key(channel.server.described), []).append(channel)
    opened = {
        id(c): rank
        for group in same.values()
        if len(group) > 1
        for rank, c in enumerate(sorted(group, key=lambda c: (c.replay_opened, c.seq)))
    }
    for number, channel in enumerate(numbered):
        label = channel.label
        connect = {
            "type": "mcp",
            "method": "connect",
            "server": label,
            "session": number,
            "transport": dict(channel.server.described),
        }
        if id(channel) in opened:
            connect["opened"] = opened[id(channel)]
        if channel.connect_drift:
            connect["request_drift"] = channel.connect_drift
        out.append(
            (channel.started, channel.started, channel.seq, connect, channel.replay_connect_step)
        )
        listed: set[str] = set()
        for call in channel.calls:
            if call.method in LISTINGS:
                seen = json.dumps(
                    [call.method, call.params, call.result, call.error], sort_keys=True, default=str
                )
                if seen in listed:
                    continue
                listed.add(seen)
            ended = call.ended if call.ended is not None else call.started
            out.append(
                (call.started, ended, call.seq, _step(call, label, number), call.replay_step)
            )
    return out


def _tool_of(step: Mapping[str, Any]) -> str:
    name = str(step.get("name") or "")
    return name.rsplit(".", 1)[-1] if name.startswith("mcp:") else name


def _answers(derived_name: str, tool: str) -> bool:
    """Whether the model's tool ``derived_name`` is MCP tool ``tool`` (a framework may prefix it)."""
    if derived_name == tool:
        return True
    return derived_name.endswith(tool) and derived_name[: -len(tool)][-1:] in (
        "_",
        ".",
        "-",
        ":",
        "/",
    )


def _content(item: Timed) -> tuple[str, str, str]:
    step = item[3]
    return (
        str(step.get("server")),
        str(step.get("name") or step.get("method")),
        json.dumps(
            step.get("args", (step.get("exchange") or {}).get("request")),
            sort_keys=True,
            default=str,
        ),
    )


def _concurrent(group: list[Timed], spans: Mapping[object, tuple[float, float]]) -> bool:
    """Whether ``group`` holds steps of two sessions that were open at the same time."""
    open_ = sorted(spans[n] for n in {c[3].get("session") for c in group})
    return any(later[0] < earlier[1] for earlier, later in itertools.pairwise(open_))


def _arranged(
    group: list[Timed], spans: Mapping[object, tuple[float, float]] | None = None
) -> list[dict[str, Any]]:
    """``group`` in start order; items that overlapped in time ordered by content, and the steps
    of sessions that were open at once session by session (each session's in start order). In
    replay (each item knows the golden's step it was served from) in the golden's order: replay
    answers at once, so calls that overlapped when recorded no longer do."""
    if group and all(c[4] is not None for c in group):
        return [c[3] for c in sorted(group, key=lambda c: (c[4], c[2]))]
    if spans and _concurrent(group, spans):
        return [c[3] for c in sorted(group, key=lambda c: (c[3].get("session"), c[0], c[2]))]
    group = sorted(group, key=lambda c: (c[0], c[2]))
    out: list[dict[str, Any]] = []
    cluster: list[Timed] = []
    reach = float("-inf")
    for item in group:
        if cluster and item[0] >= reach:
            out += [c[3] for c in sorted(cluster, key=_content)]
            cluster = []
        cluster.append(item)
        reach = max(reach, item[1])
    out += [c[3] for c in sorted(cluster, key=_content)]
    return out


def with_mcp_steps(
    steps: list[dict[str, Any]], ends: Mapping[int, float], items: list[Timed]
) -> list[dict[str, Any]]:
    """``steps`` (the trace without MCP) with the MCP ``items`` merged in (see the module doc).

    ``ends``: ``id(step)`` → when its exchange ended, for the exchange steps of ``steps``.
    """
    if not items:
        return steps
    steps = list(steps)
    rest: list[Timed] = []
    taken: set[int] = set()
    for item in sorted(items, key=lambda c: (c[0], c[2])):
        step = item[3]
        if step.get("type") == "tool_call":
            tool = _tool_of(step)
            candidates = [
                i
                for i, s in enumerate(steps)
                if i not in taken
                and s.get("type") == "tool_call"
                and s.get("derived") is True
                and _answers(str(s.get("name") or ""), tool)
            ]
            # the call with the same arguments first (parallel calls of one tool), else the next
            at = next(
                (i for i in candidates if steps[i].get("args") == step.get("args")),
                candidates[0] if candidates else None,
            )
            if at is not None:
                taken.add(at)
                steps[at] = step
                continue
        rest.append(item)
    exchange_at = [i for i, s in enumerate(steps) if id(s) in ends]
    slots: dict[int, list[Timed]] = {}
    for item in rest:
        anchor = max((i for i in exchange_at if ends[id(steps[i])] <= item[0]), default=-1)
        following = next((i for i in exchange_at if i > anchor), len(steps))
        slots.setdefault(following if anchor >= 0 else 0, []).append(item)
    spans: dict[object, tuple[float, float]] = {}
    for item in items:
        number = item[3].get("session")
        first, last = spans.get(number, (item[0], item[1]))
        spans[number] = (min(first, item[0]), max(last, item[1]))
    out: list[dict[str, Any]] = []
    for i, s in enumerate(steps):
        out += _arranged(slots.pop(i, []), spans)
        out.append(s)
    out += _arranged(slots.pop(len(steps), []), spans)
    return _setup_first(out, [steps[i] for i in sorted(taken)], {id(c[3]): c[0] for c in items})


def _setup_first(
    out: list[dict[str, Any]], merged: list[dict[str, Any]], started: Mapping[int, float]
) -> list[dict[str, Any]]:
    """A session opened to run a tool call the model asked for (langchain-mcp-adapters opens one
    per call): its ``connect`` / ``initialize`` steps, placed by time after the call's step, go
    just before it, in the order they were."""
    for tool in merged:
        at = next(i for i, s in enumerate(out) if s is tool)
        moved: list[dict[str, Any]] = []
        j = at + 1
        while j < len(out) and out[j].get("type") not in ("llm_call", "http"):
            step = out[j]
            if (
                step.get("type") == "mcp"
                and step.get("session") == tool.get("session")
                and started.get(id(step), float("inf")) < started[id(tool)]
            ):
                moved.append(out.pop(j))
            else:
                j += 1
        out[at:at] = moved
    return out
