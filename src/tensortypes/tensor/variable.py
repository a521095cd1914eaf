"""Tensor variables: ``TensorVariable``, ``TensorConstant``, ``TensorSharedVariable`` (layer 4).

They are graph ``Variable``s whose type is a ``TensorType``. Their operators
(``x + y``, ``x @ y``, ``-x``, ``x < y``) and methods (``x.sum(axis=0)``,
``x.T``, ``x.reshape(...)``) build nodes of the tensor ops. This module sits
below the ops (they import ``TensorType``, which imports this module), so the
op modules register their functions here with ``register_operators`` when
``tensortypes.tensor`` is imported; every operator looks its function up at
call time.

``==`` and ``hash`` stay identity, as for every ``Variable`` (graphs keep
Variables in dicts): use ``tensortypes.tensor.eq``/``neq`` for elementwise
equality. Indexing (``x[1:, 0]``) is NumPy's basic indexing with static bounds;
an index holding a tensor or an array raises ``NotImplementedError``.
"""

from __future__ import annotations

import copy

import numpy as np

from tensortypes.graph import Constant, Variable

__all__ = ["TensorVariable", "TensorConstant", "TensorSharedVariable"]


_OPERATORS: dict = {}


def register_operators(**functions) -> None:
    """Make ``functions`` the implementations of ``TensorVariable``'s operators and methods.

    Called by the op modules of ``tensortypes.tensor`` at import time; the keys
    are the op names the methods use (``add``, ``matmul``, ``sum``, ...).

    >>> sorted(_OPERATORS)[:3]
    ['abs', 'add', 'bitwise_and']
    """
    _OPERATORS.update(functions)


def _op(name: str):
    try:
        return _OPERATORS[name]
    except KeyError:
        raise NotImplementedError(
            f"TensorVariable: the operation {name!r} is provided by the tensor op modules, "
            "which register themselves when tensortypes.tensor is imported"
        ) from None


class TensorVariable(Variable):
    """A symbolic array: a ``Variable`` whose type is a ``TensorType``."""

    __slots__ = ()

    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def broadcastable(self) -> tuple:
        return self.type.broadcastable

    @property
    def static_shape(self) -> tuple:
        """The static shape of the type: ints, None and rigid dims."""
        return self.type.shape

    # NumPy must defer to the reflected operators below (``array + x``), not
    # broadcast over the Variable as an object.
    __array_ufunc__ = None

    # -- arithmetic ------------------------------------------------------------------
    def __add__(self, other):
        return _op("add")(self, other)

    def __radd__(self, other):
        return _op("add")(other, self)

    def __sub__(self, other):
        return _op("sub")(self, other)

    def __rsub__(self, other):
        return _op("sub")(other, self)

    def __mul__(self, other):
        return _op("mul")(self, other)

    def __rmul__(self, other):
        return _op("mul")(other, self)

    def __truediv__(self, other):
        return _op("true_div")(self, other)

    def __rtruediv__(self, other):
        return _op("true_div")(other, self)

    def __floordiv__(self, other):
        return _op("floor_div")(self, other)

    def __rfloordiv__(self, other):
        return _op("floor_div")(other, self)

    def __mod__(self, other):
        return _op("mod")(self, other)

    def __rmod__(self, other):
        return _op("mod")(other, self)

    def __pow__(self, other):
        return _op("pow")(self, other)

    def __rpow__(self, other):
        return _op("pow")(other, self)

    def __matmul__(self, other):
        return _op("matmul")(self, other)

    def __rmatmul__(self, other):
        return _op("matmul")(other, self)

    def __and__(self, other):
        return _op("bitwise_and")(self, other)

    def __rand__(self, other):
        return _op("bitwise_and")(other, self)

    def __or__(self, other):
        return _op("bitwise_or")(self, other)

    def __ror__(self, other):
        return _op("bitwise_or")(other, self)

    def __xor__(self, other):
        return _op("bitwise_xor")(self, other)

    def __rxor__(self, other):
        return _op("bitwise_xor")(other, self)

    def __neg__(self):
        return _op("neg")(self)

    def __pos__(self):
        return _op("pos")(self)

    def __abs__(self):
        return _op("abs")(self)

    def __invert__(self):
        return _op("invert")(self)

    def __lt__(self, other):
        return _op("lt")(self, other)

    def __le__(self, other):
        return _op("le")(self, other)

    def __gt__(self, other):
        return _op("gt")(self, other)

    def __ge__(self, other):
        return _op("ge")(self, other)

    __eq__ = Variable.__eq__  # identity: Variables are dict keys (use tensor.eq)
    __hash__ = Variable.__hash__

    def __getitem__(self, index):
        """Basic indexing with static bounds (ints, slices of ints, None, ``...``): a view."""
        return _op("getitem")(self, index)

    # -- methods -----------------------------------------------------------------------
    def sum(self, axis=None, keepdims=False):
        """The sum over ``axis`` (int, tuple or None for all), NumPy's dtype rule."""
        return _op("sum")(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, keepdims=False):
        """The product over ``axis``."""
        return _op("prod")(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        """The maximum over ``axis``."""
        return _op("max")(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        """The minimum over ``axis``."""
        return _op("min")(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        """The mean over ``axis``."""
        return _op("mean")(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        """The int64 index of the maximum along ``axis`` (None: the flat index)."""
        return _op("argmax")(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        """The int64 index of the minimum along ``axis`` (None: the flat index)."""
        return _op("argmin")(self, axis=axis, keepdims=keepdims)

    def dot(self, other):
        """``numpy.dot`` of this variable and ``other``."""
        return _op("dot")(self, other)

    def reshape(self, *shape):
        """This variable with a new static shape (ints, -1 once, dims); see ``reshape``."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, str)):
            shape = shape[0]
        return _op("reshape")(self, shape)

    def flatten(self):
        """This variable as a 1-d variable (``reshape(-1)``)."""
        return _op("reshape")(self, (-1,))

    def transpose(self, *axes):
        """The axes permuted (reversed when none are given)."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return _op("transpose")(self, axes or None)

    def squeeze(self, axis=None):
        """The size-1 axes ``axis`` removed (None: those of static size 1); see ``squeeze``."""
        return _op("squeeze")(self, axis)

    @property
    def T(self):  # noqa: N802  (NumPy's name)
        """The transpose (axes reversed)."""
        return _op("transpose")(self, None)

    def __bool__(self):
        raise TypeError(
            f"the truth value of the symbolic variable {self} is unknown until the graph runs"
        )

    def __iter__(self):
        raise TypeError(f"the symbolic variable {self} cannot be iterated over")


class TensorConstant(TensorVariable, Constant):
    """A tensor ``Constant``: its data is filtered by its type and never changes."""

    __slots__ = ()

    def __str__(self):
        if self.name is not None:
            return self.name
        data = self.data
        if data.size <= 8:
            shown = np.array2string(data, separator=", ") if data.ndim else str(data)
        else:
            shown = f"{data.shape} of {data.dtype}"
        return f"TensorConstant{{{shown}}}"

    __repr__ = __str__


class TensorSharedVariable(TensorVariable):
    """A root variable with a value that persists between calls (as in Theano).

    ``get_value()`` returns a copy unless ``borrow=True``; ``set_value()``
    filters the new value by the variable's type and, when dtype and shape
    match, writes it into the existing storage.
    """

    __slots__ = ("_value", "_strict", "_allow_downcast")

    def __init__(self, type, value, name=None, strict=False, allow_downcast=None):
        super().__init__(type, None, None, name)
        self._strict = strict
        self._allow_downcast = allow_downcast
        self._value = type.filter(value, strict=strict, allow_downcast=allow_downcast)

    def get_value(self, borrow=False):
        return self._value if borrow else copy.deepcopy(self._value)

    def set_value(self, value, borrow=False):
        if not borrow and isinstance(value, np.ndarray):
            value = value.copy()
        self._value = self.type.filter_inplace(
            value, self._value, strict=self._strict, allow_downcast=self._allow_downcast
        )

    @property
    def value(self):
        """The current value (borrowed): what a graph evaluation reads."""
        return self._value

    def clone(self, **kwargs):
        cp = type(self)(
            self.type,
            self._value,
            name=self.name,
            strict=self._strict,
            allow_downcast=self._allow_downcast,
        )
        cp.tag = copy.copy(self.tag)
        return cp
