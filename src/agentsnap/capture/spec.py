"""Provider specs: the ``patches/<provider>.toml`` files, as data.

A spec says how one SDK's HTTP traffic is recognised (User-Agent prefixes),
which endpoint paths are LLM calls and which codec reads them, and which
response headers are worth keeping. Adding an OpenAI-compatible SDK is a new
file, not code.

The files ship inside the wheel as ``agentsnap/_patches/``; in a source checkout
(editable install) they are read from the repository's ``patches/`` folder.
"""

from __future__ import annotations

import fnmatch
import sys
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):  # pragma: no cover - version switch
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["ProviderSpec", "load_specs", "classify", "patches_dir"]


@dataclass(frozen=True)
class ProviderSpec:
    """One provider's recognition and normalisation rules (see module doc)."""

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
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: kept response headers whose value is stored as ``<redacted>`` (globs), on top
    #: of :data:`agentsnap.scrub.ACCOUNT_HEADERS` (``[response] mask_headers``)
    mask_headers: tuple[str, ...] = ()
    #: request headers that also identify the SDK when its User-Agent does not
    #: (``[match] headers``: ``{name: value}``, names lower case, values exact)
    match_headers: tuple[tuple[str, str], ...] = ()

    def codec_for(self, path: str) -> str | None:
        """The codec for an endpoint path, or None when the path is not an LLM call."""
        for suffix, codec in self.endpoints:
            if path.endswith(suffix):
                return codec
        return None

    def keeps_header(self, name: str) -> bool:
        """Whether a response header (any case) is kept in snapshots."""
        low = name.lower()
        return any(fnmatch.fnmatchcase(low, pat) for pat in self.keep_headers)


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
        endpoints=tuple((str(e["path_suffix"]), str(e["codec"])) for e in data.get("endpoints", [])),
        keep_headers=tuple(h.lower() for h in data.get("response", {}).get("keep_headers", ())),
        mask_headers=tuple(h.lower() for h in data.get("response", {}).get("mask_headers", ())),
        api_key_env=tuple(prov.get("api_key_env", ())),
        hosts=tuple(h.lower() for h in match.get("hosts", ())),
        match_headers=tuple((str(k).lower(), str(v)) for k, v in dict(match.get("headers", {})).items()),
        hooks=tuple((str(h["module"]), str(h["call"])) for h in data.get("hooks", [])),
        versions=str(prov.get("versions", "")),
        source=str(path),
        extra={k: v for k, v in data.items() if k not in {"provider", "match", "endpoints", "response", "hooks"}},
    )


@lru_cache(maxsize=None)
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
        except Exception as exc:  # noqa: BLE001 - any broken spec is skipped loudly
            warnings.warn(f"agentsnap: ignoring provider spec {path}: {exc}", stacklevel=2)
    return tuple(specs)


@lru_cache(maxsize=512)
def _spec_for(user_agent: str, host: str) -> ProviderSpec | None:
    # specs limited to particular hosts (OpenRouter through the openai SDK) win
    candidates = sorted(load_specs(), key=lambda s: not s.hosts)
    for spec in candidates:
        if not user_agent.startswith(spec.user_agent_prefixes):
            continue
        if spec.hosts and not any(host == h or host.endswith("." + h) for h in spec.hosts):
            continue
        return spec
    return None


def classify(request: Any) -> ProviderSpec | None:
    """The spec whose SDK sent ``request`` (an httpx/httpx2 Request), or None.

    Recognition is by User-Agent prefix (and, for specs that name hosts, the
    request's host), cached per distinct pair, so the per-call cost is two
    attribute lookups and one dict hit. A request no User-Agent matches is
    tried against the specs' ``[match] headers`` (an SDK release that sent no
    User-Agent of its own, e.g. cohere 5.x: ``x-fern-sdk-name: cohere``).
    """
    headers = request.headers
    ua = headers.get("user-agent")
    spec = _spec_for(ua, request.url.host) if ua else None
    if spec is not None:
        return spec
    for candidate in _header_specs():
        if all(headers.get(name) == value for name, value in candidate.match_headers):
            return candidate
    return None


@lru_cache(maxsize=1)
def _header_specs() -> tuple[ProviderSpec, ...]:
    return tuple(s for s in load_specs() if s.match_headers)
