"""No import circle in the product: privcore (its command line and words included), ui,
pages and app.py.

The graph is built from the source with ``ast``, so an import written inside a function
counts as much as one at the top of a module (a circle held together by late imports is
still a circle). Imports under ``if TYPE_CHECKING:`` never run and are left out.
``from package import name`` depends on ``package.name`` when that is a module, else on
the package itself. A circle is a strongly connected component of two or more modules
(Tarjan's algorithm).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def product_modules(root: Path = ROOT) -> dict[str, Path]:
    """Module name → file, for every module of privcore, ui, pages and app.py."""
    modules: dict[str, Path] = {}
    for package in ("privcore", "ui"):
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    for path in (root / "pages").glob("*.py"):
        modules[f"pages.{path.stem}"] = path
    modules["app"] = root / "app.py"
    return modules


def _runs(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node that runs: skips the bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in [child, *_runs(child)])
            continue
        yield node
        yield from _runs(node)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the product modules it imports (anywhere in its source)."""

    def known(name: str) -> str | None:
        while name:
            if name in modules:
                return name
            name = name.rpartition(".")[0]
        return None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runs(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [known(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                targets = [known(f"{base}.{alias.name}") or known(base) for alias in node.names]
            graph[name].update(t for t in targets if t and t != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of two or more modules (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
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
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_finder_sees_a_circle_held_by_an_import_inside_a_function(tmp_path):
    (tmp_path / "privcore").mkdir()
    (tmp_path / "ui").mkdir()
    (tmp_path / "pages").mkdir()
    (tmp_path / "app.py").write_text("import ui.a\n")
    (tmp_path / "privcore" / "__init__.py").write_text("")
    (tmp_path / "ui" / "__init__.py").write_text("")
    (tmp_path / "ui" / "a.py").write_text("from ui import b\n")
    (tmp_path / "ui" / "b.py").write_text("def late():\n    from ui.a import x\n")
    (tmp_path / "ui" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ui import a\n"
    )
    graph = import_graph(product_modules(tmp_path))
    assert graph["ui.c"] == set()
    assert graph["app"] == {"ui.a"}
    assert circles(graph) == [["ui.a", "ui.b"]]


def test_the_finder_resolves_relative_imports(tmp_path):
    for folder in ("privcore/sub", "ui", "pages"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "app.py").write_text("")
    (tmp_path / "privcore" / "__init__.py").write_text("from .sub import one\n")
    (tmp_path / "privcore" / "sub" / "__init__.py").write_text("from . import one\n")
    (tmp_path / "privcore" / "sub" / "one.py").write_text("from .. import sub\n")
    graph = import_graph(product_modules(tmp_path))
    assert graph["privcore"] == {"privcore.sub.one"}
    assert graph["privcore.sub"] == {"privcore.sub.one"}
    assert graph["privcore.sub.one"] == {"privcore.sub"}
    assert circles(graph) == [["privcore.sub", "privcore.sub.one"]]


def test_no_import_circle_in_the_product():
    graph = import_graph(product_modules())
    assert len(graph) > 150, "the product's modules were not found"
    assert circles(graph) == []
