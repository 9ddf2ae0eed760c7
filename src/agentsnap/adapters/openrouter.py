"""``OpenRouterAdapter``: scope a recording to an ``openai`` client pointed at OpenRouter.

    client = OpenRouterAdapter(openai.OpenAI(base_url=OPENROUTER_BASE_URL, api_key=os.environ["OPENROUTER_API_KEY"]))

The traffic is recorded under the provider ``openrouter`` (recognised by the
host, see ``patches/openrouter.toml``) whichever adapter wraps the client;
this class exists so the wrapping reads as what it is. Behaves exactly like
the client (see :class:`agentsnap.adapters.openai.OpenAIAdapter`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._declared import adapter_class

__all__ = ["OPENROUTER_BASE_URL", "OpenRouterAdapter"]

#: OpenRouter's OpenAI-compatible API root
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"

if TYPE_CHECKING:
    from .openai import OpenAIAdapter

    class OpenRouterAdapter(OpenAIAdapter):
        """What ``adapter_class`` builds from ``patches/openrouter.toml`` (for type checkers)."""

else:
    OpenRouterAdapter = adapter_class("OpenRouterAdapter")
