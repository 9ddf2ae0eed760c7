"""One agent recorded, saved as a golden, replayed from it: the fast path's snapshot
(``golden_run.golden_again``) beside the snapshot built from the same replayed trace."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from agentsnap import SnapshotStore
from agentsnap._pytest import golden_run
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from agentsnap.lifecycle import build_snapshot
from agentsnap.storage.snapshot import Snapshot

NAME = "same::run"


def record_and_replay(
    folder: Path,
    fake: AbstractContextManager[Any],
    agent: Callable[[Any], None],
    replies: list[Any],
) -> tuple[Snapshot, Snapshot, Snapshot]:
    """``(golden, again, built)``: ``agent`` run against ``fake`` scripted with ``replies``,
    recorded into a golden in ``folder`` (which must carry a ``trace_digest``), then replayed
    from it with the same fake still up (replay must not reach it); ``again`` is the fast
    path's snapshot of that replay (which must hold), ``built`` the one built from its trace."""
    store = SnapshotStore(folder)
    with fake as server:
        server.script(*replies)
        record_golden(store, NAME, lambda: agent(server))
        golden = store.load(NAME)
        assert golden is not None and golden.trace_digest is not None
        replay = Recording("replay", cassette=Cassette(golden.trace, name=NAME)).start()
        try:
            agent(server)
        finally:
            replay.stop()
    again = golden_run.golden_again(NAME, replay, golden)
    assert again is not None
    built = build_snapshot(
        NAME, replay.trace.steps(), source="pytest", output_from_trace=True, traced=True
    )
    return golden, again, built


def ask_openai(base_url: str) -> str:
    """One openai chat call at ``base_url`` (an API key long enough to be remembered as a
    credential); the answer's text."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="sk-test-" + "k" * 20, max_retries=0)
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "weather?"}]
    )
    return str(reply.choices[0].message.content)


def record_one_call(folder: Path, name: str, answer: str) -> tuple[SnapshotStore, str]:
    """Golden ``name`` in ``folder``: :func:`ask_openai` recorded against the fake openai server
    answering ``answer``; the store and the base URL it was recorded at (its server stopped)."""
    from tests import fake_provider as fp

    store = SnapshotStore(folder)
    with fp.FakeOpenAI() as server:
        server.script(fp.text_reply(answer))
        url = server.base_url
        record_golden(store, name, lambda: ask_openai(url))
    return store, url


def record_golden(store: SnapshotStore, name: str, run: Callable[[], object]) -> None:
    """Golden ``name`` saved in ``store``: what ``run()`` sends, captured and recorded as the
    pytest plugin records a test's run."""
    recording = Recording("capture").start()
    try:
        run()
    finally:
        recording.stop()
    store.save(golden_run.run_snapshot(name, recording, None))
