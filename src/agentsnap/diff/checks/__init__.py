"""The comparison checks, one module each, run by :func:`~agentsnap.diff.compute_diff` in registry order.

Built in, in this order: :mod:`.structural` (``structural``), :mod:`.arguments`
(``arguments``), :mod:`.model_tools` (``model_tools`` and ``model_tool_args``),
:mod:`.llm_requests` (``llm_requests``), :mod:`.mcp_servers` (``mcp_tools``,
``mcp_results``, ``mcp_resources``, ``mcp_requests``), :mod:`.websocket_messages`
(``websocket_messages``, ``websocket_replies``), :mod:`.tool_schema`
(``tool_schema``), :mod:`.budgets` (``budgets``) and :mod:`.semantic` (``llm_call[i]``,
``output``). The interface every check provides is in :mod:`._api`; to add a
check, subclass :class:`Check` and :func:`register_check` an instance — the
text and HTML reports show its result without further changes.
"""

from __future__ import annotations

from ._api import (
    Check,
    CheckContext,
    CheckResult,
    HtmlPage,
    HtmlPart,
    HtmlSection,
    ReportDraft,
    TextView,
    register_check,
    registered_checks,
    registered_components,
    unregister_check,
)
from .arguments import ArgumentsCheck
from .budgets import BudgetsCheck
from .llm_requests import LLMRequestsCheck
from .mcp_servers import McpCheck
from .model_tools import ModelToolsCheck
from .semantic import SemanticCheck
from .structural import StructuralCheck
from .tool_schema import ToolSchemaCheck
from .websocket_messages import WebSocketCheck

__all__ = [
    "BUILTIN_CHECKS",
    "ArgumentsCheck",
    "BudgetsCheck",
    "Check",
    "CheckContext",
    "CheckResult",
    "HtmlPage",
    "HtmlPart",
    "HtmlSection",
    "LLMRequestsCheck",
    "McpCheck",
    "ModelToolsCheck",
    "ReportDraft",
    "SemanticCheck",
    "StructuralCheck",
    "TextView",
    "ToolSchemaCheck",
    "WebSocketCheck",
    "register_check",
    "registered_checks",
    "registered_components",
    "unregister_check",
]

#: the built-in checks, registered in this order when the package is imported
BUILTIN_CHECKS = (
    StructuralCheck(),
    ArgumentsCheck(),
    ModelToolsCheck(),
    LLMRequestsCheck(),
    McpCheck(),
    WebSocketCheck(),
    ToolSchemaCheck(),
    BudgetsCheck(),
    SemanticCheck(),
)
for _check in BUILTIN_CHECKS:
    register_check(_check)
del _check
