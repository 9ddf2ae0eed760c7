"""Values the client invents, compared up to a consistent renaming.

An agent framework may mint its own random values and send them to the model: a
tool-call id when the provider's answer carried none (strands-agents makes
``tooluse_…`` ids for Gemini's optional ``functionCall.id``), a uuid4 request or
idempotency id in a body. They are new on every run, so an unchanged agent's
request never equals its recording, and neither replay lookup nor the
``llm_requests`` check could tell them from a change. Ids the *provider* minted
need nothing of this: replay serves the golden's, so the agent sends them back
as recorded.

The rule (:func:`normalise`), for a request body:

* **position**: a string under a key of :data:`REQUEST_ID_KEYS`, outside the
  agent's own data (the subtrees under :data:`PAYLOAD_KEYS` holding an object:
  tool arguments and results, message content; a ``functionResponse``'s own
  ``id`` still counts, it names the call it answers): an id inside a tool's
  arguments is the agent's, and a change of it is a change;
* **provenance**: no recorded response carried it (:func:`response_ids`), so the
  provider did not mint it;
* **shape**: it looks minted (:func:`looks_minted`): a UUID, or an optional word
  prefix and at least 12 characters of ``[A-Za-z0-9_-]`` mixing two of lower case,
  upper case and digits.

Such values are renamed ``<client1>``, ``<client2>`` … in the order a walk meets
them (objects in sorted key order, lists in order), the same value always to the
same name. Two requests that differ only in such values normalise equal; a
request whose tool result now answers another call does not (the placeholders
land on other calls). A leaf module: standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "MIN_ID",
    "PAYLOAD_KEYS",
    "REQUEST_ID_KEYS",
    "looks_minted",
    "normalise",
    "response_ids",
]

#: keys whose string value in a request may be an id the client minted
REQUEST_ID_KEYS = frozenset(
    {
        "id",
        "tool_call_id",
        "tool_use_id",
        "call_id",
        "toolUseId",
        "request_id",
        "idempotency_key",
        "event_id",
    }
)
#: subtrees that hold the agent's own data (tool arguments and results, its input and output,
#: message content): an "id" there is the agent's, and a change of it is a change
PAYLOAD_KEYS = frozenset(
    {"args", "arguments", "parameters", "result", "functionResponse", "output", "content"}
)
#: payload objects whose own id keys reference a call (Gemini's ``functionResponse.id``
#: answers ``functionCall.id``): those keys count, the payload under them does not
_REFERENCING = frozenset({"functionResponse"})
#: shorter values are not taken for minted ids (they would rename ordinary words and numbers)
MIN_ID = 6

_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_TOKEN = re.compile(r"(?:[A-Za-z][A-Za-z0-9]*[_-])?([A-Za-z0-9_-]{12,})")
_CANDIDATE_IN_TEXT = re.compile(r"[A-Za-z0-9_-]{12,}")


def looks_minted(value: str) -> bool:
    """Whether ``value`` has the shape of a random id: a UUID, or an optional word prefix
    (``tooluse_``, ``call_``) then 12 or more of ``[A-Za-z0-9_-]`` mixing at least two of
    lower case, upper case and digits (base64 and hex tokens do; words and snake_case
    names do not)."""
    if _UUID.fullmatch(value):
        return True
    match = _TOKEN.fullmatch(value)
    if match is None:
        return False
    tail: str = match.group(1)
    kinds = (
        any(c.islower() for c in tail),
        any(c.isupper() for c in tail),
        any(c.isdigit() for c in tail),
    )
    return sum(kinds) >= 2


def response_ids(responses: Iterable[Any]) -> set[str]:
    """Every minted-looking string the recorded responses carry: any string value of a
    parsed body, and the candidate tokens of streamed chunk text (provider-minted ids
    come back in the agent's next request and stay as they are)."""
    found: set[str] = set()
    stack: list[Any] = list(responses)
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if looks_minted(node):
                found.add(node)
            found.update(t for t in _CANDIDATE_IN_TEXT.findall(node) if looks_minted(t))
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def normalise(body: object, known: set[str] | frozenset[str]) -> tuple[Any, bool]:
    """``body`` with the values its client minted renamed (rule in the module doc), and
    whether anything was renamed. ``known``: :func:`response_ids` of the recorded
    responses. ``body`` itself is not changed."""
    names: dict[str, str] = {}

    def walk(node: object, inside: bool, referencing: bool = False) -> Any:
        if isinstance(node, dict):
            out: dict[Any, Any] = {}
            for key in sorted(node, key=str):
                item = node[key]
                if (
                    isinstance(item, str)
                    and (not inside or referencing)
                    and key in REQUEST_ID_KEYS
                    and len(item) >= MIN_ID
                    and item not in known
                    and looks_minted(item)
                ):
                    out[key] = names.setdefault(item, f"<client{len(names) + 1}>")
                else:
                    payload = isinstance(item, dict) and key in PAYLOAD_KEYS
                    out[key] = walk(item, inside or payload, payload and key in _REFERENCING)
            return out
        if isinstance(node, list):
            return [walk(item, inside) for item in node]
        return node

    renamed = walk(body, False)
    return (renamed, True) if names else (body, False)
