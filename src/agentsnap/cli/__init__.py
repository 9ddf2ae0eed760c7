"""The ``agentsnap`` console command (a typer app).

``main()`` is the console-script entry point (``agentsnap = "agentsnap.cli:main"``);
``app`` is the :class:`typer.Typer` application, for tests and embedding.
Commands: ``list``, ``show``, ``diff``, ``approve``, ``update``, ``rm``,
``prune``, ``record``, ``run``, ``report``, ``schema`` — see ``agentsnap COMMAND --help`` for each one's exit codes.

Only typer and rich are imported with this package; the diff layer and the
provider codecs load when a command needs them.
"""

from __future__ import annotations

from ._app import app, main

__all__ = ["app", "main"]
