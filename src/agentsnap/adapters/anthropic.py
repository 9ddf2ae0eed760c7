"""``AnthropicAdapter``: scope a recording to one ``anthropic`` client.

Wraps ``anthropic.Anthropic`` / ``AsyncAnthropic`` (or a LangChain
``ChatAnthropic``) and behaves exactly like it: ``messages.create`` (plain and
``stream=True``), ``messages.stream()``, ``messages.parse``,
``beta.messages.*``, ``with_raw_response`` ... are the client's own. See
:class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from ._base import ClientAdapter

__all__ = ["AnthropicAdapter"]


class AnthropicAdapter(ClientAdapter):
    """A transparent proxy around an ``anthropic`` client; its traffic is in the recording's scope."""

    accepts = ("anthropic", "langchain_anthropic")
    sdk = "anthropic"
