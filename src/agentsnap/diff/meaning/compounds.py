"""Japanese and Chinese words inside the other text's compounds (issue 29, round eleven).

Japanese writes no spaces, so one text's ``翌月末日`` is one word where the other says ``翌月の
末日``: two words the first never "uses", and a sentence of them read as a claim added. A careful
reader sees both words in the other text. :func:`inside` gives the words of one side (two or more
kanji or katakana) that the other text contains as they are, so coverage counts them as used; a
word the other text does not contain (``期限``) still counts as new.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .units import Unit

#: a word of two or more kanji or katakana
_CJK_WORD = re.compile(r"^[\u30a0-\u30ff\u3400-\u9fff]{2,}$")


def inside(units: Sequence[Unit], other_text: str) -> set[str]:
    """The Japanese or Chinese words of ``units`` that ``other_text`` contains as they are."""
    return {w for u in units for w in u.words if _CJK_WORD.match(w) and w in other_text}
