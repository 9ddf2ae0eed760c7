"""Japanese sentences align by character bigrams (issue 29, round eleven): a Japanese word is
mostly two characters, so a trigram spans a word and a half and a reworded answer ("お荷物は …
到着しています" / "荷物はすでに … 届いており") found no counterpart at all and read as a different
answer. Read by bigrams, the reworded sentences align and pass; a changed fact, a dropped step or
a flipped polarity in the aligned sentence still fails. A known hole, kept as a strict xfail: a
Japanese place name swapped inside a reworded sentence (名古屋 → 大阪) is no fact the rules read (no
capital letters), so it passes, as it did before in a reworded answer of two sentences; only a
fully reworded answer used to fail, as a different answer. Rows written here, not taken from a dev or
the frozen set (the reading applies to Japanese and Chinese text only).
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default

GOLDEN = (
    "ご注文の商品は現在、名古屋の物流センターから発送されています。"
    "明後日の午後に到着する予定です。"
    "受け取りには本人確認書類が必要ですので、ご用意ください。"
)


def test_a_reworded_japanese_answer_aligns_and_passes() -> None:
    new = (
        "商品はすでに名古屋の物流センターから発送済みで、到着予定は明後日の午後です。"
        "お受け取りの際は本人確認書類が必要となりますので、あらかじめご準備ください。"
    )
    verdict = compare(GOLDEN, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score >= THRESHOLD, messages
    assert not any(m.startswith("a different answer") for m in messages), messages


@pytest.mark.parametrize(
    ("new", "finding"),
    [
        (  # the requirement denied
            "商品はすでに名古屋の物流センターから発送済みで、到着予定は明後日の午後です。"
            "お受け取りの際は本人確認書類は必要ありません。",
            "polarity",
        ),
        (  # the requirement dropped
            "商品はすでに名古屋の物流センターから発送済みで、到着予定は明後日の午後です。",
            "dropped",
        ),
    ],
)
def test_a_reworded_japanese_answer_with_a_change_still_fails(new: str, finding: str) -> None:
    verdict = compare(GOLDEN, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any(finding in m for m in messages), messages


@pytest.mark.xfail(strict=True, reason="a Japanese name is no fact the rules read (known hole)")
def test_a_japanese_place_swapped_in_a_reworded_answer_fails() -> None:
    new = (
        "商品はすでに大阪の物流センターから発送済みで、到着予定は明後日の午後です。"
        "お受け取りの際は本人確認書類が必要となりますので、あらかじめご準備ください。"
    )
    assert compare(GOLDEN, new).score < THRESHOLD
