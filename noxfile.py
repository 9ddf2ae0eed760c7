"""Developer sessions: `nox -s tests`, `nox -s examples`, `nox -s lint typecheck`, `nox -s sdk_matrix`,
`nox -s mcp-matrix`, `nox -s websocket-matrix`,
`nox -s frameworks`, `nox -s newest`.

The tools the suite drives in-process (pytest, xdist, hypothesis, syrupy, ruff, mypy, nox)
come from constraints/tools.txt; provider SDKs and frameworks install at their newest
releases. `nox -s newest` drops the constraints to show drift in one command.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

nox.options.sessions = ["tests", "examples"]
PYTHONS = ["3.11"]
#: pip's `-c` for the pinned in-process tools (see the file's header)
TOOLS = ("-c", "constraints/tools.txt")


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The test suite (the README's test command)."""
    session.install("-e", ".[dev]", *TOOLS)
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session(python=PYTHONS)
def newest(session: nox.Session) -> None:
    """The suite with the newest release of everything, tools included (no constraints):
    what a fresh install gets today. Prints each pinned tool whose newest release differs
    from constraints/tools.txt, then runs the README's test command."""
    session.install("--upgrade", "--upgrade-strategy", "eager", "-e", ".[dev]")
    pinned = dict(
        line.split("==")
        for line in Path("constraints/tools.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line and not line.startswith("#")
    )
    frozen = session.run("python", "-m", "pip", "list", "--format=freeze", silent=True)
    installed = dict(line.split("==") for line in str(frozen).splitlines() if "==" in line)
    for name, version in sorted(pinned.items()):
        now = installed.get(name, "not installed")
        if now != version:
            session.log(f"newer than constraints/tools.txt: {name} {version} -> {now}")
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session(python=PYTHONS)
def examples(session: nox.Session) -> None:
    """The example agents replayed offline against the committed goldens."""
    session.install("-e", ".[dev]", *TOOLS)
    session.run("pytest", "examples", "--agentsnap-replay", *session.posargs)


MATRIX_TEST_DEPS = ["pytest", "pytest-xdist", "hypothesis", "anyio", "pydantic"]


def _sdk_matrix() -> dict[str, tuple[str, list[str], list[str]]]:
    """SDK package -> (oldest supported requirement, extra packages its tests need, the tests
    that exercise it), from each spec's `[provider] package` and `[sdk] oldest`, `matrix_deps`,
    `matrix_tests` (patches/*.toml: a provider's facts are declared there once). A spec without
    `oldest` shares another spec's package (openrouter: openai). Read here with tomllib, not
    through agentsnap: nox itself runs outside agentsnap's venv.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    matrix: dict[str, tuple[str, list[str], list[str]]] = {}
    for path in sorted((Path(__file__).parent / "patches").glob("*.toml")):
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
        sdk = spec.get("sdk") or {}
        if sdk.get("oldest"):
            package = spec["provider"]["package"]
            matrix[package] = (
                f"{package}=={sdk['oldest']}",
                list(sdk.get("matrix_deps") or []),
                list(sdk.get("matrix_tests") or []),
            )
    return matrix


# newest = the latest release. The session installs agentsnap's core plus only that SDK, so no
# other package (LangChain, another SDK) holds the SDK's version back.
SDK_MATRIX: dict[str, tuple[str, list[str], list[str]]] = _sdk_matrix()


@nox.session(python=PYTHONS, name="sdk-matrix")
@nox.parametrize("bound", ["oldest", "newest"])
@nox.parametrize("provider", list(SDK_MATRIX))
def sdk_matrix(session: nox.Session, provider: str, bound: str) -> None:
    """One provider's record/replay tests against its oldest and newest supported SDK.

    `nox -s sdk-matrix` runs all twelve; `nox -s "sdk-matrix(provider='openai', bound='oldest')"` one.
    """
    oldest, extra, tests_ = SDK_MATRIX[provider]
    session.install("-e", ".", *MATRIX_TEST_DEPS, *extra, *TOOLS)
    session.install("--upgrade", oldest if bound == "oldest" else provider)
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    session.run("pytest", "-n", "2", *tests_, *session.posargs)


#: the oldest mcp agentsnap supports (the frameworks' floor: langchain-mcp-adapters and fastmcp need
#: mcp>=1.24), and the tests that drive it; newest = the latest release (2.x)
MCP_OLDEST = "mcp==1.24.0"
MCP_TESTS = ["tests/test_mcp_sessions.py", "tests/test_mcp_steps.py"]


@nox.session(python=PYTHONS, name="mcp-matrix")
@nox.parametrize("bound", ["oldest", "newest"])
def mcp_matrix(session: nox.Session, bound: str) -> None:
    """MCP capture and replay against the oldest supported and the newest `mcp` release."""
    session.install("-e", ".", "httpx", *MATRIX_TEST_DEPS, *TOOLS)
    session.install("--upgrade", MCP_OLDEST if bound == "oldest" else "mcp")
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    session.run("pytest", "-n", "2", *MCP_TESTS, *session.posargs)


#: the oldest `websockets` the SDKs accept (openai[realtime] and google-genai: >=13): its
#: asyncio client's `create_connection`, the sync `connect` function, `ClientProtocol.wsuri`
WEBSOCKETS_OLDEST = "websockets==13.1"
WEBSOCKET_TESTS = ["tests/test_websocket_sessions.py", "tests/test_websocket_turns.py"]


@nox.session(python=PYTHONS, name="websocket-matrix")
@nox.parametrize("bound", ["oldest", "before-17", "newest"])
def websocket_matrix(session: nox.Session, bound: str) -> None:
    """WebSocket capture and replay against the oldest supported `websockets`, the last release
    before 17 (the OpenAI Agents SDK pins `<17`; 17 moved where clients open the network) and
    the newest."""
    session.install("-e", ".[openai,google]", *MATRIX_TEST_DEPS, *TOOLS)
    pin = {"oldest": WEBSOCKETS_OLDEST, "before-17": "websockets<17", "newest": "websockets"}[bound]
    session.install("--upgrade", pin)
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    session.run("pytest", "-n", "2", *WEBSOCKET_TESTS, *session.posargs)


# extra of pyproject.toml -> the tests/frameworks files that need it (one venv a group: their pins conflict)
FRAMEWORK_GROUPS: dict[str, list[str]] = {
    "frameworks": [
        "test_openai_agents.py",
        "test_pydantic_ai.py",
        "test_dspy.py",
        "test_litellm.py",
        "test_smolagents.py",
        "test_strands.py",
        "test_extract_frameworks.py",
        "test_mcp_raw.py",
        "test_mcp_openai_agents.py",
        "test_mcp_pydantic_ai.py",
        "test_mcp_langchain.py",
        "test_ws_agents_sdk.py",
    ],
    "frameworks-openai2": ["test_instructor.py", "test_llama_index.py"],
    "frameworks-more": [
        "test_agno.py",
        "test_haystack.py",
        "test_autogen.py",
        "test_semantic_kernel.py",
        "test_google_adk.py",
    ],
    "frameworks-crewai": ["test_crewai.py"],
}
FRAMEWORK_TEST_DEPS = ["pytest", "pytest-xdist", "hypothesis"]


@nox.session(python=PYTHONS)
@nox.parametrize("group", list(FRAMEWORK_GROUPS))
def frameworks(session: nox.Session, group: str) -> None:
    """The agent frameworks at their newest releases, driven unmodified through record and offline replay.

    `nox -s frameworks` runs every group; `nox -s "frameworks(group='frameworks-openai2')"` one.
    .ci/run runs the same thing (its own venvs, no nox).
    """
    session.install("-e", f".[{group}]", *FRAMEWORK_TEST_DEPS, *TOOLS)
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    session.run(
        "pytest",
        "-n",
        "2",
        "-p",
        "no:randomly",
        *[f"tests/frameworks/{t}" for t in FRAMEWORK_GROUPS[group]],
        *session.posargs,
    )


def _install_unless_here(session: nox.Session, *requirements: str) -> None:
    """Install into the session's venv; with `nox --no-venv` (.ci/run) use what this
    environment has (`pip install -e '.[dev]'` brings ruff and mypy)."""
    if session.venv_backend != "none":
        session.install(*requirements)


@nox.session(python=PYTHONS)
def lint(session: nox.Session) -> None:
    """ruff's rules and its formatter (config in pyproject.toml); a CI gate (.ci/run)."""
    _install_unless_here(session, "ruff", *TOOLS)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHONS)
def typecheck(session: nox.Session) -> None:
    """`mypy --strict` over src/agentsnap (config in pyproject.toml); a CI gate (.ci/run)."""
    _install_unless_here(session, "-e", ".[dev]", *TOOLS)
    session.run("mypy", "--strict")


@nox.session(python=PYTHONS)
def docs(session: nox.Session) -> None:
    """Build the documentation site with mkdocs-material; any warning fails it."""
    session.install("-e", ".[docs]", *TOOLS)
    session.run(
        "mkdocs", "build", "--strict", "--site-dir", "site", env={"NO_MKDOCS_2_WARNING": "1"}
    )


@nox.session(python=PYTHONS)
def fuzz(session: nox.Session) -> None:
    """Coverage-guided fuzzing (atheris) of the snapshot loader and the stream reassembler, bounded in time.

    `nox -s fuzz -- 300` gives each target 300 s. A crashing input is kept in
    tests/fuzz/crashes/ and replayed by the tests.
    """
    session.install("-e", ".[dev]", "atheris")
    seconds = session.posargs[0] if session.posargs else "60"
    for target in ("loader", "sse"):
        session.run("python", "tests/fuzz/run.py", target, "--seconds", seconds)
    session.run("pytest", "tests/fuzz", "-q", "-p", "no:cacheprovider")


@nox.session(python=PYTHONS)
def bench(session: nox.Session) -> None:
    """The benchmarks (issue 7): every row next to its baseline; rewrites bench/RESULTS.md.

    agentsnap 0.5.1 shares our import name, so bench/run.py puts it in a venv of
    its own next to this session's and drives it as a worker process.
    """
    session.install(
        "-e",
        ".[openai,anthropic,groq,semantic]",
        "pytest-xdist",
        "vcrpy",
        "opentelemetry-instrumentation-openai",
        "opentelemetry-sdk",
        # row 9: the transports hooked besides httpx
        "aiohttp>=3.9",
        "requests>=2.28",
        # row 10: pydantic-ai (extra `frameworks`' pin) installs next to openai 3.x; the OpenAI
        # Agents SDK brings mcp, starlette and uvicorn, the `frameworks-openai2` group needs openai<3
        "pydantic-ai-slim[openai]>=2.68",
        # rows 12 and 13: MCP tool calls (the newest mcp line, on httpx2) and WebSocket messages
        "mcp>=2.3",
        "websockets>=14",
    )
    legacy = Path(session.virtualenv.location).parent / "bench-agentsnap-0.5.1"
    session.run("python", "bench/run.py", "--legacy-venv", str(legacy), *session.posargs)
