"""What the checker knows about one module before walking it (layer 6: ``check``).

A first pass over the syntax tree collects what every later step looks up:

- the imports, as a map from local names to dotted paths (``np`` ->
  ``numpy``, ``F`` -> ``torch.nn.functional``, ``Float`` -> ``jaxtyping.Float``);
- module-level constants (``HIDDEN = 128``) and annotation aliases
  (``Image = Float[Tensor, "c h w"]``);
- the functions (:class:`FunctionInfo`: parameters, annotations, decorators)
  and classes (:class:`ClassInfo`: bases, methods, whether it is an
  ``nn.Module`` or a dataclass, and the instance attribute schema that the
  walker fills from ``__init__``).
"""

from __future__ import annotations

import ast
import builtins

from .annotations import dtype_class

__all__ = ["ModuleInfo", "FunctionInfo", "ClassInfo", "MODULE_ATTRS"]

_BUILTINS = frozenset(dir(builtins))

# Attributes every torch.nn.Module has, so that using them is never an ``attr`` error.
MODULE_ATTRS = frozenset({
    "training", "forward", "parameters", "named_parameters", "buffers", "named_buffers",
    "children", "named_children", "modules", "named_modules", "train", "eval", "to", "cpu",
    "cuda", "double", "float", "half", "bfloat16", "zero_grad", "state_dict",
    "load_state_dict", "register_buffer", "register_parameter", "add_module", "apply",
    "requires_grad_", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_module", "get_submodule", "get_parameter",
    "get_buffer", "extra_repr", "type", "share_memory", "__call__", "__class__", "__dict__",
    "__init__", "_modules", "_parameters", "_buffers", "__repr__", "__str__", "__eq__",
    "__hash__", "__module__", "__doc__", "__name__", "__qualname__", "__setattr__",
    "__getattr__", "__getattribute__", "compile", "set_extra_state", "get_extra_state",
})


class FunctionInfo:
    """One ``def``: its node, parameters with their annotation nodes, and decorators."""

    __slots__ = ("name", "node", "params", "returns", "cls", "decorators", "inferred",
                 "checking", "qualname")

    def __init__(self, node, cls=None):
        self.name = node.name
        self.node = node
        self.cls = cls
        self.qualname = f"{cls.name}.{node.name}" if cls is not None else node.name
        a = node.args
        positional = a.posonlyargs + a.args
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        self.params = [(p.arg, p.annotation, d, "positional") for p, d in
                       zip(positional, defaults)]
        if a.vararg is not None:
            self.params.append((a.vararg.arg, None, None, "star"))
        self.params += [(p.arg, p.annotation, d, "keyword") for p, d in
                        zip(a.kwonlyargs, a.kw_defaults)]
        if a.kwarg is not None:
            self.params.append((a.kwarg.arg, None, None, "starstar"))
        self.returns = node.returns
        self.decorators = [_decorator_name(d) for d in node.decorator_list]
        self.inferred = None   # the return value found by walking the body (memo)
        self.checking = False  # guards recursion while the body is being walked

    @property
    def is_static(self) -> bool:
        return "staticmethod" in self.decorators

    @property
    def is_property(self) -> bool:
        return "property" in self.decorators or "cached_property" in self.decorators


def _decorator_name(node) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


class ClassInfo:
    """One ``class``: bases, methods, and the instance attribute schema.

    ``attrs`` maps attribute names to values (filled by the walker from
    ``__init__``, then joined with assignments found in other methods);
    ``open`` is True when the schema may be incomplete (an unknown base class,
    ``setattr``/``__getattr__``/``__dict__``), so a missing attribute is no error.
    """

    __slots__ = ("name", "node", "bases", "methods", "attrs", "assigned", "is_module",
                 "is_dataclass", "open", "fields", "ready", "class_attrs", "facts")

    def __init__(self, node, module):
        self.name = node.name
        self.node = node
        self.bases = [module.path_of(b) or (b.id if isinstance(b, ast.Name) else "?")
                      for b in node.bases]
        self.methods = {}
        self.attrs: dict = {}
        self.assigned: set = set()
        self.class_attrs: dict = {}
        self.fields: list = []
        self.ready = False
        self.facts: tuple = ()  # divisibility facts __init__ establishes for every method
        decorators = [_decorator_name(d) for d in node.decorator_list]
        self.is_dataclass = "dataclass" in decorators
        self.is_module = any(b in ("torch.nn.Module", "flax.linen.Module", "equinox.Module")
                             for b in self.bases)
        self.open = False
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.methods[stmt.name] = FunctionInfo(stmt, self)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                self.fields.append(stmt)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        self.class_attrs[target.id] = stmt.value
        assigned, is_open = module.class_facts.get(id(node), (set(), False))
        self.assigned |= assigned
        self.open = is_open or "__getattr__" in self.methods or \
            "__getattribute__" in self.methods

    def has_attr(self, name: str, module) -> bool | None:
        """Whether instances have attribute ``name``; None when the schema is open."""
        if self.open:
            return None
        if name in self.methods or name in self.attrs or name in self.assigned \
                or name in self.class_attrs or any(f.target.id == name for f in self.fields):
            return True
        if self.is_module and name in MODULE_ATTRS:
            return True
        if name.startswith("__") and name.endswith("__"):
            return None
        for base in self.bases:
            if base in module.classes:
                found = module.classes[base].has_attr(name, module)
                if found is not False:
                    return found
            elif base not in ("torch.nn.Module", "builtins.object", "object"):
                return None
        return False


class ModuleInfo:
    """Imports, constants, aliases, functions and classes of one module (first pass)."""

    __slots__ = ("aliases", "constants", "annotation_aliases", "functions", "classes",
                 "generators", "class_facts")

    def __init__(self, tree: ast.Module):
        self.aliases: dict = {}
        self.constants: dict = {}
        self.annotation_aliases: dict = {}
        self.functions: dict = {}
        self.classes: dict = {}
        self.generators: set = set()   # ids of the def nodes that contain a yield
        self.class_facts: dict = {}    # id of a class node -> (assigned names, open)
        self._scan(tree)
        for stmt in tree.body:
            self._top(stmt)
        changed = True
        while changed:  # a subclass of a module class is a module class
            changed = False
            for info in self.classes.values():
                if not info.is_module and any(
                        b in self.classes and self.classes[b].is_module for b in info.bases):
                    info.is_module = changed = True

    def _scan(self, tree) -> None:
        """One pass over the whole tree: imports, generators, what classes assign."""
        stack = [(tree, None, None)]
        pop, push = stack.pop, stack.append
        store = ast.Store
        while stack:
            node, func, cls = pop()
            t = type(node)
            if t is ast.Import:
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        head = alias.name.partition(".")[0]
                        self.aliases[head] = head
                continue
            if t is ast.ImportFrom:
                if node.module and node.level == 0:
                    for alias in node.names:
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                continue
            if t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.Lambda:
                func = id(node)
            elif t is ast.ClassDef:
                cls = id(node)
                self.class_facts[cls] = (set(), False)
            elif t is ast.Yield or t is ast.YieldFrom:
                if func is not None:
                    self.generators.add(func)
            elif cls is not None:
                if t is ast.Attribute:
                    if node.attr == "__dict__":
                        self.class_facts[cls] = (self.class_facts[cls][0], True)
                    elif type(node.ctx) is store and type(node.value) is ast.Name and \
                            node.value.id == "self":
                        self.class_facts[cls][0].add(node.attr)
                elif t is ast.Call and type(node.func) is ast.Name and \
                        node.func.id in ("setattr", "vars"):
                    self.class_facts[cls] = (self.class_facts[cls][0], True)
            for child in ast.iter_child_nodes(node):
                push((child, func, cls))

    def _top(self, stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.functions[stmt.name] = FunctionInfo(stmt)
        elif isinstance(stmt, ast.ClassDef):
            self.classes[stmt.name] = ClassInfo(stmt, self)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            name, value = stmt.targets[0].id, stmt.value
            if isinstance(value, ast.Subscript) and self._is_annotation(value):
                self.annotation_aliases[name] = value
            elif isinstance(value, ast.Constant) and type(value.value) is int:
                self.constants[name] = value.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and \
                stmt.value is not None and isinstance(stmt.value, ast.Subscript) and \
                self.path_of(stmt.annotation) in ("typing.TypeAlias",):
            self.annotation_aliases[stmt.target.id] = stmt.value
        elif isinstance(stmt, ast.If):
            for sub in stmt.body + stmt.orelse:
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    continue
                if isinstance(stmt.test, ast.Name) and stmt.test.id == "TYPE_CHECKING":
                    self._top(sub)

    def _is_annotation(self, node: ast.Subscript) -> bool:
        path = self.path_of(node.value)
        if path is None:
            return False
        return dtype_class(path)[0] or path.startswith("typing.")

    def path_of(self, node) -> str | None:
        """The dotted path an expression names through the imports, or None."""
        if isinstance(node, ast.Name):
            found = self.aliases.get(node.id)
            if found is not None:
                return found
            if node.id in _BUILTINS:
                return f"builtins.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self.path_of(node.value)
            return f"{base}.{node.attr}" if base is not None else None
        return None

    def alias_annotation(self, name: str):
        """The annotation node a module-level alias stands for, or None."""
        return self.annotation_aliases.get(name)

