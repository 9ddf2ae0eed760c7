"""``AnthropicAdapter``: scope a recording to one ``anthropic`` client.

Wraps ``anthropic.Anthropic`` / ``AsyncAnthropic`` (or a LangChain
``ChatAnthropic``) and behaves exactly like it: ``messages.create`` (plain and
``stream=True``), ``messages.stream()``, ``messages.parse``,
``beta.messages.*``, ``with_raw_response`` ... are the client's own. See
:class:`agentsnap.adapters.ClientAdapter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._declared import adapter_class

__all__ = ["AnthropicAdapter"]

if TYPE_CHECKING:
    from ._base import ClientAdapter

    class AnthropicAdapter(ClientAdapter):
        """What ``adapter_class`` builds from ``patches/anthropic.toml`` (for type checkers)."""

else:
    AnthropicAdapter = adapter_class("AnthropicAdapter")
