"""A replayed test's fixed cost, fourth round (issue 30, row 6): the same answers by less work.

* each recording's start re-checks the hooked modules (``hooks.ensure_patched``): a hook's patch
  module is read from ``sys.modules`` when it is there and initialised, and a wrapper is matched
  by identity before by name (``wrapping.one_of``);
* the comparison finds each side's llm_call steps once (``CheckContext.llm_calls``);
* a golden again's ``.last_run`` trace is encoded without the key sort (``compact_bytes``'s
  ``finite_trace``: keys held sorted): the sorted bytes.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap import SnapshotStore
from agentsnap.capture import hooks, wrapping
from agentsnap.diff import sequence
from agentsnap.diff.checks._api import CheckContext
from agentsnap.storage.atomic import lstat_mode
from agentsnap.storage.serialize import compact_bytes
from agentsnap.storage.store import LAST_RUN_DIR
from tests._support.json_trees import json_trees


def _same_function_before(a: object, b: object) -> bool:
    """``wrapping.same_function`` as it was written before (the reference)."""
    if a is b:
        return True
    name = ("__module__", "__qualname__")
    return (
        callable(a) and callable(b) and all(getattr(a, n, None) == getattr(b, n, 0) for n in name)
    )


def _made(module: str, qualname: str) -> Any:
    def f() -> None:
        return None

    f.__module__, f.__qualname__ = module, qualname
    return f


class _NoNames:
    """Callable, with neither ``__module__`` nor ``__qualname__`` on its instances' lookups."""

    __slots__ = ()

    def __call__(self) -> None:
        return None

    def __getattribute__(self, name: str) -> Any:
        if name in ("__module__", "__qualname__"):
            raise AttributeError(name)
        return object.__getattribute__(self, name)


def test_one_of_and_same_function_answer_as_before() -> None:
    w1, w2 = _made("m", "w1"), _made("m", "w2")
    copies = [_made("m", "w1"), _made("m", "w2"), _made("other", "w1")]
    others: list[object] = [None, 0, "w1", object(), _NoNames(), len, *copies, w1, w2]
    for a in others:
        for b in others:
            assert wrapping.same_function(a, b) is _same_function_before(a, b), (a, b)
    match = wrapping.one_of(w1, w2)
    for found in others:
        expected = any(_same_function_before(found, w) for w in (w1, w2))
        assert match(found) is expected, found
    assert match(w1) and match(copies[0]) and not match(None) and not match(copies[2])


def test_a_hooks_patch_module_is_read_from_sys_modules_when_initialised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []
    real = importlib.import_module

    def import_module(name: str, package: str | None = None) -> Any:
        asked.append(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", import_module)
    assert hooks._imported("agentsnap.capture.wrapping") is wrapping
    assert asked == []  # there, initialised: as import_module would return it
    half = types.ModuleType("agentsnap_half_initialised")
    half.__spec__ = importlib.machinery.ModuleSpec("agentsnap_half_initialised", None)
    half.__spec__._initializing = True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agentsnap_half_initialised", half)
    assert hooks._imported("agentsnap_half_initialised") is half
    assert asked == ["agentsnap_half_initialised"]  # a module being imported: import_module's wait
    monkeypatch.delitem(sys.modules, "json")
    assert hooks._imported("json") is sys.modules["json"]
    assert asked[-1] == "json"  # not imported: imported


def _context(golden: list[dict[str, Any]], new: list[dict[str, Any]]) -> CheckContext:
    return CheckContext(
        golden={"trace": golden},
        new={"trace": new},
        golden_steps=golden,
        new_steps=new,
        options=None,  # type: ignore[arg-type]
        rules=(),
        legacy=False,
    )


def test_the_llm_calls_are_found_once_per_side_and_each_asker_gets_its_own_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    golden = [{"type": "llm_call", "step": 1}, {"type": "tool_call"}, {"type": "llm_call"}]
    new = [{"type": "llm_call"}]
    found: list[int] = []
    real = sequence.llm_calls
    tools = sequence.requested_tools(golden)

    def counted(steps: Any) -> Any:
        found.append(len(steps))
        return real(steps)

    monkeypatch.setattr(sequence, "llm_calls", counted)
    ctx = _context(golden, new)
    first = ctx.llm_calls(True)
    assert first == real(golden) and ctx.llm_calls(False) == real(new)
    first.append((99, {}))  # one asker's list is its own
    assert ctx.llm_calls(True) == real(golden)
    assert found == [3, 1]
    assert sequence.requested_tools(golden, ctx.llm_calls(True)) == tools
    assert found == [3, 1]


def _sorted_tree(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_tree(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_tree(v) for v in value]
    return value


_LEAVES = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=6)
_FINITE = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(
    trace=st.lists(json_trees(_LEAVES | _FINITE), max_size=4),
    rest=st.dictionaries(st.text(max_size=5), json_trees(_LEAVES | st.floats()), max_size=4),
)
def test_property_a_sorted_finite_trace_is_written_as_the_sort_writes_it(
    trace: list[Any], rest: dict[str, Any]
) -> None:
    data = {**rest, "trace": _sorted_tree(trace)}
    expected = compact_bytes(data)
    assert compact_bytes(data, finite_trace=True) == expected


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
def test_the_last_run_ignore_is_written_where_nothing_is_as_before(tmp_path: Path) -> None:
    """``write_last_run_ignore`` looks by one ``lstat``: it writes where ``not exists() and not
    is_symlink()`` (nothing there, not even a dangling link) and nowhere else."""
    kinds = ("missing", "file", "folder", "dangling link", "link to a file")
    for kind in kinds:
        root = tmp_path / kind.replace(" ", "-")
        ignore = root / LAST_RUN_DIR / ".gitignore"
        ignore.parent.mkdir(parents=True)
        if kind == "file":
            ignore.write_text("mine\n")
        elif kind == "folder":
            ignore.mkdir()
        elif kind == "dangling link":
            ignore.symlink_to(tmp_path / "nowhere")
        elif kind == "link to a file":
            (tmp_path / "target").write_text("theirs\n")
            ignore.symlink_to(tmp_path / "target")
        before = not ignore.exists() and not ignore.is_symlink()
        assert (lstat_mode(os.fspath(ignore)) is None) is before, kind
        store = SnapshotStore(root)
        store.write_last_run_ignore()
        if kind == "missing":
            assert ignore.read_text().endswith("*\n")
        elif kind == "file":
            assert ignore.read_text() == "mine\n"
        elif kind == "folder":
            assert ignore.is_dir()
        else:
            assert ignore.is_symlink()
    assert (tmp_path / "target").read_text() == "theirs\n"
    assert not (tmp_path / "nowhere").exists()


def test_a_store_write_makes_its_folder_only_when_it_is_missing(tmp_path: Path) -> None:
    from agentsnap.storage.atomic import store_write

    deep = tmp_path / "a" / "b" / "c.json"
    store_write(deep, "1\n", durable=False, root=tmp_path)
    store_write(deep, "2\n", durable=False, root=tmp_path)  # the folder there: no mkdir's raise
    assert deep.read_text() == "2\n"
    (tmp_path / "f").write_text("")
    with pytest.raises(OSError):  # a file where the folder goes: mkdir's error, as before
        store_write(tmp_path / "f" / "x.json", "3\n", durable=False, root=tmp_path)
