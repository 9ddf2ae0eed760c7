"""A provider's facts beyond recognition, as its spec (``patches/<provider>.toml``) declares them.

One :class:`ProviderFacts` per spec file, read from the tables the spec
loader keeps as they are (:attr:`agentsnap.spec.provider_specs.ProviderSpec.extra`)::

    [provider]  name, package, versions, api_key_env   (the capture layer's too)
    [sdk]       extra, oldest, matrix_deps, matrix_tests
    [adapter]   class, client_modules, clients, base_url, wraps
    [judge]     host, key_env, order              (optional)

Read by :mod:`agentsnap.adapters` (the adapter classes themselves, which
adapter :func:`~agentsnap.adapters.wrap` gives a client, how a refused
request's client is named), the adapters' messages, :data:`agentsnap.config.PROVIDER_KEY_MAP` (the judge's
key table), the noxfile's SDK matrix (which parses the files itself: nox runs
outside agentsnap's venv) and ``tests/test_provider_facts.py`` (the pyproject
extras, ``docs/providers.md`` and the README's adapter lists agree with
them). Adding a provider is a new spec file with these tables (and a codec
when its wire format is new).

Nothing here runs at import time; the specs are parsed once per process, on
first use (:func:`agentsnap.spec.provider_specs.load_specs` is cached).
"""

from __future__ import annotations

import re
from functools import cache

import msgspec

from .provider_specs import ProviderSpec, load_specs, spec_derived

__all__ = ["READER_STEP", "JudgeKey", "ProviderFacts", "judge_keys", "provider_facts"]

#: one step of an ``[adapter] base_url`` path: an attribute, optionally called
#: (``()``) and then indexed (``[0]``)
READER_STEP = re.compile(r"(\w+)(\(\))?(?:\[(\d+)\])?")


class JudgeKey(msgspec.Struct, frozen=True):
    """One row of the judge's key table: a ``judge_base_url`` whose host contains
    ``host`` reads its key from the environment variable ``key_env``."""

    host: str
    key_env: str
    order: int


class ProviderFacts(msgspec.Struct, frozen=True):
    """What agentsnap knows about one provider besides how to recognise its traffic.

    ``name``: the spec's ``[provider] name``; ``versions``: the supported
    range of the SDK (``[provider] package``), PEP 440;
    ``api_key_env``: the variables the SDK needs (replay fills in a dummy);
    ``extra``: the pyproject extra that installs the SDK; ``oldest``: the
    oldest release the SDK matrix tests (None: another spec's entry covers the
    package), with ``matrix_deps`` and ``matrix_tests``; ``adapter``: the
    class name in :mod:`agentsnap.adapters` (None: no adapter); ``client_modules``: the module
    prefixes whose classes ``wrap()`` gives that adapter (none: the adapter is
    for the SDK's clients pointed at the spec's ``[match] hosts``, as
    OpenRouter's); ``clients``: the SDK's client classes as ``"module:Class"``
    (how a refused request names its client); ``base_url``: where such a client
    keeps its base URL, attribute paths tried in order (``a.b``, ``a.get()``,
    ``a.get()[0]``); ``wraps``: what the adapter wraps, for the docs;
    ``sdk``: ``[provider] package``; ``hosts``: ``[match] hosts``;
    ``judge``: the judge's key row, or None.
    """

    name: str
    versions: str
    api_key_env: tuple[str, ...]
    extra: str | None
    oldest: str | None
    matrix_deps: tuple[str, ...]
    matrix_tests: tuple[str, ...]
    adapter: str | None
    client_modules: tuple[str, ...]
    judge: JudgeKey | None
    source: str
    clients: tuple[str, ...] = ()
    base_url: tuple[str, ...] = ()
    wraps: str | None = None
    sdk: str = ""
    hosts: tuple[str, ...] = ()


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where} must be a list of strings, got {value!r}")
    return tuple(value)


def _optional(value: object, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{where} must be a string, got {value!r}")
    return value


def _facts(spec: ProviderSpec) -> ProviderFacts:
    sdk = dict(spec.extra.get("sdk") or {})
    adapter = dict(spec.extra.get("adapter") or {})
    judge = spec.extra.get("judge")
    where = spec.source or spec.name
    oldest = sdk.get("oldest")
    return ProviderFacts(
        name=spec.name,
        versions=spec.versions,
        api_key_env=spec.api_key_env,
        extra=_optional(sdk.get("extra"), f"{where}: [sdk] extra"),
        oldest=str(oldest) if oldest is not None else None,
        matrix_deps=_strings(sdk.get("matrix_deps", []), f"{where}: [sdk] matrix_deps"),
        matrix_tests=_strings(sdk.get("matrix_tests", []), f"{where}: [sdk] matrix_tests"),
        adapter=_optional(adapter.get("class"), f"{where}: [adapter] class"),
        client_modules=_strings(
            adapter.get("client_modules", []), f"{where}: [adapter] client_modules"
        ),
        judge=(
            JudgeKey(
                host=str(judge["host"]), key_env=str(judge["key_env"]), order=int(judge["order"])
            )
            if judge
            else None
        ),
        source=spec.source,
        clients=_clients(adapter.get("clients", []), f"{where}: [adapter] clients"),
        base_url=_readers(adapter.get("base_url", []), f"{where}: [adapter] base_url"),
        wraps=_optional(adapter.get("wraps"), f"{where}: [adapter] wraps"),
        sdk=spec.sdk_package,
        hosts=spec.hosts,
    )


def _readers(value: object, where: str) -> tuple[str, ...]:
    paths = _strings(value, where)
    for path in paths:
        if not all(READER_STEP.fullmatch(step) for step in path.split(".")):
            raise ValueError(f"{where}: {path!r} is not an attribute path like 'a.b()[0]'")
    return paths


def _clients(value: object, where: str) -> tuple[str, ...]:
    names = _strings(value, where)
    for name in names:
        module, _, cls = name.partition(":")
        if not module or not cls.isidentifier():
            raise ValueError(f"{where}: {name!r} is not 'module:Class'")
    return names


@spec_derived
@cache
def provider_facts() -> tuple[ProviderFacts, ...]:
    """Every spec's facts, in spec-file order (sorted by file name).

    Every shipped spec declares them all (tests/test_provider_facts.py); a
    spec of one's own may leave any out (None / empty). Raises ``ValueError``
    naming the file for a malformed value (a spec the loader skipped with a
    warning is simply absent).
    """
    return tuple(_facts(spec) for spec in load_specs())


@spec_derived
@cache
def judge_keys() -> tuple[tuple[str, str], ...]:
    """The judge's key table, ``(host fragment, variable)`` by ``order``: what
    :data:`agentsnap.config.PROVIDER_KEY_MAP` is. Raises ``ValueError`` naming both
    spec files when two ``[judge]`` tables share an ``order`` (which row is tried
    first would depend on the file names)."""
    judged = [f for f in provider_facts() if f.judge is not None]
    seen: dict[int, ProviderFacts] = {}
    for facts in judged:
        assert facts.judge is not None
        other = seen.setdefault(facts.judge.order, facts)
        if other is not facts:
            raise ValueError(
                f"{other.source or other.name} and {facts.source or facts.name}: "
                f"[judge] order = {facts.judge.order} twice; give each provider its own"
            )
    rows = sorted((f.judge for f in judged if f.judge is not None), key=lambda j: j.order)
    return tuple((row.host, row.key_env) for row in rows)
