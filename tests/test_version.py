"""The version is written once (src/agentsnap/_version.py) and agrees everywhere (issue 15)."""

from __future__ import annotations

import ast
import importlib.metadata
import sys
from pathlib import Path

import agentsnap
from agentsnap import _version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_re_exports_the_leaf() -> None:
    assert agentsnap.__version__ is _version.__version__


def test_the_installed_metadata_agrees() -> None:
    assert importlib.metadata.version("agentsnap") == _version.__version__


def test_pyproject_reads_the_version_from_the_leaf() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    path = project["tool"]["hatch"]["version"]["path"]
    assert (ROOT / path).resolve() == Path(_version.__file__).resolve()


def test_the_leaf_imports_nothing_and_nobody_imports_the_version_from_the_package() -> None:
    tree = ast.parse(Path(_version.__file__).read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [getattr(n, "module", None) for n in imports] == ["__future__"]
    src = ROOT / "src" / "agentsnap"
    offenders = []
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module in (None, "agentsnap")
                and any(a.name == "__version__" for a in node.names)
            ):
                offenders.append(str(path.relative_to(src)))
    assert offenders == []
