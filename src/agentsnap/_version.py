"""agentsnap's version: the one place it is written.

A leaf (imports nothing): ``agentsnap.__version__`` re-exports it, the modules
that stamp the version (snapshots, the HTML report, the judge's User-Agent,
``agentsnap --version``) import it from here, and the wheel's metadata reads
it too (``[tool.hatch.version]`` in pyproject.toml), so
``importlib.metadata.version("agentsnap")`` agrees with it.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "1.0.0.dev0"
