"""``install_import_hook``: check every function of some packages (layer 6: runtime).

Modules whose names start with one of the given prefixes are compiled from a
rewritten syntax tree: every function or method with an annotation gets, as its
innermost decorator, our checker (``typechecked``) or ``jaxtyped(typechecker=...)``
with the checker the hook was given (a callable or a dotted name such as
``"beartype.beartype"``); every class gets, as its outermost decorator, the
dataclass field check (a no-op for other classes). A function or class marked
``@no_type_check`` (``typing.no_type_check``) is left alone, and so are
``@overload`` stubs.

Rewritten modules are compiled afresh at each import and never cached as
bytecode, so their ``.pyc`` files stay those of the unchecked code.

The same rewriting serves the IPython extension: ``%load_ext tensortypes``
(``load_ipython_extension``) adds it to the shell's AST transformers, so every
annotated function and dataclass a cell defines is checked; the line magic
``%tensortypes.typechecker NAME`` (also spelled ``%jaxtyping.typechecker``)
switches to another checker or back (``None``). IPython itself is not
imported: the shell passed in provides everything.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.machinery
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.util import decode_source
from typing import Any

from tensortypes.runtime.decorators import hook_checked, jaxtyped, resolve_checker, typechecked

__all__ = [
    "install_import_hook",
    "ImportHookManager",
    "CheckTransformer",
    "hook_decorator",
    "class_decorator",
    "load_ipython_extension",
    "unload_ipython_extension",
]

_ALIAS = "__tensortypes_hook__"
_CHECKERS: list = []
_SKIP = frozenset({"no_type_check", "overload"})


def hook_decorator(key: int) -> Any:
    """The decorator a rewritten module applies to its functions (``key`` names the
    checker the hook was installed with)."""
    checker = _checker(key)
    if checker is None:
        return hook_checked
    return jaxtyped(typechecker=checker)


def _checker(key: int) -> Any:
    """The checker registered under ``key``, a string resolved (once) on first use."""
    checker = _CHECKERS[key]
    if isinstance(checker, str):
        checker = _CHECKERS[key] = resolve_checker(checker)
        if checker is None:  # our own, named by its dotted name
            return None
    return checker


def class_decorator(key: int) -> Any:
    """The decorator a rewritten module applies to its classes: dataclass fields."""

    def decorate(cls: type) -> type:
        if not dataclasses.is_dataclass(cls):
            return cls
        checker = _checker(key)
        if checker is None:
            return typechecked(cls)
        return jaxtyped(cls, typechecker=checker)

    return decorate


def _register(typechecker: Any) -> int:
    if isinstance(typechecker, tuple):  # jaxtyping's old ("module", "name") spelling
        typechecker = ".".join(typechecker)
    if typechecker is not None and not isinstance(typechecker, str) and not callable(typechecker):
        raise TypeError(
            f"typechecker must be None, a dotted name such as 'beartype.beartype' "
            f"or a decorator; got {typechecker!r}"
        )
    _CHECKERS.append(typechecker)
    return len(_CHECKERS) - 1


def _skipped(decorators: list) -> bool:
    for d in decorators:
        target = d.func if isinstance(d, ast.Call) else d
        name = (
            target.attr
            if isinstance(target, ast.Attribute)
            else target.id
            if isinstance(target, ast.Name)
            else None
        )
        if name in _SKIP:
            return True
    return False


def _annotated(node: Any) -> bool:
    a = node.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
    return node.returns is not None or any(
        p is not None and p.annotation is not None for p in params
    )


def _hook_call(function: str, key: int) -> ast.expr:
    target = ast.Attribute(ast.Name(_ALIAS, ast.Load()), function, ast.Load())
    return ast.Call(target, [ast.Constant(key)], [])


class CheckTransformer(ast.NodeTransformer):
    """Adds the checker's decorators to the functions and classes of a module (or cell)."""

    def __init__(self, key: int):
        self.key = key

    def visit_Module(self, node: ast.Module) -> ast.Module:  # noqa: N802 (ast's naming)
        index = 0
        for index, child in enumerate(node.body):  # noqa: B007 (the index is the point)
            is_future = isinstance(child, ast.ImportFrom) and child.module == "__future__"
            is_doc = (
                index == 0
                and isinstance(child, ast.Expr)
                and isinstance(child.value, ast.Constant)
                and isinstance(child.value.value, str)
            )
            if not (is_future or is_doc):
                break
        else:
            index = len(node.body)
        self.generic_visit(node)
        node.body.insert(index, ast.Import([ast.alias("tensortypes.runtime.import_hook", _ALIAS)]))
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:  # noqa: N802
        if _skipped(node.decorator_list):
            return node
        self.generic_visit(node)
        node.decorator_list.insert(0, _hook_call("class_decorator", self.key))
        return node

    def _function(self, node: Any) -> Any:
        if _skipped(node.decorator_list):
            return node
        self.generic_visit(node)
        if _annotated(node):
            # Innermost, so that property/classmethod/functools.wraps see the checked one.
            node.decorator_list.append(_hook_call("hook_decorator", self.key))
        return node

    visit_FunctionDef = _function  # noqa: N815
    visit_AsyncFunctionDef = _function  # noqa: N815


class _Loader(importlib.machinery.SourceFileLoader):
    """Compiles from the rewritten tree, never from (or into) cached bytecode."""

    def __init__(self, fullname: str, path: str, key: int):
        super().__init__(fullname, path)
        self.key = key

    def get_code(self, fullname: str) -> Any:
        source = self.get_data(self.path)
        return self.source_to_code(source, self.path)

    def source_to_code(self, data: Any, path: Any, *, _optimize: int = -1) -> Any:
        tree = ast.parse(decode_source(data) if isinstance(data, bytes) else data, path)
        tree = ast.fix_missing_locations(CheckTransformer(self.key).visit(tree))
        return compile(tree, path, "exec", dont_inherit=True, optimize=_optimize)


class _Finder(MetaPathFinder):
    def __init__(self, prefixes: tuple, key: int):
        self.prefixes = prefixes
        self.key = key

    def wants(self, fullname: str) -> bool:
        return any(fullname == p or fullname.startswith(p + ".") for p in self.prefixes)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not self.wants(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or type(spec.loader) is not importlib.machinery.SourceFileLoader:
            return None
        spec.loader = _Loader(fullname, spec.loader.path, self.key)
        return spec


class ImportHookManager:
    """What ``install_import_hook`` returns: ``.uninstall()``, or use it with ``with``."""

    __slots__ = ("hook",)

    def __init__(self, hook: _Finder):
        self.hook = hook

    def __enter__(self) -> ImportHookManager:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.uninstall()

    def uninstall(self) -> None:
        """Stop instrumenting; modules already imported stay checked."""
        try:
            sys.meta_path.remove(self.hook)
        except ValueError:
            pass


def install_import_hook(modules: str | Sequence[str], typechecker: Any = None) -> ImportHookManager:
    """Check every annotated function of the modules named (and their submodules)
    imported from now on.

    ``typechecker``: None for this package's checker, or another checker as a
    callable or a dotted name (``"beartype.beartype"``), run inside our scopes.

    >>> with install_import_hook("my_package"):
    ...     pass  # import my_package here
    """
    if isinstance(modules, str):
        modules = [modules]
    prefixes = tuple(modules)
    for name in prefixes:
        if not isinstance(name, str) or not all(p.isidentifier() for p in name.split(".")):
            raise ValueError(
                f"install_import_hook takes module names such as 'pkg.sub', got {name!r}"
            )
    hook = _Finder(prefixes, _register(typechecker))
    sys.meta_path.insert(0, hook)
    return ImportHookManager(hook)


# -- IPython --------------------------------------------------------------------------


def _install(shell: Any, typechecker: Any) -> None:
    shell.ast_transformers = [
        t for t in shell.ast_transformers if not isinstance(t, CheckTransformer)
    ]
    shell.ast_transformers.append(CheckTransformer(_register(typechecker)))


def load_ipython_extension(ipython: Any) -> None:
    """Called by ``%load_ext tensortypes``: check every cell from now on.

    >>> class Shell:
    ...     ast_transformers = []
    ...     def register_magic_function(self, fn, kind, name): pass
    >>> shell = Shell(); load_ipython_extension(shell); len(shell.ast_transformers)
    1
    """
    if not hasattr(ipython, "ast_transformers"):
        raise TypeError(f"load_ipython_extension takes the IPython shell, got {ipython!r}")

    def choose(line: str) -> None:
        name = line.strip()
        _install(ipython, None if name in ("", "None", "none") else name)

    for name in ("tensortypes.typechecker", "jaxtyping.typechecker"):
        ipython.register_magic_function(choose, "line", name)
    _install(ipython, None)


def unload_ipython_extension(ipython: Any) -> None:
    """Called by ``%unload_ext tensortypes``: stop checking new cells."""
    ipython.ast_transformers = [
        t for t in ipython.ast_transformers if not isinstance(t, CheckTransformer)
    ]
