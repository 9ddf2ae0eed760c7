"""Replay: recorded exchanges indexed by a canonical request key.

A :class:`Cassette` is built once from a snapshot's steps. Lookup is O(1): the
request key is ``(method, path?query, canonical JSON body)`` — sorted keys, no
whitespace, secrets scrubbed exactly as they were when recorded — and each key
holds a FIFO of recorded responses, so identical requests (a retried 429, two
equal concurrent calls) are served in recorded order and different concurrent
requests each get their own response whatever order they arrive in. The host
is not part of the key: a recording made against a local fake provider
replays for a client pointed at the real API, and vice versa. The index holds
:func:`~agentsnap.storage.wire.replay_key`, equal exactly when the request key is
(a property test holds it to that) and cheaper to compute.

A request equal to a recording but for values its client minted (a random
tool-call id, a uuid4 key: :mod:`agentsnap.capture.client_ids`) is an exact match too.
When no recording has the exact key, the next unplayed exchange recorded for
the same method and path is served (recorded order) and the step is marked
with ``request_drift`` — the JSON paths where the request differs — so the run
fails with a readable ``llm_requests`` diff instead of stopping at the first
changed prompt. ``strict=True`` turns that off. When nothing is left to serve,
:class:`~agentsnap.exceptions.ReplayMissError` is raised.

A snapshot written by agentsnap 0.5.1 (``legacy=True``) holds no exchanges: each
``llm_call`` step's ``raw_response`` is served as the wire response it was
parsed from (:mod:`agentsnap.storage.legacy`), by position, as 0.5.1 replayed them.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Iterator, Sequence
from typing import Any, cast

from ..exceptions import ReplayMissError
from ..storage import snapshot as _snapshot
from ..storage.lazy_steps import RawSteps
from ..storage.scrub import rules as _rules
from ..storage.wire import canonical_json, replay_key, request_key

__all__ = ["Cassette", "canonical_json", "request_key"]


class Cassette:
    """The recorded exchanges of one snapshot, ready to be served.

    ``steps``: a snapshot's ``trace`` list, or a large golden's steps as text
    (:class:`~agentsnap.storage.lazy_steps.RawSteps`: each decoded once to index it, and again when
    served); every step with an ``exchange`` is servable. ``name`` / ``path`` are used in miss
    messages.
    """

    def __init__(
        self,
        steps: list[dict[str, Any]] | RawSteps,
        *,
        name: str = "",
        path: object = None,
        strict: bool = False,
        legacy: bool = False,
        what: str = "LLM call",
    ) -> None:
        self.name = name
        #: what one request is, in miss messages (``"LLM call"``; an MCP session's cassette names its server)
        self.what = what
        #: the steps of recorded MCP sessions (``session`` set): served by their own cassettes
        #: (:mod:`agentsnap.capture.mcp.peer`), not by this one
        self.mcp_steps: list[dict[str, Any]] = []
        #: the steps of recorded WebSocket connections (``connection`` set): played back by
        #: :mod:`agentsnap.capture.websocket.fake`, not served by this cassette
        self.ws_steps: list[dict[str, Any]] = []
        self.path = path
        self.strict = strict
        self._lock = threading.Lock()
        raw = steps if isinstance(steps, RawSteps) else None
        #: the recordings are a large golden's steps as text (read when served)
        self.by_step = raw is not None
        self._entries: list[dict[str, Any]] | _StepExchanges = (
            [] if raw is None else _StepExchanges(raw)
        )
        #: by :func:`~agentsnap.storage.wire.replay_key` (equal exactly when ``request_key`` is, cheaper)
        #: (each queue a list in reverse recorded order, served from its end: a one-item list is a
        #: tenth of a deque's size, and most requests are recorded once)
        self._by_key: dict[tuple[str, str, bytes], list[int]] = defaultdict(list)
        self._by_route: dict[tuple[str, str], list[int]] = defaultdict(list)
        #: by the key of the request with its client-minted values renamed (agentsnap.capture.client_ids);
        #: only recordings that hold such values are here
        self._by_client: dict[tuple[str, str, bytes], list[int]] = defaultdict(list)
        #: the minted-looking values the recorded responses carry (built with the first miss)
        self._known: set[str] | None = None
        self._played: list[bool] = []
        #: per recording: 1 once served for a request of its own replay key (:meth:`by_key`), 2 for
        #: one equal to it but for values the client minted (:meth:`client_values`)
        self._keyed = bytearray()
        self.calls = 0
        #: 0.5.1 llm_call steps in recorded order: (entry index or None, what to serve or why not)
        self._legacy: deque[tuple[int | None, Any]] = deque()
        self.legacy = legacy
        #: ``(trace, rules, holds, finite)`` when the steps are a golden's whose ``trace_digest``
        #: was checked as the cassette was made, under those ``redact`` rules (:meth:`prove`)
        self.proof: tuple[object, object, bool, bool] | None = None
        if legacy and raw is None:
            self._add_legacy(steps)
        # (a large golden's steps as text: read no further than its requests, one at a time)
        for position, step in enumerate(steps if raw is None else raw.skeletons()):
            if what == "LLM call" and isinstance(step.get("session"), int):
                self.mcp_steps.append(step)
                continue
            if what == "LLM call" and isinstance(step.get("connection"), int):
                self.ws_steps.append(step)
                continue
            ex = step.get("exchange")
            if (
                not isinstance(ex, dict)
                or not isinstance(ex.get("request"), dict)
                or not isinstance(ex.get("response"), dict)
            ):
                continue
            idx = len(self._entries)
            self._entries.append(ex if raw is None else position)  # type: ignore[arg-type]
            self._played.append(False)
            self._keyed.append(0)
            key = replay_key(ex["request"]) if raw is None else raw.key(position, ex["request"])
            self._by_key[key].append(idx)
            self._by_route[key[:2]].append(idx)
        _reverse_each(self._by_key, self._by_route)

    def _add_legacy(self, steps: list[dict[str, Any]] | RawSteps) -> None:
        from ..storage.legacy import legacy_exchange

        for step in steps:
            if step.get("type") != "llm_call" or isinstance(step.get("exchange"), dict):
                continue
            found = legacy_exchange(step)
            idx = None
            if found.exchange is not None:
                idx = len(self._entries)
                self._entries.append(found.exchange)  # type: ignore[arg-type]
                self._played.append(False)
                self._keyed.append(0)
            self._legacy.append((idx, found))

    def _take_legacy(
        self, request: dict[str, Any], call_index: int
    ) -> tuple[int, dict[str, Any], list[str] | None] | None:
        """Serve the next 0.5.1 step for an LLM request (None: the request is not an LLM endpoint)."""
        from ..storage.legacy import ENDPOINTS
        from .remedies import record_hint

        path = str(request.get("path") or "").split("?", 1)[0].rstrip("/")
        if not any(path.endswith(suffix) for suffix in ENDPOINTS.values()):
            return None
        where = f"{self.name!r}" + (f" ({self.path})" if self.path else "")
        fix = (
            "Fix: re-record it with agentsnap from this repo: "
            + record_hint(
                self.name, "`pytest --agentsnap-record` (this test only: add its node id)"
            )
            + ", "
            "review the snapshot, commit it."
        )
        if not self._legacy:
            raise ReplayMissError(
                f"agentsnap replay miss: LLM call index {call_index} (POST {path}) has no recorded response in snapshot {where} "
                f"(written by agentsnap 0.5.1): it recorded {len(self._entries)} call(s), all already served.\n  {fix}"
            )
        idx, found = self._legacy.popleft()
        if found.exchange is None or idx is None:
            raise ReplayMissError(
                f"agentsnap replay: LLM call index {call_index} (POST {path}) is trace step {found.step_no} of snapshot {where}, "
                f"written by agentsnap 0.5.1; that step {found.problem}, so there is nothing to serve.\n  {fix}"
            )
        expected = ENDPOINTS.get(found.kind or "", "")
        if not path.endswith(expected):
            raise ReplayMissError(
                f"agentsnap replay miss: LLM call index {call_index} (POST {path}) meets trace step {found.step_no} of snapshot "
                f"{where} (agentsnap 0.5.1), which was recorded for {expected} ({found.kind}): the agent now calls another "
                f"endpoint here.\n  {fix}"
            )
        self._played[idx] = True
        return idx, self._entries[idx], None

    def prove(self, trace: list[dict[str, Any]], digest: str) -> None:
        """Check ``digest`` (its golden's ``trace_digest``) against ``trace``, the steps this
        cassette serves from (:func:`~agentsnap.storage.snapshot.trace_proof`), and keep the
        answer: :func:`~agentsnap._pytest.golden_run.golden_again` reads it at the test's end
        instead of hashing the steps again, and :attr:`texts_parse_to_bodies` reads it for each
        served response."""
        holds, finite = _snapshot.trace_proof(trace, digest)
        self.proof = (trace, _rules.active(), holds, finite)

    def proven(self, trace: object) -> tuple[bool, bool] | None:
        """:meth:`prove`'s ``(holds, finite)`` for ``trace`` (the same list) under the rules in
        force now; None when it was not proven so."""
        proof = self.proof
        if proof is None or proof[0] is not trace or proof[1] is not _rules.active():
            return None
        return proof[2], proof[3]

    @property
    def texts_parse_to_bodies(self) -> bool:
        """Whether every recorded response that stores its exact ``text`` beside its ``body`` is
        known to parse to that body without parsing it again: the steps hold their golden's
        ``trace_digest`` (written only for steps agentsnap derived from the exchanges it recorded,
        whose text is the body's own wire text: :func:`~agentsnap.capture.faithful.response_body`;
        a body edited or scrubbed later no longer holds it) and no float in them is NaN or
        infinite (a NaN is unequal to itself: such a body is compared as it is today)."""
        proof = self.proof
        return proof is not None and proof[2] and proof[3]

    @property
    def serves_as_sent(self) -> bool:
        """Whether :meth:`stored_request` may answer: the steps hold their golden's digest under
        the ``redact`` rules in force (:meth:`prove`), and are neither a large golden's steps as
        text nor agentsnap 0.5.1's."""
        proof = self.proof
        return (
            proof is not None
            and proof[2]
            and proof[1] is _rules.active()
            and not self.by_step
            and not self.legacy
        )

    def stored_request(self, key: tuple[str, str, bytes]) -> dict[str, Any] | None:
        """The stored request of a recording whose :func:`~agentsnap.storage.wire.replay_key` is
        ``key`` (played or not: all of them are equal), when the steps hold their golden's digest
        under the ``redact`` rules in force (:meth:`prove`: each stored request is then the scrub of
        a request this agentsnap recorded under these rules, which scrubbing leaves as it is); None
        otherwise, for a large golden's steps as text and for agentsnap 0.5.1's."""
        if not self.serves_as_sent:
            return None
        queue = self._by_key.get(key)
        if not queue:
            return None
        found: dict[str, Any] = self._entries[queue[-1]]["request"]
        return found

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def recordings(self) -> Sequence[dict[str, Any]]:
        """The servable exchanges (the steps' own ``exchange`` dicts), in recorded order: read only
        (of a large golden's steps as text: each read decodes its step again)."""
        return cast("Sequence[dict[str, Any]]", self._entries)

    def take(self, request: dict[str, Any]) -> tuple[int, dict[str, Any], list[str] | None]:
        """Serve the response recorded for ``request`` (a scrubbed request dict).

        Returns ``(index, recorded exchange, drift)`` — ``index`` is the
        recording's position among the snapshot's exchanges, ``drift`` None for an
        exact match, else the list of ``"json.path: old → new"`` differences
        against the recording that was served in its place.

        Raises :class:`ReplayMissError` when nothing recorded can be served.
        """
        key = replay_key(request)
        with self._lock:
            call_index = self.calls
            self.calls += 1
            if self.legacy:
                served = self._take_legacy(request, call_index)
                if served is not None:
                    return served
            queue = self._by_key.get(key)
            idx = self._pop(queue)
            if idx is not None:
                if not queue and self.by_step:  # (a large golden's: a key served in full let go)
                    del self._by_key[key]
                self._keyed[idx] = 1
                return idx, self._entries[idx], None
            idx = self._take_up_to_client_ids(request)
            if idx is not None:  # equal but for values the client minted: an exact match
                return idx, self._entries[idx], None
            if not self.strict:
                idx = self._pop(self._by_route.get(key[:2]))
                if idx is not None:
                    recorded = self._entries[idx]["request"]
                    return (
                        idx,
                        self._entries[idx],
                        request_changes(recorded.get("body"), request.get("body")),
                    )
            raise ReplayMissError(self._miss_message(request, key, call_index))

    def by_key(self, index: int) -> bool:
        """Whether recording ``index``, served by :meth:`take`, was found by the request's own
        replay key (its body's sorted MessagePack equal to the recording's: the same JSON value
        but for a NaN), not by a rename of client-minted values or by route."""
        return self._keyed[index] == 1

    def _take_up_to_client_ids(self, request: dict[str, Any]) -> int | None:
        """The next unplayed recording equal to ``request`` once the values a client minted
        (a random tool-call id, a uuid4 key) are renamed on both sides (rule in
        :mod:`agentsnap.capture.client_ids`), or None."""
        from .client_ids import normalise, server_minted

        if self._known is None:  # first use: index the recordings that hold minted values
            # what the server said first, a request before its own response, in recorded order
            self._known = server_minted(
                said
                for ex in self._entries
                for said in ((True, ex["request"].get("body")), (False, ex.get("response")))
            )
            for idx, ex in enumerate(self._entries):
                body, renamed = normalise(ex["request"].get("body"), self._known)
                if renamed:
                    self._by_client[replay_key({**ex["request"], "body": body})].append(idx)
            _reverse_each(self._by_client)
        if not self._by_client:
            return None
        body, renamed = normalise(request.get("body"), self._known)
        if not renamed:
            return None
        found = self._pop(self._by_client.get(replay_key({**request, "body": body})))
        if found is not None:
            self._keyed[found] = 2
        return found

    def client_values(self, index: int, request: dict[str, Any]) -> dict[str, str]:
        """For recording ``index`` served for ``request`` equal but for the values their clients
        minted: each of the recording's such values -> the one ``request`` holds in its place
        (:func:`~agentsnap.capture.client_ids.live_values`), so the served response's echo of
        a client value carries this run's; {} for any other recording."""
        from .client_ids import live_values, normalise

        if self._known is None or self._keyed[index] != 2:
            return {}
        golden: dict[str, str] = {}
        live: dict[str, str] = {}
        normalise(self._entries[index]["request"].get("body"), self._known, golden)
        normalise(request.get("body"), self._known, live)
        return live_values(golden, live)

    def _pop(self, queue: list[int] | None) -> int | None:
        while queue:
            idx = queue.pop()
            if not self._played[idx]:
                self._played[idx] = True
                return idx
        return None

    def again(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """The recording of exactly ``request`` served last, to serve once more (an idempotent
        read an SDK repeats a varying number of times, such as MCP's ``tools/list``), or None."""
        key = replay_key(request)
        with self._lock:
            for idx in range(len(self._entries) - 1, -1, -1):
                if self._played[idx] and replay_key(self._entries[idx]["request"]) == key:
                    return idx, self._entries[idx]
        return None

    def unplayed(self) -> int:
        """How many recorded exchanges were never served."""
        return self._played.count(False)

    def remaining(self, request: dict[str, Any]) -> int:
        """How many recordings of exactly this request (same replay key) are still unplayed.

        Lets an SDK's retry loop give up in replay where the recorded run gave up.
        """
        with self._lock:
            return sum(
                1 for idx in self._by_key.get(replay_key(request), ()) if not self._played[idx]
            )

    def _miss_message(
        self, request: dict[str, Any], key: tuple[str, str, bytes], call_index: int
    ) -> str:
        from .remedies import record_hint

        route = f"{key[0]} {key[1]}"
        same_route = [
            i for i, e in enumerate(self._entries) if replay_key(e["request"])[:2] == key[:2]
        ]
        where = f"{self.name!r}" + (f" ({self.path})" if self.path else "")
        node = self.name if "::" in self.name else ""
        record = record_hint(
            self.name,
            f"`pytest {node} --agentsnap-record`"
            if node
            else "`pytest --agentsnap-record` (this test only: add its node id)",
        )
        lines = [
            f"agentsnap replay miss: {self.what} index {call_index} ({route}) has no recorded response in snapshot {where}."
        ]
        if not self._entries:
            lines.append(
                "  The snapshot holds no recorded LLM calls: the run that wrote it kept none (it was not instrumented, "
                "e.g. the one-line snapshot(actual) form without --agentsnap-instrument), so replay has nothing to serve. "
                "This is not a change in your agent."
            )
            lines.append(
                f"  Fix: record it once with its LLM calls: {record}, review the snapshot, commit it."
            )
            return "\n".join(lines)
        if not same_route:
            lines.append(
                f"  The snapshot holds {len(self._entries)} recorded call(s), none for {route}."
            )
        else:
            served = sum(1 for i in same_route if self._played[i])
            left = len(same_route) - served
            if left == 0:
                lines.append(
                    f"  The snapshot holds {len(same_route)} call(s) for {route}; all were already served."
                )
            else:
                lines.append(
                    f"  The snapshot holds {len(same_route)} call(s) for {route}: {served} already served, "
                    f"{left} not served because {'it differs' if left == 1 else 'they differ'} from this request "
                    "(strict replay serves exact matches only)."
                )
            candidates = [i for i in same_route if not self._played[i]] or same_route
            nearest = min(
                candidates,
                key=lambda i: len(
                    request_changes(self._entries[i]["request"].get("body"), request.get("body"))
                ),
            )
            changes = request_changes(
                self._entries[nearest]["request"].get("body"), request.get("body")
            )
            if changes:
                lines.append("  Nearest recorded request differs at:")
                lines.extend(f"    {c}" for c in changes[:8])
                if len(changes) > 8:
                    lines.append(f"    … {len(changes) - 8} more")
            else:
                lines.append(
                    "  An identical request was recorded but already served (the agent now makes more calls)."
                )
        lines.append(
            f"  Fix: if the change is intended, re-record with {record}, review the snapshot, commit it."
        )
        return "\n".join(lines)


class _StepExchanges:
    """A cassette's recordings from a large golden's steps as text: the positions of the steps
    that hold them, each ``exchange`` decoded when read (a fresh dict each time)."""

    __slots__ = ("positions", "steps")

    def __init__(self, steps: RawSteps) -> None:
        self.steps = steps
        self.positions: list[int] = []

    def append(self, position: int) -> None:
        self.positions.append(position)

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        exchange: dict[str, Any] = self.steps.step(self.positions[idx])["exchange"]
        return exchange

    def decode_all(self) -> None:
        """Every step decoded once, from now on read as shared dicts (``RawSteps.decoded``)."""
        self.steps.held.decode_all()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for idx in range(len(self.positions)):
            yield self[idx]


def _reverse_each(*indexes: dict[Any, list[int]]) -> None:
    """Each queue of ``indexes`` (built in recorded order) reversed: served by ``pop()``."""
    for index in indexes:
        for queue in index.values():
            if len(queue) > 1:
                queue.reverse()


def request_changes(old: object, new: object, *, limit: int = 20) -> list[str]:
    """Human-readable JSON-path differences between two request bodies."""
    from ..jsondiff import diff_values

    changes = diff_values(old, new, root="")
    return [
        f"{c['path'].lstrip('.') or '(whole body)'}: {_whole(c, 'old')} → {_whole(c, 'new')}"
        for c in changes[:limit]
    ]


def _whole(change: dict[str, Any], side: str) -> str:
    """One side of a request change, never cut (a changed prompt must be readable in full)."""
    absent = (change.get("kind") == "added" and side == "old") or (
        change.get("kind") == "removed" and side == "new"
    )
    return "<absent>" if absent else repr(change.get(side))
