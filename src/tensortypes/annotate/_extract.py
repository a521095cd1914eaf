"""Reading a value as an array of an annotation's kind, testing its dtype, and merging
multiple-axes bindings (layer 5: ``annotate``).

These are the pieces that both the generated matchers (``_match``) and the explaining
interpreter (``_interpret``) call, so the two agree by construction on everything but
the axis walk.

- ``extractor(kind)`` gives a function ``value -> (dtype name, shape)`` or None when the
  value is not an array of that kind. ``kind`` is a library name (``"numpy"``,
  ``"torch"``, ``"jax"``, ``"tensorflow"``, ``"mlx"``), ``"any"`` (any array or duck
  array, NumPy scalars included) or a class (a subclass such as ``torch.nn.Parameter``
  or a duck-array class: ``isinstance`` first). Libraries are recognised by module
  name through ``core.arrays``; nothing is imported.
- ``DtypeTest``: the dtype names and regexes an annotation accepts; ``names`` is the
  plain set for the one-lookup test, ``slow`` the fallback for regexes, JAX key names
  (``"key<fry>"``) and NumPy structured dtypes, or None when the set says it all.
- ``merge_variadic``: jaxtyping's rules for ``*name`` against ``#*name``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tensortypes.core.arrays import array_info, loose_info, native_kind

__all__ = [
    "extractor",
    "numpy_dtype_name",
    "cached_dtype_name",
    "DNAMES",
    "NATIVE_CLASSES",
    "learn_native",
    "DtypeTest",
    "duck_info",
    "merge_variadic",
    "broadcast",
    "KIND_NAMES",
]

KIND_NAMES = {
    "numpy": "NumPy array",
    "torch": "torch tensor",
    "jax": "JAX array",
    "tensorflow": "TensorFlow tensor",
    "mlx": "MLX array",
    "any": "array (anything with .shape and .dtype)",
}

# NumPy dtype -> name, read inline by the generated matchers (one dict lookup).
DNAMES: dict[np.dtype, str] = {}


def numpy_dtype_name(x: np.ndarray) -> str:
    """The dtype name of a NumPy array as ``core.arrays`` spells it, cached per dtype.

    >>> numpy_dtype_name(np.zeros(2, np.float32))
    'float32'
    """
    return cached_dtype_name(x, DNAMES)


def cached_dtype_name(x: Any, names: dict) -> str:
    """The dtype name of the array ``x`` as ``core.arrays`` spells it, remembered in
    ``names`` by dtype object (one dict per library: torch's dtypes must never meet
    NumPy's in one dict, whose equality would try to convert them)."""
    info = array_info(x)
    name = info[1] if info is not None else str(x.dtype)
    if len(names) < 1024:
        try:
            names[x.dtype] = name
        except TypeError:  # an unhashable dtype is named again each time
            pass
    return name


# Per library kind, the classes seen whose ``.shape`` and ``.dtype`` are the library's
# own code (``core.arrays.native_kind``): generated checks read those inline.
NATIVE_CLASSES: dict[str, set] = {"numpy": {np.ndarray}}


def learn_native(value: Any, kind: str, seen: set) -> bool:
    """Whether ``value``'s class is a native class of ``kind``; remembers it in ``seen``
    (one of ``NATIVE_CLASSES``' sets) if so."""
    cls = type(value)
    if native_kind(cls) != kind:
        return False
    if len(seen) < 256:
        seen.add(cls)
    return True


def duck_info(x: Any) -> tuple[str, tuple] | None:
    """``(dtype name, shape)`` of an array or of anything else with a tuple of sizes as
    ``.shape`` and a ``.dtype`` (``core.arrays.loose_info``), else None.

    >>> duck_info(np.float32(1.0)), duck_info(3.0)
    (('float32', ()), None)
    """
    return loose_info(x)


def _library(kind: str) -> Callable[[Any], tuple | None]:
    def extract(x: Any) -> tuple | None:
        info = array_info(x)
        if info is None or info[0] != kind:
            return None
        return info[1], info[2]

    extract.__name__ = f"extract_{kind}"
    return extract


def _of_class(cls: type) -> Callable[[Any], tuple | None]:
    def extract(x: Any) -> tuple | None:
        try:
            if not isinstance(x, cls):
                return None
        except TypeError:  # an ABC's test of a class its metaclass made unhashable
            return None
        return loose_info(x)

    extract.__name__ = f"extract_{cls.__name__}"
    return extract


_any = loose_info


def extractor(kind: str | type) -> Callable[[Any], tuple | None]:
    """The value reader for an array kind (see the module docstring).

    >>> extractor("numpy")(np.zeros((2, 3), np.int8)), extractor("torch")(np.zeros(2))
    (('int8', (2, 3)), None)
    """
    if isinstance(kind, type):
        return _of_class(kind)
    if kind == "any":
        return _any
    if kind in KIND_NAMES:
        return _library(kind)
    raise TypeError(f"unknown array kind {kind!r}")


class DtypeTest:
    """The dtypes an annotation accepts: ``None`` entries mean any dtype.

    >>> t = DtypeTest(("float32", re.compile(r"my_.*")))
    >>> t.accepts(None, "float32"), t.accepts(None, "my_f8"), t.accepts(None, "int8")
    (True, True, False)
    """

    __slots__ = ("entries", "label", "names", "patterns", "struct", "key", "slow", "rejected")

    names: frozenset[str] | None
    patterns: tuple[re.Pattern, ...]

    def __init__(self, entries: tuple | None, label: str | None = None):
        self.entries = entries
        self.label = label
        # Dtype names the slow test refused by the name alone (not a structured
        # dtype's "void", which it reads from the value).
        self.rejected: set[str] = set()
        if entries is None:
            self.names, self.patterns, self.struct, self.key, self.slow = (
                None,
                (),
                False,
                False,
                None,
            )
            return
        self.names = frozenset(e for e in entries if isinstance(e, str))
        self.patterns = tuple(e for e in entries if isinstance(e, re.Pattern))
        # NumPy spells structured and subarray dtypes "[(...)]", "{...}" or "(...)".
        self.struct = any(n[:1] in ("[", "{", "(") for n in self.names)
        self.key = "key" in self.names
        self.slow = self._slow if (self.patterns or self.struct or self.key) else None

    def _slow(self, x: Any, name: str) -> bool:
        if self.key and name.startswith("key<"):
            return True
        by_value = self.struct and name == "void"
        if by_value:
            dtype = getattr(x, "dtype", None)
            if self.names is not None and str(dtype) in self.names:
                return True
        for pattern in self.patterns:  # (no generator: most tests have none)
            if pattern.fullmatch(name) is not None:
                return True
        if not by_value and len(self.rejected) < 64:
            self.rejected.add(name)
        return False

    def accepts(self, x: Any, name: str) -> bool:
        """Whether the value ``x`` whose dtype is called ``name`` passes."""
        if self.names is None or name in self.names:
            return True
        return self.slow is not None and self.slow(x, name)

    def describe(self, limit: int = 6) -> str:
        """The accepted dtypes in a few words: ``"float32"``, ``"one of a, b, ..."``."""
        if self.entries is None:
            return "any dtype"
        shown = [e.pattern if isinstance(e, re.Pattern) else e for e in self.entries]
        if len(shown) == 1:
            return shown[0]
        more = ", ..." if len(shown) > limit else ""
        listed = ", ".join(shown[:limit]) + more
        return f"{self.label} ({listed})" if self.label else f"one of {listed}"


def broadcast(a: tuple, b: tuple) -> tuple | None:
    """NumPy's broadcast of two shapes, or None when they do not broadcast.

    >>> broadcast((3, 1), (4,)), broadcast((2,), (3,))
    ((3, 4), None)
    """
    if len(a) < len(b):
        a, b = b, a
    out = list(a)
    offset = len(a) - len(b)
    for i, y in enumerate(b):
        x = a[offset + i]
        if x == y or y == 1:
            continue
        if x == 1:
            out[offset + i] = y
        else:
            return None
    return tuple(out)


def merge_variadic(
    prev: tuple, new: tuple, prev_flag: bool, flag: bool
) -> tuple[tuple, bool] | None:
    """Check ``new`` axes against the ``prev`` binding of the same ``*name``.

    ``prev_flag``: the binding came only from ``#*name`` entries; ``flag``: this entry
    is ``#*name``. Returns the binding's new ``(value, flag)`` or None on a mismatch:
    plain against plain must be equal; ``#`` lets the broadcastable side be broadcast
    to the other, and two ``#`` sides merge to their broadcast.

    >>> merge_variadic((3, 1), (3, 4), True, False), merge_variadic((3,), (2,), False, True)
    (((3, 4), False), None)
    """
    if not prev_flag and not flag:
        return (prev, False) if prev == new else None
    both = broadcast(prev, new)
    if both is None:
        return None
    if prev_flag and flag:
        return both, True
    if prev_flag:
        return (new, False) if both == new else None
    return (prev, False) if both == prev else None
