"""Scrubbing a streamed response: each chunk on its own, and a secret the server
streamed in pieces across events found by joining each field's deltas first
(:func:`scrub_chunks`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from .rules import Redaction, active
from .text import scrub_text


def scrub_chunks(chunks: list[Any], rules: Redaction | None = None) -> list[Any]:
    """Scrub a streamed response's text chunks (byte envelopes are left as they are).

    Each chunk is scrubbed on its own, keeping the boundaries replay serves.
    A secret that straddles a chunk boundary (scrubbing the joined text
    differs) merges the text chunks into one. A secret the server streamed in
    pieces — consecutive events each carrying part of it in the same JSON
    field, as SSE deltas do — is found by joining each field's pieces across
    events (:func:`_split_secrets`); those events are rewritten and the
    stream is stored one line per chunk. Either way the SDK reads the same
    events, only the chunk split differs.
    """
    if not any(isinstance(c, str) for c in chunks):
        return list(chunks)
    each = [scrub_text(c, rules) if isinstance(c, str) else c for c in chunks]
    if not all(isinstance(c, str) for c in chunks):
        return each
    raw = "".join(chunks)
    # the pieces of each field joined across events *before* any piece is scrubbed on its
    # own: a secret split inside its random part would otherwise lose its head to the
    # shape rule and keep its tail
    rejoined = _split_secrets(raw, rules or active())
    if rejoined != raw:
        return scrub_text(rejoined, rules).splitlines(keepends=True)
    whole = scrub_text(raw, rules)
    if "".join(each) != whole:
        return [whole]
    return each


@functools.cache
def _data_line() -> re.Pattern[str]:
    return re.compile(r"^(data:[ ]?|)([\[{][^\r\n]*)", re.MULTILINE)


def _split_secrets(text: str, rules: Redaction) -> str:
    """A stream's text with secrets that were sent in pieces across events removed.

    Every line holding a JSON document (an SSE ``data:`` line, or an NDJSON
    line) is parsed; string values are grouped by their JSON path plus the
    ``index`` fields around them (a delta's position), and each group's pieces
    are joined in order. Where the joined text scrubs differently, the pieces
    are rewritten so that they join to the scrubbed text, each keeping the
    characters that were its own. Unchanged groups and lines stay byte for
    byte as they were.
    """
    import json

    docs: list[tuple[re.Match[str], Any]] = []
    for m in _data_line().finditer(text):
        try:
            docs.append((m, json.loads(m.group(2))))
        except (ValueError, RecursionError):
            continue
    if len(docs) < 2:
        return text
    groups: dict[tuple[Any, ...], list[tuple[int, Any, Any, str]]] = {}
    for n, (_, doc) in enumerate(docs):
        _collect(doc, (), (), n, groups)
    dirty: set[int] = set()
    for pieces in groups.values():
        if len(pieces) < 2 or len({p[3] for p in pieces}) < 2:
            continue
        joined = "".join(p[3] for p in pieces)
        clean = scrub_text(joined, rules)
        if clean == joined:
            continue
        for (n, holder, key, old), new in zip(
            pieces, _redistribute([p[3] for p in pieces], clean), strict=False
        ):
            if new != old:
                holder[key] = new
                dirty.add(n)
    if not dirty:
        return text
    out = []
    last = 0
    for n, (m, doc) in enumerate(docs):
        if n not in dirty:
            continue
        compact = '": ' not in m.group(2) and '", "' not in m.group(2)
        dumped = json.dumps(doc, ensure_ascii=False, separators=(",", ":") if compact else None)
        out.append(text[last : m.start(2)] + dumped)
        last = m.end(2)
    out.append(text[last:])
    return "".join(out)


def _collect(
    node: object,
    path: tuple[Any, ...],
    where: tuple[Any, ...],
    n: int,
    groups: dict[tuple[Any, ...], list[tuple[int, Any, Any, str]]],
) -> None:
    if isinstance(node, dict):
        here = where + (
            (node.get("index"),)
            if "index" in node and not isinstance(node.get("index"), (dict, list))
            else ()
        )
        for key, value in node.items():
            if isinstance(value, str):
                groups.setdefault(((*path, key), here), []).append((n, node, key, value))
            elif isinstance(value, (dict, list)):
                _collect(value, (*path, key), here, n, groups)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            if isinstance(value, str):
                groups.setdefault(((*path, i), where), []).append((n, node, i, value))
            elif isinstance(value, (dict, list)):
                _collect(value, (*path, i), where, n, groups)


def _redistribute(pieces: list[str], clean: str) -> list[str]:
    """New pieces joining to ``clean``: each character of ``clean`` goes to the
    piece its original position (by alignment) belonged to."""
    import difflib

    joined = "".join(pieces)
    owner: list[int] = []
    for i, piece in enumerate(pieces):
        owner.extend([i] * len(piece))
    out = [""] * len(pieces)
    for tag, a0, a1, b0, b1 in difflib.SequenceMatcher(
        None, joined, clean, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            for k in range(a1 - a0):
                out[owner[a0 + k]] += clean[b0 + k]
        elif b1 > b0:  # replaced or inserted text: to the piece where the change starts
            out[owner[min(a0, len(owner) - 1)] if owner else 0] += clean[b0:b1]
    return out
