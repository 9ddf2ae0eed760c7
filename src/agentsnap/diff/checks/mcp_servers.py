"""The ``mcp`` check: what the agent's MCP servers offered and answered.

* ``mcp_tools``: per server, the tools its ``tools/list`` answers offered
  (name, description, input and output schema; the last listing of a tool
  counts): a tool added, removed or changed is a drift — the model sees another
  tool — with the JSON paths that changed.
* ``mcp_results``: the MCP tool calls (``tool_call`` steps named
  ``mcp:<server>.<tool>``), paired in order per name: a changed ``result`` or
  ``is_error`` (the tool failed where it worked, or the reverse). In replay the
  results are the golden's, so this speaks in live and record runs.
* ``mcp_resources``: the ``resources/read`` answers, paired in order per server
  and URI: changed contents (or error). Live and record runs, like ``mcp_results``.

A result or a resource text holding JSON is compared as JSON, so a change is
shown at its own path (``result.issued_at``) and ``ignored_fields`` reach into
it: anchored at the tool's result, or at the read's result (``contents[0].text.
generated_at``); a bare key matches at any depth.

* ``mcp_requests`` (replay): a request the agent sent an MCP server differs from
  the recording served in its place (the step's ``request_drift``): another
  resource or prompt, another server command or URL (the ``connect`` step),
  another reply to a server's sampling or elicitation request. A tool call's
  own arguments are the ``arguments`` check's; the SDK's handshake
  (``initialize``, ``server/discover``, ``ping``) is not the agent's request and
  is left out.

Compared only when both snapshots hold MCP steps (a golden recorded without
MCP sessions, or a new run without any, is skipped with the reason).
Arguments and order are the ``structural`` and ``arguments`` checks' (an MCP
tool call is an ordinary ``tool_call`` step).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...jsondiff import IgnoreRule, diff_values, json_text
from ._api import Check, CheckContext, HtmlPage, HtmlPart, HtmlSection, ReportDraft, TextView

__all__ = ["McpCheck", "McpResult", "mcp_tools"]


_NO_MCP = "no MCP traffic on either side"


def _is_mcp(step: Mapping[str, Any]) -> bool:
    return step.get("type") == "mcp" or (
        step.get("type") == "tool_call" and isinstance(step.get("session"), int)
    )


def mcp_tools(steps: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``{"server.tool": definition}`` from every ``tools/list`` answer in ``steps``."""
    out: dict[str, dict[str, Any]] = {}
    for step in steps:
        if step.get("type") != "mcp" or step.get("method") != "tools/list":
            continue
        body = ((step.get("exchange") or {}).get("response") or {}).get("body") or {}
        for tool in (body.get("result") or {}).get("tools") or []:
            if isinstance(tool, Mapping) and isinstance(tool.get("name"), str):
                out[f"{step.get('server')}.{tool['name']}"] = dict(tool)
    return out


def _calls(steps: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[int, Mapping[str, Any]]]]:
    out: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for index, step in enumerate(steps):
        if step.get("type") == "tool_call" and isinstance(step.get("session"), int):
            out.setdefault(str(step.get("name")), []).append((step.get("step", index), step))
    return out


def _reads(
    steps: Sequence[Mapping[str, Any]],
) -> dict[tuple[str, str], list[tuple[int, Mapping[str, Any]]]]:
    """The ``resources/read`` steps, per ``(server, uri)``, in order, with their step numbers."""
    out: dict[tuple[str, str], list[tuple[int, Mapping[str, Any]]]] = {}
    for index, step in enumerate(steps):
        if step.get("type") != "mcp" or step.get("method") != "resources/read":
            continue
        request = (step.get("exchange") or {}).get("request") or {}
        body = request.get("body") if isinstance(request, Mapping) else None
        uri = body.get("uri") if isinstance(body, Mapping) else None
        out.setdefault((str(step.get("server")), str(uri)), []).append(
            (step.get("step", index), step)
        )
    return out


def _read_answer(step: Mapping[str, Any]) -> Any:
    """What a ``resources/read`` step's server answered, as compared: the result, each
    content's ``text`` read as JSON when it is (:func:`~agentsnap.jsondiff.json_text`); or
    ``{"error": …}``."""
    response = (step.get("exchange") or {}).get("response") or {}
    body = response.get("body") if isinstance(response, Mapping) else None
    if not isinstance(body, Mapping):
        return body
    if "result" not in body:
        return {"error": body.get("error")}
    result = body["result"]
    contents = result.get("contents") if isinstance(result, Mapping) else None
    if not isinstance(contents, list):
        return result
    read = [
        {**item, "text": json_text(item["text"])}
        if isinstance(item, Mapping) and "text" in item
        else item
        for item in contents
    ]
    return {**result, "contents": read}


def _result_changes(
    golden: Mapping[str, Any], new: Mapping[str, Any], rules: tuple[IgnoreRule, ...], strict: bool
) -> list[dict[str, Any]]:
    """How an MCP tool call's ``is_error`` and ``result`` changed (the result read as JSON when
    it is; ``rules`` anchored at the result)."""
    changes = []
    failed = (bool(golden.get("is_error")), bool(new.get("is_error")))
    if failed[0] != failed[1]:
        changes.append({"path": "is_error", "old": failed[0], "new": failed[1], "kind": "changed"})
    return changes + diff_values(
        json_text(golden.get("result")),
        json_text(new.get("result")),
        root="result",
        ignored_fields=rules,
        strict=strict,
    )


#: requests the client's SDK makes on its own: their drift is not the agent's
_HANDSHAKE = ("initialize", "server/discover", "ping")


def _request_drift(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One entry per MCP step whose request differs from the recording served for it."""
    out = []
    for index, step in enumerate(steps):
        drift = step.get("request_drift") or []
        if step.get("type") == "tool_call":
            drift = [d for d in drift if not str(d).startswith("arguments")]
        elif step.get("method") in _HANDSHAKE:
            continue
        if drift:
            out.append(
                {
                    "what": str(step.get("name"))
                    if step.get("type") == "tool_call"
                    else f"{step.get('server')} {step.get('method')}",
                    "new_step": step.get("step", index),
                    "drift": [str(d) for d in drift],
                }
            )
    return out


@dataclass
class McpResult:
    """``compared``: both sides hold MCP steps (else ``skipped_reason``); ``tools``: one entry
    per tool added, removed or changed; ``results``: one per MCP tool call whose result changed;
    ``resources``: one per resource read whose answer changed."""

    compared: bool
    skipped_reason: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    servers: int = 0
    sessions: int = 0
    calls: int = 0
    reads: int = 0

    @property
    def passed(self) -> bool:
        return not (self.tools or self.results or self.requests or self.resources)


class McpCheck(Check[McpResult]):
    """``mcp_tools``: the tools each MCP server listed; ``mcp_results``: each MCP tool
    call's result and ``is_error``; ``mcp_resources``: each resource read's answer (see the
    module doc)."""

    name = "mcp"
    title = "[MCP]"
    fails_as = ("mcp_tools", "mcp_results", "mcp_resources", "mcp_requests")

    def run(self, ctx: CheckContext) -> McpResult:
        golden = [s for s in ctx.golden_steps if _is_mcp(s)]
        new = [s for s in ctx.new_steps if _is_mcp(s)]
        if not golden and not new:
            return McpResult(False, _NO_MCP)
        if not golden or not new:
            side = "golden" if not golden else "new"
            return McpResult(
                False,
                f"the {side} snapshot holds no MCP traffic"
                + (
                    " (recorded before agentsnap captured MCP? re-record it)"
                    if side == "golden"
                    else ""
                ),
            )
        result = McpResult(
            True,
            servers=len({s.get("server") for s in new}),
            sessions=len({s.get("session") for s in new}),
        )
        g_tools, n_tools = mcp_tools(golden), mcp_tools(new)
        for key in sorted(set(g_tools) | set(n_tools)):
            if key not in n_tools:
                result.tools.append({"tool": key, "kind": "removed"})
            elif key not in g_tools:
                result.tools.append({"tool": key, "kind": "added"})
            else:
                changes = diff_values(
                    g_tools[key], n_tools[key], root="", strict=ctx.options.strict
                )
                if changes:
                    result.tools.append({"tool": key, "kind": "changed", "changes": changes})
        g_calls, n_calls = _calls(golden), _calls(new)
        for name in sorted(set(g_calls) & set(n_calls)):
            for (g_no, g), (n_no, n) in zip(g_calls[name], n_calls[name], strict=False):
                result.calls += 1
                changes = _result_changes(g, n, ctx.rules, ctx.options.strict)
                if changes:
                    result.results.append(
                        {"tool": name, "golden_step": g_no, "new_step": n_no, "changes": changes}
                    )
        g_reads, n_reads = _reads(golden), _reads(new)
        for server, uri in sorted(set(g_reads) & set(n_reads)):
            pairs = zip(g_reads[server, uri], n_reads[server, uri], strict=False)
            for (g_no, g), (n_no, n) in pairs:
                result.reads += 1
                changes = diff_values(
                    _read_answer(g),
                    _read_answer(n),
                    root="",
                    ignored_fields=ctx.rules,
                    strict=ctx.options.strict,
                )
                if changes:
                    result.resources.append(
                        {
                            "server": server,
                            "uri": uri,
                            "session": n.get("session"),
                            "golden_step": g_no,
                            "new_step": n_no,
                            "changes": changes,
                        }
                    )
        result.requests = _request_drift(new)
        return result

    def contribute(self, result: McpResult, draft: ReportDraft) -> None:
        if not result.compared and result.skipped_reason == _NO_MCP:
            return  # a run without MCP: the report has no trace of this check
        draft.details.setdefault("checks", {})[self.name] = {
            "compared": result.compared,
            "skipped_reason": result.skipped_reason,
            "tools": result.tools,
            "results": result.results,
            "requests": result.requests,
            "resources": result.resources,
            "servers": result.servers,
            "sessions": result.sessions,
            "calls": result.calls,
            "reads": result.reads,
            "passed": result.passed,
        }
        if result.tools:
            draft.fail(self.name, "mcp_tools")
        if result.results:
            draft.fail(self.name, "mcp_results")
        if result.resources:
            draft.fail(self.name, "mcp_resources")
        if result.requests:
            draft.fail(self.name, "mcp_requests")

    def render_text(self, view: TextView) -> None:
        data = self.stored(view.report.details)
        if data is None:
            return
        shown = _shown(data)
        if shown is None:
            return
        ok, summary, lines = shown
        status = view.status(ok) if data.get("compared") else "skipped"
        view.add(f"{view.tag(self.title)} {status} — {summary}")
        for depth, line in lines:
            view.add(line, depth)

    def html(self, page: HtmlPage) -> HtmlPart:
        data = self.stored(page.details)
        shown = _shown(data) if data is not None else None
        if shown is None:
            return HtmlPart()
        ok, summary, lines = shown
        return HtmlPart(
            section=HtmlSection(
                title=self.title,
                passed=ok,
                summary=summary,
                lines=[("  " * (depth - 1)) + line for depth, line in lines],
            )
        )


def _change_lines(entry: Mapping[str, Any]) -> list[tuple[int, str]]:
    out = []
    for change in entry.get("changes") or []:
        kind = change.get("kind")
        old = "<absent>" if kind == "added" else repr(change.get("old"))
        new = "<absent>" if kind == "removed" else repr(change.get("new"))
        path = str(change.get("path") or "").lstrip(".") or "(whole value)"
        out.append((2, f"{path}: {old} → {new}"))
    return out


def _shown(data: Mapping[str, Any]) -> tuple[bool, str, list[tuple[int, str]]] | None:
    """``(ok, summary, [(depth, line)])`` of a stored result; None: nothing to show (no MCP at all)."""
    if not data.get("compared"):
        reason = str(data.get("skipped_reason") or "")
        return None if not reason or "either side" in reason else (True, reason, [])
    tools, results = data.get("tools") or [], data.get("results") or []
    requests = data.get("requests") or []
    resources = data.get("resources") or []
    summary = "; ".join(
        [
            f"{data.get('servers', 0)} server(s) in {data.get('sessions', 0)} session(s), tools: "
            + ("same" if not tools else f"{len(tools)} added, removed or changed"),
            f"results: {data.get('calls', 0)} call(s) "
            + ("same" if not results else f"compared, {len(results)} changed"),
            *(
                [
                    f"resources: {data.get('reads', 0)} read(s) "
                    + ("same" if not resources else f"compared, {len(resources)} changed")
                ]
                if data.get("reads")
                else []
            ),
            *([f"requests: {len(requests)} differ from the recordings served"] if requests else []),
        ]
    )
    lines: list[tuple[int, str]] = []
    for entry in tools:
        if entry.get("kind") == "changed":
            lines.append((1, f"tool {entry['tool']} changed (the model now sees another tool):"))
            lines += _change_lines(entry)
        else:
            lines.append((1, f"tool {entry['tool']} {entry['kind']}"))
    for entry in results:
        lines.append(
            (
                1,
                f"{entry['tool']} (golden step {entry['golden_step']}, new step {entry['new_step']}):",
            )
        )
        lines += _change_lines(entry)
    for entry in resources:
        lines.append(
            (
                1,
                f"resource {entry['uri']} on {entry['server']} (session {entry['session']}, "
                f"golden step {entry['golden_step']}, new step {entry['new_step']}):",
            )
        )
        lines += _change_lines(entry)
    for entry in requests:
        lines.append(
            (
                1,
                f"{entry['what']} (new step {entry['new_step']}): the request changed, the old answer was served:",
            )
        )
        lines += [(2, str(d)) for d in entry.get("drift") or []]
    return not tools and not results and not resources and not requests, summary, lines
