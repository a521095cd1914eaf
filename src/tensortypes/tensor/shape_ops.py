"""Shape ops: ``reshape``, ``transpose``, ``concatenate``, ``expand_dims``, ``squeeze``
and basic indexing with static bounds (``x[1:, ::2, 0, None, ...]``) (layer 4, ``tensor``).

Each infers its output's static shape, symbolic sizes included:
``concatenate`` of ``("a", "c")`` with itself along axis 0 is ``("2*a", "c")``;
``reshape`` reasons on element counts, so ``("n", 3)`` reshaped to ``(-1,)`` is
``("3*n",)`` and ``(2, 3)`` reshaped to ``(4, 2)`` is an error at build time. A
symbolic size in a new shape (``x.reshape(("n", -1))``) is evaluated at run time
from the sizes of the input, so its symbols must appear in the input's type.

Indexing takes what NumPy's basic indexing takes when every bound is a Python
int: ints, slices of ints or None, ``None`` (a new axis) and one ``...``; the
result is a view of the input, as in NumPy (a result with no axes left is the
0-d view ``x[i, ...]`` gives). A static size gives static bounds checks and
sizes (``x[1:3]`` of ``(5,)`` is ``(2,)``); an unknown or symbolic size keeps
the full slice's size and is checked at run time (NumPy's ``IndexError``).
"""

from __future__ import annotations

import numpy as np

from tensortypes.core.dims import Dim, as_dim, eq as dim_eq
from tensortypes.core.shapes import format_static_shape, merge_dims, normalize_static_shape
from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, Op
from tensortypes.tensor._filtering import check_symbolic_shape
from tensortypes.tensor.basic import as_tensor_variable
from tensortypes.tensor.math import normalize_axes
from tensortypes.tensor.scalar_ops import promote_dtypes
from tensortypes.tensor.type import TensorType
from tensortypes.tensor.variable import register_operators

__all__ = [
    "Reshape",
    "Transpose",
    "Concatenate",
    "ExpandDims",
    "Squeeze",
    "Subtensor",
    "reshape",
    "transpose",
    "concatenate",
    "expand_dims",
    "squeeze",
    "getitem",
]


def _product(entries):
    """The product of static sizes (ints and Dims), or None if one is unknown."""
    total = 1
    for s in entries:
        if s is None:
            return None
        total = total * s
    return total.value if isinstance(total, Dim) and total.is_constant else total


def _cancel(have, known):
    """The product of ``have`` divided by the product of ``known``, cancelling equal
    symbolic factors and dividing the integer parts; None when that does not
    divide exactly. A symbolic factor is assumed nonzero: if it is 0 at run
    time, NumPy refuses to infer the -1 anyway."""
    rest = [s for s in have if isinstance(s, Dim)]
    for s in known:
        if isinstance(s, Dim):
            if s not in rest:
                return None
            rest.remove(s)
    ints_have = _product([s for s in have if not isinstance(s, Dim)])
    ints_known = _product([s for s in known if not isinstance(s, Dim)])
    if ints_known == 0 or ints_have % ints_known:
        return None
    return _product([ints_have // ints_known, *rest])


def _static(d):
    return normalize_static_shape((d,))[0]


class Reshape(Op):
    """View ``x`` with another shape: ints, at most one -1, and rigid dims.

    >>> from tensortypes.tensor import tensor
    >>> Reshape((-1,))(tensor("float64", ("n", 3))).type
    TensorType(float64, (3*n,))
    """

    __props__ = ("shape",)

    def __init__(self, shape):
        entries = []
        for axis, s in enumerate(shape):
            if isinstance(s, bool) or not isinstance(s, (int, np.integer, str, Dim)):
                raise TypeError(
                    f"reshape: axis {axis}: expected an int, -1 or a dim "
                    f"expression, got {type(s).__name__} {s!r}"
                )
            if isinstance(s, (int, np.integer)) and int(s) == -1:
                entries.append(-1)
            else:
                entries.append(_static(as_dim(s) if isinstance(s, str) else s))
        if entries.count(-1) > 1:
            raise ValueError(f"reshape: at most one -1 is allowed, got {tuple(shape)!r}")
        self.shape = tuple(entries)

    def __str__(self) -> str:
        return f"Reshape{{{', '.join(map(str, self.shape))}}}"

    def make_node(self, x) -> Apply:
        x = as_tensor_variable(x)
        xshape = x.type.shape
        known = [s for s in self.shape if s != -1]
        free = set()
        for s in known:
            if isinstance(s, Dim):
                free |= s.free_symbols
        have = set()
        for s in xshape:
            if isinstance(s, Dim):
                have |= s.free_symbols
        if free - have:
            raise ValueError(
                f"reshape: the new shape {self._text()} names "
                f"{', '.join(sorted(free - have))}, which the shape "
                f"{format_static_shape(xshape)} of {x} does not determine"
            )
        total_in, total_new = _product(xshape), _product(known)
        out = list(self.shape)
        if -1 in self.shape:
            out[self.shape.index(-1)] = self._infer(x, total_in, total_new)
        elif total_in is not None and dim_eq(total_in, total_new) is False:
            raise ValueError(self._mismatch(x, total_in, total_new))
        return Apply(self, [x], [TensorType(x.dtype, tuple(out)).make_variable()])

    def _text(self) -> str:
        return format_static_shape(tuple("-1" if s == -1 else s for s in self.shape))

    def _mismatch(self, x, total_in, total_new) -> str:
        return (
            f"reshape: cannot reshape {x} of shape {format_static_shape(x.type.shape)} "
            f"({total_in} elements) into {self._text()} ({total_new} elements)"
        )

    def _infer(self, x, total_in, total_new):
        if total_new is not None and dim_eq(total_new, 0) is True:
            raise ValueError(
                f"reshape: cannot infer the -1 of {self._text()}: the other sizes multiply to 0"
            )
        if total_in is None or total_new is None:
            return None
        if type(total_in) is int and type(total_new) is int:
            if total_in % total_new:
                raise ValueError(self._mismatch(x, total_in, total_new))
            return total_in // total_new
        quotient = _cancel(x.type.shape, [s for s in self.shape if s != -1])
        if quotient is None:
            candidate = as_dim(total_in) // as_dim(total_new)
            # Exact only when multiplying back gives the same normal form.
            if candidate * total_new == as_dim(total_in):
                quotient = candidate
        return None if quotient is None else _static(quotient)

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        shape = self.shape
        if any(isinstance(s, Dim) for s in shape):
            bindings: dict = {}
            problem = check_symbolic_shape(node.inputs[0].type.shape, x.shape, bindings)
            if problem is not None:
                raise TypeCheckError(f"reshape: input of shape {x.shape}: {problem}")
            try:
                shape = tuple(s.evaluate(bindings) if isinstance(s, Dim) else s for s in shape)
            except KeyError as exc:
                raise TypeCheckError(
                    f"reshape: the input of shape {x.shape} does not determine {exc}"
                ) from None
        output_storage[0][0] = np.reshape(x, shape)


class Transpose(Op):
    """Permute the axes: output axis ``i`` is input axis ``axes[i]``.

    >>> from tensortypes.tensor import tensor
    >>> Transpose((1, 0))(tensor("int8", ("n", 3))).type
    TensorType(int8, (3, n))
    """

    __props__ = ("axes",)

    def __init__(self, axes):
        self.axes = tuple(int(a) for a in axes)
        if sorted(self.axes) != list(range(len(self.axes))):
            raise ValueError(
                f"transpose: axes {axes!r} are not a permutation of 0..{len(self.axes) - 1}"
            )

    def make_node(self, x) -> Apply:
        x = as_tensor_variable(x)
        if len(self.axes) != x.ndim:
            raise ValueError(
                f"transpose: axes {self.axes} do not match the {x.ndim} dimension(s) of {x}"
            )
        shape = tuple(x.type.shape[a] for a in self.axes)
        return Apply(self, [x], [TensorType(x.dtype, shape).make_variable()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.transpose(inputs[0], self.axes)


class Concatenate(Op):
    """Join tensors of equal rank along ``axis``; the other axes must agree.

    >>> from tensortypes.tensor import tensor
    >>> a = tensor("float32", ("a", "c"))
    >>> Concatenate(0)(a, a).type
    TensorType(float32, (2*a, c))
    """

    __props__ = ("axis",)

    def __init__(self, axis: int):
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"concatenate: axis must be an int, got {axis!r}")
        self.axis = int(axis)

    def make_node(self, *xs) -> Apply:
        if not xs:
            raise ValueError("concatenate needs at least one tensor")
        xs = [as_tensor_variable(x) for x in xs]
        ndim = xs[0].ndim
        shapes = ", ".join(f"{x} with shape {format_static_shape(x.type.shape)}" for x in xs)
        if ndim == 0 or any(x.ndim != ndim for x in xs):
            raise TypeError(
                f"concatenate: every input needs the same number (>= 1) of dimensions, got {shapes}"
            )
        axis = self.axis
        if not 0 <= axis < ndim:
            raise ValueError(f"concatenate: axis {axis} is out of bounds for {ndim} dimension(s)")
        shape = []
        for k in range(ndim):
            entries = [x.type.shape[k] for x in xs]
            if k == axis:
                shape.append(_static(_sum(entries)) if None not in entries else None)
                continue
            merged = entries[0]
            for e in entries[1:]:
                try:
                    merged = merge_dims(merged, e, axis=k)
                except ValueError as exc:
                    raise TypeError(
                        f"concatenate along axis {axis}: {exc}; inputs: {shapes}"
                    ) from None
            shape.append(merged)
        dtype = promote_dtypes(*(x.dtype for x in xs))
        return Apply(self, xs, [TensorType(dtype, tuple(shape)).make_variable()])

    def perform(self, node, inputs, output_storage):
        r = np.concatenate(inputs, axis=self.axis)
        nd = node.outputs[0].type.numpy_dtype
        output_storage[0][0] = r if r.dtype == nd else r.astype(nd)


def _sum(entries):
    total = 0
    for e in entries:
        total = total + e
    return total


class ExpandDims(Op):
    """Insert size-1 axes at the positions ``axes`` of the output.

    >>> from tensortypes.tensor import tensor
    >>> ExpandDims((0, 2))(tensor("int8", ("n",))).type
    TensorType(int8, (1, n, 1))
    """

    __props__ = ("axes",)

    def __init__(self, axes):
        self.axes = tuple(int(a) for a in axes)

    def make_node(self, x) -> Apply:
        x = as_tensor_variable(x)
        ndim = x.ndim + len(self.axes)
        if normalize_axes(self.axes, ndim, "expand_dims: axis") != self.axes:
            raise ValueError(
                f"expand_dims: axes {self.axes} are not sorted output axes (0..{ndim - 1})"
            )
        rest = iter(x.type.shape)
        shape = tuple(1 if i in self.axes else next(rest) for i in range(ndim))
        return Apply(self, [x], [TensorType(x.dtype, shape).make_variable()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.expand_dims(inputs[0], self.axes)


class Squeeze(Op):
    """Remove the size-1 axes ``axes`` (sorted input axes); an axis of unknown size is
    checked at run time (NumPy's ``ValueError``).

    >>> from tensortypes.tensor import tensor
    >>> Squeeze((0, 2))(tensor("int8", (1, "n", None))).type
    TensorType(int8, (n,))
    """

    __props__ = ("axes",)

    def __init__(self, axes):
        self.axes = tuple(int(a) for a in axes)

    def make_node(self, x) -> Apply:
        x = as_tensor_variable(x)
        if normalize_axes(self.axes, x.ndim, "squeeze: axis") != self.axes:
            raise ValueError(
                f"squeeze: axes {self.axes} are not sorted axes of {x} ({x.ndim} dimensions)"
            )
        for a in self.axes:
            size = x.type.shape[a]
            if size is not None and dim_eq(size, 1) is not True:
                raise ValueError(
                    f"squeeze: axis {a} of {x} with shape "
                    f"{format_static_shape(x.type.shape)} does not have size 1"
                )
        shape = tuple(s for i, s in enumerate(x.type.shape) if i not in self.axes)
        return Apply(self, [x], [TensorType(x.dtype, shape).make_variable()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.squeeze(inputs[0], axis=self.axes)


def _index_entry(entry, x) -> tuple:
    """One entry of a basic index as data: ("int", i), ("slice", start, stop, step), ("new",)."""
    if entry is None:
        return ("new",)
    if isinstance(entry, (int, np.integer)) and not isinstance(entry, (bool, np.bool_)):
        return ("int", int(entry))
    if isinstance(entry, slice):
        bounds = []
        for b in (entry.start, entry.stop, entry.step):
            if b is not None and (
                isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, np.integer))
            ):
                raise NotImplementedError(
                    f"indexing {x} with the slice {entry!r}: only Python ints or None "
                    "are provided as bounds"
                )
            bounds.append(None if b is None else int(b))
        if bounds[2] == 0:
            raise ValueError(f"indexing {x}: slice step cannot be zero")
        return ("slice", *bounds)
    raise NotImplementedError(
        f"indexing the tensor variable {x} with {entry!r} is not provided by tensortypes' "
        "ops: indexing takes ints, slices of ints, None and ... (basic indexing with "
        "static bounds)"
    )


class Subtensor(Op):
    """Basic indexing with static bounds: ``idx`` a tuple of ("int", i), ("slice", start,
    stop, step) and ("new",) entries, one per indexed axis (the rest are kept).

    >>> from tensortypes.tensor import tensor
    >>> Subtensor((("int", 0), ("slice", 1, None, 2)))(tensor("int8", (3, 7, "n"))).type
    TensorType(int8, (3, n))
    """

    __props__ = ("idx",)

    def __init__(self, idx):
        self.idx = tuple(tuple(e) for e in idx)
        for e in self.idx:
            if e[0] not in ("int", "slice", "new") or len(e) != {"int": 2, "slice": 4}.get(e[0], 1):
                raise ValueError(f"Subtensor: bad index entry {e!r}")
            if e[0] == "slice" and e[3] == 0:
                raise ValueError("Subtensor: slice step cannot be zero")

    def __str__(self) -> str:
        return f"Subtensor{{{', '.join(_entry_text(e) for e in self.idx)}}}"

    def make_node(self, x) -> Apply:
        x = as_tensor_variable(x)
        used = sum(e[0] != "new" for e in self.idx)
        if used > x.ndim:
            raise IndexError(
                f"too many indices for {x}: it has {x.ndim} dimension(s), but {used} were indexed"
            )
        shape: list = []
        axis = 0
        for e in self.idx:
            if e[0] == "new":
                shape.append(1)
                continue
            size = x.type.shape[axis]
            if e[0] == "int":
                if isinstance(size, int) and not -size <= e[1] < size:
                    raise IndexError(
                        f"index {e[1]} is out of bounds for axis {axis} of {x} with size {size}"
                    )
            elif isinstance(size, int):
                shape.append(len(range(*slice(*e[1:]).indices(size))))
            elif e[1:] in ((None, None, None), (None, None, 1)):
                shape.append(size)
            else:
                shape.append(None)
            axis += 1
        shape += list(x.type.shape[axis:])
        return Apply(self, [x], [TensorType(x.dtype, tuple(shape)).make_variable()])

    def numpy_index(self) -> tuple:
        """The index NumPy takes (``...`` last, so a result without axes is a 0-d view)."""
        out: list = []
        for e in self.idx:
            out.append(None if e[0] == "new" else e[1] if e[0] == "int" else slice(*e[1:]))
        return (*out, Ellipsis)

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0][self.numpy_index()]


def _entry_text(e) -> str:
    if e[0] == "new":
        return "None"
    if e[0] == "int":
        return str(e[1])
    start, stop, step = ("" if b is None else str(b) for b in e[1:])
    return f"{start}:{stop}" + (f":{step}" if step else "")


def getitem(x, index):
    """``x[index]`` for basic indices with static bounds (see the module docstring).

    >>> from tensortypes.tensor import tensor
    >>> x = tensor("float32", (4, "n", 3))
    >>> x[1:, ..., None, -1].type
    TensorType(float32, (3, n, 1))
    """
    x = as_tensor_variable(x)
    entries = index if isinstance(index, tuple) else (index,)
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    parsed = [e if e is Ellipsis else _index_entry(e, x) for e in entries]
    used = sum(e is not Ellipsis and e[0] != "new" for e in parsed)
    if used > x.ndim:
        raise IndexError(
            f"too many indices for {x}: it has {x.ndim} dimension(s), but {used} were indexed"
        )
    idx: list = []
    for e in parsed:
        if e is Ellipsis:
            idx += [("slice", None, None, None)] * (x.ndim - used)
        else:
            idx.append(e)
    return Subtensor(tuple(idx))(x)


def squeeze(x, axis=None):
    """``x`` without the size-1 axes ``axis`` (int or tuple); None: every axis whose
    static size is 1.

    >>> from tensortypes.tensor import tensor
    >>> squeeze(tensor("float64", (1, "n", 1))).type
    TensorType(float64, (n,))
    """
    x = as_tensor_variable(x)
    if axis is None:
        axes = tuple(i for i, s in enumerate(x.type.shape) if s is not None and dim_eq(s, 1))
    else:
        axes = normalize_axes(axis, x.ndim, "squeeze: axis")
    return Squeeze(axes)(x)


def reshape(x, shape):
    """``x`` with a new shape: ints, at most one -1, dim expressions (``"n"``, ``"2*n"``).

    >>> from tensortypes.tensor import tensor
    >>> reshape(tensor("float32", ("b", "k")), ("b", -1)).type
    TensorType(float32, (b, k))
    """
    if isinstance(shape, (int, np.integer, str, Dim)):
        shape = (shape,)
    return Reshape(tuple(shape))(x)


def transpose(x, axes=None):
    """Permute the axes of ``x`` (reverse them when ``axes`` is None).

    >>> from tensortypes.tensor import tensor
    >>> transpose(tensor("int8", (2, "n", 4))).type
    TensorType(int8, (4, n, 2))
    """
    x = as_tensor_variable(x)
    if axes is None:
        axes = tuple(range(x.ndim - 1, -1, -1))
    elif len(axes) != x.ndim:
        raise ValueError(f"transpose: {len(axes)} axes given for the {x.ndim} dimension(s) of {x}")
    else:
        axes = tuple(int(a) % x.ndim if -x.ndim <= int(a) < x.ndim else int(a) for a in axes)
    return Transpose(axes)(x)


def concatenate(tensors, axis=0):
    """Join ``tensors`` along ``axis`` (negative counts from the end).

    >>> from tensortypes.tensor import tensor
    >>> a = tensor("float32", ("a", "c"))
    >>> concatenate([a, a], axis=0).type
    TensorType(float32, (2*a, c))
    """
    tensors = [as_tensor_variable(t) for t in tensors]
    if not tensors:
        raise ValueError("concatenate needs at least one tensor")
    ndim = tensors[0].ndim
    if (
        isinstance(axis, (int, np.integer))
        and not isinstance(axis, bool)
        and ndim
        and -ndim <= axis < 0
    ):
        axis = int(axis) + ndim
    return Concatenate(axis)(*tensors)


def expand_dims(x, axis):
    """``x`` with size-1 axes inserted at ``axis`` (int or tuple, positions in the output).

    >>> from tensortypes.tensor import tensor
    >>> expand_dims(tensor("float64", ("n", 3)), -1).type
    TensorType(float64, (n, 3, 1))
    """
    x = as_tensor_variable(x)
    count = 1 if isinstance(axis, (int, np.integer)) else len(tuple(axis))
    return ExpandDims(normalize_axes(axis, x.ndim + count, "expand_dims: axis"))(x)


register_operators(reshape=reshape, transpose=transpose, squeeze=squeeze, getitem=getitem)
