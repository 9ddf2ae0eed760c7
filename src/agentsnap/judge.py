"""``agentsnap.judge``: the LLM judge's old address (it lives in :mod:`agentsnap.diff.judge`).

Every public name of :mod:`agentsnap.diff.judge` is re-exported here, so
``from agentsnap.judge import LLMJudge`` keeps working.
"""

from __future__ import annotations

from .diff.judge import (
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    JudgeError,
    Judgement,
    LLMJudge,
    parse_reply,
)

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "JudgeError",
    "Judgement",
    "LLMJudge",
    "parse_reply",
]
