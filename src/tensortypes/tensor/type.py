"""``TensorType``: the graph form of an array type (layer 4, ``tensor``).

One NumPy dtype, a fixed number of dimensions, and per axis a known size, ``None``
(unknown) or a *rigid* symbolic size (``"n"``, ``"2*n"``: a fixed size shared by
every variable of the graph that names it). Types are immutable and interned:
building the same type twice returns the same object, so ``==`` is almost
always an identity check.

PyTensor's Type documentation calls static-shape propagation through ``filter_variable`` unfinished;
here it is finished: converting a variable merges the static shapes of both
types into the ``SpecifyShape`` output (see ``convert_variable``).
"""

from __future__ import annotations

from abc import ABCMeta
from typing import TYPE_CHECKING, Any

import numpy as np

from tensortypes._config import config
from tensortypes.core import dtypes as _dtypes
from tensortypes.core.dims import Dim
from tensortypes.core.shapes import merge_dims, normalize_static_shape, normalized_shape_is_super
from tensortypes.errors import TypeCheckError
from tensortypes.graph import CRegistered, Type, Variable
from tensortypes.tensor import _filtering, _values
from tensortypes.tensor.shape import specify_variable
from tensortypes.tensor.variable import TensorConstant, TensorVariable

__all__ = ["TensorType"]

# The dtypes a TensorType may carry: the ones NumPy computes with.
_ALLOWED = frozenset(d.name for d in _dtypes.NUMPY_DTYPES)


def _normalize_dtype(dtype: Any) -> str:
    if isinstance(dtype, str) and dtype == "floatX":
        return config.floatX
    if dtype is None:
        raise TypeError(
            "TensorType: a dtype is required (None given); use 'floatX' for config.floatX"
        )
    try:
        name = np.dtype(dtype).name
    except (TypeError, ValueError) as exc:
        raise TypeError(f"TensorType: unsupported dtype {dtype!r} ({exc})") from None
    if name not in _ALLOWED:
        raise TypeError(
            f"TensorType: unsupported dtype {dtype!r} (normalised to {name}); "
            f"expected one of {', '.join(sorted(_ALLOWED))}"
        )
    return name


class _Interning(ABCMeta):
    """Build each distinct TensorType once.

    The fast path is a dict keyed by the raw arguments plus the classes of the
    shape entries, so ``(2.0,)``, which equals ``(2,)`` under ``==``, never hits
    the entry of ``(2,)`` and still gets its ValueError.
    """

    def __call__(cls, dtype="floatX", shape=None, name=None, broadcastable=None):
        if (
            broadcastable is None
            and (shape is None or type(shape) is tuple)
            and (type(dtype) is not str or dtype != "floatX")
        ):
            key = (cls, dtype, shape, name, None if shape is None else tuple(map(type, shape)))
            try:
                return cls._raw_cache[key]
            except KeyError:
                inst = cls._build(dtype, shape, name, broadcastable)
                cls._raw_cache[key] = inst
                return inst
            except TypeError:  # unhashable argument: take the slow path
                pass
        return cls._build(dtype, shape, name, broadcastable)


class TensorType(CRegistered, Type, metaclass=_Interning):
    """Symbolic type of ``numpy.ndarray`` values with a dtype and a static shape.

    >>> TensorType("float64", (2, None))
    TensorType(float64, (2, ?))
    >>> TensorType("float64", (2, None)).is_super(TensorType("float64", (2, 1)))
    True
    >>> TensorType("float32", ("n",)).is_super(TensorType("float32", (5,))) is None
    True
    """

    _raw_cache: dict = {}
    _canonical: dict = {}
    variable_type = TensorVariable
    constant_type = TensorConstant

    __slots__ = (
        "dtype",
        "shape",
        "name",
        "ndim",
        "numpy_dtype",
        "lattice_dtype",
        "broadcastable",
        "_symbolic",
        "_hash",
        "_base",
        "__weakref__",
    )
    _symbolic: Any
    broadcastable: Any
    ndim: Any
    numpy_dtype: Any

    dtype: str
    shape: tuple
    name: str | None

    if TYPE_CHECKING:
        # Built by ``_Interning.__call__`` (through ``_build``), whose signature this is.
        def __init__(
            self,
            dtype: Any = "floatX",
            shape: Any = None,
            name: str | None = None,
            broadcastable: Any = None,
        ) -> None: ...

    @classmethod
    def _build(cls, dtype, shape, name, broadcastable):
        dtype_name = _normalize_dtype(dtype)
        if broadcastable is not None:
            if shape is not None:
                raise ValueError("TensorType: give shape or broadcastable, not both")
            shape = tuple(1 if b else None for b in broadcastable)
        if shape is None:
            raise ValueError(
                f"TensorType({dtype_name}): a shape (or ndim via Nones) is required,"
                " e.g. TensorType('float64', (None, None))"
            )
        static = normalize_static_shape(shape)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"TensorType: name must be a str or None, got {name!r}")
        key = (cls, dtype_name, static, name)
        inst = cls._canonical.get(key)
        if inst is None:
            base = inst = object.__new__(cls)
            if name is not None:
                base = cls._build(dtype_name, static, None, None)
            inst._init(dtype_name, static, name, base)
            cls._canonical[key] = inst
        return inst

    def _init(self, dtype: str, shape: tuple, name: str | None, base: TensorType) -> None:
        set_ = object.__setattr__
        # The nameless type of the same dtype and shape: equality modulo name
        # is identity of the bases, since every type is interned.
        set_(self, "_base", base)
        set_(self, "dtype", dtype)
        set_(self, "shape", shape)
        set_(self, "name", name)
        set_(self, "ndim", len(shape))
        set_(self, "numpy_dtype", np.dtype(dtype))
        set_(self, "lattice_dtype", _dtypes.as_dtype(dtype))
        set_(self, "broadcastable", tuple(s == 1 for s in shape))
        set_(self, "_symbolic", any(isinstance(s, Dim) for s in shape))
        set_(self, "_hash", hash((TensorType, dtype, shape)))

    def __setattr__(self, key, value):
        raise AttributeError(f"TensorType is immutable (cannot set {key!r})")

    def __reduce__(self):
        return (TensorType, (self.dtype, self.shape, self.name))

    # -- identity -------------------------------------------------------------
    def __eq__(self, other):
        return self is other or (type(other) is type(self) and other._base is self._base)

    def __hash__(self):
        return self._hash

    def __str__(self):
        if self.name:
            return self.name
        dims = ", ".join("?" if s is None else str(s) for s in self.shape)
        if len(self.shape) == 1:
            dims += ","
        return f"TensorType({self.dtype}, ({dims}))"

    __repr__ = __str__

    def clone(self, dtype=None, shape=None, **kwargs) -> TensorType:
        """A type like this one with another dtype and/or shape; the name is kept."""
        name = kwargs.pop("name", self.name)
        if "broadcastable" in kwargs:
            if shape is not None:
                raise ValueError("clone: give shape or broadcastable, not both")
            shape = tuple(1 if b else None for b in kwargs.pop("broadcastable"))
        if kwargs:
            raise TypeError(f"clone() got unexpected arguments {sorted(kwargs)}")
        return TensorType(
            self.dtype if dtype is None else dtype, self.shape if shape is None else shape, name
        )

    # -- the relations (as in PyTensor) -------------------------------------------------
    def in_same_class(self, otype) -> bool:
        """Same dtype, number of dimensions and pattern of 1s (as in PyTensor)."""
        return (self is otype) or (
            isinstance(otype, TensorType)
            and otype.dtype == self.dtype
            and otype.broadcastable == self.broadcastable
        )

    def is_super(self, otype) -> bool | None:
        """True if every value of ``otype`` is a value of this type.

        None where the answer depends on the value of a rigid symbol.
        """
        if self is otype:
            return True
        if isinstance(otype, TensorType):
            if otype.dtype != self.dtype or otype.ndim != self.ndim:
                return False
            if self._symbolic or otype._symbolic:
                return normalized_shape_is_super(self.shape, otype.shape)
            # Only ints and None: the common case, answered without the core's
            # symbolic machinery (same answer, checked by the property tests).
            for mine, theirs in zip(self.shape, otype.shape):
                if mine is not None and mine != theirs:
                    return False
            return True
        as_tensor = getattr(otype, "as_tensor_type", None)
        if as_tensor is not None:
            concrete = as_tensor()
            if concrete is not None:
                return self.is_super(concrete)
        return False

    # -- values -------------------------------------------------------------------
    def filter(self, data, strict=False, allow_downcast=None):
        """Return ``data`` as an ndarray of this type, or raise ``TypeCheckError``.

        ``strict``: only an ndarray of exactly this dtype, returned as is.
        ``allow_downcast=True``: any cast. ``None``/``False``: only casts NumPy
        calls safe, plus (when None) Python floats into ``config.floatX``; other
        Python data only when exactly representable.
        """
        if isinstance(data, Variable):
            raise TypeCheckError(
                f"{self} expected an array-like value, but got the symbolic Variable {data}; "
                "use filter_variable to convert variables"
            )
        data = _filtering.coerce(self, data, strict, allow_downcast)
        _filtering.check_shape(self, data)
        return data

    def filter_inplace(self, value, storage, strict=False, allow_downcast=None):
        """Filter ``value``; copy it into ``storage`` when dtype and shape match."""
        value = self.filter(value, strict=strict, allow_downcast=allow_downcast)
        if (
            value is not storage
            and isinstance(storage, np.ndarray)
            and storage.dtype == value.dtype
            and storage.shape == value.shape
            and storage.flags.writeable
            and storage.flags.c_contiguous
            and not np.may_share_memory(storage, value)
        ):
            np.copyto(storage, value)
            return storage
        return value

    values_eq = staticmethod(_values.values_eq)
    values_eq_approx = staticmethod(_values.values_eq_approx)

    @staticmethod
    def may_share_memory(a, b) -> bool:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return bool(np.may_share_memory(a, b))
        return False

    def get_shape_info(self, obj):
        return obj.shape

    def get_size(self, shape_info) -> int:
        """Bytes of the data of an array with shape ``shape_info``."""
        return int(np.prod(shape_info, dtype=np.int64)) * self.numpy_dtype.itemsize

    def value_zeros(self, shape):
        """An array of zeros of this dtype (helper for ops and tests)."""
        return np.zeros(shape, dtype=self.numpy_dtype)

    # -- variables ------------------------------------------------------------------
    def __call__(self, name=None, shape=None):
        """Make a ``TensorVariable`` of this type, optionally of a more specific ``shape``."""
        if shape is None:
            return self.make_variable(name)
        refined = self.clone(shape=shape, name=None)
        if refined.ndim != self.ndim or self.is_super(refined) is not True:
            raise ValueError(
                f"{refined} is not a subtype of {self}: shape {shape!r} "
                f"does not refine {self.shape!r}"
            )
        return refined.make_variable(name)

    def make_constant(self, value, name=None):
        return self.constant_type(type=self, data=value, name=name)

    def filter_variable(self, other, allow_convert=True):
        """Convert ``other`` into a variable usable where this type is expected.

        A non-Variable becomes a ``TensorConstant`` whose type is refined to the
        data's exact shape. A variable of a compatible type with less static
        shape information is wrapped in ``SpecifyShape``, whose output carries
        the merged static shape. Incompatible types raise ``TypeError``.
        """
        if not isinstance(other, Variable):
            data = self.filter(other)
            return self.clone(shape=data.shape, name=None).make_constant(data)
        otype = other.type
        if otype is self or otype == self:
            return other
        if allow_convert:
            converted = self.convert_variable(other)
            if converted is not None:
                return converted
        raise TypeError(
            f"Cannot convert Type {otype} (of Variable {other}) into Type {self}. "
            f"You can try to manually convert {other} into a {self}."
            + _conflict_reason(self, otype)
        )

    def convert_variable(self, var):
        """``var`` itself if this type is a supertype of its type; else a
        ``SpecifyShape`` of it whose type has the merged static shape; None when
        dtype or rank differ or a fixed size conflicts."""
        otype = var.type
        if self.is_super(otype) is True:
            return var
        if (
            not isinstance(otype, TensorType)
            or otype.dtype != self.dtype
            or otype.ndim != self.ndim
        ):
            return None
        try:
            # SpecifyShape keeps this type's symbolic names and merges the rest.
            out = specify_variable(var, self.shape)
        except ValueError:
            return None
        return out if self.is_super(out.type) is True else None


def _conflict_reason(target: TensorType, otype) -> str:
    if not isinstance(otype, TensorType):
        return ""
    if otype.dtype != target.dtype:
        return f" The dtypes differ ({otype.dtype} vs {target.dtype})."
    if otype.ndim != target.ndim:
        return f" The numbers of dimensions differ ({otype.ndim} vs {target.ndim})."
    for axis, (a, b) in enumerate(zip(target.shape, otype.shape)):
        try:
            merge_dims(a, b, axis=axis)
        except ValueError:
            return f" Axis {axis} has static size {b} in the variable but {a} in the type."
    return ""
