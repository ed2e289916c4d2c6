"""The library's modules import downwards only: no two modules import each other (also
inside a function), and ``tutorial.nn`` (the networks and their training loop) imports
nothing from ``tutorial.parallel``, which builds on it."""

import ast
from pathlib import Path

import tutorial

ROOT = Path(tutorial.__file__).parent


def module_name(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path):
    """The tutorial modules ``path`` imports anywhere in it (top level or in a function)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("tutorial.")}


def graph():
    modules = {module_name(p): p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts}
    return {name: imports(path) & set(modules) for name, path in modules.items()}


def mutual(edges):
    return sorted({tuple(sorted((a, b))) for a, targets in edges.items() for b in targets
                   if a != b and a in edges.get(b, ()) and not _package_of(a, b)})


def _package_of(a, b):
    """A package's __init__ naming its own modules (lazy loading) is not a cycle."""
    return a.startswith(b + ".") or b.startswith(a + ".")


def test_no_two_modules_import_each_other():
    assert mutual(graph()) == []


def test_nn_imports_nothing_from_parallel():
    reaching_up = {name: sorted(t for t in targets if t.startswith("tutorial.parallel"))
                   for name, targets in graph().items() if name.startswith("tutorial.nn")}
    assert {name: t for name, t in reaching_up.items() if t} == {}


def test_the_check_can_fail():
    assert mutual({"tutorial.a": {"tutorial.b"}, "tutorial.b": {"tutorial.a"}}) == [
        ("tutorial.a", "tutorial.b")]
