"""The documented import path of the comparison knobs (:mod:`agentsnap.knobs`).

``from agentsnap.diff.options import CompareOptions, option_fields`` keeps working;
importing through here also loads the registered checks, so
:meth:`CompareOptions.validated` can check ``weights`` against their components.
"""

from __future__ import annotations

from ..knobs import (
    LLM_THRESHOLD_EMBEDDING,
    LLM_THRESHOLD_JUDGE,
    CompareOptions,
    OptionField,
    asserter_option_names,
    marker_option_names,
    option_fields,
    setting_field,
    setting_option_names,
)
from . import checks as _checks  # noqa: F401  (registers the built-in checks and their components)

__all__ = [
    "LLM_THRESHOLD_EMBEDDING",
    "LLM_THRESHOLD_JUDGE",
    "CompareOptions",
    "OptionField",
    "asserter_option_names",
    "marker_option_names",
    "option_fields",
    "setting_field",
    "setting_option_names",
]
