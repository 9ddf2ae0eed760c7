"""``OpenAIAdapter``: scope a recording to one ``openai`` client.

Wraps ``openai.OpenAI`` / ``AsyncOpenAI`` / ``AzureOpenAI`` /
``AsyncAzureOpenAI`` (or a LangChain ``ChatOpenAI``, whose SDK clients it
finds) and behaves exactly like it: every call shape — ``chat.completions``
(``create``, ``stream=True``, ``parse``, ``stream()``), ``responses.*``,
``with_raw_response``, ``with_streaming_response``, ``with_options`` — is the
client's own. See :class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from ._base import ClientAdapter

__all__ = ["OpenAIAdapter"]


class OpenAIAdapter(ClientAdapter):
    """A transparent proxy around an ``openai`` client; its traffic is in the recording's scope."""

    accepts = ("openai", "langchain_openai")
    sdk = "openai"
