"""Parameter binding: calls into the checked module's own code (layer 6: ``check``).

:class:`SignatureMixin` is the part of the walker that applies TorchScript's
parameter binding and assignment rules wherever a value meets a declared type:
a call to a function, method or class of the checked module (each argument
against its parameter's annotation), an annotated assignment, a declared
attribute, a return value. :meth:`~SignatureMixin.check_binding` is the one
rule for all of them:

- a value that may be None against a type without None is an ``optional``
  error; None itself is an error of the site's code;
- an array against an array type: dtypes must overlap, and the shape is
  matched symbolically by a :class:`~.binding.Binder` (sizes bind names, from
  the first argument that has them, and must agree afterwards; the result is
  the return annotation under those bindings);
- anything else goes through the lattice: ``types.is_subtype`` of the value's
  type (``check.typelang.type_of``) and the declared type. False is an error;
  None (cannot tell) is not.
"""

from __future__ import annotations

import ast
import os
from contextlib import contextmanager

from tensortypes.core.words import annotation_text
from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.types import ANY, INT, NONE as NONE_TYPE
from tensortypes.types import ArrayType, OptionalType, TupleType, UnionType

from .host import CheckerHost
from .annvalues import array_member, array_value
from .binding import Binder, dtype_problem
from .defs import (
    RESULT_CHANGING,
    anonymous_result,
    free_names,
    inlinable,
    returned_parameter,
    returns_lambda,
    shape_names,
    signature_names,
    wrapper_return,
)
from .diagnostics import CheckFailure
from .expr import read_keys
from .frame import Frame
from .notes import ShapeNote
from .joins import arrays_union, join_all, strip_none
from .rules.base import Call
from .rules.layers import validate_layer
from .rules.patterns import pattern_helper
from .sizes import size_symbol
from .symbolic import (
    failed_origin,
    inputs,
    UNKNOWN,
    Arr,
    BoolV,
    FloatV,
    InstV,
    IntV,
    LayerV,
    FuncV,
    ListV,
    ShapeV,
    NoneV,
    Rest,
    StrV,
    TupleV,
    UnionV,
    Unknown,
    fmt_dtypes,
    fmt_shape,
    is_data_size,
    call_count,
    pattern_names,
    short_dtypes,
    CallablesV,
    LambdaV,
)
from .typelang import allows_none, describe, fits

__all__ = ["SignatureMixin", "subst_value"]


_INLINE_DEPTH = 3  # wrappers of wrappers evaluated at a call, at most
# callee bodies one outermost call may walk, and calls in them, nested ones included
_INLINE_BUDGET = 256


def _kinds_agree(found, declared) -> bool:
    """Whether an inferred array is of the library (and dtypes) an annotation declares."""
    if declared.kind is not None and found.kind is not None and declared.kind != found.kind:
        return False
    return declared.dtypes is None or found.dtypes is None or bool(declared.dtypes & found.dtypes)


def _shapeless(value) -> bool:
    """Unknown, or an array of unknown shape (``-> Tensor``)."""
    return type(value) is Unknown or (type(value) is Arr and value.shape is None)


def _open_rank(value) -> bool:
    """An array whose shape has a ``...`` of unknown origin (a helper's own ``...``)."""
    return (
        type(value) is Arr
        and value.shape is not None
        and any(type(d) is Rest and d.name is None for d in value.shape)
    )


def _shaped(value) -> bool:
    """An array of known shape, or a tuple of such arrays (what a body may tell), the
    shapes ``einops.pack`` records beside them too (``return pack([t], pattern)``)."""
    if type(value) is TupleV:
        return (
            bool(value.items)
            and any(type(v) not in (ListV, FuncV) for v in value.items)
            and all(_shaped(v) or _packed_shapes(v) or _closure(v) for v in value.items)
        )
    return type(value) is Arr and value.shape is not None


def _ranks(value):
    """The rank of an array, or the ranks of a tuple's arrays (a list of packed
    shapes, a nested function: itself)."""
    if type(value) is TupleV:
        return tuple(_ranks(v) for v in value.items)
    if type(value) is Arr:
        return value.rank
    return _shapes(value)


def _closure(value) -> bool:
    """A nested function returned beside arrays (``return packed, unpack_one``)."""
    return type(value) is FuncV and value.info.closure is not None


def _packed_shapes(value) -> bool:
    """A list of the shapes ``einops.pack`` records (each a tuple of sizes or a shape)."""
    return (
        type(value) is ListV
        and value.items is not None
        and all(type(v) in (TupleV, ShapeV) for v in value.items)
    )


def _shapes(value) -> tuple:
    """The shape of an array, or the shapes of a tuple's arrays (a list of packed
    shapes stands for itself)."""
    if type(value) is TupleV:
        return tuple(_shapes(v) for v in value.items)
    if type(value) is ListV:
        return (value,)
    if type(value) is FuncV:
        return (value.info.node,)  # a nested function: where it is written
    return value.shape


# What an operation in a callee's body may fail with, relayed to the call: not what a
# declaration says (``assign`` to an annotated local, ``return``, ``arg-type``), which
# jaxtyping does not check inside the body and which a caller does not rely on.
_RELAYED = frozenset(
    ("broadcast", "matmul", "concat", "reshape", "view", "index", "axis", "rank", "layer")
)


def _abstract(info) -> bool:
    """Whether method ``info`` is left to subclasses: ``@abstractmethod``, or a body of
    only a docstring and ``raise NotImplementedError`` (or ``pass``, ``...``)."""
    if "abstractmethod" in info.decorators:
        return True
    body = info.node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1:
        return not body
    stmt = body[0]
    if isinstance(stmt, ast.Pass) or (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and stmt.value.value is Ellipsis
    ):
        return True
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def _bound_method(info, self_value) -> bool:
    """Whether a method is called on an instance of its class (``self`` bound to
    ``self_value``), not as a static or class method."""
    return (
        type(self_value) is InstV
        and not info.is_static
        and "classmethod" not in info.decorators
        and bool(info.params)
        and info.params[0][3] == "positional"
    )


def _given_arguments(info, args, kwargs, self_value=None) -> bool:
    """Whether a call gives ``info`` arguments. Its body then runs with them, whether a
    parameter given an array is annotated with a shape (``Float[Tensor, "... bins"]``),
    with none (``value: Tensor``: ``masked_mean(mask, value, dim)`` expands ``mask``
    to ``value.shape``) or not at all: what fails there for these arguments fails at
    the call."""
    positional = [p for p in info.params if p[3] == "positional"]
    if info.cls is not None and self_value is not None:
        positional = positional[1:]  # ``self``
    return bool(args[: len(positional)]) or any(p[0] in kwargs for p in info.params)


def _literal_default(node) -> bool:
    """Whether a parameter's default is a literal: ``None``, ``1e-20``, ``-1``, ``(0, 0)``."""
    if node is None:
        return False
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _shown(path: str) -> str:
    """A file's path as a message shows it: relative to the working directory when
    inside it."""
    if os.path.isabs(path):
        try:
            inside = os.path.relpath(path)
        except ValueError:  # another drive
            return path
        return path if inside.startswith("..") else inside
    return path


_BRANCHING = (
    ast.IfExp,
    ast.BoolOp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Lambda,
)


def straight_body(info, args=(), kwargs=None, self_value=None) -> list | None:
    """The statements a call of ``info`` runs, when they are a straight run (each runs,
    in order, until one fails or returns: simple statements only, no loop, ``try`` or
    ``with``, and no expression that runs a part only sometimes, ``a if c else b``,
    ``and``, a comprehension) once each ``if`` whose test only reads flags the call
    fixes is replaced by the branch it takes: ``plddt(..., per_residue=False)`` runs
    ``expectations = ...; return masked_mean(...)``. A flag is a parameter given (or
    defaulting to) ``True``, ``False`` or ``None``, or an array for an ``is None``
    test, that the body never assigns. None when the body is not such a run."""
    node = info.node
    positional = [p for p in info.params if p[3] == "positional"]
    if info.cls is not None and self_value is not None:
        positional = positional[1:]
    given = {p[0]: v for p, v in zip(positional, args)}
    given.update(kwargs or {})
    flags: dict = {}
    for name, _ann, default, _kind in info.params:
        value = given.get(name)
        if value is None and name not in given and isinstance(default, ast.Constant):
            if default.value is None or type(default.value) is bool:
                flags[name] = default.value
            continue
        if type(value) is BoolV and value.value is not None:
            flags[name] = value.value
        elif type(value) is NoneV:
            flags[name] = None
        elif type(value) in (Arr, IntV, FloatV, StrV, TupleV):
            # not None, for ``is None`` tests only (``pad_to_length=8``)
            flags[name] = _GIVEN
    stored = _stored_names(node)
    body = getattr(node, "body", ())
    guarded = frozenset(n for n in stored.intersection(flags) if _guard_only(body, n))
    for name in stored.intersection(flags) - guarded:
        del flags[name]
    free = (
        frozenset(
            name
            for name, ann, default, _kind in info.params
            if name not in flags
            and (
                (isinstance(ann, ast.Name) and ann.id == "bool")
                or (isinstance(default, ast.Constant) and type(default.value) is bool)
            )
        )
        - stored
    )
    return _straight_run(body, flags, free, guarded)


def _guard_only(body, name: str) -> bool:
    """Whether the function assigns parameter ``name`` only in one ``if`` of its body
    that tests it (``if not exists(max_len): max_len = lens.amax()``, ``if mask is
    None: mask = ...``): its value at that test is the call's, and the branch taken
    is known; after it, it is not a flag."""
    seen = False
    for stmt in body:
        if not any(
            isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store)
            for sub in ast.walk(stmt)
        ):
            continue
        if seen or not isinstance(stmt, ast.If) or _flag_test(stmt.test, {name: None}) is None:
            return False
        seen = True
    return seen


def _stored_names(node) -> frozenset:
    """The names a function assigns anywhere; found once per syntax tree."""
    found = getattr(node, "_tt_stored", None)
    if found is None:
        found = frozenset(
            sub.id
            for sub in ast.walk(node)
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store)
        )
        setattr(node, "_tt_stored", found)  # noqa: B010 (an attribute ast does not declare)
    return found


_GIVEN = object()  # a flag for an array argument: ``is None`` is False, truth unknown


def _straight_run(
    body, flags: dict, free: frozenset = frozenset(), guarded: frozenset = frozenset()
) -> list | None:
    out: list = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            taken = _flag_test(stmt.test, flags)
            for name in guarded.intersection(flags):
                if _flag_test(stmt.test, {name: None}) is not None:
                    del flags[name]  # assigned in this ``if``: no flag after it
            if taken is None:
                # ``if velocity_to_epsilon:`` of a ``bool`` the call gives but does not
                # fix: either branch may run, each a straight run, walked both
                either = _free_test(stmt.test, free)
                body_run = _straight_run(stmt.body, flags, free)
                else_run = _straight_run(stmt.orelse, flags, free)
                if not either or body_run is None or else_run is None:
                    return None
                both = ast.If(test=stmt.test, body=body_run or [ast.Pass()], orelse=else_run)
                out.append(ast.copy_location(both, stmt))
                continue
            run = _straight_run(stmt.body if taken else stmt.orelse, flags, free)
            if run is None:
                return None
            out.extend(run)
            if run and isinstance(run[-1], ast.Return):
                return out
            continue
        if not isinstance(
            stmt,
            (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr, ast.Pass, ast.Assert),
        ):
            return None
        if any(isinstance(sub, _BRANCHING) for sub in ast.walk(stmt)):
            return None
        out.append(stmt)
        if isinstance(stmt, ast.Return):
            return out
    return out


def _free_test(test, free: frozenset) -> bool:
    """Whether an ``if`` test reads only a ``bool`` parameter the call leaves open
    (``flag``, ``not flag``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Name) and test.id in free


def _flag_test(test, flags: dict) -> bool | None:
    """The value of an ``if`` test that reads only flags (``per_residue``, ``not
    flag``, ``mask is None``), or None."""
    if isinstance(test, ast.Name) and test.id in flags:
        return None if flags[test.id] is _GIVEN else bool(flags[test.id])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _flag_test(test.operand, flags)
        return None if inner is None else not inner
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "exists"
        and len(test.args) == 1
        and not test.keywords
        and isinstance(test.args[0], ast.Name)
        and test.args[0].id in flags
    ):
        # ``exists(v)``, the helper ``return v is not None`` of many projects
        return flags[test.args[0].id] is not None
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Is, ast.IsNot))
        and isinstance(test.left, ast.Name)
        and test.left.id in flags
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        same = flags[test.left.id] is None
        return same if isinstance(test.ops[0], ast.Is) else not same
    return None


def _told_by_body(body, declared, named=None, count=None):
    """``declared`` (a result annotated with jaxtyping's anonymous ``...``, under the
    call's bindings) with the axes of ``...`` the callee's body gives for this call
    (``body``: ``(b, n_tokens, 3)`` for ``(..., n_tokens, 3)``); None unless the body's
    result agrees with the annotation, array by array, on every axis the annotation
    names. Each ``...`` matches any axes, so only the body can tell them. ``named``:
    ``declared`` with the names no argument binds kept (``c`` of ``-> "... c n"``);
    ``count(name, size)``: what a count of the body's data named so becomes."""
    named = declared if named is None else named
    if type(declared) is TupleV:
        if type(body) is not TupleV or len(body.items) != len(declared.items):
            return None
        if type(named) is not TupleV or len(named.items) != len(declared.items):
            named = declared
        items = [
            _told_by_body(b, d, m, count)
            for b, d, m in zip(body.items, declared.items, named.items)
        ]
        if any(v is None for v in items):
            return None
        return TupleV(tuple(items))
    if arrays_union(declared) and type(body) is Arr:
        # ``-> Int["... dist"] | Int["... dist bins"]`` where a flag of the call picks
        # one (``return_labels=True``): the one member the body's result agrees with
        members = named.items if arrays_union(named) else declared.items
        found = [
            t
            for d, m in zip(declared.items, members)
            if (t := _told_by_body(body, d, m, count)) is not None
        ]
        return found[0] if len(found) == 1 else None
    if type(declared) is not Arr or type(body) is not Arr:
        return None
    if declared.shape is None:
        # ``-> Float[Tensor, "..."]``: any shape, so the body's tells it all (a count
        # only the data fixes stays unknown, as below).
        if body.shape is None or any(type(d) is not Dim and d is not None for d in body.shape):
            return None
        return declared.with_(shape=tuple(None if is_data_size(d) else d for d in body.shape))
    shape = body.shape
    rests = [i for i, d in enumerate(declared.shape) if type(d) is Rest]
    if len(rests) > 1 or (rests and declared.shape[rests[0]] is not Rest(None)):
        return None  # only one anonymous ``...``
    cut = rests[0] if rests else len(declared.shape)
    head, tail = declared.shape[:cut], declared.shape[cut + 1 :]
    # The body's result may have leading axes of unknown number too (``(..., c, n)``
    # for ``(..., ?, n)``): then only where the annotation also starts with ``...``.
    known = shape[1:] if shape and type(shape[0]) is Rest and rests and not head else shape
    # An axis the body leaves unknown is any size (``torch.arange(lens.amax())``).
    if known is None or any(type(d) is not Dim and d is not None for d in known):
        return None
    if len(known) < len(head) + len(tail) or (not rests and len(known) != len(head)):
        return None
    pairs = zip((*head, *tail), (*known[: len(head)], *known[len(known) - len(tail) :]))
    if any(d is not None and got is not None and d != got for d, got in pairs):
        return None  # an axis the annotation names (an unknown one: any)
    # A size only the body's data fixes (``torch.unique``'s count) stays unknown unless
    # the annotation names it: a caller means such a count to be one of its own sizes.
    # Named by a size of the result alone (``c`` of ``-> "... c n"``), it is this call's
    # count: the same in each array of the result, and no other size of the caller.
    names = (
        named.shape
        if type(named) is Arr
        and named.shape is not None
        and len(named.shape) == len(declared.shape)
        else declared.shape
    )

    def told(i: int, d):
        if d is None:  # what the annotation says of it, if it names it
            return _entry(declared.shape, head, tail, shape, i)
        if not is_data_size(d):
            return d
        entry = _entry(names, head, tail, shape, i)
        if type(entry) is not Dim:
            return None
        return count(entry.name, d) if count is not None and entry.is_symbol else d

    return declared.with_(shape=tuple(told(i, d) for i, d in enumerate(shape)))


def _counter(line: int, env: dict):
    """``count(name, size)`` for :func:`_told_by_body`: a count of the body's data
    becomes this call's (``call_count``), compared with the sizes its arguments bound."""
    siblings = frozenset(name for v in env.values() if type(v) is Dim for name in v.free_symbols)

    def count(name: str, size: Dim) -> Dim:
        return size.substitute(
            {
                n: call_count(name, line, siblings)
                for n in size.free_symbols
                if is_data_size(dims.symbol(n))
            }
        )

    return count


def _entry(declared: tuple, head: tuple, tail: tuple, shape: tuple, i: int):
    """The annotation's entry for axis ``i`` of ``shape`` (None within its ``...``)."""
    if i < len(head):
        return declared[i]
    if i >= len(shape) - len(tail):
        return declared[i - len(shape)]
    return None


def subst_value(value, binder: Binder):
    """``value`` with the callee's sizes replaced by the caller's (via ``binder``)."""
    t = type(value)
    if t is Arr:
        return value.with_(shape=binder.substitute(value.shape), origin=None)
    if t is TupleV:
        return TupleV(tuple(subst_value(v, binder) for v in value.items))
    if t is IntV and value.dim is not None:
        found = binder.substitute((value.dim,))
        return IntV(found[0] if found and type(found[0]) is Dim else None)
    if t is UnionV:
        return UnionV(tuple(subst_value(v, binder) for v in value.items))
    return value


def _array_members(want) -> list:
    """The array types of a union annotation (``Float["b m"] | Float[" m"] | None``)."""
    if type(want) in (UnionType, OptionalType):
        return [m for m in want.members if type(m) is ArrayType]
    return []


def _array_part(value):
    """The array a value is, or is when not None (``Optional[Tensor]``), else None."""
    if type(value) is Arr:
        return value
    if type(value) is UnionV:
        arrays = [v for v in value.items if type(v) is Arr]
        if len(arrays) == 1 and all(type(v) in (Arr, NoneV) for v in value.items):
            return arrays[0]
    return None


def _optional_of(ann) -> str | None:
    """``T`` of an annotation ``T | None``, ``Optional[T]`` or ``Union[T, None]``."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        items = [ann.left, ann.right]
    elif isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)):
        head = ann.value.id if isinstance(ann.value, ast.Name) else ann.value.attr
        inner = ann.slice
        if head == "Optional":
            items = [inner, ast.Constant(None)]
        elif head == "Union" and isinstance(inner, ast.Tuple):
            items = list(inner.elts)
        else:
            return None
    else:
        return None
    names = [i.id for i in items if isinstance(i, ast.Name)]
    nones = [i for i in items if isinstance(i, ast.Constant) and i.value is None]
    if len(names) == 1 and len(nones) == len(items) - 1 == 1:
        return names[0]
    return None


def _none_dropped(value):
    """``value`` with None taken out of each Optional part (of a tuple's items too); a
    union of arrays and other values (``-> int | Bool[Tensor, " 5"]`` of
    ``return_one_hot: bool = False``) is unknown: the flag picks one."""
    if type(value) is TupleV:
        return TupleV(tuple(_none_dropped(v) for v in value.items))
    if type(value) is UnionV:
        value = strip_none(value)
        if type(value) is UnionV and len({type(v) is Arr for v in value.items}) > 1:
            return UNKNOWN
    return value


def _none_default(node) -> bool:
    """Whether a node is the constant ``None`` (a default, a side of ``T | None``)."""
    return isinstance(node, ast.Constant) and node.value is None


class SignatureMixin(CheckerHost):
    """Calls of checked functions, methods and classes, and the binding rule."""

    def construct(self, info, args, kwargs, node, frame, labels, star):
        if info.walker is None or info.walker is self:
            self.ensure_schema(info)  # another module's: walked when first needed
        if self.find_method(info, "__new__") is not None:
            return UNKNOWN  # __new__ decides what a call of the class gives
        init = self.find_method(info, "__init__")
        env = {}
        if init is not None:
            binder = self.bind_call(init, args, kwargs, node, frame, labels, InstV(info), star)
            env = {k: v for k, v in binder.env.items() if not k.startswith("*")}
            if any(type(v) is Dim for v in env.values()):
                self.ensure_schema(info)
                self.check_layers(info, env, node, frame)
                self.check_init_facts(info, env, node, frame)
        elif info.is_dataclass:
            positional, names = info.init_fields(
                self.module if info.walker is None else info.walker.module
            )
            bound = dict(zip(positional, args)) if positional is not None and not star else {}
            bound.update((k, v) for k, v in kwargs.items() if k in names)
            sources = {k: labels.nodes.get(i) for i, k in enumerate(positional or ())}
            sources.update((k, labels.nodes.get(k)) for k in kwargs)
            env = {k: v.dim for k, v in bound.items() if type(v) is IntV and v.dim is not None}
            # One binding for all the fields, as the generated ``__init__`` is checked:
            # ``n_tokens`` of one field's annotation is ``n_tokens`` of the others.
            binder = Binder(facts=frame.facts)
            tainted = None  # as in bind_call: after a field that did not fit
            for name, got in bound.items():
                node_of = self.declared_attribute(info, name)
                if node_of is None:
                    continue
                want = self.annotation_type(node_of)
                if tainted is not None and not _independent(want, tainted):
                    continue
                if not self.check_binding(
                    want,
                    got,
                    f"field {name} of {info.name}",
                    binder,
                    node,
                    frame,
                    source=sources.get(name),
                ):
                    binder.failed = True
                    tainted = (tainted or set()) | _size_names(want)
            if tainted is None:
                # the sizes the fields' annotations name are those of the arrays given
                # (``dp`` of a ``"b n n dp"`` field is the ``d`` of the array passed)
                env.update(
                    (k, v)
                    for k, v in binder.env.items()
                    if type(v) is Dim and not k.startswith("*") and k not in env
                )
        return InstV(info, env, made=True)

    def check_layers(self, info, env: dict, node, frame) -> None:
        """The layers ``__init__`` built, checked again with this construction's sizes."""
        layers = []
        for value in info.attrs.values():
            if type(value) is LayerV:
                layers.append(value)
                layers.extend(v for v in value.args.get("layers", ()) or () if type(v) is LayerV)
            elif type(value) is ListV and value.items is not None:
                layers.extend(v for v in value.items if type(v) is LayerV)
        for layer in layers:
            try:
                validate_layer(layer.rule, layer.args, env)
            except CheckFailure as failure:
                sizes = ", ".join(f"{k}={v}" for k, v in sorted(env.items()) if type(v) is Dim)
                self.fail(
                    node,
                    CheckFailure(
                        failure.code,
                        failure.message,
                        [f"layer: {layer.site}, built by {info.name}.__init__ with {sizes}"],
                    ),
                    frame,
                )
                return

    def check_init_facts(self, info, env: dict, node, frame) -> None:
        """``assert dim % heads == 0`` in ``__init__``, checked with this construction's
        sizes: ``Attention(30, 4)`` fails it."""
        for name, k in info.facts:
            n = env.get(name)
            if type(n) is not Dim or not n.is_constant:
                continue
            mapping = {m: env[m] for m in k.free_symbols if type(env.get(m)) is Dim}
            divisor = k.substitute(mapping) if mapping else k
            if not divisor.is_constant or divisor.value <= 0 or n.value % divisor.value == 0:
                continue
            given = ", ".join(
                f"{m}={env[m]}" for m in sorted({name, *k.free_symbols}) if type(env.get(m)) is Dim
            )
            self.fail(
                node,
                CheckFailure(
                    "layer" if info.is_module else "call",
                    f"{info.name}(...) with {given}: {info.name}.__init__ requires "
                    f"{name} % {k} == 0, but {n.value} is not a multiple of {divisor.value}",
                ),
                frame,
            )
            return

    def failed_result(self, info, binder):
        """The result of a call an argument of which did not fit (reported there): its
        annotated arrays, with the sizes that argument reads unknown, as mypy gives a
        call's declared type whatever its arguments. ``(?, 4, ?, ?)`` for ``-> Float[Tensor,
        "B 4 Hl Wl"]`` when the ``"B 4 Hl Wl"`` argument did not fit: a size it may have
        bound wrongly cannot cascade, the rest of the annotation still holds.
        Unknown for a function without such an annotation, when which sizes the
        argument read is not known (a union), or when no size is left."""
        if (
            binder.tainted is None
            or info.returns is None
            or info.overloaded
            or not info.keeps_result
        ):
            return UNKNOWN
        ret = self.annotation_value(info.returns)
        if not (
            type(ret) is Arr or (type(ret) is TupleV and all(type(v) is Arr for v in ret.items))
        ):
            return UNKNOWN
        kept = Binder(
            {k: v for k, v in binder.env.items() if k not in binder.tainted}, facts=binder.facts
        )
        found = subst_value(ret, kept)
        arrays = found.items if type(found) is TupleV else (found,)
        if all(a.shape is None or all(d is None for d in a.shape) for a in arrays):
            return UNKNOWN  # nothing known
        origin = failed_origin(info.qualname)
        if type(found) is TupleV:
            return TupleV(tuple(a.with_(origin=origin) for a in found.items))
        return found.with_(origin=origin)

    def call_function(self, info, args, kwargs, node, frame, labels, self_value, star):
        if not info.keeps_signature:
            return UNKNOWN  # a decorator may take other arguments and give another result
        binder = self.bind_call(info, args, kwargs, node, frame, labels, self_value, star)
        if binder.failed:
            return self.failed_result(info, binder)
        if info.overloaded:
            found = self.overload_result(info)
            return self.helper_pattern_result(info, found, args, kwargs, node, frame, labels)
        if not info.keeps_result:
            return UNKNOWN  # a context manager, a transformed function
        generic = self.typevar_result(info, args, kwargs, self_value)
        if generic is not None:
            return generic
        if info.returns is None and self_value is None:
            given = _returned_argument(info, args, kwargs) if not star else None
            if given is not None:
                return given  # ``zero_module(nn.Conv2d(...))`` gives back the layer
            # a nested function's body is walked with the call's arguments (below),
            # not on its own: what it reads from the function that made it is known
            found = self.inferred_return(info) if info.closure is None else UNKNOWN
            if type(found) is BoolV and found.value is None and wrapper_return(info.node):
                # ``exists(v)`` of ``return v is not None``: known for a None or an array
                told = self.inlined_result(info, args, kwargs)
                if type(told) is BoolV and told.value is not None:
                    return told
            if _shapeless(found):
                found = self.helper_pattern_result(info, found, args, kwargs, node, frame, labels)
                return (
                    self.inlined_call(info, args, kwargs, node, labels)
                    if _shapeless(found)
                    else found
                )
            if _open_rank(found):
                # ``(..., D)``: the body walked with these arguments may say which axes.
                inlined = self.inlined_call(info, args, kwargs, node, labels)
                if _shaped(inlined) and not _open_rank(inlined):
                    return inlined
        if (
            info.returns is None
            and _bound_method(info, self_value)
            and wrapper_return(info.node) is not None
        ):
            # ``self.c_in(padded_sigma)`` of ``def c_in(self, sigma): return (sigma ** 2
            # + self.sigma_data ** 2) ** -0.5``: its one expression with these arguments
            inlined = self.inlined_result(info, args, kwargs, None, self_value)
            if _shaped(inlined):
                return inlined
        if (info.returns is None or self._returns_callable(info)) and returns_lambda(info.node):
            # ``def get_activation(name) -> Callable``: the lambdas (and functions) its
            # body returns say what a call of the result gives
            walker = self._walker_for(info)
            found = walker.inferred_return(info) if walker is not None else UNKNOWN
            if type(found) in (LambdaV, CallablesV):
                return found
        if info.returns is not None:
            ret = self.annotation_value(info.returns)
            if (ret is UNKNOWN or (type(ret) is BoolV and ret.value is None)) and wrapper_return(
                info.node
            ) is not None:
                # ``def default(v: Any, d: Any) -> Any: return v if exists(v) else d``,
                # ``def exists(v) -> bool: return v is not None``: its one expression
                # with these arguments
                told = self.inlined_result(info, args, kwargs, None, self_value)
                if told is not UNKNOWN and (ret is UNKNOWN or type(told) is BoolV):
                    return told
            if (
                (self_value is None and info.cls is None)
                or (type(self_value) is InstV and info.cls is not None)
            ) and anonymous_result(info.node):
                kept = Binder(binder.env, facts=binder.facts)
                kept.keep_unbound = True
                told = _told_by_body(
                    self.inlined_call(info, args, kwargs, node, labels, self_value),
                    subst_value(ret, binder),
                    subst_value(ret, kept),
                    _counter(node.lineno, binder.env),
                )
                if told is not None:
                    return told
            if _shapeless(ret) and (
                (self_value is None and info.cls is None)
                or (type(self_value) is InstV and info.cls is not None)
            ):
                # ``-> Tensor``: the body walked with these arguments says which shape
                # (a method too: ``self.rotate_every_two(q_rot)`` keeps ``q_rot``'s)
                inlined = self.inlined_call(info, args, kwargs, node, labels, self_value)
                if type(inlined) is Arr and inlined.shape is not None:
                    return inlined
                if self_value is None and info.closure is None:
                    # a longer body (``random_quaternions(n) -> Tensor`` builds
                    # ``torch.randn((n, 4))`` after an ``if``): what it returns for its
                    # parameters, as for a function without annotation, under the
                    # bindings of this call
                    walker = self._walker_for(info)
                    found = walker.inferred_return(info) if walker is not None else UNKNOWN
                    if (
                        type(found) is Arr
                        and type(ret) is Arr
                        and found.shape is not None
                        and not _open_rank(found)
                        and _kinds_agree(found, ret)
                    ):
                        ret = found
            if (
                type(ret) is TupleV
                and self_value is None
                and info.cls is None
                and any(_shapeless(v) or type(v) is ListV for v in ret.items)
            ):
                # ``-> Tuple[Tensor, List[Shape]]`` of ``return packed, unpack_one``: the
                # parts the annotation leaves open, as the body gives them for this call
                told = self._tuple_told(info, ret, binder, args, kwargs, node, labels)
                if told is not None:
                    return told
            if type(ret) is IntV and ret.dim is None and wrapper_return(info.node) is not None:
                # ``-> int`` of one ``return``: the size it reads (a property
                # ``_n_components`` returning ``int(self.group_idxs.shape[0])``)
                inlined = self.inlined_result(info, args, kwargs, None, self_value)
                if type(inlined) is IntV and inlined.dim is not None:
                    return inlined
            if any(
                isinstance(p[2], ast.Constant) and type(p[2].value) is bool for p in info.params
            ):
                # f(x, compute_covar=True) -> Tuple[Optional[Tensor], ...]: the flags
                # (given or defaulted) decide which parts are None, out of sight here.
                ret = _none_dropped(ret)
            elif type(ret) is UnionV and self._passes_optional_through(
                info, args, kwargs, self_value
            ):
                ret = strip_none(ret)
        else:
            ret = self.inferred_return(info)
        if type(self_value) is InstV and self_value.env:
            for k, v in self_value.env.items():
                binder.env.setdefault(k, v)
        if (
            type(self_value) is InstV
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
        ):
            # ``self.get_component_acts(x) -> Float[Tensor, "... C"]`` in a method of a
            # class built with ``C``: a name of the result its arguments leave free is
            # the instance's size of that name
            names = set(self.init_names(self_value.info))
            if info.returns is None:
                # an unannotated method's result (``self._laplacian_uniform()``
                # of ``(Nv, Nv)``) names the sizes of the one instance both see
                for scope in self.built_with(info):
                    names |= scope
            elif frame is not None and frame.func is not None and frame.func.returns is not None:
                # ... and one the calling method's own result names, where no parameter
                # of the method called names it (``self.extract_subnets()`` of
                # ``"n_subnets n_features n_hidden"`` in a method that returns
                # ``"n_subnets n_features"``): the one size of the instance both mean
                names |= shape_names(frame.func.returns) - shape_names(
                    *(p[1] for p in info.params if p[1] is not None)
                )
            for name in names:
                d = size_symbol(name)
                if d is not None:
                    binder.env.setdefault(name, d)
        if (
            info.is_property
            and info.returns is not None
            and type(self_value) is InstV
            and isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            # ``self.indices_hit`` of ``-> Int32[Tensor, "n"]``: a size it leaves free
            # is the one the instance's properties give each time they are read
            # (``n`` of every property of the class is one size, as ``d_model`` of
            # ``W_E`` and of ``W_pos``), compared with itself only
            # (``self.indices_hit[1:]`` is one shorter)
            owner = info.cls.name if info.cls is not None else info.name
            for name in shape_names(info.returns):
                if binder.env.get(name) is None and size_symbol(name) is not None:
                    binder.env[name] = call_count(name, owner, ())
        if type(ret) is InstV and ret.info.is_dataclass and not ret.env and not ret.made:
            # ``-> EmbeddedInputs``: its fields' sizes are those this call binds (``b``
            # of the arguments), the others unknown, as a returned array's are (not the
            # ``dp`` of a ``"b n n dp"`` field, which the caller cannot know)
            env = {}
            for name in shape_names(*(f.annotation for f in ret.info.fields)):
                bound = binder.env.get(name)
                env[name] = bound if type(bound) is Dim else None
            return InstV(ret.info, env) if env else ret
        return subst_value(ret, binder)

    def _tuple_told(self, info, ret, binder, args, kwargs, node, labels):
        """An annotated tuple result (``ret``) whose arrays of unknown shape, and lists,
        take what the body walked with these arguments gives in their place: an array
        of known shape, the shapes ``pack`` records, a nested function (``unpack_one``);
        None when the body tells nothing."""
        inlined = self.inlined_call(info, args, kwargs, node, labels)
        if type(inlined) is not TupleV or len(inlined.items) != len(ret.items):
            return None
        declared = subst_value(ret, binder)
        items = tuple(
            b if (_shapeless(d) or type(d) is ListV) and (_shaped(b) or _closure(b)) else d
            for b, d in zip(inlined.items, declared.items)
        )
        return TupleV(items) if items != declared.items else None

    def _returns_callable(self, info) -> bool:
        """Whether ``info`` is annotated to return a ``Callable`` (bare or subscripted)."""
        node = info.returns
        if isinstance(node, ast.Subscript):
            node = node.value
        owner = self.owner_of(info.returns)
        return owner.path_of(node) in (
            "typing.Callable",
            "collections.abc.Callable",
            "typing_extensions.Callable",
        )

    @staticmethod
    def _passes_optional_through(info, args, kwargs, self_value) -> bool:
        """``def f(data: Tensor | None, ...) -> Tensor | None`` given a data that is not
        None: the result is taken as not None (None in, None out, as a TypeVar would)."""
        ret = ast.dump(info.returns)
        params = list(info.params)
        if (
            params
            and (self_value is not None or (info.cls is not None and not info.is_static))
            and params[0][3] == "positional"
        ):
            params = params[1:]
        positional = [p for p in params if p[3] == "positional"]
        given = {p[0]: value for p, value in zip(positional, args)}
        given.update(kwargs)
        for name, ann, _default, _kind in params:
            if ann is not None and ast.dump(ann) == ret and name in given:
                value = given[name]
                return type(value) not in (Unknown, NoneV, UnionV)
        return False

    def inlined_call(self, info, args, kwargs, node, labels, self_value=None):
        """``inlined_result``, and an error at the call when the callee's body, a
        straight run of statements (:func:`straight_body`) given arguments
        (:func:`_given_arguments`), fails for these arguments
        at a statement where it does not fail for every value its annotations allow
        (that is reported in the callee): ``expectation(logits, w)`` whose body
        multiplies ``(..., n, n, bins)`` by ``(..., 1, bins)``."""
        body = (
            straight_body(info, args, kwargs, self_value)
            if _given_arguments(info, args, kwargs, self_value)
            else None
        )
        if not body:
            return self.inlined_result(info, args, kwargs, None, self_value)
        caught: list = []
        value = self.inlined_result(info, args, kwargs, caught, self_value, body)
        if caught:
            alone: list = []
            self.inlined_result(info, None, None, alone, self_value, body)
            seen = {(c[3], c[0], c[1]) for c in alone}
            fresh = [c for c in caught if (c[3], c[0], c[1]) not in seen and c[1] in _RELAYED]
            if fresh:
                line, code, message, path, made = fresh[0]
                operands = [(labels.nodes.get(i), v) for i, v in enumerate(args)]
                operands += [(labels.nodes.get(k), v) for k, v in kwargs.items()]
                notes = [
                    text
                    for n, v in operands
                    if n is not None
                    and type(v) is Arr
                    and (text := self.value_note(n, v, None)) is not None
                ]
                if path == self.path:
                    # the callee's failing line, a located note there
                    notes.append(
                        ShapeNote(
                            f"{info.qualname}() fails at line {line} for these arguments",
                            0,
                            info.qualname,
                            "",
                            sources=(
                                (line, "fails here for these arguments", info.qualname, "call"),
                                # where the failing operands got their shapes in the callee
                                *(
                                    (
                                        at,
                                        f"{name} gets its shape {shape} here",
                                        info.qualname,
                                        "call",
                                    )
                                    for at, name, shape in made
                                    if at != line
                                ),
                            ),
                        )
                    )
                self.report(
                    node,
                    code,
                    f"{info.qualname}() fails for these arguments, at "
                    f"{f'line {line}' if path == self.path else f'{_shown(path)}:{line}'}: "
                    f"{message}",
                    notes,
                )
        return value

    def inlined_result(self, info, args, kwargs, caught=None, self_value=None, body=None):
        """The array a one-statement wrapper (``def und_self(mask, pattern): return
        und(mask, mask, pattern)``) returns for these arguments: its expression
        evaluated, quietly, in its own module with its parameters bound to the
        caller's values; UNKNOWN unless that is an array of known shape, or a number
        (``def default(v, d): return v if exists(v) else d``). Nested
        wrappers are followed at most ``_INLINE_DEPTH`` deep."""
        if not inlinable(info.node) or self.inlining >= _INLINE_DEPTH:
            return UNKNOWN
        if self.inlining == 0:
            self.inline_budget = [_INLINE_BUDGET]
        if self.inline_budget[0] <= 0:
            return UNKNOWN  # a callee that calls its callers many times a level
        self.inline_budget[0] -= 1
        if info.cls is not None and not _bound_method(info, self_value):
            return UNKNOWN
        if args is None:  # the body alone, its parameters as annotated (``inlined_call``)
            return self._body_alone(info, caught, body)
        if info.cls is not None:
            args = (self_value, *args)  # ``self``, then the arguments
        expr = wrapper_return(info.node)
        if expr is None and not any(
            type(v) is Arr and v.shape is not None for v in (*args, *kwargs.values())
        ):
            return UNKNOWN  # a short body is walked only for an array argument's shape
        positional = [p for p in info.params if p[3] == "positional"]
        names = {p[0] for p in info.params}
        if len(args) > len(positional) or any(p[3] in ("star", "starstar") for p in info.params):
            return UNKNOWN
        if any(k not in names for k in kwargs):
            return UNKNOWN
        walker = self._walker_for(info)
        if walker is None:
            return UNKNOWN
        inner = Frame(info)
        if info.closure is not None:
            # a nested ``def``: the names it reads from the function that defined it,
            # as they are now (a closure sees the latest assignment)
            outer = info.closure[0].vars
            inner.vars.update((k, outer[k]) for k in free_names(info.node) if k in outer)
        given = {p[0]: v for p, v in zip(positional, args)}
        given.update(kwargs)
        for name, ann, default, _kind in info.params:
            if name in given:
                value = given[name]
                if ann is not None and _has_unknown_scalars(value):
                    value = _with_declared_scalars(value, walker.annotation_value(ann))
                inner.vars[name] = value
            elif _literal_default(default):
                inner.vars[name] = walker.eval(default, inner)
            else:
                return UNKNOWN  # a missing argument (reported) or a computed default
        with self._walking(walker, caught):
            if expr is not None:
                value = walker.eval(expr, inner)
                if type(value) in (FloatV, IntV, BoolV, StrV):
                    # ``default(self.scale, d ** -0.5)``: a number, as the wrapper gives
                    # (or a string: ``default(unpack_pattern, pattern)``)
                    return value
            else:  # a short body: used when every path returns an array of one shape
                end = walker.exec_block(info.node.body if body is None else body, inner)
                values = [v for v, _ in inner.returns]
                # every path an array of one rank (``pad_to_multiple``: ``t`` itself, or
                # ``t`` padded): their join keeps the axes they agree on
                same = all(_shaped(v) and _ranks(v) == _ranks(values[0]) for v in values)
                value = join_all(values) if values and end.terminated and same else UNKNOWN
        return value if _shaped(value) else UNKNOWN

    def _body_alone(self, info, caught, body=None):
        """Walk ``info``'s body (or the statements ``body`` of it a call runs) quietly
        with its parameters as its annotations give them, collecting into ``caught``
        what fails there (``inlined_call``)."""
        walker = self._walker_for(info)
        if walker is None:
            return UNKNOWN
        inner = Frame(info)
        with self._walking(walker, caught):
            walker.bind_params(info, inner)
            with inputs(inner.where, signature_names(info, walker.declared_annotations)):
                walker.exec_block(info.node.body if body is None else body, inner)
        return UNKNOWN

    @contextmanager
    def _walking(self, walker, caught):
        """A callee's body walked by ``walker`` (its module's checker) for a call: quietly,
        one level deeper, what fails collected into ``caught``; the walker's state
        restored after."""
        saved = walker.record, walker.inlining, walker.last_ifexp, walker.discarded
        saved_caught, walker.caught = walker.caught, caught
        if self.inlining == 0:  # the outermost walk: a budget of its own
            self.inline_budget = [_INLINE_BUDGET]
        saved_budget, walker.inline_budget = walker.inline_budget, self.inline_budget
        walker.record, walker.inlining = None, self.inlining + 1
        walker.quiet += 1
        # the callee's body has none of the caller's loops, and its branches join
        outer = walker.loop_bounds, walker.path_budget
        walker.loop_bounds, walker.path_budget = {}, 1
        try:
            yield
        finally:
            walker.loop_bounds, walker.path_budget = outer
            walker.quiet -= 1
            walker.caught = saved_caught
            walker.inline_budget = saved_budget
            walker.record, walker.inlining, walker.last_ifexp, walker.discarded = saved

    def _walker_for(self, info):
        """The checker of the module that defines function or method ``info``."""
        if info.closure is not None:
            return info.closure[1]
        if info.cls is not None and info.cls.walker is not None:
            return info.cls.walker
        owner = self.foreign_modules.get(id(info))
        return self if owner is None else self.project.walker_of(owner)

    def helper_pattern_result(self, info, found, args, kwargs, node, frame, labels):
        """``found`` (a helper's result), or when it is unknown or an array of unknown
        shape and the call ends in an einops pattern (``und(a, b, "b i, b j -> b i j")``),
        the array the pattern describes (``rules.patterns.pattern_helper``)."""
        if not _shapeless(found) or kwargs or len(args) < 2 or type(args[-1]) is not StrV:
            return found
        first = args[0]
        call = Call(info.qualname, list(args), {}, labels, getattr(first, "kind", None))
        call.facts = frame.facts if frame is not None else ()
        call.line = getattr(node, "lineno", 0)
        operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
        value = self.with_notes(lambda: pattern_helper(call, f"{info.qualname}()"), operands, frame)
        return found if value is None else value

    def overload_result(self, info):
        """The result of a call of an ``@overload``ed function: an array of unknown shape
        when every variant is annotated as returning the same array type (``-> Tensor``),
        else unknown (which variant matches is not decided)."""
        returns = info.overloads
        if (
            not returns
            or any(r is None for r in returns)
            or len({ast.dump(r) for r in returns}) != 1
            or any(d in RESULT_CHANGING for d in info.decorators)
        ):
            return UNKNOWN
        value = self.annotation_value(returns[0])
        return value if type(value) is Arr and value.shape is None else UNKNOWN

    def typevar_result(self, info, args, kwargs, self_value):
        """The result of ``def f(x: T | None, y: T) -> T`` (``T`` a ``TypeVar`` of the
        function's module): the join of the arguments given for ``T`` (None dropped
        where the parameter is optional), or None when the result is not a TypeVar."""
        ret = info.returns
        owner = self.owner_of(ret) if ret is not None else None
        if not isinstance(ret, ast.Name) or ret.id not in owner.typevars:
            return None
        params = list(info.params)
        if (
            params
            and (self_value is not None or (info.cls is not None and not info.is_static))
            and params[0][3] == "positional"
        ):
            params = params[1:]
        positional = [p for p in params if p[3] == "positional"]
        given = {p[0]: value for p, value in zip(positional, args)}
        given.update(kwargs)
        found = []
        for name, ann, _default, _kind in params:
            optional = _optional_of(ann)
            if name not in given or not (
                isinstance(ann, ast.Name) and ann.id == ret.id or optional == ret.id
            ):
                continue
            value = given[name]
            if optional is not None and type(value) is NoneV:
                continue
            found.append(strip_none(value) if optional is not None else value)
        return join_all(found)

    def bind_call(self, info, args, kwargs, node, frame, labels, self_value, star) -> Binder:
        params = list(info.params)
        if self_value is not None and params and params[0][3] == "positional":
            params = params[1:]
        elif info.cls is not None and not info.is_static and self_value is None and params:
            params = params[1:]  # an unbound method looked up on the class
        env = self_value.env if type(self_value) is InstV else None
        if env:
            # The construction's sizes (``Enc(resolution=32)``) reach the method's
            # annotations, but a parameter of the method is its own value:
            # ``upsample_grid(resolution=64)`` is not tied to the 32.
            own = {p[0] for p in params}
            env = {k: v for k, v in env.items() if k not in own}
        binder = Binder(env, facts=frame.facts)
        positional = [p for p in params if p[3] == "positional"]
        has_star = any(p[3] == "star" for p in params)
        has_kw = any(p[3] == "starstar" for p in params)
        if type(self_value) is InstV and not self_value.made and _abstract(info):
            # ``self.encoding(x, covs=c)`` with ``encoding: Encoding``: the instance is
            # of a subclass, whose method's parameters are not these.
            has_star = has_kw = star = True
        if len(args) > len(positional) and not has_star and not star:
            self.fail(
                node,
                CheckFailure(
                    "call",
                    f"{info.qualname}() takes {len(positional)} "
                    f"positional arguments but {len(args)} were "
                    f"given",
                ),
                frame,
            )
        given = {}
        for p, value, i in zip(positional, args, range(len(args))):
            given[p[0]] = (value, labels.nodes.get(i))
        names = {p[0] for p in params}
        for key, value in kwargs.items():
            if key not in names and not has_kw:
                self.fail(
                    node,
                    CheckFailure(
                        "call", f"{info.qualname}() got an unexpected keyword argument {key!r}"
                    ),
                    frame,
                )
                continue
            given[key] = (value, labels.nodes.get(key))
        if not star:
            missing = [
                p[0]
                for p in params
                if p[3] in ("positional", "keyword") and p[2] is None and p[0] not in given
            ]
            if missing:
                self.fail(
                    node,
                    CheckFailure("call", f"{info.qualname}() is missing argument {missing[0]!r}"),
                    frame,
                )
        # Arrays first: their axes bind the size names that int arguments then meet.
        ordered = sorted(
            params, key=lambda p: p[1] is None or array_member(self.annotation_type(p[1])) is None
        )
        tainted = None  # after an argument that did not fit: the names it may have bound
        opaque = False  # one that did not fit read no size names (a union, a scalar)
        for name, ann, default, _kind in ordered:
            if name not in given or ann is None:
                continue
            value, arg_node = given[name]
            want = self.annotation_type(ann)
            if tainted is not None and not _independent(want, tainted):
                continue
            if want is INT and type(value) is IntV:
                ok = self.bind_int(binder, name, value, arg_node or node, info, frame)
            else:
                ok = self.check_binding(
                    want,
                    value,
                    f"argument {name!r} of {info.qualname}()",
                    binder,
                    arg_node or node,
                    frame,
                    default,
                )
            if not ok and binder.dtype_only:
                binder.dtype_only = False
                continue  # a wrong dtype only: the sizes it bound are right
            if not ok:
                # The bindings of the names it reads are now off: one error per call,
                # not a cascade, but for the array arguments that read none of them.
                read = _size_names(want)
                opaque = opaque or not read
                binder.failed = True
                tainted = (tainted or set()) | read
        binder.tainted = None if opaque else tainted
        return binder

    def bind_int(self, binder, name, value, node, info, frame) -> bool:
        if value.dim is None:
            binder.env.setdefault(name, None)
            return True
        bound = binder.env.get(name)
        if bound is None:
            binder.env[name] = value.dim
            binder.where[name] = f"argument {name!r}"
            return True
        if dims.eq(bound, value.dim):
            return True
        self.fail(
            node,
            CheckFailure(
                "arg-type",
                f"argument {name!r} of {info.qualname}() is {value.dim}, but "
                f"{binder.where.get(name, 'another argument')} makes {name} = "
                f"{bound}",
            ),
            frame,
        )
        return False

    def check_binding(
        self, want, got, what, binder, node, frame, default=None, code="arg-type", source=None
    ) -> bool:
        """Parameter binding and assignment (as in TorchScript): does ``got`` fit type ``want``?

        Reports what does not fit (at ``node``, with ``code``) and returns False
        then; True when ``got`` fits or when that cannot be told. ``source``: the
        expression ``got`` is the value of, when not ``node`` (an item of a tuple).
        """
        source = node if source is None else source
        if want is ANY or type(got) is Unknown:
            return True
        if (
            type(got) is UnionV
            and not allows_none(want)
            and any(type(v) is NoneV for v in got.items)
        ):
            if _none_default(default) or any(type(v) is Unknown for v in got.items):
                return True  # None, or a value nothing is known about: it may be fine
            if frame is not None and frame.flags and not read_keys(node) & frame.flags:
                self.gave_up(
                    node,
                    f"{what} may be None, unless a condition on this path "
                    f"rules it out (not followed): not reported",
                )
                return True
            return self._mismatch(
                node,
                "optional",
                f"{what} may be None ({describe(got)}), "
                f"but its type {annotation_text(want)} does not allow "
                f"None",
                frame,
            )
        if type(got) is NoneV and not allows_none(want):
            return self._mismatch(
                node, code, f"{what} is None, expected {annotation_text(want)}", frame
            )
        several = self._several_arrays(want, got, what, binder, node, frame, code, source)
        if several is not None:
            return several
        wanted = array_member(want)
        got_arr = _array_part(got)
        if wanted is not None and got_arr is not None:
            if got_arr.numpy_scalar and array_value(wanted).kind == "numpy":
                return self._mismatch(
                    node,
                    code,
                    f"{what} is a NumPy scalar ({short_dtypes(got_arr.dtypes)}), "
                    f"not an np.ndarray, as {annotation_text(want)} requires: annotate a scalar result as "
                    "Float[np.number, ''] (or Shaped[np.generic, '']), or return "
                    "np.asarray(...)",
                    frame,
                )
            if not self.bind_array(
                array_value(wanted), got_arr, what, binder, node, frame, code, source
            ):
                return False
            if fits(got, want) is False:  # a NumPy array where a torch.Tensor is expected
                return self._mismatch(
                    node,
                    code,
                    f"{what} is {describe(got)}, expected {annotation_text(want)}",
                    frame,
                )
            return True
        if type(got) is TupleV and type(want) is TupleType and len(want.elements) == len(got.items):
            items = (
                source.elts
                if isinstance(source, ast.Tuple) and len(source.elts) == len(got.items)
                else [source] * len(got.items)
            )
            return all(
                self.check_binding(
                    w, g, f"item {i} of {what}", binder, node, frame, code=code, source=item
                )
                for i, (w, g, item) in enumerate(zip(want.elements, got.items, items))
            )
        if fits(got, want) is False and not self._came_in_as_base(got, want):
            return self._mismatch(
                node, code, f"{what} is {describe(got)}, expected {annotation_text(want)}", frame
            )
        return True

    def _came_in_as_base(self, got, want) -> bool:
        """An instance known only by a declared base class (a value of a
        ``dict[str, GeneralizedComponent]``), given where a subclass is expected: it may
        well be one (not built in view, so not known otherwise)."""
        if type(got) is not InstV or got.made or got.env:
            return False
        wanted = self.module.by_type.get(want)
        return wanted is not None and got.info in self.mro(wanted)

    def _several_arrays(
        self, want, got, what, binder, node, frame, code, source=None
    ) -> bool | None:
        """An array given for one of several (``Float["b m"] | Float[" m"]``), or one of
        several arrays (a union) given for an array type: it fits when one of them fits
        one of those; an error only where none does, and only for arrays of one rank
        (of several layouts, which one the code has is not known). None when neither
        side is several arrays. Sizes are not bound: which member fits is not told."""
        wants = [want] if type(want) is ArrayType else _array_members(want)
        gots = list(got.items) if arrays_union(got) else [got] if type(got) is Arr else []
        if not wants or not gots or (len(wants) == 1 and len(gots) == 1):
            return None
        if type(want) is not ArrayType and len(wants) != len(
            [m for m in want.members if m is not NONE_TYPE]
        ):
            return None  # also a number or a tuple (``Union[float, Tensor]``)
        failed = []  # (member, first problem) of each member the shape does not fit
        for g in gots:
            for w in wants:
                wanted = array_value(w)
                trial = Binder(binder.env, binder.where, binder.facts)
                trial.soft = binder.soft
                if dtype_problem(wanted.dtypes, g.dtypes):
                    continue
                problems = trial.match(wanted.shape, g.shape, what)
                if not problems:
                    return True
                failed.append((wanted, problems[0].message))
        if len(gots) == 1 and failed and len({message for _, message in failed}) == 1:
            # One array that every member rejects at the same axis (``(n, m, ...)``
            # returned for ``Float["b m ..."] | Bool["b m"]``): that axis is the error,
            # with the notes of any other binding, whatever the array's rank.
            trial = Binder(binder.env, binder.where, binder.facts)
            trial.soft = binder.soft
            return self.bind_array(failed[0][0], gots[0], what, trial, node, frame, code, source)
        if len({g.rank for g in gots}) > 1 or any(g.rank is None for g in gots):
            return True
        return self._mismatch(
            node,
            code,
            f"{what} {' or '.join(fmt_shape(g.shape) for g in gots)} fits none of "
            f"{annotation_text(want)}",
            frame,
        )

    def bind_array(self, want: Arr, got: Arr, what, binder, node, frame, code, source=None) -> bool:
        """Dtypes must overlap; the shape binds the annotation's size names.

        A shape that does not fit gets a note naming the line where the value's
        shape was made (``source``, the expression, read in ``frame``), when not here.
        """
        binder.dtype_only = False
        if dtype_problem(want.dtypes, got.dtypes):
            self._mismatch(
                node,
                code,
                f"{what} has dtype {fmt_dtypes(got.dtypes)}, expected {fmt_dtypes(want.dtypes)}",
                frame,
            )
            # the shape still binds the sizes it names (``t: Float[Tensor, "B"]`` given
            # int64 timesteps): a call's result stays known
            binder.dtype_only = not binder.match(want.shape, got.shape, what)
            return False
        binder.source = (source, got) if isinstance(source, ast.expr) else None
        problems = binder.match(want.shape, got.shape, f"{what} {fmt_shape(got.shape)}")
        binder.source = None
        if problems:
            notes = list(binder.bound_notes(problems[0].names))
            if isinstance(source, ast.expr):
                made = self.value_note(source, got, frame, always=False, about=problems[0].message)
                if made is not None:
                    notes.insert(0, made)
            # The argument that bound a size this one contradicts may be the wrong one:
            # where its shape was made too.
            for name in problems[0].names:
                other = binder.origins.get(name)
                if other is not None and other[0] is not source:
                    made = self.value_note(other[0], other[1], frame, always=False)
                    if made is not None and made not in notes:
                        notes.insert(1, made)
            self.fail(node, CheckFailure(code, problems[0].message, notes), frame)
            return False
        return True

    def _mismatch(self, node, code: str, message: str, frame) -> bool:
        self.fail(node, CheckFailure(code, message), frame)
        return False


_SCALARS = (IntV, FloatV, BoolV, StrV)


def _independent(want, tainted: set) -> bool:
    """Whether an argument for ``want`` is checked after one that did not fit, which
    may have bound the ``tainted`` names: one array annotation that names sizes, none
    of them tainted."""
    if type(want) is UnionType or array_member(want) is None:
        return False
    names = _size_names(want)
    return bool(names) and not names & tainted


def _size_names(want) -> set:
    """The size names of an array annotation (``*rest`` as ``*rest``), or the empty set."""
    wanted = array_member(want)
    return set(pattern_names(array_value(wanted))) if wanted is not None else set()


def _returned_argument(info, args, kwargs):
    """The argument a call gives a function that returns that parameter as it came in
    (``defs.returned_parameter``), or None."""
    name = returned_parameter(info.node)
    if name is None:
        return None
    if name in kwargs:
        return kwargs[name]
    positional = [p[0] for p in info.params if p[3] == "positional"]
    if name in positional and positional.index(name) < len(args):
        return args[positional.index(name)]
    return None


def _has_unknown_scalars(value) -> bool:
    return type(value) is Unknown or (
        type(value) is TupleV and any(type(v) is Unknown for v in value.items)
    )


def _with_declared_scalars(value, declared):
    """An argument where the checker knows less than the parameter's annotation says
    of plain scalars: ``(-r, r)`` with ``r`` unknown, for ``Union[Tuple[float, float],
    Tensor]``, is a tuple of two floats (the caller's binding checked it against the
    annotation; an unknown part is only the checker's ignorance). Only scalars are
    taken from the annotation: its array sizes name the callee's own symbols.

    >>> t = _with_declared_scalars(TupleV((UNKNOWN, FloatV())), UnionV((TupleV((FloatV(), FloatV())), UNKNOWN)))
    >>> t.describe()
    'tuple[float, float]'
    """
    members = declared.items if type(declared) is UnionV else (declared,)
    if type(value) is Unknown:
        plain = [m for m in members if type(m) in _SCALARS]
        return plain[0] if len(plain) == 1 == len(members) else value
    tuples = [m for m in members if type(m) is TupleV and len(m.items) == len(value.items)]
    if len(tuples) != 1:
        return value
    items = [
        d if type(v) is Unknown and type(d) in _SCALARS else v
        for v, d in zip(value.items, tuples[0].items)
    ]
    return TupleV(tuple(items))
