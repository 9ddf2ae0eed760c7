"""brk10b: a large golden's step read from one thread while another decodes its steps in full.

What: :meth:`agentsnap.storage.lazy_steps.RawSteps.step` checks ``held.decoded is None`` and
then reads ``held.texts``. :meth:`_Held.decode_all` (the first read of the golden's ``trace``)
sets ``decoded`` and then ``texts = None``. A reader paused between its check and its read
(a thread switch: a replay served from several threads, another reading the golden) meets
``texts is None`` and indexes ``[]``: ``IndexError``. ``len(RawSteps)`` reads the two the same
way within one line (0 for a reader switched out mid-expression; not shown here). Commit 25ca1d0 meant to close this window; it narrowed it. Fixed after the review: the reader takes the
texts first and decodes from what it took.

The whole path's behaviour: the golden's ``trace`` is one list of step dicts, read by every
thread; reading a step never fails while another thread reads the list.

The pause is made deterministic with ``sys.settrace`` on the reader thread (no timing).
"""

from __future__ import annotations

import inspect
import sys
import threading
from types import FrameType
from typing import Any

import msgspec

from agentsnap.storage import lazy_steps


def _paused_reader(marker: str, read: Any) -> list[object]:
    """Run ``read()`` in a thread paused at the first line of ``RawSteps`` holding ``marker``
    until the main thread has decoded every step; what it returned (or raised)."""
    texts = [msgspec.json.encode({"type": "llm_call", "i": i}) for i in range(5)]
    held = lazy_steps._Held(list(texts))
    raw = lazy_steps.RawSteps(held)
    codes = {f.__code__: f for f in (lazy_steps.RawSteps.step, lazy_steps.RawSteps.__len__)}
    at_line, go = threading.Event(), threading.Event()

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        func = codes.get(frame.f_code)
        if func is None:
            return None
        lines, first = inspect.getsourcelines(func)
        target = first + next(i for i, line in enumerate(lines) if marker in line)

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line" and frame.f_lineno == target and not at_line.is_set():
                at_line.set()
                go.wait(10)
            return local

        return local

    out: list[object] = []

    def reader() -> None:
        sys.settrace(tracer)
        try:
            out.append(read(raw))
        except Exception as exc:  # (the finding)
            out.append(exc)
        finally:
            sys.settrace(None)

    thread = threading.Thread(target=reader)
    thread.start()
    assert at_line.wait(10)
    held.decode_all()  # another thread reads the golden's trace meanwhile
    go.set()
    thread.join(10)
    return out


def test_a_step_read_while_another_thread_decodes_every_step_is_still_the_step() -> None:
    # paused where the reader has taken the texts and not yet decoded its step (the window the
    # review found was between the check of the dicts and the read of the texts)
    out = _paused_reader("_decode(texts[index])", lambda raw: raw.step(2))
    assert out == [{"type": "llm_call", "i": 2}], out  # whole path: the step, always
