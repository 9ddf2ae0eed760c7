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

import functools
from collections.abc import Mapping
from typing import Any, cast

from ..spec.provider_specs import ProviderSpec, _spec_for, classify, explain_miss, spec_derived
from ..storage import wire
from ..storage.scrub import credentials as _cred
from ..storage.scrub import scrub_text
from ..storage.scrub.credentials import remember_and_user_agent
from . import observe
from .active import RecordingState as Recording
from .contract import Request
from .ownership import _owner
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
    reason when it looks like an LLM call that no spec recognised. In ``replay`` mode
    it tells it of a request no spec recognised (the transport sends it for real): one
    with a reason is refused there (:class:`~agentsnap.exceptions.ReplayMissError`).
    """
    # httpx's own: the headers' (name, lower-case name, value) triples and the parsed URL
    triples: Any = getattr(request.headers, "_list", None)
    where = getattr(request.url, "_uri_reference", None)
    known = type(triples) is list and isinstance(where, tuple)
    seen = _known_spec(request.method, where, triples) if known else None
    if seen is not None:
        if recording is not None and recording.mode == "capture":
            observe.note_captured(recording, seen[4])  # as note_request with no reason
        return seen[3]
    # the credentials' version before they are read: a forget or a learning by another
    # thread meanwhile leaves the kept request stale (read again), never wrongly known
    version = _cred._known.version
    # scrub by value: before anything is stored (the User-Agent read in the same pass)
    read, agent = remember_and_user_agent(request.headers, request.url)
    spec = classify(request, agent) if read else classify(request)
    if known and read and agent and spec is not None:
        _remember_known(request, where, triples, agent, spec, version)
    if recording is not None and (spec is None or recording.mode == "capture"):
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


_Seen = tuple[list[Any], int, int, ProviderSpec, tuple[str, str]]


class _ReadBefore(dict[tuple[str, Any], _Seen]):
    """httpx requests :func:`recognise` read through, by method and parsed URL: a copy of their
    headers (httpx's triples), the position of their ``Content-Length`` (-1: none), the
    remembered credentials' version after them, their spec (found by User-Agent and host
    alone) and the never-silent observer's key of the request (method, path: what
    :func:`~agentsnap.capture.observe.note_request` counts). Forgotten with the spec files
    (:func:`~agentsnap.spec.provider_specs.reload_specs`)."""

    def cache_clear(self) -> None:
        self.clear()


_read_before: _ReadBefore = spec_derived(_ReadBefore())


def _known_spec(method: str, where: Any, triples: list[Any]) -> _Seen | None:
    """What was kept of a request whose method, URL and headers (all but the value of its
    ``Content-Length``, which neither carries a credential nor names a provider) are those of
    one read before, with no credential learnt or forgotten since: nothing new to remember,
    the same spec (and the same method and path). None: read it. A few list and tuple comparisons instead of a pass over
    the headers and the URL's text (~24k -> ~5k instructions a call)."""
    seen = _read_before.get((method, where))
    if seen is None or seen[2] != _cred._known.version:
        return None
    before, length = seen[0], seen[1]
    if len(triples) != len(before):
        return None
    if length < 0:
        return seen if triples == before else None
    same = (
        triples[:length] == before[:length]
        and triples[length + 1 :] == before[length + 1 :]
        and triples[length][1] == b"content-length"
    )
    return seen if same else None


def _remember_known(
    request: Request, where: Any, triples: list[Any], agent: str, spec: ProviderSpec, version: int
) -> None:
    """Keep what :func:`_known_spec` reads, for a spec found by User-Agent and host alone
    (one ``Content-Length`` at most), stamped with the credentials' ``version`` read before the
    request's were remembered (a key it taught them is a change: the next one is read once more)."""
    if spec is not _spec_for(agent, request.url.host):
        return  # found by the headers or body rules: read each time
    lengths = [i for i, triple in enumerate(triples) if triple[1] == b"content-length"]
    if len(lengths) > 1:
        return
    if len(_read_before) >= 64:
        _read_before.clear()
    _read_before[(request.method, where)] = (
        list(triples),
        lengths[0] if lengths else -1,
        version,
        spec,
        (request.method.upper(), request.url.path),
    )


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
        exchange: wire.Exchange = LazyExchange.begun(
            spec.name, codec, functools.partial(record_of, *parts, recording.trace.repeats)
        )
    else:
        req = request_record(request, recording.cassette)
        exchange = wire.Exchange(provider=spec.name, codec=spec.codec_for(req["path"]), request=req)
    recording.trace.add_exchange(exchange)
    return exchange


class sending:  # used as a function: ``with sending(exchange, transport):``
    """Around the real send of a captured request: the request is :func:`owned` by
    ``transport`` meanwhile (inner layers let it pass), and an exception it raises is
    stored as the exchange's response (:func:`~agentsnap.capture.sinks.record_error`) on its way out.

    A class rather than two nested generator context managers (``owned`` inside
    ``contextlib.contextmanager``): the same steps in the same order, the owner set on
    entry and reset after an error is stored, for a third of the instructions."""

    __slots__ = ("_exchange", "_token", "_transport")

    def __init__(self, exchange: wire.Exchange, transport: str) -> None:
        self._exchange = exchange
        self._transport = transport

    def __enter__(self) -> None:
        self._token = _owner.set(self._transport)

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        try:
            if isinstance(exc, Exception):
                record_error(self._exchange, exc)
        finally:
            _owner.reset(self._token)


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
