"""Fact hints: numbers, negation words and names that differ; shown in reports; strict_facts."""

from __future__ import annotations

from typing import Any

import pytest

from agentsnap.diff import compute_diff
from agentsnap.diff.meaning.hints import Hint, fact_hints, names, negations, numbers

LEX: dict[str, Any] = {"embedding_backend": "lexical"}


def kinds(golden: str, new: str) -> list[str]:
    return [h.kind for h in fact_hints(golden, new)]


def snap(output: Any, *responses: Any) -> dict[str, Any]:
    steps = [
        {"step": i, "type": "llm_call", "messages": [], "response": r, "tool_requests": []}
        for i, r in enumerate(responses)
    ]
    return {"trace": steps, "output": output}


# ------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        ("The total is $40.", "The total is $40.00."),
        ("I found 3 tickets.", "I found three tickets."),
        ("It has 1,200 rows.", "It has 1200 rows."),
        ("Departs March 3rd.", "Departs March 3."),
        ("Twenty-one people came.", "21 people came."),
        ("No one came; the one you asked is away.", "Nobody came; that person is away."),
        ("At 3pm.", "At 3 pm."),
    ],
)
def test_equal_numbers_written_differently_give_no_hint(golden: str, new: str) -> None:
    assert "numbers" not in kinds(golden, new)


@pytest.mark.parametrize(
    ("golden", "new", "message"),
    [
        ("The total is $40.", "The total is $400.", "numbers differ: $40 → $400"),
        ("At 3pm on Thursday.", "At 5pm on Thursday.", "numbers differ: 3pm → 5pm"),
        ("At 3pm on Thursday.", "At 3am on Thursday.", "numbers differ: 3pm → 3am"),
        ("Costs $40.", "Costs €40.", "numbers differ: $40 → €40"),
        ("I found three products.", "I found four products.", "numbers differ: three → four"),
        ("Coverage is 85%.", "Coverage is 85.", "numbers differ: 85% → 85"),
        ("Port 9090 and 9091.", "Port 9090.", "numbers differ: 9091 → (none)"),
        ("Done.", "Done in 4 minutes.", "numbers differ: (none) → 4"),
    ],
)
def test_changed_numbers(golden: str, new: str, message: str) -> None:
    hints = fact_hints(golden, new)
    assert [h.message for h in hints if h.kind == "numbers"] == [message]


def test_numbers_keys_and_surfaces() -> None:
    assert numbers("Paid $1,200.50 at 3 pm, the 2nd time, three days") == [
        (("$", "1200.5", ""), "$1,200.50"),
        (("", "3", "pm"), "3 pm"),
        (("", "2", ""), "2nd"),
        (("", "3", ""), "three"),
    ]
    # a number glued to a word is not a number (versions, ids)
    assert numbers("v2 build-7 x86") == [(("", "7", ""), "7")]


# ------------------------------------------------------------------ negation


def test_negation_words_are_counted() -> None:
    assert negations("No, it isn't ready and never was; it can’t ship without tests.") == [
        "No",
        "isn't",
        "never",
        "can’t",
        "without",
    ]
    assert kinds("The flight is booked.", "The flight is not booked.") == ["negation"]
    # same count, different spelling: no hint
    assert kinds("It isn't ready.", "It is not ready.") == []
    hint = fact_hints("Yes, the user has admin rights.", "No, the user does not have admin rights.")
    assert hint == [
        Hint("negation", (), ("No", "not"), "negation words differ (0 → 2): (none) → No, not")
    ]


# ------------------------------------------------------------------ names


def test_names_rules() -> None:
    # sentence-initial capitals are not names unless capitalised mid-sentence somewhere
    assert names("The report is ready. Rain is expected.", "Rain is expected.") == (set(), set())
    assert names("Alice paid Bob.", "Bob paid Alice.") == ({"Alice", "Bob"}, {"Alice", "Bob"})
    assert names("I'm in Paris. I will stay.", "I'm in Rome.") == ({"Paris"}, {"Rome"})
    assert fact_hints("Moved to Thursday at 3pm.", "Moved to Friday at 3pm.") == [
        Hint("names", ("Thursday",), ("Friday",), "names differ: Thursday → Friday")
    ]
    assert kinds("Assigned to Maria Lopez.", "Assigned to Maria Chen.") == ["names"]


def test_known_blind_spots_give_no_hint() -> None:
    # documented: role swaps and antonyms without a negation word
    assert fact_hints("Alice paid Bob $20.", "Bob paid Alice $20.") == []
    assert fact_hints("All tests passed.", "All tests failed.") == []


def test_identical_texts_have_no_hints_and_order_is_numbers_negation_names() -> None:
    assert fact_hints("same 3 Paris not", "same 3 Paris not") == []
    assert kinds("Ship 3 boxes to Paris.", "Do not ship 4 boxes to Rome.") == [
        "numbers",
        "negation",
        "names",
    ]


# ------------------------------------------------------------------ in reports


def test_hints_are_recorded_and_findings_rendered_even_when_the_check_passes() -> None:
    golden, new = (
        snap("The meeting is on Thursday at 3pm."),
        snap("The meeting is on Thursday at 5pm."),
    )
    # an explicit loose threshold lets the changed time pass; the report still says what changed
    report = compute_diff(golden, new, semantic_threshold=0.3, **LEX)
    assert report.passed
    finding = (
        'times differ (3pm → 5pm): golden: "The meeting is on Thursday at 3pm." '
        '→ new: "The meeting is on Thursday at 5pm."'
    )
    assert report.reasons["output"] == [finding]
    details = report.details["semantic"]["output"]
    assert details["hints"] == [
        {
            "kind": "numbers",
            "golden": ["3pm"],
            "new": ["5pm"],
            "message": "numbers differ: 3pm → 5pm",
        }
    ]
    assert details["failed_by"] is None
    lines = report.render().splitlines()
    assert f"    changed: {finding}" in lines, lines
    # with strict_facts the hint joins the reasons (and fails the check)
    strict = compute_diff(golden, new, semantic_threshold=0.3, strict_facts=True, **LEX)
    assert strict.reasons["output"] == [finding, "numbers differ: 3pm → 5pm"]
    assert "    hint: numbers differ: 3pm → 5pm" in strict.render().splitlines()


def test_strict_facts_fails_a_check_whose_score_passes() -> None:
    golden, new = snap("x", "The port is 9090."), snap("x", "The port is 9091.")
    relaxed = compute_diff(golden, new, llm_threshold=0.3, **LEX)
    assert relaxed.passed
    strict = compute_diff(golden, new, strict_facts=True, llm_threshold=0.3, **LEX)
    assert strict.failed_checks == ["semantic:llm_call[0]"]
    details = strict.details["semantic"]["llm_call[0]"]
    assert details["failed_by"] == "strict_facts"
    assert details["golden_excerpt"] == "The port is 9090."
    lines = strict.render().splitlines()
    assert any(
        line.startswith("  llm_call[0]: ")
        and "≥ threshold 30% but facts differ (strict_facts) FAIL" in line
        for line in lines
    ), lines
    assert "    hint: numbers differ: 9090 → 9091" in lines
    # without hints strict_facts changes nothing
    assert compute_diff(
        snap("The answer is ready for review"),
        snap("The answer is ready for review."),
        strict_facts=True,
        **LEX,
    ).passed


def test_strict_facts_from_settings_reaches_compare(tmp_path: Any) -> None:
    from agentsnap import config
    from agentsnap.lifecycle import compare
    from agentsnap.storage.snapshot import Snapshot

    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\nstrict_facts = true\nembedding_backend = "lexical"\n', encoding="utf-8"
    )
    settings = config.load(tmp_path, env={})
    assert settings.strict_facts is True
    assert settings.embedding_backend == "lexical"
    golden = Snapshot(name="n", output="Your total is $40.")
    new = Snapshot(name="n", output="Your total is $45.")
    report = compare(golden, new, settings, mode="live", overrides={"semantic_threshold": 0.3})
    assert report.failed_checks == ["semantic:output"]
    assert report.details["semantic"]["output"]["failed_by"] == "strict_facts"
    assert config.load(tmp_path, env={"AGENTSNAP_STRICT_FACTS": "0"}).strict_facts is False


def test_a_unit_glued_to_a_number_is_not_a_name() -> None:
    """`hint: names differ: Paris, C → (none)` named the C of 18°C."""
    from agentsnap.diff.meaning.hints import fact_hints

    def names_hint(golden: str, new: str) -> list[str]:
        return [h.message for h in fact_hints(golden, new) if h.kind == "names"]

    assert names_hint("Sunny in Paris, 18°C.", "Sunny today.") == ["names differ: Paris → (none)"]
    assert names_hint("Disk: 5GB free in Oslo.", "Disk: plenty free.") == [
        "names differ: Oslo → (none)"
    ]
