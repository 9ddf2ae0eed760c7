"""Japanese words inside the other text's compounds (issue 29, round eleven): "翌月末日" in one
answer and "翌月の末日" in the other are the same two words, so a sentence made of them is no claim
added and no sentence dropped; a sentence with words the other answer does not contain still is.
Rows written here, not taken from a dev or the frozen set (Japanese and Chinese only: other
languages write their words apart).
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (  # the compound split into words in a sentence of their own
            "請求書は毎月10日に発行され、翌月末日までにお振込みいただきます。",
            "請求書は毎月10日に発行いたします。振込は翌月の末日までにお願いします。",
        ),
        (  # the other way round
            "請求書は毎月10日に発行いたします。振込は翌月の末日までにお願いします。",
            "請求書は毎月10日に発行され、翌月末日までにお振込みいただきます。",
        ),
    ],
)
def test_words_inside_the_others_compound_are_no_new_claim(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


@pytest.mark.parametrize(
    ("golden", "new", "finding"),
    [
        (
            "請求書は毎月10日に発行され、翌月末日までにお振込みいただきます。",
            "請求書は毎月10日に発行いたします。振込手数料は当社負担、口座振替割引も適用されます。",
            "claim added",
        ),
        (
            "請求書は毎月10日に発行いたします。延滞時は会員資格停止処分となります。",
            "請求書は毎月10日に発行され、翌月末日までにお振込みいただきます。",
            "dropped",
        ),
    ],
)
def test_words_the_other_does_not_contain_still_count(golden: str, new: str, finding: str) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any(finding in m for m in messages), messages
