"""An array against its own reduction, its axes out of line (layer 6: ``check``).

``x / torch.sqrt(torch.sum(x**2, dim=1))`` or ``verts - verts.mean(axis=1)``
divides an array by a reduction of itself over axis ``k >= 1`` without
``keepdim``. Whatever the rank ``r`` of ``x`` (at least ``k + 1``, or the
reduction fails), the reduction has ``r - 1`` axes, which broadcasting lines up
with the last ``r - 1`` axes of ``x``: axis ``j`` of the reduction meets axis
``j + 1`` of ``x`` for each ``j < k``, sizes ``x`` has at axes ``j`` and ``j + 1``.
So it fails unless those neighbours are equal (or 1), and computes the wrong
thing when they are (row sums subtracted along the columns of a square matrix).

A new axis put back after the reduction counts the same way when the reduced
axis and the new one are counted from the same end: ``norm(x, axis=0)[:, None]``
is ``x`` without axis 0 and with a new axis 1, so axis 0 of ``x`` meets axis 1
whatever the rank, while ``x.sum(1)[:, None]`` is keepdim (``[..., None]`` after
``sum(-1)`` too). The shapes need not be known: this is read from the syntax,
for arrays whose rank the walker does not know (known shapes are compared as
shapes).

A reduction over axis 0 lines up right (``x - x.mean(0)``); a negative axis
lines up right on a one-axis array, whose rank is not known here, and so does a
new axis counted from the other end: neither is said. The chain from the
reduction back to ``x`` may pass through elementwise steps (a power, ``sqrt``,
``abs``, a number added, ``.float()``) and through plain assignments of the
function (``norm = ...`` used a line later); ``x`` is one variable not assigned
between the two uses.
"""

from __future__ import annotations

import ast

from .expr import attr_key

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
    left, right, line: int, path_of, assigned, keys, library=False, scalar=None, kind=None
) -> tuple | None:
    """``(root, (p, q), reduced, line, said)`` when one operand of a broadcasting
    operation at ``line`` is the other reduced without keepdim, its axes out of line
    with the other's whatever the rank: axis ``p`` of ``root`` meets axis ``q``
    (``reduced`` the reduced operand's node, ``line`` that of the reduction, ``said``
    what was done to ``root``), else None.

    ``path_of(node)`` is the module's name of a function (``"torch.sum"``);
    ``assigned(name, line)`` the value node of the last plain assignment of ``name``
    above ``line`` (None for none, or one of another form); ``keys(name, line)`` what
    identifies the value ``name`` has at ``line`` (its reaching assignment);
    ``scalar(name)`` whether a variable is a number (``eps``); ``kind(node)`` the
    array library of an expression's value (``"numpy"``), or None. With
    ``library``, only a library's reduction counts (``torch.sum(x, dim=1)``: ``x`` is
    an array, not any object with a ``sum`` method).
    """
    reads = (
        path_of,
        assigned,
        keys,
        scalar or (lambda name: False),
        kind or (lambda node: None),
    )
    a = _base(left, line, reads, [_BUDGET])
    b = _base(right, line, reads, [_BUDGET])
    if a is None or b is None or a.root != b.root or (library and not (a.library or b.library)):
        return None
    if a.axis is None and b.axis is not None:
        reduced, node = b, right
    elif b.axis is None and a.axis is not None:
        reduced, node = a, left
    else:
        return None
    pair = _out_of_line(reduced.axis, reduced.inserted)
    if pair is None:
        return None
    said = f"reduced over axis {reduced.axis} without keepdim"
    if reduced.inserted is not None:
        said += f" and given a new axis {reduced.inserted}"
    return reduced.root[0], pair, node, reduced.line, said


def _out_of_line(axis: int, inserted: int | None) -> tuple | None:
    """The first two axes of an array that meet when its reduction over ``axis``
    (with a new axis at ``inserted``, or none) is broadcast against it, whatever the
    rank; None when they line up on some rank."""
    if inserted is None:
        return (0, 1) if axis >= 1 else None
    if (axis >= 0) != (inserted >= 0) or axis == inserted:
        return None
    low = min(axis, inserted)
    return low, low + 1


class _Base:
    """What an operand is made from: the variable ``root`` (its name and what
    identifies its value), the ``axis`` a reduction dropped and the ``line`` of it
    (None when none), whether a library's function reduced, and the position of a
    new axis put back after it (None when none)."""

    __slots__ = ("root", "axis", "line", "library", "inserted")

    def __init__(self, root, axis=None, line=None, library=False, inserted=None):
        self.root = root
        self.axis = axis
        self.line = line
        self.library = library
        self.inserted = inserted

    def with_new_axis(self, at: int, library: bool = True):
        """With a new axis at ``at`` (made by a library: an object's own method may
        take an int otherwise)."""
        if self.axis is None or self.inserted is not None:
            return None
        return _Base(self.root, self.axis, self.line, self.library or library, at)


def _base(node, line, reads, budget):
    """The :class:`_Base` of ``node``, read back through elementwise steps, one
    reduction and one new axis after it; None when it is made otherwise."""
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    path_of, assigned, keys, scalar, kind = reads
    t = type(node)
    if t is ast.Name:
        # through its assignment (``norm = x.sum(1)``), or itself when that is not an
        # elementwise step (``verts = self.v``: the variable ``verts`` is the array)
        value = assigned(node.id, line)
        found = _base(value[0], value[1], reads, budget) if value else None
        return found or _Base((node.id, keys(node.id, line)))
    if t is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        return _base(node.operand, line, reads, budget)
    if t is ast.BinOp and type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow):
        if _number(node.right, scalar):
            return _base(node.left, line, reads, budget)
        if _number(node.left, scalar) and type(node.op) is not ast.Pow:
            return _base(node.right, line, reads, budget)
        return None
    if t is ast.Subscript:
        if type(node.slice) is ast.Constant and node.slice.value == 0:
            # ``torch.max(x, 1)[0]``: the values of a (values, indices) pair
            return _paired_values(node.value, line, reads, budget)
        at = _new_axis(node.slice)
        if at is None:
            return None
        # a new axis taken by an index: an array's (NumPy's ``min(axis=0)`` too, whose
        # torch pair this index would not take)
        inner = node.value
        if type(inner) is ast.Call:
            found = _reduction(inner, line, reads, budget, "indexed")
            if found is not None:
                return found.with_new_axis(at)
        found = _base(inner, line, reads, budget)
        return found.with_new_axis(at) if found is not None else None
    if t is ast.Attribute and node.attr == "values":  # ``x.max(dim=1).values``
        return _paired_values(node.value, line, reads, budget)
    if t is ast.Attribute:
        # ``self.face_normals``, ``state.C``: the same attribute within one line only (a
        # call between two lines may set it)
        dotted = attr_key(node)
        return _Base((dotted, ("line", line))) if dotted is not None else None
    if t is not ast.Call:
        return None
    found = _reduction(node, line, reads, budget, False)
    if found is not None:
        return found
    func = node.func
    if type(func) is not ast.Attribute:
        return None
    path = path_of(func) or ""
    if func.attr in ("unsqueeze", "expand_dims") and not node.keywords:
        # ``x.unsqueeze(1)``, ``torch.unsqueeze(x, 1)``, ``np.expand_dims(x, 1)``
        args = node.args if path else [func.value, *node.args]
        if len(args) == 2 and (not path or path.startswith(_LIBRARIES)):
            at = _int(args[1])
            inner = _base(args[0], line, reads, budget) if at is not None else None
            if inner is None or at is None:
                return None
            return inner.with_new_axis(at, bool(path))
        return None
    if func.attr in _ELEMENTWISE:
        if path.startswith(_LIBRARIES) and len(node.args) == 1:
            return _base(node.args[0], line, reads, budget)
        if not path and all(_number(a, scalar) for a in node.args):
            return _base(func.value, line, reads, budget)
    return None


def _paired_values(call, line, reads, budget) -> _Base | None:
    """The values of ``max``/``min`` over an axis (not the first row of a sum)."""
    if type(call) is not ast.Call or type(call.func) is not ast.Attribute:
        return None
    if call.func.attr not in _PAIRED:
        return None
    return _reduction(call, line, reads, budget, True)


def _reduction(call, line, reads, budget, paired) -> _Base | None:
    """The :class:`_Base` of a reduction call (``paired``: as :func:`_reduced_axis`)."""
    path_of, kind = reads[0], reads[4]
    axis = _reduced_axis(call, path_of, paired, kind)
    if axis is None:
        return None
    method = _is_method(call, path_of)
    found = _base(call.func.value if method else call.args[0], line, reads, budget)
    if found is None or found.axis is not None:
        return None
    return _Base(found.root, axis, call.lineno, not method)


def _new_axis(index) -> int | None:
    """Where an index of full slices and one ``None`` puts the new axis: counted from
    the start (``[:, None]`` is 1, ``[None]`` 0), or from the end after an ``...``
    (``[..., None]`` is -1, ``[..., None, :]`` -2); None for any other index."""
    items = index.elts if type(index) is ast.Tuple else [index]
    nones = [i for i, item in enumerate(items) if _is_none(item)]
    if len(nones) != 1:
        return None
    at = nones[0]
    dots = [
        i for i, item in enumerate(items) if type(item) is ast.Constant and item.value is Ellipsis
    ]
    rest = [i for i in range(len(items)) if i != at and i not in dots]
    if any(not _full(items[i]) for i in rest) or len(dots) > 1:
        return None
    return at if not dots or dots[0] > at else at - len(items)


def _is_none(node) -> bool:
    if type(node) is ast.Constant:
        return node.value is None
    return type(node) is ast.Attribute and node.attr == "newaxis"


def _full(node) -> bool:
    return (
        type(node) is ast.Slice and node.lower is None and node.upper is None and node.step is None
    )


def _int(node) -> int | None:
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        found = _int(node.operand)
        return -found if found is not None else None
    if type(node) is ast.Constant and type(node.value) is int:
        return node.value
    return None


def _is_method(call, path_of) -> bool:
    """``x.sum(1)`` rather than ``torch.sum(x, 1)``."""
    return type(call.func) is ast.Attribute and not path_of(call.func)


def _reduced_axis(call, path_of, paired=False, kind=None) -> int | None:
    """The one axis a reduction call drops (an int literal, no keepdim). ``max`` and
    ``min`` count with ``paired`` True (their values taken from the pair torch
    gives), or as NumPy's (a function of NumPy's, or a method of an array NumPy made,
    or with ``paired`` ``"indexed"`` of an object torch did not make: indexed with a
    new axis, which torch's pair would not take)."""
    func = call.func
    if type(func) is not ast.Attribute:
        return None
    name = func.attr
    path = path_of(func)
    if name in _PAIRED:
        made = kind(func.value) if not path and kind is not None else None
        numpy = (path or "").startswith("numpy.") or made == "numpy"
        if not (paired is True or numpy or (paired == "indexed" and made != "torch")):
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
    return _int(given) if given is not None else None


def _number(node, scalar) -> bool:
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        node = node.operand
    if type(node) is ast.Name:
        return bool(scalar(node.id))
    return type(node) is ast.Constant and type(node.value) in (int, float)
