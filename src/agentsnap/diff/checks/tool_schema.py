"""The ``tool_schema`` check: each tool call the model made, valid against the tool's schema.

Every LLM request carries the tools the agent offered, each with a JSON Schema of its
arguments; every ``tool_requests`` entry of the step is the model's call. This check
validates each call of the run being judged against the schema sent in the same request,
offline, with the ``jsonschema`` package (the draft the schema names, else 2020-12):

* a call of a tool the request did not offer is ``unknown tool``;
* each schema error is a finding with its JSON path (``$.city: 'city' is a required property``,
  ``$.days: 'three' is not of type 'integer'``).

Read per request format: OpenAI chat (``tools[].function.parameters``, also Mistral, Groq,
Cohere v2), the Responses API (``tools[].parameters`` of ``"type": "function"``), Anthropic
(``tools[].input_schema``) and Gemini (``tools[].functionDeclarations[].parameters`` — its
upper-case type names read as JSON Schema's — or ``parametersJsonSchema``). A request with no
tools, a tool without a schema, and a schema that is not valid JSON Schema are not judged
(the last is named in the report). Steps with no stored request (WebSocket turns) are skipped.

``validate_tool_calls`` (a knob: setting, marker, ``AgentAsserter``): ``auto`` (default) validates in live and record
comparisons and not in replay, where the calls are the recorded ones; ``on`` / ``off``
always / never. An invalid call fails the test (``tool_schema``). A record run compares
nothing, but unless ``off`` it validates the calls it writes into the golden and warns of an
invalid one (:func:`validate_calls`). A ``$ref`` outside the schema is never fetched: that call
is "not judged", as is one whose schema is not valid JSON Schema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._api import Check, CheckContext, CheckResult

__all__ = ["ToolSchemaCheck", "ToolSchemaResult", "tool_schemas", "validate_calls"]


def _gemini_types(schema: object) -> Any:
    """Gemini's OpenAPI-style schema (``"type": "OBJECT"``) with JSON Schema's type names."""
    if isinstance(schema, Mapping):
        out = {k: _gemini_types(v) for k, v in schema.items()}
        if isinstance(out.get("type"), str):
            out["type"] = out["type"].lower()
        if out.pop("nullable", False) is True and isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        return out
    if isinstance(schema, list):
        return [_gemini_types(v) for v in schema]
    return schema


def tool_schemas(body: object) -> dict[str, Any]:
    """``{tool name: its argument schema (None: none given)}`` of a request body's tools."""
    out: dict[str, Any] = {}
    tools = body.get("tools") if isinstance(body, Mapping) else None
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            out[function["name"]] = function.get("parameters")  # OpenAI chat format
        elif isinstance(tool.get("name"), str) and "input_schema" in tool:
            out[tool["name"]] = tool.get("input_schema")  # Anthropic
        elif isinstance(tool.get("name"), str) and tool.get("type") in ("function", None):
            out[tool["name"]] = tool.get("parameters")  # the Responses API
        for key in ("functionDeclarations", "function_declarations"):  # Gemini
            for decl in tool.get(key) or []:
                if isinstance(decl, Mapping) and isinstance(decl.get("name"), str):
                    given = decl.get("parametersJsonSchema", decl.get("parameters_json_schema"))
                    if given is None and decl.get("parameters") is not None:
                        given = _gemini_types(decl["parameters"])
                    out[decl["name"]] = given
    return out


@dataclass
class ToolSchemaResult(CheckResult):
    """``lines``: one per invalid call or unreadable schema; ``calls``: how many were judged,
    ``invalid``: how many failed."""

    #: False: nothing to compare in this run (the report holds no trace of the check)
    compared: bool = True
    calls: int = 0
    invalid: int = 0


def _path(error: Any) -> str:
    return "$" + "".join(
        f"[{p}]" if isinstance(p, int) else f".{p}" for p in getattr(error, "absolute_path", ())
    )


class ToolSchemaCheck(Check[ToolSchemaResult]):
    """Each tool call the model made, against the schema its request gave the tool (see the
    module doc)."""

    name = "tool_schema"
    title = "[TOOL SCHEMA]"
    always_decides = True

    def run(self, ctx: CheckContext) -> ToolSchemaResult:
        mode = ctx.options.validate_tool_calls
        if mode == "off" or (mode == "auto" and ctx.options.compare_requests):
            return ToolSchemaResult(True, compared=False)
        return validate_calls(ctx.new_steps)


def validate_calls(steps: Sequence[Mapping[str, Any]]) -> ToolSchemaResult:
    """Each ``tool_requests`` entry of a trace's llm_call steps against its request's tool schema
    (the check's work; a record run asks it of the run it writes)."""
    try:
        from jsonschema import exceptions as schema_errors
        from jsonschema import validators
        from referencing import Registry
        from referencing.exceptions import Unresolvable
    except ImportError:  # pragma: no cover - a core dependency
        return ToolSchemaResult(True, "not run: the jsonschema package is missing")

    def offline(uri: str) -> Any:
        # a $ref outside the schema is never fetched: a comparison makes no network call
        raise Unresolvable(ref=uri)

    registry: Any = Registry(retrieve=offline)  # type: ignore[call-arg]
    result = ToolSchemaResult(True)
    unjudged = 0
    for index, step in enumerate(steps):
        requests = step.get("tool_requests") if step.get("type") == "llm_call" else None
        exchange = step.get("exchange")
        request = exchange.get("request") if isinstance(exchange, Mapping) else None
        body = request.get("body") if isinstance(request, Mapping) else None
        if not requests or not isinstance(body, Mapping):
            continue
        schemas = tool_schemas(body)
        if not schemas:
            continue
        where = f"llm_call step {step.get('step', index)}"
        for call in requests:
            if not isinstance(call, Mapping):
                continue
            name = str(call.get("name"))
            result.calls += 1
            if name not in schemas:
                result.invalid += 1
                result.lines.append(
                    f"{where}: {name}: unknown tool (offered: {', '.join(sorted(schemas))})"
                )
                continue
            schema = schemas[name]
            if not isinstance(schema, Mapping):
                continue
            schema = dict(schema)
            args = call.get("args")
            if isinstance(args, str):  # the model's arguments were not JSON at all
                result.invalid += 1
                result.lines.append(f"{where}: {name}: arguments are not valid JSON: {args[:80]!r}")
                continue
            try:
                cls = validators.validator_for(schema, default=validators.Draft202012Validator)
                cls.check_schema(schema)
                errors = sorted(cls(schema, registry=registry).iter_errors(args), key=_path)
            except schema_errors.SchemaError as exc:
                unjudged += 1
                result.lines.append(
                    f"{where}: {name}: its schema is not valid JSON Schema, not judged ({exc.message})"
                )
                continue
            except (
                Unresolvable
            ) as exc:  # jsonschema wraps it (its RefResolutionError is deprecated)
                unjudged += 1
                result.lines.append(
                    f"{where}: {name}: its schema refers to {getattr(exc, 'ref', None) or exc} outside "
                    "itself, which is never fetched: not judged"
                )
                continue
            if errors:
                result.invalid += 1
                for error in errors[:10]:
                    result.lines.append(f"{where}: {name}: {_path(error)}: {error.message}")
    if not result.calls and not result.lines:
        return ToolSchemaResult(True, compared=False)  # no tool call with a schema: no line
    result.passed = result.invalid == 0
    result.summary = (
        f"{result.calls - unjudged} tool call(s) valid against the schema the agent sent"
        if result.passed
        else f"{result.invalid} of {result.calls} tool call(s) invalid against the schema the agent sent"
    ) + (f"; {unjudged} not judged" if unjudged else "")
    return result
