"""``CohereAdapter``: scope a recording to one ``cohere`` client.

Wraps ``cohere.ClientV2`` / ``AsyncClientV2`` / ``Client`` / ``AsyncClient``
and behaves exactly like it: ``chat``, ``chat_stream``, ``client.v2.chat``,
v1 ``chat`` ... (``Client().v2`` shares the client's HTTP client, so it is in
scope too). See :class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._declared import adapter_class

__all__ = ["CohereAdapter"]

if TYPE_CHECKING:
    from ._base import ClientAdapter

    class CohereAdapter(ClientAdapter):
        """What ``adapter_class`` builds from ``patches/cohere.toml`` (for type checkers)."""

else:
    CohereAdapter = adapter_class("CohereAdapter")
