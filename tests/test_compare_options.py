"""One list of comparison knobs: ``CompareOptions`` and everything derived from (or held to) it.

The settings' comparison fields, the marker's keywords, ``AgentAsserter``'s
arguments, ``lifecycle.compare``'s options, ``compute_diff``'s keywords and the
reference docs all follow the field metadata of
:class:`agentsnap.diff.options.CompareOptions`; these tests fail when one drifts.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

from agentsnap import config
from agentsnap.diff import compute_diff
from agentsnap.diff.legacy_config import DiffConfig
from agentsnap.diff.options import (
    CompareOptions,
    asserter_option_names,
    marker_option_names,
    option_fields,
    setting_field,
    setting_option_names,
)

ROOT = Path(__file__).resolve().parents[1]


def _reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "agentsnap_docs_reference_options", ROOT / "docs" / "_gen" / "reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _default(f: dataclasses.Field[object]) -> object:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def test_every_knob_has_a_doc_and_the_metadata_keys() -> None:
    fields = [f for f in dataclasses.fields(CompareOptions) if f.name != "declared"]
    for f in fields:
        assert set(f.metadata) == {"doc", "rule", "marker", "asserter", "setting"}, f.name
        assert callable(f.metadata["rule"]), f.name
        assert isinstance(f.metadata["doc"], str) and len(f.metadata["doc"]) > 20, f.name
    # the last field holds the values of the knobs checks declare (tests/test_recipe_check.py)
    assert dataclasses.fields(CompareOptions)[-1].metadata == {"internal": True}
    assert [f.name for f in option_fields()] == [f.name for f in fields]


def test_the_settings_comparison_fields_are_the_setting_knobs_with_their_default_and_doc() -> None:
    settings = {f.name: f for f in dataclasses.fields(config.Settings)}
    knobs = {f.name: f for f in option_fields()}
    # every knob marked `setting` is a Settings field with the same default and doc ...
    for name in setting_option_names():
        assert name in settings, name
        assert name in config.SETTING_KEYS, name
        assert _default(settings[name]) == knobs[name].default, name
        assert settings[name].metadata["doc"] == knobs[name].doc, name
    # ... and no other knob is a Settings field
    assert {n for n in settings if n in knobs} == set(setting_option_names())
    assert config.Settings().ignored_fields is not config.Settings().ignored_fields


def test_setting_field_refuses_a_knob_that_is_not_a_setting() -> None:
    with pytest.raises(KeyError):
        setting_field("min_score")


def test_the_marker_accepts_the_marker_knobs_in_field_order() -> None:
    from agentsnap.pytest_plugin import MARKER_OPTIONS

    assert marker_option_names() == MARKER_OPTIONS
    assert MARKER_OPTIONS[:3] == ("semantic_threshold", "llm_threshold", "structural_tolerance")


def test_agent_asserter_takes_exactly_the_asserter_knobs() -> None:
    from agentsnap.recorder import AgentAsserter

    params = inspect.signature(AgentAsserter.__init__).parameters
    knobs = {f.name for f in option_fields()}
    assert {n for n in params if n in knobs} == set(asserter_option_names())
    for name in asserter_option_names():
        assert params[name].default is None, name  # None: the settings' value


def test_agent_asserter_passes_its_comparison_arguments_on(tmp_path: Path) -> None:
    from agentsnap.recorder import AgentAsserter

    asserter = AgentAsserter(
        "t",
        tmp_path,
        semantic_threshold=0.5,
        ignored_fields="meta.id",
        weights={"output": 2},
        strict=True,
        judge=False,
    )
    assert set(asserter.overrides) == set(asserter_option_names())
    assert asserter.overrides["semantic_threshold"] == 0.5
    assert asserter.overrides["ignored_fields"] == ["meta.id"]
    assert asserter.overrides["weights"] == {"output": 2}
    assert asserter.overrides["strict"] is True
    assert asserter.overrides["judge"] is None
    assert asserter.overrides["llm_threshold"] is None


def test_compute_diff_takes_every_knob_with_the_same_default() -> None:
    params = inspect.signature(compute_diff).parameters
    for f in option_fields():
        assert f.name in params, f.name
        assert params[f.name].kind is inspect.Parameter.KEYWORD_ONLY, f.name
        default = params[f.name].default
        if f.name in ("ignored_fields", "before"):
            assert list(default) == f.default
        elif f.name == "budgets":  # None: no limits, the knob's empty table
            assert default is None and f.default == {}
        else:
            assert default == f.default, f.name


def test_lifecycle_compare_passes_every_setting_knob() -> None:
    from agentsnap.lifecycle import compare
    from agentsnap.storage.snapshot import Snapshot

    snap = Snapshot(name="t", trace=[], output="same", approved=True)
    settings = dataclasses.replace(
        config.Settings(),
        semantic_threshold=0.5,
        llm_threshold=0.4,
        structural_tolerance=2,
        lexical_semantic_threshold=0.3,
        lexical_llm_threshold=0.2,
        strict_facts=True,
        embedding_backend="lexical",
        ignored_fields=["meta.id"],
    )
    report = compare(snap, snap, settings, mode="live")
    used = report.details["settings"]
    assert used["semantic_threshold"] == 0.5
    assert used["llm_threshold"] == 0.4
    assert used["structural_tolerance"] == 2
    assert used["lexical_semantic_threshold"] == 0.3
    assert used["lexical_llm_threshold"] == 0.2
    assert used["strict_facts"] is True
    assert used["ignored_fields"] == ["meta.id"]
    # every setting knob is one of these
    assert set(setting_option_names()) <= set(used) | {"embedding_backend"}


def test_validated_checks_and_normalises() -> None:
    opts = CompareOptions(semantic_threshold=1, weights={"output": 2}).validated()
    assert opts.semantic_threshold == 1.0 and isinstance(opts.semantic_threshold, float)
    assert opts.weights == {"output": 2.0}
    with pytest.raises(ValueError, match="semantic_threshold"):
        CompareOptions(semantic_threshold=1.5).validated()
    with pytest.raises(TypeError, match="structural_tolerance"):
        CompareOptions(structural_tolerance=True).validated()
    with pytest.raises(ValueError, match="unknown weights key"):
        CompareOptions(weights={"nope": 1}).validated()
    with pytest.raises(ValueError, match="needs min_score"):
        CompareOptions(gate="score").validated()
    with pytest.raises(TypeError, match="judge"):
        CompareOptions(judge=object()).validated()


def test_diff_config_is_still_importable_from_both_places() -> None:
    import agentsnap
    from agentsnap.diff import DiffConfig as Again

    assert Again is DiffConfig is agentsnap.DiffConfig
    assert DiffConfig(judge=object()).options()["llm_threshold"] == 0.40


def test_the_reference_docs_list_every_knob_with_its_doc_and_where_it_is_set() -> None:
    reference = _reference()
    page = (ROOT / "docs" / "reference" / "configuration.md").read_text(encoding="utf-8")
    assert reference.MARKERS["compare"] in page
    table = reference.compare_options_reference()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [re.match(r"\| `([a-z_]+)`", row).group(1) for row in rows] == [  # type: ignore[union-attr]
        f.name for f in option_fields()
    ]
    for f, row in zip(option_fields(), rows, strict=True):
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert cells[2:5] == ["yes" if x else "—" for x in (f.setting, f.marker, f.asserter)]
        assert cells[5] == f.doc.replace("|", "\\|")


def test_the_concepts_page_names_the_marker_keywords_in_order() -> None:
    text = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")
    start = text.index("`@pytest.mark.agentsnap(...)` sets one test's snapshot name")
    end = text.find("\n\n", start)
    paragraph = text[start : end if end != -1 else len(text)]
    named = re.findall(r"`([a-z_]+)`", paragraph.split("comparison settings:", 1)[1])
    assert tuple(named[: len(marker_option_names())]) == marker_option_names()


def test_diffconfig_keeps_every_import_path_and_its_0_5_1_defaults() -> None:
    """0.5.1's DiffConfig: from agentsnap and agentsnap.diff (0.5.1's paths) and its own
    module, with 0.5.1's defaults; the knobs module (below every layer) no longer hands it out."""
    import agentsnap
    from agentsnap.diff import DiffConfig as from_diff
    from agentsnap.diff.legacy_config import DiffConfig

    assert from_diff is DiffConfig and agentsnap.DiffConfig is DiffConfig
    assert not hasattr(importlib.import_module("agentsnap.knobs"), "DiffConfig")
    assert CompareOptions is importlib.import_module("agentsnap.knobs").CompareOptions
    config = DiffConfig()
    assert (
        config.semantic_threshold,
        config.structural_tolerance,
        config.resolved_llm_threshold(),
    ) == (
        0.92,
        0,
        0.75,
    )
    assert DiffConfig(judge=object()).resolved_llm_threshold() == 0.40


@pytest.mark.parametrize(
    ("knob", "bad", "error", "message"),
    [
        ("semantic_threshold", "high", TypeError, "semantic_threshold must be a number in [0, 1]"),
        ("llm_threshold", 1.5, ValueError, "llm_threshold must be in [0, 1]"),
        ("structural_tolerance", 1.5, TypeError, "structural_tolerance must be an int >= 0"),
        ("structural_tolerance", -1, ValueError, "structural_tolerance must be >= 0"),
        ("min_score", "0.5", TypeError, "min_score must be a number in [0, 1]"),
        ("gate", "any", ValueError, "gate must be 'checks' or 'score'"),
        ("embed_fn", "cosine", TypeError, "embed_fn must be callable or None"),
        ("judge", object(), TypeError, "judge must have a score(golden, new) method"),
        ("weights", {"output": -1}, ValueError, "weight of 'output' must be a finite number >= 0"),
    ],
)
def test_every_knob_is_checked_by_the_rule_its_field_declares(
    knob: str, bad: object, error: type[Exception], message: str
) -> None:
    """The rule is part of the knob's declaration (its field's metadata): validated() applies
    each field's rule, so a bad value fails naming the knob, never later in a check."""
    field = next(f for f in dataclasses.fields(CompareOptions) if f.name == knob)
    with pytest.raises(error, match=re.escape(message)):
        field.metadata["rule"](knob, bad)
    with pytest.raises(error, match=re.escape(message)):
        CompareOptions(**{knob: bad}).validated()  # type: ignore[arg-type]


def test_options_validated_once_answer_as_validated_every_time() -> None:
    """``compute_diff`` remembers the options it validated (a pytest run compares every test
    with the same ones): equal-looking values its rules read differently are not taken for
    them (``True`` is not ``1``, ``-0.0`` not ``0.0``), a value changed in place is validated
    again, a failure raises every time, and a report's settings are its own copies."""
    golden = {"trace": [{"type": "tool_call", "name": "a", "args": {}}], "output": "x"}

    def settings(**options: object) -> dict[str, object]:
        return dict(compute_diff(golden, golden, **options).details["settings"])  # type: ignore[arg-type]

    assert settings(semantic_threshold=1)["semantic_threshold"] == 1.0
    with pytest.raises(TypeError, match="semantic_threshold"):
        compute_diff(golden, golden, semantic_threshold=True)
    with pytest.raises(TypeError, match="semantic_threshold"):
        compute_diff(golden, golden, semantic_threshold=True)  # (a failure is never remembered)
    assert repr(settings(llm_threshold=0.0)["llm_threshold"]) == "0.0"
    assert repr(settings(llm_threshold=-0.0)["llm_threshold"]) == "-0.0"
    tools: dict[str, dict[str, object]] = {"a": {"args": "subset"}}
    first = settings(tools=tools)
    assert first["tools"] == {"a": {"args": "subset"}}
    tools["a"]["args"] = "bogus"
    with pytest.raises(ValueError, match="args"):
        compute_diff(golden, golden, tools=tools)
    tools["a"]["args"] = "subset"
    first["tools"]["a"]["args"] = "changed in one report"  # type: ignore[index]
    assert settings(tools=tools)["tools"] == {"a": {"args": "subset"}}
    before = [["a", "b"]]
    assert settings(before=before)["before"] == [["a", "b"]]
    before[0][1] = "a"
    with pytest.raises(ValueError, match="names one tool twice"):
        compute_diff(golden, golden, before=before)

    # the caller's list changed after its values were remembered: the remembered ones hold
    ignored = ["a.x"]
    assert settings(ignored_fields=ignored)["ignored_fields"] == ["a.x"]
    ignored[0] = "a.y"
    assert settings(ignored_fields=["a.x"])["ignored_fields"] == ["a.x"]
    assert settings(ignored_fields=ignored)["ignored_fields"] == ["a.y"]
    # an iterable read once: validated (and consumed) each time, never remembered
    assert settings(ignored_fields=iter(["x"]))["ignored_fields"] == ["x"]
    assert settings(ignored_fields=iter(["y"]))["ignored_fields"] == ["y"]


# --- the remembered options keep what validating each time gives (a reviewer's findings, brk8) ---


def _one_tool(args: dict[str, object]) -> dict[str, object]:
    return {"type": "tool_call", "seq": 0, "name": "get_weather", "args": args, "result": "ok"}


def test_remembered_options_read_one_string_as_one_ignored_path() -> None:
    golden = {"trace": [_one_tool({"city": "Paris", "timestamp": 1, "t": 1})]}
    new = {"trace": [_one_tool({"city": "Paris", "timestamp": 2, "t": 1})]}
    for _ in range(2):  # validated, then remembered
        report = compute_diff(golden, new, ignored_fields="timestamp")
        assert report.details["settings"]["ignored_fields"] == ["timestamp"]
        assert report.failed_checks == []
    # one string is not its letters: a key named ``t`` is still compared
    changed_t = {"trace": [_one_tool({"city": "Paris", "timestamp": 1, "t": 2})]}
    assert compute_diff(golden, changed_t, ignored_fields="timestamp").failed_checks == [
        "arguments"
    ]


def test_remembered_options_read_none_as_no_ignored_path() -> None:
    golden = {"trace": [_one_tool({"city": "Paris"})]}
    for _ in range(2):
        report = compute_diff(golden, golden, ignored_fields=None)  # type: ignore[arg-type]
        assert report.failed_checks == []
        assert report.details["settings"]["ignored_fields"] == []


def test_settings_with_one_ignored_string_pass_an_asserter_twice(tmp_path: Path) -> None:
    from agentsnap import AgentAsserter, AgentRecorder
    from agentsnap.config import Settings

    with AgentRecorder("weather", snapshot_dir=tmp_path) as rec:
        rec.record_tool_call("get_weather", {"city": "Paris", "timestamp": 1}, "sunny")
        rec.output = "sunny"
    settings = Settings(ignored_fields="timestamp")  # type: ignore[arg-type]
    for stamp in (2, 3):
        with AgentAsserter(
            "weather", snapshot_dir=tmp_path, settings=settings, mode="live"
        ) as asserter:
            asserter.record_tool_call("get_weather", {"city": "Paris", "timestamp": stamp}, "sunny")
            asserter.output = "sunny"
        assert asserter.report is not None and asserter.report.failed_checks == []


def test_threads_comparing_with_their_own_options_at_once() -> None:
    import random
    import sys
    import threading

    golden = {"trace": [_one_tool({"a": 1})]}
    errors: list[BaseException] = []
    verdicts: list[list[str]] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(1500):
            try:
                verdicts.append(
                    compute_diff(
                        golden, golden, structural_tolerance=rng.randrange(1000)
                    ).failed_checks
                )
            except BaseException as exc:  # the eviction raced: KeyError, RuntimeError
                errors.append(exc)
                return

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert len(verdicts) == 8 * 1500 and all(v == [] for v in verdicts)
