"""An array against its own reduction that lost an inner axis (layer 6: ``check``).

``x / torch.sqrt(torch.sum(x**2, dim=1))`` or ``verts - verts.mean(axis=1)``
divides an array by a reduction of itself over axis ``k >= 1`` without
``keepdim``. Whatever the rank ``r`` of ``x`` (at least ``k + 1``, or the
reduction fails), the reduction has ``r - 1`` axes, which broadcasting lines up
with the last ``r - 1`` axes of ``x``: axis ``j`` of the reduction meets axis
``j + 1`` of ``x`` for each ``j < k``, sizes ``x`` has at axes ``j`` and ``j + 1``.
So it fails unless those neighbours are equal (or 1), and computes the wrong
thing when they are (row sums subtracted along the columns of a square matrix).
The shapes need not be known: this is read from the syntax, for arrays whose rank
the walker does not know (known shapes are compared as shapes).

A reduction over axis 0 lines up right (``x - x.mean(0)``); a negative axis
lines up right on a one-axis array, whose rank is not known here: neither is said.
The chain from the reduction back to ``x`` may pass through elementwise steps
(a power, ``sqrt``, ``abs``, a number added, ``.float()``) and through plain
assignments of the function (``norm = ...`` used a line later); ``x`` is one
variable not assigned between the two uses.
"""

from __future__ import annotations

import ast

__all__ = ["reduction_against"]

# methods and functions that reduce over ``dim=``/``axis=`` (the second positional
# argument of the function, the first of the method), dropping it without keepdim
_REDUCERS = frozenset(
    {"sum", "mean", "prod", "std", "var", "amax", "amin", "nansum", "nanmean", "logsumexp"}
)
# ``norm``: its second positional argument is the order, so only ``dim=``/``axis=``
_NORMS = frozenset({"norm"})
# ``max``/``min``: torch gives (values, indices) with a ``dim``, NumPy an array
_PAIRED = frozenset({"max", "min"})
_LIBRARIES = ("torch.", "numpy.", "jax.numpy.")
# elementwise functions of one array (``torch.sqrt(x)``, ``np.abs(x)``) and methods
# that keep the shape (``x.sqrt()``, ``x.clamp(min=eps)``, ``x.float()``)
_ELEMENTWISE = frozenset(
    {
        "sqrt",
        "rsqrt",
        "square",
        "abs",
        "exp",
        "log",
        "log1p",
        "expm1",
        "sigmoid",
        "tanh",
        "relu",
        "clamp",
        "clip",
        "clamp_min",
        "clamp_max",
        "float",
        "double",
        "half",
        "detach",
        "clone",
        "contiguous",
        "reciprocal",
        "neg",
        "negative",
    }
)
_BUDGET = 48  # nodes read back from one operand (its expression and assignments)


def reduction_against(
    left, right, line: int, path_of, assigned, keys, library: bool = False, scalar=None
) -> tuple | None:
    """``(root, axis, reduced, line)`` when one operand of a broadcasting operation at
    ``line`` is the other reduced over ``axis >= 1`` without keepdim (``reduced`` the
    reduced operand's node, ``line`` that of the reduction), else None.

    ``path_of(node)`` is the module's name of a function (``"torch.sum"``);
    ``assigned(name, line)`` the value node of the last plain assignment of ``name``
    above ``line`` (None for none, or one of another form); ``keys(name, line)`` what
    identifies the value ``name`` has at ``line`` (its reaching assignment);
    ``scalar(name)`` whether a variable is a number (``eps``). With
    ``library``, only a library's reduction counts (``torch.sum(x, dim=1)``: ``x`` is
    an array, not any object with a ``sum`` method).
    """
    reads = (path_of, assigned, keys, scalar or (lambda name: False))
    a = _base(left, line, *reads, [_BUDGET])
    b = _base(right, line, *reads, [_BUDGET])
    if a is None or b is None or a[0] != b[0]:
        return None
    if library and not (a[3] or b[3]):
        return None
    if a[1] is None and b[1] is not None:
        return a[0][0], b[1], right, b[2]
    if b[1] is None and a[1] is not None:
        return b[0][0], a[1], left, a[2]
    return None


def _base(node, line, path_of, assigned, keys, scalar, budget):
    """``((name, key), axis or None, line of the reduction, whether a library's
    function reduced)``: the variable ``node`` is made from by elementwise steps, and
    the axis a reduction on the way dropped."""
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    t = type(node)
    if t is ast.Name:
        # through its assignment (``norm = x.sum(1)``), or itself when that is not an
        # elementwise step (``verts = self.v``: the variable ``verts`` is the array)
        value = assigned(node.id, line)
        found = _base(*value, path_of, assigned, keys, scalar, budget) if value else None
        return found or ((node.id, keys(node.id, line)), None, None, False)
    if t is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        return _base(node.operand, line, path_of, assigned, keys, scalar, budget)
    if t is ast.BinOp and type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow):
        if _number(node.right, scalar):
            return _base(node.left, line, path_of, assigned, keys, scalar, budget)
        if _number(node.left, scalar) and type(node.op) is not ast.Pow:
            return _base(node.right, line, path_of, assigned, keys, scalar, budget)
        return None
    if (t is ast.Attribute and node.attr == "values") or (
        t is ast.Subscript and type(node.slice) is ast.Constant and node.slice.value == 0
    ):
        # ``x.max(dim=1).values``, ``torch.max(x, 1)[0]``: the values of a (values,
        # indices) pair
        call = node.value
        axis = _reduced_axis(call, path_of, True) if type(call) is ast.Call else None
        if axis is None:
            return None
    elif t is ast.Call:
        call = node
        axis = _reduced_axis(node, path_of)
    else:
        return None
    if axis is not None:
        method = _is_method(call, path_of)
        operand = call.func.value if method else call.args[0]
        found = _base(operand, line, path_of, assigned, keys, scalar, budget)
        if found is None or found[1] is not None:
            return None
        return found[0], axis, call.lineno, not method
    func = node.func
    if type(func) is ast.Attribute and func.attr in _ELEMENTWISE:
        path = path_of(func) or ""
        if path.startswith(_LIBRARIES) and len(node.args) == 1:
            return _base(node.args[0], line, path_of, assigned, keys, scalar, budget)
        if not path and all(_number(a, scalar) for a in node.args):
            return _base(func.value, line, path_of, assigned, keys, scalar, budget)
    return None


def _is_method(call, path_of) -> bool:
    """``x.sum(1)`` rather than ``torch.sum(x, 1)``."""
    return type(call.func) is ast.Attribute and not path_of(call.func)


def _reduced_axis(call, path_of, paired=False) -> int | None:
    """The one axis ``k >= 1`` a reduction call drops (an int literal, no keepdim).
    ``max``/``min`` count with ``paired`` (their values taken from the pair torch
    gives), or as NumPy's functions."""
    func = call.func
    if type(func) is not ast.Attribute:
        return None
    name = func.attr
    path = path_of(func)
    if name in _PAIRED:
        if not (paired or (path or "").startswith("numpy.")):
            return None
    elif name not in _REDUCERS and name not in _NORMS:
        return None
    method = not path
    if not method and not (
        path.startswith(_LIBRARIES) and path.rpartition(".")[2] == name and call.args
    ):
        return None
    if any(type(a) is ast.Starred for a in call.args):
        return None
    given = None
    for kw in call.keywords:
        if kw.arg in ("keepdim", "keepdims"):
            if not (type(kw.value) is ast.Constant and kw.value.value is False):
                return None
        elif kw.arg in ("dim", "axis"):
            given = kw.value
        elif kw.arg is None:
            return None
    positional = list(call.args) if method else list(call.args[1:])
    if name in _NORMS:
        if positional or given is None:
            return None
    elif positional:
        if given is not None or len(positional) > 1:
            return None  # ``torch.sum(x, 1, True)``: keepdim given by position
        given = positional[0]
    if type(given) is not ast.Constant or type(given.value) is not int or given.value < 1:
        return None
    axis: int = given.value
    return axis


def _number(node, scalar) -> bool:
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        node = node.operand
    if type(node) is ast.Name:
        return bool(scalar(node.id))
    return type(node) is ast.Constant and type(node.value) in (int, float)
