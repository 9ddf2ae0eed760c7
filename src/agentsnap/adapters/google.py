"""``GeminiAdapter``: scope a recording to one ``google-genai`` client.

Wraps ``google.genai.Client`` and behaves exactly like it: ``models.generate_content``,
``generate_content_stream``, ``client.aio.models.*``, ``chats.*``, automatic
function calling ... Both of the SDK's httpx2 clients (sync and ``aio``) are
in scope; while a recording is active the ``aio`` client sends through httpx2
even when aiohttp is installed (``patches/google-genai.toml``). See
:class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._declared import adapter_class

__all__ = ["GeminiAdapter"]

if TYPE_CHECKING:
    from ._base import ClientAdapter

    class GeminiAdapter(ClientAdapter):
        """What ``adapter_class`` builds from ``patches/google-genai.toml`` (for type checkers)."""

else:
    GeminiAdapter = adapter_class("GeminiAdapter")
