"""``GeminiAdapter``: scope a recording to one ``google-genai`` client.

Wraps ``google.genai.Client`` and behaves exactly like it: ``models.generate_content``,
``generate_content_stream``, ``client.aio.models.*``, ``chats.*``, automatic
function calling ... Both of the SDK's httpx2 clients (sync and ``aio``) are
in scope; while a recording is active the ``aio`` client sends through httpx2
even when aiohttp is installed (``patches/google-genai.toml``). See
:class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from ._base import ClientAdapter

__all__ = ["GeminiAdapter"]


class GeminiAdapter(ClientAdapter):
    """A transparent proxy around a ``google.genai.Client``; its traffic is in the recording's scope."""

    accepts = ("google.genai", "langchain_google_genai")
    sdk = "google-genai"
