"""brk10b: a golden read a step at a time holds MORE memory than the whole read when its steps
are large (a chat agent's long prompts and answers: here 300 calls of ~60 KB, a 19 MB file).

What: :func:`agentsnap.storage.lazy_steps.read_lazy` holds the file's bytes, every step's
compact text made so far, and up to ``_BATCH`` (256) parsed steps awaiting their schema check,
all at once. For string-heavy steps the parsed dicts are about the size of their text, so the
read peaks near three times the file where the whole read peaks near two (bytes + parsed). The
replay that follows (:class:`agentsnap.AgentAsserter`, which has no golden-again shortcut; or a
pytest replay whose run is not its golden's, e.g. one changed request) then decodes the trace
whole anyway. Measured (tracemalloc, this golden): load 40.2 MB whole vs 54.6 MB lazy;
AgentAsserter replay, passing, 62.7 vs 81.7 MB; pytest ``--agentsnap-replay`` with the last
request changed (failing), from the test's start, 119 vs 159 MB. With ``_BATCH`` set to 1 the
lazy load peaks at 39.5 MB, 16: 40.3 MB, 256: 54.6 MB (the batch of parsed steps is the excess).

Fixed after the review: the steps awaiting their check are at most ~1 MiB (``_BATCH_BYTES``), so
the lazy load peaks no higher than the whole read. And a run that is not its golden again (an
``AgentAsserter`` replay, a changed request) held the exchanges it served decoded from their
texts beside the golden's trace decoded again (two copies where the whole read shares one): a
served exchange stored whole now decodes the golden's steps once first and is their own objects.

The whole path's behaviour: the peaks above (the brief: the lazy path must not hold more than
the whole path in any case).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.storage import lazy_steps
from agentsnap.storage.store import SnapshotStore
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

openai = pytest.importorskip("openai")

from tests import fake_provider as fp

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

NAME = "brk10b::memory"
CALLS = 300
BIG = "lorem ipsum dolor " * 200  # ~3.6 KB: each request carries the last six messages


def _agent(fake: fp.FakeOpenAI) -> None:
    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    messages: list[dict[str, str]] = []
    for i in range(CALLS):
        messages.append({"role": "user", "content": f"Question {i}? {BIG}"})
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=list(messages))
        messages.append({"role": "assistant", "content": reply.choices[0].message.content or ""})
        del messages[:-6]


@pytest.fixture(scope="module")
def golden_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("brk10b_memory")
    with fp.FakeOpenAI() as fake:
        fake.script(*(fp.text_reply(f"Answer {i} {BIG}") for i in range(CALLS)))
        with AgentRecorder(NAME, snapshot_dir=folder):
            _agent(fake)
    yield folder


def _peak(action: object) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        action()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _both(monkeypatch: pytest.MonkeyPatch, action: object) -> tuple[int, int]:
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 1 << 60)
    whole = _peak(action)
    monkeypatch.setattr(lazy_steps, "LAZY_FROM", 0)
    lazy = _peak(action)
    return whole, lazy


def test_a_large_golden_read_a_step_at_a_time_peaks_no_higher_than_read_whole(
    golden_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kinds: list[str] = []

    def load() -> None:
        kinds.append(type(SnapshotStore(golden_dir).load(NAME)).__name__)

    whole, lazy = _both(monkeypatch, load)
    assert kinds == ["Snapshot", "LazySnapshot"]
    assert lazy <= whole * 1.05, f"whole {whole / 1e6:.1f} MB, lazy {lazy / 1e6:.1f} MB"


def test_an_agent_asserter_replay_of_a_large_golden_peaks_no_higher_than_read_whole(
    golden_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def replay() -> None:
        with fp.FakeOpenAI() as fake:
            with AgentAsserter(NAME, snapshot_dir=golden_dir, mode="replay"):
                _agent(fake)

    whole, lazy = _both(monkeypatch, replay)
    assert lazy <= whole * 1.05, f"whole {whole / 1e6:.1f} MB, lazy {lazy / 1e6:.1f} MB"
