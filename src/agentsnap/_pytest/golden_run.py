"""A replayed test whose run is its golden: its snapshot made from the golden's own steps.

:func:`run_snapshot` is the snapshot a test's auto-recording settles (the state table:
:func:`agentsnap.lifecycle.settle`). Usually it is built from the recording's trace
(:func:`agentsnap.lifecycle.build_snapshot`: every LLM call's view read from its exchange,
tool calls derived, all of it converted and scrubbed as it will be stored). A replayed run
that served each of its golden's exchanges once, in recorded order, to a request the same as
the recorded one, and captured nothing else, holds the golden's exchanges themselves: its
steps are the golden's, and they are taken from there, with nothing built, converted or
scrubbed. What follows is unchanged: the comparison (which finds each check's inputs the same
objects on both sides and answers with the check's own short answer), the ``.last_run``
record and the budget row.

That the golden's steps are what its exchanges make is not assumed: the golden must carry a
``trace_digest`` that is still :func:`agentsnap.storage.snapshot.trace_digest` of its trace.
agentsnap writes one only for a trace it derived from its exchanges alone (no tool call an
adapter reported, no MCP session or WebSocket connection), and it binds the trace to the
agentsnap version and the ``redact`` rules that derived it. A golden edited by hand (a tool
argument, an output, a usage count, a step removed), written by another agentsnap or under
other rules, or without a digest (older files, agentsnap 0.5.1's) gets the snapshot built
from the trace, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import lifecycle as _lifecycle
from ..storage import lazy_steps as _steps
from ..storage import scrub as _scrub
from ..storage import serialize as _serialize
from ..storage import snapshot as _snapshot
from ..storage import wire as _wire
from ..storage.scrub import text as _scrub_text
from ..storage.snapshot import Snapshot

if TYPE_CHECKING:
    from ..capture.recording import Recording

__all__ = ["GoldenAgain", "golden_again", "prepared_output", "run_snapshot"]


class GoldenAgain(Snapshot):
    """A run's snapshot made of its golden's steps (:func:`golden_again`): what is counted in
    them (LLM calls, tool calls, request tokens) is the golden's count too."""


#: step keys a replayed run's steps never carry (``Trace.steps`` sets them only for calls sent
#: for real): left out of the golden's steps the run is made of
_SENT_ONLY = "latency_ms"


def run_snapshot(
    name: str, recording: Recording, golden: Snapshot | None, *, judged_as: str | None = None
) -> Snapshot:
    """The snapshot of test ``name``'s run: :func:`golden_again` when it holds, else built from
    the recording's trace (marked :attr:`~agentsnap.storage.snapshot.Snapshot.derived` when it
    captured for real and the trace is its exchanges alone: a golden saved from it carries its
    ``trace_digest``).
    ``judged_as``: the run is compared as another mode's (a kept live sample replayed): never
    the golden again."""
    if judged_as is None and golden is not None:
        again = golden_again(name, recording, golden)
        if again is not None:
            return again
    trace = recording.trace
    snap = _lifecycle.build_snapshot(
        name, trace.steps(), source="pytest", output_from_trace=True, traced=True
    )
    snap.derived = recording.mode == "capture" and trace.exchanges_alone  # (live, record)
    return snap


def golden_again(name: str, recording: Recording, golden: Snapshot) -> Snapshot | None:
    """The run's snapshot made from ``golden``'s steps, when the run is provably the golden's
    (module doc); None otherwise. The conditions, all of them:

    * replay served from a cassette of this golden's exchanges alone (not a 0.5.1 golden's
      rebuilt ones, nor later snapshots' appended), with no miss and no blocked call;
    * the trace holds exchanges alone, one per recording, the ``i``-th served recording ``i``
      (recorded order), each request being the recording's own (matched by its key and equal:
      no ``request_drift``, no client-minted ids renamed), each response the one recorded, for
      the provider that recorded it;
    * the golden's ``trace_digest`` is still its trace's (:func:`~agentsnap.storage.snapshot.trace_digest`,
      checked by :func:`~agentsnap.storage.snapshot.trace_proof` on the keys in file order; the
      answer the cassette kept when it was made is read, :meth:`~agentsnap.capture.cassette.Cassette.prove`).

    The steps are copies of the golden's step dicts (without ``latency_ms``, which a replayed
    call never has), holding the golden's values; output and model are read from them as
    :func:`~agentsnap.lifecycle.build_snapshot` reads them, the output prepared as it prepares
    it (a ``redact`` path applies to an answer that is JSON text); nothing else is converted or
    scrubbed again (:attr:`~agentsnap.storage.snapshot.Snapshot.prepared`)."""
    cassette = recording.cassette
    if (
        recording.mode != "replay"
        or cassette is None
        or cassette.legacy
        or cassette.mcp_steps
        or cassette.ws_steps
        or recording.misses
        or recording.blocked_calls
        or golden.trace_digest is None
        or not recording.trace.exchanges_alone
    ):
        return None
    served = recording.trace.exchanges
    if cassette.by_step:
        return _again_by_step(name, served, cassette.recordings, golden)
    recorded = cassette.recordings
    with_exchange = [step for step in golden.trace if "exchange" in step]
    if not (len(served) == len(recorded) == len(with_exchange)):
        return None
    for index, (ex, rec, step) in enumerate(zip(served, recorded, with_exchange, strict=True)):
        if (
            rec is not step["exchange"]
            or ex.recorded is not rec
            or ex.replay_index != index
            or ex.request_drift is not None
            or ex.connection is not None
            or ex.request is not rec["request"]
            or ex.response is not rec["response"]
            or ex.provider != step.get("provider")
            or (ex.codec is None) != (step.get("type") == "http")
        ):
            return None
    # checked as the cassette was made (its answer kept), else here
    proof = cassette.proven(golden.trace)
    holds, finite = proof or _snapshot.trace_proof(golden.trace, golden.trace_digest)
    if not holds:
        return None  # edited since agentsnap wrote it, or another version's, or other rules
    # each step a dict of its own (nothing done to the run's steps reaches the golden's), its
    # values the golden's: the comparison finds them the same objects
    steps: list[dict[str, Any]] = [dict(step) for step in golden.trace]
    for step in steps:  # (a C-level copy, then the key dropped: 11k -> 2k instructions a step)
        step.pop(_SENT_ONLY, None)
    output, model = _lifecycle.trace_output_and_model(steps, None, None, True)
    # the output is read from the steps' views, which only the text rules scrubbed (a streamed
    # answer, parts joined): prepared as build_snapshot prepares it, the ``redact`` paths applied
    # (prepare_parts([], None, output)'s output: each key is prepared on its own)
    output = prepared_output(output)
    return GoldenAgain(
        name=name,
        trace=steps,
        output=output,
        model=model,
        source="pytest",
        prepared=True,
        finite_trace=finite,
    )


def prepared_output(output: object) -> Any:
    """``prepare({"output": output})["output"]`` (:func:`~agentsnap.storage.serialize.prepare`:
    what :func:`~agentsnap.lifecycle.build_snapshot` stores as a run's output), an ASCII text that
    the rules in force leave alone answered as itself, without the walk: with no user JSON path,
    ``prepare`` of a text is ``scrub_text`` of it (``to_json`` keeps an ASCII ``str`` as it is, and
    ``scrub_json`` of a text is ``scrub_text``), which :func:`~agentsnap.storage.scrub.text.left_alone`
    says is the text itself (one pass over its lower case for the usual text). Anything else
    (another type, a text that is not ASCII, a JSON path rule, a text a rule changes) is prepared."""
    if type(output) is str and output.isascii():
        rules = _scrub.active()
        if not rules._compiled_paths and _scrub_text.left_alone(output, rules):
            return output
    return _serialize.prepare({"output": output})["output"]


class LazyGoldenAgain(_steps.LazySnapshot, GoldenAgain):
    """:class:`GoldenAgain` of a large golden whose steps are kept as text: its steps are the
    golden's texts, read without ``latency_ms`` (decoded when its ``trace`` is read)."""


def _again_by_step(
    name: str, served: list[_wire.Exchange], recorded: Any, golden: Snapshot
) -> Snapshot | None:
    """:func:`golden_again` of a golden whose steps are kept as text, its cassette serving
    from them (:class:`~agentsnap.storage.wire.ServedExchange`): the same conditions, read a
    step at a time (the golden's ``trace`` is never decoded whole)."""
    raw = _steps.raw_steps(golden)
    digest = golden.trace_digest
    if raw is None or digest is None or getattr(recorded, "steps", None) is not raw:
        return None
    assert raw is not None
    if len(served) != len(recorded):
        return None
    for index, ex in enumerate(served):
        if (
            type(ex) is not _wire.ServedExchange
            or ex.source is not recorded
            or ex.replay_index != index
            or ex.request_drift is not None
            or ex.connection is not None
            or "request" in ex.__dict__
            or "response" in ex.__dict__
        ):
            return None
    walk = _Walk(raw, served)
    holds, finite = _snapshot.trace_proof(walk, digest)
    if not holds or not walk.ok or walk.exchanges != len(served):
        return None
    short = [s for s in (walk.last_llm, *walk.tail) if s is not None]
    output, model = _lifecycle.trace_output_and_model(short, None, walk.model, True)
    output = prepared_output(output)
    return LazyGoldenAgain(
        raw.without(_SENT_ONLY),
        name=name,
        output=output,
        model=model,
        source="pytest",
        prepared=True,
        finite_trace=finite,
    )


class _Walk:
    """A golden's steps as text, decoded one at a time for :func:`~agentsnap.storage.snapshot.trace_proof`,
    each checked on the way against the exchange served from it (provider, kind) and read for
    what the run's output and model are made of (the last LLM call, the steps after it, the
    first model named)."""

    is_steps = True

    def __init__(self, raw: _steps.RawSteps, served: list[_wire.Exchange]) -> None:
        self.raw = raw
        self.served = served
        self.ok = True
        self.exchanges = 0
        self.last_llm: dict[str, Any] | None = None
        self.tail: list[dict[str, Any]] = []
        self.model: str | None = None

    def __len__(self) -> int:
        return len(self.raw)

    def __iter__(self) -> Any:
        for step in self.raw:
            if "exchange" in step:
                n = self.exchanges
                self.exchanges += 1
                ex = self.served[n] if n < len(self.served) else None
                if (
                    ex is None
                    or ex.provider != step.get("provider")
                    or (ex.codec is None) != (step.get("type") == "http")
                ):
                    self.ok = False
            if step.get("type") == "llm_call":
                self.last_llm = {k: v for k, v in step.items() if k != _SENT_ONLY}
                self.tail = []
                if self.model is None and step.get("model"):
                    self.model = str(step["model"])
            else:
                self.tail.append(step)
            yield step
