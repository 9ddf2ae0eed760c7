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


def test_syrupy_keeps_snapshot_by_default_and_the_run_says_how_to_pick(
    pytester: pytest.Pytester,
) -> None:
    # installing agentsnap never changes what an existing syrupy test gets
    pytester.makepyfile(test_a=TEST, test_b=TEST)
    result = run(pytester)
    notes = [
        line for line in result.outlines if line.startswith("agentsnap: syrupy is installed too")
    ]
    assert notes == [
        "agentsnap: syrupy is installed too; `snapshot` is syrupy's fixture here. agentsnap's "
        "fixture is `agent_snapshot` (the same object); to give agentsnap `snapshot`, set "
        'snapshot_fixture = "agentsnap" in [tool.agentsnap].'
    ]  # once per run, not per test
    winners = [line for line in result.outlines if "snapshot is" in line]
    assert winners == [
        f"{name}.py snapshot is syrupy.assertion SnapshotAssertion" for name in ("test_a", "test_b")
    ]


def test_the_setting_gives_agentsnap_the_name_next_to_syrupy(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_fixture = "agentsnap"\n')
    pytester.makepyfile(test_a=TEST)
    result = run(pytester)
    assert "test_a.py snapshot is agentsnap._pytest.fixture SnapshotFixture" in result.outlines
    assert [line for line in result.outlines if line.startswith("agentsnap: syrupy")] == [
        "agentsnap: syrupy is installed too; `snapshot` is agentsnap's fixture here "
        '(snapshot_fixture = "agentsnap"). For syrupy\'s, remove that setting and use '
        "`agent_snapshot` for agentsnap."
    ]


def test_off_leaves_snapshot_unclaimed_without_syrupy(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_fixture = "off"\n')
    pytester.makepyfile(test_a=TEST)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:syrupy")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*fixture 'snapshot' not found*"])


def test_a_bad_owner_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_fixture = "both"\n')
    pytester.makepyfile(test_a=TEST)
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*bad value 'both' for 'snapshot_fixture'*expected one of auto, agentsnap, off*"]
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
