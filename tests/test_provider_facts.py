"""A provider's facts are declared once, in its spec, and everything else agrees (issue 15).

patches/<provider>.toml declares the supported range (`[provider] versions`),
the pyproject extra, the SDK matrix entry (`[sdk]`), the adapter (`[adapter]`)
and the judge's key row (`[judge]`). The code reads them (agentsnap.spec.provider_facts);
the pyproject extras, docs/providers.md, the noxfile and the judge's table are
held to them here.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentsnap import adapters, config
from agentsnap.spec.provider_facts import judge_keys, provider_facts

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _specs() -> dict[str, dict[str, Any]]:
    return {
        p.name: tomllib.loads(p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "patches").glob("*.toml"))
    }


def test_every_shipped_spec_declares_its_extra_and_adapter() -> None:
    facts = provider_facts()
    assert len(facts) == len(_specs())
    for f in facts:
        assert f.extra and f.adapter and f.versions, f.name
        assert isinstance(getattr(adapters, f.adapter), type), f.adapter
        assert f.adapter in adapters.__all__


def test_the_pyproject_extras_install_the_spec_package_in_its_range() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for name, spec in _specs().items():
        provider, sdk = spec["provider"], spec["sdk"]
        assert extras[sdk["extra"]] == [provider["package"] + provider["versions"]], name
    # all-providers installs every provider extra (openrouter is the openai SDK: its extra is openai's)
    (everything,) = extras["all-providers"]
    listed = set(everything.split("[", 1)[1].rstrip("]").split(","))
    wanted = {s["sdk"]["extra"] for s in _specs().values()}
    openai = [s for s in _specs().values() if s["provider"]["package"] == "openai"]
    assert wanted - listed <= {s["sdk"]["extra"] for s in openai if not s["sdk"].get("oldest")}


def test_the_providers_page_table_is_generated_from_the_specs() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from docs._gen import reference
    finally:
        sys.path.remove(str(ROOT))
    table = reference.providers_reference()
    assert reference.MARKERS["providers"] in (ROOT / "docs" / "providers.md").read_text(
        encoding="utf-8"
    )
    rows = {line.split("`patches/", 1)[1].split("`", 1)[0]: line for line in table.splitlines()[2:]}
    assert sorted(rows) == sorted(_specs())
    for name, spec in _specs().items():
        row = rows[name]
        assert f"`{spec['provider']['versions']}`" in row
        assert f"`agentsnap[{spec['sdk']['extra']}]`" in row
        assert f"`{spec['adapter']['class']}`" in row
        if spec["sdk"].get("oldest"):
            assert f"tested: {spec['sdk']['oldest']} and the newest" in row


def test_the_nox_sdk_matrix_is_read_from_the_specs() -> None:
    if importlib.util.find_spec("nox") is None:
        pytest.skip("nox is not installed (the dev extra)")
    sys.path.insert(0, str(ROOT))
    try:
        import noxfile
    finally:
        sys.path.remove(str(ROOT))
    from packaging.specifiers import SpecifierSet

    expected = {}
    for spec in _specs().values():
        sdk, package = spec["sdk"], spec["provider"]["package"]
        if sdk.get("oldest"):
            assert sdk["oldest"] in SpecifierSet(spec["provider"]["versions"]), package
            for test in sdk["matrix_tests"]:
                assert (ROOT / test).is_file(), test
            expected[package] = (
                f"{package}=={sdk['oldest']}",
                sdk.get("matrix_deps", []),
                sdk["matrix_tests"],
            )
    assert expected == noxfile.SDK_MATRIX
    # every SDK package has an entry
    assert set(expected) == {s["provider"]["package"] for s in _specs().values()}


def test_the_judge_key_table_is_the_specs_judge_rows_in_order() -> None:
    rows = sorted((s["judge"] for s in _specs().values() if "judge" in s), key=lambda j: j["order"])
    assert judge_keys() == tuple((j["host"], j["key_env"]) for j in rows)
    assert judge_keys() == config.PROVIDER_KEY_MAP
    assert judge_keys() == config._PROVIDER_KEY_MAP


def test_a_table_assigned_to_the_config_module_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        config, "PROVIDER_KEY_MAP", (("example.test", "EXAMPLE_KEY"),), raising=False
    )
    assert config.resolve_judge_api_key("https://api.example.test/v1", {"EXAMPLE_KEY": "k"}) == (
        "k",
        "EXAMPLE_KEY",
    )


def test_wrap_picks_the_adapter_the_spec_names_for_its_client_modules() -> None:
    by_module = dict(adapters._by_module())
    for f in provider_facts():
        for module in f.client_modules:
            assert by_module[module] is getattr(adapters, f.adapter or ""), module
    assert by_module["langgraph"] is adapters.LangGraphAdapter


def test_the_readme_lists_the_adapters_the_specs_declare() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    declared = {f.adapter for f in provider_facts() if f.adapter}
    per_provider = readme[readme.index("one adapter per provider (") :]
    per_provider = per_provider[: per_provider.index(")")]
    assert set(re.findall(r"`(\w+Adapter)`", per_provider)) == declared
    row = next(line for line in readme.splitlines() if line.startswith("| explicit adapters |"))
    assert set(re.findall(r"`(\w+Adapter)`", row)) == declared | {"LangGraphAdapter", "ToolAdapter"}
    # and what the package exports
    assert declared <= set(adapters.__all__)


def test_importing_config_reads_no_spec() -> None:
    code = (
        "import sys, agentsnap.config as c\n"
        "print(sorted(m for m in sys.modules if m.startswith('agentsnap')))\n"
        "c.PROVIDER_KEY_MAP\n"
        "print('agentsnap.spec.provider_facts' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert "provider_facts" not in out[0] and "capture" not in out[0]
    assert out[1] == "True"
