"""Deep differences of two JSON values (tool arguments and results, request messages, a request
and its recording, MCP resources and WebSocket messages).

The difference itself is computed by :mod:`deepdiff` (imported lazily, on the
first diff), with these settings and why:

* ``ignore_order=False`` — list order inside arguments is meaningful (a list
  of steps, of recipients in priority order, of messages), so ``[a, b]`` and
  ``[b, a]`` differ; lists are compared position by position.
* numbers by value — ``1`` and ``1.0`` are equal (JSON has one number type
  and SDKs serialise ``1.0`` as ``1`` or back); a changed number of another
  type (``1`` → ``1.5``) is ``changed``. Everything else keeps its type:
  ``1`` and ``True``, ``None`` and ``""``, ``1`` and ``"1"`` are reported as
  ``type_changed`` — a tool may well behave differently. With
  ``strict=True`` comparison is pure equality of values *and* types, so ``1``
  vs ``1.0`` is a ``type_changed`` too.
* dict key order never matters (JSON objects are unordered), in either mode.
* ``threshold_to_diff_deeper=0`` — nested dicts are always descended into, so
  every change is reported at its own path (``args.meta.request_id``), never
  as one replaced parent dict.
* ``ignore_nan_inequality=True`` — ``NaN`` equals ``NaN``, so a snapshot
  always equals itself.

``ignored_fields`` (see :func:`parse_ignored_fields`) are removed from both
sides *before* diffing rather than filtered out afterwards, so an ignored key
can never make two otherwise equal list items look different.

A change is a dict ``{"path": str, "old": Any, "new": Any, "kind": str}``:
``path`` is a dotted/indexed path from a root name (``"args.city"``,
``"args.items[0].id"``, ``'args["two words"]'``, ``"messages[3].content"``);
``kind`` is ``"changed"``, ``"type_changed"``, ``"added"`` (``old`` is
``None``) or ``"removed"`` (``new`` is ``None``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

__all__ = [
    "IgnoreRule",
    "diff_values",
    "format_path",
    "json_text",
    "parse_ignored_fields",
    "same_json",
    "strip_ignored",
]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TOKEN = re.compile(r"\[(\d+|\*)\]|([^.\[\]]+)")
_WILD = "*"


class IgnoreRule(NamedTuple):
    """One parsed ``ignored_fields`` entry.

    ``segments``: path segments from the root of ``args`` (``str`` key,
    ``int`` list index, or ``"*"`` for any one key or index); ``anywhere``:
    ``True`` for a bare key, which matches that key at any depth.
    """

    segments: tuple[str | int, ...]
    anywhere: bool
    source: str


def parse_ignored_fields(fields: Iterable[str] | str | None) -> tuple[IgnoreRule, ...]:
    """Parse ``ignored_fields`` entries into :class:`IgnoreRule` objects.

    Grammar and meaning (paths are relative to the value compared: a tool call's
    ``args``, an MCP tool's ``result``, a ``resources/read`` answer, a WebSocket
    message; do not prefix them with ``args.`` or ``result.``):

    * a **bare key** (``"timestamp"``) ignores that key in every dict at any
      depth of the arguments — a superset of agentsnap 0.5.1, which removed
      top-level keys only;
    * a **dotted path** (``"meta.request_id"``) is anchored at the root of the
      arguments and ignores exactly that entry, with everything under it;
    * ``[n]`` or a numeric segment steps into list item ``n``
      (``"items[0].id"``, ``"items.0.id"``), and ``*`` or ``[*]`` stands for
      any one key or list index (``"items[*].id"``, ``"*.request_id"``).

    A rule removes dict entries only; siblings of an ignored key are still
    compared. A single string is accepted as one entry. Keys that contain a
    dot or a bracket cannot be addressed.

    Raises:
        ValueError: an entry is empty, malformed, or ends in a list index or
            wildcard instead of a key (list items cannot be ignored: removing
            one would shift its siblings).
        TypeError: an entry is not a string.
    """
    if fields is None:
        return ()
    if isinstance(fields, str):
        fields = [fields]
    rules: list[IgnoreRule] = []
    for entry in fields:
        if not isinstance(entry, str):
            raise TypeError(f"ignored_fields entries must be strings, got {entry!r}")
        rules.append(_parse_one(entry))
    return tuple(rules)


def _parse_one(entry: str) -> IgnoreRule:
    text = entry.strip()
    segments: list[str | int] = []
    pos = 0
    expect_segment = True
    while pos < len(text):
        if text[pos] == "." and not expect_segment:
            pos += 1
            expect_segment = True
            if pos == len(text):
                break
            continue
        match = _TOKEN.match(text, pos)
        if match is None or (match.group(2) is not None and not expect_segment):
            raise ValueError(f"ignored_fields entry {entry!r} is not a valid path (at {pos})")
        index, key = match.group(1), match.group(2)
        if index is not None:
            segments.append(_WILD if index == _WILD else int(index))
        else:
            assert key is not None
            segments.append(key.strip())
        pos = match.end()
        expect_segment = False
    if not segments or expect_segment or any(s == "" for s in segments):
        raise ValueError(f"ignored_fields entry {entry!r} is not a valid path")
    last = segments[-1]
    if isinstance(last, int) or last == _WILD or (isinstance(last, str) and last.isdigit()):
        raise ValueError(
            f"ignored_fields entry {entry!r} must end in a key: list items cannot be ignored"
        )
    anywhere = len(segments) == 1
    return IgnoreRule(tuple(segments), anywhere, entry)


def _segment_matches(pattern: str | int, actual: str | int) -> bool:
    if pattern == _WILD:
        return True
    if isinstance(actual, int):
        return (isinstance(pattern, int) and pattern == actual) or (
            isinstance(pattern, str) and pattern.isdigit() and int(pattern) == actual
        )
    return isinstance(pattern, str) and pattern == actual


def _is_ignored(path: tuple[str | int, ...], rules: tuple[IgnoreRule, ...]) -> bool:
    for rule in rules:
        if rule.anywhere:
            if path and isinstance(path[-1], str) and path[-1] == rule.segments[0]:
                return True
        elif len(path) == len(rule.segments) and all(
            _segment_matches(p, a) for p, a in zip(rule.segments, path, strict=True)
        ):
            return True
    return False


def strip_ignored(value: Any, rules: tuple[IgnoreRule, ...]) -> Any:
    """Return a copy of ``value`` without the dict entries the rules ignore.

    Only mappings and lists are rebuilt (mappings become plain dicts with
    string-compared keys; non-string keys are matched by ``str(key)``); every
    other value is returned as is. ``value`` itself is never modified.
    """
    if not rules:
        return value
    return _strip(value, (), rules)


def _strip(value: Any, path: tuple[str | int, ...], rules: tuple[IgnoreRule, ...]) -> Any:
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            child = (*path, key if isinstance(key, str) else str(key))
            if _is_ignored(child, rules):
                continue
            out[key] = _strip(item, child, rules)
        return out
    if isinstance(value, list):
        return [_strip(item, (*path, i), rules) for i, item in enumerate(value)]
    return value


def json_text(value: object) -> Any:
    """``value`` parsed when it is a string holding a JSON object or array (an MCP tool's or
    resource's text, a WebSocket message), else ``value`` as it is: so ``ignored_fields`` and
    the reported paths reach inside it (``result.issued_at``, not the whole text)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def format_path(root: str, segments: Iterable[Any]) -> str:
    """Render path segments as ``root.key[index]``.

    Identifier-like string keys use ``.key``; other keys use ``["key"]`` (JSON
    quoting); ints use ``[n]``; anything else ``[repr]``.
    """
    out = root
    for segment in segments:
        if isinstance(segment, str):
            if _IDENT.match(segment):
                out += f".{segment}"
            else:
                out += f"[{json.dumps(segment, ensure_ascii=False)}]"
        elif isinstance(segment, int) and not isinstance(segment, bool):
            out += f"[{segment}]"
        else:
            out += f"[{segment!r}]"
    return out


_KINDS = {
    "values_changed": "changed",
    "type_changes": "type_changed",
    "dictionary_item_added": "added",
    "dictionary_item_removed": "removed",
    "iterable_item_added": "added",
    "iterable_item_removed": "removed",
    "attribute_added": "added",
    "attribute_removed": "removed",
    "set_item_added": "added",
    "set_item_removed": "removed",
}


def _sort_key(change: tuple[list[Any], dict[str, Any]]) -> tuple[Any, ...]:
    return tuple((0, s, "") if isinstance(s, int) else (1, 0, str(s)) for s in change[0])


def diff_values(
    old: Any,
    new: Any,
    *,
    root: str = "args",
    ignored_fields: Iterable[str] | tuple[IgnoreRule, ...] | None = (),
    strict: bool = False,
) -> list[dict[str, Any]]:
    """Deep-diff two JSON values; return the list of changes (empty when equal).

    ``old`` is the golden value, ``new`` the new one; ``root`` prefixes every
    path (``"args"`` gives ``"args.city"``; a change of the whole value has
    path ``root``). ``ignored_fields``: entries as described in
    :func:`parse_ignored_fields`, or rules it already returned. ``strict``:
    ``1`` vs ``1.0`` is a ``type_changed`` instead of equal (module doc).
    Changes are sorted by path (list indexes numerically).

    Raises:
        ValueError, TypeError: a malformed ``ignored_fields`` entry.
    """
    rules: tuple[IgnoreRule, ...]
    if isinstance(ignored_fields, tuple) and all(
        isinstance(rule, IgnoreRule) for rule in ignored_fields
    ):
        rules = ignored_fields  # already parsed (or empty)
    else:
        rules = parse_ignored_fields(ignored_fields)  # type: ignore[arg-type]
    old = strip_ignored(old, rules)
    new = strip_ignored(new, rules)
    if _plain_equal(old, new, strict):
        return []  # the common case; deepdiff is not even imported
    native: list[tuple[list[Any], str, Any, Any]] = []
    if _scalar_tree_changes(old, new, [], strict, native):
        # differences only in dicts and scalars (a changed argument value, an added
        # or removed key): the same changes deepdiff reports, without its per-diff cost
        found_native = [
            (segments, {"path": format_path(root, segments), "old": a, "new": b, "kind": kind})
            for segments, kind, a, b in native
        ]
        found_native.sort(key=_sort_key)
        return [change for _, change in found_native]
    from deepdiff import DeepDiff  # lazy: slow to import, needed only for differences

    tree = DeepDiff(
        old,
        new,
        ignore_order=False,
        threshold_to_diff_deeper=0,
        ignore_nan_inequality=True,
        view="tree",
    )
    found: list[tuple[list[Any], dict[str, Any]]] = []
    for report_type, levels in tree.items():
        base = _KINDS.get(report_type)
        if base is None:
            base = (
                "added"
                if "added" in report_type
                else "removed"
                if "removed" in report_type
                else "changed"
            )
        for level in levels:
            segments = level.path(output_format="list")
            kind = base
            if kind == "type_changed" and not strict and _numbers(level.t1, level.t2):
                if level.t1 == level.t2:
                    continue  # 1 vs 1.0: equal by value
                kind = "changed"
            found.append(
                (
                    segments,
                    {
                        "path": format_path(root, segments),
                        "old": None if kind == "added" else level.t1,
                        "new": None if kind == "removed" else level.t2,
                        "kind": kind,
                    },
                )
            )
    if strict:
        # deepdiff matches list items by hash, and hash(2) == hash(2.0): add the
        # int/float swaps it does not see, position by position
        seen = {change["path"] for _, change in found}
        for segments, a, b in _number_type_swaps(old, new, []):
            path = format_path(root, segments)
            if path not in seen:
                found.append((segments, {"path": path, "old": a, "new": b, "kind": "type_changed"}))
    found.sort(key=_sort_key)
    return [change for _, change in found]


_SCALARS = (str, int, float, bool, type(None))


def _scalar_tree_changes(
    old: Any,
    new: Any,
    segments: list[Any],
    strict: bool,
    out: list[tuple[list[Any], str, Any, Any]],
) -> bool:
    """Append the changes between ``old`` and ``new`` to ``out`` as
    ``(segments, kind, old, new)``, as :func:`diff_values` reports them through
    deepdiff, when every difference lies in plain dicts and scalars; return
    False (``out`` is then unusable) when a differing part is anything else
    (a list, a tuple, another type), which deepdiff handles."""
    kind_old, kind_new = type(old), type(new)
    if kind_old is dict and kind_new is dict:
        for key, value in old.items():
            if key in new:
                if not _scalar_tree_changes(value, new[key], [*segments, key], strict, out):
                    return False
            else:
                out.append(([*segments, key], "removed", value, None))
        for key, value in new.items():
            if key not in old:
                out.append(([*segments, key], "added", None, value))
        return True
    if kind_old not in _SCALARS or kind_new not in _SCALARS:
        return _plain_equal(old, new, strict)  # equal containers: nothing to report
    if kind_old is kind_new:
        if old == new or (kind_old is float and math.isnan(old) and math.isnan(new)):
            return True
        out.append((segments, "changed", old, new))
        return True
    if not strict and _numbers(old, new):
        if old != new:  # 1 vs 1.0 is equal by value
            out.append((segments, "changed", old, new))
        return True
    out.append((segments, "type_changed", old, new))
    return True


def _number_type_swaps(a: Any, b: Any, segments: list[Any]) -> Iterable[tuple[list[Any], Any, Any]]:
    """Paths where ``a`` and ``b`` hold equal numbers of different types (int vs float)."""
    if _numbers(a, b):
        if type(a) is not type(b) and a == b:
            yield segments, a, b
    elif isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in a:
            if key in b:
                yield from _number_type_swaps(a[key], b[key], [*segments, key])
    elif isinstance(a, list) and isinstance(b, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            yield from _number_type_swaps(x, y, [*segments, index])


def _numbers(a: Any, b: Any) -> bool:
    """Both are int/float but not bool (bool is not a number here)."""
    return (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    )


def _plain_equal(a: Any, b: Any, strict: bool = True) -> bool:
    # Fast path for the common "nothing changed" case. Only trusted when the
    # values are built from str/int/float/None/list/dict with identical types
    # throughout (int and float count as one type unless strict), because ==
    # treats 1, 1.0 and True as equal.
    if _same_encoding(a, b):
        return True
    try:
        return bool(a == b) and _same_types(a, b, strict)
    except (TypeError, ValueError):  # exotic __eq__ (e.g. arrays): let deepdiff decide
        return False


def _same_encoding(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` encode to the same MessagePack bytes with sorted keys (msgspec,
    as :func:`agentsnap.storage.wire.replay_key`): then they hold the same keys and the same values of
    the same types throughout (MessagePack keeps int, float, bool, str, None, arrays and maps
    apart), so they are equal in the strict sense as well. Different bytes (1 vs 1.0, -0.0 vs
    0.0, a tuple, anything msgspec cannot encode) decide nothing: the caller compares the values."""
    if type(a) is not type(b) or type(a) not in (dict, list):
        return False
    return _same_msgpack(a, b)


def _same_msgpack(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` encode to the same sorted-key MessagePack bytes (False when
    msgspec cannot encode one)."""
    global _sorted_msgpack
    if _sorted_msgpack is None:
        import msgspec

        _sorted_msgpack = msgspec.msgpack.Encoder(order="sorted").encode
    try:
        return bool(_sorted_msgpack(a) == _sorted_msgpack(b))
    except (TypeError, ValueError, OverflowError):
        return False


_sorted_msgpack: Any = None

#: scalars whose ``==`` with the same type says everything (a float may be ``-0.0`` or NaN)
_EXACT_SCALARS = (str, int, bool, type(None))


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same in every respect a comparison can see: the same
    object, or of one type, equal by ``==`` and, for floats, dicts and lists, encoding to the
    same sorted-key MessagePack bytes (so ``1`` vs ``1.0``, ``True`` vs ``1`` and ``-0.0`` vs
    ``0.0`` differ, and a NaN in separate objects is never "the same", as ``==`` says). Returns
    False for anything it cannot decide (a value msgspec cannot encode): the caller then
    compares in full. A float NaN is not the same as itself."""
    kind = type(a)
    if a is b:
        return kind is not float or a == a
    if kind is not type(b):
        return False
    if kind in _EXACT_SCALARS:
        return bool(a == b)
    if kind is not float and kind is not dict and kind is not list:
        return False
    try:
        if a != b:
            return False
    except (TypeError, ValueError):
        return False
    return _same_msgpack(a, b)


def _same_types(a: Any, b: Any, strict: bool = True) -> bool:
    if type(a) is not type(b):
        return not strict and _numbers(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_types(a[k], b[k], strict) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(
            _same_types(x, y, strict) for x, y in zip(a, b, strict=True)
        )
    return True
