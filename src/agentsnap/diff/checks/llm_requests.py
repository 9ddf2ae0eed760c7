"""The ``llm_requests`` check: the request each LLM call sent (replay mode)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...capture.client_ids import normalise, server_minted
from ...jsondiff import diff_values, same_json
from ...storage import legacy as _legacy
from .. import _text
from ._api import Check, CheckContext, ReportDraft, TextView
from .arguments import fraction_same, top_level

__all__ = ["LLMCall", "LLMRequestsCheck", "LLMRequestsResult", "request_body"]

#: ``(step number, step)`` of one llm_call
LLMCall = tuple[Any, Mapping[str, Any]]


@dataclass
class LLMRequestsResult:
    """``golden`` / ``new``: the llm_call steps; ``compared``: whether requests were
    compared (``compare_requests``); ``entries``: one ``changes`` entry per call whose
    request differs."""

    golden: list[LLMCall]
    new: list[LLMCall]
    compared: bool
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def common(self) -> int:
        """How many llm_calls both sides have (the ones compared)."""
        return min(len(self.golden), len(self.new))


def request_body(step: Mapping[str, Any]) -> Any:
    """The recorded request body of an llm_call step (None when not recorded)."""
    exchange = step.get("exchange")
    if type(exchange) is not dict and not isinstance(exchange, Mapping):
        return None
    request = exchange.get("request")
    if type(request) is not dict and not isinstance(request, Mapping):
        return None
    body = request.get("body")
    if type(body) is not dict and not isinstance(body, Mapping):
        return None
    return request["body"]


def _server_minted(calls: list[LLMCall]) -> set[str]:
    """The minted-looking values the server said first in these llm_calls' recorded
    exchanges (a request before its own response, in order): the values not renamed."""
    said: list[tuple[bool, Any]] = []
    for _, step in calls:
        exchange = step.get("exchange")
        if isinstance(exchange, Mapping):
            said += [(True, request_body(step)), (False, exchange.get("response"))]
    return server_minted(said)


class LLMRequestsCheck(Check[LLMRequestsResult]):
    """With ``compare_requests`` (replay): the request of llm_call *i* in golden and
    new, for each *i* both have — the whole recorded request body when both steps
    carry one (values the client minted compared up to a consistent renaming,
    :mod:`agentsnap.capture.client_ids`), else the ``messages`` (against a 0.5.1 golden, the new messages must
    start the recorded ones). Any difference fails, also under ``gate="score"``."""

    name = "llm_requests"
    title = "[REQUESTS]"
    components = ("llm_requests",)
    always_decides = True

    def same_inputs(self, ctx: CheckContext) -> bool:
        """Each llm_call both sides have sent the same request: the same recorded body (in
        replay, usually the golden's own object), or, with no body on either side, the same
        messages. Then no request differs, whatever ``compare_requests``, ``strict`` or a
        0.5.1 golden."""
        g_llm, n_llm = ctx.llm_calls(True), ctx.llm_calls(False)
        for (_, g_step), (_, n_step) in zip(g_llm, n_llm, strict=False):
            g_body = request_body(g_step)
            exchange = g_step.get("exchange")
            if g_body is not None and exchange is n_step.get("exchange"):
                continue  # one recorded exchange on both sides (replay, usually): one body
            n_body = request_body(n_step)
            if g_body is None and n_body is None:
                if not same_json(g_step.get("messages"), n_step.get("messages")):
                    return False
            elif g_body is None or n_body is None or not same_json(g_body, n_body):
                return False
        return True

    def unchanged(self, ctx: CheckContext) -> LLMRequestsResult:
        """The llm_call steps of both sides, no request changed."""
        return LLMRequestsResult(
            ctx.llm_calls(True),
            ctx.llm_calls(False),
            bool(ctx.options.compare_requests),
        )

    def run(self, ctx: CheckContext) -> LLMRequestsResult:
        g_llm, n_llm = ctx.llm_calls(True), ctx.llm_calls(False)
        result = LLMRequestsResult(g_llm, n_llm, bool(ctx.options.compare_requests))
        if not result.compared:
            return result
        strict = ctx.options.strict
        known: tuple[set[str], set[str]] | None = None
        for i in range(result.common):
            (g_no, g_step), (n_no, n_step) = g_llm[i], n_llm[i]
            g_body, n_body = request_body(g_step), request_body(n_step)
            if g_body is not None and n_body is not None and g_body != n_body:
                # values the client minted (random tool-call ids) compare up to a consistent
                # renaming, as replay matched them (agentsnap.capture.client_ids)
                # (each side's own: who said a value first, its client or its server)
                if known is None:
                    known = _server_minted(g_llm), _server_minted(n_llm)
                g_body, n_body = normalise(g_body, known[0])[0], normalise(n_body, known[1])[0]
            if g_body is not None and n_body is not None:
                # the whole request: messages, tools offered, model, parameters
                changes = [
                    {**c, "path": c["path"].lstrip(".") or "(request body)"}
                    for c in diff_values(g_body, n_body, root="", strict=strict)
                ]
            elif ctx.legacy and _legacy.messages_match(
                g_step.get("messages"), n_step.get("messages")
            ):
                changes = []  # 0.5.1 stored the caller's list, extended after the call
            else:
                changes = diff_values(
                    g_step.get("messages"), n_step.get("messages"), root="messages", strict=strict
                )
            if changes:
                result.entries.append(
                    {
                        "check": self.name,
                        "index": i,
                        "tool": None,
                        "golden_step": g_no,
                        "new_step": n_no,
                        "changes": changes,
                    }
                )
        return result

    def contribute(self, result: LLMRequestsResult, draft: ReportDraft) -> None:
        draft.details["llm_calls"] = {
            "golden": len(result.golden),
            "new": len(result.new),
            "golden_steps": [no for no, _ in result.golden],
            "new_steps": [no for no, _ in result.new],
            "requests_compared": result.compared,
        }
        if result.entries:
            draft.fail(self.name)
        draft.changes += result.entries
        g_steps, n_steps = dict(result.golden), dict(result.new)
        for entry in result.entries:
            g_step = g_steps.get(entry.get("golden_step"), {})
            n_step = n_steps.get(entry.get("new_step"), {})
            old, new = request_body(g_step), request_body(n_step)
            if old is None or new is None:
                old, new = (
                    {"messages": g_step.get("messages")},
                    {"messages": n_step.get("messages")},
                )
            draft.argument_diffs[f"llm_call[{entry['index']}].messages"] = {
                "old": old,
                "new": new,
                **top_level(old, new),
                "changes": entry["changes"],
            }
        if result.compared and result.common:
            draft.components["llm_requests"] = fraction_same(result.entries, result.common)

    def render_text(self, view: TextView) -> None:
        llm = view.report.details.get("llm_calls") or {}
        if not (llm.get("requests_compared") or self.name in view.failed):
            return
        entries = view.entries(self.name)
        ok = self.name not in view.failed
        if entries:
            detail = f"llm_requests: messages differ in {_text.plural(len(entries), 'llm call')}"
        else:
            detail = "llm_requests: messages identical"
        view.add(f"{view.tag(self.title)} {view.status(ok, decides=True)} — {detail}")
        for entry in entries:
            view.add(
                f"llm_call[{entry.get('index')}] (golden step {entry.get('golden_step')}, "
                f"new step {entry.get('new_step')}):",
                1,
            )
            view.changes(entry, 2, whole=True)
