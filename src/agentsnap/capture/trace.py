"""The trace of one agent run: exchanges and tool calls turned into snapshot steps.

A :class:`Trace` collects what happened while it was active:

* :class:`Exchange` objects — one per HTTP request an LLM SDK sent (captured at
  ``httpx``/``httpx2`` ``Client.send``), holding the raw request and response;
* explicit tool calls reported by adapters (:meth:`Trace.add_tool_call`);
* MCP sessions (:meth:`Trace.add_mcp_channel`), whose requests become ``tool_call``
  and ``mcp`` steps (:mod:`agentsnap.capture.mcp.steps`);
* WebSocket connections (:meth:`Trace.add_ws_connection`): a ``websocket`` step each (the
  frames replay serves), and their model turns as ``llm_call`` steps
  (:mod:`agentsnap.capture.websocket.turns`).

:meth:`Trace.steps` turns that into the list of step dicts stored in a snapshot:
``llm_call`` steps (normalised view + raw ``exchange``), ``tool_call`` steps and
``http`` steps (provider traffic that is not an LLM call, kept only so replay
stays offline).

The active recording that feeds a trace: :mod:`agentsnap.capture.active`.
"""

from __future__ import annotations

import bisect
import contextlib
import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..storage.wire import (
    Exchange,
    Repeats,
    canonical_json,
    chunk_bytes,
    decompress,
    next_seq,
    request_key,
)

if TYPE_CHECKING:
    from .mcp.channel import Channel
    from .websocket.frames import Connection

__all__ = ["Exchange", "Trace"]


class Trace:
    """Everything captured while one recording was active. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: the thread the trace was made in (the test's): exchanges sent from any other are
        #: a worker's (:func:`_order`)
        self.thread = threading.get_ident()
        self.exchanges: list[Exchange] = []
        #: explicit tool calls: (started, ended, seq, step), monotonic seconds
        self._tool_calls: list[tuple[float, float, int, dict[str, Any]]] = []
        #: called by :meth:`close_open_streams`: the body sinks of streams not finished yet
        self.finalizers: list[Callable[[], None]] = []
        #: the MCP sessions opened while active (:mod:`agentsnap.capture.mcp`), in opening order
        self.mcp_channels: list[Channel] = []
        #: the WebSocket connections opened while active (:mod:`agentsnap.capture.websocket`)
        self.ws_connections: list[Connection] = []
        #: the captured request bodies' repeats, held once (:class:`~agentsnap.storage.wire.Repeats`)
        self.repeats = Repeats()
        #: and the captured (non-streamed) response bodies' repeats, held once
        self.response_repeats = Repeats()

    def add_exchange(self, exchange: Exchange) -> None:
        """Register an exchange when its request is sent (order = start order)."""
        with self._lock:
            self.exchanges.append(exchange)

    def add_mcp_channel(self, channel: Channel) -> None:
        """Register an MCP session when it opens (its steps: :mod:`agentsnap.capture.mcp.steps`)."""
        with self._lock:
            self.mcp_channels.append(channel)

    def add_ws_connection(self, connection: Connection) -> None:
        """Register a WebSocket connection at its handshake."""
        with self._lock:
            self.ws_connections.append(connection)

    def add_tool_call(
        self,
        name: str,
        args: object,
        result: object,
        *,
        id: str | None = None,
        error: object = None,
        started: float | None = None,
    ) -> None:
        """Record a tool call made through an explicit adapter (``error``: what it raised, if it did).

        ``started``: ``time.monotonic()`` when the call began (default: now, i.e. a call
        reported when it ends is taken as instantaneous); it places the call in the trace.
        """
        step = {"type": "tool_call", "name": name, "args": args, "result": result, "id": id}
        if error is not None:
            step["error"] = error
        ended = time.monotonic()
        with self._lock:
            self._tool_calls.append(
                (ended if started is None else started, ended, next_seq(), step)
            )

    def close_open_streams(self) -> None:
        """Finalize streams the code under test never closed (recorded as incomplete)."""
        for fin in list(self.finalizers):
            fin()

    @property
    def has_traffic(self) -> bool:
        """Whether anything was captured to snapshot: an exchange, an MCP request, or a
        WebSocket connection."""
        return (
            bool(self.exchanges)
            or any(c.calls for c in self.mcp_channels)
            or bool(self.ws_connections)
        )

    @property
    def exchanges_alone(self) -> bool:
        """Whether the exchanges are all there is: no tool call an adapter reported, no MCP
        session, no WebSocket connection (:meth:`steps` then derives every step from them)."""
        return not self._tool_calls and not self.mcp_channels and not self.ws_connections

    @property
    def llm_call_count(self) -> int:
        return sum(1 for e in self.exchanges if e.codec is not None)

    def steps(self) -> list[dict[str, Any]]:
        """The snapshot's ``trace`` list, in a deterministic order.

        Each LLM exchange becomes an ``llm_call`` step (the codec's normalised
        view plus ``exchange``); provider traffic that is not an LLM call becomes
        an ``http`` step. Tool calls are either the explicit ones reported by
        adapters, or — when there are none — derived from the conversation:
        every tool call the model requested, paired by ``tool_call_id`` with the
        result the agent sent back in a later request, placed after the
        ``llm_call`` that requested it, in the order the results were sent
        (results a framework sends its own way, and its final-answer call, as
        :mod:`agentsnap.spec.frameworks` declares); such steps carry ``"derived": true``
        (a golden recorded without them is compared with the new trace viewed
        the same way).

        Order: see :func:`_order`.
        """
        from ..providers import get_codec, get_tool_results
        from ..spec.frameworks import tool_results as framework_tool_results
        from ..spec.frameworks import with_final_answers, with_trajectory_steps

        entries: list[tuple[Exchange, dict[str, Any]]] = []
        sockets: list[dict[str, Any]] = []
        exchanges = list(self.exchanges)
        if self.ws_connections:
            from .websocket.session_steps import connection_steps

            sockets, turns = connection_steps(list(self.ws_connections))
            exchanges += turns
        for ex in exchanges:
            if ex.response is None:
                continue
            if ex.codec is None:
                step: dict[str, Any] = {
                    "type": "http",
                    "provider": ex.provider,
                    "method": ex.request.get("method"),
                    "path": ex.request.get("path"),
                    "status": ex.response.get("status"),
                }
            else:
                step = {"type": "llm_call"}
                step.update(get_codec(ex.codec)(ex.request, _readable(ex.response)))
                # the spec that recognised the traffic names the provider (groq and
                # OpenRouter speak the openai_chat format, whose codec says "openai")
                step["provider"] = ex.provider
                results = get_tool_results(ex.codec)
                step["_tool_results"] = results(ex.request.get("body")) if results else []
                # and the results a framework sends its own way (patches/frameworks/*.toml)
                step["_tool_results"] += framework_tool_results(ex.codec, ex.request.get("body"))
                if ex.request_drift:
                    step["request_drift"] = ex.request_drift
                if ex.replay_index is None and ex.ended is not None and ex.connection is None:
                    # sent for real (live, record): how long the call took, request sent to
                    # response read, in milliseconds; volatile (storage/volatile.py)
                    step["latency_ms"] = round((ex.ended - ex.started) * 1000)
            if ex.connection is None:
                step["exchange"] = ex.to_dict()
            else:
                step["connection"] = ex.connection
            entries.append((ex, step))
        ordered = _order(entries, self.thread)
        if self._tool_calls:
            for _, st in ordered:
                st.pop("_tool_results", None)
            steps = _with_explicit_tool_calls(ordered, list(self._tool_calls))
        else:
            steps = with_final_answers(
                with_trajectory_steps(_with_derived_tool_calls([st for _, st in ordered]))
            )
        if self.mcp_channels:
            from .mcp.steps import channel_steps, with_mcp_steps

            ends = {
                id(st): (ex.ended if ex.ended is not None else ex.started) for ex, st in ordered
            }
            steps = with_mcp_steps(steps, ends, channel_steps(list(self.mcp_channels)))
        if sockets:
            from .websocket.session_steps import with_connection_steps

            steps = with_connection_steps(steps, sockets)
        for i, st in enumerate(steps):
            st["step"] = i
        return steps


def _readable(response: dict[str, Any]) -> dict[str, Any]:
    """The response as a codec reads it: streamed chunks stored as raw bytes
    (a compressed stream, or bytes that were not UTF-8) decoded to one text chunk.

    Decoding follows the response's ``content-encoding`` (:func:`agentsnap.storage.wire.decompress`:
    gzip, deflate; br and zstd when their package is installed). Replay still serves the raw chunks.
    """
    chunks = response.get("chunks")
    if not isinstance(chunks, list) or not any(isinstance(c, dict) for c in chunks):
        return response
    raw = b"".join(chunk_bytes(c) for c in chunks)
    headers = response.get("headers") or {}
    encoding = str(headers.get("content-encoding", "") if isinstance(headers, dict) else "")
    with contextlib.suppress(LookupError, ValueError):  # not decodable here: the bytes as they are
        raw = decompress(raw, encoding)
    return {**response, "chunks": [raw.decode("utf-8", "replace")]}


Entry = tuple[Exchange, dict[str, Any]]


def _order(entries: list[Entry], home: int | None = None) -> list[Entry]:
    """A deterministic order for captured exchanges: the order they were sent, except
    where calls ran concurrently.

    * Replay: the order of the recordings that were served (``replay_index``),
      so a replayed run lines up with its golden however threads or the event
      loop scheduled the calls.
    * Capture: calls are grouped into conversations — a request whose message
      list extends an earlier request's (same prefix) continues that
      conversation; an exchange with no message list (``count_tokens``, any
      ``http`` step) is a conversation of its own. A worker thread's (an exchange
      sent from a thread other than ``home``, the trace's) conversations are taken
      with the ones it made between their turns (:func:`_worker_runs`). Conversations
      that ran concurrently form a block, written one conversation after another,
      ordered by their requests' content (:func:`_by_content`, which does not depend
      on scheduling): those whose first calls overlapped in time (as under
      ``asyncio.gather``), and those two or more worker threads made between the
      same two calls of the trace's own thread (a thread pool's, whether or not their
      calls happened to overlap: a fast server answers one thread before the next
      has sent). Everything else is written in the order it was sent: a side call,
      a ``count_tokens`` or any other request made between two turns of a
      conversation stays between them, and a block stands where its first call
      was sent.
    """
    turns = [e for e in entries if e[0].connection is not None]
    if turns:  # WebSocket turns: merged by the time they began (replay keeps that order)
        rest = _order([e for e in entries if e[0].connection is None], home)
        turns.sort(key=lambda e: e[0].seq)
        merged: list[Entry] = []
        for entry in rest:
            while turns and turns[0][0].seq < entry[0].seq:
                merged.append(turns.pop(0))
            merged.append(entry)
        return merged + turns
    if entries and all(ex.replay_index is not None for ex, _ in entries):
        return sorted(entries, key=lambda e: (e[0].replay_index, e[0].seq))
    entries = sorted(entries, key=lambda e: e[0].seq)
    conversations: list[list[Entry]] = []
    for entry, at in zip(
        entries, conversation_homes([_message_signature(e[1]) for e in entries]), strict=True
    ):
        if at == len(conversations):
            conversations.append([entry])
        else:
            conversations[at].append(entry)
    # the members of blocks: the trace's own thread's conversations, and the workers' runs
    own = [c for c in conversations if home is None or c[0][0].thread == home]
    runs = _worker_runs([c for c in conversations if home is not None and c[0][0].thread != home])
    # a worker's run belongs to the calls of the trace's own thread it was started between
    own_seqs = sorted(ex.seq for conv in own for ex, _ in conv)
    window = {id(run): bisect.bisect_left(own_seqs, run[0][0].seq) for run in runs}
    threads: dict[int, set[int]] = {}
    for run in runs:
        threads.setdefault(window[id(run)], set()).add(run[0][0].thread)
    members = sorted([*own, *runs], key=lambda m: m[0][0].seq)
    # blocks: members whose first calls overlapped in time, or runs of two or more workers
    # in one window (consecutive members: a call of the trace's own thread starts the next)
    groups: list[list[list[Entry]]] = []
    group_end = -1.0
    before: int | None = None  # the window of the member before, None: one of the trace's
    for member in members:  # in order of their first exchange's start
        first = member[0][0]
        end = first.ended if first.ended is not None else float("inf")
        here = window.get(id(member))
        pooled = here is not None and here == before and len(threads[here]) > 1
        if groups and (first.started < group_end or pooled):
            groups[-1].append(member)
            group_end = max(group_end, end)
        else:
            groups.append([member])
            group_end = end
        before = here
    # units to merge by send order: a lone member, exchange by exchange; a block whole
    units: list[list[Entry]] = []
    for group in groups:
        if len(group) == 1:
            units.append(group[0])
        else:
            units.append([entry for member in _by_content(group) for entry in member])
    atomic = [len(group) > 1 for group in groups]
    return [
        units[u][k] for u, k in merged_order([[ex.seq for ex, _ in unit] for unit in units], atomic)
    ]


def _worker_runs(conversations: list[list[Entry]]) -> list[list[Entry]]:
    """Worker threads' conversations (each in send order, the list in order of their first
    exchange) as runs: a conversation with those its thread started before that conversation's
    last call (a side call made between two turns, another conversation the same code
    interleaved with it), in send order. A thread runs one piece of code at a time, so a run
    is what one task of a pool made, whichever worker ran it: separate runs of one thread
    (two tasks the pool gave the same worker) are sorted like any other."""
    runs: list[list[Entry]] = []
    last: dict[int, tuple[list[Entry], int]] = {}  # thread -> its latest run, its last send
    for conv in conversations:
        thread = conv[0][0].thread
        latest = last.get(thread)
        if latest is not None and conv[0][0].seq < latest[1]:
            run = latest[0]
            run[:] = heapq.merge(run, conv, key=lambda e: e[0].seq)
            last[thread] = (run, max(latest[1], conv[-1][0].seq))
        else:
            run = list(conv)
            runs.append(run)
            last[thread] = (run, conv[-1][0].seq)
    return runs


def _by_content(members: list[list[Entry]]) -> list[list[Entry]]:
    """Concurrent conversations (or runs) ordered by their first request's content
    (:func:`~agentsnap.storage.wire.request_key`); those whose first requests are the same
    (one question asked by several workers) by all their requests'. Never by send order."""
    firsts = [request_key(m[0][0].request) for m in members]
    out: list[list[Entry]] = []
    for _, same in itertools.groupby(
        sorted(range(len(members)), key=firsts.__getitem__), key=firsts.__getitem__
    ):
        tied = [members[i] for i in same]
        if len(tied) > 1:
            tied.sort(key=lambda m: [request_key(ex.request) for ex, _ in m])
        out += tied
    return out


def conversation_homes(signatures: list[tuple[str, ...] | None]) -> list[int]:
    """The conversation each request belongs to, by its message list's signature (None: no
    message list, a conversation of its own): the one whose list so far it extends by the most
    (the earliest such on a tie), else a new one (numbered in order). A dict of the lists so
    far, each request looking up its own prefixes longest first (was a scan of every
    conversation for each request: quadratic in a test's calls)."""
    homes: list[int] = []
    tails: list[tuple[str, ...] | None] = []
    #: a list so far -> the conversations it ends, in order
    ending_in: dict[tuple[str, ...], list[int]] = {}
    for sig in signatures:
        home = None
        if sig is not None:
            for length in range(len(sig) - 1, -1, -1):  # its longest proper prefix first
                found = ending_in.get(sig[:length])
                if found:
                    home = found[0]
                    break
        if home is None:
            home = len(tails)
            tails.append(sig)
        else:
            old = tails[home]
            if old is not None:
                ending_in[old].remove(home)
            tails[home] = sig
        if sig is not None:
            bisect.insort(ending_in.setdefault(sig, []), home)
        homes.append(home)
    return homes


def merged_order(seqs: list[list[int]], atomic: list[bool]) -> list[tuple[int, int]]:
    """Units of exchanges (their send numbers, ``seqs[u]``, in unit order) merged by send order,
    as ``(unit, position)`` pairs: next comes the unit whose next exchange was sent first (an
    atomic unit, a block of concurrent conversations: whole, when its first was), the lower
    unit on a tie. A heap of each unit's next send number (was a scan of every unit for each
    exchange: quadratic in a test's calls)."""
    ready = [(min(unit) if atomic[u] else unit[0], u) for u, unit in enumerate(seqs) if unit]
    heapq.heapify(ready)
    heads = [0] * len(seqs)
    out: list[tuple[int, int]] = []
    while ready:
        _, pick = heapq.heappop(ready)
        if atomic[pick]:
            out.extend((pick, k) for k in range(len(seqs[pick])))
            continue
        out.append((pick, heads[pick]))
        heads[pick] += 1
        if heads[pick] < len(seqs[pick]):
            heapq.heappush(ready, (seqs[pick][heads[pick]], pick))
    return out


def last_ended_before(ends: list[float], starts: list[float]) -> list[int]:
    """For each start time, the last position in ``ends`` whose time is at most it (-1: none):
    the step a tool call that started then follows. By bisection over the least end from each
    position on, which never decreases (was a scan of every step for each call)."""
    least = ends[:]
    for i in range(len(least) - 2, -1, -1):
        least[i] = min(least[i], least[i + 1])
    return [bisect.bisect_right(least, start) - 1 for start in starts]


def _message_signature(step: dict[str, Any]) -> tuple[str, ...] | None:
    messages = step.get("messages")
    if step.get("type") != "llm_call" or not isinstance(messages, list):
        return None
    return tuple(canonical_json(m) for m in messages)


def _with_explicit_tool_calls(
    ordered: list[tuple[Exchange, dict[str, Any]]],
    calls: list[tuple[float, float, int, dict[str, Any]]],
) -> list[dict[str, Any]]:
    """The LLM steps in their deterministic order, each followed by the explicit tool calls it led to.

    A tool call follows the last LLM step (in that order) that had ended when the
    call started; calls before any LLM step come first. Calls after the same
    step are in start order, except that calls which overlapped in time (a
    thread pool, ``asyncio.gather``) are ordered by name and arguments, so
    scheduling never changes the trace.
    """
    import json

    ends = [(ex.ended if ex.ended is not None else ex.started) for ex, _ in ordered]
    after: dict[int, list[tuple[float, float, int, dict[str, Any]]]] = {}
    for call, anchor in zip(calls, last_ended_before(ends, [c[0] for c in calls]), strict=True):
        after.setdefault(anchor, []).append(call)

    def content(call: tuple[float, float, int, dict[str, Any]]) -> tuple[str, str]:
        from ..storage.serialize import to_json

        step = call[3]
        return str(step.get("name")), json.dumps(
            to_json(step.get("args")), sort_keys=True, ensure_ascii=False
        )

    def arranged(group: list[tuple[float, float, int, dict[str, Any]]]) -> list[dict[str, Any]]:
        group = sorted(group, key=lambda c: (c[0], c[2]))
        out: list[dict[str, Any]] = []
        cluster: list[tuple[float, float, int, dict[str, Any]]] = []
        reach = float("-inf")

        def settle(cluster: list[tuple[float, float, int, dict[str, Any]]]) -> list[dict[str, Any]]:
            return [c[3] for c in (sorted(cluster, key=content) if len(cluster) > 1 else cluster)]

        for call in group:
            if cluster and call[0] >= reach:  # started after every call so far ended: a new cluster
                out += settle(cluster)
                cluster = []
            cluster.append(call)
            reach = max(reach, call[1]) if len(cluster) > 1 else call[1]
        out += settle(cluster)
        return out

    steps = arranged(after.get(-1, []))
    for i, (_, st) in enumerate(ordered):
        steps.append(st)
        steps += arranged(after.get(i, []))
    return steps


def _with_derived_tool_calls(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Insert ``tool_call`` steps derived from the conversation (see :meth:`Trace.steps`).

    Reads (and removes) each step's transient ``_tool_results`` — what the
    codec found in the request — and pairs each result with a tool call the
    model requested in an earlier step, the same way for every codec:

    * **by id** when the result carries an id the model gave a call — of the
      result's own conversation (:func:`conversation_homes`) when calls of several
      conversations are waiting under that id (a server numbering calls per
      conversation: each gets ``call_0``), else the earliest waiting;
    * **else by position**: the earliest call not answered yet that the
      result could answer — of the result's tool when it names one, and not
      one whose own id differs from the result's (when both sides have an id
      they must agree). That covers a result without an id (Gemini: ``{"id":
      None, "name": ...}``; such codecs report only the results a request
      adds, never the ones it repeats from history) and a result under an id
      the client minted for a call that came without one (strands-agents'
      ``tooluse_…`` for Gemini, ``call_…`` for an OpenAI-compatible server
      that leaves ``id`` empty).

    A result whose id answers no call of this trace (the history an agent
    starts from) is never paired, now or when a later request repeats it.
    """
    waiting: dict[str, list[tuple[int, dict[str, Any]]]] = {}  # id -> its calls not answered
    unanswered: list[tuple[int, dict[str, Any]]] = []  # in request order
    derived_after: dict[int, list[dict[str, Any]]] = {}
    seen: set[str] = set()
    answered: dict[str, list[int]] = {}  # id -> the steps whose results answered a call under it
    homes: list[int] = []

    def conversation(pos: int) -> int:  # worked out once, and only when an id is shared
        if not homes:
            homes.extend(conversation_homes([_message_signature(s) for s in steps]))
        return homes[pos]

    for pos, s in enumerate(steps):
        results = s.pop("_tool_results", None) or []
        for res in results:
            call_id = res.get("id")
            calls = waiting.get(call_id) if call_id else None
            if calls and (len(calls) > 1 or call_id in answered):
                # an id calls of several conversations share (a server numbering calls per
                # conversation): this result answers its own conversation's call, and repeats
                # one its conversation already had answered
                here = conversation(pos)
                if any(conversation(at) == here for at in answered.get(call_id, ())):
                    continue  # answered already: a result repeated from the history
                origin, req = next((c for c in calls if conversation(c[0]) == here), calls[0])
            elif calls:
                origin, req = calls[0]
            elif call_id and call_id in seen:
                continue  # answered already: a result repeated from the history
            else:
                # no id, or one the model never gave (the client minted it for a call that
                # came without one): by position
                match = next(
                    (
                        entry
                        for entry in unanswered
                        if not (call_id and entry[1].get("id"))
                        and (not res.get("name") or entry[1].get("name") == res["name"])
                    ),
                    None,
                )
                if match is None:
                    if call_id:
                        seen.add(call_id)  # answers no call of this trace: never pair it later
                    continue
                origin, req = match
            unanswered[:] = [entry for entry in unanswered if entry[1] is not req]
            for answer_id in {call_id, req.get("id")} - {None, ""}:
                seen.add(answer_id)
                answered.setdefault(answer_id, []).append(pos)
            if req.get("id"):
                waiting[req["id"]] = [c for c in waiting[req["id"]] if c[1] is not req]
            derived_after.setdefault(origin, []).append(
                {
                    "type": "tool_call",
                    "name": req.get("name"),
                    "args": req.get("args"),
                    "result": res.get("result"),
                    "id": call_id or req.get("id"),
                    "derived": True,
                }
            )
        for req in s.get("tool_requests") or []:
            if req.get("id"):
                calls = waiting.setdefault(req["id"], [])
                if any(conversation(c[0]) == conversation(pos) for c in calls):
                    continue  # the same call still waiting for its result
                # new, or an id another conversation used (fake servers and some providers
                # number calls per conversation: call_1, call_2 ...), answered or not
                seen.discard(req["id"])
                calls.append((pos, req))
            unanswered.append((pos, req))
    out: list[dict[str, Any]] = []
    for pos, s in enumerate(steps):
        out.append(s)
        out.extend(derived_after.get(pos, []))
    return out
