"""``MistralAdapter``: scope a recording to one ``mistralai`` client.

Wraps ``mistralai.client.Mistral`` (3.x / 2.x layout; the older
``mistralai.Mistral`` too) and behaves exactly like it: ``chat.complete``,
``complete_async``, ``chat.stream`` (an ``EventStream``), ``stream_async``,
``agents.*`` ... See :class:`agentsnap.adapters.ClientAdapter`. Both HTTP
clients of the SDK configuration (sync and async) are in scope.
"""

from __future__ import annotations

from ._base import ClientAdapter

__all__ = ["MistralAdapter"]


class MistralAdapter(ClientAdapter):
    """A transparent proxy around a ``mistralai`` client; its traffic is in the recording's scope."""

    accepts = ("mistralai", "langchain_mistralai")
    sdk = "mistralai"
