"""Scrubbing text: every rule over a string, between placeholders, to a fixed point
(:func:`scrub_text`), and a kept response header's stored value (:func:`mask_header`).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from . import credentials as _cred
from . import rules as _rules
from .credentials import _scrub_known
from .rules import (
    _MAX_ROUNDS,
    ACCOUNT_HEADERS,
    REDACTED,
    Redaction,
    active,
)

# -- text -------------------------------------------------------------------------


def _kv(m: re.Match[str]) -> str:
    return m.group(1) + m.group(2) + (m.group(3) or "") + REDACTED


def _json_kv(m: re.Match[str]) -> str:
    return m.group(1) + m.group(2) + m.group(1) + m.group(3) + m.group(4) + REDACTED + m.group(6)


def _nonempty(m: re.Match[str]) -> str:
    return REDACTED if m.group() else ""


# each built-in rule with a test of the literals (lower case) one of which every text it
# matches contains: a text holding none of them is left alone without running the expression
# (a few `in` tests cost far less than a scan with many alternatives)
_BUILTIN_RULES: tuple[tuple[Callable[[str], bool], Callable[[str], str]], ...] = (
    (
        lambda low: (
            "sk-" in low
            or "aiza" in low
            or "gsk_" in low
            or "hf_" in low
            or "gh" in low
            or "github_pat_" in low
            or "akia" in low
            or "asia" in low
            or "eyj" in low
        ),
        lambda t: _rules._TOKEN_RE.sub(REDACTED, t),
    ),
    (
        lambda low: (
            "xox" in low
            or "_live_" in low
            or "_test_" in low
            or "glpat-" in low
            or "npm_" in low
            or "sg." in low
            or "xai-" in low
            or "private key" in low
        ),
        lambda t: _rules._SCANNER_RE.sub(REDACTED, t),
    ),
    (
        lambda low: "://" in low and "@" in low,
        lambda t: _rules._URL_PASSWORD_RE.sub(lambda m: m.group(1) + REDACTED + m.group(3), t),
    ),
    (
        lambda low: (
            "secret_access_key" in low
            or "session_token" in low
            or "security_token" in low
            or "accountkey" in low
            or "sharedaccesskey" in low
        ),
        lambda t: _rules._ASSIGN_RE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, t),
    ),
    (
        lambda low: "bearer" in low,
        lambda t: _rules._BEARER_RE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, t),
    ),
    (
        lambda low: "authorization" in low or "api-key" in low,
        lambda t: _rules._HEADER_KV_RE.sub(_kv, t),
    ),
    (
        lambda low: (
            "passw" in low
            or "secret" in low
            or "token" in low
            or "api_key" in low
            or "apikey" in low
            or "private_key" in low
            or "accesskey" in low
        ),
        lambda t: _rules._JSON_KV_RE.sub(_json_kv, t),
    ),
    (
        lambda low: "key=" in low or "token=" in low or "secret=" in low or "password=" in low,
        lambda t: _rules._FORM_KV_RE.sub(lambda m: m.group(1) + "=" + REDACTED, t),
    ),
)


#: the literals of each built-in rule's pre-check (same order as _BUILTIN_RULES): one
#: Aho-Corasick pass over the lowered text finds which rules may match (instead of some 35
#: ``in`` scans); a candidate is confirmed by its own pre-check
_RULE_LITERALS: tuple[tuple[str, ...], ...] = (
    ("sk-", "aiza", "gsk_", "hf_", "gh", "github_pat_", "akia", "asia", "eyj"),
    ("xox", "_live_", "_test_", "glpat-", "npm_", "sg.", "xai-", "private key"),
    ("://",),
    ("secret_access_key", "session_token", "security_token", "accountkey", "sharedaccesskey"),
    ("bearer",),
    ("authorization", "api-key"),
    ("passw", "secret", "token", "api_key", "apikey", "private_key", "accesskey"),
    ("key=", "token=", "secret=", "password="),
)
_prefilter: Any = (
    None  # (automaton, literal index -> rule index), built on first use; False: unavailable
)


def _candidate_rules(lowered: str) -> set[int] | None:
    """Indexes of the built-in rules whose literals occur in ``lowered`` (None: check each rule itself)."""
    global _prefilter
    if _prefilter is None:
        try:
            import ahocorasick_rs
        except ImportError:
            _prefilter = False
        else:
            literals = [lit for lits in _RULE_LITERALS for lit in lits]
            owner = [i for i, lits in enumerate(_RULE_LITERALS) for _ in lits]
            _prefilter = (
                ahocorasick_rs.AhoCorasick(literals, matchkind=ahocorasick_rs.MatchKind.Standard),
                owner,
            )
    if _prefilter is False:
        return None
    automaton, owner = _prefilter
    return {owner[i] for i, _, _ in automaton.find_matches_as_indexes(lowered, overlapping=True)}


def _between_placeholders(text: str, rule: Any) -> str:
    """``rule`` applied to the text between existing placeholders only."""
    if REDACTED not in text:
        return str(rule(text))
    return REDACTED.join(str(rule(piece)) if piece else piece for piece in text.split(REDACTED))


def _one_round(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    if (
        _cred._known.matcher is not None
    ):  # remembered credentials first: they have no shape to wait for
        text = _between_placeholders(text, _scrub_known)
    # the literal pre-check is exact for ASCII text only: (?i) matching on other text also
    # pairs characters that str.lower() does not (the long s with "s", the Kelvin sign with "k")
    lowered = text.lower() if text.isascii() else None
    # one Aho-Corasick pass (C) instead of some 50 substring scans, at any length: a 70-character
    # prompt's scans cost ~25k instructions, the pass ~2k
    candidates = _candidate_rules(lowered) if lowered is not None else None
    if not candidates and candidates is not None and not patterns:
        return text  # no built-in rule's literal in the text: none of them can change it
    for index, (may_match, rule) in enumerate(_BUILTIN_RULES):
        if candidates is not None and index not in candidates:
            continue
        if lowered is not None and not may_match(lowered):
            continue
        new = _between_placeholders(text, rule)
        if new != text:
            text = new
            lowered = text.lower() if lowered is not None else None
    for pattern in patterns:
        text = _between_placeholders(text, lambda t, p=pattern: p.sub(_nonempty, t))
    return text


# scrub_text is a pure function of (text, rules), and an agent sends the same strings
# again and again (system prompt, tool schemas, the conversation so far), which are
# scrubbed once more when the snapshot is built and saved: results are memoised for
# the rules in force (one memo, started over when the rules object changes or it holds
# _MEMO_CHARS characters / _MEMO_ENTRIES strings)
_MEMO_CHARS = 8_000_000
_MEMO_ENTRIES = 50_000
_memo: tuple[Any, dict[str, str], list[int], int] = (None, {}, [0], -1)


#: the shortest text a built-in rule changes: ``key=x`` (the form/query rule); anything
#: shorter is returned as it is without a look (exact: tests/test_secrets.py's property test)
_SHORTEST_MATCH = 5


def scrub_text(text: str, rules: Redaction | None = None, *, remember: bool = True) -> str:
    """``text`` with every secret (module doc) replaced by ``<redacted>``; idempotent.
    ``remember=False``: the result is not added to the memo (a text made only to be checked,
    whose string nothing else holds: remembered, it would be a second copy of a stored one)."""
    global _memo
    rules = rules or active()
    patterns = rules._compiled_patterns
    if len(text) < _SHORTEST_MATCH and not patterns:
        return text
    state = _memo
    if state[0] is not rules or state[3] != _cred._known.version:
        state = _memo = (rules, {}, [0], _cred._known.version)
    memo = state[1]
    done = memo.get(text)
    if done is not None:
        return done
    original = text
    for _ in range(_MAX_ROUNDS):
        new = _one_round(text, patterns)
        if new == text:
            break
        text = new
    if not remember:
        return text
    size = state[2]
    size[0] += len(original)
    if size[0] > _MEMO_CHARS or len(memo) >= _MEMO_ENTRIES:
        memo.clear()
        size[0] = len(original)
    memo[original] = text
    return text


#: (the remembered credentials' forms it was built for, an automaton of the built-in rules'
#: literals and those forms lower-cased; None: no ahocorasick_rs): :func:`left_alone`'s one pass
_alone: tuple[Any, Any] = (None, None)


def _alone_matcher() -> Any:
    """The automaton :func:`left_alone` runs over a lower-cased text, for the credentials
    remembered now (built again when they change: their forms are a new tuple each time)."""
    global _alone
    forms = _cred._known.forms
    held = _alone
    if held[0] is forms:
        return held[1]
    try:
        import ahocorasick_rs
    except ImportError:  # (not looked for again until the credentials change)
        _alone = (forms, None)
        return None
    literals = {lit for lits in _RULE_LITERALS for lit in lits}
    literals.update(form.lower() for form in forms)
    automaton = ahocorasick_rs.AhoCorasick(
        sorted(literals), matchkind=ahocorasick_rs.MatchKind.Standard
    )
    _alone = (forms, automaton)
    return automaton


def left_alone(text: str, rules: Redaction | None = None) -> bool:
    """``scrub_text(text, rules) == text``, decided without a scrubbing round for the usual text
    (ASCII, no placeholder, no user pattern) by one pass over its lower case: holding none of
    the built-in rules' literals (the pre-check of :func:`_one_round`) and no remembered
    credential's form (lower-cased: an occurrence in the text is one in its lower case), it is a
    text the first round returns as it is, so the fixed point is the text itself. Any other
    text is scrubbed (not remembered: a text made only to be checked) and compared."""
    rules = rules or active()
    if not rules._compiled_patterns:
        if len(text) < _SHORTEST_MATCH:
            return True
        if text.isascii() and REDACTED not in text:
            automaton = _alone_matcher()
            if automaton is not None and not automaton.find_matches_as_indexes(text.lower()):
                return True
    return scrub_text(text, rules, remember=False) == text


def mask_header(name: str, value: str, extra: Iterable[str] = ()) -> str:
    """A kept response header's stored value: ``<redacted>`` for an account
    header (:data:`ACCOUNT_HEADERS` or ``extra`` globs), else the value scrubbed."""
    globs = extra if type(extra) is tuple else tuple(extra)
    return REDACTED if _is_account(name.lower(), globs) else scrub_text(value)


@functools.lru_cache(maxsize=1024)  # (bounded: a server may invent header names)
def _is_account(low: str, globs: tuple[str, ...]) -> bool:
    """Whether a lower-case header name is an account header, remembered: names repeat in every
    response, and each glob tried costs a ``fnmatchcase`` call."""
    return any(fnmatch.fnmatchcase(low, pat) for pat in (*ACCOUNT_HEADERS, *globs))
