"""The client adapters the provider specs declare, built from ``patches/*.toml``.

A spec's ``[adapter]`` table names the class (``class``) and what it wraps;
this module makes that class, once per process, on first use:

* a spec with ``client_modules`` gets a :class:`~agentsnap.adapters._base.ClientAdapter`
  subclass accepting objects of those modules, for its SDK (``[provider] package``);
* a spec without them, limited to hosts (``[match] hosts``, OpenRouter's), gets a
  subclass of its SDK's adapter, which :func:`agentsnap.adapters.wrap` gives a
  client of that SDK whose base URL is on one of those hosts.

A provider whose adapter behaves like every other needs no code: its spec is
its adapter. ``agentsnap.adapters.<Class>`` reaches any of them.
"""

from __future__ import annotations

import functools
from urllib.parse import urlsplit

from ..spec.provider_facts import ProviderFacts, provider_facts
from ..spec.provider_specs import host_in, spec_derived
from ._base import ClientAdapter, base_url_of

__all__ = ["adapter_class", "adapter_for_host", "adapter_names", "client_adapters", "sdk_names"]


def adapter_names() -> tuple[str, ...]:
    """Every spec's ``[adapter] class``, in spec-file order."""
    return tuple(f.adapter for f in provider_facts() if f.adapter)


def _declaring(name: str) -> ProviderFacts:
    for facts in provider_facts():
        if facts.adapter == name:
            return facts
    raise AttributeError(f"agentsnap: no provider spec declares the adapter {name!r}")


def _sdk_adapter(facts: ProviderFacts) -> ProviderFacts:
    """The spec whose adapter serves the SDK that a host-limited spec's traffic comes from."""
    for other in provider_facts():
        if other.adapter and other.client_modules and other.sdk == facts.sdk:
            return other
    raise AttributeError(
        f"agentsnap: {facts.source or facts.name}: [adapter] {facts.adapter} has no client_modules "
        f"and no other spec has an adapter for the {facts.sdk or '?'} SDK"
    )


@functools.cache
def adapter_class(name: str) -> type[ClientAdapter]:
    """The adapter class a spec's ``[adapter] class`` names (the same object every call).

    Built on first use and kept for the process, also across
    :func:`~agentsnap.spec.provider_specs.reload_specs` (``agentsnap.adapters.openai``
    binds its class once). Raises ``AttributeError`` when no spec declares ``name``.
    """
    facts = _declaring(name)
    what = facts.wraps or f"a ``{facts.sdk}`` client"
    namespace: dict[str, object] = {
        "__module__": "agentsnap.adapters",
        "__qualname__": name,
        "__doc__": f"A transparent proxy around {what}; its traffic is in the recording's scope.\n\n"
        f"Declared by ``[adapter]`` in {facts.source or facts.name}; see :class:`ClientAdapter`.",
    }
    if facts.client_modules:
        base = ClientAdapter
        namespace.update(accepts=facts.client_modules, sdk=facts.sdk)
    else:
        base = adapter_class(_sdk_adapter(facts).adapter or "")
    return type(name, (base,), namespace)


@spec_derived
@functools.cache
def client_adapters() -> tuple[tuple[str, type[ClientAdapter]], ...]:
    """Module prefix -> adapter, for every spec's ``[adapter] client_modules``."""
    return tuple(
        (module, adapter_class(facts.adapter))
        for facts in provider_facts()
        if facts.adapter
        for module in facts.client_modules
    )


def adapter_for_host(adapter: type[ClientAdapter], client: object) -> type[ClientAdapter]:
    """``adapter``, or the adapter of a host-limited spec of the same SDK whose hosts the
    client's base URL is on (an ``openai`` client pointed at OpenRouter: ``OpenRouterAdapter``)."""
    limited = [
        f for f in provider_facts() if f.adapter and not f.client_modules and f.sdk == adapter.sdk
    ]
    if not limited:
        return adapter
    base = base_url_of(client)
    if not base:
        return adapter
    host = urlsplit(base).hostname or ""
    for facts in limited:
        if facts.hosts and host_in(host, facts.hosts):
            return adapter_class(facts.adapter or "")
    return adapter


def sdk_names() -> str:
    """``"anthropic, cohere, … or openai"``: the SDKs an adapter wraps, for messages."""
    names = list(dict.fromkeys(f.sdk for f in provider_facts() if f.adapter and f.client_modules))
    return " or ".join(filter(None, [", ".join(names[:-1]), names[-1]])) if names else "no SDK"
