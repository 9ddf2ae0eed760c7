"""mkdocs hook: fill the generated sections of the reference pages from the code (see reference.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

_spec = importlib.util.spec_from_file_location(
    "agentsnap_docs_reference", Path(__file__).with_name("reference.py")
)
assert _spec is not None and _spec.loader is not None
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any, **kwargs: Any) -> str:
    return reference.fill(markdown)
