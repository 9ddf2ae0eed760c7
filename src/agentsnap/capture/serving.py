"""Replay: the recorded response of an exchange, looked up and shaped to be served.

:func:`take_recorded` asks the recording's cassette (a miss raises
:class:`~agentsnap.exceptions.ReplayMissError`, counted on the recording);
:func:`replay_headers` and :func:`stored_body_bytes` give each transport the
headers and body bytes to build its library's own response from.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..exceptions import ReplayMissError
from ..storage import wire
from .active import RecordingState as Recording
from .faithful import decode_body

__all__ = ["replay_headers", "stored_body_bytes", "take_recorded"]

_chunk_bytes = wire.chunk_bytes


def take_recorded(recording: Recording, exchange: wire.Exchange) -> dict[str, Any]:
    """Replay: the recorded response for ``exchange``'s request (the stored dict:
    ``status``/``headers`` with ``body``/``text``/``body_b64`` or ``chunks``, or
    ``error``). Marks the exchange served. Raises
    :class:`~agentsnap.exceptions.ReplayMissError` (counted on ``recording``,
    the first kept in ``recording.first_miss``) when nothing recorded matches. A request equal
    to its recording is replaced by the recording's (one copy of it in memory, not two)."""
    assert recording.cassette is not None  # replay mode, not blocked (begin raised)
    try:
        index, recorded, drift = recording.cassette.take(exchange.request)
    except ReplayMissError as exc:
        recording.misses += 1
        if recording.first_miss is None:
            recording.first_miss = exc
        raise
    exchange.replay_index = index
    exchange.request_drift = drift
    cassette = recording.cassette
    same = drift is None and _same_request(cassette, index, recorded["request"], exchange.request)
    if cassette.by_step and same:
        # a large golden's step as text: the recording is read from there when asked, not held
        wire.ServedExchange.hold_by_reference(exchange, cassette.recordings)
        exchange.ended = time.monotonic()
        by_step: dict[str, Any] = recorded["response"]
        return by_step
    if same:
        # the recording's own request (equal value): the run's trace holds no second copy
        exchange.request = recorded["request"]
    stored: dict[str, Any] = recorded["response"]
    if drift is None and not same:
        # equal but for the values the client minted: where the response echoes the recorded
        # client's, it carries this run's (agentsnap.capture.client_ids)
        values = cassette.client_values(index, exchange.request)
        if values:
            from .client_ids import with_values

            stored = json.loads(with_values(json.dumps(stored), values))
    exchange.response = stored
    if not recording.cassette.legacy:  # a golden's own stored form (a 0.5.1 step's is rebuilt)
        exchange.recorded = recorded
    exchange.ended = time.monotonic()
    return stored


#: the fields of a stored request its replay key reads (the body's, as sorted MessagePack)
_KEYED = frozenset({"method", "path", "query", "body"})


def _same_request(cassette: Any, index: int, recorded: Any, request: dict[str, Any]) -> bool:
    """``recorded == request`` for the recording ``index`` just served for ``request``. Found by
    the request's own replay key, with no field the key does not read, the bodies are equal as
    JSON (the key holds the body's sorted MessagePack: equal for equal values of the same types)
    and the rest is compared field by field, without walking the bodies again (a NaN, unequal to
    itself, is the one JSON value taken as equal here: stored, the two read the same)."""
    if (
        cassette.by_key(index)
        and type(recorded) is dict
        and recorded.keys() == request.keys()
        and _KEYED.issuperset(request)
    ):
        return bool(
            recorded.get("method") == request.get("method")
            and recorded.get("path") == request.get("path")
            and recorded.get("query") == request.get("query")
        )
    return bool(recorded == request)


def replay_headers(stored: dict[str, Any]) -> list[tuple[str, str]]:
    """The headers to serve for a stored response, as ``(name, value)`` pairs.

    ``content-length`` / ``transfer-encoding`` are dropped (the replaying
    library frames the body itself). ``content-encoding`` is stored only for
    a body kept encoded (one that could not be decoded), so it is served as
    stored. An error status gets
    ``retry-after-ms: 1``: replay retries at once (the Stainless SDKs honour it).
    """
    raw = stored.get("headers") or {}
    pairs = list(raw.items()) if isinstance(raw, dict) else [tuple(p) for p in raw]
    drop = ("content-length", "transfer-encoding")
    headers = [(str(k), str(v)) for k, v in pairs if str(k).lower() not in drop]
    if int(stored.get("status", 200)) >= 400:
        headers = [(k, v) for k, v in headers if k.lower() != "retry-after-ms"] + [
            ("retry-after-ms", "1")
        ]
    return headers


def stored_body_bytes(stored: dict[str, Any]) -> list[bytes]:
    """A stored response's body as the chunks to serve (one chunk for a read body)."""
    if "chunks" in stored:
        return [_chunk_bytes(c) for c in stored["chunks"]]
    body = decode_body(stored)
    return [body] if body else []
