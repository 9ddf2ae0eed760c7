"""parse_sse against the WHATWG "event stream interpretation" rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsnap.providers import SSEEvent, parse_sse
from agentsnap.providers import sse as sse_module


def test_single_event_defaults() -> None:
    assert parse_sse('data: {"a":1}\n\n') == [
        SSEEvent(event="message", data='{"a":1}', id="", retry=None)
    ]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_every_line_ending(eol: str) -> None:
    text = f"event: ping{eol}data: one{eol}{eol}data: two{eol}{eol}"
    assert parse_sse(text) == [SSEEvent("ping", "one"), SSEEvent("message", "two")]


def test_mixed_line_endings_in_one_stream() -> None:
    assert parse_sse("data: a\r\n\ndata: b\r\r\ndata: c\n\r") == [
        SSEEvent(data="a"),
        SSEEvent(data="b"),
        SSEEvent(data="c"),
    ]


def test_multi_line_data_is_joined_with_newlines() -> None:
    assert parse_sse("data: first\ndata:second\ndata\ndata:  indented\n\n") == [
        SSEEvent(data="first\nsecond\n\n indented")
    ]


def test_comments_are_ignored() -> None:
    text = ": keep-alive\n\n:another\ndata: x\n: inside a block\n\n"
    assert parse_sse(text) == [SSEEvent(data="x")]


def test_only_one_leading_space_is_dropped_and_colons_in_value_survive() -> None:
    assert parse_sse("data:   a: b:c\n\n") == [SSEEvent(data="  a: b:c")]


def test_empty_data_line_dispatches_an_empty_event() -> None:
    assert parse_sse("data:\n\ndata\n\n") == [SSEEvent(data=""), SSEEvent(data="")]


def test_block_without_data_dispatches_nothing_and_resets_event_type() -> None:
    assert parse_sse("event: lonely\n\ndata: x\n\n") == [SSEEvent(event="message", data="x")]


def test_event_type_applies_to_its_block_only() -> None:
    assert parse_sse("event: a\ndata: 1\n\ndata: 2\n\n") == [
        SSEEvent("a", "1"),
        SSEEvent("message", "2"),
    ]


def test_last_event_id_carries_over_and_nul_ids_are_ignored() -> None:
    text = "id: 7\ndata: a\n\ndata: b\n\nid: 8\x009\ndata: c\n\nid\ndata: d\n\n"
    assert parse_sse(text) == [
        SSEEvent(data="a", id="7"),
        SSEEvent(data="b", id="7"),
        SSEEvent(data="c", id="7"),
        SSEEvent(data="d", id=""),
    ]


def test_retry_only_when_ascii_digits() -> None:
    text = "retry: 1500\ndata: a\n\nretry: 15s\ndata: b\n\nretry: \u0661\u0662\ndata: c\n\n"
    assert parse_sse(text) == [
        SSEEvent(data="a", retry=1500),
        SSEEvent(data="b"),
        SSEEvent(data="c"),
    ]


def test_unknown_fields_are_ignored() -> None:
    assert parse_sse("foo: bar\ndata: x\nDATA: y\n\n") == [SSEEvent(data="x")]


def test_leading_byte_order_mark_is_stripped_once() -> None:
    assert parse_sse("\ufeffdata: x\n\n") == [SSEEvent(data="x")]
    # a second BOM is part of the first line's field name, which is unknown
    assert parse_sse("\ufeff\ufeffdata: x\n\n") == []


def test_unterminated_final_block_is_discarded() -> None:
    assert parse_sse("data: a\n\ndata: b\n") == [SSEEvent(data="a")]
    assert parse_sse("data: a\n\ndata: b") == [SSEEvent(data="a")]


def test_empty_input() -> None:
    assert parse_sse("") == []


def test_lone_cr_at_end_counts_as_a_line_end() -> None:
    assert parse_sse("data: a\r\r") == [SSEEvent(data="a")]


def test_events_are_frozen() -> None:
    with pytest.raises(AttributeError):
        parse_sse("data: a\n\n")[0].data = "b"  # type: ignore[misc]


def test_public_names() -> None:
    assert sse_module.__all__ == ["SSEEvent", "parse_sse"]


# -- properties ---------------------------------------------------------------

_value = st.text(
    alphabet=st.characters(exclude_characters="\r\n\x00", exclude_categories=["Cs"]),
    max_size=12,
)
_event = st.tuples(
    st.sampled_from(["", "message", "ping", "content_block_delta"]),
    st.lists(_value, min_size=1, max_size=3),
)


def _serialise(events: list[tuple[str, list[str]]], eols: list[str]) -> str:
    out: list[str] = []
    n = 0
    previous = ""

    def eol() -> str:
        # "\r" followed by "\n" would be read as one CRLF, so never emit that pair
        nonlocal n, previous
        n += 1
        chosen = eols[n % len(eols)]
        if previous == "\r" and chosen == "\n":
            chosen = "\r\n"
        previous = chosen
        return chosen

    for event_type, data_lines in events:
        if event_type:
            out.append(f"event: {event_type}{eol()}")
        out.append(f": comment{eol()}")
        for line in data_lines:
            out.append(f"data: {line}{eol()}")
        out.append(eol())
    return "".join(out)


@given(
    events=st.lists(_event, max_size=6),
    eols=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=5),
)
def test_roundtrip_under_any_line_endings(
    events: list[tuple[str, list[str]]], eols: list[str]
) -> None:
    expected = [SSEEvent(event=t or "message", data="\n".join(lines)) for t, lines in events]
    assert parse_sse(_serialise(events, eols)) == expected


@given(st.text(max_size=200))
def test_never_raises(text: str) -> None:
    events = parse_sse(text)
    assert all(isinstance(e, SSEEvent) for e in events)
