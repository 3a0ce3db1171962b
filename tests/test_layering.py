"""The import structure docs/architecture.md promises, read from the source itself.

Two things break quietly and are found late: an import cycle (it works until someone imports
the modules in another order, so it hides behind imports moved into functions), and a layer
that learns about another it must not know (a game that knows the web page, a core module that
knows one game).  Both are checked on the import graph built from every ``import`` in
``companion/``, at module top or inside a function alike, without importing anything.

Cycles are looked for among the imports that run: those under ``if TYPE_CHECKING:`` never
execute, so a cycle through them alone is no import cycle.  The layering rules count every
import, those for type checkers too: a type is knowledge all the same.

"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "companion"

GAMES_MAY_NOT_IMPORT = (
    "companion.web",
    "companion.capture",
    "companion.referee",
    "companion.service",
    "companion.replay",
    "companion.bench",
)
CORE = (
    "companion.vision",
    "companion.capture",
    "companion.referee",
    "companion.web",
    "companion.setup",
    "companion.service",
    "companion.replay",
    "companion.bench",
    "companion.cli",
    "companion.render",
    "companion.samples",
)


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (a package by its own)."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(tree: ast.Module, module: str, is_package: bool) -> list[tuple[str, bool]]:
    """(dotted name, for type checkers only) of every import in the tree, wherever it is.

    ``from a import b`` names ``a.b`` (it may be a module; ``_resolve`` falls back to ``a``);
    relative imports are made absolute.
    """
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, typing_only) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                here = here[: len(here) - node.level + 1]
                base = ".".join([*here, base] if base else here)
            found.extend((f"{base}.{alias.name}", typing_only) for alias in node.names)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(tree, False)
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The deepest module of ours that ``name`` is or lies in (None: not ours)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path, package: str, *, typing_imports: bool) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports (with or without TYPE_CHECKING ones)."""
    modules = _modules(root, package)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for name, typing_only in _imported_names(tree, module, path.name == "__init__.py"):
            target = _resolve(name, modules)
            if target is not None and target != module and (typing_imports or not typing_only):
                targets.add(target)
        graph[module] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The graph's strongly connected components of two modules or more (Tarjan's algorithm,
    iterative): every import cycle lies within one, and each one holds at least one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(frozenset(component))
    return out


def _cycle_path(graph: dict[str, set[str]], component: frozenset[str]) -> list[str]:
    """One cycle through the component, as the chain of imports to show in a failure."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & component):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(f"no cycle through {sorted(component)}")


def _game_packages(root: Path) -> list[str]:
    games = root / PACKAGE / "games"
    return sorted(
        f"{PACKAGE}.games.{d.name}" for d in games.iterdir() if (d / "__init__.py").is_file()
    )


@pytest.fixture(scope="module")
def runtime_graph() -> dict[str, set[str]]:
    return import_graph(ROOT, PACKAGE, typing_imports=False)


@pytest.fixture(scope="module")
def full_graph() -> dict[str, set[str]]:
    return import_graph(ROOT, PACKAGE, typing_imports=True)


def test_the_import_graph_has_no_cycle(runtime_graph: dict[str, set[str]]) -> None:
    found = cycles(runtime_graph)
    assert not found, "import cycles:\n" + "\n".join(
        " -> ".join(_cycle_path(runtime_graph, c)) for c in found
    )


def test_games_know_no_camera_no_web_no_referee(full_graph: dict[str, set[str]]) -> None:
    breaks = sorted(
        (module, target)
        for module, targets in full_graph.items()
        if _under(module, f"{PACKAGE}.games")
        for target in targets
        if any(_under(target, layer) for layer in GAMES_MAY_NOT_IMPORT)
    )
    _check_layer(breaks)


def test_the_core_knows_no_particular_game(full_graph: dict[str, set[str]]) -> None:
    games = _game_packages(ROOT)
    assert {f"{PACKAGE}.games.{g}" for g in ("amoeba", "upwords", "octiles", "labyrinth")} <= set(
        games
    )
    breaks = sorted(
        (module, target)
        for module, targets in full_graph.items()
        if any(_under(module, core) for core in CORE)
        for target in targets
        if any(_under(target, game) for game in games)
    )
    _check_layer(breaks)


def _check_layer(breaks: list[tuple[str, str]]) -> None:
    assert not breaks, "layering broken:\n" + "\n".join(f"{a} imports {b}" for a, b in breaks)


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """A made-up package with a cycle through a function-level import, a relative import and
    one through TYPE_CHECKING only: the first two are cycles, the last is not."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from pkg.b import thing\n",
        "b.py": "def thing():\n    from pkg import a\n",
        "sub/__init__.py": "from . import c\n",
        "sub/c.py": "from .. import sub\n",
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.e\n",
        "e.py": "import pkg.d\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    runtime = import_graph(tmp_path, "pkg", typing_imports=False)
    assert sorted(sorted(c) for c in cycles(runtime)) == [
        ["pkg.a", "pkg.b"],
        ["pkg.sub", "pkg.sub.c"],
    ]
    assert _cycle_path(runtime, frozenset({"pkg.a", "pkg.b"})) == ["pkg.a", "pkg.b", "pkg.a"]
    typed = import_graph(tmp_path, "pkg", typing_imports=True)
    assert frozenset({"pkg.d", "pkg.e"}) in cycles(typed)
