"""The shared path of one exchange: every transport goes through it, in this order.

:func:`open_exchange` is what a transport calls for each request it sees (see
:mod:`agentsnap.capture.contract`): it recognises the provider
(:func:`recognise`, which also tells the never-silent observer), checks the
recording's adapter scope (:mod:`agentsnap.capture.scope`: a request of a
client outside it is refused, nothing sent), applies the CI block and starts
the exchange in the trace (:func:`begin`). The transport then either serves
the recorded response (:mod:`agentsnap.capture.serving`) or sends for real
inside :func:`sending` and stores the response (:mod:`agentsnap.capture.sinks`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping
from typing import cast

from ..spec.provider_specs import ProviderSpec, classify, explain_miss
from ..storage import wire
from ..storage.scrub import scrub_text
from ..storage.scrub.credentials import remember_and_user_agent
from . import observe
from .active import RecordingState as Recording
from .contract import Request
from .ownership import owned
from .request import record_of, request_parts, request_record
from .sinks import LazyExchange, record_error

__all__ = ["begin", "open_exchange", "recognise", "sending"]


def recognise(request: Request, recording: Recording | None = None) -> ProviderSpec | None:
    """The provider spec ``request`` belongs to, or None (the request passes untouched).

    The one place every transport asks :func:`agentsnap.spec.provider_specs.classify`
    (``request``: an httpx/httpx2 ``Request`` or a :class:`~agentsnap.capture.request.WireRequest`). It first
    remembers the credentials the request carries (:func:`agentsnap.storage.scrub.remember_credentials`:
    scrubbing by value), whether or not a spec claims it. Given the
    active ``recording`` in ``capture`` mode, it also tells the never-silent
    observer (:mod:`.observe`) that a hooked transport saw the request, with the
    reason when it looks like an LLM call that no spec recognised.
    """
    # scrub by value: before anything is stored (the User-Agent read in the same pass)
    read, agent = remember_and_user_agent(request.headers, request.url)
    spec = classify(request, agent) if read else classify(request)
    if recording is not None and recording.mode == "capture":
        url = request.url
        reason = (
            None
            if spec is not None
            else explain_miss(
                request.method,
                url.host,
                url.path,
                cast("Mapping[str, str]", request.headers),
                lambda: _content_or_none(request),
            )
        )
        observe.note_request(recording, request.method, url.host, url.path, reason)
    return spec


def _content_or_none(request: Request) -> bytes | None:
    try:
        return bytes(request.content)
    except Exception:
        return None


def begin(recording: Recording, request: Request, spec: ProviderSpec) -> wire.Exchange:
    """Start one exchange of a recognised request: raise
    ``recording.block_error`` (:class:`~agentsnap.exceptions.SnapshotMissingInCIError`
    unless set) when the recording blocks LLM calls (CI without a snapshot), else store the scrubbed request
    (:func:`request_record`: the one place a request is scrubbed) and add the
    exchange to the trace."""
    if recording.block is not None:
        recording.blocked_calls += 1
        raise recording.block_error(recording.block)
    if recording.mode == "capture":  # stored on first read (LazyExchange)
        parts = request_parts(request)
        codec = spec.codec_for(scrub_text(parts[1]))
        exchange: wire.Exchange = LazyExchange(provider=spec.name, codec=codec, request={})
        exchange.__dict__["_make_request"] = functools.partial(
            record_of, *parts, recording.trace.repeats
        )
    else:
        req = request_record(request)
        exchange = wire.Exchange(provider=spec.name, codec=spec.codec_for(req["path"]), request=req)
    recording.trace.add_exchange(exchange)
    return exchange


@contextlib.contextmanager
def sending(exchange: wire.Exchange, transport: str) -> Iterator[None]:
    """Around the real send of a captured request: the request is :func:`owned` by
    ``transport`` meanwhile (inner layers let it pass), and an exception it raises is
    stored as the exchange's response (:func:`~agentsnap.capture.sinks.record_error`) on its way out."""
    with owned(transport):
        try:
            yield
        except Exception as exc:
            record_error(exchange, exc)
            raise


def open_exchange(
    recording: Recording, request: Request, sender: object
) -> tuple[ProviderSpec, wire.Exchange] | None:
    """The shared start of every transport's request: ``(spec, exchange)``, or None
    (no spec recognises the request: the transport sends it untouched).

    Recognises the provider (:func:`recognise`), then, for a recording given
    explicit adapters, refuses a request whose ``sender`` (the object whose seam
    sent it: an ``httpx.Client``, an ``http.client`` connection, a urllib3 pool,
    an aiohttp session) is out of scope with
    :class:`~agentsnap.exceptions.AdapterNotWrappedError` (nothing sent; see
    :class:`agentsnap.capture.scope.AdapterScope`), then :func:`begin`.
    """
    spec = recognise(request, recording)
    if spec is None:
        return None
    scope = recording.adapter_scope
    if scope is not None:  # a block given explicit adapters: refuse other clients' requests
        scope.check(sender, request, spec)
    return spec, begin(recording, request, spec)
