"""How ``TensorType.filter`` turns data into an ndarray of its type (layer 4).

The casting rules are Theano's: ``strict`` accepts only an ndarray of the
exact dtype; ``allow_downcast=True`` casts anything; otherwise only casts that
NumPy calls safe, plus Python floats into ``config.floatX`` when
``allow_downcast`` is None, and other Python data only when the cast is exact.
Every refusal is a ``TypeCheckError`` (never an ``OverflowError`` or a silent
wrap-around), so ``is_valid_value`` always answers True or False.
"""

from __future__ import annotations

import numpy as np

from tensortypes._config import config
from tensortypes.core.arrays import ArrayRepr
from tensortypes.core.dims import Dim, solve_linear
from tensortypes.core.words import value_text
from tensortypes.errors import TypeCheckError
from tensortypes.tensor._values import values_eq

__all__ = ["coerce", "check_shape", "check_symbolic_shape"]


_REPR = ArrayRepr()
_REPR.maxstring = 40
_REPR.maxother = 60


def _short(data, limit: int = 80) -> str:
    # A message must never fail (a value's __str__ may raise, a huge int has no text)
    # nor take long: containers and large arrays are shown by dtype and shape, since
    # NumPy prints every item of, say, a broadcast array of 64 axes of size 2.
    try:
        if isinstance(data, (list, tuple, dict, set, frozenset)) or (
            issubclass(type(data), np.ndarray) and np.ndarray.size.__get__(data) > 1000
        ):
            text = _REPR.repr(data)
        else:
            text = str(data)
    except Exception:  # noqa: BLE001 - whatever the value's own code raises
        return f"<a {type(data).__name__} that cannot be printed>"
    return text if len(text) <= limit else text[: limit - 5] + "(...)"


def _nesting(data, most: int) -> int:
    """How many axes NumPy would make of ``data`` at least, looking at first items only.

    Reading stops past ``most`` axes: enough to refuse a value with too many axes
    before converting it (a list holding a broadcast array of 2**32 items would
    otherwise be copied whole).
    """
    axes = 0
    while isinstance(data, (list, tuple)) and axes <= most:
        axes += 1
        if not data:
            return axes
        data = data[0]
    if issubclass(type(data), np.ndarray):
        axes += np.ndarray.ndim.__get__(data)  # NumPy's record, not a subclass's property
    return axes


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
            f"{self} cannot store value {_short(data)}: it is out of range for {self.dtype}"
        ) from None
    except (TypeError, ValueError) as exc:
        raise TypeCheckError(
            f"{self} cannot convert {_short(data)!s} "
            f"(of type {type(data).__name__}) to {self.dtype}: {exc}"
        ) from None


def coerce(self, data, strict: bool, allow_downcast):
    """Return ``data`` as an ndarray of ``self.dtype`` or raise ``TypeCheckError``."""
    if type(data) is np.ndarray or issubclass(type(data), np.ndarray):  # not a faked __class__
        if data.dtype == self.numpy_dtype:
            if data.dtype.byteorder not in "=|" and not data.dtype.isnative:
                if strict:
                    raise TypeCheckError(
                        f"{self} expected a native-byte-order ndarray, got dtype {data.dtype.str}"
                    )
                return data.astype(self.numpy_dtype)
            return data
        if strict:
            raise TypeCheckError(
                f"{self} expected an ndarray with dtype={self.dtype} (got {data.dtype})."
            )
        if allow_downcast:
            return _cast_array(self, data)
        if np.can_cast(data.dtype, self.numpy_dtype, "safe"):
            return data.astype(self.numpy_dtype)
        raise TypeCheckError(
            f"{self} cannot store a value of dtype {data.dtype} ({value_text(data)}) without "
            f"risking loss of precision; if that loss is fine, cast the data to {self.dtype} "
            f"first, or pass allow_downcast=True (to filter or to function)"
        )
    if strict:
        raise TypeCheckError(f"{self} expected an ndarray object (got {type(data).__name__}).")
    if isinstance(data, (str, bytes)) or data is None:
        raise TypeCheckError(f"{self} cannot store {data!r} (of type {type(data).__name__})")
    if isinstance(data, (list, tuple)):
        axes = _nesting(data, self.ndim)
        if axes > self.ndim:
            raise TypeCheckError(
                f"{self}: expected {self.ndim} {'axis' if self.ndim == 1 else 'axes'}, got a "
                f"{type(data).__name__} nested at least {axes} deep"
            )
    if allow_downcast:
        return _asarray(self, data)
    if (
        allow_downcast is None
        and isinstance(data, (float, np.floating))
        and self.dtype == config.floatX
    ):
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
            f"as {_as_python(converted)}; if that loss is fine, convert the data to an "
            f"array of dtype {self.dtype} first, or pass allow_downcast=True (to filter or "
            f"to function)"
        )
    return converted


def _cast_array(self, data: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return data.astype(self.numpy_dtype)


def check_shape(self, data: np.ndarray) -> None:
    """Rank, alignment, static sizes and the consistency of rigid symbols."""
    if data.ndim != self.ndim:
        raise TypeCheckError(
            f"{self}: expected {self.ndim} {'axis' if self.ndim == 1 else 'axes'}, got "
            f"{data.ndim} (shape {data.shape})"
        )
    if not data.flags.aligned:
        raise TypeCheckError(
            f"{self}: the ndarray is not aligned; compiled code needs "
            "aligned data (copy it with numpy.ascontiguousarray)"
        )
    shape = data.shape
    for axis, want in enumerate(self.shape):
        if want is None or isinstance(want, Dim):
            continue
        if shape[axis] != want:
            raise TypeCheckError(
                f"{self}: axis {axis} has size {shape[axis]}, but the type requires "
                f"{want} (data shape {shape})"
            )
    if self._symbolic:
        problem = check_symbolic_shape(self.shape, shape)
        if problem is not None:
            raise TypeCheckError(f"{self}: {problem} (data shape {shape})")


def check_symbolic_shape(
    static: tuple,
    shape: tuple,
    bindings: dict | None = None,
    where: dict | None = None,
    origin: str | None = None,
) -> str | None:
    """Check the rigid symbolic sizes of a static shape against a concrete ``shape``.

    ``static`` is a ``TensorType``'s shape (ints, None and ``Dim`` symbols or
    expressions); ``shape`` the shape of a value of that rank. Bare symbols bind
    first (in ``bindings``, a dict ``{name: size}`` that is updated, so several
    values can be checked against one another); then expressions are evaluated, or
    solved when linear in one unbound symbol. An expression that still has two
    unbound symbols is accepted: nothing in one value can contradict it.

    ``where``, when given, maps a bound symbol to where it was bound, for the
    message; the symbols this call binds are recorded there as ``"{origin} axis
    {i}"``. Returns None when the shape fits, else one line naming the axis.

    >>> from tensortypes.core.dims import parse
    >>> n = parse("n")
    >>> bound, where = {}, {}
    >>> check_symbolic_shape((n, 2 * n), (3, 6), bound, where, "input 0 (x)"), bound
    (None, {'n': 3})
    >>> check_symbolic_shape((n,), (4,), bound, where, "input 1 (y)")
    'axis 0 has size 4, but n=3, as bound by input 0 (x) axis 0'
    """
    if bindings is None:
        bindings = {}
    if len(shape) != len(static):
        return (
            f"the value has {len(shape)} axes, but the static shape "
            f"{tuple(static)} has {len(static)}"
        )
    pending = []
    for axis, want in enumerate(static):
        if not isinstance(want, Dim):
            continue
        if want.is_symbol:
            got = shape[axis]
            name = want.name
            bound = bindings.get(name)
            if bound is None:
                bindings[name] = got
                if where is not None and origin is not None:
                    where[name] = f"{origin} axis {axis}"
            elif bound != got:
                by = None if where is None else where.get(name)
                if by is None:
                    return (
                        f"axis {axis} has size {got}, but {name}={bound} was bound by an "
                        f"earlier axis"
                    )
                return f"axis {axis} has size {got}, but {name}={bound}, as bound by {by}"
        else:
            pending.append(axis)
    for axis in pending:
        want = static[axis]
        got = shape[axis]
        free = want.free_symbols - bindings.keys()
        if not free:
            expected = want.evaluate(bindings)
            if expected != got:
                return (
                    f"axis {axis} has size {got}, but {want}={expected} "
                    f"with {_fmt(bindings, want.free_symbols, where)}"
                )
            continue
        solved = solve_linear(want.substitute(bindings), got)
        if solved is False:
            return f"axis {axis} has size {got}, which no value of {want} can take"
        if solved:
            bindings.update(solved)
            if where is not None and origin is not None:
                where.update(dict.fromkeys(solved, f"{origin} axis {axis}"))
    return None


def _fmt(bindings: dict, names, where: dict | None) -> str:
    return ", ".join(
        f"{n}={bindings[n]}" + (f" (as bound by {where[n]})" if where and n in where else "")
        for n in sorted(names)
    )
