"""From recorded calls to annotations (layer 7: ``annotator``).

:func:`infer_function` takes every recorded call of one function and the
function's source (an ``ast`` node) and proposes one annotation per parameter
and for the return value:

- **shared sizes**: the axes (of any parameter or the return value) whose sizes
  are equal in every call share one name; an axis whose size varies gets a name;
  a size that never varies stays a number only when the number is written in the
  function's source (``3`` for xyz in ``view(-1, 3)``), else it gets a name too,
  since one run's constant is often another run's variable;
- **variadic prefixes**: when a parameter's rank varies across calls, the
  leading axes become ``*batch`` (shared by the parameters whose leading axes are
  the same in every call), the trailing ones are named as above;
- **names from the code**: an int of the code whose value equals the size in
  every call names it, when only one does: the function's own int parameter
  (``k``), the constructor's (``d_model`` of ``__init__(self, d_model)``) or an
  int attribute of ``self``; such a name ties the annotation to the code, so the
  static checker can relate it to the layers built from that int. Otherwise
  ``b, t, c = x.shape`` (or ``x.size()``) and ``n = x.shape[0]`` in the body name
  those axes; otherwise generic names (``batch`` for a varying leading axis,
  then ``n``, ``m``, ``k``, ...);
- **dtype classes** as narrow as the calls allow (``Float32`` when every call
  was float32, ``Float`` for float32 and float64, ``Shaped`` for a mix of kinds);
- the array library kept (``torch.Tensor``, ``np.ndarray``, ``jax.Array``), spelt
  as the module imports it.

Parameters with other values get a builtin type when every call agrees (``int``,
``float`` for ints and floats, ``str``, ``bool``, ``X | None``); anything else is
left alone: an annotation is proposed only where the records support it.
"""

from __future__ import annotations

import ast
import itertools
import keyword
from dataclasses import dataclass, field

__all__ = [
    "Proposal",
    "FunctionPlan",
    "infer_function",
    "dtype_class",
    "dtypes_written",
    "source_ints",
    "widen_dtype_class",
]

_FLOATS = {"float16": "Float16", "bfloat16": "BFloat16", "float32": "Float32", "float64": "Float64"}
_INTS = {"int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64"}
_UINTS = {"uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}
_COMPLEX = {"complex64": "Complex64", "complex128": "Complex128"}
_GENERIC = ("n", "m", "k", "p", "q", "r", "s", "u", "v", "w")
_RETURN = "return"


def dtype_class(dtypes) -> str:
    """The narrowest jaxtyping dtype class holding every dtype in ``dtypes``.

    >>> dtype_class({"float32"}), dtype_class({"float32", "float64"}), dtype_class({"int64", "bool"})
    ('Float32', 'Float', 'Shaped')
    """
    dtypes = set(dtypes)
    for table, wide in (
        (_FLOATS, "Float"),
        (_INTS, "Int"),
        (_UINTS, "UInt"),
        (_COMPLEX, "Complex"),
    ):
        if dtypes <= set(table):
            return table[next(iter(dtypes))] if len(dtypes) == 1 else wide
    if dtypes == {"bool"}:
        return "Bool"
    if dtypes <= set(_INTS) | set(_UINTS):
        return "Integer"
    if dtypes <= set(_INTS) | set(_UINTS) | set(_FLOATS):
        return "Real"
    return "Shaped"


# How code names each dtype: ``torch.float32``/``np.float32``/``x.float()``/``"float32"``
# (attributes and strings; the builtins ``float`` and ``int`` as names are no dtype).
_DTYPE_WORDS = {
    "float16": ("float16", "half"),
    "bfloat16": ("bfloat16",),
    "float32": ("float32", "float", "single"),
    "float64": ("float64", "double"),
    "int8": ("int8",),
    "int16": ("int16", "short"),
    "int32": ("int32", "int"),
    "int64": ("int64", "long"),
    "uint8": ("uint8",),
    "uint16": ("uint16",),
    "uint32": ("uint32",),
    "uint64": ("uint64",),
    "complex64": ("complex64", "cfloat"),
    "complex128": ("complex128", "cdouble"),
}
_WORD_DTYPE = {word: dtype for dtype, words in _DTYPE_WORDS.items() for word in words}
_BUILTIN_WORDS = frozenset({"float", "int"})


def dtypes_written(node) -> set:
    """The dtypes a function's code names: it builds or converts arrays to them.

    >>> sorted(dtypes_written(ast.parse("def f(x):\\n    return x.float() + zeros(3, dtype='int64')")))
    ['float32', 'int64']
    >>> dtypes_written(ast.parse("def f(t):\\n    return -torch.finfo(t.dtype).max + float(1)"))
    set()
    """
    found: set = set()
    for sub in ast.walk(node):
        word = None
        if isinstance(sub, ast.Attribute):
            word = sub.attr
        elif isinstance(sub, ast.Name) and sub.id not in _BUILTIN_WORDS:
            word = sub.id
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            word = sub.value
        if word in _WORD_DTYPE:
            found.add(_WORD_DTYPE[word])
    return found


def dtype_uses(func) -> tuple:
    """``(passes_through, tested)``: whether the body reads a dtype (``t.dtype``,
    ``x.type_as(y)``: its results follow their inputs' dtypes), and the parameters
    whose dtype it tests (``pos.dtype != torch.long``, ``x.is_floating_point()``: it
    takes other kinds than the tests passed).

    >>> source = "def f(t, pos):\\n    if pos.dtype != torch.long:\\n        return t.float()"
    >>> dtype_uses(ast.parse(source).body[0])
    (True, {'pos'})
    """
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    passes = False
    tested: set = set()

    def param_of(node):
        return node.id if isinstance(node, ast.Name) and node.id in params else None

    for sub in ast.walk(func):
        if isinstance(sub, ast.Attribute) and sub.attr in ("dtype", "type_as"):
            passes = True
        if isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Attribute, ast.Name)):
            name = sub.func.attr if isinstance(sub.func, ast.Attribute) else sub.func.id
            if name in ("is_floating_point", "is_complex"):
                owner = (
                    param_of(sub.args[0])
                    if sub.args
                    else param_of(sub.func.value)
                    if isinstance(sub.func, ast.Attribute)
                    else None
                )
                if owner:
                    tested.add(owner)
        if isinstance(sub, ast.Compare):
            for side in (sub.left, *sub.comparators):
                if isinstance(side, ast.Attribute) and side.attr == "dtype":
                    owner = param_of(side.value)
                    if owner:
                        tested.add(owner)
    return passes, tested


def widen_dtype_class(cls: str) -> str:
    """The kind of a one-dtype class: ``Float32`` -> ``Float``, ``Int64`` -> ``Int``.

    >>> widen_dtype_class("Float32"), widen_dtype_class("UInt8"), widen_dtype_class("Bool")
    ('Float', 'UInt', 'Bool')
    """
    for table, wide in (
        (_FLOATS, "Float"),
        (_INTS, "Int"),
        (_UINTS, "UInt"),
        (_COMPLEX, "Complex"),
    ):
        if cls in table.values():
            return wide
    return cls


def source_ints(node) -> set:
    """The int literals written in a function (or class) body: sizes the code states.

    >>> source_ints(ast.parse("def f(x):\\n    return x.view(-1, 3)"))
    {3}
    """
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and type(sub.value) is int and sub.value > 1:
            found.add(sub.value)
    return found


_SHAPE_CALLS = frozenset(
    {
        "view",
        "reshape",
        "expand",
        "repeat",
        "tile",
        "broadcast_to",
        "split",
        "chunk",
        "unflatten",
        "narrow",
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "arange",
        "eye",
        "Linear",
        "Embedding",
        "Conv1d",
        "Conv2d",
        "Conv3d",
    }
)


def shape_ints(node) -> set:
    """The int literals a function writes as sizes: arguments of shape-making calls
    (``view(-1, 3)``, ``zeros(n, 4)``, ``Linear(d, 3)``) and numbers compared with a
    size (``x.shape[-1] == 3``), not an ``ndim`` test's 4 or an index's 2.

    >>> sorted(shape_ints(ast.parse("def f(x):\\n    assert x.ndim == 4\\n"
    ...                              "    return x[2].view(-1, 3)")))
    [3]
    """
    found: set = set()

    def is_size(expr) -> bool:
        return any(
            isinstance(sub, ast.Attribute) and sub.attr in ("shape", "size")
            for sub in ast.walk(expr)
        )

    for sub in ast.walk(node):
        parts: list = []
        if isinstance(sub, ast.Call):
            callee = (
                sub.func.attr
                if isinstance(sub.func, ast.Attribute)
                else sub.func.id
                if isinstance(sub.func, ast.Name)
                else None
            )
            if callee in _SHAPE_CALLS:
                parts = [*sub.args, *(k.value for k in sub.keywords)]
        elif isinstance(sub, ast.Compare) and any(
            is_size(side) for side in (sub.left, *sub.comparators)
        ):
            parts = [sub.left, *sub.comparators]
        for part in parts:
            found |= (
                source_ints(part)
                if not isinstance(part, ast.Constant)
                else ({part.value} if type(part.value) is int and part.value > 1 else set())
            )
    return found


def _shape_names(func) -> dict:
    """``{(param, axis): name}`` from ``a, b = x.shape``/``x.size()`` and ``n = x.shape[i]``."""
    names: dict = {}

    def source_of(value):
        # x.shape, x.size(), x.shape[...] -> ("x", None) / ("x", index)
        if (
            isinstance(value, ast.Attribute)
            and value.attr == "shape"
            and isinstance(value.value, ast.Name)
        ):
            return value.value.id, None
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "size"
            and isinstance(value.func.value, ast.Name)
        ):
            if not value.args:
                return value.func.value.id, None
            arg = value.args[0]
            if isinstance(arg, ast.Constant) and type(arg.value) is int:
                return value.func.value.id, arg.value
            if (
                isinstance(arg, ast.UnaryOp)
                and isinstance(arg.op, ast.USub)
                and isinstance(arg.operand, ast.Constant)
                and type(arg.operand.value) is int
            ):
                return value.func.value.id, -arg.operand.value
        if isinstance(value, ast.Subscript):
            inner = source_of(value.value)
            if inner is not None and inner[1] is None:
                index = value.slice
                if isinstance(index, ast.Constant) and type(index.value) is int:
                    return inner[0], index.value
                if (
                    isinstance(index, ast.UnaryOp)
                    and isinstance(index.op, ast.USub)
                    and isinstance(index.operand, ast.Constant)
                ):
                    return inner[0], -index.operand.value
        return None

    # A name reassigned in the body (``x = self.embed(x)``) is another array from then
    # on: only the reads before its first assignment describe the parameter.
    rebound = _rebound_lines(func)
    for sub in ast.walk(func):
        if not isinstance(sub, ast.Assign) or len(sub.targets) != 1:
            continue
        target, found = sub.targets[0], source_of(sub.value)
        if found is None:
            continue
        param, index = found
        if sub.lineno > rebound.get(param, sub.lineno):
            continue
        if index is None and isinstance(target, (ast.Tuple, ast.List)):
            for axis, element in enumerate(target.elts):
                if isinstance(element, ast.Name) and element.id != "_":
                    names.setdefault((param, axis), element.id)
                elif isinstance(element, ast.Starred):
                    break
        elif index is not None and isinstance(target, ast.Name):
            names.setdefault((param, index), target.id)
    return names


def unequal_axes(calls) -> set:
    """Pairs of array axes seen with different sizes in one recorded call.

    Each axis is ``(parameter, rank, axis)``; a pair is a frozenset of two. The calls
    of one method are evidence for another method of the same class taking
    parameters of the same names (``Attend.forward(q, k, ...)`` calls
    ``self.flash_attn(q, k, ...)``): keys longer than the queries there mean their
    lengths are not one size here either, whatever the tests passed to this one.

    >>> arr = lambda *s: {"k": "array", "lib": "numpy", "dtype": "float32", "shape": list(s)}
    >>> found = unequal_axes([({"q": arr(2, 3), "k": arr(2, 5)}, None, {})])
    >>> frozenset({("q", 2, 1), ("k", 2, 1)}) in found, frozenset({("q", 2, 0), ("k", 2, 0)}) in found
    (True, False)
    """
    found: set = set()
    for call in calls:
        args = dict(call[0]) if isinstance(call[0], dict) else {}
        args[_RETURN] = call[1]
        axes = [
            ((name, len(v["shape"]), axis), size)
            for name, v in args.items()
            if isinstance(v, dict) and v.get("k") == "array"
            for axis, size in enumerate(v["shape"])
        ]
        for (a, x), (b, y) in itertools.combinations(axes, 2):
            if x != y:
                found.add(frozenset((a, b)))
    return found


_UNIT_AXES = frozenset(
    {
        "unsqueeze",
        "view",
        "reshape",
        "expand",
        "rearrange",
        "repeat",
        "unflatten",
        "einsum",
        "pack",
        "unpack",
        "expand_dims",
        "new_zeros",
        "new_ones",
        "zeros",
        "ones",
        "full",
        "empty",
    }
)


def builds_unit_axes(node) -> bool:
    """Whether a function writes something that makes a size-1 axis: ``unsqueeze``,
    ``x[:, None]``, ``keepdim=True``, a reshape or rearrange. A result's 1 is the
    code's only then; ``a | b`` of the tests' ``(b, 1, 1, n)`` masks keeps theirs.

    >>> builds_unit_axes(ast.parse("def f(x):\\n    return x[:, None]"))
    True
    >>> builds_unit_axes(ast.parse("def f(a, b):\\n    return a | b"))
    False
    """
    if _callees(node) & _UNIT_AXES:
        return True
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            if any(k.arg in ("keepdim", "keepdims") for k in sub.keywords):
                return True
        elif isinstance(sub, ast.Subscript):
            index = sub.slice
            items = index.elts if isinstance(index, ast.Tuple) else [index]
            if any(isinstance(i, ast.Constant) and i.value is None for i in items):
                return True
    return False


_RESHAPES = frozenset(
    {
        "view",
        "reshape",
        "flatten",
        "unflatten",
        "rearrange",
        "einsum",
        "permute",
        "transpose",
        "squeeze",
        "unsqueeze",
        "movedim",
        "moveaxis",
        "pack",
        "unpack",
    }
)


def _reshapes(func) -> bool:
    """Whether ``func`` calls something that moves or regroups axes (``reshape``,
    ``rearrange``, ``transpose``...): its rank is then the code's, not the caller's."""
    return bool(_callees(func) & _RESHAPES)


def _callees(node) -> set:
    """The names called in ``node``: ``f`` of ``f(x)`` and ``view`` of ``x.view(...)``."""
    return {
        sub.func.attr if isinstance(sub.func, ast.Attribute) else sub.func.id
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Attribute, ast.Name))
    }


def _calls_own_layers(func) -> bool:
    """Whether ``func`` hands values to a layer or method of its own (``self.attn(x)``):
    that one's rank requirements, which no recorded call shows, are then its too."""
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and isinstance(sub.func.value, ast.Name)
        and sub.func.value.id == "self"
        for sub in ast.walk(func)
    )


def open_ranks(func) -> dict:
    """``{param: ranks}`` a function compares its parameters' ranks with (``x.ndim ==
    3``, ``x.dim() in (2, 3)``, ``len(x.shape) < 4``), read before the body reassigns
    them: the code expects ranks other than those one test run passed. An
    ``x.expand(b, h, -1, -1)`` counts as a test of rank 3 (two axes kept, one more
    that may be missing).

    >>> source = "def f(k, v):\\n    if k.ndim == 3:\\n        k = k[None]\\n    return k.ndim"
    >>> open_ranks(ast.parse(source).body[0])
    {'k': {3}}
    """
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    rebound: dict = {}
    for sub in ast.walk(func):
        if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        rebound[name.id] = min(rebound.get(name.id, sub.lineno), sub.lineno)
    found: dict = {}
    for sub in ast.walk(func):
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in ("expand", "broadcast_to")
            and isinstance(sub.func.value, ast.Name)
            and sub.func.value.id in params
            and sub.lineno <= rebound.get(sub.func.value.id, sub.lineno)
            and len(sub.args) > 1
        ):
            # ``bias.expand(b, h, -1, -1)``: the axes before the kept ones may be
            # missing or 1; the code names a rank of one more than it keeps.
            kept = 0
            for arg in reversed(sub.args):
                if not (
                    isinstance(arg, ast.UnaryOp)
                    and isinstance(arg.op, ast.USub)
                    and isinstance(arg.operand, ast.Constant)
                    and arg.operand.value == 1
                ):
                    break
                kept += 1
            found.setdefault(sub.func.value.id, set()).add(kept + 1)
        if not isinstance(sub, ast.Compare):
            continue
        sides = [sub.left, *sub.comparators]
        numbers: set = set()
        for side in sides:
            items = side.elts if isinstance(side, (ast.Tuple, ast.Set, ast.List)) else [side]
            numbers |= {
                i.value for i in items if isinstance(i, ast.Constant) and type(i.value) is int
            }
        for side in sides:
            target = _rank_read(side)
            if target in params and numbers and sub.lineno <= rebound.get(target, sub.lineno):
                found.setdefault(target, set()).update(numbers)
    return found


def _rebound_lines(func) -> dict:
    """``{name: the first line assigning it}`` in ``func``'s body."""
    rebound: dict = {}
    for sub in ast.walk(func):
        targets = (
            sub.targets
            if isinstance(sub, ast.Assign)
            else [sub.target]
            if isinstance(sub, (ast.AugAssign, ast.AnnAssign, ast.For))
            else []
        )
        line = getattr(sub, "lineno", 0)
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    rebound[name.id] = min(rebound.get(name.id, line), line)
    return rebound


def passed_on(func) -> list:
    """``(param, callee, where)`` for each parameter ``func`` passes as it is to a call,
    before the body reassigns it: ``callee`` is ``("self", attr)`` for
    ``self.attr(param)`` (a layer the object holds, or a method) or ``("name", f)`` for
    ``f(param)``; ``where`` is the argument's position or keyword.

    >>> source = "def f(self, pos):\\n    return self.rotary(pos), g(t=pos)"
    >>> passed_on(ast.parse(source).body[0])
    [('pos', ('self', 'rotary'), 0), ('pos', ('name', 'g'), 't')]
    """
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    rebound = _rebound_lines(func)
    found: list = []
    for sub in ast.walk(func):
        if not isinstance(sub, ast.Call):
            continue
        target = sub.func
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            callee = ("self", target.attr)
        elif isinstance(target, ast.Name):
            callee = ("name", target.id)
        else:
            continue
        places: list = list(enumerate(sub.args))
        if any(isinstance(a, ast.Starred) for a in sub.args):
            places = places[: next(i for i, a in enumerate(sub.args) if isinstance(a, ast.Starred))]
        places += [(k.arg, k.value) for k in sub.keywords if k.arg is not None]
        for where, arg in places:
            if (
                isinstance(arg, ast.Name)
                and arg.id in params
                and sub.lineno <= rebound.get(arg.id, sub.lineno)
            ):
                found.append((arg.id, callee, where))
    return found


def _replaced_when_absent(func) -> set:
    """The parameters the body gives a value of its own when the caller passed none:
    ``if not exists(pos): pos = arange(n)`` (an ``if`` testing the parameter that
    assigns it) or ``pos = pos if pos is not None else arange(n)``.

    >>> source = "def f(x, pos=None):\\n    if not exists(pos):\\n        pos = arange(3)"
    >>> _replaced_when_absent(ast.parse(source).body[0])
    {'pos'}
    """
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}

    def reads(node, name) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))

    def absent(test, name) -> bool:
        # ``not exists(p)``, ``not p``, ``p is None``
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return reads(test.operand, name)
        return (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.Eq))
            and isinstance(test.left, ast.Name)
            and test.left.id == name
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        )

    found: set = set()
    for sub in ast.walk(func):
        if isinstance(sub, ast.If):
            found |= {
                p
                for p in params
                if absent(sub.test, p)
                and any(
                    isinstance(a, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == p for t in a.targets)
                    and not reads(a.value, p)
                    for stmt in sub.body
                    for a in ast.walk(stmt)
                )
            }
        elif (
            isinstance(sub, ast.Assign)
            and isinstance(sub.value, ast.IfExp)
            and len(sub.targets) == 1
            and isinstance(sub.targets[0], ast.Name)
            and sub.targets[0].id in params
        ):
            p, value = sub.targets[0].id, sub.value
            if reads(value.test, p) and any(
                isinstance(mine, ast.Name) and mine.id == p and not reads(theirs, p)
                for mine, theirs in ((value.body, value.orelse), (value.orelse, value.body))
            ):
                found.add(p)
    return found


def _ranks_when_absent(func, calls, arrays, present, value_of) -> dict:
    """``{param: ranks}`` for a parameter the body replaces when it is None (see
    :func:`_replaced_when_absent`) when the result, in the calls without it, had a rank
    it never had in the calls with it: the code's own value has another rank than the
    callers' (x-transformers' ``AbsolutePositionalEmbedding.forward(x, pos=None)``
    builds ``arange(n)`` of rank 1 and returns ``(n, d)``; the one test that passed
    positions passed ``(b, n)`` and got ``(b, n, d)``). Its rank is then open: the ranks
    recorded, and the code's by that difference.
    """
    found: dict = {}
    results = [slot for slot in arrays if slot.split(".")[0] == _RETURN]
    for p in _replaced_when_absent(func):
        if p not in arrays:
            continue
        absent = [i for i, c in enumerate(calls) if (value_of(c, p) or {}).get("k") == "none"]
        given = dict(zip(present[p], (len(v["shape"]) for v in arrays[p])))
        for result in results:
            rank = dict(zip(present[result], (len(v["shape"]) for v in arrays[result])))
            with_p = {rank[i] for i in given if i in rank}
            only_without = {rank[i] for i in absent if i in rank} - with_p
            if with_p and only_without:
                found[p] = set(given.values()) | {
                    r + shift
                    for r in given.values()
                    for shift in {a - b for a in only_without for b in with_p}
                    if r + shift >= 0
                }
                break
    return found


def _rank_read(node) -> str | None:
    """``x`` of ``x.ndim``, ``x.dim()``, ``x.ndimension()``, ``len(x.shape)``."""
    from tensortypes.check.refine import rank_owner  # (the checker reads ranks so too)

    target = rank_owner(node)
    return target.id if isinstance(target, ast.Name) else None


def _broadcast_of(sizes, named: dict) -> str | None:
    """``#n`` when a size was 1 in some calls and the named size ``n`` in the others
    (rotary frequencies shared by all heads or given per head), else None."""
    known = [i for i, s in enumerate(sizes) if s is not None]
    fits = [
        name
        for name, values in named.items()
        if name.isidentifier()
        and all(values[i] is not None and sizes[i] in (1, values[i]) for i in known)
        and any(sizes[i] == 1 != values[i] for i in known)
        and any(sizes[i] == values[i] != 1 for i in known)
    ]
    return f"#{fits[0]}" if len(fits) == 1 else None


def _returns_passed_on(func, others: set) -> str | None:
    """Why the result of ``func`` is not its own, or None: it returns what a callable it
    holds returns, forwarding its ``*args``/``**kwargs`` (``return self.fn(x, *args,
    **kwargs)``), or an item of a container argument (``return it[0] if it else
    default``), whose kind the calls recorded say nothing general about."""
    found = [
        sub.value for sub in ast.walk(func) if isinstance(sub, ast.Return) and sub.value is not None
    ]
    if not found:
        return None

    def leaves(node):
        if isinstance(node, ast.IfExp):
            return leaves(node.body) + leaves(node.orelse)
        return [node]

    def forwarded(node) -> bool:
        return (
            isinstance(node, ast.Call)
            and (
                any(isinstance(a, ast.Starred) for a in node.args)
                or any(k.arg is None for k in node.keywords)
            )
            and (
                isinstance(node.func, ast.Name)
                and node.func.id in others
                or isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "self"
            )
        )

    def item(node) -> bool:
        if isinstance(node, ast.Subscript):
            node = node.value
        return isinstance(node, ast.Name) and node.id in others

    ends = [leaf for value in found for leaf in leaves(value)]
    if any(forwarded(leaf) for leaf in ends):
        return "what a callable it holds returns"
    if all(item(leaf) for leaf in ends) and any(isinstance(leaf, ast.Subscript) for leaf in ends):
        return "an item of a container argument"
    return None


def _returned_params(func) -> set:
    """The parameters ``func`` returns as they are: ``return val if exists(val) else d``
    gives ``val`` and ``d``; ``for arg in args: ... return arg`` gives ``args``.

    >>> source = "def default(*args):\\n    for arg in args:\\n        if arg:\\n            return arg"
    >>> sorted(_returned_params(ast.parse(source).body[0]))
    ['args']
    """
    a = func.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    items = {
        sub.target.id: sub.iter.id
        for sub in ast.walk(func)
        if isinstance(sub, ast.For)
        and isinstance(sub.target, ast.Name)
        and isinstance(sub.iter, ast.Name)
        and sub.iter.id in params
    }

    def leaves(node):
        if isinstance(node, ast.IfExp):
            return leaves(node.body) + leaves(node.orelse)
        if isinstance(node, ast.BoolOp):
            return [leaf for value in node.values for leaf in leaves(value)]
        return [node]

    found: set = set()
    for sub in ast.walk(func):
        if isinstance(sub, ast.Return) and sub.value is not None:
            for leaf in leaves(sub.value):
                if isinstance(leaf, ast.Name) and leaf.id in params:
                    found.add(leaf.id)
                elif isinstance(leaf, ast.Name) and leaf.id in items:
                    found.add(items[leaf.id])
    return found


def _none_defaults(func) -> set:
    """The parameters whose default is ``None``."""
    a = func.args
    positional = [*a.posonlyargs, *a.args]
    pairs = list(zip(positional[len(positional) - len(a.defaults) :], a.defaults))
    pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    return {p.arg for p, d in pairs if isinstance(d, ast.Constant) and d.value is None}


def _returns_state(func) -> bool:
    """Whether every ``return`` of ``func`` returns an attribute of ``self``."""
    found = [
        sub.value for sub in ast.walk(func) if isinstance(sub, ast.Return) and sub.value is not None
    ]
    return bool(found) and all(
        isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self"
        for v in found
    )


def _return_widths(func) -> set:
    """How each ``return`` of ``func`` (not of nested functions) builds its value: the
    length of a tuple written out, else 0 (a value of any kind); None values aside."""
    widths: set = set()

    def visit(nodes):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(node, ast.Return) and node.value is not None:
                value = node.value
                if isinstance(value, ast.Constant) and value.value is None:
                    continue
                widths.add(len(value.elts) if isinstance(value, ast.Tuple) else 0)
            visit(ast.iter_child_nodes(node))

    visit(func.body)
    return widths


@dataclass
class Proposal:
    """One proposed annotation: its source text and the names it imports."""

    text: str
    imports: set = field(default_factory=set)  # ("module", "name") pairs


@dataclass
class FunctionPlan:
    """What :func:`infer_function` proposes for one function, and why not elsewhere."""

    params: dict  # name -> Proposal
    returns: Proposal | None
    notes: list  # params left alone, with the reason


class _Libraries:
    """How the module spells each array library's array type, and what to import."""

    def __init__(self, module_tree) -> None:
        self.aliases: dict = {}  # module -> alias in this file ("numpy" -> "np")
        self.names: dict = {}  # ("torch", "Tensor") -> local name
        for node in ast.walk(module_tree) if module_tree is not None else ():
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases.setdefault(a.name, a.asname or a.name)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.names.setdefault((node.module, a.name), a.asname or a.name)

    def array_type(self, lib: str) -> Proposal | None:
        module, cls = {
            "torch": ("torch", "Tensor"),
            "numpy": ("numpy", "ndarray"),
            "jax": ("jax", "Array"),
        }.get(lib, (None, None))
        if module is None:
            return None
        if (module, cls) in self.names:
            return Proposal(self.names[(module, cls)])
        if module in self.aliases:
            return Proposal(f"{self.aliases[module]}.{cls}")
        if module == "numpy":
            return Proposal("np.ndarray", {("import", "numpy as np")})
        return Proposal(f"{module}.{cls}", {("import", module)})


def _layer_ints(class_node) -> set:
    """The names ``__init__`` passes as they are to a class it builds (``nn.Linear(dim,
    4 * dim)`` gives ``dim``; ``config.n_embd`` gives ``n_embd``).

    >>> sorted(_layer_ints(ast.parse("class A:\\n    def __init__(self, d, h):\\n"
    ...     "        self.proj = nn.Linear(d, h * 2)").body[0]))
    ['d']
    """
    found: set = set()
    for node in getattr(class_node, "body", ()):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for sub in ast.walk(node):
                if not isinstance(sub, ast.Call):
                    continue
                callee = sub.func.attr if isinstance(sub.func, ast.Attribute) else None
                callee = callee or (sub.func.id if isinstance(sub.func, ast.Name) else "")
                if not callee[:1].isupper():
                    continue
                for arg in (*sub.args, *(k.value for k in sub.keywords)):
                    if isinstance(arg, ast.Name):
                        found.add(arg.id)
                    elif isinstance(arg, ast.Attribute):
                        found.add(arg.attr)
    return found


def _init_names(class_node) -> set:
    """The names a class's ``__init__`` reads or sets: its parameters, attributes, fields.

    >>> sorted(_init_names(ast.parse(
    ...     "class A:\\n    def __init__(self, config):\\n        self.h = config.n_head").body[0]))
    ['config', 'h', 'n_head', 'self']
    """
    found: set = set()
    for node in getattr(class_node, "body", ()):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for sub in ast.walk(node):
                if isinstance(sub, ast.arg):
                    found.add(sub.arg)
                elif isinstance(sub, ast.Name):
                    found.add(sub.id)
                elif isinstance(sub, ast.Attribute):
                    found.add(sub.attr)
    return found


def _expression(sizes: tuple, atoms: dict, constants: set) -> str | None:
    """The one simplest expression of ``atoms`` equal to ``sizes`` in every call, if any.

    ``atoms``: text (a size's name, or ``{p}`` for an int parameter) -> its value per
    call. Only a size that varies across calls is expressed (a constant fits too many);
    forms are tried from the simplest, and two fits of one form are ambiguous (None).

    >>> _expression((6, 10), {"t": (2, 5), "{k}": (4, 5)}, set())
    't+{k}'
    >>> _expression((8, 12), {"d": (2, 3)}, {4})
    '4*d'
    """
    known = [i for i, s in enumerate(sizes) if s is not None]
    if len({sizes[i] for i in known}) < 2:
        return None
    usable = {t: v for t, v in atoms.items() if all(v[i] is not None for i in known)}

    def fits(value) -> bool:
        return all(value(i) == sizes[i] for i in known)

    pairs = list(itertools.combinations(usable, 2))
    steps = sorted(constants | {1})
    forms = (
        [
            f"{c}*{a}"
            for c in sorted(constants)
            for a in usable
            if fits(lambda i, a=a, c=c: c * usable[a][i])
        ],
        [f"{a}*{b}" for a, b in pairs if fits(lambda i, a=a, b=b: usable[a][i] * usable[b][i])],
        [f"{a}+{b}" for a, b in pairs if fits(lambda i, a=a, b=b: usable[a][i] + usable[b][i])],
        [
            f"{a}-{b}"
            for a, b in itertools.permutations(usable, 2)
            if fits(lambda i, a=a, b=b: usable[a][i] - usable[b][i])
        ],
        [
            f"{a}{sign}{c}"
            for a in usable
            for c in steps
            for sign in "+-"
            if fits(lambda i, a=a, c=c, sign=sign: usable[a][i] + (c if sign == "+" else -c))
        ],
        [
            f"{a}//{c}"
            for c in sorted(constants)
            for a in usable
            if fits(lambda i, a=a, c=c: usable[a][i] // c)
        ],
    )
    for found in forms:
        if found:
            return found[0] if len(found) == 1 else None
    return None


def _at(arrays, present, slot, call):
    """The array ``slot`` held in recorded call number ``call`` (a list of 0 or 1)."""
    return [arrays[slot][j] for j, i in enumerate(present[slot]) if i == call]


def _code_ints(calls, params, class_node) -> tuple:
    """``(int_params, self_attrs)``: each int of the code with its value per call."""
    int_params = {}
    for p in params:
        seen = [c[0].get(p) for c in calls]
        if seen and all(
            v is not None and v.get("k") == "int" and v.get("v") is not None for v in seen
        ):
            int_params[p] = tuple(v["v"] for v in seen)
    self_attrs: dict = {}
    # Calls of an object built without its constructor (a ``deepcopy`` of a layer) have
    # no ints recorded: ``None`` there, which any size matches (:func:`_matches`); at
    # least two calls with ints are needed.
    known = [c for c in calls if c[2]]
    if len(known) > 1 or (known and len(calls) == 1):
        common = set(known[0][2])
        for c in known[1:]:
            common &= set(c[2])
        # Only the sizes a layer is built from: names its constructor reads
        # (``__init__(self, dim)``, ``config.n_embd``, ``self.heads = heads``), not the
        # state a call leaves behind (a cache length that equals this call's length).
        built_from = _init_names(class_node)
        for attr in sorted(common):
            if attr in built_from:
                self_attrs[attr] = tuple(c[2][attr] if c[2] else None for c in calls)
    return int_params, self_attrs


def _matches(values: tuple, sizes: tuple) -> bool:
    """Whether an int of the code (``values`` per call, None where not recorded) equals
    ``sizes`` in every call that recorded it."""
    return all(v is None or v == s for v, s in zip(values, sizes))


def alternatives(func) -> list:
    """Groups of parameters the body uses in one role: assigned, as they are, to one
    local (``input_mask = context_mask`` ... ``input_mask = mask``: either is the key
    mask).

    >>> source = ("def f(x, mask, context_mask):\\n    m = context_mask\\n"
    ...           "    if m is None:\\n        m = mask")
    >>> alternatives(ast.parse(source).body[0])
    [['context_mask', 'mask']]
    """
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    roles: dict = {}
    for sub in ast.walk(func):
        if (
            isinstance(sub, ast.Assign)
            and len(sub.targets) == 1
            and isinstance(sub.targets[0], ast.Name)
            and isinstance(sub.value, ast.Name)
            and sub.value.id in params
            and sub.targets[0].id not in params
        ):
            roles.setdefault(sub.targets[0].id, set()).add(sub.value.id)
    return [sorted(group) for group in roles.values() if len(group) > 1]


def _role_unequal(func, calls) -> set:
    """Axes seen unequal in this function's calls, carried over to the parameters of
    the same role (:func:`alternatives`): the self-attention key mask came as
    ``context_mask``, longer than the cached step's queries, in some calls and as
    ``mask`` in others; that ``mask`` was as long as the queries in its calls is the
    tests' choice (no test cached with a ``mask``). Keys both by axis and, for a
    parameter of open rank, by axis from the end."""
    found: set = set()
    groups = alternatives(func)
    if not groups:
        return found
    for pair in unequal_axes(calls):
        a, b = tuple(pair)
        for one, other in ((a, b), (b, a)):
            for group in groups:
                if one[0] not in group:
                    continue
                for mate in group:
                    if mate == one[0]:
                        continue
                    for x in ((mate, *one[1:]), (mate, None, one[2] - one[1])):
                        for y in (other, (other[0], None, other[2] - other[1])):
                            found.add(frozenset((x, y)))
    return found


def _split_coincidences(
    sizes, members, arrays, prefix, unequal, int_params, self_attrs, unsure, separated
):
    """The parts of one group of equal sizes that the evidence lets share a name.

    Equal sizes in every recorded call may be the tests' choice, not the code's:
    - two ints of the code equal to the size (``LoRALinear(dim_in, dim_out)`` built
      with ``dim_in == dim_out``): each array keeps its own name for it;
    - one array's two axes of a size that never varied (a ``(4, 4)`` attention bias
      when no test cached) are two sizes; when other arrays have that size too
      (``points @ rotation.T + offset`` tested with 3x3 rotations only), which of
      the two is theirs is unknown: every array gets its own name for it, and the
      array holding it twice goes into ``unsure`` (left alone);
    - axes that another method of the class saw unequal, under the same parameter
      names (``unequal``), are two sizes here too.
    """
    parts = _coincidence_parts(sizes, members, arrays, prefix, unequal, int_params, self_attrs)
    if isinstance(parts, tuple):
        unsure.update(parts[1])
        parts = parts[0]
    # (Arrays whose sizes were told apart share no variadic name either.)
    for one, other in itertools.combinations(parts, 2):
        separated.update(frozenset((a[0], b[0])) for a in one for b in other if a[0] != b[0])
    return parts


def _coincidence_parts(sizes, members, arrays, prefix, unequal, int_params, self_attrs):
    slots = list(dict.fromkeys(pos[0] for pos in members))
    fits = [p for p, v in int_params.items() if v == sizes]
    fits += [a for a, v in self_attrs.items() if _matches(v, sizes) and a not in fits]
    if len(fits) > 1 and len(slots) > 1:
        return [[pos for pos in members if pos[0] == slot] for slot in slots]
    constant = len({x for x in sizes if x is not None}) == 1

    def key(pos):
        slot, axis = pos
        rank = None if slot in prefix else len(arrays[slot][0]["shape"])
        return (slot, rank, axis) if axis >= 0 or rank is None else (slot, rank, axis + rank)

    def apart(a, b) -> bool:
        if constant and a[0] == b[0]:
            return True
        return unequal is not None and frozenset((key(a), key(b))) in unequal

    parts: list = []
    for pos in members:
        for part in parts:
            if not any(apart(pos, other) for other in part):
                part.append(pos)
                break
        else:
            parts.append([pos])
    repeated = [s for s in slots if sum(pos[0] == s for pos in members) > 1]
    if constant and repeated and len(slots) > 1:
        # The one size is at least two sizes of the code, which ones is unknown: no
        # two arrays share it, and the arrays holding it twice are left alone.
        return [[pos] for pos in members], repeated
    return parts


def infer_function(
    calls,
    func,
    class_node=None,
    module_tree=None,
    package: str = "tensortypes",
    unequal: set | None = None,
    class_ranks: dict | None = None,
    passed_ranks: dict | None = None,
) -> FunctionPlan:
    """Annotations for ``func`` (an ``ast.FunctionDef``) from its recorded ``calls``.

    ``calls``: ``(args, ret, self_ints)`` triples as the trace stores them.
    ``package``: where the dtype classes are imported from (``tensortypes`` or
    ``jaxtyping``). ``unequal``: :func:`unequal_axes` of the other methods of the
    class, axes that are no one size whatever this function's calls had;
    ``class_ranks``: :func:`open_ranks` of the other methods (a parameter of the
    same name is the same kind of array); ``passed_ranks``: ``{param: ranks}`` of the
    parameters passed as they are to a function that takes several ranks there.
    """
    libs = _Libraries(module_tree)
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
    if params and class_node is not None and params[0] in ("self", "cls"):
        params = params[1:]
    calls = [c for c in calls if isinstance(c[0], dict)]
    notes: list = []
    if not calls:
        return FunctionPlan({}, None, ["no recorded call"])
    # A function returning a tuple of the same length in every call (``return logits,
    # loss``): each item is a slot of its own, annotated like a parameter.
    returned = [c[1] for c in calls]
    width = len(returned[0].get("items", ())) if isinstance(returned[0], dict) else 0
    if not width or any(
        not isinstance(r, dict) or r.get("k") != "tuple" or len(r.get("items", ())) != width
        for r in returned
    ):
        width = 0
    returns_slots = [f"{_RETURN}.{i}" for i in range(width)] if width else [_RETURN]
    slots = [*params, *returns_slots]

    def value_of(call, slot):
        if slot == _RETURN:
            return call[1]
        if slot in returns_slots:
            return call[1]["items"][int(slot[len(_RETURN) + 1 :])]
        return call[0].get(slot)

    # -- which slots are arrays, of one library, in every call ------------------------------
    none_defaults = _none_defaults(func)
    arrays: dict = {}
    optional: set = set()  # array slots that were None in some calls (``targets=None``)
    present: dict = {}  # slot -> indices of the calls where it holds an array
    for slot in slots:
        seen = [value_of(c, slot) for c in calls]
        if not seen or any(v is None for v in seen):
            continue
        held = [i for i, v in enumerate(seen) if v.get("k") == "array"]
        if not held or any(v.get("k") not in ("array", "none") for v in seen):
            continue
        libs_seen = {seen[i]["lib"] for i in held}
        if len(libs_seen) != 1:
            notes.append(f"{slot}: arrays of several libraries ({', '.join(sorted(libs_seen))})")
            continue
        if len(held) < len(seen) or slot in none_defaults:
            # (``mask=None`` in the signature: a caller may leave it out, whatever
            # the recorded calls passed.)
            optional.add(slot)
        present[slot] = held
        arrays[slot] = [seen[i] for i in held]
    # -- axes: fixed ranks, or a variadic prefix and fixed trailing axes --------------------
    positions: dict = {}  # (slot, axis) -> sizes per call (None: no array); axis < 0: from the end
    prefix: dict = {}  # slot -> tuple of leading shapes per call

    def per_call(slot, sizes):
        out = [None] * len(calls)
        for i, size in zip(present[slot], sizes):
            out[i] = size
        return tuple(out)

    tested = {p: set(r) for p, r in (class_ranks or {}).items() if p in params}
    for p, ranks in [*open_ranks(func).items(), *(passed_ranks or {}).items()]:
        tested.setdefault(p, set()).update(ranks)
    for p, ranks in _ranks_when_absent(func, calls, arrays, present, value_of).items():
        tested.setdefault(p, set()).update(ranks)
    trailing_of: dict = {}  # slot of varying rank -> how many trailing axes are named
    for slot, seen in arrays.items():
        ranks = {len(v["shape"]) for v in seen}
        if len(ranks) == 1 and slot not in tested:
            rank = ranks.pop()
            for axis in range(rank):
                positions[(slot, axis)] = per_call(slot, [v["shape"][axis] for v in seen])
        else:
            low = min(ranks)
            if slot in tested:
                # ``if k.ndim == 3:``: the code takes other ranks than the tests passed;
                # the axis next to the ones that come and go may be either's.
                low = max(0, min(low, *tested[slot]) - 1)
            trailing_of[slot] = low
            prefix[slot] = per_call(
                slot, [tuple(v["shape"][: len(v["shape"]) - low]) for v in seen]
            )
            for back in range(low, 0, -1):
                positions[(slot, -back)] = per_call(slot, [v["shape"][-back] for v in seen])
    code_names = _shape_names(func)
    unit_axes = builds_unit_axes(func)
    layer_ints = _layer_ints(class_node)
    constants = source_ints(func)
    sizes_written = shape_ints(func)
    # The class's constants (``Linear(d, 4 * d)`` in ``__init__``) count for expressions.
    class_constants = source_ints(class_node) if class_node is not None else set()
    # -- group equal size vectors, split where the code names them differently --------------
    groups: dict = {}
    # Sizes of slots present in every call first; a slot absent from some calls joins
    # the group that agrees with it wherever both were recorded.
    for pos, sizes in sorted(positions.items(), key=lambda item: None in item[1]):
        if None in sizes and len({x for x in sizes if x is not None}) > 1:
            # (A size that never varied agrees with too many groups to join one.)
            for full in groups:
                if all(s is None or s == f for s, f in zip(sizes, full)) and any(
                    s is not None and s == f for s, f in zip(sizes, full)
                ):
                    sizes = full
                    break
        groups.setdefault(sizes, []).append(pos)
    named_groups = []
    parts = []
    for sizes, members in groups.items():
        if (None in sizes or tested) and len({x for x in sizes if x is not None}) == 1:
            # A size that never varied, of arrays absent from some calls (or when the
            # code takes other ranks): a leading axis (those calls' batch) is no other
            # axis of the same size.
            lead = [pos for pos in members if pos[1] == 0]
            rest = [pos for pos in members if pos[1] != 0]
            parts += [(sizes, part) for part in (lead, rest) if part]
        else:
            parts.append((sizes, members))
    int_params, self_attrs = _code_ints(calls, params, class_node)
    role_unequal = _role_unequal(func, calls)
    if role_unequal:
        unequal = (unequal or set()) | role_unequal
    unsure: set = set()  # slots with two axes of one size that may be either's
    separated: set = set()  # pairs of slots with equal sizes told apart
    parts = [
        (sizes, part)
        for sizes, members in parts
        for part in _split_coincidences(
            sizes, members, arrays, prefix, unequal, int_params, self_attrs, unsure, separated
        )
    ]
    for sizes, members in parts:
        by_name: dict = {}
        for pos in members:
            slot, axis = pos
            name = code_names.get((slot, axis))
            if name is None and axis >= 0:
                rank = len(arrays[slot][0]["shape"])
                name = code_names.get((slot, axis - rank))
            by_name.setdefault(name, []).append(pos)
        unnamed = by_name.pop(None, [])
        if by_name:
            # Unnamed members join the first named group (their sizes agree with it).
            first = next(iter(by_name))
            by_name[first].extend(unnamed)
        else:
            by_name[None] = unnamed
        for name, group in by_name.items():
            named_groups.append((sizes, name, group))
    # -- names ------------------------------------------------------------------------------
    used: set = set(params) | {"self", "cls"}
    labels: dict = {}

    def fresh(base: str) -> str:
        base = base if base.isidentifier() and not keyword.iskeyword(base) else "n"
        name, i = base, 2
        while name in used:
            name, i = f"{base}{i}", i + 1
        used.add(name)
        return name

    generic = iter(_GENERIC)
    deferred: list = []  # (sizes, group): no name of the code fits
    # Slots whose shape differed between calls: a size that stayed put while the others
    # moved is evidence of a constant; one call, or one shape, is not.
    varied = {slot for slot, seen in arrays.items() if len({tuple(v["shape"]) for v in seen}) > 1}
    ambiguous: set = set()  # slots with a size two int parameters fit equally
    generic_labels: set = set()  # names that say nothing but "a size"
    label_sizes: dict = {}  # name -> its size per call
    # Code names first, so generic names never take them.
    for _sizes, name, _group in named_groups:
        if name is not None:
            used.add(name)
    for sizes, name, group in sorted(
        named_groups,
        key=lambda g: min((slots.index(p[0]), p[1] if p[1] >= 0 else 100 + p[1]) for p in g[2]),
    ):
        known = [size for size in sizes if size is not None]
        constant = len(set(known)) == 1
        # Ints of the code equal to this size in every call: the function's own int
        # parameters (k), the constructor's (d_model) and the instance's attributes.
        # A size that varies with them is theirs; a size that never varies only when it
        # is no leading (batch) axis and not 1 or 2, the sizes a test picks for anything.
        tied = not constant or (
            known[0] > 2
            and all(pos[1] != 0 for pos in group)
            and any(pos[0] in varied for pos in group)
        )
        # A constant that is the one int a layer of the class is built from
        # (``nn.Linear(dim_in, ...)``) is that int even when the tests used one width.
        built = (
            constant
            and known[0] > 2
            and all(pos[1] != 0 for pos in group)
            and [a for a, v in self_attrs.items() if _matches(v, sizes)]
            == [a for a in self_attrs if a in layer_ints and _matches(self_attrs[a], sizes)]
            and len([a for a, v in self_attrs.items() if _matches(v, sizes)]) == 1
            and not [p for p, v in int_params.items() if v == sizes]
        )
        tied = tied or built
        candidates = [p for p, v in int_params.items() if v == sizes and tied]
        if len(candidates) > 1:
            # create_causal_mask(i, j) called with i == j: which axis is which is unknown.
            ambiguous.update(pos[0] for pos in group)
        candidates += [
            a for a, v in self_attrs.items() if _matches(v, sizes) and a not in candidates and tied
        ]
        if len(candidates) == 1:
            label = candidates[0]
            if label not in params:
                used.add(label)
        elif name is not None:
            label = name
        elif (
            constant
            and known[0] in sizes_written
            and all(pos[1] != 0 for pos in group)
            and any(pos[0] in varied for pos in group)
        ):
            # A number the code writes, seen in several calls, never for a leading
            # (batch) axis: a test's batch of 2 is no ``2`` of the code.
            label = str(known[0])
        elif (
            constant
            and known[0] == 1
            and not any(pos[1] == 0 and (pos[0] in params or None in sizes) for pos in group)
            and (unit_axes or any(pos[0] in params for pos in group))
            and not (tested and any(pos[1] == 0 for pos in group))
        ):
            # (A leading 1 of an argument is the tests' batch of 1; a leading 1 of a
            # result the code builds is a broadcast axis, when the code makes one.)
            label = "1"
        else:
            deferred.append((sizes, group))
            continue
        for pos in group:
            labels[pos] = label
        if label.isidentifier():
            label_sizes[label] = sizes
    # A size that no name fits: an expression of the sizes named so far (``4*n_embd``),
    # else a name. A size of the result only may also be computed from the function's
    # int parameters (``t+{max_new_tokens}``); an argument's size is the caller's data,
    # and a test that ties it to an int argument ties it by chance.
    for sizes, group in deferred:
        atoms = dict(label_sizes)
        if all(pos[0] in returns_slots for pos in group):
            atoms.update({f"{{{p}}}": v for p, v in int_params.items() if p not in atoms})
        label = _expression(sizes, atoms, constants | class_constants)
        if label is None and any(pos[0] in params for pos in group):
            label = _broadcast_of(sizes, label_sizes)
            if label is not None:
                generic_labels.add(label)  # says no more than its partner's name
        if label is None:
            first = min(group, key=lambda p: (slots.index(p[0]), p[1]))
            if (
                first[1] == 0
                and len(set(s for s in sizes if s is not None)) > 1
                and len(arrays[first[0]][0]["shape"]) >= 2
                and "batch" not in used
            ):
                label = fresh("batch")
            else:
                label = fresh(next(generic, "d"))
            label_sizes[label] = sizes
            generic_labels.add(label)
        for pos in group:
            labels[pos] = label
    # -- variadic prefixes -------------------------------------------------------------------
    # A parameter of varying rank whose trailing axes have nothing to say (generic names
    # of sizes no other axis shares: ``identity(t)``) is one variadic group: ``"*batch"``.
    # One array's two axes of the same generic size that no other array has
    # (``attn_bias`` of (i, j) where every test had i == j): the equality is the
    # tests', not the code's; two names. (``rotation: "n n"`` against ``points: "b n"``
    # is the code's.)
    holders: dict = {}
    for (slot, _axis), label in labels.items():
        holders.setdefault(label, set()).add(slot)
    for slot, seen in arrays.items():
        if slot in prefix:
            continue
        taken: set = set()
        for axis in range(len(seen[0]["shape"])):
            label = labels[(slot, axis)]
            if label in taken and label in generic_labels and holders[label] == {slot}:
                labels[(slot, axis)] = fresh(next(generic, "d"))
                generic_labels.add(labels[(slot, axis)])
            taken.add(label)
    whole: set = set()
    if class_node is None:
        # A free function's arrays whose axes all have generic names, shared with no
        # array of another shape (``rotate_half(x) -> same shape``): the tests' rank is
        # no evidence of the function's; one variadic group each.
        holders = {}
        for (slot, _axis), label in labels.items():
            holders.setdefault(label, set()).add(slot)
        shapes_of = {
            slot: per_call(slot, [tuple(v["shape"]) for v in seen]) for slot, seen in arrays.items()
        }
        fixed = [s for s, seen in arrays.items() if s not in prefix and seen[0]["shape"]]
        nothing_said = {
            s
            for s in fixed
            if all(
                labels[(s, axis)] in generic_labels for axis in range(len(arrays[s][0]["shape"]))
            )
        }
        for slot in fixed:
            mine = [labels[(slot, axis)] for axis in range(len(arrays[slot][0]["shape"]))]
            if slot in nothing_said and all(
                shapes_of[other] == shapes_of[slot]
                and (other == slot or frozenset((slot, other)) not in separated)
                for label in mine
                for other in holders[label]
            ):
                whole.add(slot)
        covaried = any(
            len(holders[label] & nothing_said) > 1
            and len({x for x in label_sizes.get(label, ()) if x is not None}) > 1
            for label in generic_labels
        )
        if len(nothing_said) > 1 and nothing_said == set(fixed) and not covaried:
            # Every array of the function has nothing but generic names, and no size
            # that varied is shared by two of them (``pad_at_dim(t, pad, dim)`` called
            # on (1, 4, 9) and (1, 3, 9)): the sizes and ranks the tests chose are no
            # evidence of the function's.
            whole |= nothing_said
    # A function whose arrays all had one shape in every call (a norm, a residual, a
    # feedforward): leading axes with generic names are the caller's, of any rank:
    # ``x: "*batch dim" -> "*batch dim"``, not the tests' ``"batch n m dim"``.
    lead_cut: dict = {}
    fixed_slots = [s for s in arrays if s not in prefix and s not in whole]
    if (
        len(fixed_slots) >= 2
        and len(fixed_slots) == len(arrays)
        and not _reshapes(func)
        and not _calls_own_layers(func)
    ):
        first = fixed_slots[0]
        rank = len(arrays[first][0]["shape"])
        same = len({len(arrays[s][0]["shape"]) for s in fixed_slots}) == 1 and all(
            len({tuple(v["shape"]) for s in fixed_slots for v in _at(arrays, present, s, i)}) <= 1
            for i in range(len(calls))
        )
        if same and all(
            labels[(s, a)] == labels[(first, a)] for s in fixed_slots for a in range(rank)
        ):
            cut = 0
            while cut < rank and labels[(first, cut)] in generic_labels:
                cut += 1
            for s in fixed_slots:
                if cut == rank:
                    whole.add(s)
                elif cut:
                    lead_cut[s] = cut
                    prefix[s] = per_call(s, [tuple(v["shape"][:cut]) for v in arrays[s]])
    for slot in sorted(whole, key=slots.index):
        prefix[slot] = per_call(slot, [tuple(v["shape"]) for v in arrays[slot]])
    for slot in prefix:
        if slot in whole or slot in lead_cut:
            continue
        low = trailing_of[slot]
        trailing = [labels[(slot, -back)] for back in range(low, 0, -1)]
        if all(label in generic_labels for label in trailing):
            whole.add(slot)
            prefix[slot] = per_call(slot, [tuple(v["shape"]) for v in arrays[slot]])
    prefix_names: dict = {}
    # Names of the axes written (a collapsed array's generic names are free again).
    written = {
        label
        for (slot, axis), label in labels.items()
        if slot not in whole and not 0 <= axis < lead_cut.get(slot, 0)
    }
    for slot, shapes in prefix.items():
        for other, name in prefix_names.items():
            if prefix[other] == shapes and frozenset((slot, other)) not in separated:
                prefix_names[slot] = name
                break
        else:
            name, i = "batch", 2
            while name in written or name in params or name in prefix_names.values():
                name, i = f"batch{i}", i + 1
            prefix_names[slot] = name
    # -- proposals ---------------------------------------------------------------------------
    proposals: dict = {}
    written_dtypes = dtypes_written(func)
    dtype_passes, dtype_tested = dtype_uses(func)
    for slot, seen in arrays.items():
        array = libs.array_type(seen[0]["lib"])
        if array is None:
            notes.append(f"{slot}: arrays of library {seen[0]['lib']} are not annotated")
            continue
        if slot in ambiguous:
            notes.append(f"{slot}: a size two int parameters fit equally")
            continue
        if slot in unsure and slot not in whole:
            notes.append(
                f"{slot}: two axes of one size that other arrays share; which is theirs is unknown"
            )
            continue
        dims = []
        if slot in whole:
            dims.append(f"*{prefix_names[slot]}")
        elif slot in lead_cut:
            dims.append(f"*{prefix_names[slot]}")
            dims.extend(
                labels[(slot, axis)] for axis in range(lead_cut[slot], len(seen[0]["shape"]))
            )
        elif slot in prefix:
            dims.append(f"*{prefix_names[slot]}")
            low = trailing_of[slot]
            dims.extend(labels[(slot, -back)] for back in range(low, 0, -1))
        else:
            dims.extend(labels[(slot, axis)] for axis in range(len(seen[0]["shape"])))
        if slot in dtype_tested:
            notes.append(f"{slot}: the code tests its dtype: it takes other kinds than the calls")
            continue
        dtypes = {v["dtype"] for v in seen}
        cls = dtype_class(dtypes)
        if slot in params or dtype_passes or not dtypes & written_dtypes:
            # An argument's one dtype is the tests' choice (``model.half()`` runs the
            # same code on float16), and so is a result's unless the code builds it:
            # a dtype the body names (``dtype=torch.long``, ``x.float()``), when it
            # reads no dtype to pass on (``t.dtype``, ``type_as``).
            cls = widen_dtype_class(cls)
        text = f'{cls}[{array.text}, "{" ".join(dims)}"]'
        if slot in optional:
            text += " | None"
        proposals[slot] = Proposal(text, array.imports | {(package, cls)})
    handed_back = _returned_params(func)
    for slot in slots:
        if slot in proposals or slot in arrays:
            continue
        if handed_back and (slot in handed_back or slot in returns_slots):
            # ``default(val, d)`` returns an argument as it is: of every type its
            # callers pass, not only of the tests' ints.
            continue
        seen = [value_of(c, slot) for c in calls]
        if not seen or any(v is None for v in seen):
            continue
        kinds = {v.get("k") for v in seen}
        optional = "none" in kinds
        kinds.discard("none")
        simple = None
        if kinds == {"int"}:
            simple = "int"
        elif kinds and kinds <= {"int", "float"}:
            simple = "float"
        elif kinds in ({"str"}, {"bool"}, {"bytes"}, {"complex"}):
            simple = next(iter(kinds))
        if simple is not None and slot in returns_slots and _returns_state(func):
            # ``return self.val``: the object's state, of every kind it was given, not
            # only of the kinds the recorded calls returned.
            simple = None
        if simple is not None:
            proposals[slot] = Proposal(f"{simple} | None" if optional else simple)
        elif kinds == set() and optional and slot in returns_slots:
            proposals[slot] = Proposal("None")
    items = [proposals.pop(slot, None) for slot in returns_slots]
    if len(_return_widths(func)) > 1 and any(items):
        # ``return loss`` here, ``return loss, (logits, cache)`` there: the calls
        # recorded one form; an annotation of it would refuse the other.
        notes.append("return: the function returns a tuple in some places, not in others")
        return FunctionPlan(proposals, None, notes)
    passed_on = _returns_passed_on(func, set(params) - set(arrays))
    if passed_on and any(items):
        notes.append(f"return: {passed_on}, of whatever kind that is")
        return FunctionPlan(proposals, None, notes)
    returns = items[0] if not width else None
    if width and all(items):
        returns = Proposal(
            f"tuple[{', '.join(p.text for p in items)}]", set().union(*(p.imports for p in items))
        )
    elif width:
        notes.append("return: a tuple whose items are not all arrays or simple values")
    return FunctionPlan(proposals, returns, notes)
