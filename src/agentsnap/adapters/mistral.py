"""``MistralAdapter``: scope a recording to one ``mistralai`` client.

Wraps ``mistralai.client.Mistral`` (3.x / 2.x layout; the older
``mistralai.Mistral`` too) and behaves exactly like it: ``chat.complete``,
``complete_async``, ``chat.stream`` (an ``EventStream``), ``stream_async``,
``agents.*`` ... See :class:`agentsnap.adapters.ClientAdapter`. Both HTTP
clients of the SDK configuration (sync and async) are in scope.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._declared import adapter_class

__all__ = ["MistralAdapter"]

if TYPE_CHECKING:
    from ._base import ClientAdapter

    class MistralAdapter(ClientAdapter):
        """What ``adapter_class`` builds from ``patches/mistralai.toml`` (for type checkers)."""

else:
    MistralAdapter = adapter_class("MistralAdapter")
