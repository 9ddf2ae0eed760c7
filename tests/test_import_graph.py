"""No import cycles between agentsnap's modules (issue 15).

Every module under src/agentsnap is parsed with ``ast``; an edge A → B is an
import of B that runs when A is imported: a statement at module level (also
inside a module-level ``if``/``try``/``with``), not one inside a function or a
class body's method, nor under ``if TYPE_CHECKING:``. ``from . import x`` is
an edge to the submodule ``x`` when that is a module, else to the package.
Importing ``a.b.c`` also runs ``a`` and ``a.b``: those package edges count,
except to the importer's own parent packages (they are already being imported
when a submodule runs: a package's ``__init__`` importing its submodules is no
cycle).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "agentsnap"


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level(
    body: list[ast.stmt], deferred: bool = False
) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run at import time (not in functions, not under TYPE_CHECKING).

    ``deferred``: also those inside functions (imports that run on first use) and those under
    ``if TYPE_CHECKING:`` (imports the type checker follows): every import in the module.
    """
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if deferred or not _is_type_checking(node.test):
                yield from _module_level(node.body, deferred)
            yield from _module_level(node.orelse, deferred)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _module_level(block, deferred)
            for handler in node.handlers:
                yield from _module_level(handler.body, deferred)
        elif isinstance(node, (ast.With, ast.ClassDef, ast.For, ast.While)) or (
            deferred and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ):
            yield from _module_level(node.body, deferred)


def _graph(deferred: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}

    def add(source: str, target: str) -> None:
        # importing a.b.c runs a, a.b and a.b.c; the importer's own parents are already running
        parts = target.split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            if name in modules and name != source and not source.startswith(name + "."):
                graph[source].add(name)

    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        package = name if is_package else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _module_level(tree.body, deferred):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(name, alias.name)
                continue
            if node.level:
                base = package.split(".")
                if node.level > 1:
                    base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if not target.startswith(PACKAGE):
                continue
            add(name, target)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in modules:
                    add(name, sub)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _a_loop(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One concrete loop through a component, for the failure message."""
    members = set(component)
    start = component[0]
    path = [start]
    seen = {start}
    node = start
    while True:
        nxt = sorted(graph[node] & members)
        back = [n for n in nxt if n == start]
        if back and len(path) > 1:
            return [*path, start]
        fresh = [n for n in nxt if n not in seen]
        if not fresh:
            # fall back on any member already seen: close the loop there
            target = next(n for n in nxt if n in seen)
            return [*path[path.index(target) :], target]
        node = fresh[0]
        seen.add(node)
        path.append(node)


def test_the_graph_sees_the_package() -> None:
    graph = _graph()
    assert "agentsnap.exceptions" in graph["agentsnap"]
    assert "agentsnap.adapters._base" in graph["agentsnap.adapters"]
    # a function-level import is no edge: the plugin loads the recorder lazily
    assert "agentsnap.recorder" not in graph["agentsnap"]


def test_cycle_finder_reports_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _a_loop(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


def test_no_import_cycles() -> None:
    graph = _graph()
    loops = [" → ".join(_a_loop(c, graph)) for c in _cycles(graph)]
    assert loops == [], "import cycles at module level:\n" + "\n".join(loops)


def test_no_import_cycles_counting_every_import() -> None:
    """Counting imports inside functions and under ``TYPE_CHECKING`` too (issue 25): the
    layers import one way, so a module can be read, tested and moved with what it imports."""
    graph = _graph(deferred=True)
    loops = [" → ".join(_a_loop(c, graph)) for c in _cycles(graph)]
    assert loops == [], "import cycles counting every import:\n" + "\n".join(loops)
    assert graph["agentsnap.exceptions"] == set()
    assert graph["agentsnap._version"] == set()


def test_every_import_counts_in_the_deferred_graph() -> None:
    tree = ast.parse("import a\nif TYPE_CHECKING:\n    import b\ndef f():\n    import c\n")
    seen = [n.names[0].name for n in _module_level(tree.body, deferred=True)]  # type: ignore[union-attr]
    assert seen == ["a", "b", "c"]
    assert [n.names[0].name for n in _module_level(tree.body)] == ["a"]  # type: ignore[union-attr]
