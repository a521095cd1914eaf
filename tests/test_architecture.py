"""The layer rule of docs/architecture.md, checked on the source.

Every module under ``src/tensortypes`` is parsed with ``ast``; its imports
(module level and inside functions, absolute and relative, plus
``importlib.import_module``/``__import__`` calls with a constant name) are
resolved to module names. The tests then fail on

- a module in a package that ``LAYERS`` does not classify,
- an import of a higher layer, or of a later package of the same layer,
- an import cycle between modules,
- a third-party import in ``errors``/``_config`` (standard library only) or in
  ``core`` (standard library and NumPy only),
- a module-level import of a heavy array library anywhere in the package.

To add a package, add its name to ``LAYERS``. To allow one upward import, add
an ``Exception_`` to ``EXCEPTIONS`` with the reason.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT_PACKAGE = "tensortypes"
SRC = Path(__file__).resolve().parents[1] / "src" / ROOT_PACKAGE

# Lowest layer first. Inside a layer, a package may import the ones listed
# before it, never the ones after it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "_config"),
    ("core",),
    ("graph", "types"),
    ("tensor",),
    ("annotate", "pytree"),
    ("runtime", "link", "check"),
    ("lsp", "annotator"),
)

# The facade on top: it re-exports and runs commands, so it may import anything.
FACADE = frozenset(
    {
        ROOT_PACKAGE,
        f"{ROOT_PACKAGE}.__main__",
        f"{ROOT_PACKAGE}.cli",
        f"{ROOT_PACKAGE}.demo",
        # stands in for jaxtyping: `import jaxtyping` gives the package root
        f"{ROOT_PACKAGE}.jaxtyping_shim",
    }
)

# Packages whose imports outside ``tensortypes`` are limited, and what they may use.
STDLIB_ONLY = frozenset({"errors", "_config"})
STDLIB_AND_NUMPY = frozenset({"core"})

# Never imported when a module is imported: each costs seconds and may be absent.
HEAVY = frozenset({"torch", "jax", "jaxlib", "tensorflow", "mlx"})


@dataclass(frozen=True)
class Exception_:
    """One allowed upward import: inside ``function`` of ``module``, of ``target``."""

    module: str
    function: str
    target: str
    reason: str


EXCEPTIONS: tuple[Exception_, ...] = (
    Exception_(
        module="tensortypes.graph.clinker",
        function="_load_c_backend",
        target="tensortypes.link.c",
        reason="C interface Decision: the built-in types' C code is registered in link.c, "
        "and CLinkerType's methods load it on first use",
    ),
)

RANK = {
    pkg: (layer, order)
    for layer, pkgs in enumerate(LAYERS, start=1)
    for order, pkg in enumerate(pkgs)
}


@dataclass(frozen=True)
class Import:
    """One imported module name, where it was imported, and how."""

    target: str
    line: int
    function: str | None  # qualified name of the enclosing function, None at module level
    type_checking: bool  # under ``if TYPE_CHECKING:``: never executed


# -- reading the source --------------------------------------------------------------


def module_name(path: Path, src: Path = SRC, root: str = ROOT_PACKAGE) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([root, *parts])


def discover(src: Path = SRC, root: str = ROOT_PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Map every module name under ``src`` to (its file, whether it is a package)."""
    return {
        module_name(p, src, root): (p, p.name == "__init__.py") for p in sorted(src.rglob("*.py"))
    }


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve_relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    if not base:
        raise ImportError(f"relative import beyond the top package in {module}")
    return ".".join(base + ([name] if name else []))


def imports_of(
    source: str, module: str, is_package: bool, known: frozenset[str] | set[str] = frozenset()
) -> list[Import]:
    """Every module that ``source`` imports, at any depth of the syntax tree.

    ``from pkg import name`` yields ``pkg`` and, when ``pkg.name`` is in
    ``known`` (a module, not an attribute), ``pkg.name`` as well.
    """
    found: list[Import] = []

    def visit(node: ast.AST, qualname: str | None, in_function: bool, guarded: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = f"{qualname}.{node.name}" if qualname else node.name
            # A class body runs at import time; only a function body is deferred.
            deferred = in_function or not isinstance(node, ast.ClassDef)
            for child in ast.iter_child_nodes(node):
                visit(child, inner, deferred, guarded)
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, qualname, in_function, True)
            for child in node.orelse:
                visit(child, qualname, in_function, guarded)
            return
        function = qualname if in_function else None
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(alias.name, node.lineno, function, guarded))
        elif isinstance(node, ast.ImportFrom):
            base = (
                _resolve_relative(module, is_package, node.level, node.module)
                if node.level
                else node.module or ""
            )
            found.append(Import(base, node.lineno, function, guarded))
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    found.append(Import(f"{base}.{alias.name}", node.lineno, function, guarded))
        elif isinstance(node, ast.Call) and _constant_import_call(node):
            found.append(Import(node.args[0].value, node.lineno, function, guarded))
        for child in ast.iter_child_nodes(node):
            visit(child, qualname, in_function, guarded)

    visit(ast.parse(source, filename=module), None, False, False)
    return found


def _constant_import_call(node: ast.Call) -> bool:
    func = node.func
    named = (isinstance(func, ast.Name) and func.id in ("__import__", "import_module")) or (
        isinstance(func, ast.Attribute) and func.attr == "import_module"
    )
    return (
        named
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and not node.args[0].value.startswith(".")
    )


def package_of(module: str, root: str = ROOT_PACKAGE) -> str | None:
    """The first component under the root (``tensortypes.core.dims`` -> ``core``)."""
    if module in FACADE:
        return None
    return module.split(".")[1]


# -- the rules ------------------------------------------------------------------------


def _excepted(module: str, imp: Import, exceptions=EXCEPTIONS) -> bool:
    return any(
        e.module == module
        and imp.function is not None
        and (imp.function == e.function or imp.function.endswith("." + e.function))
        and (
            imp.target == e.target
            or imp.target.startswith(e.target + ".")
            or e.target.startswith(imp.target + ".")
        )
        for e in exceptions
    )


def layer_violations(graph: dict[str, list[Import]], exceptions=EXCEPTIONS) -> list[str]:
    problems = []
    for module, imports in sorted(graph.items()):
        pkg = package_of(module)
        if pkg is None:
            continue
        if pkg not in RANK:
            problems.append(
                f"{module}: package {pkg!r} is not classified in LAYERS "
                f"(tests/test_architecture.py)"
            )
            continue
        reported = set()  # one report per statement and package, not per imported name
        for imp in imports:
            if imp.target != ROOT_PACKAGE and not imp.target.startswith(ROOT_PACKAGE + "."):
                continue
            if imp.target == ROOT_PACKAGE or imp.target in FACADE:
                problems.append(
                    f"{module}:{imp.line}: imports the facade {imp.target} "
                    f"(import the defining module instead)"
                )
                continue
            other = package_of(imp.target)
            if (
                other not in RANK
                or RANK[other] <= RANK[pkg]
                or (imp.line, other) in reported
                or _excepted(module, imp, exceptions)
            ):
                continue
            reported.add((imp.line, other))
            where = f" in {imp.function}()" if imp.function else ""
            relation = (
                "a higher layer"
                if RANK[other][0] > RANK[pkg][0]
                else "a later package of the same layer"
            )
            problems.append(
                f"{module}:{imp.line}{where}: imports {imp.target}, "
                f"{relation} ({pkg} is layer {RANK[pkg][0]}, "
                f"{other} is layer {RANK[other][0]})"
            )
    return problems


def third_party_violations(graph: dict[str, list[Import]]) -> list[str]:
    problems = []
    for module, imports in sorted(graph.items()):
        pkg = package_of(module)
        for imp in imports:
            top = imp.target.split(".")[0]
            if top == ROOT_PACKAGE or top in sys.stdlib_module_names:
                continue
            if pkg in STDLIB_ONLY:
                problems.append(
                    f"{module}:{imp.line}: imports {imp.target}; "
                    f"{pkg} may use the standard library only"
                )
            elif pkg in STDLIB_AND_NUMPY and top != "numpy":
                problems.append(
                    f"{module}:{imp.line}: imports {imp.target}; "
                    f"{pkg} may use the standard library and NumPy only"
                )
            elif top in HEAVY and imp.function is None and not imp.type_checking:
                problems.append(
                    f"{module}:{imp.line}: imports {imp.target} at module level; "
                    f"import it inside the function that needs it"
                )
    return problems


def module_edges(graph: dict[str, list[Import]], exceptions=EXCEPTIONS) -> dict[str, set[str]]:
    """What importing each module executes first, among the modules of ``graph``.

    Importing ``a.b.c`` runs ``a.b``'s ``__init__`` too, unless ``a.b`` contains
    the importer (then it is already being initialised). Imports that never run
    at import time of a cycle (``TYPE_CHECKING``) and excepted lazy imports are
    left out.
    """
    edges: dict[str, set[str]] = {m: set() for m in graph}
    for module, imports in graph.items():
        for imp in imports:
            if imp.type_checking or _excepted(module, imp, exceptions):
                continue
            parts = imp.target.split(".")
            for i in range(1, len(parts) + 1):
                target = ".".join(parts[:i])
                if target in graph and target != module and not module.startswith(target + "."):
                    edges[module].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One concrete cycle per strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            strongconnect(v)
    return [_path_back(component[0], set(component), edges) for component in components]


def _path_back(start: str, members: set[str], edges: dict[str, set[str]]) -> list[str]:
    """The shortest path from ``start`` back to itself inside one component."""
    parents: dict[str, str] = {start: start}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if w not in parents:
                    parents[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"{start} is in a component but has no cycle")  # pragma: no cover


def build_graph(src: Path = SRC, root: str = ROOT_PACKAGE) -> dict[str, list[Import]]:
    modules = discover(src, root)
    known = set(modules)
    return {
        name: imports_of(path.read_text(encoding="utf-8"), name, is_pkg, known)
        for name, (path, is_pkg) in modules.items()
    }


# -- the tests on the real source --------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, list[Import]]:
    return build_graph()


def test_every_module_parses_and_is_found(graph):
    assert f"{ROOT_PACKAGE}.errors" in graph and f"{ROOT_PACKAGE}.core" in graph


def test_no_upward_imports(graph):
    problems = layer_violations(graph)
    assert not problems, "layer rule broken (docs/architecture.md, Layers):\n" + "\n".join(problems)


def test_no_import_cycles(graph):
    found = cycles(module_edges(graph))
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_third_party_imports_by_layer(graph):
    problems = third_party_violations(graph)
    assert not problems, "\n".join(problems)


def test_exceptions_name_an_upward_import_and_a_reason():
    for e in EXCEPTIONS:
        src, dst = package_of(e.module), package_of(e.target)
        assert src in RANK and dst in RANK and RANK[dst] > RANK[src], e
        assert e.reason.strip(), e


# -- the checker itself, on small made-up packages -----------------------------------------


def make_tree(tmp_path: Path, files: dict[str, str]) -> dict[str, list[Import]]:
    src = tmp_path / ROOT_PACKAGE
    for rel, text in {"__init__.py": "", **files}.items():
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(src).parents:
            init = src / parent / "__init__.py"
            if not init.exists():
                init.write_text("", encoding="utf-8")
        path.write_text(text, encoding="utf-8")
    return build_graph(src)


def test_function_level_upward_import_is_caught(tmp_path):
    graph = make_tree(
        tmp_path,
        {
            "core/dims.py": "def f():\n    from tensortypes.tensor import TensorType\n",
            "tensor/__init__.py": "",
        },
    )
    [problem] = layer_violations(graph)
    assert "tensortypes.core.dims:2 in f()" in problem and "a higher layer" in problem


def test_relative_import_of_a_later_package_in_the_same_layer_is_caught(tmp_path):
    graph = make_tree(
        tmp_path,
        {
            "graph/basic.py": "from ..types import arrays\n",
            "types/arrays.py": "from tensortypes.graph import basic\n",
        },
    )
    [problem] = layer_violations(graph)
    assert problem.startswith("tensortypes.graph.basic:1: imports tensortypes.types")
    assert "later package of the same layer" in problem


def test_unclassified_package_fails(tmp_path):
    graph = make_tree(tmp_path, {"plugins/extra.py": "import os\n"})
    assert any("'plugins' is not classified" in p for p in layer_violations(graph))


def test_importing_the_facade_from_inside_is_caught(tmp_path):
    graph = make_tree(tmp_path, {"tensor/type.py": "import tensortypes\n"})
    assert any("imports the facade" in p for p in layer_violations(graph))


def test_cycle_is_reported_with_its_path(tmp_path):
    graph = make_tree(
        tmp_path,
        {
            "core/a.py": "from tensortypes.core import b\n",
            "core/b.py": "def g():\n    from . import a\n",
            "core/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n",
        },
    )
    assert cycles(module_edges(graph)) == [
        ["tensortypes.core.a", "tensortypes.core.b", "tensortypes.core.a"]
    ]


def test_type_checking_import_counts_for_layers_not_for_cycles(tmp_path):
    graph = make_tree(
        tmp_path,
        {
            "core/a.py": "import typing\nif typing.TYPE_CHECKING:\n    from tensortypes.core.b import B\n",
            "core/b.py": "from tensortypes.core.a import A\n",
            "core/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from tensortypes.graph import Type\n",
            "graph/__init__.py": "",
        },
    )
    assert cycles(module_edges(graph)) == []
    assert [p.split(":")[0] for p in layer_violations(graph)] == ["tensortypes.core.c"]


def test_package_ancestors_are_not_edges(tmp_path):
    graph = make_tree(
        tmp_path,
        {
            "core/__init__.py": "from tensortypes.core.dims import parse\n",
            "core/dims.py": "from tensortypes.core import shapes\n",
            "core/shapes.py": "",
            "tensor/type.py": "from tensortypes.graph.basic import Variable\n",
            "graph/basic.py": "",
        },
    )
    edges = module_edges(graph)
    assert edges["tensortypes.core.dims"] == {"tensortypes.core.shapes"}
    assert edges["tensortypes.tensor.type"] == {"tensortypes.graph", "tensortypes.graph.basic"}
    assert cycles(edges) == []


def test_third_party_rules(tmp_path):
    graph = make_tree(
        tmp_path,
        {
            "errors.py": "import numpy\n",
            "core/dims.py": "import numpy as np\nimport re\ndef f():\n    import scipy\n",
            "core/arrays.py": "import importlib\ndef f():\n    importlib.import_module('torch')\n",
            "tensor/type.py": "import torch\ndef f():\n    import jax\n",
        },
    )
    problems = third_party_violations(graph)
    assert len(problems) == 4, problems
    assert (
        "tensortypes.errors:1: imports numpy; errors may use the standard library only" in problems
    )
    assert any(p.startswith("tensortypes.core.dims:4: imports scipy") for p in problems)
    assert any(p.startswith("tensortypes.core.arrays:3: imports torch") for p in problems)
    assert "tensortypes.tensor.type:1: imports torch at module level" in "\n".join(problems)


def test_named_exception_allows_only_its_own_function(tmp_path):
    graph = make_tree(
        tmp_path,
        {
            "graph/clinker.py": "def _load_c_backend():\n    from tensortypes.link import c\n"
            "def other():\n    from tensortypes.link import c\n",
            "link/c.py": "from tensortypes.graph import clinker\n",
        },
    )
    [problem] = layer_violations(graph)
    assert problem.startswith("tensortypes.graph.clinker:4 in other(): imports tensortypes.link")
    assert cycles(module_edges(graph)) == [
        ["tensortypes.graph.clinker", "tensortypes.link.c", "tensortypes.graph.clinker"]
    ]
