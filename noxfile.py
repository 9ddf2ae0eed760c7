"""Developer sessions: `nox -s tests`, `nox -s examples`, `nox -s lint typecheck`, `nox -s sdk_matrix`."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "examples"]
PYTHONS = ["3.11"]
# the supported range of the openai SDK (pyproject's [openai] extra): oldest and newest
OPENAI_OLDEST = "openai==1.40.0"


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The test suite (the README's test command)."""
    session.install("-e", ".[dev]")
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session(python=PYTHONS)
def examples(session: nox.Session) -> None:
    """The example agents replayed offline against the committed goldens."""
    session.install("-e", ".[dev]")
    session.run("pytest", "examples", "--agentsnap-replay", *session.posargs)


@nox.session(python=PYTHONS, name="sdk_matrix")
@nox.parametrize("openai_req", [OPENAI_OLDEST, "openai"])
def sdk_matrix(session: nox.Session, openai_req: str) -> None:
    """The suite against the oldest and the newest supported openai SDK."""
    session.install("-e", ".[dev]")
    session.install("--upgrade", openai_req)
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session(python=PYTHONS)
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "src", "tests", "examples")


@nox.session(python=PYTHONS)
def typecheck(session: nox.Session) -> None:
    session.install("-e", ".[dev]", "mypy")
    session.run("mypy", "src/agentsnap")


@nox.session(python=PYTHONS)
def docs(session: nox.Session) -> None:
    """Build the documentation site with mkdocs-material; any warning fails it."""
    session.install("-e", ".[docs]")
    session.run("mkdocs", "build", "--strict", "--site-dir", "site", env={"NO_MKDOCS_2_WARNING": "1"})
