"""Refinement: what a test, an ``assert`` or an early return proves (layer 6: ``check``).

:class:`RefineMixin` gives the walker ``narrow(test, frame, positive)``: the
frame in which ``test`` is known true (``positive``) or false. It narrows

- ``x is None`` / ``x is not None`` / ``x == None`` and truthiness, on locals
  and on attribute chains (``self.state``), which TorchScript refuses;
- ``isinstance(x, Tensor)`` on unions;
- ``and``/``or``/``not`` combinations (``isinstance(x, A) or isinstance(x, B)``
  leaves ``x`` an ``A`` or a ``B``: the join of the frames where each operand
  holds after the ones before it failed);
- constant subscripts of names and attribute chains (``if lst[0] is not None:``),
  until the container is assigned or an opaque call may have changed it;
- size equalities: after ``assert x.shape[1] == w.shape[0]`` (or ``if ... !=
  ...: raise``) the two sizes are one (:func:`assume_equal` substitutes one
  symbol by the other everywhere in the frame);
- divisibility: after ``assert n % k == 0`` the frame records the fact
  ``(n, k)`` that reshapes use to make ``n // k`` exact.
"""

from __future__ import annotations

import ast
import copy

from tensortypes.core.dims import Dim
from tensortypes.types import ANY, is_subtype

from .defs import wrapper_return
from .host import CheckerHost
from .expr import attr_key, item_key
from .frame import join_frames
from .joins import strip_none
from .symbolic import (
    NONE,
    UNKNOWN,
    Arr,
    Bcast,
    BoolV,
    DTypeV,
    FloatV,
    FuncV,
    InstV,
    IntV,
    ListV,
    NoneV,
    Ref,
    Rest,
    StrV,
    TupleV,
    UnionV,
    Unknown,
    anonymous_axis,
    is_field_size,
)

_PLAIN = frozenset({IntV, FloatV, BoolV, StrV, TupleV, ListV, NoneV})

__all__ = ["RefineMixin", "assume_equal", "flag_of", "may_be_none", "rank_owner"]


class RefineMixin(CheckerHost):
    """Narrowing for the walker (needs ``eval``, ``quiet`` and ``module``)."""

    def narrow(self, test, frame, positive: bool):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.narrow(test.operand, frame, not positive)
        if isinstance(test, ast.BoolOp):
            if isinstance(test.op, ast.And) == positive:
                for value in test.values:
                    frame = self.narrow(value, frame, positive)
                return frame
            # ``a or b`` holds (or ``a and b`` fails): one operand does, after the ones
            # before it did not; the frame is the join of those cases.
            cases, rest, dead = [], frame, frame.terminated
            for value in test.values:
                case = self.narrow(value, rest, positive)
                if dead and not case.terminated:
                    # the operands before this one cannot all fail (``x is not None`` of a
                    # non-Optional ``x``): nor can this case be reached
                    case = case.copy()
                    case.terminated = True
                cases.append(case)
                rest = self.narrow(value, rest, not positive)
                dead = dead or rest.terminated
            live = [c for c in cases if not c.terminated] or cases[:1]
            out = live[0]
            for other in live[1:]:
                out = join_frames(out, other)
            flag = _key(test.values[0]) if len(test.values) == 2 else None
            if flag is not None and not positive and len(live) == 2:
                # ``if flag and n < k: raise``: where ``flag`` is true, ``n >= k``
                found = cases[1].bounds - frame.bounds
                if found:
                    out.flag_bounds[flag] = found
            return out
        key = _key(test)
        if key is not None:
            if isinstance(test, ast.NamedExpr):
                test = test.target
            if positive and key in frame.vars:
                frame = frame.copy()
                frame.terminated = type(frame.vars[key]) is NoneV  # `if x:` of a None: dead
                frame.vars[key] = strip_none(frame.vars[key])
            elif positive and isinstance(test, (ast.Attribute, ast.Subscript)):
                frame = frame.copy()
                frame.vars[key] = strip_none(self.eval(test, frame))
            if positive and key in frame.flag_bounds:
                for a, b in frame.flag_bounds[key]:
                    frame = ordered(frame, a, b, test.lineno)
            return self.narrow_flag(key, test, frame, positive)
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self.narrow_compare(test, frame, positive)
        if (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
        ):
            return self.narrow_isinstance(test, frame, positive)
        if (
            positive
            and isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "hasattr"
            and len(test.args) == 2
            and isinstance(test.args[1], ast.Constant)
            and type(test.args[1].value) is str
        ):
            key = _key(test.args[0])
            if key is not None:  # hasattr(x, "a"): x.a exists here, of a kind not known
                frame = frame.copy()
                frame.vars.setdefault(f"{key}.{test.args[1].value}", UNKNOWN)
        if isinstance(test, ast.Call) and self.predicate_depth < _PREDICATE_DEPTH:
            inlined = self.predicate_test(test, frame)
            if inlined is not None:  # if exists(x): with def exists(v): return v is not None
                self.predicate_depth += 1
                try:
                    return self.narrow(inlined, frame, positive)
                finally:
                    self.predicate_depth -= 1
        return frame

    predicate_depth = 0

    def predicate_test(self, test, frame):
        """The test a call of a one-line predicate of the project stands for, or None.

        ``def exists(v): return v is not None`` makes ``exists(mask)`` the test
        ``mask is not None``: the function's one ``return`` with its parameters
        replaced by the call's arguments (names, attributes or constant subscripts,
        which evaluate the same twice). Other bodies prove nothing here.
        """
        if test.keywords or not all(_key(a) is not None for a in test.args):
            return None
        callee = self.peek(test.func, frame)
        info = (
            callee.info
            if type(callee) is FuncV
            else self.foreign_function(callee.path)
            if type(callee) is Ref
            else None
        )
        if info is None or info.cls is not None:
            return None
        body = _predicate_body(info.node)
        if body is None:
            return None
        params, expr = body
        if len(params) != len(test.args):
            return None
        given = dict(zip(params, test.args))

        class Bind(ast.NodeTransformer):
            def visit_Name(self, node):
                return copy.deepcopy(given[node.id]) if node.id in given else node

        out = Bind().visit(copy.deepcopy(expr))
        for sub in ast.walk(out):
            ast.copy_location(sub, test)
        return out

    def narrow_flag(self, key: str, test, frame, positive: bool):
        """What a flag's truthiness proves of the values correlated with it.

        ``h = () if flag else None`` (or an ``if flag:`` that assigned ``h``): ``h``
        is not None where ``flag`` holds, while both keep those values; a named
        condition (``unit = diag is None``) narrows as its test; ``__init__``'s
        ``self.bias = ... if use_bias else None`` with ``self.use_bias = use_bias``
        makes ``self.bias`` not None under ``if self.use_bias:`` in every method.
        """
        hits = [
            var
            for var, (obj, conds) in frame.guards.items()
            if (key, positive) in conds and frame.vars.get(var) is obj
        ]
        root, _, attr = key.partition(".")
        inst = frame.vars.get(root) if attr and "." not in attr and "==" not in key else None
        if type(inst) is InstV and inst.info.guards:
            for name, conds in inst.info.guards.items():
                var = f"{root}.{name}"
                if (
                    (attr, positive) in conds
                    and var not in frame.vars
                    and not self.is_mutated(inst.info, name)
                ):
                    hits.append(var)
        if hits:
            frame = frame.copy()
            for var in hits:
                value = frame.vars.get(var)
                if value is None:
                    value = self.eval(
                        ast.Attribute(
                            ast.Name(root, ast.Load()), var.partition(".")[2], ast.Load()
                        ),
                        frame,
                    )
                frame.vars[var] = strip_none(value)
        alias = frame.aliases.get(key)
        if alias is not None and all(frame.vars.get(n) is v for n, v in alias[1]):
            frame = self.narrow(alias[0], frame, positive)
        return frame

    def narrow_compare(self, test, frame, positive):
        flag = flag_of(test)
        if flag is not None:
            frame = self.narrow_flag(flag[0], test, frame, positive == flag[1])
        op, left, right = test.ops[0], test.left, test.comparators[0]
        if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            a, b = self.peek(left, frame), self.peek(right, frame)
            if (
                type(a) is IntV
                and type(b) is IntV
                and type(a.dim) is Dim
                and type(b.dim) is Dim
                and not (a.dim.is_constant and b.dim.is_constant)
            ):
                # ``a < b`` fails or ``a > b`` holds: ``a >= b`` (strictness is dropped)
                larger = isinstance(op, (ast.Gt, ast.GtE)) == positive
                big, small = (a.dim, b.dim) if larger else (b.dim, a.dim)
                return ordered(frame, big, small, test.lineno)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(op, ast.In) == positive:
            return self.narrow_member(left, right, frame)
        if (
            isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
            and isinstance(left, ast.Call)
            and isinstance(left.func, ast.Name)
            and left.func.id == "type"
            and len(left.args) == 1
            and not left.keywords
        ):
            same = isinstance(op, (ast.Is, ast.Eq)) == positive
            return self.narrow_isinstance(
                ast.Call(left.func, [left.args[0], right], []), frame, same, exact=True
            )
        if (
            isinstance(op, (ast.Is, ast.IsNot))
            and isinstance(right, ast.Constant)
            and type(right.value) is bool
        ):
            return self.narrow_bool(left, right.value, frame, isinstance(op, ast.Is) == positive)
        if (
            isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
            and isinstance(right, ast.Constant)
            and right.value is None
        ):
            key = _key(left)
            if key is None:
                return frame
            is_none = isinstance(op, (ast.Is, ast.Eq)) == positive
            current = frame.vars.get(key)
            if current is None:
                current = self.eval(left, frame)
            frame = frame.copy()
            # `x is not None` where x is None: this branch cannot run; nor can `x is None`
            # where x is an array (a defensive check of a non-Optional parameter).
            frame.terminated = (not is_none and type(current) is NoneV) or (
                is_none and type(current) is Arr
            )
            frame.vars[key] = NONE if is_none else strip_none(current)
            return frame
        if (
            isinstance(op, (ast.Eq, ast.NotEq))
            and isinstance(op, ast.Eq) != positive
            and isinstance(right, ast.Constant)
            and type(right.value) is str
        ):
            key = _key(left)  # x != "scalar" of an int | Literal["scalar"]: an int
            current = frame.vars.get(key) if key is not None else None
            if type(current) is UnionV:
                items = tuple(
                    v for v in current.items if not (type(v) is StrV and v.value == right.value)
                )
                if len(items) < len(current.items):
                    frame = frame.copy()
                    frame.vars[key] = items[0] if len(items) == 1 else UnionV(items)
        if (
            isinstance(op, (ast.Eq, ast.NotEq))
            and isinstance(op, ast.Eq) == positive
            and _literal(right)
        ):
            key = _key(left)  # dim == -1: an equal value is not None
            if key is not None and type(frame.vars.get(key)) is UnionV:
                frame = frame.copy()
                frame.vars[key] = strip_none(frame.vars[key])
        if (
            isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))
            and isinstance(left, ast.Attribute)
            and left.attr == "dtype"
        ):
            return self.narrow_dtype(
                left.value, right, frame, isinstance(op, (ast.Eq, ast.Is)) == positive
            )
        if (
            isinstance(op, (ast.Eq, ast.NotEq))
            and isinstance(right, ast.Constant)
            and type(right.value) is int
        ):
            target = rank_owner(left)
            if target is not None:
                if isinstance(op, ast.Eq) == positive:
                    return self.narrow_rank(target, right.value, frame)
                return self.narrow_rank_not(target, right.value, frame)
        if (
            isinstance(op, (ast.Eq, ast.NotEq))
            and isinstance(op, ast.Eq) == positive
            and isinstance(left, ast.BinOp)
            and isinstance(left.op, ast.Mod)
            and isinstance(right, ast.Constant)
            and right.value == 0
        ):
            a, k = self.peek(left.left, frame), self.peek(left.right, frame)
            if (
                type(a) is IntV
                and type(k) is IntV
                and a.dim is not None
                and a.dim.is_symbol
                and k.dim is not None
            ):
                frame = frame.copy()
                frame.facts = frame.facts + ((a.dim.name, k.dim),)
            return frame
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(op, ast.Eq) == positive:
            a, b = self.peek(left, frame), self.peek(right, frame)
            pairs = []
            if type(a) is IntV and type(b) is IntV:
                pairs = [(a.dim, b.dim)]
            elif type(a) is TupleV and type(b) is TupleV and len(a.items) == len(b.items):
                pairs = [
                    (x.dim, y.dim)
                    for x, y in zip(a.items, b.items)
                    if type(x) is IntV and type(y) is IntV
                ]
            for x, y in pairs:
                if x is not None and y is not None:
                    frame = assume_equal(frame, x, y, test.lineno)
            for node, this, that in ((left, a, b), (right, b, a)):
                # ``assert Ct == self.cfg.num_channels``: the field reads as ``Ct`` on.
                key = attr_key(node) if isinstance(node, ast.Attribute) else None
                if (
                    key is not None
                    and type(this) is IntV
                    and type(that) is IntV
                    and is_field_size(this.dim)
                    and that.dim is not None
                    and not is_field_size(that.dim)
                ):
                    frame = frame.copy()
                    frame.vars[key] = that
        return frame

    def narrow_bool(self, target, literal: bool, frame, same: bool):
        """``x is True`` (``same``) or ``x is not True``: ``x`` of ``str | bool`` is the bool
        ``True`` in the one branch and ``str | False`` in the other."""
        key = _key(target)
        current = frame.vars.get(key) if key is not None else None
        if current is None:
            return frame
        members = current.items if type(current) is UnionV else (current,)
        kept: list
        if same:
            kept = [
                BoolV(literal) for v in members if type(v) is BoolV and v.value in (None, literal)
            ]
            kept += [v for v in members if type(v) is Unknown]
        else:
            kept = [
                BoolV(not literal) if type(v) is BoolV and v.value is None else v
                for v in members
                if not (type(v) is BoolV and v.value is literal)
            ]
        frame = frame.copy()
        if not kept:
            frame.terminated = True  # ``x is True`` of a str: this branch cannot run
            return frame
        frame.vars[key] = kept[0] if len(kept) == 1 else UnionV(tuple(kept))
        return frame

    def peek(self, node, frame):
        """The value of ``node`` without reporting anything (a condition is only read)."""
        self.quiet += 1
        try:
            return self.eval(node, frame)
        finally:
            self.quiet -= 1

    def current(self, key, node, frame):
        """What the frame holds under ``key``, else the value of ``node`` (peeked)."""
        found = frame.vars.get(key)
        return self.peek(node, frame) if found is None else found

    def narrow_member(self, left, right, frame):
        """``x in C`` held: ``x`` is not None, unless ``C`` is known to hold None.

        Containers tested for membership are of keys, names, kinds; one that
        holds None is rare and, when written out (``x in (None, 1)``), seen.
        """
        key = _key(left)
        if key is None:
            return frame
        current = self.current(key, left, frame)
        if type(current) is not UnionV or not any(type(v) is NoneV for v in current.items):
            return frame
        if isinstance(right, (ast.Tuple, ast.List, ast.Set)) and any(
            isinstance(e, ast.Constant) and e.value is None for e in right.elts
        ):
            return frame
        frame = frame.copy()
        frame.vars[key] = strip_none(current)
        return frame

    def narrow_rank(self, target, rank: int, frame):
        """``if x.ndim == 2:`` (``x.dim()``, ``len(x.shape)``): a ``(..., 3)`` array is
        ``(x_0, 3)`` in the branch (see ``symbolic.anonymous_axis``); a ``(*b, 3)`` one
        ``(?, 3)``; of a union of arrays (``Float["b m 3 3"] | Float["3 3"]``), the
        members that may have that rank."""
        key = _key(target)
        value = self.peek(target, frame) if key is not None else None
        if type(value) is UnionV:
            kept = [
                _of_rank(v, rank, key)
                for v in value.items
                if type(v) is Arr and (v.rank is None or v.rank == rank)
            ]
            if not kept or any(type(v) is not Arr for v in value.items):
                return frame
            frame = frame.copy()
            frame.vars[key] = kept[0] if len(kept) == 1 else UnionV(tuple(kept))
            return frame
        if type(value) is not Arr:
            return frame
        narrowed = _of_rank(value, rank, key)
        if narrowed is value:
            return frame
        frame = frame.copy()
        frame.vars[key] = narrowed
        return frame

    def narrow_rank_not(self, target, rank: int, frame):
        """The ``else`` of ``if x.ndim == 2:``: a union of arrays without its members of
        rank 2."""
        key = _key(target)
        value = self.peek(target, frame) if key is not None else None
        if type(value) is not UnionV or any(type(v) is not Arr for v in value.items):
            return frame
        kept = [v for v in value.items if v.rank != rank]
        if not kept or len(kept) == len(value.items):
            return frame
        frame = frame.copy()
        frame.vars[key] = kept[0] if len(kept) == 1 else UnionV(tuple(kept))
        return frame

    def narrow_dtype(self, target, dtype_node, frame, same: bool):
        """``if x.dtype == torch.bool:``: ``x`` has that dtype in the branch (and not,
        when it could have others, in the other one)."""
        key = _key(target)
        if key is None:
            return frame
        value, dtype = self.peek(target, frame), self.peek(dtype_node, frame)
        if type(value) is not Arr or type(dtype) is not DTypeV:
            return frame
        narrowed = _narrowed_dtypes(value.dtypes, dtype.dtype, same)
        if narrowed is value.dtypes:
            return frame
        frame = frame.copy()
        frame.vars[key] = value.with_(dtypes=narrowed)
        return frame

    def narrow_isinstance(self, test, frame, positive, exact: bool = False):
        """``isinstance(x, C)`` (or ``type(x) is C``): ``x`` is a ``C`` in the branch.

        A union keeps the members that may be a ``C`` (or, negated, those that may
        not); an instance of a checked class becomes one of the subclass tested
        for; whatever cannot be told becomes unknown, never an error.
        """
        subject = test.args[0]
        key = _key(subject)
        if key is None:
            return frame
        current = self.current(key, subject, frame)
        targets = [
            self.class_target(node)
            for node in (
                test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
            )
        ]
        items = current.items if type(current) is UnionV else (current,)
        kept = []
        for item in items:
            found = [_matches(item, t) for t in targets]
            if positive:
                if any(f is True for f in found):
                    kept.append(item)
                elif any(f is None for f in found):
                    local = [t for t in targets if type(t) is not str]
                    if len(local) == len(targets) == 1:
                        kept.append(InstV(local[0]))
                    elif item is UNKNOWN and len(targets) == 1 and targets[0] in _SCALARS:
                        # ``assert isinstance(self.cfg.radius, float)``: a float from here
                        kept.append(_SCALARS[targets[0]]())
                    else:
                        kept.append(UNKNOWN)
            elif exact or not any(f is True for f in found):
                kept.append(item)
        frame = frame.copy()
        if not kept or any(v is UNKNOWN for v in kept):
            frame.vars[key] = UNKNOWN
        else:
            frame.vars[key] = kept[0] if len(kept) == 1 else UnionV(tuple(kept))
        return frame

    def never_instance(self, test, frame) -> bool:
        """Whether ``test`` is ``isinstance(x, C)`` that no value ``x`` may hold passes
        (a tuple tested for ``Tensor``): the branch it guards is never taken."""
        if not (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
            and not test.keywords
        ):
            return False
        key = _key(test.args[0])
        if key is None:
            return False
        current = self.current(key, test.args[0], frame)
        nodes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        targets = [self.class_target(node) for node in nodes]
        items = current.items if type(current) is UnionV else (current,)
        return all(_matches(item, t) is False for item in items for t in targets)

    def class_target(self, node):
        """What ``isinstance`` tests for: a checked class (its ClassInfo, of this module
        or of another module of the project) or a name.

        Names: an array library (``"torch"``, ``"numpy"``, ``"jax"``, or
        ``"array"`` when not known), a builtin's name (``"int"``), ``"iterable"``
        for the ``collections.abc`` containers, or ``"?"`` for a class the
        checker does not know.
        """
        if isinstance(node, ast.Name) and node.id in self.module.classes:
            return self.module.classes[node.id]
        path = self.module.path_of(node) or ""
        foreign = self.foreign_class(path) if path else None
        if foreign is not None:  # a class of another module of the checked project
            return foreign
        if path.endswith(("Tensor", "ndarray", "Array")) or path == "torch.nn.Parameter":
            return {"torch": "torch", "numpy": "numpy", "jax": "jax", "jaxtyping": "jax"}.get(
                path.partition(".")[0], "array"
            )
        if path.rpartition(".")[0] in ("typing", "collections.abc") and path.rpartition(".")[2] in (
            "Iterable",
            "Sequence",
            "Collection",
        ):
            return "iterable"
        if path.startswith("builtins.") and path[9:] in _BUILTIN_KINDS:
            return path[9:]
        if path == "types.NoneType":
            return "NoneType"
        return "?"


# The values each builtin class has among the checker's values.
_ARRAY_TARGETS = frozenset({"array", "torch", "numpy", "jax"})
_BUILTIN_KINDS = {
    "int": (IntV, BoolV),
    "float": (FloatV,),
    "bool": (BoolV,),
    "str": (StrV,),
    "tuple": (TupleV,),
    "list": (ListV,),
    "NoneType": (NoneV,),
}


# What an unknown value is once ``isinstance`` finds it a builtin scalar.
_SCALARS = {"float": FloatV, "int": IntV, "bool": BoolV}


def _matches(value, target) -> bool | None:
    """Whether ``value`` is an instance of ``target`` (see ``class_target``); None: unknown."""
    t = type(value)
    if target == "?" or t is Unknown:
        return None
    if target in _ARRAY_TARGETS:
        if t is not Arr:
            return None if t is InstV else False
        return True if target == "array" or value.kind in (None, target) else False
    if target == "iterable":
        return True if t in (StrV, TupleV, ListV, Arr) else (None if t is InstV else False)
    if type(target) is str:
        if t in _BUILTIN_KINDS[target]:
            return True
        return False if t in _PLAIN else None
    if t is InstV:
        mine, theirs = value.info.lattice, target.lattice
        if mine is None or theirs is None or ANY in (mine, theirs):
            return None
        if is_subtype(mine, theirs) is True:
            return True
        return None  # a subclass of both may exist
    return False if t in _PLAIN or t is Arr else None


_PREDICATE_DEPTH = 3  # exists() calling is_none() calling ...: bounded


def _predicate_body(node):
    """``(params, expr)`` of ``def f(a, b): return expr`` whose names are its parameters
    (or predicates it calls), else None: a predicate the caller's test can stand for."""
    if not isinstance(node, ast.FunctionDef) or node.decorator_list:
        return None
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults:
        return None
    expr = wrapper_return(node)
    if expr is None:
        return None
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    called = {id(sub.func) for sub in ast.walk(expr) if isinstance(sub, ast.Call)}
    for sub in ast.walk(expr):
        if isinstance(sub, (ast.Lambda, ast.NamedExpr, ast.Await, ast.comprehension)):
            return None
        if isinstance(sub, ast.Name) and sub.id not in params and id(sub) not in called:
            return None
    return params, expr


def _of_rank(value: Arr, rank: int, key: str) -> Arr:
    """``value`` (an array of open rank: one ``...`` or ``*b``) known to have ``rank``
    axes; ``value`` itself when that says nothing new."""
    shape = value.shape
    if shape is None:
        return value
    rests = [i for i, d in enumerate(shape) if type(d) is Rest]
    if len(rests) != 1 or rank < len(shape) - 1:
        return value
    i = rests[0]
    count = rank - len(shape) + 1
    # A named ``*b`` is shared with other arrays that this test does not narrow:
    # its axes stay unknown sizes.
    axes = (
        tuple(anonymous_axis(key, j) for j in range(i, i + count))
        if shape[i].anonymous
        else (None,) * count
    )
    return value.with_(shape=(*shape[:i], *axes, *shape[i + 1 :]))


def rank_owner(node):
    """``x`` of ``x.ndim``, ``x.dim()``, ``x.ndimension()`` or ``len(x.shape)``, else None."""
    if isinstance(node, ast.Attribute) and node.attr == "ndim":
        return node.value
    if (
        isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("dim", "ndimension")
    ):
        return node.func.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Attribute)
        and node.args[0].attr == "shape"
    ):
        return node.args[0].value
    return None


def _literal(node) -> bool:
    """Whether ``node`` is a literal other than None (``3``, ``-1``, ``"mean"``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and node.value is not None


def _key(node):
    if isinstance(node, ast.NamedExpr):
        return node.target.id  # (x := f()) is not None: x is what is narrowed
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return attr_key(node)
    if isinstance(node, ast.Subscript):
        return item_key(node)
    return None


def _narrowed_dtypes(dtypes, dtype, same: bool):
    """The dtype set after ``x.dtype == dtype`` held (``same``) or failed."""
    if same:
        return frozenset({dtype})
    if dtypes is None or dtype not in dtypes or len(dtypes) == 1:
        return dtypes
    return dtypes - {dtype}


def ordered(frame, big: Dim, small: Dim, line: int):
    """``frame`` where ``big >= small`` is known (a comparison that held or failed); when
    the other order is known too, the two sizes are one (:func:`assume_equal`)."""
    if (big, small) in frame.bounds:
        return frame
    if (small, big) in frame.bounds:
        return assume_equal(frame, big, small, line)
    out = frame.copy()
    out.bounds = frame.bounds | {(big, small)}
    return out


def assume_equal(frame, a: Dim, b: Dim, line: int):
    """``frame`` where sizes ``a`` and ``b`` are known equal (after a check of them)."""
    if a is b:
        return frame
    if b.is_symbol and is_field_size(b) and not is_field_size(a):
        name, other = b.name, a  # ``Ct == cfg.num_channels``: the field is the ``Ct`` given
    elif a.is_symbol:
        name, other = a.name, b
    elif b.is_symbol:
        name, other = b.name, a
    else:
        return frame
    mapping = {name: other}
    out = frame.copy()
    out.vars = {k: _substitute(v, mapping) for k, v in frame.vars.items()}
    out.where = dict(frame.where)
    out.where.setdefault(name, f"the check at line {line}")
    out.equal[name] = other
    return out


def _substitute(value, mapping):
    t = type(value)
    if t is Arr and value.shape is not None:
        return value.with_(shape=tuple(_sub_dim(d, mapping) for d in value.shape))
    if t is IntV and value.dim is not None:
        return IntV(value.dim.substitute(mapping))
    if t is TupleV:
        return TupleV(tuple(_substitute(v, mapping) for v in value.items))
    if t is UnionV:
        return UnionV(tuple(_substitute(v, mapping) for v in value.items))
    return value


def _sub_dim(d, mapping):
    if type(d) is Dim:
        return d.substitute(mapping)
    if type(d) is Bcast:
        return Bcast(d.dim.substitute(mapping))
    return d


def flag_of(test):
    """``(key, truth)``: the test holds exactly when ``key`` has that truthiness, or None.

    >>> flag_of(ast.parse("not self.full", mode="eval").body)
    ('self.full', False)
    """
    truth = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, truth = test.operand, not truth
    if isinstance(test, (ast.Name, ast.Attribute)):
        key = _key(test)
        if key is not None:
            return key, truth
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Eq, ast.NotEq))
        and isinstance(test.comparators[0], ast.Constant)
        and type(test.comparators[0].value) in (str, int, bool)
        and isinstance(test.left, (ast.Name, ast.Attribute))
    ):
        key = _key(test.left)  # ``mode == "lidar"``: a flag of its own
        if key is not None:
            return f"{key}=={test.comparators[0].value!r}", truth == isinstance(test.ops[0], ast.Eq)
    return None


def may_be_none(value) -> bool:
    return type(value) is NoneV or (
        type(value) is UnionV and any(type(v) is NoneV for v in value.items)
    )
