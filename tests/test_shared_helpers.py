"""The shared test helpers stay shared: no test file copies the CI marker list again (issue 15)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests._support.ci import CI_MARKERS

TESTS = Path(__file__).resolve().parent


def test_the_ci_markers_are_those_agentsnap_reads() -> None:
    from agentsnap import config

    for var in CI_MARKERS:
        assert config.is_ci({var: "1"}), var
    assert not config.is_ci({})


def test_no_test_file_writes_its_own_ci_marker_list() -> None:
    copies = []
    for path in sorted(TESTS.rglob("*.py")):
        if "_support" in path.parts or "project_051" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Tuple, ast.List)):
                names = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if {"GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE"} <= names:
                    copies.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert copies == [], "use tests._support.ci.CI_MARKERS / _local_not_ci / clear_ci"
