"""Functions and classes of a checked module, as the walker sees them (layer 6: ``check``).

- :class:`FunctionInfo`: one ``def``: parameters with their annotation nodes,
  decorators (whether a call keeps the signature and the result as written:
  ``@torch.no_grad()`` does, ``@dispatch`` and ``@overload`` do not), and the
  memo of the value its body returns;
- :class:`ClassInfo`: one ``class``: bases, methods, dataclass fields, and the
  instance attribute schema the walker fills from ``__init__``; whether an
  attribute exists (``attr`` errors) and a dataclass's ``__init__`` parameters.

``ModuleInfo`` (``check.modinfo``) builds them in its first pass.
"""

from __future__ import annotations

import ast
import re

__all__ = [
    "setup_calls",
    "FunctionInfo",
    "ClassInfo",
    "ClassFacts",
    "MODULE_ATTRS",
    "SIGNATURE_KEEPING",
    "RESULT_CHANGING",
    "define",
    "decorator_name",
    "inlinable",
    "anonymous_result",
    "implied_axes",
    "without_implied_axes",
    "shape_of",
    "wrapper_return",
]

# Attributes every torch.nn.Module has, so that using them is never an ``attr`` error.
MODULE_ATTRS = frozenset(
    {
        "training",
        "forward",
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "children",
        "named_children",
        "modules",
        "named_modules",
        "train",
        "eval",
        "to",
        "cpu",
        "cuda",
        "double",
        "float",
        "half",
        "bfloat16",
        "zero_grad",
        "state_dict",
        "load_state_dict",
        "register_buffer",
        "register_parameter",
        "add_module",
        "apply",
        "requires_grad_",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_module",
        "get_submodule",
        "get_parameter",
        "get_buffer",
        "extra_repr",
        "type",
        "share_memory",
        "__call__",
        "__class__",
        "__dict__",
        "__init__",
        "_modules",
        "_parameters",
        "_buffers",
        "__repr__",
        "__str__",
        "__eq__",
        "__hash__",
        "__module__",
        "__doc__",
        "__name__",
        "__qualname__",
        "__setattr__",
        "__getattr__",
        "__getattribute__",
        "compile",
        "set_extra_state",
        "get_extra_state",
        "register_backward_hook",
        "register_full_backward_pre_hook",
        "register_state_dict_hook",
        "register_state_dict_pre_hook",
        "register_load_state_dict_pre_hook",
        "register_load_state_dict_post_hook",
        "_register_state_dict_hook",
        "_register_load_state_dict_pre_hook",
        "_apply",
        "_get_name",
        "_version",
        "_forward_hooks",
        "_forward_pre_hooks",
        "_backward_hooks",
        "_non_persistent_buffers_set",
        "_save_to_state_dict",
        "_load_from_state_dict",
        "_named_members",
        "_call_impl",
        "to_empty",
        "ipu",
        "xpu",
        "mtia",
        "dump_patches",
        "call_super_init",
    }
)


class FunctionInfo:
    """One ``def``: its node, parameters with their annotation nodes, and decorators."""

    __slots__ = (
        "name",
        "node",
        "params",
        "returns",
        "cls",
        "decorators",
        "inferred",
        "checking",
        "qualname",
        "overloaded",
        "overloads",
        "closure",
    )

    def __init__(self, node, cls=None):
        self.name = node.name
        self.node = node
        self.cls = cls
        self.qualname = f"{cls.name}.{node.name}" if cls is not None else node.name
        a = node.args
        positional = a.posonlyargs + a.args
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        self.params = [(p.arg, p.annotation, d, "positional") for p, d in zip(positional, defaults)]
        if a.vararg is not None:
            self.params.append((a.vararg.arg, None, None, "star"))
        self.params += [
            (p.arg, p.annotation, d, "keyword") for p, d in zip(a.kwonlyargs, a.kw_defaults)
        ]
        if a.kwarg is not None:
            self.params.append((a.kwarg.arg, None, None, "starstar"))
        self.returns = node.returns
        self.decorators = [decorator_name(d) for d in node.decorator_list]
        self.inferred = None  # the return value found by walking the body (memo)
        self.checking = False  # guards recursion while the body is being walked
        self.overloaded = False  # @overload variants precede it: its result depends on them
        self.overloads: tuple = ()  # the return annotations of those variants
        # a nested ``def``: (the frame of the walk that defined it, that walk's checker),
        # whose variables a call of it reads (``unpack_one`` returned by ``pack_one``)
        self.closure: tuple | None = None

    @property
    def is_static(self) -> bool:
        return "staticmethod" in self.decorators

    @property
    def is_property(self) -> bool:
        return "property" in self.decorators or "cached_property" in self.decorators

    @property
    def keeps_signature(self) -> bool:
        """Whether every decorator leaves the call signature as written (``@torch.no_grad()``);
        another decorator (``@dispatch``, ``@mock.patch``) may change it."""
        return all(d in SIGNATURE_KEEPING or d in RESULT_CHANGING for d in self.decorators)

    @property
    def keeps_result(self) -> bool:
        """Whether a call gives what the body returns (not ``@contextmanager``'s manager)."""
        return not self.overloaded and not any(d in RESULT_CHANGING for d in self.decorators)


# Library bases that add no attributes an instance's schema would miss.
_PLAIN_BASES = frozenset(
    {
        "torch.nn.Module",
        "builtins.object",
        "object",
        "abc.ABC",
        "typing.Generic",
        "typing_extensions.Generic",
    }
)


class ClassFacts:
    """What the scan learns about one class: attributes assigned, and where."""

    __slots__ = ("assigned", "mutated", "replaced", "open", "declared", "by_method")

    def __init__(self):
        self.assigned: set = set()
        self.mutated: set = set()  # assigned (also) outside __init__
        # assigned outside __init__ other than by an augmented assignment (``self.x =``)
        self.replaced: set = set()
        self.by_method: dict = {}  # method name -> the attributes it assigns
        self.open = False
        # attribute -> annotation node of a ``self.x: T`` in a method (the first one)
        self.declared: dict = {}

    def note(self, name: str, method: str | None, in_place: bool = False) -> None:
        self.assigned.add(name)
        if method != "__init__":
            self.mutated.add(name)
            self.by_method.setdefault(method, set()).add(name)
            if not in_place:
                self.replaced.add(name)


def setup_calls(init) -> list:
    """The methods an ``__init__`` calls on ``self`` as statements of its own body,
    in order (``self.configure(*args, **kwargs)``): they build the instance too."""
    found = []
    for stmt in getattr(init, "body", ()):
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "self"
        ):
            found.append(call.func.attr)
    return found


def _slot_names(node) -> list:
    """The names a ``__slots__`` value lists (a string, or a tuple/list/dict of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    items = (
        node.keys
        if isinstance(node, ast.Dict)
        else node.elts
        if isinstance(node, (ast.Tuple, ast.List, ast.Set))
        else []
    )
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def _names_bound(stmt) -> set:
    """Names a class-body ``if``/``try``/``with`` binds (``if X: def f(self): ...``)."""
    found = set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
    return found


# Decorators that leave a function's parameters as written, and those that keep the
# parameters but change what a call returns.
SIGNATURE_KEEPING = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "cached_property",
        "setter",
        "getter",
        "deleter",
        "abstractmethod",
        "override",
        "final",
        "no_grad",
        "inference_mode",
        "enable_grad",
        "set_grad_enabled",
        "autocast",
        "custom_fwd",
        "custom_bwd",
        "cache",
        "lru_cache",
        "jit",
        "script",
        "ignore",
        "unused",
        "export",
        "overload",
        "wraps",
        "compile",
        "checkpoint",
        "jaxtyped",
        "typechecked",
        "beartype",
        "total_ordering",
        "unique",
        "pytest.mark",
    }
)
RESULT_CHANGING = frozenset(
    {"contextmanager", "asynccontextmanager", "vmap", "grad", "value_and_grad"}
)


def define(table: dict, info: FunctionInfo) -> None:
    """Add a ``def`` to ``table``; the one after ``@overload`` stubs is marked overloaded."""
    before = table.get(info.name)
    if before is not None and "overload" in before.decorators:
        info.overloaded = True
        info.overloads = (*before.overloads, before.returns)
    table[info.name] = info


def wrapper_return(node) -> ast.expr | None:
    """The expression a one-statement function returns (``def und_self(m, p): return
    und(m, m, p)``, a docstring allowed), or None. Such a wrapper's call is
    evaluated with the caller's arguments where its own result is not known
    (``check.signatures``), so its body is part of its module's interface
    (``check.project.interface_hash``)."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    body = node.body
    if (
        len(body) == 2
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


SHORT_BODY = 12  # statements (nested ones counted) of a short function: see short_body


def short_body(node) -> bool:
    """Whether a function is short enough for calls to evaluate its whole body: at
    most ``SHORT_BODY`` statements, counting those nested in ``if``/``with``/``for``
    and the cases of a ``match``, with a ``return``, and no nested class,
    ``lambda``, ``yield``, ``global``, ``nonlocal`` or ``try`` (whose paths the
    evaluation would not follow alike); a nested function only at its top level,
    short itself, without decorators (a closure it may return).

    >>> short_body(ast.parse("def f(x, s):\\n    if s is None:\\n        s = 1\\n    return x * s").body[0])
    True
    """
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    found = getattr(node, "_tt_short_body", None)  # computed once per syntax tree
    if found is None:
        found = _short_body(node)
        setattr(node, "_tt_short_body", found)  # noqa: B010 (an attribute ast does not declare)
    return found


_NOT_SHORT = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.Yield,
    ast.YieldFrom,
    ast.Global,
    ast.Nonlocal,
    ast.Try,
    ast.Await,
)


def _short_body(node, nested: bool = True) -> bool:
    """``short_body`` of ``node``; ``nested``: whether it may define, at its top level,
    a short function of its own without decorators (``def unpack_one(t): ...`` that
    ``pack_one`` returns), itself with none."""
    count, returns = 0, False
    stack = list(node.body)
    inner = []
    while stack:  # the statements first (cheap): at most SHORT_BODY of them
        stmt = stack.pop()
        count += 1
        if (
            nested
            and type(stmt) is ast.FunctionDef
            and stmt in node.body
            and not stmt.decorator_list
            and _short_body(stmt, nested=False)
        ):
            inner.append(stmt)
            continue
        if count > SHORT_BODY or isinstance(stmt, _NOT_SHORT):
            return False
        returns = returns or (isinstance(stmt, ast.Return) and stmt.value is not None)
        for field in ("body", "orelse"):
            stack.extend(getattr(stmt, field, ()))
        for case in getattr(stmt, "cases", ()):  # a ``match``: each case's statements
            stack.extend(case.body)
    return (
        returns
        and not any(
            isinstance(sub, _NOT_SHORT)
            for stmt in node.body
            if stmt not in inner
            for sub in ast.walk(stmt)
        )
        and not any(isinstance(sub, _NOT_SHORT) for a in _defaults(node) for sub in ast.walk(a))
    )


def _defaults(node) -> list:
    """A function's default values and annotations (what ``ast.walk`` of it reaches
    besides its body)."""
    a = node.args
    found = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
    found += [p.annotation for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.annotation]
    return found


def _shape_text(annotation) -> bool:
    """Whether an annotation holds a string (a shape: ``Float[Tensor, "b n"]``, or a
    forward reference), unlike ``Tuple[Tensor, List[int]]``."""
    return any(
        isinstance(sub, ast.Constant) and type(sub.value) is str for sub in ast.walk(annotation)
    )


def inlinable(node) -> bool:
    """Whether calls may evaluate this function's body: a one-statement function
    (:func:`wrapper_return`) or a short one (:func:`short_body`), without a return
    annotation that gives a shape (none, or a bare ``Tensor``; not
    ``Float[Tensor, "n"]``), or one whose result annotation has jaxtyping's
    anonymous ``...`` (:func:`anonymous_result`: the body may tell those axes).
    Its body is then part of its module's interface."""
    returns = getattr(node, "returns", None)
    if isinstance(returns, ast.Subscript) and not anonymous_result(node) and _shape_text(returns):
        return False
    return wrapper_return(node) is not None or short_body(node)


def returns_lambda(node) -> bool:
    """Whether a function returns a lambda (``def get_activation(name): ... return
    lambda x: torch.exp(x)``): a call of its result evaluates that lambda, so its body
    is part of its module's interface. Found once per syntax tree (each call of the
    function asks)."""
    found = getattr(node, "_tt_returns_lambda", None)
    if found is None:
        found = False
        todo = list(getattr(node, "body", ()))
        while todo and not found:
            stmt = todo.pop()
            if type(stmt) is ast.Return and type(stmt.value) is ast.Lambda:
                found = True
            elif type(stmt) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    todo.extend(getattr(stmt, field, ()))
        setattr(node, "_tt_returns_lambda", found)  # noqa: B010 (ast declares no such field)
    return found


def shape_names(*annotations) -> set:
    """The names in the shape strings of annotations (``Float[Tensor, "b n"]``)."""
    found: set = set()
    for node in annotations:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                found.update(_NAME_TOKEN.findall(sub.value))
    return found


_NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def returned_parameter(node) -> str | None:
    """The parameter every ``return`` of a ``def`` gives back as it came in (``def
    zero_module(module): ...; return module``), or None: the name is never assigned in
    the body, nor deleted, and the function yields nothing. Nested functions are not
    looked into (their returns are theirs). Found once per syntax tree (each call of
    the function asks)."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if not hasattr(node, "_tt_returned"):
        setattr(node, "_tt_returned", _returned_parameter(node))  # noqa: B010 (no such field)
    found: str | None = node._tt_returned  # type: ignore[union-attr]
    return found


def _returned_parameter(node) -> str | None:
    a = node.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    found = None
    todo: list[ast.AST] = list(node.body)
    while todo:
        sub = todo.pop()
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(sub, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(sub, ast.Return):
            value = sub.value
            if not isinstance(value, ast.Name) or value.id not in params:
                return None
            if found is not None and found != value.id:
                return None
            found = value.id
        elif isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load) and sub.id in params:
            return None  # assigned (or deleted) in the body: not what came in
        todo.extend(ast.iter_child_nodes(sub))
    return found


def signature_names(info, declared, own=()):
    """How to find the size names of a function's parameter annotations (``info``: its
    FunctionInfo), called when asked (``symbolic.signature_sizes``); None if it has no
    annotated parameter. It gives two sets: those names, and those of the attributes
    the parameters' classes declare (``declared`` gives their annotations for a
    parameter's: ``alive_masks: dict[str, Bool[Tensor, "1 seq C"]]`` of ``alive_info:
    AliveComponentInfo``), and for a method those its own class declares (``own``, a
    function of no argument that gives their annotations), with those of the
    classes they name (``self.alive_info.alive_masks``)."""
    annotations = [ann for _, ann, _, _ in info.params if ann is not None]
    if not annotations and not own:
        return None

    def names():
        attrs = [a for ann in annotations for a in declared(ann)]
        if own:
            mine = own()
            attrs += [*mine, *(a for ann in mine for a in declared(ann))]
        return shape_names(*annotations), shape_names(*attrs)

    return names


def free_names(node) -> frozenset:
    """The names a ``def`` reads that are not its parameters (those it may take from
    an enclosing function).

    >>> sorted(free_names(ast.parse("def f(x):\\n    return x + ps").body[0]))
    ['ps']
    """
    a = node.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p}
    return frozenset(
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in params
    )


def int_params(node) -> frozenset:
    """The parameters of a ``def`` without annotation or default that its body uses as
    sizes, and in no other way (``def __init__(self, *, dim): ... nn.Linear(dim,
    dim * 2)``): given to a layer's size, to ``range``, or in ``+ - * // %`` with an
    int literal; never read as an object (an attribute, an item, a call, an
    iteration, ``len``, ``isinstance``, ``is None``, a helper such as ``exists``, a
    test). Passing it on to another function tells nothing.
    Found once per syntax tree.

    >>> sorted(int_params(ast.parse("def f(self, dim, cfg):\\n    return nn.Linear(dim, cfg.n)").body[0]))
    ['dim']
    """
    found = getattr(node, "_tt_int_params", None)
    if found is None:
        found = _int_params(node)
        setattr(node, "_tt_int_params", found)  # noqa: B010 (an attribute ast does not declare)
    return found


_SIZE_LAYERS = frozenset(
    (
        "Linear",
        "LinearNoBias",
        "Bilinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "Embedding",
        "LayerNorm",
        "RMSNorm",
        "GroupNorm",
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
        "range",
    )
)
_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
# Calls that read a parameter as an object, not a size (passing it on to another
# function tells nothing).
_OBJECT_READERS = frozenset(
    (
        "isinstance",
        "len",
        "exists",
        "default",
        "getattr",
        "hasattr",
        "setattr",
        "iter",
        "next",
        "list",
        "tuple",
        "dict",
        "set",
        "enumerate",
        "zip",
        "sorted",
        "cast",
        "callable",
        "type",
        "vars",
        "str",
        "float",
    )
)


def _int_params(node) -> frozenset:
    a = node.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(pos, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    open_names = {p.arg for p, d in pairs if p.annotation is None and d is None}
    if not open_names:
        return frozenset()
    used, refused = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            for arg in (*n.args, *(kw.value for kw in n.keywords)):
                if isinstance(arg, ast.Name) and arg.id in open_names:
                    if name in _SIZE_LAYERS:
                        used.add(arg.id)
                    elif name in _OBJECT_READERS:
                        refused.add(arg.id)
            if isinstance(f, ast.Name) and f.id in open_names:
                refused.add(f.id)
        elif isinstance(n, ast.BinOp) and isinstance(n.op, _INT_OPS):
            for side, other in ((n.left, n.right), (n.right, n.left)):
                if (
                    isinstance(side, ast.Name)
                    and side.id in open_names
                    and isinstance(other, ast.Constant)
                    and type(other.value) is int
                ):
                    used.add(side.id)
        elif isinstance(n, (ast.Attribute, ast.Subscript, ast.Starred)):
            if isinstance(n.value, ast.Name):
                refused.add(n.value.id)
        elif isinstance(n, (ast.For, ast.comprehension)):
            if isinstance(n.iter, ast.Name):
                refused.add(n.iter.id)
        elif isinstance(n, ast.Compare):
            for side in (n.left, *n.comparators):
                if isinstance(side, ast.Name):
                    if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in n.ops):
                        refused.add(side.id)
        elif isinstance(n, (ast.BoolOp, ast.IfExp, ast.If, ast.While, ast.Assert)):
            tests = n.values if isinstance(n, ast.BoolOp) else [n.test]
            refused.update(t.id for t in tests if isinstance(t, ast.Name))
    return frozenset(used - refused)


def anonymous_result(node) -> bool:
    """Whether a function's return annotation has an array type whose shape string
    holds jaxtyping's anonymous ``...`` (``-> Float[Tensor, "... n 3"]``, also in a
    ``tuple[...]``): axes no argument binds (each ``...`` matches anything)."""
    returns = getattr(node, "returns", None)
    if not isinstance(returns, (ast.Subscript, ast.BinOp)):  # ``A | B`` too
        return False
    return any(
        isinstance(sub, ast.Constant) and type(sub.value) is str and "..." in sub.value.split()
        for sub in ast.walk(returns)
    )


def decorator_name(node) -> str:
    """The name a decorator is known by: its last attribute (``@torch.no_grad()`` is
    ``no_grad``); any ``@pytest.mark.<name>(...)`` is ``pytest.mark`` (it only tags
    the function)."""
    while isinstance(node, ast.Call):
        node = node.func
    inner = node.value if isinstance(node, ast.Attribute) else None
    if (
        isinstance(inner, ast.Attribute)
        and inner.attr == "mark"
        and isinstance(inner.value, ast.Name)
        and inner.value.id == "pytest"
    ):
        return "pytest.mark"
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


class ClassInfo:
    """One ``class``: bases, methods, and the instance attribute schema.

    ``attrs`` maps attribute names to values (filled by the walker from
    ``__init__``, then joined with assignments found in other methods);
    ``open`` is True when the schema may be incomplete (an unknown base class,
    ``setattr``/``__getattr__``/``__dict__``), so a missing attribute is no error.
    ``declared`` maps attributes to the annotation that fixes their type (in the
    class body or as ``self.x: T = ...``); every assignment to them is checked.
    ``mutated`` names the attributes assigned outside ``__init__``: other methods
    know only their kind, not the value ``__init__`` gave them; ``in_place`` those
    of them only ever assigned there by an augmented assignment (``self.counts +=
    x``), which keeps an array's shape (an in-place operation cannot change it).
    """

    __slots__ = (
        "name",
        "node",
        "bases",
        "methods",
        "attrs",
        "assigned",
        "is_module",
        "is_dataclass",
        "is_named_tuple",
        "open",
        "fields",
        "ready",
        "class_attrs",
        "facts",
        "lattice",
        "declared",
        "mutated",
        "in_place",
        "by_method",
        "kw_only",
        "guards",
        "walker",
        "chains",
        "built_by",
        "reassigned",
    )

    def __init__(self, node, module):
        self.name = node.name
        self.node = node
        heads = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
        self.bases = [
            module.path_of(b) or (b.id if isinstance(b, ast.Name) else "?") for b in heads
        ]
        self.methods = {}
        self.attrs: dict = {}
        self.assigned: set = set()
        self.class_attrs: dict = {}
        self.fields: list = []
        self.ready = False
        self.facts: tuple = ()  # divisibility facts __init__ establishes for every method
        self.lattice = None  # its types.ClassType (check.typelang.class_type)
        self.declared: dict = {}  # attribute -> annotation node (class body, self.x: T = ...)
        # attribute -> {(flag attribute, truth)}: __init__ leaves it not None whenever the
        # flag attribute has that truthiness (``self.bias = b if use_bias else None``).
        self.guards: dict = {}
        # The checker of the module that defines the class, when another module uses it
        # (``check.infer.Checker.foreign_class``); None for the checked module's own.
        self.walker = None
        # ``a.b`` of the ``self.a.b`` chains that __init__ leaves not None
        self.chains: set = set()
        # the methods besides ``__init__`` walked as part of the construction
        # (``configure``, a mixin's ``setup``), and what other methods may see of an
        # array attribute they assign again (``check.schema``), by attribute
        self.built_by: frozenset = frozenset()
        self.reassigned: dict = {}
        decorators = [decorator_name(d) for d in node.decorator_list]
        # a named tuple's class body declares its fields, and its constructor takes
        # them as a dataclass's does (positionally, in order, or by name)
        self.is_named_tuple = "typing.NamedTuple" in self.bases
        self.is_dataclass = "dataclass" in decorators or self.is_named_tuple
        self.kw_only = any(
            isinstance(d, ast.Call)
            and any(
                k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in d.keywords
            )
            for d in node.decorator_list
        )
        self.is_module = any(
            b in ("torch.nn.Module", "flax.linen.Module", "equinox.Module") for b in self.bases
        )
        self.open = False
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                define(self.methods, FunctionInfo(stmt, self))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                self.fields.append(stmt)
                self.declared[stmt.target.id] = stmt.annotation
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        self.class_attrs[target.id] = stmt.value
                        if target.id == "__slots__":  # the instances' attributes
                            self.assigned.update(_slot_names(stmt.value))
            elif isinstance(stmt, ast.ClassDef):
                self.assigned.add(stmt.name)  # a nested class is an attribute too
            elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
                self.assigned.update(_names_bound(stmt))
        scanned = module.class_facts.get(id(node)) or ClassFacts()
        for attr, annotation in scanned.declared.items():
            # ``self.color: Float[Tensor, "3"]`` in a method (``__init__`` or one it
            # calls, before a ``register_buffer``): the class body's own comes first.
            self.declared.setdefault(attr, annotation)
        self.assigned |= scanned.assigned
        self.mutated = scanned.mutated
        self.in_place = scanned.mutated - scanned.replaced
        self.by_method = scanned.by_method
        # A mixin's methods use attributes of the classes it is mixed into.
        self.open = (
            scanned.open
            or "__getattr__" in self.methods
            or "__getattribute__" in self.methods
            or self.name.endswith("Mixin")
        )

    def init_fields(self, module) -> tuple:
        """A dataclass ``__init__``'s parameters: ``(positional names or None, all names)``.

        Fields of checked dataclass bases come first, in their order; a field a
        subclass redefines keeps its place and takes the new definition.
        ``ClassVar`` fields and ``field(init=False)`` are not parameters; after
        ``_: KW_ONLY`` (or with ``kw_only=True``) they are keyword-only. The
        positional order is None when a base the checker does not know may add
        fields.
        """
        table, known = self._field_table(module)
        names = [n for n, (init, _) in table.items() if init]
        positional = [n for n, (init, kw) in table.items() if init and not kw]
        return (positional if known else None), names

    def _field_table(self, module) -> tuple:
        """``({name: (in __init__, keyword-only)}, whether every base is known)``."""
        table: dict = {}
        known = True
        for base in reversed(self.bases):
            local = module.classes.get(base)
            if local is not None and local is not self and local.is_dataclass:
                theirs, their_known = local._field_table(module)
                table.update(theirs)
                known = known and their_known
            elif base not in _PLAIN_BASES and base != "typing.NamedTuple":
                known = False
        keyword_only = self.kw_only
        for f in self.fields:
            ann = f.annotation
            path = module.path_of(ann.value if isinstance(ann, ast.Subscript) else ann) or ""
            if path.endswith(".ClassVar"):
                continue
            if path.endswith(".KW_ONLY"):
                keyword_only = True
                continue
            value = f.value
            init = not (
                isinstance(value, ast.Call)
                and decorator_name(value.func) == "field"
                and any(
                    k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                    for k in value.keywords
                )
            )
            table[f.target.id] = (init, keyword_only)
        return table, known

    def has_attr(self, name: str, module) -> bool | None:
        """Whether instances have attribute ``name``; None when the schema is open.

        The schema is what a constructor makes, so a class with no ``__init__``
        of its own or from a checked base (an abstract base, a namespace filled
        from outside) is open; an attribute that a subclass in the module
        defines may be there too (``self`` may be that subclass).
        """
        found = self._own_attr(name, module)
        if found is not False:
            return found
        if not self.constructed(module) or name in module.set_outside():
            return None  # set from outside by name: net.add_module("head", m)
        for other in module.classes.values():
            if (
                other is not self
                and self.name in other.ancestors(module)
                and other._own_attr(name, module) is not False
            ):
                return None
        return False

    def _own_attr(self, name: str, module) -> bool | None:
        if self.open:
            return None
        if (
            name in self.methods
            or name in self.attrs
            or name in self.assigned
            or name in self.class_attrs
            or name in self.declared
        ):
            return True
        if self.is_module and name in MODULE_ATTRS:
            return True
        if name.startswith("__") and name.endswith("__"):
            return None
        for base in self.bases:
            if base in module.classes and module.classes[base] is not self:
                found = module.classes[base]._own_attr(name, module)
                if found is not False:
                    return found
            elif base not in _PLAIN_BASES:
                return None
        return False

    def constructed(self, module) -> bool:
        """Whether this class or a checked base defines the constructor (or is a dataclass)."""
        if "__init__" in self.methods or self.is_dataclass:
            return True
        return any(
            module.classes[b].constructed(module)
            for b in self.bases
            if b in module.classes and module.classes[b] is not self
        )

    def ancestors(self, module) -> set:
        """The names of this class's checked base classes, transitively."""
        found: set = set()
        todo = [b for b in self.bases if b in module.classes]
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo.extend(b for b in module.classes[name].bases if b in module.classes)
        return found


def implied_axes(node, name: str) -> int:
    """How many leading axes an unannotated parameter ``name`` of function ``node``
    has by its body's own reads, when the body calls ``name.size(...)`` (only a torch
    tensor's ``size`` is called: NumPy's is a number), never unpacks its shape and
    never assigns the name again: the largest ``k + 1`` of ``name.size()[k]``,
    ``name.size(k)`` and ``name.shape[k]``, and the most leading indices of
    ``name[i, j, ...]``; 0 when nothing tells. ``tv_loss(x)`` reading ``x.size()[3]``
    and ``x[:, :, 1:, :]`` has four. The body is read once for all its names."""
    found = getattr(node, "_tt_implied", None)
    if found is None:
        found = _implied_axes(node)
        setattr(node, "_tt_implied", found)  # noqa: B010 (an attribute ast does not declare)
    return found.get(name, 0)


def without_implied_axes(defs) -> None:
    """Record that the functions ``defs`` imply no axes (:func:`implied_axes`), for a
    module that never reads an attribute ``size``: their bodies are not walked."""
    for node in defs:
        setattr(node, "_tt_implied", {})  # noqa: B010 (an attribute ast does not declare)


def _size_of(node) -> str | None:
    """``n`` of ``n.size(...)``, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "size"
        and isinstance(node.func.value, ast.Name)
    ):
        return node.func.value.id
    return None


def shape_of(node) -> str | None:
    """``n`` of ``n.shape`` or ``n.size()``, else None."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return _size_of(node)
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "shape"
        and isinstance(node.value, ast.Name)
    ):
        return node.value.id
    return None


def _axis_index(node) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value < 16:
        return node.value
    return None


def _implied_axes(node) -> dict:
    torch: set = set()
    unpacked: set = set()
    axes: dict = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and (name := _size_of(sub)) is not None:
            torch.add(name)
            if sub.args and (k := _axis_index(sub.args[0])) is not None:
                axes[name] = max(axes.get(name, 0), k + 1)
        elif isinstance(sub, ast.Assign):
            if any(isinstance(t, (ast.Tuple, ast.List)) for t in sub.targets):
                if (name := shape_of(sub.value)) is not None:
                    unpacked.add(name)  # the unpacking tells its exact axes
        elif isinstance(sub, ast.Subscript):
            if (name := shape_of(sub.value)) is not None:
                if (k := _axis_index(sub.slice)) is not None:
                    axes[name] = max(axes.get(name, 0), k + 1)
            elif isinstance(sub.value, ast.Name):
                items = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
                if all(isinstance(i, ast.Slice) or _axis_index(i) is not None for i in items):
                    name = sub.value.id
                    axes[name] = max(axes.get(name, 0), len(items))
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            unpacked.add(sub.id)  # assigned again: its reads may be of another value
        elif (
            isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and sub is not node
        ):
            # a nested function's parameter of the same name is another value
            unpacked.update(a.arg for a in sub.args.args + sub.args.kwonlyargs)
    return {n: k for n, k in axes.items() if n in torch and n not in unpacked and k <= 8}
