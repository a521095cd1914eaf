"""What the checker knows about one module before walking it (layer 6: ``check``).

A first pass over the syntax tree collects what every later step looks up:

- the imports, as a map from local names to dotted paths (``np`` ->
  ``numpy``, ``F`` -> ``torch.nn.functional``, ``Float`` -> ``jaxtyping.Float``),
  relative imports and star imports included, and module-level aliases of
  imported names (``Tensor = torch.Tensor``); within a checked project
  (``check.project``) a path through another of its modules is followed to
  where the name comes from;
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
from typing import Any
import builtins

from .annotations import dtype_class
from .defs import (
    SIGNATURE_KEEPING,
    ClassFacts,
    ClassInfo,
    FunctionInfo,
    anonymous_result,
    decorator_name,
    define,
    inlinable,
    returns_lambda,
    without_implied_axes,
)

__all__ = ["ModuleInfo", "REGISTERS"]

_BUILTINS = frozenset(dir(builtins))

# Nodes with nothing below them that the scan looks for, and each node class's fields
# that can hold nodes (``ctx`` and plain values left out): the scan is the one walk over
# every node of a module, so it avoids ``ast.iter_child_nodes``'s generic generators.
_LEAVES = frozenset(
    {
        ast.Name,
        ast.Constant,
        ast.Load,
        ast.Store,
        ast.Del,
        ast.alias,
        ast.Pass,
        ast.Break,
        ast.Continue,
    }
)
_PLAIN_FIELDS = frozenset(
    {
        "ctx",
        "id",
        "attr",
        "name",
        "arg",
        "value_str",
        "level",
        "module",
        "names",
        "type_comment",
        "kind",
        "conversion",
        "is_async",
        "lineno",
        "simple",
        "op",
    }
)
_CHILD_FIELDS: dict = {}


def _child_fields(t) -> tuple:
    found = tuple(f for f in t._fields if f not in _PLAIN_FIELDS)
    _CHILD_FIELDS[t] = found
    return found


REGISTERS = frozenset({"register_buffer", "register_parameter", "add_module", "register_module"})


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
        type(func) is ast.Attribute
        and func.attr == "__setattr__"
        and type(func.value) is ast.Name
        and func.value.id == "object"
    ):
        if len(args) < 2:
            return None
        owner, name_node = args[0], args[1]
    else:
        return None
    if type(name_node) is not ast.Constant or type(name_node.value) is not str:
        return None
    return (owner.id if type(owner) is ast.Name else "", name_node.value)


_TYPEVAR = ("typing.TypeVar", "typing_extensions.TypeVar")
_ENUMS = ("enum.Enum", "enum.IntEnum")


# Builtin classes subscripted in annotations (PEP 585): ``Pair = tuple[Tensor, Tensor]``
_GENERIC_BUILTINS = frozenset(
    f"builtins.{name}" for name in ("tuple", "list", "dict", "set", "frozenset", "type")
)


class ModuleInfo:
    """Imports, constants, aliases, functions and classes of one module (first pass)."""

    __slots__ = (
        "aliases",
        "constants",
        "sequences",
        "annotation_aliases",
        "annotation_factories",
        "keeping",
        "partials",
        "functions",
        "classes",
        "generators",
        "class_facts",
        "by_type",
        "shadowed",
        "set_by_name",
        "declarations",
        "_outside",
        "project",
        "name",
        "package",
        "local",
        "stars",
        "all",
        "defined",
        "imported_modules",
        "unresolved",
        "bodies",
        "_star_names",
        "_imports",
        "typevars",
        "enum_values",
    )

    def __init__(self, tree: ast.Module, project=None, file=None):
        self.project = project  # check.project.Project, or None (one file alone)
        self.name = self.package = self.local = None
        if project is not None and file is not None:
            self.name, self.package, self.local = project.locate(file)
        self.stars: list = []  # modules of ``from m import *``, in order
        self.all: set[str] | None = None  # the names ``__all__`` lists, if it is a literal
        self.defined: set = set()  # names bound at the top level other than by import
        self.imported_modules: list = []  # absolute names of the modules imported
        self.unresolved: list = []  # (line, module) of project imports not found
        self.bodies: list = []  # (first, last) lines of function bodies but __init__'s, wrappers'
        self._star_names: dict = {}
        self._imports: list = []  # the import statements, for ``unresolved``
        self.aliases: dict = {}
        self.constants: dict = {}
        # a list or tuple of literals (or a ``+`` of such and of those before it):
        # name -> (its length, "list" or "tuple", its items' type name or None)
        self.sequences: dict = {}
        self.annotation_aliases: dict = {}
        # ``Float = TorchTyping(Float)`` of a class whose ``__getitem__`` returns
        # ``self.dtype[Tensor, shape]``: name -> (dtype class path, array class path)
        self.annotation_factories: dict = {}
        # top-level names bound to a decorator that keeps a signature, chosen at import
        # time: ``typecheck = jaxtyped(typechecker=beartype) if flag else identity``
        self.keeping: set = set()
        # ``LinearNoBias = partial(nn.Linear, bias=False)``: name -> (path, ((kw, node),))
        self.partials: dict = {}
        # top-level names of ``T = TypeVar("T")``, each with its ``bound=`` (or None)
        self.typevars: dict = {}
        self.enum_values: dict = {}  # "Color.RED" -> 1 of an Enum class's literal members
        self.functions: dict = {}
        self.classes: dict = {}
        self.generators: set = set()  # ids of the def nodes that contain a yield
        self.class_facts: dict = {}  # id of a class node -> its ClassFacts
        self.by_type: dict = {}  # types.ClassType of a checked class -> its ClassInfo
        self.shadowed: set = set()  # builtins the module rebinds (``map = safe_map``)
        # Attribute names set by name on some object other than ``self`` anywhere in the
        # module (``net.add_module("head", m)``, ``setattr(cfg, "lr", 0.1)``): any
        # instance may have them, since the walker cannot tell which class ``net`` is.
        self.set_by_name: set = set()
        # ``self.x: T`` declared in method bodies, shown to importers (the interface)
        self.declarations: list = []
        self._outside: frozenset | None = None  # set_by_name with the imported modules'

        self._scan(tree)
        assigned: dict = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        assigned[target.id] = assigned.get(target.id, 0) + 1
        for stmt in tree.body:
            self._top(stmt, assigned)
        if self.sequences:
            _drop_changed(tree, self.sequences)
        if project is not None:
            self._find_unresolved()
            self._project_decorators(tree)
        changed = True
        while changed:  # a subclass of a module class is a module class
            changed = False
            for info in self.classes.values():
                if not info.is_module and any(
                    b in self.classes and self.classes[b].is_module for b in info.bases
                ):
                    info.is_module = changed = True

    def _scan(self, tree) -> None:
        """One pass over the whole tree: imports, generators, what classes assign.

        Each stack entry carries the enclosing function (for ``yield``), class (for
        ``self.x = ...``) and method name (an attribute assigned outside
        ``__init__`` is *mutated*: other methods may see another value).
        """
        # (node, id of its function, id of its class, name of its method)
        stack: list[tuple[Any, int | None, int | None, str | None]] = [(tree, None, None, None)]
        pop, push = stack.pop, stack.append
        store = ast.Store
        facts = self.class_facts
        methods: dict = {}  # (id of a class, method name) -> the method's body lines
        # id of a function outside classes -> (its first parameter, its body lines)
        helpers: dict = {}
        setters: set = set()  # ids of those that assign attributes of that parameter
        augmented: set = set()  # ids of the targets of augmented assignments
        defs: list = []  # the function definitions
        sized = False  # whether an attribute ``size`` is read anywhere (``x.size()``)
        while stack:
            node, func, cls, method = pop()
            t = type(node)
            if t is ast.Attribute and node.attr == "size":
                sized = True
            if t is ast.AugAssign:
                augmented.add(id(node.target))
            if t is ast.Import:
                self._imports.append(node)
                for alias in node.names:
                    self.imported_modules.append(alias.name)
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        head = alias.name.partition(".")[0]
                        self.aliases[head] = head
                continue
            if t is ast.ImportFrom:
                self._imports.append(node)
                base = self._absolute(node)
                if base is not None:
                    self.imported_modules.append(base)
                    for alias in node.names:
                        if alias.name == "*":
                            if func is None and cls is None:
                                self.stars.append(base)
                            continue
                        self.imported_modules.append(f"{base}.{alias.name}")
                        # ``from beartype.typing import List`` is typing's ``List``
                        where = _TYPING_MIRRORS.get(base, base)
                        self.aliases[alias.asname or alias.name] = f"{where}.{alias.name}"
                continue
            if t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.Lambda:
                func = id(node)
                defs.append(node)
                if (
                    t is not ast.Lambda
                    and node.name != "__init__"
                    and node.body[0].lineno > node.lineno
                    # a wrapper's body is evaluated at calls: part of the interface (of
                    # a method, when its result has a "...": ``signatures.inlined_call``)
                    and not (
                        inlinable(node)
                        and (cls is None or method is not None or anonymous_result(node))
                    )
                    and not returns_lambda(node)
                ):
                    self.bodies.append((node.body[0].lineno, node.end_lineno))
                    if cls is not None and method is None:
                        methods[(cls, node.name)] = self.bodies[-1]
                    elif cls is None and node.args.args:
                        helpers[func] = (node.args.args[0].arg, self.bodies[-1])
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
                elif (
                    cls is not None
                    and type(node.func) is ast.Name
                    and node.func.id in ("setattr", "vars")
                ):
                    facts[cls].open = True  # a name the scan cannot read
            elif (
                t is ast.AnnAssign
                and cls is not None
                and method is not None
                and type(node.target) is ast.Attribute
                and type(node.target.value) is ast.Name
                and node.target.value.id == "self"
            ):
                held = facts[cls].declared.get(node.target.attr)
                if held is None or node.annotation.lineno < held.lineno:
                    # the first in the source (the scan's stack visits later ones first)
                    facts[cls].declared[node.target.attr] = node.annotation
                self.declarations.append(f"{node.target.attr}: {ast.unparse(node.annotation)}")
            elif (
                cls is None
                and t is ast.Attribute
                and func in helpers
                and type(node.ctx) is store
                and type(node.value) is ast.Name
                and node.value.id == helpers[func][0]
            ):
                setters.add(func)
            elif cls is not None and t is ast.Attribute:
                if node.attr == "__dict__":
                    facts[cls].open = True
                elif (
                    type(node.ctx) is store
                    and type(node.value) is ast.Name
                    and node.value.id == "self"
                ):
                    facts[cls].note(node.attr, method, id(node) in augmented)
            for name in _CHILD_FIELDS.get(t) or _child_fields(t):
                value = getattr(node, name, None)
                if type(value) is list:
                    for child in value:
                        if type(child) not in _LEAVES and isinstance(child, ast.AST):
                            push((child, func, cls, method))
                elif type(value) not in _LEAVES and isinstance(value, ast.AST):
                    push((value, func, cls, method))
        # A method that assigns attributes of ``self`` may build the instance (one an
        # ``__init__`` calls, ``schema.build_by_setup``): its body is interface too.
        shown = {
            methods[(c, m)] for c, f in facts.items() for m in f.by_method if (c, m) in methods
        }
        # So may a function that assigns attributes of its first parameter
        # (``_init_weights(self)`` called in a setup method, ``check.calls``).
        shown.update(helpers[f][1] for f in setters)
        if shown:
            self.bodies = [b for b in self.bodies if b not in shown]
        if not sized:
            without_implied_axes(defs)

    def _project_decorators(self, tree) -> None:
        """Mark decorators of the project that return what they are given as keeping it.

        ``def typecheck(f: T) -> T`` (a TypeVar in and out) or a body that is
        ``return f``: ``@typecheck`` then leaves the signature as written, like
        ``@jaxtyped`` (its name is recorded as ``typechecked``).
        """
        infos = list(self.functions.values())
        for cls in self.classes.values():
            infos.extend(cls.methods.values())
        for info in infos:
            for i, (name, node) in enumerate(zip(info.decorators, info.node.decorator_list)):
                if name in SIGNATURE_KEEPING or isinstance(node, ast.Call):
                    continue
                if isinstance(node, ast.Name) and node.id in self.keeping:
                    info.decorators[i] = "typechecked"
                    continue
                path = self.path_of(node)
                if path is not None and self.project.keeps_signature(path, self.local):
                    info.decorators[i] = "typechecked"
                    continue
                found = self.project.function(path, self.local) if path is not None else None
                if found is not None and _returns_its_argument(found[0]):
                    info.decorators[i] = "typechecked"

    def _absolute(self, node: ast.ImportFrom) -> str | None:
        """The absolute module name of ``from <module> import ...`` (relative ones too)."""
        if node.level == 0:
            return node.module
        if self.package is None:
            return None
        parts = self.package.split(".") if self.package else []
        if node.level - 1 > len(parts):
            return None
        parts = parts[: len(parts) - (node.level - 1)]
        if node.module:
            parts.append(node.module)
        return ".".join(parts) or None

    def _find_unresolved(self) -> None:
        """The imports of project modules that lead to no file (``--strict`` names them)."""
        project = self.project
        for stmt in sorted(self._imports, key=lambda n: (n.lineno, n.col_offset)):
            if isinstance(stmt, ast.ImportFrom):
                base = self._absolute(stmt)
                if base is None:
                    self.unresolved.append((stmt.lineno, "." * stmt.level + (stmt.module or "")))
                elif (
                    stmt.level > 0 or project.has_head(base.partition(".")[0], self.local)
                ) and project.find(base, self.local) is None:
                    self.unresolved.append((stmt.lineno, base))
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if (
                        project.has_head(alias.name.partition(".")[0], self.local)
                        and project.find(alias.name, self.local) is None
                    ):
                        self.unresolved.append((stmt.lineno, alias.name))

    def _top(self, stmt, assigned=None) -> None:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                self.shadowed.update(
                    n.id for n in ast.walk(target) if isinstance(n, ast.Name) and n.id in _BUILTINS
                )
                self.defined.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.defined.add(stmt.name)
        self._read_all(stmt)
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and assigned
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, (ast.Name, ast.Attribute))
            and assigned.get(stmt.targets[0].id) == 1
            and stmt.targets[0].id not in self.aliases
        ):
            # ``Tensor = torch.Tensor``: another name for an imported thing
            path = self.path_of(stmt.value)
            if path is not None and not path.startswith("builtins."):
                self.aliases[stmt.targets[0].id] = path
                return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            define(self.functions, FunctionInfo(stmt))
        elif isinstance(stmt, ast.ClassDef):
            self.classes[stmt.name] = ClassInfo(stmt, self)
            if any(self.path_of(b) in _ENUMS for b in stmt.bases):
                for sub in stmt.body:
                    if (
                        isinstance(sub, ast.Assign)
                        and len(sub.targets) == 1
                        and isinstance(sub.targets[0], ast.Name)
                        and isinstance(sub.value, ast.Constant)
                        and type(sub.value.value) in (int, float)
                    ):
                        self.enum_values[f"{stmt.name}.{sub.targets[0].id}"] = sub.value.value
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            name, value = stmt.targets[0].id, stmt.value
            length = _sequence_length(value, self.sequences)
            self.sequences.pop(name, None)  # assigned again: what it held before is gone
            factory = self._factory(value)
            if factory is not None:
                self.annotation_factories[name] = factory
                self.aliases.pop(name, None)  # ``Float`` is rebound: no longer jaxtyping's
            elif isinstance(value, ast.Subscript) and self._is_annotation(value):
                self.annotation_aliases[name] = value
            elif isinstance(value, ast.IfExp) and self._keeps_signature(value):
                self.keeping.add(name)
            elif isinstance(value, ast.Call) and self.path_of(value.func) == "functools.partial":
                found = self._partial(value)
                if found is not None:
                    self.partials[name] = found
            elif isinstance(value, ast.Constant) and type(value.value) is int:
                self.constants[name] = value.value
            elif length is not None:
                self.sequences[name] = length
            elif isinstance(value, ast.Call) and self.path_of(value.func) in _TYPEVAR:
                self.typevars[name] = _typevar_bound(value)
        elif (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.value is not None
            and isinstance(stmt.value, ast.Subscript)
            and self.path_of(stmt.annotation) in ("typing.TypeAlias",)
        ):
            self.annotation_aliases[stmt.target.id] = stmt.value
        elif isinstance(stmt, ast.If):
            for sub in stmt.body + stmt.orelse:
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    continue
                if isinstance(stmt.test, ast.Name) and stmt.test.id == "TYPE_CHECKING":
                    self._top(sub)

    def _factory(self, value) -> tuple | None:
        """``(dtype class path, array class path)`` when ``value`` is ``C(Float)`` of a class
        ``C`` of this module that forwards a subscript: ``__init__(self, d)`` keeps ``d``
        as ``self.a`` and ``__getitem__(self, shape)`` returns ``self.a[Tensor, shape]``.
        Then ``C(Float)["b n"]`` is ``Float[Tensor, "b n"]``."""
        if not (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in self.classes
            and len(value.args) == 1
            and not value.keywords
        ):
            return None
        dtype = self.path_of(value.args[0])
        if dtype is None or not dtype_class(dtype)[0]:
            return None
        methods = {
            n.name: n
            for n in self.classes[value.func.id].node.body
            if isinstance(n, ast.FunctionDef)
        }
        init, item = methods.get("__init__"), methods.get("__getitem__")
        if init is None or item is None:
            return None
        kept = _kept_attribute(init)
        body = [
            b
            for b in item.body
            if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))
        ]
        args = item.args.args
        if kept is None or len(body) != 1 or len(args) != 2 or not isinstance(body[0], ast.Return):
            return None
        got = body[0].value
        if not (
            isinstance(got, ast.Subscript)
            and isinstance(got.value, ast.Attribute)
            and isinstance(got.value.value, ast.Name)
            and got.value.value.id == args[0].arg
            and got.value.attr == kept
            and isinstance(got.slice, ast.Tuple)
            and len(got.slice.elts) == 2
            and isinstance(got.slice.elts[1], ast.Name)
            and got.slice.elts[1].id == args[1].arg
        ):
            return None
        base = self.path_of(got.slice.elts[0])
        if base is None:
            return None
        # its body is part of the module's interface now (the cache's key for importers)
        self.bodies = [b for b in self.bodies if b != (item.body[0].lineno, item.end_lineno)]
        return dtype, base

    def _partial(self, call: ast.Call) -> tuple | None:
        """``(path, ((keyword, constant node), ...))`` of ``partial(f, k=constant, ...)``
        where ``f`` is a library name, or None."""
        if len(call.args) != 1 or any(k.arg is None for k in call.keywords):
            return None
        path = self.path_of(call.args[0])
        if path is None or path.startswith("builtins."):
            return None
        if not all(isinstance(k.value, ast.Constant) for k in call.keywords):
            return None
        return path, tuple((k.arg, k.value) for k in call.keywords)

    def _keeps_signature(self, value, depth: int = 0) -> bool:
        """Whether decorating with ``value`` keeps the signature as written: a call of a
        known keeping decorator (``jaxtyped(typechecker=beartype)``), a function of this
        module that returns its argument (``identity``), or a choice between them."""
        if depth > 8:
            return False
        if isinstance(value, ast.IfExp):
            return self._keeps_signature(value.body, depth + 1) and self._keeps_signature(
                value.orelse, depth + 1
            )
        if isinstance(value, ast.Call):
            return decorator_name(value.func) in SIGNATURE_KEEPING
        if isinstance(value, ast.Name) and value.id in self.functions:
            return _returns_its_argument(self.functions[value.id])
        return isinstance(value, (ast.Name, ast.Attribute)) and (
            decorator_name(value) in SIGNATURE_KEEPING
        )

    def _read_all(self, stmt) -> None:
        """``__all__ = [...]`` (and ``+=``) with literal strings: what ``import *`` takes."""
        value: ast.expr | None
        if isinstance(stmt, ast.Assign):
            targets, value, add = stmt.targets, stmt.value, False
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            targets, value = [stmt.target], stmt.value
            add = isinstance(stmt, ast.AugAssign)
        else:
            return
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return
        names = None
        if isinstance(value, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
        ):
            names = {
                e.value
                for e in value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
        if names is None:
            self.all = None if not add else self.all
            return
        self.all = (self.all | names) if add and self.all is not None else names

    # -- names across modules -------------------------------------------------------------
    def set_outside(self) -> frozenset:
        """Attribute names this module or a project module it imports sets by name.

        ``adapter.setup(bridge)`` in another module may ``bridge.attn.add_module(
        "hook_q", ...)`` or ``object.__setattr__(comp, "vision_model", comp)``: an
        instance used here may then have those attributes. Only the modules
        imported directly count (their names are part of their interface hash).
        """
        found = self._outside
        if found is None:
            names = set(self.set_by_name)
            if self.project is not None:
                for module in self.imported_modules:
                    info = self.project.info(module, self.local)
                    if info is not None and info is not self:
                        names |= info.set_by_name
            found = self._outside = frozenset(names)
        return found

    def exports(self, name: str, depth: int = 0) -> bool:
        """Whether ``from <this module> import *`` binds ``name`` (``__all__`` honoured)."""
        if self.all is not None:
            return name in self.all
        if name.startswith("_"):
            return False
        if name in self.aliases or name in self.defined:
            return True
        return self._star(name, depth) is not None

    def imported_path(self, name: str, depth: int = 0) -> str | None:
        """The canonical path of a top-level ``name`` that this module imports, or None."""
        raw = self.aliases.get(name)
        if raw is not None:
            return (
                self.project.canonical(raw, self.local, depth) if self.project is not None else raw
            )
        if name in self.defined:
            return None
        return self._star(name, depth)

    def _star(self, name: str, depth: int = 0) -> str | None:
        if not self.stars or self.project is None:
            return None
        if name in self._star_names:
            return self._star_names[name]
        found = None
        for module in reversed(self.stars):  # a later star import wins
            found = self.project.star_export(module, name, self.local, depth)
            if found is not None:
                break
        self._star_names[name] = found
        return found

    def _is_annotation(self, node: ast.Subscript) -> bool:
        if isinstance(node.value, ast.Name) and node.value.id in self.annotation_factories:
            return True
        path = self.path_of(node.value)
        if path is None:
            return False
        if self.project is not None and self.project.annotation_factory(path, self.local):
            return True
        return dtype_class(path)[0] or path.startswith("typing.") or path in _GENERIC_BUILTINS

    def path_of(self, node) -> str | None:
        """The dotted path an expression names through the imports, or None."""
        if isinstance(node, ast.Name):
            found = self.aliases.get(node.id)
            if found is not None:
                return (
                    self.project.canonical(found, self.local) if self.project is not None else found
                )
            if self.stars and node.id not in self.defined:
                found = self._star(node.id)
                if found is not None:
                    return found
            if node.id in _BUILTINS and node.id not in self.shadowed:
                return f"builtins.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self.path_of(node.value)
            if base is None:
                return None
            if self.project is not None:
                return self.project.canonical(f"{base}.{node.attr}", self.local)
            return f"{base}.{node.attr}"
        return None

    def alias_annotation(self, name: str):
        """The annotation node a module-level alias stands for, or None."""
        return self.annotation_aliases.get(name)


# Modules that re-export ``typing``'s names (for the annotations read here, the same)
_TYPING_MIRRORS = {"beartype.typing": "typing"}


def _kept_attribute(init) -> str | None:
    """``a`` when ``__init__(self, d)`` assigns ``self.a = d`` (its only other parameter)."""
    args = init.args.args
    if len(args) != 2:
        return None
    for stmt in init.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and isinstance(stmt.targets[0].value, ast.Name)
            and stmt.targets[0].value.id == args[0].arg
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id == args[1].arg
        ):
            return stmt.targets[0].attr
    return None


def _returns_its_argument(info) -> bool:
    """``def f(x: T) -> T`` with the same plain name in and out, or ``return x``."""
    positional = [p for p in info.params if p[3] == "positional"]
    if len(positional) != 1:
        return False
    name, ann = positional[0][0], positional[0][1]
    if (
        isinstance(ann, ast.Name)
        and isinstance(info.returns, ast.Name)
        and ann.id == info.returns.id
    ):
        return True
    body = [
        s
        for s in info.node.body
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return (
        len(body) == 1
        and isinstance(body[0], ast.Return)
        and isinstance(body[0].value, ast.Name)
        and body[0].value.id == name
    )


def _typevar_bound(call: ast.Call):
    """The ``bound=`` of a ``TypeVar(...)`` call as an annotation node (a string bound
    parsed), or None."""
    for keyword in call.keywords:
        if keyword.arg != "bound":
            continue
        value = keyword.value
        if isinstance(value, ast.Constant) and type(value.value) is str:
            if len(value.value) > 200:
                return None
            try:
                return ast.parse(value.value.strip(), mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        return value
    return None


def _drop_changed(tree, sequences: dict) -> None:
    """Forget the sequences the module changes anywhere (``REGISTRY.append(x)``,
    ``NAMES += [...]``, ``NAMES[0] = ...``, ``global NAMES``), and the empty ones (a
    registry filled later): their length is not the literal's."""
    for name in [n for n, found in sequences.items() if found[0] == 0]:
        del sequences[name]
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            if n.attr in _LIST_CHANGERS:
                sequences.pop(n.value.id, None)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            sequences.pop(n.target.id, None)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
            if isinstance(n.value, ast.Name):
                sequences.pop(n.value.id, None)
        elif isinstance(n, ast.Global):
            for name in n.names:
                sequences.pop(name, None)


_LIST_CHANGERS = frozenset(("append", "extend", "insert", "pop", "remove", "clear"))


def _sequence_length(node, known: dict, depth: int = 0):
    """``(length, "list" or "tuple", the items' type name or None)`` of a
    module-level list or tuple of literals, or of a ``+`` of such and of the
    module's sequences before it (``known``), or None.

    >>> _sequence_length(ast.parse("a + ['X', 'Y']", mode="eval").body, {"a": (20, "list", "str")})
    (22, 'list', 'str')
    """
    if depth > 50:
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [e for e in node.elts if isinstance(e, ast.Constant)]
        if len(items) != len(node.elts):
            return None
        kinds = {type(e.value).__name__ for e in items}
        kind = kinds.pop() if len(kinds) == 1 else None
        shape = "list" if isinstance(node, ast.List) else "tuple"
        return (len(node.elts), shape, kind if kind in ("str", "int", "float") else None)
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _sequence_length(node.left, known, depth + 1)
        right = _sequence_length(node.right, known, depth + 1) if left is not None else None
        if left is None or right is None or left[1] != right[1]:
            return None
        kind = left[2] if left[2] == right[2] or not left[0] else right[2] if not right[0] else None
        return (left[0] + right[0], left[1], kind)
    return None
