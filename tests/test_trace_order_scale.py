"""The trace's deterministic order without quadratic scans (issue 30: ``Trace.steps`` of a
1,000-call recorded test spent most of its time choosing conversations and merging them).

Each of the three choices is held, by Hypothesis, to the plain scan it replaced, written here
as the definition: the conversation a request continues, the send-order merge of units, and
the step an explicit tool call follows.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.capture.trace import conversation_homes, last_ended_before, merged_order


def _homes_by_scan(signatures: list[tuple[str, ...] | None]) -> list[int]:
    tails: list[tuple[str, ...] | None] = []
    homes = []
    for sig in signatures:
        home, best = None, -1
        if sig is not None:
            for i, tail in enumerate(tails):
                fits = tail is not None and len(tail) < len(sig) and sig[: len(tail)] == tail
                if fits and len(tail) > best:  # type: ignore[arg-type]
                    home, best = i, len(tail)  # type: ignore[arg-type]
        if home is None:
            home = len(tails)
            tails.append(sig)
        else:
            tails[home] = sig
        homes.append(home)
    return homes


def _merge_by_scan(seqs: list[list[int]], atomic: list[bool]) -> list[tuple[int, int]]:
    heads = [0] * len(seqs)
    out: list[tuple[int, int]] = []
    while len(out) < sum(len(u) for u in seqs):
        pick = min(
            (u for u in range(len(seqs)) if heads[u] < len(seqs[u])),
            key=lambda u: min(seqs[u]) if atomic[u] else seqs[u][heads[u]],
        )
        if atomic[pick]:
            out.extend((pick, k) for k in range(len(seqs[pick])))
            heads[pick] = len(seqs[pick])
        else:
            out.append((pick, heads[pick]))
            heads[pick] += 1
    return out


def _anchors_by_scan(ends: list[float], starts: list[float]) -> list[int]:
    return [max((i for i, end in enumerate(ends) if end <= s), default=-1) for s in starts]


#: message lists from a tiny alphabet, so that prefixes, equal lists and forks all come up
_SIGNATURE = st.one_of(st.none(), st.lists(st.sampled_from("abc"), max_size=4).map(tuple))


@settings(max_examples=800, deadline=None)
@given(st.lists(_SIGNATURE, max_size=25))
def test_property_a_request_continues_the_conversation_the_scan_chose(
    signatures: list[tuple[str, ...] | None],
) -> None:
    assert conversation_homes(signatures) == _homes_by_scan(signatures)


@settings(max_examples=800, deadline=None)
@given(st.data())
def test_property_units_merge_in_the_order_the_scan_chose(data: st.DataObject) -> None:
    # send numbers are unique across units, as Exchange.seq is; a unit's own in any order
    n_units = data.draw(st.integers(0, 7))
    pool = data.draw(st.permutations(range(40)))
    sizes = [data.draw(st.integers(1, 5)) for _ in range(n_units)]
    seqs, at = [], 0
    for size in sizes:
        seqs.append(list(pool[at : at + size]))
        at += size
    atomic = [data.draw(st.booleans()) for _ in seqs]
    assert merged_order(seqs, atomic) == _merge_by_scan(seqs, atomic)


@settings(max_examples=800, deadline=None)
@given(
    st.lists(st.integers(0, 12).map(float), max_size=12),
    st.lists(st.integers(-1, 13).map(float), max_size=8),
)
def test_property_a_tool_call_follows_the_step_the_scan_chose(
    ends: list[float], starts: list[float]
) -> None:
    assert last_ended_before(ends, starts) == _anchors_by_scan(ends, starts)


def test_a_thousand_independent_calls_are_a_thousand_conversations_in_send_order() -> None:
    signatures = [("system", f"question {i}") for i in range(1000)]
    assert conversation_homes(signatures) == list(range(1000))
    follow_up = [("system",), ("system", "q"), ("system", "q", "a"), ("system", "x")]
    assert conversation_homes(follow_up) == [0, 0, 0, 1]
    assert merged_order([[3, 4], [1, 9], [2]], [False, False, False]) == [
        (1, 0),
        (2, 0),
        (0, 0),
        (0, 1),
        (1, 1),
    ]
    assert merged_order([[3, 4], [1, 9], [2]], [False, True, False]) == [
        (1, 0),
        (1, 1),
        (2, 0),
        (0, 0),
        (0, 1),
    ]
