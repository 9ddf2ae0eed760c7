"""Provider specs: the ``patches/<provider>.toml`` files, as data.

A spec says how a provider's HTTP traffic is recognised, which endpoint paths
are LLM calls and which codec reads them, and which response headers are worth
keeping. Adding an OpenAI-compatible SDK is a new file, not code.

Recognition (:func:`recognise`, :func:`classify`) tries, in order:

1. the User-Agent prefix of a known SDK (``[match] user_agent_prefixes``, and
   ``hosts`` for host-limited specs): one cached dict hit per call;
2. a request header that names the SDK (``[match] headers``);
3. the wire shape of the call itself (``[[match.wire]]`` rules: method, path
   suffix, required request headers, required top-level keys of the JSON
   body, optionally hosts), whatever sent it: an agent framework that sets its
   own User-Agent (``Agents/Python 0.24.0``, ``pydantic-ai/2.68.0``), a user's
   subclass of ``OpenAI``, a proxy, gateway or OpenAI-compatible server (Azure,
   OpenRouter, LiteLLM proxy, vLLM, Ollama). The body is parsed only for a
   ``POST`` whose path ends with a wire rule's suffix.

A request that matches none of them is not an LLM call: it passes through
untouched. :func:`explain_miss` says why a request that *looks* like one (a
known provider host, ``[match] known_hosts``, or an LLM endpoint path) was not
recognised, for the warnings of record and live mode.

The files ship inside the wheel as ``agentsnap/_patches/``; in a source checkout
(editable install) they are read from the repository's ``patches/`` folder.
"""

from __future__ import annotations

import fnmatch
import json
import re
import sys
import warnings
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec

if sys.version_info >= (3, 11):  # pragma: no cover - version switch
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "ProviderSpec",
    "WireRule",
    "classify",
    "explain_miss",
    "host_in",
    "load_specs",
    "looks_like_llm",
    "mcp_miss",
    "patches_dir",
    "recognise",
    "reload_specs",
    "spec_derived",
]

#: a request body as :func:`recognise` takes it: the bytes, None, or a
#: zero-argument callable returning them (called only when a wire rule needs the body)
Body = bytes | None | Callable[[], bytes | None]


#: header names a spec remembers :meth:`ProviderSpec.keeps_header`'s answer for, at most
_KEPT_NAMES = 1024


class WireRule(msgspec.Struct, frozen=True):
    """One ``[[match.wire]]`` rule: the shape of one LLM endpoint of a provider.

    A request matches when its method is ``method``, its URL path ends with
    ``path_suffix``, every header of ``headers`` is present (names lower case,
    any value), its body is a JSON object holding every key of ``body_keys``
    at the top level, and, when ``hosts`` is not empty, its host is one of
    them or a subdomain (suffix match).
    """

    path_suffix: str
    method: str = "POST"
    body_keys: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()

    def host_ok(self, host: str) -> bool:
        return not self.hosts or host_in(host, self.hosts)

    def headers_ok(self, headers: Mapping[str, str]) -> bool:
        return all(headers.get(name) is not None for name in self.headers)

    def missing_keys(self, body: object) -> tuple[str, ...]:
        if not isinstance(body, dict):
            return self.body_keys
        return tuple(k for k in self.body_keys if k not in body)


class ProviderSpec(msgspec.Struct, frozen=True, dict=True):
    """One provider's recognition and normalisation rules (see module doc).

    Equality and the hash leave out :attr:`extra` (the spec's other tables, as
    read), as they always have.
    """

    name: str
    user_agent_prefixes: tuple[str, ...]
    endpoints: tuple[tuple[str, str], ...]  # (path suffix, codec name)
    keep_headers: tuple[str, ...]
    api_key_env: tuple[str, ...] = ()
    #: hosts (suffix match) this spec is limited to; empty: any host
    hosts: tuple[str, ...] = ()
    #: SDK quirk patches: (module to hook on import, "package.module:function" to call with it)
    hooks: tuple[tuple[str, str], ...] = ()
    #: supported SDK versions, as a PEP 440 specifier (documentation and the sdk-matrix)
    versions: str = ""
    source: str = ""
    extra: dict[str, Any] = msgspec.field(default_factory=dict)
    #: kept response headers whose value is stored as ``<redacted>`` (globs), on top
    #: of :data:`agentsnap.storage.scrub.ACCOUNT_HEADERS` (``[response] mask_headers``)
    mask_headers: tuple[str, ...] = ()
    #: request headers that also identify the SDK when its User-Agent does not
    #: (``[match] headers``: ``{name: value}``, names lower case, values exact)
    match_headers: tuple[tuple[str, str], ...] = ()
    #: wire-shape rules (``[[match.wire]]``): recognition whatever sent the request
    wire: tuple[WireRule, ...] = ()
    #: the provider's own API hosts (``[match] known_hosts``, suffix match): traffic
    #: to them that is not recognised gets a warning in record and live mode
    known_hosts: tuple[str, ...] = ()
    #: the SDK that sends the traffic (``[provider] package``, a distribution name)
    sdk_package: str = ""
    # (:meth:`keeps_header` remembers its answers by lower-case name in the instance's
    # ``__dict__`` under ``"_kept"``, made on first use: names repeat in every response,
    # each glob tried costs a ``fnmatchcase`` call. Not a field: not in ``__init__``,
    # the repr, equality or the hash, and a copy starts with its own.)

    def _compared(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__struct_fields__ if name != "extra")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ProviderSpec)
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def codec_for(self, path: str) -> str | None:
        """The codec for an endpoint path, or None when the path is not an LLM call."""
        for suffix, codec in self.endpoints:
            if path.endswith(suffix):
                return codec
        return None

    def keeps_header(self, name: str) -> bool:
        """Whether a response header (any case) is kept in snapshots.

        A bare ``"*"`` keeps every header but those that carry a credential
        (:data:`agentsnap.storage.scrub.CREDENTIAL_HEADERS`: kept, masked, only when a glob
        names them). Account headers (:data:`agentsnap.storage.scrub.ACCOUNT_HEADERS`, a
        spec's ``mask_headers``) are kept and stored as ``<redacted>``, so replay
        serves the same header names as live.
        """
        low = name.lower()
        memo: dict[str, bool] | None = self.__dict__.get("_kept")
        if memo is None:
            memo = self.__dict__["_kept"] = {}
        kept = memo.get(low)
        if kept is None:
            if len(memo) >= _KEPT_NAMES:  # (a server inventing names: bounded)
                memo.clear()
            kept = memo[low] = self._keeps(low)
        return kept

    def _keeps(self, low: str) -> bool:
        if any(fnmatch.fnmatchcase(low, pat) for pat in self.keep_headers if pat != "*"):
            return True
        if "*" not in self.keep_headers:
            return False
        from ..storage.scrub import CREDENTIAL_HEADERS

        return not any(fnmatch.fnmatchcase(low, pat) for pat in CREDENTIAL_HEADERS)


class _Cached(Protocol):
    def cache_clear(self) -> None: ...


_C = TypeVar("_C", bound=_Cached)
_DERIVED: list[_Cached] = []


def spec_derived(cached: _C) -> _C:
    """Mark a ``functools.cache`` / ``lru_cache`` function whose values come from the
    spec files, so :func:`reload_specs` forgets them too (put it above the cache decorator)."""
    _DERIVED.append(cached)
    return cached


def reload_specs() -> None:
    """Forget the parsed spec files and everything derived from them: the next use reads
    :func:`patches_dir` again (after a spec file was added, or ``patches_dir`` pointed
    elsewhere, as the provider recipe's test does)."""
    for cached in _DERIVED:
        cached.cache_clear()


def patches_dir() -> Path:
    """Where the spec files are: inside the installed wheel, else the source tree."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_patches"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "patches"


def _parse(path: Path) -> ProviderSpec:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    prov = data["provider"]
    match = data.get("match", {})
    return ProviderSpec(
        name=str(prov["name"]),
        user_agent_prefixes=tuple(match.get("user_agent_prefixes", ())),
        endpoints=tuple(
            (str(e["path_suffix"]), str(e["codec"])) for e in data.get("endpoints", [])
        ),
        keep_headers=tuple(h.lower() for h in data.get("response", {}).get("keep_headers", ())),
        mask_headers=tuple(h.lower() for h in data.get("response", {}).get("mask_headers", ())),
        api_key_env=tuple(prov.get("api_key_env", ())),
        hosts=tuple(h.lower() for h in match.get("hosts", ())),
        match_headers=tuple(
            (str(k).lower(), str(v)) for k, v in dict(match.get("headers", {})).items()
        ),
        wire=tuple(_wire_rule(r, match) for r in match.get("wire", ())),
        known_hosts=tuple(h.lower() for h in match.get("known_hosts", ())),
        hooks=tuple((str(h["module"]), str(h["call"])) for h in data.get("hooks", [])),
        versions=str(prov.get("versions", "")),
        sdk_package=str(prov.get("package", "")),
        source=str(path),
        extra={
            k: v
            for k, v in data.items()
            if k not in {"provider", "match", "endpoints", "response", "hooks"}
        },
    )


def _wire_rule(rule: dict[str, Any], match: dict[str, Any]) -> WireRule:
    unknown = set(rule) - {"path_suffix", "method", "body_keys", "headers", "hosts"}
    if unknown:
        raise ValueError(f"[[match.wire]]: unknown key(s) {sorted(unknown)}")
    return WireRule(
        path_suffix=str(rule["path_suffix"]),
        method=str(rule.get("method", "POST")).upper(),
        body_keys=tuple(str(k) for k in rule.get("body_keys", ())),
        headers=tuple(str(h).lower() for h in rule.get("headers", ())),
        # a host-limited spec (openrouter) limits its wire rules to its hosts too
        hosts=tuple(h.lower() for h in rule.get("hosts", match.get("hosts", ()))),
    )


def host_in(host: str, hosts: tuple[str, ...]) -> bool:
    """Whether ``host`` is one of ``hosts`` or a subdomain of one."""
    return any(host == h or host.endswith("." + h) for h in hosts)


@spec_derived
@cache
def load_specs(directory: str | None = None) -> tuple[ProviderSpec, ...]:
    """Parse every ``*.toml`` spec, sorted by file name.

    A file that cannot be parsed gives one ``UserWarning`` naming it and is
    skipped: every other provider keeps working.
    """
    root = Path(directory) if directory else patches_dir()
    specs: list[ProviderSpec] = []
    for path in sorted(root.glob("*.toml")):
        try:
            specs.append(_parse(path))
        except Exception as exc:
            warnings.warn(f"agentsnap: ignoring provider spec {path}: {exc}", stacklevel=2)
    return tuple(specs)


@spec_derived
@lru_cache(maxsize=512)
def _spec_for(user_agent: str, host: str) -> ProviderSpec | None:
    # specs limited to particular hosts (OpenRouter through the openai SDK) win
    candidates = sorted(load_specs(), key=lambda s: not s.hosts)
    for spec in candidates:
        if not user_agent.startswith(spec.user_agent_prefixes):
            continue
        if spec.hosts and not host_in(host, spec.hosts):
            continue
        return spec
    return None


#: :func:`classify`'s ``user_agent`` when the caller did not read it: the headers are asked
_ASK: Any = object()


def classify(request: Any, user_agent: str | None = _ASK) -> ProviderSpec | None:
    """The spec of the provider ``request`` (an httpx/httpx2 ``Request``) calls, or None.

    :func:`recognise` on the request's method, host, path, headers and body
    (``request.content``; a streaming body that was not read yet is not read
    here, so only rules 1 and 2 of the module doc apply to it). ``user_agent``: what
    ``request.headers.get("user-agent")`` answers, when the caller read it already.
    """
    headers = request.headers
    url = request.url
    ua = headers.get("user-agent") if user_agent is _ASK else user_agent
    spec = _spec_for(ua, url.host) if ua else None  # the common case, inlined: one dict hit
    if spec is not None:
        return spec
    return _beyond_user_agent(
        request.method, url.host, url.path, headers, lambda: _content(request)
    )


def _content(request: Any) -> bytes | None:
    try:
        return bytes(request.content)
    except Exception:
        return None


def recognise(
    method: str, host: str, path: str, headers: Mapping[str, str], body: Body = None
) -> ProviderSpec | None:
    """The spec of the provider a request calls, or None: the transport-neutral entry point.

    ``method`` any case; ``host`` without port, lower case; ``path`` the URL
    path without query; ``headers`` a mapping whose ``get`` takes lower-case
    names (``httpx.Headers``, ``http.client.HTTPMessage``, a dict with
    lower-case keys); ``body`` see :data:`Body`.

    The order is that of the module doc: User-Agent prefix (cached per
    (User-Agent, host)), then ``[match] headers``, then ``[[match.wire]]``
    rules (host-limited rules first). The wire step costs one ``str.endswith``
    with a tuple of suffixes for every request that reaches it; the body is
    read and parsed only for a ``POST`` (or the rule's method) on one of those
    paths, and only after a byte search finds every required key's quoted name.
    Never raises for a malformed body: it just does not match.
    """
    ua = headers.get("user-agent")
    spec = _spec_for(ua, host) if ua else None
    if spec is not None:
        return spec
    return _beyond_user_agent(method, host, path, headers, body)


def _beyond_user_agent(
    method: str, host: str, path: str, headers: Mapping[str, str], body: Body
) -> ProviderSpec | None:
    for candidate in _header_specs():
        if all(headers.get(name) == value for name, value in candidate.match_headers):
            return candidate
    hit, _ = _wire_match(method, host, path, headers, body)
    return hit


def _wire_match(
    method: str, host: str, path: str, headers: Mapping[str, str], body: Body
) -> tuple[ProviderSpec | None, str]:
    """The spec whose wire rule matches, or None and why the closest rule did not."""
    suffixes, rules = _wire_index()
    if not path.endswith(suffixes):
        return None, ""
    method = method.upper()
    parsed: Any = _UNREAD
    raw: bytes | None = None
    why = ""
    for rule, spec in rules:
        if not path.endswith(rule.path_suffix):
            continue
        if method != rule.method:
            why = why or f"{method} is not {rule.method}"
            continue
        if not rule.host_ok(host):
            continue
        if not rule.headers_ok(headers):
            why = (
                why
                or f"it has no {', '.join(rule.headers)} header ({_where(spec)}: {rule.path_suffix} calls send it)"
            )
            continue
        if rule.body_keys:
            if parsed is _UNREAD:
                raw = body() if callable(body) else body
                parsed = None
            if raw is None:
                why = why or "its body could not be read (a stream)"
                continue
            if parsed is None:
                # cheap byte search first: most non-LLM bodies miss a key's quoted name
                absent = tuple(k for k in rule.body_keys if b'"' + k.encode() + b'"' not in raw)
                if absent:
                    why = why or _missing(rule, spec, absent)
                    continue
                parsed = _json_object(raw)
            missing = rule.missing_keys(parsed)
            if missing:
                why = why or _missing(rule, spec, missing)
                continue
        return spec, ""
    return None, why


_UNREAD: Any = object()


def _json_object(raw: bytes) -> Any:
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def _where(spec: ProviderSpec) -> str:
    return f"patches/{Path(spec.source).name}" if spec.source else spec.name


def _missing(rule: WireRule, spec: ProviderSpec, keys: tuple[str, ...]) -> str:
    wanted = ", ".join(repr(k) for k in rule.body_keys)
    return f"its JSON body has no top-level {', '.join(repr(k) for k in keys)} ({_where(spec)}: {rule.path_suffix} calls hold {wanted})"


def explain_miss(
    method: str, host: str, path: str, headers: Mapping[str, str], body: Body = None
) -> str | None:
    """Why a request that :func:`recognise` did not recognise still looks like an LLM call, or None.

    Returns a sentence for a request to a known provider host
    (``[match] known_hosts``) or to a path ending with a wire rule's suffix,
    e.g. ``"POST api.openai.com/v1/chat/completions: its body is not a JSON
    object with 'messages' ..."``; None for anything else (a request that does
    not look like an LLM call is never warned about). Call it only for a
    request :func:`recognise` returned None for.
    """
    _, why = _wire_match(method, host, path, headers, body)
    suffixes, _ = _wire_index()
    if path.endswith(suffixes):
        ua = headers.get("user-agent") or "none"
        return (
            why
            or f"the path is an LLM endpoint, but no spec's rule matched (host {host}, User-Agent {ua})"
        )
    for spec in load_specs():
        if spec.known_hosts and host_in(host, spec.known_hosts):
            ua = headers.get("user-agent") or "none"
            return f"{host} is {spec.name}'s API host, but neither the User-Agent ({ua}) nor the request's shape matches an LLM endpoint of a spec"
    return mcp_miss(method, body)


#: the head of a JSON-RPC request body that speaks MCP (``"method": "tools/call"`` …)
@cache
def _mcp_method() -> re.Pattern[bytes]:
    return re.compile(
        rb'"method"\s*:\s*"(initialize|tools/(call|list)|server/discover|resources/read|prompts/get)"'
    )


def mcp_miss(method: str, body: Body) -> str | None:
    """Why an MCP JSON-RPC request over HTTP was not captured: it did not come from an
    ``mcp.ClientSession`` (agentsnap captures MCP there, :mod:`agentsnap.capture.mcp`). None
    for anything else (a body that is not an MCP JSON-RPC request, another method than POST)."""
    if method.upper() != "POST":
        return None
    raw = body() if callable(body) else body
    head = raw[:4096] if isinstance(raw, bytes) else b""
    if b'"jsonrpc"' not in head or not _mcp_method().search(head):
        return None
    return (
        "it is an MCP request sent outside mcp.ClientSession (a hand-written JSON-RPC client?): agentsnap records "
        "and replays MCP at the client session, so open the session with the mcp SDK (stdio_client / "
        "streamable_http_client + ClientSession)"
    )


def looks_like_llm(
    method: str, host: str, path: str, headers: Mapping[str, str] | None = None
) -> bool:
    """Whether a request seen without its body looks like an LLM call: its method and
    path are those of a ``[[match.wire]]`` rule (hosts and headers not required), or its
    host is a provider's ``[match] known_hosts``. Used for traffic agentsnap could not
    capture at all (the socket observer, :mod:`agentsnap.capture.observe`)."""
    del headers  # reserved: a transport may pass them; the decision needs none today
    suffixes, rules = _wire_index()
    method = method.upper()
    if path.endswith(suffixes) and any(
        method == r.method and path.endswith(r.path_suffix) for r, _ in rules
    ):
        return True
    return any(spec.known_hosts and host_in(host, spec.known_hosts) for spec in load_specs())


@spec_derived
@lru_cache(maxsize=1)
def _wire_index() -> tuple[tuple[str, ...], tuple[tuple[WireRule, ProviderSpec], ...]]:
    """Every wire rule with its spec, host-limited rules first, and their path suffixes."""
    pairs = [(rule, spec) for spec in load_specs() for rule in spec.wire]
    pairs.sort(key=lambda pair: not pair[0].hosts)
    return tuple(sorted({rule.path_suffix for rule, _ in pairs})), tuple(pairs)


@spec_derived
@lru_cache(maxsize=1)
def _header_specs() -> tuple[ProviderSpec, ...]:
    return tuple(s for s in load_specs() if s.match_headers)
