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
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import jinja2
from markupsafe import Markup

from ..diff.report import check_key
from ._entries import STATES

__all__ = ["format_value", "render", "timeline", "word_diff"]

_VALUE_LIMIT = 400
_WORD = re.compile(r"\s+|\d+(?:[.,:/]\d+)*|\w+|[^\w\s]")
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


# ----------------------------------------------------------------------------- values


def format_value(value: Any, limit: int = _VALUE_LIMIT) -> str:
    """A JSON value as one readable line: strings quoted, objects compact; cut with ``…``."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _text(value: Any) -> str:
    """A final output as text (as the semantic layer sees it): strings as is, others as sorted JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)
    except (TypeError, ValueError):
        return repr(value)


def _pct(score: Any) -> str:
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        return "—"
    value = float(score) * 100.0
    if abs(value - round(value)) < 1e-6:
        return f"{round(value):d}%"
    return f"{int(value * 10) / 10:.1f}%"


def word_diff(golden: str, new: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Word-level differences of two texts, for marking.

    Returns ``(golden_parts, new_parts)``, each a list of ``(kind, text)``
    whose texts join to the input: ``kind`` is ``"eq"``, ``"del"`` (only in
    the golden) or ``"ins"`` (only in the new text). Words, runs of
    whitespace and single punctuation marks are the units (difflib's
    SequenceMatcher, no junk heuristic).
    """
    a, b = _WORD.findall(golden), _WORD.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []

    def add(parts: list[tuple[str, str]], kind: str, text: str) -> None:
        if not text:
            return
        if parts and parts[-1][0] == kind:
            parts[-1] = (kind, parts[-1][1] + text)
        else:
            parts.append((kind, text))

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            add(left, "eq", "".join(a[i1:i2]))
            add(right, "eq", "".join(b[j1:j2]))
        else:
            add(left, "del", "".join(a[i1:i2]))
            add(right, "ins", "".join(b[j1:j2]))
    return left, right


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


def _change_view(change: Mapping[str, Any]) -> dict[str, Any]:
    kind = str(change.get("kind") or "changed")
    return {
        "path": str(change.get("path") or ""),
        "kind": kind,
        "old": "(absent)" if kind == "added" else format_value(change.get("old")),
        "new": "(absent)" if kind == "removed" else format_value(change.get("new")),
        "old_absent": kind == "added",
        "new_absent": kind == "removed",
    }


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


def _structure(
    golden_trace: Sequence[Mapping[str, Any]],
    new_trace: Sequence[Mapping[str, Any]],
    report: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``tools`` and ``llm_calls`` sections: the report's, else computed the same way."""
    sd = (report or {}).get("details") or {}
    tools, llm = sd.get("tools"), sd.get("llm_calls")
    if not tools or "golden_steps" not in tools:
        from ..diff.structural import sequence_diff, tool_calls

        tools = sequence_diff(tool_calls(list(golden_trace)), tool_calls(list(new_trace)))
    if not llm or "golden_steps" not in llm:
        from ..diff.structural import llm_calls

        llm = {
            "golden_steps": [no for no, _ in llm_calls(list(golden_trace))],
            "new_steps": [no for no, _ in llm_calls(list(new_trace))],
        }
    return tools, llm


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
    tools, llm = _structure(g_trace, n_trace, report)

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
            pairs.append((g_pos[gs], n_pos[ns], "changed" if changes else "same", changes, []))
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


def _model_tools(
    report: Mapping[str, Any] | None,
    golden: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
) -> dict[str, Any] | None:
    section = ((report or {}).get("details") or {}).get("model_tools")
    if section is None:
        if not golden and not new:
            return None
        from ..diff.structural import requested_tools, sequence_diff

        g_req = requested_tools(list((golden or {}).get("trace") or [])) or []
        n_req = requested_tools(list((new or {}).get("trace") or [])) or []
        section = {**sequence_diff(g_req, n_req), "compared": True, "skipped_reason": None}
    golden_names, new_names = list(section.get("golden") or []), list(section.get("new") or [])
    g_marks = ["same"] * len(golden_names)
    n_marks = ["same"] * len(new_names)
    for op in section.get("ops") or []:
        kind = op.get("op")
        if (
            kind in ("replace", "delete")
            and isinstance(op.get("golden_index"), int)
            and op["golden_index"] < len(g_marks)
        ):
            g_marks[op["golden_index"]] = kind
        if (
            kind in ("replace", "insert")
            and isinstance(op.get("new_index"), int)
            and op["new_index"] < len(n_marks)
        ):
            n_marks[op["new_index"]] = kind
    changed_args = {
        d.get("index")
        for d in (report or {}).get("changes") or []
        if d.get("check") == "model_tool_args"
    }
    aligned = {gi: ni for gi, ni in section.get("aligned") or []}
    for gi in changed_args:
        if isinstance(gi, int) and gi < len(g_marks):
            g_marks[gi] = "changed"
            ni = aligned.get(gi)
            if isinstance(ni, int) and ni < len(n_marks):
                n_marks[ni] = "changed"
    entries = [
        {
            "index": d.get("index"),
            "tool": d.get("tool"),
            "golden_step": d.get("golden_step"),
            "new_step": d.get("new_step"),
            "changes": [_change_view(c) for c in d.get("changes") or []],
        }
        for d in (report or {}).get("changes") or []
        if d.get("check") == "model_tool_args"
    ]
    return {
        "compared": section.get("compared", True) is not False,
        "skipped_reason": section.get("skipped_reason"),
        "golden": [{"name": n, "op": m} for n, m in zip(golden_names, g_marks, strict=False)],
        "new": [{"name": n, "op": m} for n, m in zip(new_names, n_marks, strict=False)],
        "distance": section.get("distance", 0),
        "tolerance": section.get("tolerance", 0),
        "entries": entries,
    }


def _semantic(report: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    if not report:
        return []
    details = ((report.get("details") or {}).get("semantic")) or {}
    failed = {check_key(c) for c in report.get("failed_checks") or []}
    rows = []
    for key, score in (report.get("semantic_scores") or {}).items():
        info = details.get(key) or {}
        hint_messages = {h.get("message") for h in info.get("hints") or []}
        findings = [_finding(f) for f in info.get("findings") or [] if isinstance(f, Mapping)]
        finding_messages = {f["message"] for f in findings}
        reasons = [
            r for r in (report.get("reasons") or {}).get(key) or [] if r not in finding_messages
        ]
        rows.append(
            {
                "check": key,
                "score": _pct(score),
                "score_value": max(0.0, min(1.0, float(score)))
                if isinstance(score, (int, float))
                else 0.0,
                "threshold": _pct(info.get("threshold"))
                if info.get("threshold") is not None
                else "—",
                "backend": info.get("backend") or report.get("backend") or "",
                "passed": key not in failed,
                "failed_by": info.get("failed_by"),
                "hints": [r for r in reasons if r in hint_messages],
                "reasons": [r for r in reasons if r not in hint_messages],
                "verdict": info.get("verdict") or "",
                "findings": sorted(findings, key=lambda f: _SEVERITY_ORDER.get(f["severity"], 3)),
            }
        )
    return rows


#: label shown for a finding of the meaning check, by severity (as in the text report)
_FINDING_LABELS = {"harmful": "changed", "soft": "differs", "harmless": "harmless"}
_SEVERITY_ORDER = {"harmful": 0, "soft": 1, "harmless": 2}


def _finding(raw: Mapping[str, Any]) -> dict[str, Any]:
    """One finding for the page: its label, what changed, and the golden / new sentences."""
    message = str(raw.get("message") or "")
    what = message.split(": golden: ", 1)[0] if ": golden: " in message else message
    severity = str(raw.get("severity") or "")
    return {
        "severity": severity,
        "label": _FINDING_LABELS.get(severity, "note"),
        "what": what,
        "golden": str(raw.get("golden") or ""),
        "new": str(raw.get("new") or ""),
        "message": message,
    }


def _backend_line(report: Mapping[str, Any] | None) -> str:
    if not report:
        return ""
    info = report.get("semantic_backend") or {}
    parts = [str(report.get("backend") or "exact")]
    if info.get("model"):
        parts.append(str(info["model"]))
    if info.get("method"):
        parts.append(str(info["method"]))
    if info.get("model_sha256"):
        parts.append(f"sha256 {str(info['model_sha256'])[:12]}")
    return " · ".join(parts)


def _output(entry: Mapping[str, Any], semantic: list[dict[str, Any]]) -> dict[str, Any] | None:
    golden, new = entry.get("golden"), entry.get("new")
    if new is None and golden is None:
        return None
    if golden is None or new is None:
        only = new if new is not None else golden
        return {"single": True, "text": _text((only or {}).get("output"))}
    g_text, n_text = _text(golden.get("output")), _text(new.get("output"))
    left, right = word_diff(g_text, n_text)
    check = next((row for row in semantic if row["check"] == "output"), None)
    return {
        "single": False,
        "golden": left,
        "new": right,
        "identical": g_text == n_text,
        "check": check,
    }


def _commands(entry: Mapping[str, Any]) -> list[dict[str, str]]:
    import shlex

    name = shlex.quote(str(entry.get("name")))
    state = entry.get("state")
    if state == "failed" and entry.get("report") is not None:
        return [
            {
                "why": "If the change is intended, make the last run the golden:",
                "cmd": f"agentsnap update {name}",
            },
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
    semantic = _semantic(report)
    sd = (report or {}).get("details") or {}
    llm = sd.get("llm_calls") or {}
    tools = sd.get("tools") or {}
    view.update(
        {
            "timeline": timeline(golden, new, report) if (golden or new) else [],
            "two_sided": golden is not None and new is not None,
            "model_tools": _model_tools(report, golden, new) if (golden and new) else None,
            "semantic": semantic,
            "output": _output(entry, semantic),
            "backend": _backend_line(report),
            "commands": _commands(entry),
            "structural": {
                "distance": tools.get("distance"),
                "tolerance": tools.get("tolerance"),
                "passed": "structural" not in view["checks"],
            }
            if tools
            else None,
            "llm_count": (llm.get("golden"), llm.get("new"))
            if llm and llm.get("golden") != llm.get("new")
            else None,
            "golden_model": _model_name(golden),
            "new_model": _model_name(new),
            "golden_approved": (golden or {}).get("approved"),
        }
    )
    return view


# ----------------------------------------------------------------------------- the page


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("agentsnap.report", "templates"),
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
    """The whole page for ``entries`` (report entries, see :mod:`agentsnap.report._entries`).

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
