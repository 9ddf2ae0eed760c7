"""``GroqAdapter``: scope a recording to one ``groq`` client (``Groq`` / ``AsyncGroq``).

Behaves exactly like the client (``chat.completions.create``, plain and
streamed, ``with_raw_response``, ...). See :class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from ._base import ClientAdapter

__all__ = ["GroqAdapter"]


class GroqAdapter(ClientAdapter):
    """A transparent proxy around a ``groq`` client; its traffic is in the recording's scope."""

    accepts = ("groq", "langchain_groq")
    sdk = "groq"
