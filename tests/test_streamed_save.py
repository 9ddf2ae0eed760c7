"""A golden is written piece by piece (issue 30): the bytes are those of ``dumps``.

``dump_pieces`` yields the indented JSON as the encoder makes it; ``save`` writes the pieces
to the file without joining them. Hypothesis holds the joined pieces to ``dumps`` for any
document (lone surrogates, non-ASCII, nesting); a saved snapshot's bytes are ``dumps`` of
what was saved, and re-saving the loaded golden leaves the file byte-identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap import Snapshot, SnapshotStore
from agentsnap.storage import atomic
from agentsnap.storage.snapshot import dump_pieces, dumps

_TEXT = st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF))
_DOCS = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(doc=st.dictionaries(_TEXT, _DOCS, max_size=5))
def test_property_the_pieces_join_to_dumps(doc: dict[str, Any]) -> None:
    assert "".join(dump_pieces(doc)) == dumps(doc)


def test_a_saved_golden_is_dumps_of_it_and_a_resave_is_byte_identical(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(atomic, "_PIECES_CHARS", 64)  # many writes of a few pieces each
    steps = [
        {
            "type": "llm_call",
            "step": i,
            "messages": [{"role": "user", "content": f"question {i} ☀ \ud800"}],
            "exchange": {
                "request": {"method": "POST", "path": "/v1/chat/completions", "body": {"q": i}},
                "response": {"status": 200, "headers": {}, "body": {"a": "é" * i}},
            },
        }
        for i in range(40)
    ]
    store = SnapshotStore(tmp_path)
    path = store.save(Snapshot("pieces", trace=steps, output="done"))
    first = path.read_bytes()
    loaded = SnapshotStore.read_file(path)
    assert first == dumps(loaded.to_dict()).encode("utf-8")
    assert b"\\ud800" in first  # the lone surrogate escaped, as dumps writes it
    store.save(loaded)
    assert path.read_bytes() == first
