"""Secret scrubbing for everything agentsnap stores.

Request headers are never stored at all (they carry API keys). What is stored —
URLs, JSON request bodies, tool arguments — is scrubbed before it is written
*and* before a replay key is computed from it, so a scrubbed recording still
matches the live request. Scrubbing is idempotent (the placeholder matches no
pattern) and never runs on load.

Patterns (token shapes published by the providers): OpenAI ``sk-…`` /
``sk-proj-…``, Anthropic ``sk-ant-…``, Google ``AIza…``, Groq ``gsk_…``,
``Bearer …`` values and JWTs; URL query parameters named ``key``, ``api_key``,
``apikey``, ``access_token``, ``token``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["REDACTED", "scrub_text", "scrub_value", "scrub_url"]

REDACTED = "<redacted>"

_TOKEN_RE = re.compile(
    r"(?:sk-ant-[A-Za-z0-9_\-]{8,}"
    r"|sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|gsk_[A-Za-z0-9]{16,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})"
)
_BEARER_RE = re.compile(r"(?i)\b(bearer)\s+(?!<redacted>)[A-Za-z0-9._~+/\-]{8,}=*")
_SECRET_QUERY_KEYS = frozenset({"key", "api_key", "apikey", "api-key", "access_token", "token"})


def scrub_text(text: str) -> str:
    """Replace token-shaped substrings of ``text`` with ``<redacted>``."""
    if len(text) < 8:
        return text
    text = _TOKEN_RE.sub(REDACTED, text)
    return _BEARER_RE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)


def scrub_value(value: Any) -> Any:
    """Scrub every string inside a JSON-like value (dict keys are left alone)."""
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {k: scrub_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(v) for v in value]
    return value


def scrub_url(url: str) -> str:
    """Mask secret query parameters and token shapes in a URL."""
    parts = urlsplit(url)
    if parts.query:
        pairs = [(k, REDACTED if k.lower() in _SECRET_QUERY_KEYS else scrub_text(v)) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        parts = parts._replace(query=urlencode(pairs, safe="<>"))
    if "@" in parts.netloc:  # user:password@host
        parts = parts._replace(netloc=REDACTED + "@" + parts.netloc.rsplit("@", 1)[1])
    return urlunsplit(parts)
