"""Exact and approximate equality of array values (layer 4, ``tensor``).

``values_eq`` and ``values_eq_approx`` are ``TensorType``'s value comparisons
(as in PyTensor). Both treat NaN as equal to NaN at the same position. PyTensor's
versions have two defects fixed here: its NaN-aware ``values_eq`` accepts arrays
that differ outside the NaN positions, and its ``values_eq_approx`` drops the
caller's ``rtol``/``atol`` as soon as a NaN or inf is present.
"""

from __future__ import annotations

import numpy as np

__all__ = ["values_eq", "values_eq_approx", "default_tolerances"]

# (rtol, atol) by dtype; complex dtypes use the tolerances of their parts.
_TOLERANCES = {
    "float16": (1e-3, 1e-3),
    "float32": (1e-5, 1e-5),
    "float64": (1e-5, 1e-8),
    "complex64": (1e-5, 1e-5),
    "complex128": (1e-5, 1e-8),
}


def default_tolerances(dtype) -> tuple[float, float]:
    """``(rtol, atol)`` used by ``values_eq_approx`` for ``dtype``.

    >>> default_tolerances("float32")
    (1e-05, 1e-05)
    """
    return _TOLERANCES.get(np.dtype(dtype).name, (1e-5, 1e-8))


def values_eq(a, b, force_same_dtype=True) -> bool:
    """True iff ``a`` and ``b`` have the same shape (and dtype) and equal
    elements, NaN matching NaN at the same position.

    >>> values_eq(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    True
    >>> values_eq(np.array([np.nan, 1.0]), np.array([np.nan, 2.0]))
    False
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False
    if force_same_dtype and a.dtype != b.dtype:
        return False
    with np.errstate(invalid="ignore"):
        equal = a == b
    if np.all(equal):
        return True
    if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
        return False
    both_nan = _isnan(a) & _isnan(b)
    return bool(np.all(equal | both_nan))


def values_eq_approx(
    a, b, allow_remove_inf=False, allow_remove_nan=False, rtol=None, atol=None
) -> bool:
    """True iff ``a`` and ``b`` are equal up to the tolerances of their dtype.

    NaN and inf must sit at the same positions (inf with the same sign), unless
    ``allow_remove_nan``/``allow_remove_inf`` say that a NaN/inf of ``a`` may
    stand for anything. ``rtol``/``atol`` default to ``default_tolerances``
    and, when given, apply everywhere.

    >>> values_eq_approx(np.float32([1.0]), np.float32([1.000001]))
    True
    >>> values_eq_approx(np.array([1.0, np.nan]), np.array([1.1, np.nan]), rtol=0.2)
    True
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    d_rtol, d_atol = default_tolerances(a.dtype)
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    with np.errstate(invalid="ignore", over="ignore"):
        a_nan, b_nan = _isnan(a), _isnan(b)
        a_inf, b_inf = np.isinf(a), np.isinf(b)
        finite = ~(a_nan | b_nan | a_inf | b_inf)
        close = np.zeros(a.shape, dtype=bool)
        af, bf = a[finite], b[finite]
        close[finite] = np.abs(af - bf) <= atol + rtol * np.abs(bf)
        close |= a_nan & b_nan
        close |= a_inf & b_inf & (a == b)
    if allow_remove_nan:
        close |= a_nan
    if allow_remove_inf:
        close |= a_inf
    return bool(close.all())


def _isnan(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "fc":
        return np.isnan(x)
    return np.zeros(x.shape, dtype=bool)
