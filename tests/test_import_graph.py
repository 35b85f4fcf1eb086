"""No import circles: between nkcore's (and ui's) modules and between their packages, counting the imports made
inside functions too (an import moved into a function only hides a circle). TYPE_CHECKING-only imports are not
edges. A new circle fails here with its modules named."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.conftest import ROOT


def package_modules(package: str) -> dict[str, Path]:
    """Every module of ``package`` under the repository root: dotted name -> file."""
    out = {}
    for path in (ROOT / package).rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str | None:
    if not node.level:
        return node.module
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ``mods`` it imports (inside functions too; TYPE_CHECKING-only imports are not edges)."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, path, node)
                if base:
                    subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in mods]
                    targets = subs if len(subs) == len(node.names) else [base, *subs]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != module:
                    graph[module].add(t)
    return graph


def imported_by(graph: dict[str, set[str]], roots: Iterable[str]) -> set[str]:
    """``roots``, every module they import directly or through others, and the packages above each (whose
    ``__init__`` runs on import)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
            parent = m.rpartition(".")[0]
            if parent in graph:
                todo.append(parent)
    return seen


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("package", ["nkcore", "ui"])
def test_no_module_imports_itself_through_others(package: str) -> None:
    assert _cycles(import_graph(package_modules(package))) == []


def test_no_package_of_nkcore_imports_itself_through_others() -> None:
    def top(m: str) -> str:
        return ".".join(m.split(".")[:2])

    packages: dict[str, set[str]] = {}
    for module, targets in import_graph(package_modules("nkcore")).items():
        for t in targets:
            if top(t) != top(module):
                packages.setdefault(top(module), set()).add(top(t))
    assert _cycles(packages) == []


def test_the_checker_sees_a_circle_hidden_in_a_function(tmp_path: Path) -> None:
    graph = {"p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": set()}
    assert _cycles(graph) == [["p.a", "p.b"]]
    m, a = tmp_path / "m.py", tmp_path / "a.py"
    m.write_text("def f():\n    from p.a import x\n")
    a.write_text("import p.m\n")
    graph = import_graph({"p.m": m, "p.a": a})
    assert graph == {"p.m": {"p.a"}, "p.a": {"p.m"}} and _cycles(graph) == [["p.a", "p.m"]]
