"""How ``TensorType.filter`` turns data into an ndarray of its type (layer 4).

The casting rules are spec 001's: ``strict`` accepts only an ndarray of the
exact dtype; ``allow_downcast=True`` casts anything; otherwise only casts that
NumPy calls safe, plus Python floats into ``config.floatX`` when
``allow_downcast`` is None, and other Python data only when the cast is exact.
Every refusal is a ``TypeCheckError`` (never an ``OverflowError`` or a silent
wrap-around), so ``is_valid_value`` always answers True or False.
"""

from __future__ import annotations

import numpy as np

from tensortypes._config import config
from tensortypes.core.dims import Dim, solve_linear
from tensortypes.errors import TypeCheckError
from tensortypes.tensor._values import values_eq

__all__ = ["coerce", "check_shape", "symbolic_mismatch"]


def _short(data, limit: int = 80) -> str:
    text = str(data)
    return text if len(text) <= limit else text[: limit - 5] + "(...)"


def _as_python(converted: np.ndarray):
    # str() of a float32 scalar hides the rounding ("0.1"); the Python value shows it.
    value = converted.tolist() if converted.size <= 16 else converted
    return _short(value)


def _asarray(self, data):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(data, dtype=self.numpy_dtype)
    except OverflowError:
        raise TypeCheckError(
            f"{self} cannot store value {_short(data)}: it is out of range for "
            f"{self.dtype}") from None
    except (TypeError, ValueError) as exc:
        raise TypeCheckError(f"{self} cannot convert {_short(data)!s} "
                             f"(of type {type(data).__name__}) to {self.dtype}: {exc}") from None


def coerce(self, data, strict: bool, allow_downcast):
    """Return ``data`` as an ndarray of ``self.dtype`` or raise ``TypeCheckError``."""
    if type(data) is np.ndarray or isinstance(data, np.ndarray):
        if data.dtype == self.numpy_dtype:
            if data.dtype.byteorder not in "=|" and not data.dtype.isnative:
                if strict:
                    raise TypeCheckError(f"{self} expected a native-byte-order ndarray, "
                                         f"got dtype {data.dtype.str}")
                return data.astype(self.numpy_dtype)
            return data
        if strict:
            raise TypeCheckError(
                f"{self} expected an ndarray with dtype={self.dtype} (got {data.dtype}).")
        if allow_downcast:
            return _cast_array(self, data)
        if np.can_cast(data.dtype, self.numpy_dtype, "safe"):
            return data.astype(self.numpy_dtype)
        raise TypeCheckError(
            f"{self} cannot store a value of dtype {data.dtype} without risking loss of "
            f"precision. If you do not mind this loss, you can: 1) explicitly cast your "
            f"data to {self.dtype}, or 2) pass allow_downcast=True. Value: {_short(data)!s}")
    if strict:
        raise TypeCheckError(f"{self} expected an ndarray object (got {type(data).__name__}).")
    if isinstance(data, (str, bytes)) or data is None:
        raise TypeCheckError(f"{self} cannot store {data!r} (of type {type(data).__name__})")
    if allow_downcast:
        return _asarray(self, data)
    if (allow_downcast is None and isinstance(data, (float, np.floating))
            and self.dtype == config.floatX):
        return _asarray(self, data)
    converted = _asarray(self, data)
    try:
        original = np.asarray(data)
    except (TypeError, ValueError) as exc:
        raise TypeCheckError(f"{self} cannot convert {_short(data)}: {exc}") from None
    if original.dtype.kind == "O":
        raise TypeCheckError(f"{self} cannot store {_short(data)}: it is not numeric data")
    if not values_eq(original, converted, force_same_dtype=False):
        raise TypeCheckError(
            f"{self} cannot store accurately value {_short(data)}, it would be represented "
            f"as {_as_python(converted)}. If you do not mind this precision loss, you can: "
            f"1) explicitly convert your data to a numpy array of dtype {self.dtype}, or "
            f"2) pass allow_downcast=True.")
    return converted


def _cast_array(self, data: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return data.astype(self.numpy_dtype)


def check_shape(self, data: np.ndarray) -> None:
    """Rank, alignment, static sizes and the consistency of rigid symbols."""
    if data.ndim != self.ndim:
        raise TypeCheckError(
            f"Wrong number of dimensions: expected {self.ndim}, got {data.ndim} "
            f"with shape {data.shape}.")
    if not data.flags.aligned:
        raise TypeCheckError(f"{self}: the ndarray is not aligned; compiled code needs "
                             "aligned data (copy it with numpy.ascontiguousarray)")
    shape = data.shape
    for axis, want in enumerate(self.shape):
        if want is None or isinstance(want, Dim):
            continue
        if shape[axis] != want:
            raise TypeCheckError(
                f"{self}: axis {axis} has size {shape[axis]}, but the type requires "
                f"{want} (data shape {shape})")
    if self._symbolic:
        problem = symbolic_mismatch(self.shape, shape)
        if problem is not None:
            raise TypeCheckError(f"{self}: {problem} (data shape {shape})")


def symbolic_mismatch(static: tuple, shape: tuple, bindings: dict | None = None) -> str | None:
    """Check the rigid symbolic entries of ``static`` against a concrete ``shape``.

    Symbols bind from bare-symbol axes first (in ``bindings``, which is updated),
    then expressions are evaluated, or solved when linear in one unbound symbol.
    Returns a message for the first inconsistent axis, or None. An expression
    that still has two unbound symbols is accepted: nothing in one value can
    contradict it.
    """
    if bindings is None:
        bindings = {}
    pending = []
    for axis, want in enumerate(static):
        if not isinstance(want, Dim):
            continue
        if want.is_symbol:
            got = shape[axis]
            bound = bindings.get(want.name)
            if bound is None:
                bindings[want.name] = got
            elif bound != got:
                return (f"axis {axis} has size {got}, but {want.name}={bound} "
                        f"was bound by an earlier axis")
        else:
            pending.append(axis)
    for axis in pending:
        want = static[axis]
        got = shape[axis]
        free = want.free_symbols - bindings.keys()
        if not free:
            expected = want.evaluate(bindings)
            if expected != got:
                return (f"axis {axis} has size {got}, but {want}={expected} "
                        f"with {_fmt(bindings, want.free_symbols)}")
            continue
        solved = solve_linear(want.substitute(bindings), got)
        if solved is False:
            return f"axis {axis} has size {got}, which no value of {want} can take"
        if solved:
            bindings.update(solved)
    return None


def _fmt(bindings: dict, names) -> str:
    return ", ".join(f"{n}={bindings[n]}" for n in sorted(names))
