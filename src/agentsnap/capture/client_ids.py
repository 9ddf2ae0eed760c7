"""Values the client invents, compared up to a consistent renaming.

An agent framework may mint its own random values and send them to the model: a
tool-call id when the provider's answer carried none (strands-agents makes
``tooluse_…`` ids for Gemini's optional ``functionCall.id``), a uuid4 request or
idempotency id in a body, a Realtime ``event_id`` or ``item.id``. They are new on
every run, so an unchanged agent's request never equals its recording, and neither
replay lookup nor the ``llm_requests`` / ``websocket_messages`` checks could tell
them from a change. Ids the *provider* minted need nothing of this: replay serves
the golden's, so the agent sends them back as recorded.

The rule (:func:`normalise`), for a request body or a client message:

* **position**: a string under a key of :data:`REQUEST_ID_KEYS`, outside the
  agent's own data (the subtrees under :data:`PAYLOAD_KEYS` holding an object:
  tool arguments and results, message content; a ``functionResponse``'s own
  ``id`` still counts, it names the call it answers): an id inside a tool's
  arguments is the agent's, and a change of it is a change;
* **provenance, by who said it first**: the server did not carry it before the
  client sent it (:func:`server_minted` walks the recorded exchange in order: a
  request before its own response, a connection's messages as they crossed the
  wire). A value the client sent first stays the client's when the server echoes
  it back (the Realtime API answers ``conversation.item.create`` with
  ``conversation.item.created`` carrying the client's ``item.id``); a value the
  server sent first (a provider's tool-call id, a response id) is the server's
  when the client sends it back, and is not renamed;
* **shape**: it looks minted (:func:`looks_minted`): a UUID, or an optional word
  prefix and at least 12 characters of ``[A-Za-z0-9_-]`` mixing two of lower case,
  upper case and digits.

Such values are renamed ``<client1>``, ``<client2>`` … in the order a walk meets
them (objects in sorted key order, lists in order), the same value always to the
same name; a ``names`` table passed from one call to the next numbers a whole
connection's messages as one, so each name stands for one value on each side and
an agent that reuses one id where it used two differs. Two requests that differ
only in such values normalise equal; a request whose tool result now answers
another call does not (the placeholders land on other calls). :func:`live_values`
pairs the two sides' values by name, so replay can serve the server's echo of a
client value with the value this run's client sent (:func:`with_values`). A leaf
module: standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "MIN_ID",
    "PAYLOAD_KEYS",
    "REQUEST_ID_KEYS",
    "live_values",
    "looks_minted",
    "normalise",
    "response_ids",
    "server_minted",
    "with_values",
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


def _renamable(
    key: object, item: object, inside: bool, referencing: bool, known: set[str] | frozenset[str]
) -> bool:
    return (
        isinstance(item, str)
        and (not inside or referencing)
        and key in REQUEST_ID_KEYS
        and len(item) >= MIN_ID
        and item not in known
        and looks_minted(item)
    )


def normalise(
    body: object, known: set[str] | frozenset[str], names: dict[str, str] | None = None
) -> tuple[Any, bool]:
    """``body`` with the values its client minted renamed (rule in the module doc), and
    whether anything was renamed. ``known``: the values the server said first
    (:func:`server_minted`; :func:`response_ids` of the recorded responses for a caller
    that has no order). ``names``: value -> placeholder, kept and extended across calls
    (one numbering for a connection's messages); a fresh one when None. ``body`` itself
    is not changed."""
    if names is None:
        names = {}
    renamed = False

    def walk(node: object, inside: bool, referencing: bool = False) -> Any:
        nonlocal renamed
        if isinstance(node, dict):
            out: dict[Any, Any] = {}
            for key in sorted(node, key=str):
                item = node[key]
                if _renamable(key, item, inside, referencing, known):
                    out[key] = names.setdefault(item, f"<client{len(names) + 1}>")
                    renamed = True
                else:
                    payload = isinstance(item, dict) and key in PAYLOAD_KEYS
                    out[key] = walk(item, inside or payload, payload and key in _REFERENCING)
            return out
        if isinstance(node, list):
            return [walk(item, inside) for item in node]
        return node

    out = walk(body, False)
    return (out, True) if renamed else (body, False)


def server_minted(said: Iterable[tuple[bool, Any]]) -> set[str]:
    """The minted-looking values the server said first, from ``said``: ``(by_client,
    value)`` in the order they crossed the wire (an HTTP request before its own response).
    A value a client message carried at an id position before any server message did is
    the client's, though the server echo it later; any other minted-looking value a
    server message carries (:func:`response_ids`) is the server's."""
    client: set[str] = set()
    server: set[str] = set()
    for by_client, value in said:
        if by_client:
            names: dict[str, str] = {}
            normalise(value, server, names)
            client.update(names)
        else:
            server.update(response_ids([value]) - client)
    return server


def live_values(golden: dict[str, str], live: dict[str, str]) -> dict[str, str]:
    """golden value -> this run's, for each placeholder both ``names`` tables (of
    :func:`normalise`) gave out: the value the live client sent where the recorded one sent
    the golden's (identical pairs left out)."""
    by_name = {name: value for value, name in live.items()}
    return {
        value: by_name[name]
        for value, name in golden.items()
        if name in by_name and by_name[name] != value
    }


def with_values(text: str, values: dict[str, str]) -> str:
    """``text`` with each whole token that is a key of ``values`` replaced by its value (a
    token: a run of ``[A-Za-z0-9_-]``, as minted ids are)."""
    if not values:
        return text
    pattern = re.compile(
        r"(?<![A-Za-z0-9_-])(?:"
        + "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
        + r")(?![A-Za-z0-9_-])"
    )
    return pattern.sub(lambda m: values[m.group(0)], text)
