"""The package's layout keeps the shape issue 25 gave it (docs/contributing.md says why).

Each rule is measured on the source tree, so a change that breaks one fails
here naming the module to move or split:

* at most 12 modules at the top level of ``src/agentsnap`` (the rest live in
  the package of their layer: ``storage/``, ``capture/``, ``spec/``,
  ``providers/``, ``adapters/``, ``diff/``, ``report/``, ``cli/``, ``_pytest/``);
* no module over 700 lines (a longer one does more than one job);
* no two modules with the same base name anywhere under ``src/agentsnap``
  (one name, one thing: ``diff/checks/semantic.py`` and a ``diff/semantic.py``
  were two things);
* every parameter annotated with bare ``Any`` stays below 15 % of the
  annotated parameters (``object`` says "any value, inspected before use");
* every error class agentsnap defines is an ``AgentsnapError``, and also an
  ``Exception`` unless it is one of the four that must get past an SDK's
  retry loop.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections import Counter
from pathlib import Path

import agentsnap
from agentsnap.exceptions import (
    AdapterNotWrappedError,
    AgentsnapError,
    ReplayMissError,
)

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "agentsnap"
MAX_TOP_LEVEL = 12
MAX_LINES = 700
MAX_BARE_ANY = 0.15


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_top_level_holds_at_most_twelve_modules() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, (
        f"src/agentsnap holds {len(top)} modules ({', '.join(top)}); move the newest into the "
        f"package of its layer (docs/contributing.md, 'One line per module')"
    )


def test_no_module_is_over_700_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in _modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these by job (lines): {long}"


def test_no_two_modules_share_a_base_name() -> None:
    stems = Counter(p.stem for p in _modules() if p.stem != "__init__")
    packages = Counter(p.parent.name for p in _modules() if p.name == "__init__.py")
    clashes = sorted(
        name for name in set(stems) | set(packages) if stems[name] + packages[name] > 1
    )
    where = {
        name: sorted(
            str(p.relative_to(PACKAGE))
            for p in _modules()
            if p.stem == name or (p.name == "__init__.py" and p.parent.name == name)
        )
        for name in clashes
    }
    assert clashes == [], f"one name, one thing: rename one of each {where}"


def _bare_any(annotation: ast.expr | None) -> bool:
    return (isinstance(annotation, ast.Name) and annotation.id == "Any") or (
        isinstance(annotation, ast.Constant) and annotation.value == "Any"
    )


def test_bare_any_parameters_stay_below_fifteen_percent() -> None:
    annotated = bare = 0
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                if arg is None or arg.arg in ("self", "cls") or arg.annotation is None:
                    continue
                annotated += 1
                bare += _bare_any(arg.annotation)
    assert annotated > 1000, "the walk found too few parameters: is PACKAGE right?"
    assert bare / annotated < MAX_BARE_ANY, f"{bare} of {annotated} parameters are bare Any"


def test_the_any_counter_sees_a_bare_any() -> None:
    tree = ast.parse("def f(a: Any, b: 'Any', c: list[Any], d: object) -> None: ...")
    args = tree.body[0].args.args  # type: ignore[attr-defined]
    assert [_bare_any(a.annotation) for a in args] == [True, True, False, False]


def _error_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(agentsnap.__path__, "agentsnap."):
        if info.name.startswith("agentsnap.pytest_plugin"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional dependency (an SDK, a framework) is not installed
            continue
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(obj, BaseException)
                and not issubclass(obj, Warning)
                and obj.__module__ == info.name
            ):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


def test_every_error_agentsnap_defines_is_an_agentsnap_error() -> None:
    classes = _error_classes()
    assert len(classes) >= 12
    outside = [c.__qualname__ for c in classes if not issubclass(c, AgentsnapError)]
    assert outside == [], f"derive these from AgentsnapError: {outside}"
    retry_proof = (ReplayMissError, AdapterNotWrappedError, AgentsnapError)
    swallowed_by_nothing = [
        f"{c.__module__}.{c.__qualname__}"
        for c in classes
        if not issubclass(c, Exception)
        and not issubclass(c, retry_proof[:2])
        and c is not AgentsnapError
    ]
    assert swallowed_by_nothing == [], (
        f"these are BaseException only, so `except Exception` misses them: also derive from an "
        f"Exception class: {swallowed_by_nothing}"
    )
