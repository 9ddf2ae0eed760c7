"""Agent frameworks' conversation conventions: tool results and final answers
that the provider wire format alone does not show.

Most frameworks send a tool's result back the way the provider's API defines
(``role: "tool"`` messages, ``tool_result`` blocks, ``function_call_output``
items), and the codecs of :mod:`agentsnap.providers` read those. Some do not:
smolagents sends ``Observation: …`` as a user message and ends with a
``final_answer`` tool call; pydantic-ai ends a structured-output run with a
``final_result`` tool call. Those conventions are declared as data, one file per
framework, in ``patches/frameworks/<name>.toml`` (shipped inside the wheel as
``agentsnap/_patches/frameworks/``), and read here:

``[framework]``
    ``name``; ``codecs``: the wire formats the conventions apply to.
``[tool_results]`` (optional)
    A request's results come as a message of role ``results_role`` whose text
    starts with ``results_prefix``, right after a message of role
    ``calls_role`` starting with ``calls_prefix`` from which
    ``call_id_pattern`` (a regular expression, group 1) takes the call ids in
    order; several results are joined by ``separator``.
``[trajectory]`` (optional)
    The tool calls travel as text fields (DSPy ReAct): in the last user
    message of a request, ``field_pattern`` (groups: field, index, value)
    finds ``<name_field>_<i>``, ``<args_field>_<i>`` (JSON) and
    ``<result_field>_<i>``; each index a request adds becomes a ``tool_call``
    step before that request's ``llm_call`` (names in ``skip_tools`` are not;
    the fields are the framework's own text, so this applies to any wire format).
``[final_answer]`` (optional)
    A call to ``tool`` (or any tool whose name starts with ``tool_prefix``)
    that no later request answers is the agent's final answer: its
    ``argument`` (the whole arguments when ``argument`` is empty).

Used by :meth:`agentsnap.capture.trace.Trace.steps` (derived tool steps) and
:func:`agentsnap.lifecycle.build_snapshot` (the output of a zero-code snapshot).
Nothing here imports a framework.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import msgspec

from . import provider_specs as providers
from .provider_specs import spec_derived

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "Framework",
    "final_output",
    "load_frameworks",
    "tool_results",
    "with_final_answers",
    "with_trajectory_steps",
]


class Framework(msgspec.Struct, frozen=True):
    """One ``patches/frameworks/<name>.toml`` file, parsed."""

    name: str
    codecs: tuple[str, ...]
    tool_results: dict[str, str] | None
    trajectory: dict[str, Any] | None
    final_tool: str | None
    final_tool_prefix: str | None
    final_argument: str
    source: str

    def is_final(self, tool: object) -> bool:
        """Whether a call to ``tool`` (a name) is this framework's final answer."""
        if not isinstance(tool, str):
            return False
        return tool == self.final_tool or bool(
            self.final_tool_prefix and tool.startswith(self.final_tool_prefix)
        )


def _parse(path: Path) -> Framework:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    fw = data["framework"]
    results = data.get("tool_results")
    if results is not None:
        results = {k: str(v) for k, v in results.items()}
        re.compile(results["call_id_pattern"])
        for key in ("calls_role", "calls_prefix", "results_role", "results_prefix"):
            results[key]
    trajectory = data.get("trajectory")
    if trajectory is not None:
        trajectory = dict(trajectory)
        trajectory["field_pattern"] = re.compile(trajectory["field_pattern"], re.DOTALL)
        for key in ("name_field", "args_field", "result_field"):
            trajectory[key] = str(trajectory[key])
        trajectory["skip_tools"] = tuple(str(t) for t in trajectory.get("skip_tools", ()))
    final = data.get("final_answer") or {}
    return Framework(
        name=str(fw["name"]),
        codecs=tuple(str(c) for c in fw.get("codecs", ())),
        tool_results=results,
        trajectory=trajectory,
        final_tool=final.get("tool"),
        final_tool_prefix=final.get("tool_prefix"),
        final_argument=str(final.get("argument", "")),
        source=str(path),
    )


@spec_derived
@functools.cache
def load_frameworks(directory: str | None = None) -> tuple[Framework, ...]:
    """Every ``*.toml`` of ``patches/frameworks/`` (or ``directory``), sorted by file name.

    A file that cannot be parsed gives one ``UserWarning`` naming it and is
    skipped (the provider specs' rule).
    """
    root = providers.patches_dir() / "frameworks" if directory is None else Path(directory)
    out: list[Framework] = []
    for path in sorted(root.glob("*.toml")):
        try:
            out.append(_parse(path))
        except Exception as exc:
            warnings.warn(f"agentsnap: ignoring framework conventions {path}: {exc}", stacklevel=2)
    return tuple(out)


def _text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        texts = [p for p in parts if isinstance(p, str)]
        if texts and len(texts) == len(parts):
            return "".join(texts)
    return None


def tool_results(codec: str | None, body: object) -> list[dict[str, Any]]:
    """Tool results a request carries by a framework's convention (not the API's).

    Returns ``[{"id": <call id>, "result": str}]`` in message order, for
    :func:`agentsnap.capture.trace._with_derived_tool_calls` to pair with the calls the
    model requested; ``[]`` when no declared convention matches.
    """
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return []
    out: list[dict[str, Any]] = []
    for fw in load_frameworks():
        rules = fw.tool_results
        if rules is None or codec not in fw.codecs:
            continue
        messages = body["messages"]
        for before, message in itertools.pairwise(messages):
            if not (isinstance(before, dict) and isinstance(message, dict)):
                continue
            calls, results = _text(before.get("content")), _text(message.get("content"))
            if (
                before.get("role") != rules["calls_role"]
                or message.get("role") != rules["results_role"]
            ):
                continue
            if calls is None or results is None or not calls.startswith(rules["calls_prefix"]):
                continue
            if not results.startswith(rules["results_prefix"]):
                continue
            ids = re.findall(rules["call_id_pattern"], calls[len(rules["calls_prefix"]) :])
            text = results[len(rules["results_prefix"]) :]
            if not ids:
                continue
            pieces = (
                text.split(rules["separator"])
                if rules.get("separator") and len(ids) > 1
                else [text]
            )
            if len(pieces) != len(
                ids
            ):  # results that contain the separator themselves: all of it to each
                pieces = [text] * len(ids)
            out += [{"id": i, "result": r} for i, r in zip(ids, pieces, strict=False)]
    return out


def _last_user_text(body: object) -> str | None:
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _text(message.get("content"))
    return None


def _trajectory(rules: dict[str, Any], text: str) -> dict[int, dict[str, Any]]:
    entries: dict[int, dict[str, Any]] = {}
    for field, index, value in rules["field_pattern"].findall(text):
        entries.setdefault(int(index), {})[field] = value
    return entries


def with_trajectory_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``steps`` with a ``tool_call`` step before each ``llm_call`` for every trajectory entry
    its request adds (the ``[trajectory]`` convention of the module doc); unchanged when no
    framework declares one or no request carries one."""
    frameworks = [fw for fw in load_frameworks() if fw.trajectory is not None]
    if not frameworks:
        return steps
    out: list[dict[str, Any]] = []
    seen: dict[tuple[str, int], tuple[Any, ...]] = {}
    for step in steps:
        exchange = step.get("exchange") if step.get("type") == "llm_call" else None
        request = exchange.get("request") if isinstance(exchange, dict) else None
        text = _last_user_text(request.get("body")) if isinstance(request, dict) else None
        for fw in frameworks:
            rules = fw.trajectory
            if text is None or rules is None:
                continue
            for index, entry in sorted(_trajectory(rules, text).items()):
                name = entry.get(rules["name_field"])
                if (
                    name is None
                    or name.strip() in rules["skip_tools"]
                    or rules["result_field"] not in entry
                ):
                    continue
                raw_args = entry.get(rules["args_field"], "")
                try:
                    args = json.loads(raw_args)
                except ValueError:
                    args = raw_args
                key = (fw.name, index)
                value = (name.strip(), raw_args, entry[rules["result_field"]])
                if seen.get(key) == value:
                    continue  # the same entry repeated in a later request's history
                seen[key] = value
                out.append(
                    {
                        "type": "tool_call",
                        "name": name.strip(),
                        "args": args,
                        "result": entry[rules["result_field"]],
                        "id": None,
                    }
                )
        out.append(step)
    return out


def _final_value(fw: Framework, args: object) -> Any:
    if fw.final_argument and isinstance(args, dict) and fw.final_argument in args:
        return args[fw.final_argument]
    return args


def with_final_answers(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``steps`` with a ``tool_call`` step (``"final_answer": true``) after each
    ``llm_call`` that requested a framework's final-answer tool no step answers;
    its ``result`` is the answer (see the module doc). Other steps are unchanged."""
    frameworks = [fw for fw in load_frameworks() if fw.final_tool or fw.final_tool_prefix]
    if not frameworks:
        return steps
    answered = {s.get("id") for s in steps if s.get("type") == "tool_call" and s.get("id")}
    out: list[dict[str, Any]] = []
    for step in steps:
        out.append(step)
        if step.get("type") != "llm_call":
            continue
        for req in step.get("tool_requests") or []:
            fw = next((f for f in frameworks if f.is_final(req.get("name"))), None)
            if fw is None or (req.get("id") and req["id"] in answered):
                continue
            out.append(
                {
                    "type": "tool_call",
                    "name": req.get("name"),
                    "args": req.get("args"),
                    "result": _final_value(fw, req.get("args")),
                    "id": req.get("id"),
                    "final_answer": True,
                }
            )
    return out


def final_output(steps: list[dict[str, Any]]) -> Any:
    """The agent's final answer when the trace ends with a final-answer step
    (:func:`with_final_answers`) after its last ``llm_call``; None otherwise."""
    for step in reversed(steps):
        if step.get("type") == "llm_call":
            return None
        if step.get("type") == "tool_call" and step.get("final_answer"):
            return step.get("result")
    return None
