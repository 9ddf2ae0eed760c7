"""The agentsnap CLI review commands: approve, update, rm, diff (exit codes, messages, files on disk)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentsnap.cli import _output
from agentsnap.storage.store import SnapshotStore
from tests.test_cli_helpers import (
    LYON,
    PARIS,
    ago,
    invoke,
    llm_step,
    make,
    read,
    set_field,
    tool_step,
    tree,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AGENTSNAP_SNAPSHOT_DIR", "AGENTSNAP_MODE", "AGENTSNAP_RECORD", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)


# ---------------------------------------------------------------------------- approve
def test_approve_full_name_flips_the_flag_and_prints_name_steps_age(tmp_path: Path) -> None:
    paris = make(tmp_path, PARIS)
    lyon = make(tmp_path, LYON)
    set_field(paris, "updated_at", ago(hours=5, minutes=1))
    lyon_before = lyon.read_bytes()

    result = invoke("approve", PARIS, "--dir", str(tmp_path))

    assert result.exit_code == 0, result.output
    assert read(paris)["approved"] is True
    assert lyon.read_bytes() == lyon_before
    lines = result.stdout.splitlines()
    assert lines[0] == f"Approved 1 snapshot in {tmp_path}:"
    assert lines[1].split() == ["NAME", "STEPS", "AGE"]
    assert lines[2].split() == [PARIS, "3", "5h"]


def test_approve_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    paris = make(tmp_path, PARIS)
    before = read(paris)
    invoke("approve", PARIS, "--dir", str(tmp_path))
    after = read(paris)
    assert {k: v for k, v in after.items() if k not in ("approved", "updated_at")} == {
        k: v for k, v in before.items() if k not in ("approved", "updated_at")
    }


def test_approve_unique_prefix(tmp_path: Path) -> None:
    paris = make(tmp_path, PARIS)
    lyon = make(tmp_path, LYON)
    result = invoke("approve", "tests/test_weather.py::test_p", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert read(paris)["approved"] is True
    assert read(lyon)["approved"] is False


def test_approve_glob_selects_every_match(tmp_path: Path) -> None:
    paris = make(tmp_path, PARIS)
    lyon = make(tmp_path, LYON)
    other = make(tmp_path, "tests/test_other.py::test_x")
    result = invoke("approve", "tests/test_weather.py::*", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert read(paris)["approved"] and read(lyon)["approved"]
    assert read(other)["approved"] is False
    assert "Approved 2 snapshots" in result.stdout


def test_approve_ambiguous_prefix_lists_candidates_and_changes_nothing(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    make(tmp_path, LYON)
    before = tree(tmp_path)

    result = invoke("approve", "tests/test_weather", "--dir", str(tmp_path))

    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error: 'tests/test_weather' is the start of 2 snapshot names in "
    )
    assert f"\n  {LYON}\n  {PARIS}\n" in result.stderr
    assert tree(tmp_path) == before


def test_approve_is_all_or_nothing(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    before = tree(tmp_path)
    result = invoke("approve", PARIS, "no-such-test", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert "no snapshot matches 'no-such-test'" in result.stderr
    assert tree(tmp_path) == before


def test_approve_exact_name_with_brackets_is_not_a_glob(tmp_path: Path) -> None:
    name = "tests/t.py::test_x[1]"
    path = make(tmp_path, name)
    decoy = make(tmp_path, "tests/t.py::test_x1")
    result = invoke("approve", name, "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert read(path)["approved"] is True
    assert read(decoy)["approved"] is False


def test_approve_already_approved_says_so(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    result = invoke("approve", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout == f"already approved: {PARIS}\n"


def test_approve_all_approves_every_pending_snapshot(tmp_path: Path) -> None:
    paths = [make(tmp_path, PARIS), make(tmp_path, LYON), make(tmp_path, "c", approved=True)]
    result = invoke("approve", "--all", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert all(read(p)["approved"] for p in paths)
    assert "Approved 2 snapshots" in result.stdout
    again = invoke("approve", "--all", "--dir", str(tmp_path))
    assert again.exit_code == 0
    assert again.stdout == f"Nothing to approve: no pending snapshots in {tmp_path}.\n"


def test_approve_all_refuses_a_non_standard_file_name_before_approving_anything(
    tmp_path: Path,
) -> None:
    """``--all`` checks what the named form checks: a pending golden under a file name that is
    not its own is refused with the rename advice (not a bare KeyError), and no other pending
    snapshot is approved half-way."""
    paris = make(tmp_path, PARIS)
    odd = tmp_path / "data.json"
    make(tmp_path, "x").rename(odd)
    result = invoke("approve", "--all", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert f"{odd} holds 'x' under a non-standard file name" in result.output
    assert "rename the file to x.json" in result.output
    assert read(paris)["approved"] is False
    assert read(odd)["approved"] is False


def test_approve_all_warns_about_corrupt_files_and_leaves_them(tmp_path: Path) -> None:
    paris = make(tmp_path, PARIS)
    bad = tmp_path / "bad-12345678.json"
    bad.write_text("[]", encoding="utf-8")
    result = invoke("approve", "--all", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert read(paris)["approved"] is True
    assert f"warning: {bad} is not an agentsnap snapshot" in result.stderr
    assert bad.read_text(encoding="utf-8") == "[]"


@pytest.mark.parametrize("args", [[], [PARIS, "--all"]])
def test_approve_needs_names_or_all_but_not_both(tmp_path: Path, args: list[str]) -> None:
    make(tmp_path, PARIS)
    result = invoke("approve", *args, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert "give one or more NAMEs, or --all" in result.output


def test_approve_corrupt_file_named_exactly_is_a_one_line_error(tmp_path: Path) -> None:
    path = SnapshotStore(tmp_path).path_for(PARIS)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("<<<<<<< HEAD\n{}\n", encoding="utf-8")
    before = tree(tmp_path)
    result = invoke("approve", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert (
        result.stderr.count("\n") == 1
        and str(path) in result.stderr
        and "merge-conflict" in result.stderr
    )
    assert "Traceback" not in result.output
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------- update
def test_update_promotes_the_last_run_approved_and_removes_it(tmp_path: Path) -> None:
    golden = make(tmp_path, PARIS, approved=False, source="trace")
    created = read(golden)["created_at"]
    last = make(
        tmp_path,
        PARIS,
        city="Lyon",
        output="Rainy",
        trace=[llm_step(0, city="Lyon", response=""), tool_step(1, "Lyon")],
        last_run=True,
    )
    other = make(tmp_path, LYON, approved=True)
    other_before = other.read_bytes()

    result = invoke("update", PARIS, "--dir", str(tmp_path))

    assert result.exit_code == 0, result.output
    assert result.stdout == f"updated {PARIS}: steps 3 → 2, output changed: yes\n"
    data = read(golden)
    assert data["approved"] is True
    assert data["trace"][1]["args"] == {"city": "Lyon"}
    assert data["output"] == "Rainy"
    assert data["source"] == "pytest"  # the run's own source is kept
    assert data["created_at"] == created
    assert not last.exists()
    assert other.read_bytes() == other_before


def test_update_without_a_golden_creates_it(tmp_path: Path) -> None:
    last = make(tmp_path, PARIS, last_run=True)
    result = invoke("update", "tests/test_weather.py::test_pa", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout == f"created {PARIS}: steps - → 3, output changed: yes\n"
    assert read(SnapshotStore(tmp_path).path_for(PARIS))["approved"] is True
    assert not last.exists()


def test_update_same_content_reports_no_change(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, last_run=True)
    result = invoke("update", PARIS, "--dir", str(tmp_path))
    assert result.stdout == f"updated {PARIS}: steps 3 → 3, output changed: no\n"


def test_update_reads_an_answer_quoting_a_fresh_call_id_as_unchanged(tmp_path: Path) -> None:
    """The answer names the tool call it made; the last run differs only by the provider's
    new id (in its trace and its answer alike): the output did not change."""

    def trace(call_id: str) -> list[dict[str, Any]]:
        step = llm_step(0, city="Paris")
        step["tool_requests"][0]["id"] = call_id
        return [step, tool_step(1, "Paris")]

    make(tmp_path, PARIS, approved=True, trace=trace("call_first1"), output="Sunny (call_first1)")
    make(tmp_path, PARIS, trace=trace("call_fresh2"), output="Sunny (call_fresh2)", last_run=True)
    result = invoke("update", PARIS, "--dir", str(tmp_path))
    assert result.stdout == f"updated {PARIS}: steps 2 → 2, output changed: no\n"


def test_update_all_promotes_changed_and_new_runs_only(tmp_path: Path) -> None:
    changed = make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, city="Lyon", last_run=True)
    same = make(tmp_path, LYON, city="Lyon", approved=True)
    same_last = make(tmp_path, LYON, city="Lyon", last_run=True)
    new_last = make(tmp_path, "tests/test_new.py::test_new", last_run=True)
    same_before = same.read_bytes()

    result = invoke("update", "--all", "--dir", str(tmp_path))

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "created tests/test_new.py::test_new: steps - → 3, output changed: yes",
        f"updated {PARIS}: steps 3 → 3, output changed: no",
    ]  # sorted by name
    assert read(changed)["trace"][1]["args"] == {"city": "Lyon"}
    assert same.read_bytes() == same_before and same_last.exists()
    assert not new_last.exists()
    again = invoke("update", "--all", "--dir", str(tmp_path))
    assert again.exit_code == 0
    assert again.stdout.startswith("Nothing to update: every last run in ")


def test_update_all_with_no_last_runs(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    result = invoke("update", "--all", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout.startswith(
        f"Nothing to update: no last runs in {tmp_path / '.last_run'}. Run the tests first"
    )


def test_update_name_without_last_run_says_to_run_the_tests(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    before = tree(tmp_path)
    result = invoke("update", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert f"no last run of '{PARIS}'" in result.stderr
    assert str(SnapshotStore(tmp_path).last_run_path(PARIS)) in result.stderr
    assert "Run the tests first" in result.stderr and f"agentsnap update {PARIS}" in result.stderr
    assert tree(tmp_path) == before


def test_update_unknown_name(tmp_path: Path) -> None:
    make(tmp_path, PARIS, last_run=True)
    result = invoke("update", "nope", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert "no last run matches 'nope'" in result.stderr


def test_update_with_a_corrupt_golden_changes_nothing(tmp_path: Path) -> None:
    make(tmp_path, PARIS, city="Lyon", last_run=True)
    golden = SnapshotStore(tmp_path).path_for(PARIS)
    golden.write_text("{oops", encoding="utf-8")
    before = tree(tmp_path)
    for args in ([PARIS], ["--all"]):
        result = invoke("update", *args, "--dir", str(tmp_path))
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1 and str(golden) in result.stderr
        assert "Traceback" not in result.output
        assert tree(tmp_path) == before


def test_update_is_all_or_nothing(tmp_path: Path) -> None:
    make(tmp_path, PARIS, city="Lyon", last_run=True)
    make(tmp_path, LYON)
    before = tree(tmp_path)
    result = invoke("update", PARIS, LYON, "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------- rm
def test_rm_yes_deletes_only_the_named_snapshot_and_its_last_run(tmp_path: Path) -> None:
    paris = make(tmp_path, PARIS)
    paris_last = make(tmp_path, PARIS, last_run=True)
    lyon = make(tmp_path, LYON)
    lyon_last = make(tmp_path, LYON, last_run=True)
    result = invoke("rm", PARIS, "--yes", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert result.stderr == (
        f"About to delete 1 snapshot file in {tmp_path}:\n  {PARIS}  ({paris.name})  + its last run in .last_run/\n"
    )
    assert result.stdout == f"deleted {PARIS} ({paris}) and its last run ({paris_last})\n"
    assert not paris.exists() and not paris_last.exists()  # `agentsnap update` cannot bring it back
    assert lyon.exists() and lyon_last.exists()


def test_rm_without_yes_and_without_a_terminal_refuses(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    before = tree(tmp_path)
    result = invoke("rm", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert "stdin is not a terminal" in result.stderr
    assert f"`agentsnap rm {PARIS} --yes`" in result.stderr
    assert tree(tmp_path) == before


def test_rm_prompts_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paris = make(tmp_path, PARIS)
    lyon = make(tmp_path, LYON)
    monkeypatch.setattr(_output, "stdin_is_interactive", lambda: True)

    no = invoke("rm", PARIS, "--dir", str(tmp_path), input="n\n")
    assert no.exit_code == 1
    assert "Delete them?" in no.stdout and "nothing was deleted" in no.stderr
    assert paris.exists()

    yes = invoke("rm", "tests/test_weather.py::test_pa", "--dir", str(tmp_path), input="y\n")
    assert yes.exit_code == 0
    assert not paris.exists() and lyon.exists()


def test_rm_unknown_name_deletes_nothing(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    before = tree(tmp_path)
    result = invoke("rm", PARIS, "nope", "--yes", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert tree(tmp_path) == before


def test_rm_glob(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    make(tmp_path, LYON)
    keep = make(tmp_path, "other")
    result = invoke("rm", "tests/*", "--yes", "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [keep.name]


# ---------------------------------------------------------------------------- diff
def test_diff_equal_exits_0(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, last_run=True)
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"[agentsnap] '{PARIS}' PASSED")


def test_diff_changed_argument_exits_1_and_names_it(tmp_path: Path) -> None:
    golden = make(tmp_path, PARIS, approved=True)
    last = make(tmp_path, PARIS, city="Lyon", last_run=True)
    result = invoke("diff", "tests/test_weather.py::test_pa", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert f"[agentsnap] '{PARIS}' FAILED" in result.stdout
    assert "args.city: 'Paris' → 'Lyon'" in result.stdout
    assert f"golden:   {golden}" in result.stdout
    assert f"last run: {last}" in result.stdout
    assert f"agentsnap update {PARIS}" in result.stdout
    assert "\x1b[" not in result.output


def test_diff_of_a_lone_surrogate_shows_its_escape(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, city="Ly\ud800on", last_run=True)  # a JSON "\\ud800" in the answer
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert "args.city: 'Paris' → 'Ly\\ud800on'" in result.stdout


def test_diff_in_colour_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, city="Lyon", last_run=True)
    monkeypatch.setattr(_output, "stdout_is_tty", lambda: True)
    assert "\x1b[" in invoke("diff", PARIS, "--dir", str(tmp_path)).stdout
    assert (
        "\x1b[" not in invoke("diff", PARIS, "--dir", str(tmp_path), env={"NO_COLOR": "1"}).stdout
    )


def test_diff_without_last_run_exits_2_and_says_to_run_the_tests(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: no last run of '{PARIS}' to compare with")
    assert "Run the tests first" in result.stderr
    assert str(SnapshotStore(tmp_path).last_run_path(PARIS)) in result.stderr


def test_diff_without_golden_exits_2_and_points_to_update(tmp_path: Path) -> None:
    make(tmp_path, PARIS, last_run=True)
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert f"agentsnap update {PARIS}" in result.stderr


def test_diff_unknown_name_exits_2(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    result = invoke("diff", "nope", "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert "no snapshot matches 'nope'" in result.stderr


def test_diff_corrupt_last_run_exits_2_with_the_path(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    last = SnapshotStore(tmp_path).last_run_path(PARIS)
    last.parent.mkdir(parents=True)
    last.write_text("nope", encoding="utf-8")
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and str(last) in result.stderr
    assert "Traceback" not in result.output


def test_diff_corrupt_golden_with_a_last_run_exits_2_with_the_path(tmp_path: Path) -> None:
    make(tmp_path, PARIS, last_run=True)
    golden = SnapshotStore(tmp_path).path_for(PARIS)
    golden.write_text("{", encoding="utf-8")
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert (
        result.stderr.count("\n") == 1
        and str(golden) in result.stderr
        and "corrupt" in result.stderr
    )


def test_diff_of_a_json_file_pretty_prints_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    legacy = tmp_path / "my_agent.json"
    legacy.write_text(
        json.dumps(
            {
                "version": "1.0",
                "recorded_at": "2026-01-01T00:00:00+00:00",
                "model": "claude-haiku-4-5",
                "input": {"query": "What is Python?"},
                "trace": [
                    {
                        "step": 0,
                        "type": "llm_call",
                        "messages": [],
                        "response": "A language",
                        "tokens": 350,
                    },
                    tool_step(1),
                ],
                "output": "Python is a language",
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("diff", "my_agent.json")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("name      my_agent\n")
    assert "model     claude-haiku-4-5" in result.stdout
    assert '{"query": "What is Python?"}' in result.stdout
    assert "  [1] tool_call get_weather (id call_A)" in result.stdout


def test_diff_of_a_corrupt_json_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{", encoding="utf-8")
    result = invoke("diff", str(bad))
    assert result.exit_code == 2
    assert str(bad) in result.stderr and "Traceback" not in result.output


def test_diff_shows_changed_outputs_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    make(tmp_path, PARIS, approved=True, output="It is sunny in Paris today.")
    make(tmp_path, PARIS, last_run=True, output="It is raining in Paris today.")
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    start = lines.index("[OUTPUT] side by side")
    assert lines[start + 1] == f"{'golden':<38} │ last run"
    assert (
        lines[start + 3] == f"{'It is sunny in Paris today.':<38} ≠ It is raining in Paris today."
    )


def test_diff_equal_outputs_have_no_side_by_side(tmp_path: Path) -> None:
    make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, city="Lyon", last_run=True)
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1 and "[OUTPUT] side by side" not in result.stdout


def test_diff_judges_a_last_run_as_its_test_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-line snapshot that passed under min_score: `agentsnap diff` shows the change, and passes it too."""
    import warnings

    import agentsnap

    monkeypatch.delenv("CI", raising=False)
    store = SnapshotStore(tmp_path)
    calls = [{"tool": "search", "args": {"q": "nyc"}}, {"tool": "book", "args": {"id": 1}}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agentsnap.check("flow", calls, store=store, update=True)
    report = agentsnap.check(
        "flow", [calls[0], {"tool": "book", "args": {"id": 2}}], store=store, min_score=0.7
    )
    assert report is not None and report.score == 0.75
    result = invoke("diff", "flow", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "[ARGS] scored — arguments: changed in 1 tool call" in result.stdout
    assert "args.id: 1 → 2" in result.stdout
    assert "[SCORE] ok — composite 75%" in result.stdout


def test_update_writes_no_run_only_keys(tmp_path: Path) -> None:
    """A last run carries how it was judged (`comparison`); the promoted golden is only the behaviour."""
    from agentsnap.storage.snapshot import Snapshot
    from tests.test_cli_helpers import weather_trace

    make(tmp_path, PARIS, approved=True)
    store = SnapshotStore(tmp_path)
    store.save_last_run(
        Snapshot(
            name=PARIS,
            trace=weather_trace("Lyon"),
            output="Sunny",
            model="gpt-4o-mini",
            comparison={"mode": "live", "failed_checks": ["arguments"], "score": 0.5},
        )
    )
    result = invoke("update", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = read(store.path_for(PARIS))
    assert "comparison" not in data
    assert data["trace"][1]["args"] == {"city": "Lyon"}


def test_update_refuses_a_replayed_run_whose_requests_drifted(tmp_path: Path) -> None:
    from agentsnap.storage.snapshot import Snapshot
    from tests.test_cli_helpers import weather_trace

    make(tmp_path, PARIS, approved=True)
    trace = weather_trace()
    trace[0]["request_drift"] = ["messages[0].content: 'Weather?' → 'Weather, and the time?'"]
    store = SnapshotStore(tmp_path)
    last = store.save_last_run(
        Snapshot(
            name=PARIS,
            trace=trace,
            output="Sunny",
            model="gpt-4o-mini",
            comparison={"mode": "replay"},
        )
    )
    before = tree(tmp_path)
    for args in ([PARIS], ["--all"]):
        result = invoke("update", *args, "--dir", str(tmp_path))
        assert result.exit_code == 1
        assert result.stderr == (
            f"error: refusing to promote the last run of {PARIS!r} ({last}): it ran in replay and the requests of 1 llm call(s) "
            "(step 0) drifted from the recordings, so it holds old responses paired with new requests — behaviour the model "
            f"never produced. Nothing was promoted. Re-record it live: `pytest {PARIS} --agentsnap-record`, review (`git diff`), commit.\n"
        )
        assert tree(tmp_path) == before


def test_diff_of_an_older_last_run_with_drift_is_judged_as_replay(tmp_path: Path) -> None:
    """A .last_run written before the mode was stored: request drift on a step says it was replayed."""
    from agentsnap.storage.snapshot import Snapshot

    def step(content: str) -> dict:
        s = llm_step(0)
        s["exchange"] = {
            "request": {
                "method": "POST",
                "path": "/v1/chat/completions",
                "body": {"messages": [{"role": "user", "content": content}]},
            },
            "response": {"status": 200, "headers": {}, "body": {}},
        }
        return s

    SnapshotStore(tmp_path).save(
        Snapshot(name=PARIS, trace=[step("Weather?")], output="Sunny", approved=True)
    )
    drifted = step("Weather, and the time?")
    drifted["request_drift"] = ["messages[0].content: 'Weather?' → 'Weather, and the time?'"]
    SnapshotStore(tmp_path).save_last_run(
        Snapshot(
            name=PARIS,
            trace=[drifted],
            output="Sunny",
            comparison={"failed_checks": ["llm_requests"]},
        )
    )
    result = invoke("diff", PARIS, "--dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith(f"[agentsnap] {PARIS!r} FAILED — failed checks: llm_requests\n")
    assert "    messages[0].content: 'Weather?' → 'Weather, and the time?'" in result.stdout
