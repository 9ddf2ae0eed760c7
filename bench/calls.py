"""Rows 1, 2 and 3: the cost of one LLM call, bare vs agentsnap, in one process.

For each SDK (openai, anthropic, groq) and each shape (JSON, streamed) the same
call runs, in interleaved rounds, as:

* ``bare``    — a client whose ``send`` is the library's own (nothing of agentsnap in the path);
* ``off``     — the ordinary client, agentsnap's ``send`` wrappers installed, no recording active (row 2);
* ``record``  — the ordinary client inside a capture recording (row 1);
* ``otel``    — the bare client with OpenTelemetry's openai instrumentation on, spans kept in
  memory through the SDK's ``SimpleSpanProcessor`` (row 1; openai only);
* ``replay``  — the ordinary client inside a replay recording, served from a cassette (row 3);
* ``ours``    — only ``Client.send`` in replay, on the same prepared requests: everything agentsnap
  does for a replayed call (request record, key, lookup, response construction).

Every batch makes ``n`` different calls; the reported time is per call. Ratios
are taken per round against the same round's bare batch.
"""

from __future__ import annotations

from typing import Any

import _sdk
from _common import (
    Config,
    Ctx,
    RecordingConfig,
    Section,
    fmt_pct,
    fmt_ratio,
    fmt_time,
    fmt_times,
    forget_scrub_memo,
    have,
    interleave_calls,
    median,
    ratios,
)

SHAPES = (("json", False), ("stream", True))
#: issue 18: what is ours in a replayed call (``Client.send`` in replay), per shape, and its share
OURS_MAX = {"json": 50e-6, "stream": 60e-6}
OURS_SHARE_MAX = 0.05


class _Otel:
    """OpenTelemetry's openai instrumentation, switched on for one call at a time.

    ``uninstrument()`` does not unwrap ``Completions.create`` on openai 3.x, so the
    instrumentor runs once and the class attribute is swapped between the original
    and the instrumented function around each timed call (outside the timer).
    """

    def __init__(self) -> None:
        from openai.resources.chat.completions import Completions
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.cls = Completions
        self.original = Completions.__dict__["create"]
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)
        self.instrumented = Completions.__dict__["create"]
        assert self.instrumented is not self.original, (
            "OpenTelemetry did not wrap Completions.create"
        )
        self.off()
        self.spans = 0

    def on(self) -> None:
        self.cls.create = self.instrumented

    def off(self) -> None:
        self.cls.create = self.original

    def round_done(self) -> None:
        self.spans = len(self.exporter.get_finished_spans())
        self.exporter.clear()


def _case(sdk: str, stream: bool, n: int, rounds: int, otel: _Otel | None) -> dict[str, Config]:
    """The configurations of one SDK and shape.

    Every round asks its own questions (a round tag in the user message) in the
    configurations that scrub and key requests, so agentsnap's memo of scrubbed
    strings holds only what a real run would have seen: the system prompt and tool
    schema again and again, each question once. Replay rounds are served from
    recordings of those questions made before the timing starts.
    """
    from agentsnap.capture.recording import Recording

    bare = _sdk.make_client(sdk, bare=True)
    ours = _sdk.make_client(sdk)
    total = rounds + 1  # with the warm-up round

    def tag(kind: str, r: int) -> str:
        return f" ({kind} round {r})"

    # what the replay rounds serve, and the prepared requests `ours` sends
    cassettes: list[list[dict[str, Any]]] = []
    for r in range(total):
        with Recording("capture") as rec:
            for i in range(n):
                _sdk.call(ours, sdk, i, stream, tag("replay", r))
        cassettes.append(rec.trace.steps())
        with Recording("capture") as rec:
            for i in range(n):
                _sdk.call(ours, sdk, i, stream, tag("send", r))
        cassettes.append(rec.trace.steps())
    module = _sdk.http_module(sdk)
    prepared: list[Any] = []
    inner = _sdk.handler(sdk, module)

    def keep(request: Any) -> Any:
        prepared.append(request)
        return inner(request)

    catcher = _sdk.make_client(sdk, bare=True)
    catcher._client = _sdk.bare_client_class(module)(transport=module.MockTransport(keep))
    for r in range(total):
        for i in range(n):
            _sdk.call(catcher, sdk, i, stream, tag("send", r))
    sender = module.Client(transport=module.MockTransport(inner))

    class Tagged(RecordingConfig):
        """A config whose round ``r`` asks the questions tagged ``kind``/``r``; with a
        recording mode, the calls run with a recording active (switched around each call, untimed)."""

        def __init__(self, kind: str, mode: str | None = None, *, send_only: bool = False) -> None:
            super().__init__(self._call, mode)
            self.kind = kind
            self.send_only = send_only
            self.client = bare if kind == "bare" else ours
            self.tag = ""
            self.round = 0

        def _call(self, i: int) -> None:
            if self.send_only:
                sender.send(prepared[self.round * n + i], stream=stream).close()
            else:
                _sdk.call(self.client, sdk, i, stream, self.tag)

        def replay_steps(self, round_no: int) -> list[dict[str, Any]]:
            return cassettes[2 * round_no + (1 if self.send_only else 0)]

        def begin_round(self, round_no: int) -> None:
            self.round = round_no
            self.tag = tag(self.kind, round_no)
            super().begin_round(round_no)

    configs: dict[str, Config] = {
        "bare": Tagged("bare"),
        "off": Tagged("off"),
        "record": Tagged("record", "capture"),
        "replay": Tagged("replay", "replay"),
        "ours": Tagged("send", "replay", send_only=True),
    }
    if otel is not None and sdk == "openai":

        class Otel(Tagged):
            def enter(self) -> None:
                otel.on()

            def exit(self) -> None:
                otel.off()

            def end_round(self) -> None:
                otel.round_done()

        configs["otel"] = Otel("otel")
        configs["otel"].client = bare
    forget_scrub_memo()
    return configs


def run(ctx: Ctx) -> list[Section]:
    s1 = Section(
        "1", "Capture overhead: one LLM call, bare vs agentsnap record (in-process transport)"
    )
    s2 = Section(
        "2", "Installed but off: the same call with the wrappers installed and no recording"
    )
    s3 = Section("3", "Replay cost: one replayed call vs the bare SDK call")
    missing = have("openai", "anthropic", "groq", "httpx", "httpx2")
    sdks = [s for s in _sdk.SDKS if s not in missing]
    if not sdks:
        for s in (s1, s2, s3):
            s.skipped = "no provider SDK installed (openai, anthropic, groq)."
        return [s1, s2, s3]
    otel = None
    otel_missing = have("opentelemetry.instrumentation.openai", "opentelemetry.sdk")
    if not otel_missing and "openai" in sdks:
        otel = _Otel()
    rounds = ctx.rounds(7, 4)
    n = 30 if not ctx.quick else 20
    results: dict[tuple[str, str], dict[str, list[float]]] = {}
    for sdk in sdks:
        for shape, stream in SHAPES:
            ctx.log(f"  rows 1-3: {sdk} {shape} ({rounds} rounds x {n} calls)")
            results[(sdk, shape)] = interleave_calls(_case(sdk, stream, n, rounds, otel), rounds, n)

    note = (
        f"{rounds} rounds of {n} different calls; within a round each call is made once per configuration, "
        "one right after the other in a rotating order, each timed alone. Per-call time: median [min–max] of the "
        "round means; ratios are taken per round against the same round's bare calls."
    )
    versions = ", ".join(f"{s} {_sdk.sdk_version(s)}" for s in sdks)
    if missing:
        note += (
            f" Not installed, so not measured: {', '.join(m for m in missing if m in _sdk.SDKS)}."
        )

    # row 1
    rows = []
    rec_ok = True
    otel_ok: bool | None = None
    for (sdk, shape), res in results.items():
        rec = ratios(res["record"], res["bare"])
        cells = [f"{sdk} {shape}", fmt_times(res["bare"]), fmt_times(res["record"]), fmt_pct(rec)]
        rec_ok = rec_ok and median(rec) <= 1.05
        if "otel" in res:
            ot = ratios(res["otel"], res["bare"])
            cells += [fmt_times(res["otel"]), fmt_pct(ot)]
            ok = median(rec) < median(ot)
            otel_ok = ok if otel_ok is None else (otel_ok and ok)
        else:
            cells += ["—", "—"]
        rows.append(cells)
    s1.add(note + f" SDKs: {versions}.", "")
    s1.table(
        [
            "call",
            "bare",
            "agentsnap record",
            "added by agentsnap",
            "OpenTelemetry",
            "added by OpenTelemetry",
        ],
        rows,
    )
    if otel is None:
        s1.add(
            f"OpenTelemetry column not measured: {', '.join(otel_missing) or 'openai'} not installed "
            "(`pip install opentelemetry-instrumentation-openai opentelemetry-sdk`).",
            "",
        )
    else:
        s1.add(
            f"OpenTelemetry: `opentelemetry-instrumentation-openai` with an SDK `TracerProvider`, spans exported to memory "
            f"(last batch: {otel.spans} spans for {n} calls).",
            "",
        )
    s1.target(
        "agentsnap record adds ≤ 5 % to the bare call (every SDK and shape, median)",
        rec_ok,
        key="1.record",
    )
    s1.target(
        "agentsnap record adds less than OpenTelemetry's openai instrumentation",
        otel_ok,
        key="1.otel",
    )
    oa = results.get(("openai", "json"))
    if oa:
        s1.headline["record"] = fmt_pct(ratios(oa["record"], oa["bare"])).split(" [")[0]
        if "otel" in oa:
            s1.headline["otel"] = fmt_pct(ratios(oa["otel"], oa["bare"])).split(" [")[0]

    # row 2
    rows = []
    off_ok = True
    for (sdk, shape), res in results.items():
        off = ratios(res["off"], res["bare"])
        off_ok = off_ok and median(off) <= 1.01
        rows.append([f"{sdk} {shape}", fmt_times(res["bare"]), fmt_times(res["off"]), fmt_pct(off)])
    s2.add(note, "")
    s2.table(["call", "bare", "installed, off", "difference"], rows)
    s2.add(
        "The bare client is a subclass of the library's `Client` whose `send` is the original function: its calls "
        "go through the same code, so a negative difference is noise or the subclass's own cost, not a speed-up.",
        "",
    )
    s2.target(
        "installed but off adds ≤ 1 % to bare (median, every SDK and shape)", off_ok, key="2.off"
    )

    # row 3
    rows = []
    ours_ok = True
    ours_time_ok = {"json": True, "stream": True}
    shares = []
    for (sdk, shape), res in results.items():
        rep = ratios(res["replay"], res["bare"])
        share = ratios(res["ours"], res["replay"])
        shares.append(median(share))
        ours_ok = ours_ok and median(share) <= OURS_SHARE_MAX
        ours_time_ok[shape] = ours_time_ok[shape] and median(res["ours"]) <= OURS_MAX[shape]
        rows.append(
            [
                f"{sdk} {shape}",
                fmt_times(res["bare"]),
                fmt_times(res["replay"]),
                fmt_ratio(rep, 2),
                fmt_time(median(res["ours"])),
                f"{median(share) * 100:.1f} %",
            ]
        )
    s3.add(
        note,
        "",
        "*ours*: `Client.send` alone in replay mode on the same prepared requests — what agentsnap does for a replayed "
        "call (request record and scrub, key, cassette lookup, building and reading the `Response`); the rest of the "
        "replayed call is the SDK's own request building and parsing.",
        "",
    )
    s3.table(
        [
            "call",
            "bare SDK call",
            "agentsnap replay",
            "replay / bare",
            "ours per call",
            "ours / replayed call",
        ],
        rows,
    )
    s3.target(
        "what is ours in a replayed call ≤ 50 µs, JSON (median, every SDK)",
        ours_time_ok["json"],
        key="3.ours_json",
    )
    s3.target(
        "what is ours in a replayed call ≤ 60 µs, streamed (median, every SDK)",
        ours_time_ok["stream"],
        key="3.ours_stream",
    )
    s3.target(
        "what is ours ≤ 5 % of a replayed call (every SDK and shape)", ours_ok, key="3.ours_share"
    )
    if oa:
        s3.headline["replay"] = fmt_ratio(ratios(oa["replay"], oa["bare"]), 2).split(" [")[0]
        s3.headline["ours_share"] = f"{median(ratios(oa['ours'], oa['replay'])) * 100:.1f} %"
    s3.headline["ours_share_max"] = f"{max(shares) * 100:.1f} %" if shares else ""
    return [s1, s2, s3]
