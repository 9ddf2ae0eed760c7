"""The docs' reference pages are generated from the code: every key, flag, ini option, env var and command is there.

``docs/_gen/reference.py`` builds the configuration reference from the
``Settings`` dataclass (field metadata ``doc``), ``ENV_VARS``, and the
plugin's ``pytest_addoption``; the CLI reference from the typer app; the
provider table from ``patches/*.toml``. These tests hold that generator to the
code, so a new setting, flag, variable or command cannot be left out, and —
when mkdocs is installed — build the site in strict mode.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agentsnap import config, exceptions

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "agentsnap_docs_reference", DOCS / "_gen" / "reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


@pytest.fixture(scope="module")
def config_page() -> str:
    return reference.config_reference()


def test_every_config_key_is_in_the_reference_with_its_default_ini_option_and_description(
    config_page: str,
) -> None:
    fields = {f.name: f for f in dataclasses.fields(config.Settings)}
    assert config.SETTING_KEYS  # the keys come from the code, not from this test
    for key in config.SETTING_KEYS:
        assert f"### `{key}`" in config_page, key
        assert f"`agentsnap_{key}`" in config_page, key
        f = fields[key]
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        assert f"{key} = {reference._toml(default)}" in config_page, key
    documented = {f["name"]: f["doc"] for f in reference.settings_fields()}
    assert set(documented) == set(config.SETTING_KEYS)
    assert [k for k, doc in documented.items() if not doc] == []


def test_the_original_keys_take_their_description_from_field_metadata() -> None:
    # a key documented only by a `#:` comment is still shown; metadata is the one source going forward
    with_metadata = {f.name for f in dataclasses.fields(config.Settings) if f.metadata.get("doc")}
    assert {
        "snapshot_dir",
        "mode",
        "instrument",
        "semantic_threshold",
        "llm_threshold",
        "structural_tolerance",
        "ignored_fields",
        "allow_pending",
        "replay_strict",
        "judge_model",
        "judge_base_url",
    } <= with_metadata


def test_every_flag_and_ini_option_of_the_plugin_is_in_the_reference(config_page: str) -> None:
    options = reference.plugin_options()
    flags = [o["flag"] for o in options]
    assert "--agentsnap-replay" in flags and "--agentsnap-report" in flags
    for flag in flags:
        assert f"`{flag}" in config_page, flag
    inis = reference.ini_options()
    assert inis == [f"agentsnap_{k}" for k in config.SETTING_KEYS]
    for name in inis:
        assert f"`{name}`" in config_page, name


def test_every_environment_variable_agentsnap_reads_is_in_the_reference(config_page: str) -> None:
    in_source = reference.source_env_vars()
    assert set(config.ENV_VARS) <= in_source
    for var in sorted(in_source | set(config.ENV_VARS)):
        assert f"`{var}`" in config_page, var
    for var in (
        "CI",
        *config._CI_MARKERS,
        config.JUDGE_API_KEY_ENV,
        *(v for _, v in config.PROVIDER_KEY_MAP),
    ):
        assert f"`{var}`" in config_page, var


def test_every_cli_command_and_option_is_in_the_cli_reference() -> None:
    page = reference.cli_reference()
    commands = reference.cli_commands()
    assert {"list", "show", "diff", "approve", "update", "rm", "record", "run"} <= set(commands)
    for name in commands:
        assert f"## `agentsnap {name}`" in page
        assert f"Usage: agentsnap {name}" in page
    assert "--html PATH" in page  # diff's HTML report option


def test_every_provider_spec_is_in_the_provider_table() -> None:
    table = reference.providers_reference()
    files = sorted(p.name for p in (ROOT / "patches").glob("*.toml"))
    assert files
    for name in files:
        assert f"`patches/{name}`" in table


def test_pages_carry_the_markers_the_build_fills() -> None:
    assert reference.MARKERS["config"] in (DOCS / "reference" / "configuration.md").read_text(
        encoding="utf-8"
    )
    assert reference.MARKERS["cli"] in (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert reference.MARKERS["providers"] in (DOCS / "providers.md").read_text(encoding="utf-8")
    filled = reference.fill((DOCS / "reference" / "configuration.md").read_text(encoding="utf-8"))
    assert "<!-- generated" not in filled and "### `semantic_threshold`" in filled


def test_troubleshooting_names_every_exception_agentsnap_raises() -> None:
    page = (DOCS / "troubleshooting.md").read_text(encoding="utf-8")
    names = [n for n in exceptions.__all__ if n not in ("AgentsnapWarning", "ReplayError")]
    names += ["JudgeError", "EmbeddingBackendError", "ReportError"]
    assert [n for n in names if n not in page] == []


def test_mkdocs_builds_the_site_strictly_with_the_generated_pages(tmp_path: Path) -> None:
    pytest.importorskip(
        "mkdocs", reason="mkdocs is not installed (the docs extra: pip install -e '.[docs]')"
    )
    pytest.importorskip(
        "material",
        reason="mkdocs-material is not installed (the docs extra: pip install -e '.[docs]')",
    )
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr
    page = (tmp_path / "site" / "reference" / "configuration" / "index.html").read_text(
        encoding="utf-8"
    )
    for key in config.SETTING_KEYS:
        assert f'id="{key}"' in page, key
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "Usage: agentsnap diff" in cli


def _readme_config_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("```toml\n[tool.agentsnap]\n") + len("```toml\n")
    return text[start : text.index("```", start)]


def test_the_readme_config_block_lists_every_key_with_its_default() -> None:
    """README's `[tool.agentsnap]` example is valid TOML holding each key at its default;
    the keys kept only so old configurations load are named in its last comment."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    block = _readme_config_block()
    shown = tomllib.loads(block)["tool"]["agentsnap"]
    fields = {f.name: f for f in dataclasses.fields(config.Settings)}
    for key, value in shown.items():
        assert key in config.SETTING_KEYS, key
        f = fields[key]
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        assert value == default, key
    (unused_line,) = [
        line for line in block.splitlines() if line.startswith("# still accepted, no longer used: ")
    ]
    unused = unused_line.split(": ", 1)[1].split(", ")
    assert all("no longer used" in fields[k].metadata["doc"] for k in unused)
    assert sorted([*shown, *unused]) == sorted(config.SETTING_KEYS)
