"""Render report entries as one self-contained HTML page (Jinja2, autoescaped).

Everything a model, a tool or a user wrote reaches the page only through
Jinja2 expressions with autoescaping on: this module builds plain data (no
markup), and the templates in ``templates/`` turn it into HTML. The page
fetches nothing: its CSS and JavaScript are inlined, and a Content Security
Policy allows only that one script (by its sha256) and no network access.

The view of one snapshot:

* **timeline** — the golden and the new trace side by side, one row per step
  pair. Tool calls are paired as the structural check paired them (its
  Levenshtein edit script: ``insert``, ``delete``, ``replace``, and aligned
  calls, which are ``changed`` when their arguments differ); LLM calls are
  paired by position, ``changed`` when their request, response or requested
  tools differ.
* **model-requested tools** — the two sequences with the edit operations, and
  the argument changes of aligned requests.
* **final output** — both texts with word-level differences (difflib), the
  score, threshold, backend and hints.

Each registered check (:mod:`agentsnap.diff.checks`) contributes its part of a
snapshot's view through ``Check.html``: the built-in ones fill the blocks above
(computing their sections from the two traces when an entry has no report), a
check registered by a user adds an "Other checks" block with its summary.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import jinja2
from markupsafe import Markup

from ..diff.checks import HtmlPage, registered_checks
from ..diff.checks._values import change_view as _change_view
from ..diff.checks._values import format_value, word_diff
from ..diff.checks._values import pct as _pct
from ..diff.checks.structural import tools_section
from ._entries import STATES

__all__ = ["format_value", "render", "timeline", "word_diff"]

_ARG_KEY = re.compile(r'^args(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\])')
_STATE_LABEL = {
    "failed": "failed",
    "pending": "pending",
    "new": "new",
    "recorded": "recorded",
    "passed": "passed",
}
_OP_LABEL = {
    "same": "same",
    "changed": "changed",
    "replace": "replaced",
    "insert": "inserted",
    "delete": "deleted",
    "moved": "moved",
    "other": "not compared",
}
_OP_SYMBOL = {
    "same": "=",
    "changed": "≠",
    "replace": "⇄",
    "insert": "+",
    "delete": "−",
    "moved": "↕",
    "other": "·",
}


# ----------------------------------------------------------------------------- timeline


def _arg_key(path: str) -> str | None:
    """The top-level argument key a change path starts with (``args.city`` → ``city``)."""
    match = _ARG_KEY.match(path or "")
    if not match:
        return None
    if match.group(1):
        return match.group(1)
    if match.group(2):
        try:
            return str(json.loads(match.group(2)))
        except ValueError:
            return match.group(2)[1:-1]
    return match.group(3)


def _args_view(args: Any, changed_keys: set[str]) -> list[dict[str, Any]]:
    if isinstance(args, Mapping):
        return [
            {"key": str(k), "value": format_value(v), "changed": str(k) in changed_keys}
            for k, v in sorted(args.items(), key=lambda kv: str(kv[0]))
        ]
    if args is None:
        return []
    return [{"key": "", "value": format_value(args), "changed": bool(changed_keys)}]


def _card(
    step: Mapping[str, Any] | None,
    changes: Sequence[Mapping[str, Any]] = (),
    request_changes: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any] | None:
    """What one step's box shows; ``changes``: the argument changes that concern it."""
    if step is None:
        return None
    kind = str(step.get("type") or "step")
    card: dict[str, Any] = {
        "type": kind,
        "step": step.get("step"),
        "title": "",
        "meta": "",
        "args": [],
        "result": None,
        "response": None,
        "asks": [],
    }
    if kind == "tool_call":
        keys = {k for k in (_arg_key(str(c.get("path"))) for c in changes) if k is not None}
        card["title"] = str(step.get("name") or "<unnamed>")
        card["args"] = _args_view(step.get("args"), keys)
        card["result"] = format_value(step.get("result"), 600) if "result" in step else None
    elif kind == "llm_call":
        card["title"] = str(step.get("model") or "LLM call")
        meta = [str(step[k]) for k in ("provider",) if step.get(k)]
        if step.get("stream"):
            meta.append("streamed")
        if isinstance(step.get("tokens"), int):
            meta.append(f"{step['tokens']} tokens")
        if step.get("status") not in (None, 200):
            meta.append(f"HTTP {step['status']}")
        card["meta"] = " · ".join(meta)
        response = step.get("response")
        card["response"] = format_value(response, 600) if response not in (None, "") else None
        by_request: dict[int, set[str]] = {}
        for change in changes:
            index = change.get("_request")
            key = _arg_key(str(change.get("path")))
            if isinstance(index, int) and key is not None:
                by_request.setdefault(index, set()).add(key)
        for index, request in enumerate(step.get("tool_requests") or []):
            if isinstance(request, Mapping):
                card["asks"].append(
                    {
                        "name": str(request.get("name") or "<unnamed>"),
                        "args": _args_view(request.get("args"), by_request.get(index, set())),
                        "changed": index in by_request,
                    }
                )
        card["request_changed"] = bool(request_changes)
    elif kind == "websocket":
        card["title"] = str(step.get("url") or "WebSocket")
        found = step.get("frames")
        frames: list[Any] = found if isinstance(found, list) else []
        dirs = [f.get("dir") for f in frames if isinstance(f, Mapping)]
        sent = step.get("sent", dirs.count("send"))
        received = step.get("received", dirs.count("recv"))
        meta = [str(step.get("api") or "websocket"), f"{sent} sent, {received} received"]
        close = step.get("close")
        if isinstance(close, Mapping):
            meta.append(
                f"closed by {close.get('by')}"
                + (f" ({close['code']})" if close.get("code") else "")
            )
        card["meta"] = " · ".join(meta)
        card["request_changed"] = bool(step.get("request_drift"))
    else:
        card["title"] = (
            " ".join(str(step.get(k)) for k in ("method", "path") if step.get(k)) or kind
        )
        card["meta"] = str(step.get("provider") or "")
    return card


def _index_by_step(trace: Sequence[Mapping[str, Any]]) -> dict[Any, int]:
    out: dict[Any, int] = {}
    for index, step in enumerate(trace):
        out.setdefault(step.get("step", index), index)
    return out


def timeline(
    golden: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    report: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The aligned rows of two slim snapshots (either may be None): ``{"op", "golden", "new", "changes"}``.

    ``op``: ``same``, ``changed``, ``replace``, ``insert``, ``delete``,
    ``moved`` (a pair whose order crosses another pair's) or ``other``
    (steps no check compares, such as ``http``).
    """
    g_trace = list((golden or {}).get("trace") or [])
    n_trace = list((new or {}).get("trace") or [])
    g_pos, n_pos = _index_by_step(g_trace), _index_by_step(n_trace)
    diffs = list((report or {}).get("changes") or [])
    semantic = (report or {}).get("semantic_scores") or {}
    tools, llm = tools_section(report, g_trace, n_trace)

    pairs: list[tuple[int, int, str, list[dict[str, Any]], list[dict[str, Any]]]] = []
    single: dict[tuple[str, int], str] = {}

    # tool calls, as the structural check aligned them
    g_steps, n_steps = tools.get("golden_steps") or [], tools.get("new_steps") or []
    for gi, ni in tools.get("aligned") or []:
        gs, ns = g_steps[gi], n_steps[ni]
        changes = [
            c
            for d in diffs
            if d.get("check") == "arguments"
            and d.get("golden_step") == gs
            and d.get("new_step") == ns
            for c in d.get("changes") or []
        ]
        if gs in g_pos and ns in n_pos:
            g_step, n_step = g_trace[g_pos[gs]], n_trace[n_pos[ns]]
            # an ignored argument or a new tool result is still a change on the page
            differs = bool(changes) or any(
                g_step.get(k) != n_step.get(k) for k in ("args", "result")
            )
            pairs.append((g_pos[gs], n_pos[ns], "changed" if differs else "same", changes, []))
    for op in tools.get("ops") or []:
        kind = op.get("op")
        gs, ns = op.get("golden_step"), op.get("new_step")
        if kind == "replace" and gs in g_pos and ns in n_pos:
            pairs.append((g_pos[gs], n_pos[ns], "replace", [], []))
        elif kind == "delete" and gs in g_pos:
            single[("g", g_pos[gs])] = "delete"
        elif kind == "insert" and ns in n_pos:
            single[("n", n_pos[ns])] = "insert"

    # llm calls, by position
    g_llm, n_llm = llm.get("golden_steps") or [], llm.get("new_steps") or []
    model_ops = (((report or {}).get("details") or {}).get("model_tools") or {}).get("ops") or []
    g_texts = {s.get("step", i): s for i, s in enumerate(g_trace)}
    n_texts = {s.get("step", i): s for i, s in enumerate(n_trace)}
    for i in range(min(len(g_llm), len(n_llm))):
        gs, ns = g_llm[i], n_llm[i]
        if gs not in g_pos or ns not in n_pos:
            continue
        requests = [
            c
            for d in diffs
            if d.get("check") == "llm_requests" and d.get("index") == i
            for c in d.get("changes") or []
        ]
        changes = []
        g_requests = [r for r in (g_texts[gs].get("tool_requests") or [])]
        for d in diffs:
            if d.get("check") == "model_tool_args" and d.get("golden_step") == gs:
                # which of this step's requests: count the same-named requests before it in the flattened sequence
                position = _request_position(d, g_llm, g_texts)
                changes.extend({**c, "_request": position} for c in d.get("changes") or [])
        differs = (
            bool(requests)
            or bool(changes)
            or any(o.get("golden_step") == gs or o.get("new_step") == ns for o in model_ops)
            or (semantic.get(f"llm_call[{i}]", 1.0) < 1.0)
            or g_texts[gs].get("response") != n_texts[ns].get("response")
            or _names(g_requests) != _names(n_texts[ns].get("tool_requests") or [])
        )
        pairs.append((g_pos[gs], n_pos[ns], "changed" if differs else "same", changes, requests))
    for gs in g_llm[len(n_llm) :]:
        if gs in g_pos:
            single[("g", g_pos[gs])] = "delete"
    for ns in n_llm[len(g_llm) :]:
        if ns in n_pos:
            single[("n", n_pos[ns])] = "insert"

    # Rows cannot cross: keep the tool pairs (the structural edit script), then each
    # LLM pair that crosses none of the kept pairs; a crossing LLM pair shows as two
    # "moved" steps, each naming the step it was compared with.
    kept: list[tuple[int, int, str, list[dict[str, Any]], list[dict[str, Any]]]] = []
    partner: dict[tuple[str, int], str] = {}
    for pair in pairs:  # tool pairs come first in ``pairs``
        if all((pair[0] - k[0]) * (pair[1] - k[1]) > 0 for k in kept):
            kept.append(pair)
        else:
            single[("g", pair[0])] = "moved"
            single[("n", pair[1])] = "moved"
            partner[("g", pair[0])] = (
                f"compared with step {n_trace[pair[1]].get('step', pair[1])} of this run"
            )
            partner[("n", pair[1])] = (
                f"compared with golden step {g_trace[pair[0]].get('step', pair[0])}"
            )
    kept.sort(key=lambda p: (p[0], p[1]))
    by_g = {p[0]: p for p in kept}
    paired_n = {p[1] for p in kept}

    rows: list[dict[str, Any]] = []

    def new_only(upto: int) -> None:
        nonlocal ni
        while ni < upto:
            if ni not in paired_n:
                rows.append(
                    {
                        "op": single.get(("n", ni), "other"),
                        "golden": None,
                        "new": _card(n_trace[ni]),
                        "changes": [],
                        "requests": [],
                        "note": partner.get(("n", ni)),
                    }
                )
            ni += 1

    ni = 0
    for gi, step in enumerate(g_trace):
        found = by_g.get(gi)
        if found is None:
            rows.append(
                {
                    "op": single.get(("g", gi), "other"),
                    "golden": _card(step),
                    "new": None,
                    "changes": [],
                    "requests": [],
                    "note": partner.get(("g", gi)),
                }
            )
            continue
        new_only(found[1])
        _, n_index, op, changes, requests = found
        tool_changes = changes if step.get("type") == "tool_call" else []
        rows.append(
            {
                "op": op,
                "golden": _card(step, changes, requests),
                "new": _card(n_trace[n_index], changes, requests),
                "changes": [_change_view(c) for c in (tool_changes or changes)],
                "requests": [_change_view(c) for c in requests],
                "note": None,
            }
        )
        ni = n_index + 1
    new_only(len(n_trace))
    for row in rows:
        row["label"] = _OP_LABEL.get(row["op"], row["op"])
        row["symbol"] = _OP_SYMBOL.get(row["op"], "·")
    return rows


def _names(requests: Sequence[Any]) -> list[str]:
    return [str(r.get("name")) if isinstance(r, Mapping) else "" for r in requests]


def _request_position(
    diff: Mapping[str, Any], g_llm: Sequence[Any], g_steps: Mapping[Any, Mapping[str, Any]]
) -> int | None:
    """The position, inside its llm_call step, of the golden request a model_tool_args diff is about."""
    index = diff.get("index")
    if not isinstance(index, int):
        return None
    flat = 0
    for step_no in g_llm:
        requests = g_steps.get(step_no, {}).get("tool_requests") or []
        if index < flat + len(requests):
            return index - flat if step_no == diff.get("golden_step") else None
        flat += len(requests)
    return None


# ----------------------------------------------------------------------------- one snapshot


def _commands(entry: Mapping[str, Any]) -> list[dict[str, str]]:
    import shlex

    name = shlex.quote(str(entry.get("name")))
    state = entry.get("state")
    if state == "failed" and entry.get("report") is not None:
        from ..diff.advice import fix_advice

        new = entry.get("new") or {}
        why, cmd = fix_advice(
            str(entry.get("name")),
            drifted=bool(new.get("request_drift")),
            test_failed=bool(new.get("test_failed")),
        )
        return [
            {"why": why, "cmd": cmd},
            {"why": "See the same comparison in the terminal:", "cmd": f"agentsnap diff {name}"},
        ]
    if state in ("pending", "new"):
        return [
            {
                "why": "Review the recording, then approve it so CI compares against it:",
                "cmd": f"agentsnap approve {name}",
            },
            {"why": "See the snapshot in full:", "cmd": f"agentsnap show {name}"},
        ]
    return []


def _model_name(snapshot: Mapping[str, Any] | None) -> str | None:
    model = (snapshot or {}).get("model")
    return None if model in (None, "", "unknown") else str(model)


def _view(entry: Mapping[str, Any], index: int) -> dict[str, Any]:
    report = entry.get("report") or None
    state = str(entry.get("state") or "")
    detailed = state in ("failed", "pending", "new") or bool(entry.get("force_section"))
    view: dict[str, Any] = {
        "anchor": f"snap-{index}",
        "name": str(entry.get("name") or ""),
        "state": state,
        "state_label": _STATE_LABEL.get(state, state),
        "action": entry.get("action"),
        "path": entry.get("path"),
        "error": entry.get("error"),
        "preview": bool(entry.get("preview")),
        "checks": list((report or {}).get("failed_checks") or []),
        "score": _pct((report or {}).get("score"))
        if report and (report.get("score") is not None)
        else "—",
        "score_value": float(report["score"])
        if report and isinstance(report.get("score"), (int, float))
        else None,
        "has_section": detailed,
    }
    view["would_fail"] = []
    if view["preview"]:
        view["would_fail"], view["checks"] = view["checks"], []
    if state == "failed" and not view["checks"]:
        if entry.get("action") == "skipped":
            view["checks"] = ["test failed (not compared)"]
        elif entry.get("error"):
            view["checks"] = ["error"]
    if not detailed:
        return view
    golden, new = entry.get("golden"), entry.get("new")
    view.update(
        {
            "timeline": timeline(golden, new, report) if (golden or new) else [],
            "two_sided": golden is not None and new is not None,
            "commands": _commands(entry),
            "golden_model": _model_name(golden),
            "new_model": _model_name(new),
            "golden_approved": (golden or {}).get("approved"),
            "check_sections": [],
        }
    )
    # each check's part of the section: the built-in ones fill the page's own blocks
    # (structural, model_tools, semantic, output, backend); others add a generic section
    page = HtmlPage(entry, report, golden, new, tuple(view["checks"]))
    for check in registered_checks():
        part = check.html(page)
        view.update(part.view)
        if part.section is not None:
            view["check_sections"].append(part.section)
    return view


# ----------------------------------------------------------------------------- the page


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("agentsnap.html_report", "templates"),
        autoescape=True,  # every template, whatever its name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["pct"] = _pct
    return env


_ORDER = {state: i for i, state in enumerate(STATES)}


def render(entries: list[Mapping[str, Any]], *, meta: Mapping[str, Any] | None = None) -> str:
    """The whole page for ``entries`` (report entries, see :mod:`agentsnap.html_report._entries`).

    ``meta`` (all optional): ``title``, ``generated_at`` (ISO string),
    ``mode``, ``ci`` (bool), ``version``, ``command``, ``rootdir``.
    Snapshots are listed by state (failed, pending, new, recorded, passed),
    then by name.
    """
    meta = {
        "mode": None,
        "ci": False,
        "version": "",
        "command": None,
        "rootdir": None,
        "title": None,
        **dict(meta or {}),
    }
    ordered = sorted(
        entries, key=lambda e: (_ORDER.get(str(e.get("state")), len(_ORDER)), str(e.get("name")))
    )
    views = [_view(entry, i) for i, entry in enumerate(ordered, start=1)]
    counts = {state: sum(1 for v in views if v["state"] == state) for state in STATES}
    env = _environment()
    assert env.loader is not None
    script = env.loader.get_source(env, "report.js")[0]
    css = env.loader.get_source(env, "report.css")[0]
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    generated = (
        meta.get("generated_at") or datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    )
    if not meta.get("version"):
        try:
            from .._version import __version__ as version
        except Exception:
            version = ""
        meta["version"] = version
    return env.get_template("report.html.j2").render(
        title=meta.get("title") or "agentsnap report",
        meta=meta,
        generated_at=generated,
        snapshots=views,
        sections=[v for v in views if v["has_section"]],
        counts=counts,
        states=STATES,
        script=Markup(script),  # our own files, not data
        css=Markup(css),
        script_hash=f"sha256-{digest}",
    )
