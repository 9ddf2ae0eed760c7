"""``CohereAdapter``: scope a recording to one ``cohere`` client.

Wraps ``cohere.ClientV2`` / ``AsyncClientV2`` / ``Client`` / ``AsyncClient``
and behaves exactly like it: ``chat``, ``chat_stream``, ``client.v2.chat``,
v1 ``chat`` ... (``Client().v2`` shares the client's HTTP client, so it is in
scope too). See :class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from ._base import ClientAdapter

__all__ = ["CohereAdapter"]


class CohereAdapter(ClientAdapter):
    """A transparent proxy around a ``cohere`` client; its traffic is in the recording's scope."""

    accepts = ("cohere", "langchain_cohere")
    sdk = "cohere"
