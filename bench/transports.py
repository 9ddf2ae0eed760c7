"""Per-call cost of each transport hook (issue 12): the bare library call against the loopback
fake provider, the same call recorded, and the call replayed — medians of N calls in one process.

    PYTHONPATH=src:. python bench/transports.py [N]

Bare and recorded calls alternate, so drift on a shared machine hits both alike. Wall time on
loopback is dominated by the fake server and TCP timing (keep-alive meets delayed ACKs), so the
hook's cost is also given as client-thread CPU time (``time.thread_time``), bare vs recorded.
Replay serves a cassette of N copies of the recorded exchange (no server, no socket). The lm15
row runs where DSPy (``dspy._vendor.lm15``) is importable. Nothing is asserted.
"""

import asyncio
import statistics
import sys
import time
import urllib.request

import aiohttp
import requests

from agentsnap import trace as _trace
from agentsnap.capture import Recording
from agentsnap.replay import Cassette
from tests import transport_kit as kit
from tests.fake_provider import FakeOpenAI, stream_text_reply, text_reply

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
fake = FakeOpenAI().start()
fake.respond_with(
    lambda body: stream_text_reply(["a", "b", "c"]) if body.get("stream") else text_reply("hello")
)
URL = fake.base_url + "/chat/completions"
BODY, SBODY = kit.openai_body(), kit.openai_body(stream=True)


def urllib_call(body):
    with urllib.request.urlopen(
        urllib.request.Request(URL, data=body, headers=kit.OPENAI_HEADERS), timeout=5
    ) as r:
        return r.read()


def requests_call(body):
    with (
        requests.Session() as sess
    ):  # a fresh connection per call (keep-alive hits the server's delayed ACK)
        return sess.post(URL, data=body, headers=kit.OPENAI_HEADERS, timeout=5).content


loop = asyncio.new_event_loop()
asess = None


async def _a(body):
    async with asess.post(URL, data=body, headers=kit.OPENAI_HEADERS) as r:
        return await r.read()


def aiohttp_call(body):
    return loop.run_until_complete(_a(body))


async def mk():
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True))


asess = loop.run_until_complete(mk())


def timed(fn, body, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn(body)
        out.append(time.perf_counter() - t)
    return statistics.median(out) * 1e6


try:
    import dspy._vendor.lm15.transports as lm15

    tr = lm15.StdlibTransport()

    def lm15_call(body):
        hdrs = [(k, v) for k, v in kit.OPENAI_HEADERS.items() if k != "User-Agent"] + [
            ("User-Agent", "OpenAI/Python x")
        ]
        with tr.stream(lm15.TransportRequest(method="POST", url=URL, headers=hdrs, body=body)) as r:
            return r.read()

    EXTRA = [("lm15", lm15_call)]
except ImportError:
    EXTRA = []
import httpx

hclient = httpx.Client()


def httpx_call(body):  # the httpx hook, for reference
    return hclient.post(URL, content=body, headers=kit.OPENAI_HEADERS).content


rows = []
for name, fn in (
    ("httpx", httpx_call),
    ("urllib", urllib_call),
    ("requests", requests_call),
    ("aiohttp", aiohttp_call),
    *EXTRA,
):
    for label, body in (("json", BODY), ("sse", SBODY)):
        fn(body)  # warm
        rec = Recording("capture").start()
        _trace.deactivate(rec)
        bare, recd, bcpu, rcpu = [], [], [], []
        for _ in range(N):  # interleaved, so drift on a shared machine hits both alike
            c = time.thread_time()
            t = time.perf_counter()
            fn(body)
            bare.append(time.perf_counter() - t)
            bcpu.append(time.thread_time() - c)
            _trace.activate(rec)
            c = time.thread_time()
            t = time.perf_counter()
            fn(body)
            recd.append(time.perf_counter() - t)
            rcpu.append(time.thread_time() - c)
            _trace.deactivate(rec)
        rec.stop()
        steps = rec.trace.steps()[:1]
        rep = Recording("replay", cassette=Cassette([dict(steps[0]) for _ in range(N + 1)])).start()
        repd = timed(fn, body, N)
        rep.stop()
        cpu = (statistics.median(bcpu) * 1e6, statistics.median(rcpu) * 1e6)
        b, r = statistics.median(bare) * 1e6, statistics.median(recd) * 1e6
        rows.append((name, label, b, r, r - b, repd, cpu[0], cpu[1]))
print(
    f"{'transport':10} {'body':5} {'bare us':>9} {'record us':>10} {'wall +':>8} {'replay us':>10} {'cpu bare':>9} {'cpu rec':>8} {'cpu +':>6}"
)
for r in rows:
    print(
        f"{r[0]:10} {r[1]:5} {r[2]:9.0f} {r[3]:10.0f} {r[4]:8.0f} {r[5]:10.0f} {r[6]:9.0f} {r[7]:8.0f} {r[7] - r[6]:6.0f}"
    )
loop.run_until_complete(asess.close())
fake.stop()
