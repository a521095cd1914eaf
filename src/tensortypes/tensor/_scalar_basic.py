"""The built-in scalar ops and the ``ScalarOp`` interface (layer 4, ``tensor``).

Public names are re-exported by ``tensortypes.tensor.scalar_ops``, which
documents the contract. The basic ops are a table (``_SPECS``): per op the
number of inputs, the NumPy ufunc, a dtype rule applied to the promoted dtype
``R`` of the promoted inputs (from ``core.dtypes.result_type``), and the kinds
of ``R`` the op refuses, as NumPy does (no boolean ``subtract`` or
``negative``, no complex ``floor_divide``, no bitwise ops on inexact types).
The C forms are in ``_scalar_c``.
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from tensortypes.core import dtypes as _dtypes
from tensortypes.errors import MethodNotDefined
from tensortypes.tensor._scalar_c import C_HELPERS, C_RULES, NO_C_DTYPES

__all__ = [
    "ScalarOp",
    "BasicScalarOp",
    "SCALAR_OPS",
    "scalar_op",
    "promote_dtypes",
    "add",
    "sub",
    "mul",
    "true_div",
    "floor_div",
    "mod",
    "pow",
    "neg",
    "abs_",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "log1p",
    "expm1",
    "sigmoid",
    "softplus",
    "maximum",
    "minimum",
    "where",
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "neq",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
]


def promote_dtypes(*dtypes: str) -> str:
    """NumPy 2's promotion of dtype names, from the core lattice.

    >>> promote_dtypes("int8", "uint8")
    'int16'
    """
    try:
        return _dtypes.result_type(*dtypes).name
    except TypeError as exc:
        raise TypeError(f"no common dtype for {', '.join(dtypes)}: {exc}") from None


def _kind(dtype: str) -> str:
    return np.dtype(dtype).kind


# -- dtype rules (output dtype from the promoted dtype R of the promoted inputs) ----------
def _rule_promote(r: str) -> str:
    return r


def _rule_promote_int8(r: str) -> str:
    return "int8" if r == "bool" else r  # NumPy has no boolean power/floor_divide/remainder


def _rule_float(r: str) -> str:
    return promote_dtypes(r, "float16")  # the smallest inexact type holding r's values


def _rule_true_div(r: str) -> str:
    return r if _kind(r) in "fc" else "float64"


def _rule_bool(r: str) -> str:
    return "bool"


def _rule_real(r: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(r, r)


_RULES = {
    "promote": _rule_promote,
    "promote_int8": _rule_promote_int8,
    "float": _rule_float,
    "true_div": _rule_true_div,
    "bool": _rule_bool,
    "real": _rule_real,
}


class ScalarOp(abc.ABC):
    """The interface of scalar ops (what ``Elemwise`` applies to every element).

    A subclass sets ``name``, ``nin``, ``nout`` and ``nfunc`` and defines
    ``output_dtypes``; ``c_expr`` is optional (``MethodNotDefined`` means "no
    C form": the C linker then runs the op through ``perform``).
    """

    __slots__ = ()

    name: str
    nin: int
    nout: int = 1
    nfunc = None
    promoted: tuple = ()
    """Input positions whose dtypes are promoted together (Python scalars there are weak)."""

    @abc.abstractmethod
    def output_dtypes(self, *in_dtypes: str) -> tuple:
        """The output dtype names for inputs of ``in_dtypes``; TypeError if unsupported."""

    def output_dtype(self, *in_dtypes: str) -> str:
        """The dtype of the single output (``output_dtypes`` for several)."""
        outs = self.output_dtypes(*in_dtypes)
        if len(outs) != 1:
            raise TypeError(f"{self.name} has {len(outs)} outputs; use output_dtypes")
        return outs[0]

    def impl(self, *values):
        """Compute on NumPy arrays (broadcasting): what ``Elemwise.perform`` calls."""
        return self.nfunc(*values)

    def c_expr(self, inputs, in_dtypes, out_dtype) -> str:
        """A C expression of the output from C expressions of the inputs."""
        raise MethodNotDefined(f"{self.name} has no C expression")

    def c_support_code(self) -> str:
        """Global C code the expressions need (include-guarded)."""
        return ""

    def c_code_cache_version(self) -> tuple:
        """Version of the C code; ``()`` means unversioned."""
        return ()

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


class BasicScalarOp(ScalarOp):
    """One of the built-in scalar ops; there is one instance per name (final class).

    >>> add.output_dtype("int8", "float32"), true_div.output_dtype("int8", "int8")
    ('float32', 'float64')
    """

    __slots__ = ("name", "nin", "nfunc", "promoted", "_rule", "_refuse", "_c", "_table")
    _c: Any
    _refuse: Any
    _rule: Any
    _table: Any

    def __init_subclass__(cls, **kwargs):
        raise TypeError("BasicScalarOp is final; subclass ScalarOp for a new scalar op")

    def __init__(self, name, nin, nfunc, rule, refuse, promoted=None):
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "nin", nin)
        set_(self, "nfunc", nfunc)
        set_(self, "promoted", tuple(range(nin)) if promoted is None else promoted)
        set_(self, "_rule", _RULES[rule])
        set_(self, "_refuse", frozenset(refuse))
        set_(self, "_c", C_RULES.get(name))
        set_(self, "_table", {})

    def __setattr__(self, key, value):
        raise AttributeError(f"scalar ops are immutable (cannot set {key!r})")

    def __reduce__(self):
        return (scalar_op, (self.name,))

    def output_dtypes(self, *in_dtypes: str) -> tuple:
        """``(dtype,)``: NumPy's result dtype for inputs of ``in_dtypes`` (cached)."""
        found = self._table.get(in_dtypes)
        if found is None:
            found = self._table[in_dtypes] = (self._compute(in_dtypes),)
        return found

    def _compute(self, in_dtypes: tuple) -> str:
        if len(in_dtypes) != self.nin:
            raise TypeError(f"{self.name} takes {self.nin} input(s), got {len(in_dtypes)}")
        names = tuple(np.dtype(d).name for d in in_dtypes)
        r = promote_dtypes(*(names[i] for i in self.promoted))
        if _kind(r) in self._refuse:
            raise TypeError(
                f"{self.name} is not defined for dtype {r} (inputs {', '.join(names)}), as in NumPy"
            )
        return self._rule(r)

    def c_expr(self, inputs, in_dtypes, out_dtype) -> str:
        """A C expression over ``inputs``; ``MethodNotDefined`` for float16/complex."""
        if self._c is None:
            raise MethodNotDefined(f"{self.name} has no C expression")
        dtypes = [np.dtype(d).name for d in in_dtypes]
        out = np.dtype(out_dtype).name
        if len(inputs) != self.nin or len(dtypes) != self.nin:
            raise ValueError(f"{self.name}.c_expr takes {self.nin} input(s)")
        if NO_C_DTYPES.intersection(dtypes) or out in NO_C_DTYPES:
            raise MethodNotDefined(
                f"{self.name} has no C form for float16/complex dtypes "
                f"({', '.join(dtypes)} -> {out})"
            )
        return self._c(self, list(inputs), dtypes, out)

    def c_support_code(self) -> str:
        return C_HELPERS

    def c_code_cache_version(self) -> tuple:
        return (1,)


def _as_inexact(x) -> np.ndarray:
    """``x`` as an array of the smallest inexact dtype holding its values (the "float" rule)."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"not defined for complex dtype {x.dtype}")
    return x if x.dtype.kind == "f" else x.astype(np.result_type(x.dtype, np.float16))


def _sigmoid(x):
    """``1 / (1 + exp(-x))`` without overflow: ``exp`` only ever of a non-positive number.

    >>> float(_sigmoid(np.float64(-1000.0))), float(_sigmoid(np.float64(1000.0)))
    (0.0, 1.0)
    """
    x = _as_inexact(x)
    e = np.exp(-np.abs(x))
    one = x.dtype.type(1)
    return np.where(x >= 0, one / (one + e), e / (one + e)).astype(x.dtype, copy=False)


def _softplus(x):
    """``log(1 + exp(x))`` without overflow or underflow (``logaddexp(0, x)``).

    >>> float(_softplus(np.float64(1000.0))), float(_softplus(np.float64(-1000.0)))
    (1000.0, 0.0)
    """
    x = _as_inexact(x)
    return np.logaddexp(x.dtype.type(0), x)


# name: (nin, nfunc, dtype rule, refused kinds of R[, promoted inputs])
_SPECS = {
    "add": (2, np.add, "promote", ""),
    "sub": (2, np.subtract, "promote", "b"),
    "mul": (2, np.multiply, "promote", ""),
    "true_div": (2, np.true_divide, "true_div", ""),
    "floor_div": (2, np.floor_divide, "promote_int8", "c"),
    "mod": (2, np.remainder, "promote_int8", "c"),
    "pow": (2, np.power, "promote_int8", ""),
    "maximum": (2, np.maximum, "promote", ""),
    "minimum": (2, np.minimum, "promote", ""),
    "neg": (1, np.negative, "promote", "b"),
    "abs": (1, np.absolute, "real", ""),
    "exp": (1, np.exp, "float", ""),
    "log": (1, np.log, "float", ""),
    "sqrt": (1, np.sqrt, "float", ""),
    "sin": (1, np.sin, "float", ""),
    "cos": (1, np.cos, "float", ""),
    "tanh": (1, np.tanh, "float", ""),
    "log1p": (1, np.log1p, "float", ""),
    "expm1": (1, np.expm1, "float", ""),
    "sigmoid": (1, _sigmoid, "float", "c"),
    "softplus": (1, _softplus, "float", "c"),
    "lt": (2, np.less, "bool", ""),
    "le": (2, np.less_equal, "bool", ""),
    "gt": (2, np.greater, "bool", ""),
    "ge": (2, np.greater_equal, "bool", ""),
    "eq": (2, np.equal, "bool", ""),
    "neq": (2, np.not_equal, "bool", ""),
    "bitwise_and": (2, np.bitwise_and, "promote", "fc"),
    "bitwise_or": (2, np.bitwise_or, "promote", "fc"),
    "bitwise_xor": (2, np.bitwise_xor, "promote", "fc"),
    "invert": (1, np.invert, "promote", "fc"),
    "where": (3, np.where, "promote", "", (1, 2)),
}

SCALAR_OPS: dict = {name: BasicScalarOp(name, *spec) for name, spec in _SPECS.items()}


def scalar_op(name: str) -> BasicScalarOp:
    """The built-in scalar op called ``name``.

    >>> scalar_op("add") is add
    True
    """
    try:
        return SCALAR_OPS[name]
    except KeyError:
        raise ValueError(
            f"no scalar op named {name!r}; known: {', '.join(sorted(SCALAR_OPS))}"
        ) from None


(
    add,
    sub,
    mul,
    true_div,
    floor_div,
    mod,
    pow,
    maximum,
    minimum,
    neg,
    abs_,
    exp,
    log,
    sqrt,
    sin,
    cos,
    tanh,
    log1p,
    expm1,
    sigmoid,
    softplus,
    lt,
    le,
    gt,
    ge,
    eq,
    neq,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    where,
) = SCALAR_OPS.values()
