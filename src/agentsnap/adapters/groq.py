"""``GroqAdapter``: scope a recording to one ``groq`` client (``Groq`` / ``AsyncGroq``).

Behaves exactly like the client (``chat.completions.create``, plain and
streamed, ``with_raw_response``, ...). See :class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._declared import adapter_class

__all__ = ["GroqAdapter"]

if TYPE_CHECKING:
    from ._base import ClientAdapter

    class GroqAdapter(ClientAdapter):
        """What ``adapter_class`` builds from ``patches/groq.toml`` (for type checkers)."""

else:
    GroqAdapter = adapter_class("GroqAdapter")
