"""The rules of the house (ARCHITECTURE §2), read off the source: the pipeline is the top of the
import graph, modules import without loops, and no class's private attributes are read elsewhere.

Type-only imports (under `if TYPE_CHECKING:`) are not dependencies at run time and may close a
loop; an import of the pipeline from below is refused whatever its kind.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "nl2sql"
BELOW_PIPELINE = ("reasoning", "governance", "security", "validation", "sqlgen", "execution",
                  "aggregation", "datasources", "retrieval", "schema")


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _type_only_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(module: str, path: Path) -> list[tuple[str, bool]]:
    """(imported nl2sql module, type-only?) for every import statement of `module`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = _type_only_lines(tree)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.append((name, node.lineno in type_only))
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        graph[module].update(target for target, type_only in _imports(module, path) if not type_only)
    return graph


def _loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
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
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    loops.append(sorted(component))
    return loops


@pytest.mark.parametrize("package", BELOW_PIPELINE)
def test_nothing_below_the_pipeline_imports_it(package):
    upward = [
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if module.startswith(f"nl2sql.{package}")
        for target, _ in _imports(module, path)
        if target.startswith("nl2sql.pipeline")
    ]
    assert upward == []


def test_no_import_loops_but_type_only_ones():
    assert _loops(_graph()) == []


def test_the_loop_finder_finds_a_loop():
    graph = defaultdict(set, {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert _loops(graph) == [["a", "b", "c"]]


def _foreign_private_reads(path: Path) -> list[str]:
    """`x._name` where `x` is not self/cls and `_name` is defined nowhere in this module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own: set[str] = set()
    imported_modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            own.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Import):
            imported_modules.update((a.asname or a.name).split(".")[0] for a in node.names)
    reads = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")) or node.attr.startswith("__"):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and (owner.id in ("self", "cls") or owner.id in imported_modules):
            continue  # our own attribute, or a library module's private type used in a hint
        if node.attr not in own:
            reads.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} .{node.attr}")
    return reads


def test_no_private_attribute_of_another_class_is_read():
    assert [read for path in MODULES.values() for read in _foreign_private_reads(path)] == []
