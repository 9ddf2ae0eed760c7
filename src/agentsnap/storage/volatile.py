"""What differs between two recordings of the same run, and what a change means.

Volatile fields are never a reason to rewrite a golden: review timestamps, the writer's
version and ``trace_digest``, per-response headers (request ids, rate limits, dates) and
timestamps, an LLM call's ``latency_ms``, and the ids a provider invents, renamed
consistently (:func:`same_content`).
:func:`behaviour_changes` says, for a reviewer, what changed when content did.
"""

from __future__ import annotations

import functools
import json
import re
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from .snapshot import Snapshot

__all__ = ["behaviour_changes", "same_content", "same_output"]


# volatile fields: never a reason to rewrite a file
_VOLATILE_TOP = (
    "created_at",
    "updated_at",
    "recorded_at",
    "agentsnap_version",
    "comparison",
    "trace_digest",
)
_VOLATILE_HEADERS = frozenset(
    {
        "x-request-id",
        "openai-processing-ms",
        "date",
        "request-id",
        "x-ratelimit-reset-requests",
        "x-ratelimit-reset-tokens",
        "content-length",
        "age",
        "expires",
        "etag",
        "last-modified",
    }
)
#: header names with these parts are minted per response: request/trace/correlation ids, timings, rate-limit counters
_VOLATILE_HEADER_PARTS = (
    "request-id",
    "trace-id",
    "correlation-id",
    "ratelimit",
    "processing-ms",
    "upstream-service-time",
    "cf-ray",
    "server-timing",
)
#: per-response timestamps and fingerprints inside a recorded response (any depth: stream events nest them)
_VOLATILE_RESPONSE_KEYS = frozenset({"created", "created_at", "createTime", "system_fingerprint"})


@functools.cache
def _volatile_in_chunk() -> re.Pattern[str]:
    return re.compile(
        r'"(?:created|created_at|createTime|system_fingerprint)":\s*(?:"[^"]*"|\d+(?:\.\d+)?)'
    )


#: keys whose string value is an id the provider (or the SDK) invented: a tool call's id and the
#: references to it (tool_call_id, tool_use_id, call_id), response / message / generation ids
_ID_KEYS = frozenset(
    {
        "id",
        "tool_call_id",
        "tool_use_id",
        "call_id",
        "item_id",
        "response_id",
        "responseId",
        "previous_response_id",
        "generation_id",
        "request_id",
        "event_id",
    }
)


@functools.cache
def _id_in_text() -> re.Pattern[str]:
    return re.compile(r'"(?:' + "|".join(sorted(_ID_KEYS)) + r')":\s*"([^"\\]{1,200})"')


#: subtrees that hold the agent's own data (tool arguments and results, its input and output):
#: an "id" there is the agent's, and a change of it is a change
#: shorter values are not taken for minted ids (they would rename ordinary words and numbers)
_MIN_ID = 6
_PAYLOAD_KEYS = frozenset(
    {"args", "arguments", "parameters", "result", "functionResponse", "output", "content"}
)


def _by_key(item: tuple[Any, Any]) -> str:
    return str(item[0])


def _collect_ids(value: object, found: dict[str, None], *, payload: bool = False) -> None:
    """Every provider-invented id in ``value`` (parsed JSON), in first-seen order.

    A string under an :data:`_ID_KEYS` key counts, except inside the agent's own
    data (:data:`_PAYLOAD_KEYS` holding an object; a tool's ``input`` object);
    ids inside streamed chunk text are found by :func:`_id_in_text`. Objects are
    walked in sorted key order, so the order (and so the placeholders) does not
    depend on key order: a snapshot in memory (keys as built) and the same
    snapshot read from its file (keys sorted) rename alike.
    """
    stack: deque[tuple[Any, bool]] = deque([(value, payload)])  # breadth first, as found
    while stack:
        node, inside = stack.popleft()
        if isinstance(node, dict):
            for key, item in sorted(node.items(), key=_by_key):
                if isinstance(item, str):
                    if key in _ID_KEYS and not inside and len(item) >= _MIN_ID:
                        found.setdefault(item, None)
                elif isinstance(item, (dict, list)):
                    mine = inside or (
                        isinstance(item, dict)
                        and (
                            key in _PAYLOAD_KEYS
                            or (key == "input" and node.get("type") != "message")
                        )
                    )
                    stack.append((item, mine))
            chunks = node.get("chunks")
            if isinstance(chunks, list):
                for chunk in chunks:
                    if isinstance(chunk, str):
                        for match in _id_in_text().finditer(chunk):
                            if len(match.group(1)) >= _MIN_ID:
                                found.setdefault(match.group(1), None)
        elif isinstance(node, list):
            stack.extend((item, inside) for item in node)


def _renamer(names: dict[str, str]) -> Callable[[str], str]:
    """A string with every id in ``names`` replaced by its placeholder (also inside longer
    strings, where it stands as a whole word: ``call_abc123`` in ``"see call_abc123"``);
    remembered per string, since the same strings repeat in every step."""
    if not names:
        return lambda text: text
    alternatives = "|".join(re.escape(k) for k in sorted(names, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z0-9_-])(?:{alternatives})(?![A-Za-z0-9_-])")
    seen: dict[str, str] = {}

    def rename(text: str) -> str:
        done = seen.get(text)
        if done is None:
            if text in names:
                done = names[text]
            elif pattern.search(text):
                done = pattern.sub(lambda m: names[m.group(0)], text)
            else:
                done = text
            seen[text] = done
        return done

    return rename


def _drop_volatile_in_response(node: object) -> Any:
    """``node`` without :data:`_VOLATILE_RESPONSE_KEYS` at any depth; ``node`` itself (not a
    copy) where it holds none, so an unchanged response body is shared, never copied."""
    if isinstance(node, dict):
        kept = {
            k: _drop_volatile_in_response(v)
            for k, v in node.items()
            if k not in _VOLATILE_RESPONSE_KEYS
        }
        same = len(kept) == len(node) and all(kept[k] is node[k] for k in kept)
        return node if same else kept
    if isinstance(node, list):
        items = [_drop_volatile_in_response(v) for v in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    return node


def _volatile_header(name: str) -> bool:
    lower = name.lower()
    return lower in _VOLATILE_HEADERS or any(part in lower for part in _VOLATILE_HEADER_PARTS)


def _stripped_step(step: dict[str, Any]) -> dict[str, Any]:
    """One trace step reduced to what a change means (see :func:`same_content`): a new dict
    where something is dropped or resolved, every untouched part shared with ``step``, which is
    never changed."""
    step = dict(step)
    ref = step.get("messages_from")
    if isinstance(ref, str):  # a message list stored once (1.0.0.dev files): both copies
        del step["messages_from"]
        key = ref.rsplit(".", 1)[-1]
        body = ((step.get("exchange") or {}).get("request") or {}).get("body")
        if ref.startswith("exchange.request.body.") and isinstance(body, dict) and key in body:
            step["messages"] = body[key]
    if step.get("type") == "websocket" and isinstance(step.get("frames"), list):
        # a WebSocket connection: each side's messages in order, but not when each arrived
        # nor how the two sides interleaved (a server message read just before or just after
        # a client message is timing), nor the server's timestamps
        sides: dict[str, list[Any]] = {"send": [], "recv": []}
        for f in step["frames"]:
            if not isinstance(f, dict):
                continue
            kept = {k: v for k, v in f.items() if k not in ("at", "dir")}
            if f.get("dir") == "recv" and "json" in kept:
                kept["json"] = _drop_volatile_in_response(kept["json"])
            sides["send" if f.get("dir") == "send" else "recv"].append(kept)
        step["frames"] = sides
        return step
    step.pop("latency_ms", None)  # a timing: it differs on every recording
    exchange = step.get("exchange")
    resp = (exchange or {}).get("response")
    if not isinstance(resp, dict):
        return step
    resp = dict(resp)
    headers = resp.get("headers")
    if isinstance(headers, dict):
        resp["headers"] = {k: v for k, v in headers.items() if not _volatile_header(str(k))}
    if "text" in resp and "body" in resp and _parses_to(resp["text"], resp["body"]):
        # the server's exact text (capture/faithful.py): derivable from body for the decision
        del resp["text"]
    if isinstance(resp.get("body"), (dict, list)):
        resp["body"] = _drop_volatile_in_response(resp["body"])
    if isinstance(resp.get("chunks"), list):
        resp["chunks"] = [
            _volatile_in_chunk().sub("", c) if isinstance(c, str) else c for c in resp["chunks"]
        ]
    step["exchange"] = dict(exchange, response=resp)  # type: ignore[arg-type]
    return step


def _parses_to(text: object, body: object) -> bool:
    try:
        return isinstance(text, str) and json.loads(text) == body
    except ValueError:
        return False


def _same_renamed(
    a: object, b: object, rename_a: Callable[[str], str], rename_b: Callable[[str], str]
) -> bool:
    """Whether ``a`` with its ids renamed by ``rename_a`` equals ``b`` renamed by ``rename_b``
    (strings, dict keys included, renamed; dicts and lists walked; anything else compared as
    ``==`` compares it), without building either renamed copy."""
    stack: list[tuple[object, object]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y and not isinstance(x, (str, dict, list)):
            continue
        if isinstance(x, str):
            if not isinstance(y, str) or rename_a(x) != rename_b(y):
                return False
        elif isinstance(x, dict):
            if not isinstance(y, dict):
                return False
            kx = {rename_a(k) if isinstance(k, str) else k: v for k, v in x.items()}
            ky = {rename_b(k) if isinstance(k, str) else k: v for k, v in y.items()}
            if kx.keys() != ky.keys():
                return False
            stack.extend((v, ky[k]) for k, v in kx.items())
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(y, (str, dict, list)) or not (x is y or x == y):
            return False
    return True


def same_content(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two snapshot dicts differ only in volatile fields: review timestamps, per-response
    headers (request ids, rate limits, dates) and timestamps (``created``), an LLM call's
    ``latency_ms`` (present on either side or not), provider-invented ids
    renamed consistently (tool-call ids ``call_…`` / ``toolu_…`` and the results that answer them,
    response and message ids, also where the output or input quotes them), and whether a call's
    messages are stored once or twice.

    The ids each side's trace holds are renamed ``<id1>``, ``<id2>`` … in order of first
    appearance, so two recordings that differ only by fresh ids compare equal, while a changed
    id structure (a tool result now answering another call) still differs. Neither dict is
    changed or copied whole: each step is reduced to what a change means with its untouched
    parts shared, and the two sides are compared renamed string by string (a 5,000-call golden
    was deep-copied, then copied again renamed, on each side)."""
    top_a = {k: v for k, v in a.items() if k not in _VOLATILE_TOP and k != "trace"}
    top_b = {k: v for k, v in b.items() if k not in _VOLATILE_TOP and k != "trace"}
    if top_a.keys() != top_b.keys() or top_a.pop("name", None) != top_b.pop("name", None):
        return False
    steps_a, steps_b = _stripped_trace(a), _stripped_trace(b)
    if isinstance(steps_a, list) and isinstance(steps_b, list) and len(steps_a) != len(steps_b):
        return False
    renamers = [_ids_renamed(steps_a), _ids_renamed(steps_b)]
    # the output (input, model …) renamed by its trace's ids too: an answer that quotes a
    # response or tool-call id ("see call_abc123") is the same answer when only the id is new
    return _same_renamed(top_a, top_b, renamers[0], renamers[1]) and _same_renamed(
        steps_a, steps_b, renamers[0], renamers[1]
    )


def _stripped_trace(data: Mapping[str, Any]) -> Any:
    """A snapshot dict's trace, each step reduced to what a change means (:func:`_stripped_step`)."""
    trace = data.get("trace") or []
    if isinstance(trace, list):
        return [_stripped_step(s) if isinstance(s, dict) else s for s in trace]
    return trace


def _ids_renamed(steps: object) -> Callable[[str], str]:
    """The renaming of the provider-minted ids of ``steps`` to ``<id1>``, ``<id2>`` … in order
    of first appearance (:func:`_collect_ids`)."""
    ids: dict[str, None] = {}
    _collect_ids(steps, ids)
    return _renamer({value: f"<id{i}>" for i, value in enumerate(ids, 1)})


def same_output(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two snapshot dicts' outputs are the same once each side's provider-minted ids
    (those of its own trace) are renamed, as :func:`same_content` reads them: an answer that
    quotes a tool call's or a response's id is the same answer with a fresh id."""
    if a.get("output") == b.get("output"):
        return True
    renamers = (_ids_renamed(_stripped_trace(a)), _ids_renamed(_stripped_trace(b)))
    return _same_renamed(a.get("output"), b.get("output"), *renamers)


#: how many tool names :func:`behaviour_changes` lists on each side before "… (N more)"
_TOOLS_SHOWN = 6


def _tool_sequence(names: list[str]) -> str:
    if not names:
        return "(none)"
    shown = ", ".join(names[:_TOOLS_SHOWN])
    return shown if len(names) <= _TOOLS_SHOWN else f"{shown} … ({len(names) - _TOOLS_SHOWN} more)"


def behaviour_changes(old: Snapshot, new: Snapshot) -> list[str]:
    """What changed between two versions of a snapshot whose content differs (not
    :func:`same_content`), as a reviewer reads it first: ``steps 3 → 5``, ``tools get_weather →
    get_weather, get_weather`` (else ``tool arguments changed``), ``model A → B``, ``output
    changed``; when none of these did, ``llm requests or responses changed (same steps, tools and
    output)``. Tool-call ids are not compared (providers invent them)."""
    out: list[str] = []
    if len(old.trace) != len(new.trace):
        out.append(f"steps {len(old.trace)} → {len(new.trace)}")
    names = ([str(s.get("name")) for s in snap.tool_calls] for snap in (old, new))
    before, after = names
    if before != after:
        out.append(f"tools {_tool_sequence(before)} → {_tool_sequence(after)}")
    elif [s.get("args") for s in old.tool_calls] != [s.get("args") for s in new.tool_calls]:
        out.append("tool arguments changed")
    if old.model != new.model:
        out.append(f"model {old.model} → {new.model}")
    if old.output != new.output:
        out.append("output changed")
    return out or ["llm requests or responses changed (same steps, tools and output)"]
