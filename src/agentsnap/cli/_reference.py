"""The commands that describe agentsnap's own formats: ``schema``."""

from __future__ import annotations

import typer

from ._command import command


@command("schema")
def schema() -> None:
    """Print the JSON Schema of a snapshot file (draft 2020-12).

    Generated from the installed agentsnap, so it is the schema its loader
    checks: point an editor at it, or validate goldens with other tools
    (agentsnap schema > snapshot.schema.json).
    """
    from ..storage.schema import schema_text

    typer.echo(schema_text(), nl=False)
