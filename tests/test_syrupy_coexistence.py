"""syrupy's ``snapshot`` fixture next to ours: the run says once which one the tests get, and how to pick."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

TEST = """
def test_which(snapshot, agent_snapshot):
    print("snapshot is", type(snapshot).__module__, type(snapshot).__name__)
    assert type(agent_snapshot).__name__ == "SnapshotFixture"
"""


@pytest.fixture(autouse=True)
def _with_syrupy(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("syrupy")  # a dev dependency
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)


def run(pytester: pytest.Pytester) -> pytest.RunResult:
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", "-s")
    assert result.ret == 0, result.stdout.str()
    return result


def test_the_winner_is_named_once_with_the_way_to_pick(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a=TEST, test_b=TEST)
    result = run(pytester)
    notes = [
        line for line in result.outlines if line.startswith("agentsnap: syrupy is installed too")
    ]
    assert len(notes) == 1  # once per run, not per test
    winner = next(line for line in result.outlines if "snapshot is" in line)
    if "agentsnap" in winner:
        assert notes[0].endswith(
            "`snapshot` is agentsnap's fixture here. For syrupy's, add `from syrupy import snapshot` "
            "to your conftest.py and use `agent_snapshot` for agentsnap."
        )
    else:
        assert "syrupy" in winner
        assert notes[0].endswith(
            "`snapshot` is syrupy's fixture here. agentsnap's fixture is `agent_snapshot` (the same object)."
        )


def test_the_conftest_recipe_gives_syrupys_snapshot(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("from syrupy import snapshot  # noqa: F401\n")
    pytester.makepyfile(test_a=TEST)
    result = run(pytester)
    result.stdout.fnmatch_lines(["*snapshot is syrupy.assertion SnapshotAssertion*"])
    result.stdout.fnmatch_lines(
        ["agentsnap: syrupy is installed too; `snapshot` is syrupy's fixture here.*agent_snapshot*"]
    )


def test_no_note_when_no_test_asks_for_snapshot(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="def test_x(agent_snapshot):\n    pass\n")
    result = run(pytester)
    assert not [line for line in result.outlines if line.startswith("agentsnap: syrupy")]


def test_no_note_without_syrupy(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_a="def test_x(snapshot):\n    assert type(snapshot).__name__ == 'SnapshotFixture'\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:syrupy")
    assert result.ret == 0
    assert not [
        line for line in result.outlines if "syrupy" in line and line.startswith("agentsnap")
    ]
