"""``OpenAIAdapter``: scope a recording to one ``openai`` client.

Wraps ``openai.OpenAI`` / ``AsyncOpenAI`` / ``AzureOpenAI`` /
``AsyncAzureOpenAI`` (or a LangChain ``ChatOpenAI``, whose SDK clients it
finds) and behaves exactly like it: every call shape — ``chat.completions``
(``create``, ``stream=True``, ``parse``, ``stream()``), ``responses.*``,
``with_raw_response``, ``with_streaming_response``, ``with_options`` — is the
client's own. See :class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._declared import adapter_class

__all__ = ["OpenAIAdapter"]

if TYPE_CHECKING:
    from ._base import ClientAdapter

    class OpenAIAdapter(ClientAdapter):
        """What ``adapter_class`` builds from ``patches/openai.toml`` (for type checkers)."""

else:
    OpenAIAdapter = adapter_class("OpenAIAdapter")
