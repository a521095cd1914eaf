"""What the checker knows about one module before walking it (layer 6: ``check``).

A first pass over the syntax tree collects what every later step looks up:

- the imports, as a map from local names to dotted paths (``np`` ->
  ``numpy``, ``F`` -> ``torch.nn.functional``, ``Float`` -> ``jaxtyping.Float``);
- module-level constants (``HIDDEN = 128``) and annotation aliases
  (``Image = Float[Tensor, "c h w"]``);
- the functions and classes (``check.defs``: :class:`~.defs.FunctionInfo`,
  :class:`~.defs.ClassInfo`), and in the same walk over every node what each
  class's methods assign to ``self`` (and where: also by name, through
  ``register_buffer``, ``setattr(self, "x", v)`` or ``object.__setattr__``),
  whether its schema is open (``setattr`` with a computed name, ``__dict__``),
  which attribute names the module sets by name on other objects
  (``net.add_module("head", m)``), and which functions are generators.
"""

from __future__ import annotations

import ast
import builtins

from .annotations import dtype_class
from .defs import ClassFacts, ClassInfo, FunctionInfo, define

__all__ = ["ModuleInfo", "REGISTERS"]

_BUILTINS = frozenset(dir(builtins))

# Nodes with nothing below them that the scan looks for, and each node class's fields
# that can hold nodes (``ctx`` and plain values left out): the scan is the one walk over
# every node of a module, so it avoids ``ast.iter_child_nodes``'s generic generators.
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.alias,
                     ast.Pass, ast.Break, ast.Continue})
_PLAIN_FIELDS = frozenset({"ctx", "id", "attr", "name", "arg", "value_str", "level",
                           "module", "names", "type_comment", "kind", "conversion",
                           "is_async", "lineno", "simple", "op"})
_CHILD_FIELDS: dict = {}


def _child_fields(t) -> tuple:
    found = tuple(f for f in t._fields if f not in _PLAIN_FIELDS)
    _CHILD_FIELDS[t] = found
    return found


REGISTERS = frozenset({"register_buffer", "register_parameter", "add_module",
                       "register_module"})


def _registered_name(call: ast.Call) -> str | None:
    """``"mask"`` for ``self.register_buffer("mask", ...)`` (an attribute made by a call)."""
    found = _set_by_call(call)
    return found[1] if found is not None and found[0] == "self" else None


def _set_by_call(call: ast.Call) -> tuple | None:
    """``(owner, name)`` of an attribute a call sets by name, or None.

    ``owner.register_buffer("name", ...)`` (and ``add_module``, ``register_module``,
    ``register_parameter``), ``setattr(owner, "name", v)`` and
    ``object.__setattr__(owner, "name", v)`` (a frozen class's or ``__slots__``
    class's constructor); ``owner`` is the receiver's name when it is a plain name
    (``"self"``), else ``""``.
    """
    func, args = call.func, call.args
    if type(func) is ast.Attribute and func.attr in REGISTERS:
        owner, name_node = func.value, args[0] if args else None
    elif (type(func) is ast.Name and func.id == "setattr") or (
            type(func) is ast.Attribute and func.attr == "__setattr__" and
            type(func.value) is ast.Name and func.value.id == "object"):
        if len(args) < 2:
            return None
        owner, name_node = args[0], args[1]
    else:
        return None
    if type(name_node) is not ast.Constant or type(name_node.value) is not str:
        return None
    return (owner.id if type(owner) is ast.Name else "", name_node.value)


class ModuleInfo:
    """Imports, constants, aliases, functions and classes of one module (first pass)."""

    __slots__ = ("aliases", "constants", "annotation_aliases", "functions", "classes",
                 "generators", "class_facts", "by_type", "shadowed", "set_by_name")

    def __init__(self, tree: ast.Module):
        self.aliases: dict = {}
        self.constants: dict = {}
        self.annotation_aliases: dict = {}
        self.functions: dict = {}
        self.classes: dict = {}
        self.generators: set = set()   # ids of the def nodes that contain a yield
        self.class_facts: dict = {}    # id of a class node -> its ClassFacts
        self.by_type: dict = {}        # types.ClassType of a checked class -> its ClassInfo
        self.shadowed: set = set()     # builtins the module rebinds (``map = safe_map``)
        # Attribute names set by name on some object other than ``self`` anywhere in the
        # module (``net.add_module("head", m)``, ``setattr(cfg, "lr", 0.1)``): any
        # instance may have them, since the walker cannot tell which class ``net`` is.
        self.set_by_name: set = set()
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
        """One pass over the whole tree: imports, generators, what classes assign.

        Each stack entry carries the enclosing function (for ``yield``), class (for
        ``self.x = ...``) and method name (an attribute assigned outside
        ``__init__`` is *mutated*: other methods may see another value).
        """
        stack = [(tree, None, None, None)]
        pop, push = stack.pop, stack.append
        store = ast.Store
        facts = self.class_facts
        while stack:
            node, func, cls, method = pop()
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
                if cls is not None and method is None and t is not ast.Lambda:
                    method = node.name
            elif t is ast.ClassDef:
                cls, method = id(node), None
                facts[cls] = ClassFacts()
            elif t is ast.Yield or t is ast.YieldFrom:
                if func is not None:
                    self.generators.add(func)
            elif t is ast.Call:
                found = _set_by_call(node)
                if found is not None and found[0] == "self" and cls is not None:
                    facts[cls].note(found[1], method)
                elif found is not None:
                    self.set_by_name.add(found[1])
                elif cls is not None and type(node.func) is ast.Name and \
                        node.func.id in ("setattr", "vars"):
                    facts[cls].open = True  # a name the scan cannot read
            elif cls is not None and t is ast.Attribute:
                if node.attr == "__dict__":
                    facts[cls].open = True
                elif type(node.ctx) is store and type(node.value) is ast.Name and \
                        node.value.id == "self":
                    facts[cls].note(node.attr, method)
            for name in _CHILD_FIELDS.get(t) or _child_fields(t):
                value = getattr(node, name, None)
                if type(value) is list:
                    for child in value:
                        if type(child) not in _LEAVES and isinstance(child, ast.AST):
                            push((child, func, cls, method))
                elif type(value) not in _LEAVES and isinstance(value, ast.AST):
                    push((value, func, cls, method))

    def _top(self, stmt) -> None:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                self.shadowed.update(n.id for n in ast.walk(target)
                                     if isinstance(n, ast.Name) and n.id in _BUILTINS)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            define(self.functions, FunctionInfo(stmt))
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
            if node.id in _BUILTINS and node.id not in self.shadowed:
                return f"builtins.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self.path_of(node.value)
            return f"{base}.{node.attr}" if base is not None else None
        return None

    def alias_annotation(self, name: str):
        """The annotation node a module-level alias stands for, or None."""
        return self.annotation_aliases.get(name)

