"""A snapshot as text a reviewer reads (``agentsnap show``, ``agentsnap diff FILE.json``).

:func:`snapshot_lines` returns ``(text, style)`` pairs: metadata lines, then
one block per trace step. Nothing is shortened — this is the full record —
and multi-line values are indented under their label.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..storage.snapshot import Snapshot
from ._output import age

__all__ = ["snapshot_lines", "value_text"]

Line = tuple[str, "str | None"]


def value_text(value: object) -> str:
    """A stored value as text: strings as they are, everything else as JSON."""
    if isinstance(value, str):
        return value if value else '""'
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _field(label: str, value: object, indent: int, style: str | None = None) -> list[Line]:
    pad = " " * indent
    text = value_text(value)
    first, *rest = text.split("\n")
    lines: list[Line] = [(f"{pad}{label}: {first}", style)]
    cont = " " * (indent + len(label) + 2)
    lines.extend((f"{cont}{more}", style) for more in rest)
    return lines


def _blobs_cut(value: object) -> object:
    """``value`` with the base64 ``data`` of image and audio blocks (an MCP tool's content) shown
    by its length: the snapshot file holds it whole."""
    if isinstance(value, list):
        return [_blobs_cut(v) for v in value]
    if isinstance(value, dict):
        data = value.get("data")
        if value.get("type") in ("image", "audio") and isinstance(data, str) and len(data) > 80:
            return {**value, "data": f"<{len(data)} characters of base64>"}
        return {k: _blobs_cut(v) for k, v in value.items()}
    return value


def _meta(label: str, value: str) -> Line:
    return (f"{label:<9} {value}", None)


def snapshot_lines(snap: Snapshot, path: Path | None = None) -> list[Line]:
    """Every line of the report of ``snap`` (read from ``path``, shown when given)."""
    state = "approved" if snap.approved else "pending"
    kinds = Counter(str(s.get("type", "?")) for s in snap.trace)
    counted = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    lines: list[Line] = [("name      " + snap.name, "bold")]
    if path is not None:
        lines.append(_meta("file", str(path)))
    lines += [
        (f"{'state':<9} {state}", "green" if snap.approved else "yellow"),
        _meta("source", snap.source),
        _meta("model", snap.model),
        _meta("steps", f"{len(snap.trace)}" + (f" ({counted})" if counted else "")),
        _meta("created", snap.created_at),
        _meta("updated", f"{snap.updated_at} ({age(snap.updated_at)} ago)"),
        _meta("recorded", snap.recorded_at),
        _meta(
            "version",
            f"format {snap.version}"
            + (f", agentsnap {snap.agentsnap_version}" if snap.agentsnap_version else ""),
        ),
    ]
    for label, value in (("input", snap.input), ("output", snap.output)):
        first, *rest = value_text(value).split("\n")
        lines.append(_meta(label, first))
        lines.extend((" " * 10 + more, None) for more in rest)
    lines.append(("", None))
    lines.append(("trace" if snap.trace else "trace     (no steps)", "bold"))
    for i, step in enumerate(snap.trace):
        lines.extend(_step_lines(step, i))
    return lines


def _step_lines(step: dict[str, Any], position: int) -> list[Line]:
    number = step.get("step", position)
    kind = step.get("type")
    head = f"  [{number}] {kind}"
    body: list[Line] = []
    if kind == "llm_call":
        details = [str(step.get("provider") or "?")]
        if step.get("status") is not None:
            details.append(f"status {step['status']}")
        if step.get("tokens") is not None:
            details.append(f"{step['tokens']} tokens")
        if step.get("stream"):
            details.append("streamed" + ("" if step.get("complete", True) else ", incomplete"))
        head += f" {step.get('model') or '?'} ({', '.join(details)})"
        messages = step.get("messages")
        if isinstance(messages, list):
            body.append((f"      messages: {len(messages)}", "dim"))
        if step.get("tools"):
            body.append((f"      tools offered: {', '.join(str(t) for t in step['tools'])}", "dim"))
        body += _field("response", step.get("response", ""), 6)
        requests = step.get("tool_requests") or []
        if requests:
            body.append(("      tool_requests:", None))
            for req in requests:
                ident = f" (id {req.get('id')})" if req.get("id") else ""
                body += _field(f"- {req.get('name')}", req.get("args"), 8)
                if ident:
                    body[-1] = (body[-1][0] + ident, body[-1][1])
        for key in ("error", "warnings", "request_drift"):
            if step.get(key):
                body += _field(key, step[key], 6, "red" if key == "error" else "yellow")
    elif kind == "tool_call":
        head += f" {step.get('name')}" + (f" (id {step['id']})" if step.get("id") else "")
        if step.get("is_error"):
            head += " (the tool reported an error)"
        body += _field("args", step.get("args"), 6)
        body += _field("result", _blobs_cut(step.get("result")), 6)
        if step.get("error"):
            body += _field("error", step["error"], 6, "red")
    elif kind == "http":
        head += (
            f" {step.get('method') or '?'} {step.get('path') or '?'} (status {step.get('status')})"
        )
    elif kind == "mcp":
        head += f" {step.get('server') or '?'} {step.get('method') or '?'} (session {step.get('session')})"
        if step.get("transport"):
            body += _field("transport", step["transport"], 6)
        if step.get("request_drift"):
            body += _field("request_drift", step["request_drift"], 6, "yellow")
    elif kind == "websocket":
        head += f" {step.get('url') or '?'} (connection {step.get('connection')}"
        head += f", {step['api']})" if step.get("api") else ")"
        for frame in step.get("frames") or []:
            if not isinstance(frame, dict):
                continue
            arrow = "→" if frame.get("dir") == "send" else "←"
            value = frame.get("json", frame.get("text", frame.get("binary")))
            shown = _blobs_cut(value)
            kind_of = shown.get("type") if isinstance(shown, dict) else None
            label = f"{arrow} {kind_of}" if isinstance(kind_of, str) else arrow
            body += _field(label, shown, 6)
        if step.get("close"):
            body += _field("close", step["close"], 6)
        if step.get("request_drift"):
            body += _field("request_drift", step["request_drift"], 6, "yellow")
    else:
        rest = {k: v for k, v in step.items() if k not in ("step", "type", "exchange")}
        body += _field("data", rest, 6)
    return [(head, "bold cyan"), *body]


def side_by_side(
    left: str, right: str, *, width: int, titles: tuple[str, str] = ("golden", "last run")
) -> list[str]:
    """Two texts in two columns (wrapped to fit ``width`` characters), for ``agentsnap diff``.

    Rows whose two sides differ are marked with ``≠`` in the gutter; equal
    rows with ``│``. Paragraph breaks are kept.
    """
    import textwrap
    from itertools import zip_longest

    col = max(20, (width - 3) // 2)

    def wrap(text: str) -> list[str]:
        out: list[str] = []
        for para in str(text).splitlines() or [""]:
            out.extend(textwrap.wrap(para, col) or [""])
        return out

    rows = [f"{titles[0]:<{col}} │ {titles[1]}", "─" * col + "─┼─" + "─" * col]
    for a, b in zip_longest(wrap(left), wrap(right), fillvalue=""):
        rows.append(f"{a:<{col}} {'│' if a == b else '≠'} {b}".rstrip())
    return rows
