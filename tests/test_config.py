"""Settings resolution: pyproject, ini, env, flags; CI detection."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentsnap import config


@pytest.mark.parametrize(
    "env, expected",
    [
        ({}, False),
        ({"CI": "true"}, True),
        ({"CI": "1"}, True),
        ({"CI": "anything"}, True),
        ({"CI": ""}, False),
        ({"CI": "0"}, False),
        ({"CI": "false"}, False),
        ({"CI": "FALSE"}, False),
        ({"CI": "no"}, False),
        ({"GITHUB_ACTIONS": "true"}, True),
        ({"BUILDKITE": "true"}, True),
        ({"CI": "false", "GITHUB_ACTIONS": "true"}, False),  # explicit opt-out wins
    ],
)
def test_ci_detection(env: dict[str, str], expected: bool) -> None:
    assert config.is_ci(env) is expected


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        f"[project]\nname='x'\n\n[tool.agentsnap]\n{table}\n", encoding="utf-8"
    )
    sub = tmp_path / "pkg" / "tests"
    sub.mkdir(parents=True)
    return sub


def test_defaults_without_pyproject(tmp_path: Path) -> None:
    s = config.load(tmp_path, env={})
    assert (
        s.snapshot_dir,
        s.mode,
        s.semantic_threshold,
        s.llm_threshold,
        s.structural_tolerance,
    ) == ("__agent_snapshots__", "live", 0.92, 0.75, 0)
    assert (
        s.judge_model == "openai/gpt-4o-mini" and s.judge_base_url == "https://openrouter.ai/api/v1"
    )
    assert s.ci is False


def test_pyproject_found_upward_and_paths_relative_to_it(tmp_path: Path) -> None:
    start = _project(
        tmp_path,
        'snapshot_dir = "snaps"\nsemantic_threshold = 0.95\nignored_fields = ["ts", "meta.id"]\nmode = "replay"',
    )
    s = config.load(start, env={})
    assert s.snapshot_path == tmp_path / "snaps"
    assert (s.semantic_threshold, s.ignored_fields, s.mode) == (0.95, ["ts", "meta.id"], "replay")


def test_precedence_pyproject_lt_ini_lt_env_lt_flags(tmp_path: Path) -> None:
    start = _project(
        tmp_path, "llm_threshold = 0.5\nsemantic_threshold = 0.5\nstructural_tolerance = 1"
    )
    ini = {"agentsnap_llm_threshold": "0.6", "agentsnap_semantic_threshold": "0.6"}.get
    s = config.load(
        start,
        ini=lambda k: ini(k),
        env={"AGENTSNAP_SEMANTIC_THRESHOLD": "0.7"},
        overrides={"structural_tolerance": 3},
    )
    assert (s.llm_threshold, s.semantic_threshold, s.structural_tolerance) == (0.6, 0.7, 3)


def test_env_mode_switches(tmp_path: Path) -> None:
    assert config.load(tmp_path, env={"AGENTSNAP_MODE": "replay"}).mode == "replay"
    assert config.load(tmp_path, env={"AGENTSNAP_RECORD": "1"}).mode == "record"
    assert config.load(tmp_path, env={"AGENTSNAP_RECORD": "0"}).mode == "live"


@pytest.mark.parametrize(
    "table, ini, env, flags, instrument",
    [
        ("", {}, {}, {}, False),  # nothing chosen: no auto-snapshots
        ('mode = "replay"', {}, {}, {}, True),  # a mode means its flag: it instruments
        ('mode = "live"', {}, {}, {}, True),
        ("", {"agentsnap_mode": "record"}, {}, {}, True),
        ("", {}, {"AGENTSNAP_MODE": "live"}, {}, True),
        ("", {}, {"AGENTSNAP_RECORD": "1"}, {}, True),
        ("", {}, {}, {"mode": "replay"}, True),
        # instrument set at the same level as the mode (or higher) is what the user said
        ('mode = "replay"\ninstrument = false', {}, {}, {}, False),
        ('mode = "replay"', {"agentsnap_instrument": "false"}, {}, {}, False),
        # a mode chosen at a higher level than `instrument = false` implies it again
        ("instrument = false", {"agentsnap_mode": "replay"}, {}, {}, True),
        ("instrument = false", {}, {"AGENTSNAP_MODE": "replay"}, {}, True),
        ("instrument = false", {}, {}, {"mode": "record"}, True),
    ],
)
def test_a_mode_chosen_anywhere_implies_instrument_as_its_flag_does(
    tmp_path: Path,
    table: str,
    ini: dict[str, str],
    env: dict[str, str],
    flags: dict[str, str],
    instrument: bool,
) -> None:
    start = _project(tmp_path, table)
    s = config.load(start, ini=lambda k: ini.get(k), env=env, overrides=flags)
    assert s.instrument is instrument


@pytest.mark.parametrize(
    "table, fragment",
    [
        ('mode = "replay-ish"', "bad value 'replay-ish' for 'mode'"),
        ("semantic_threshold = 1.5", "expected a number from 0 to 1"),
        ('structural_tolerance = "many"', "'structural_tolerance'"),
        ("structural_tolerance = -1", "expected a whole number >= 0"),
        ("ignored_fields = 3", "expected a list of strings"),
    ],
)
def test_bad_values_name_key_and_source(tmp_path: Path, table: str, fragment: str) -> None:
    start = _project(tmp_path, table)
    with pytest.raises(ValueError) as err:
        config.load(start, env={})
    assert fragment in str(err.value)
    assert "pyproject.toml" in str(err.value)


def test_unknown_key_warns_and_is_ignored(tmp_path: Path) -> None:
    start = _project(tmp_path, "semantic_treshold = 0.5")
    with pytest.warns(UserWarning, match="unknown key 'semantic_treshold'"):
        s = config.load(start, env={})
    assert s.semantic_threshold == 0.92


def test_legacy_backend_key_is_accepted(tmp_path: Path) -> None:
    start = _project(tmp_path, 'backend = "offline"')
    assert config.load(start, env={}).mode == "live"


@pytest.mark.parametrize(
    "table, fragment",
    [
        ('allow_pending = "nope"', "bad value 'nope' for 'allow_pending'"),
        ("allow_pending = 2", "expected true or false"),
        ('instrument = "maybe"', "bad value 'maybe' for 'instrument'"),
        ("structural_tolerance = 1.5", "bad value 1.5 for 'structural_tolerance'"),
        ("structural_tolerance = 1.5", "expected a whole number >= 0"),
        ("llm_threshold = true", "bad value True for 'llm_threshold'"),
        ("judge_model = 5", "expected a string"),
        ('embedding_backend = "gpu"', "expected one of auto, onnx, sentence-transformers, lexical"),
        ('allowed_hosts = ["ok", " "]', "'allowed_hosts'"),
    ],
)
def test_values_are_checked_by_type(tmp_path: Path, table: str, fragment: str) -> None:
    start = _project(tmp_path, table)
    with pytest.raises(ValueError) as err:
        config.load(start, env={})
    assert fragment in str(err.value)
    assert f"in [tool.agentsnap] of {tmp_path / 'pyproject.toml'}" in str(err.value)


def test_a_bad_boolean_string_no_longer_reads_as_true_in_ci(tmp_path: Path) -> None:
    """`allow_pending = "nope"` used to be true, so CI let a missing snapshot reach the network."""
    start = _project(tmp_path, 'allow_pending = "nope"')
    with pytest.raises(ValueError, match="allow_pending"):
        config.load(start, env={"CI": "true"})


@pytest.mark.parametrize(
    "word, expected",
    [
        ("true", True),
        ("YES", True),
        ("on", True),
        ("1", True),
        ("false", False),
        ("No", False),
        ("off", False),
        ("0", False),
    ],
)
def test_boolean_spellings_in_strings(tmp_path: Path, word: str, expected: bool) -> None:
    start = _project(tmp_path, f'strict_facts = "{word}"')
    assert config.load(start, env={}).strict_facts is expected
    ini = {"agentsnap_replay_strict": word}.get
    assert config.load(tmp_path / "pkg", ini=lambda k: ini(k), env={}).replay_strict is expected


def test_env_and_ini_numbers_are_parsed_and_checked(tmp_path: Path) -> None:
    s = config.load(
        tmp_path, env={"AGENTSNAP_STRUCTURAL_TOLERANCE": "2", "AGENTSNAP_LLM_THRESHOLD": "0.5"}
    )
    assert (s.structural_tolerance, s.llm_threshold) == (2, 0.5)
    with pytest.raises(ValueError) as err:
        config.load(tmp_path, env={"AGENTSNAP_STRUCTURAL_TOLERANCE": "1.5"})
    assert str(err.value) == (
        "agentsnap: bad value '1.5' for 'structural_tolerance' in environment variable AGENTSNAP_STRUCTURAL_TOLERANCE: "
        "expected a whole number >= 0 (Expected `int`, got `str`)"
    )


def test_unknown_key_warning_suggests_the_closest_key(tmp_path: Path) -> None:
    start = _project(tmp_path, "structural_tolerence = 1")
    with pytest.warns(UserWarning) as caught:
        config.load(start, env={})
    message = str(caught[0].message)
    assert message.startswith(
        f"agentsnap: unknown key 'structural_tolerence' in [tool.agentsnap] of {tmp_path / 'pyproject.toml'} "
        "(did you mean 'structural_tolerance'?); ignored. Known keys: "
    )


def test_flag_overrides_are_checked_too(tmp_path: Path) -> None:
    """--agentsnap-force reaches load() as force=True: a flag, not a config key, but checked by the same schema."""
    assert (
        config.load(tmp_path, env={}, overrides={"force": True, "allow_pending": True}).force
        is True
    )
    with pytest.raises(ValueError, match="bad value 'x' for 'force' in the command line"):
        config.load(tmp_path, env={}, overrides={"force": "x"})


def test_the_unknown_key_warning_lists_only_the_documented_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a user sees it (`agentsnap list`): the known keys are the [tool.agentsnap] keys, not internals."""
    from tests.test_cli_helpers import invoke

    for var in ("AGENTSNAP_SNAPSHOT_DIR", "AGENTSNAP_MODE", "AGENTSNAP_RECORD"):
        monkeypatch.delenv(var, raising=False)
    _project(tmp_path, 'snapshot_dirr = "snaps"\nsnapshot_dir_configured = true')
    monkeypatch.chdir(tmp_path)

    result = invoke("list")

    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2
    typo, internal = warnings
    assert typo.startswith(
        f"warning: unknown key 'snapshot_dirr' in [tool.agentsnap] of {tmp_path / 'pyproject.toml'} "
        "(did you mean 'snapshot_dir'?); ignored. Known keys: "
    )
    assert internal.startswith("warning: unknown key 'snapshot_dir_configured' in [tool.agentsnap]")
    for line in warnings:
        known = line.split("Known keys: ", 1)[1].split(", ")
        assert known == sorted(config.SETTING_KEYS)
        assert "snapshot_dir_configured" not in known and "base_dir" not in known
    assert result.stdout.startswith(f"No snapshots in {tmp_path / '__agent_snapshots__'} (no such")


def test_setting_keys_are_the_settings_a_user_may_set() -> None:
    import dataclasses

    internal = {"ci", "base_dir", "force", "snapshot_dir_configured", "declared"}
    fields = {f.name for f in dataclasses.fields(config.Settings)}
    assert set(config.SETTING_KEYS) == fields - internal


def test_a_second_load_shares_no_value_and_sees_an_edited_file(tmp_path: Path) -> None:
    """A pytest run loads the settings twice (before the conftests, and at configure): the
    table is parsed once per file version, yet no two loads share a list, and an edit is read."""
    start = _project(tmp_path, 'ignored_fields = ["ts"]\nsemantic_threshold = 0.95')
    first = config.load(start, env={})
    first.ignored_fields.append("mutated")
    second = config.load(start, env={})
    assert second.ignored_fields == ["ts"] and second.semantic_threshold == 0.95
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\nignored_fields = ["ts", "meta.id"]\nsemantic_threshold = 0.8\n',
        encoding="utf-8",
    )
    third = config.load(start, env={})
    assert (third.ignored_fields, third.semantic_threshold) == (["ts", "meta.id"], 0.8)


def test_tool_agentsnap_that_is_not_a_table_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool]\nagentsnap = "replay"\n', encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"cannot read .*pyproject\.toml: tool\.agentsnap must be a table"
    ):
        config.load(tmp_path, env={})
