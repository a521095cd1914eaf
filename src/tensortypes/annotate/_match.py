"""The fast array check: one compiled matcher per annotation (layer 5: ``annotate``).

A :class:`Matcher` holds what an array annotation checks (kind, dtypes, parsed shape)
and ``match(value, bindings) -> bool``, the yes/no answer used by ``isinstance`` and by
the runtime checker. ``bindings`` is the scope's ``Bindings`` or None (check the value
alone); on success the new sizes are added to it, on failure it is left untouched.

For shapes made of fixed sizes, names, ``_``, ``#``, ``?`` and one ``*name``/``...``
(nearly all of them), ``match`` is generated Python specialised to the annotation: the
axis count, sizes and names are constants, names are locals, and a NumPy array's dtype
name is one dict lookup. The source is registered with ``linecache`` under
``<tensortypes match Float[ndarray, 'b c']>`` so tracebacks show it, and kept on
``Matcher.source``. Shapes with expressions or ``{...}`` braces use the interpreter of
``_interpret``, which is also ``Matcher.explain``, the slow path that says why a value
fails.
"""

from __future__ import annotations

import linecache
import re
import sys
import weakref
from typing import Any

import numpy as np

from tensortypes.annotate._extract import (
    DNAMES,
    KIND_NAMES,
    NATIVE_CLASSES,
    DtypeTest,
    cached_dtype_name,
    extractor,
    learn_native,
    merge_variadic,
    numpy_dtype_name,
)
from tensortypes.annotate._interpret import ISINSTANCE_LABEL, run, tree_path
from tensortypes.annotate._shape import ParsedShape, Template

__all__ = ["Matcher"]

_M = object()
_EMPTY: dict = {}
_IDENT = re.compile(r"[^\W\d]\w*")


# Shapes of more axes are matched by the interpreter: compiling their generated
# function would cost milliseconds (about 0.15 ms per named axis), and arrays of that
# many axes are rare (NumPy allows 64).
_GENERATED_AXES = 24


class Matcher:
    """Kind, dtypes and shape of one annotation, with its compiled ``match``.

    ``kind``: a library name, ``"any"`` or a class; ``dtypes``: None (any) or a tuple
    of names and regexes; ``shape``: a ``ParsedShape``; ``title``: the annotation's
    name, used for the generated function's file name; ``dtype_label``: the dtype
    class's name, for messages. ``templated`` says whether a size has ``{...}``
    braces, which the lattice type cannot express (it reads them as ``_``).

    >>> from tensortypes.annotate._shape import parse_shape
    >>> m = Matcher("numpy", ("float32",), parse_shape("b c"), "F")
    >>> m.match(np.zeros((2, 3), np.float32), None), m.explain(np.zeros(3, np.float32))
    (True, "it has 1 axis (shape (3,)), but the annotation expects 2 ('b c')")
    """

    __slots__ = (
        "kind",
        "kind_text",
        "extract",
        "dtype",
        "dims",
        "index_variadic",
        "dim_str",
        "title",
        "templated",
        "path_dims",
        "match",
        "source",
    )

    def __init__(
        self,
        kind: str | type,
        dtypes: tuple | None,
        shape: ParsedShape,
        title: str,
        dtype_label: str | None = None,
    ):
        self.kind = kind
        self.kind_text = (
            KIND_NAMES.get(kind)
            if isinstance(kind, str)
            else f"{kind.__module__}.{kind.__qualname__}"
        )
        self.extract = extractor(kind)
        self.dtype = DtypeTest(dtypes, dtype_label)
        self.dims = shape.dims
        self.index_variadic = shape.index_variadic
        self.dim_str = shape.dim_str
        self.title = title
        self.templated = any(type(d) is Template for d in shape.dims)
        self.path_dims = any(getattr(d, "path", False) for d in shape.dims)
        if shape.simple and len(shape.dims) <= _GENERATED_AXES and not _mixed_paths(shape.dims):
            self.match, self.source = _generate(self)
        else:
            self.match, self.source = self._interpreted, None

    def _interpreted(self, x: Any, b: Any) -> bool:
        return run(self, x, b, True) is None

    def explain(self, x: Any, bindings: Any = None) -> str | None:
        """None when ``x`` matches (given ``bindings``, left unchanged), else the reason.

        >>> from tensortypes.annotate._shape import parse_shape
        >>> Matcher("any", None, parse_shape("n n"), "S").explain(np.zeros((2, 3)))
        'axis 1 has size 3, but n=2 was bound by axis 0'
        """
        return run(self, x, bindings, False)

    def __repr__(self) -> str:
        return f"Matcher({self.title})"


def _mixed_paths(dims: tuple) -> bool:
    """Whether a name is used both with and without ``?`` (keys that differ only in a
    PyTree); the interpreter, which compares actual keys, handles that rare case."""
    path = {d.expr.name for d in dims if d.kind == "var" and d.path}
    plain = {d.expr.name for d in dims if d.kind == "var" and not d.path}
    return not path.isdisjoint(plain)


class _Source:
    """Lines of generated Python with indentation."""

    __slots__ = ("lines",)

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def _key_code(spec: Any, variadic: bool) -> tuple[str, bool]:
    """Python source for the bindings key of a named entry, and whether it needs ``tp``."""
    name = spec.expr.name
    if not _IDENT.fullmatch(name):  # names come from the shape parser; never trust source
        raise ValueError(f"not an identifier: {name!r}")
    prefix = "*" if variadic else ""
    if spec.path:
        return (f"'*' + tp + {name!r}" if variadic else f"tp + {name!r}"), True
    return repr(prefix + name), False


def _extracted(src: _Source, depth: int) -> None:
    """Dtype name ``n`` and shape ``s`` read through the kind's guarded extraction."""
    src(depth, "e = _ex(x)")
    src(depth, "if e is None:")
    src(depth + 1, "return False")
    src(depth, "n, s = e")


def _generate(m: Matcher) -> tuple[Any, str]:
    src = _Source()
    dims, v = m.dims, m.index_variadic
    k = len(dims)
    src(0, "def match(x, b):")
    if m.kind == "numpy":
        src(1, "if type(x) is _ndarray:")
        src(2, "n = _DN.get(x.dtype)")
        src(2, "if n is None:")
        src(3, "n = _dn(x)")
        src(2, "s = x.shape")
        src(1, "else:")
        depth = 2
    elif m.kind in _NATIVE_READ:
        # The library's own classes (core.arrays.native_kind: .shape and .dtype are its
        # code) are read inline once seen; anything else goes through the extraction.
        # A class its metaclass made unhashable cannot be looked up in the set: its
        # TypeError sends the value through the extraction too (a try costs nothing
        # until something raises).
        src(1, "try:")
        src(2, "if type(x) in _NK:")
        src(3, "n = _KN.get(x.dtype)")
        src(3, "if n is None:")
        src(4, "n = _kn(x)")
        src(3, "s = x.shape" if m.kind == "jax" else "s = _tuple(x.shape)")
        src(2, "else:")
        _extracted(src, 3)
        src(3, "_learn(x)")
        src(1, "except TypeError:")
        depth = 2
    else:
        depth = 1
    _extracted(src, depth)
    test = m.dtype
    if test.names is not None:
        # A dtype the slow test refused for its name alone is refused by a set lookup.
        slow = "if n not in _acc and (n in _rej or not _slow(x, n)):"
        src(1, slow if test.slow else "if n not in _acc:")
        src(2, "return False")
    # Axis values: a<i> for the entry i that needs one; g for the multiple-axes entry.
    if v is None:
        src(1, f"if len(s) != {k}:")
        src(2, "return False")
        if k:
            src(1, ", ".join(f"a{i}" for i in range(k)) + ("," if k == 1 else "") + " = s")
    else:
        src(1, "L = len(s)")
        if k > 1:
            src(1, f"if L < {k - 1}:")
            src(2, "return False")
        for i, spec in enumerate(dims):
            if i != v and spec.kind != "anon":
                src(1, f"a{i} = s[{i if i < v else i - k}]")
        if dims[v].kind != "anon":
            tail = k - v - 1
            src(1, f"g = s[{v}:{'' if tail == 0 else f'L - {tail}'}]")
    if m.path_dims:
        # A '?' size is keyed by the tree path of a structured PyTree; outside one (no
        # scope, or a scope with no path) a value that reaches the axes raises, as
        # jaxtyping's check does (the interpreter raises at the same point).
        src(1, "tp = _tp(_m, b)")
    # Fixed sizes first: they need no scope.
    for i, spec in enumerate(dims):
        if i != v and spec.kind == "fixed":
            if spec.broadcast:
                src(1, f"if a{i} != {int(spec.expr)} and a{i} != 1:")
            else:
                src(1, f"if a{i} != {int(spec.expr)}:")
            src(2, "return False")
    named = [(i, d) for i, d in enumerate(dims) if d.kind == "var"]
    keys: dict[str, int] = {}  # key source -> local number
    uses_tp = False
    for _i, spec in named:
        code, path = _key_code(spec, spec.variadic)
        uses_tp |= path
        keys.setdefault(code, len(keys))
    # With every name used once, a value checked alone has nothing left to compare.
    alone = len(keys) == len(named)
    if named and uses_tp:
        src(1, "sz = b.sizes")  # b is a scope: tp was read above
    elif named:
        if alone:
            src(1, "if b is None:")
            src(2, "return True")
            src(1, "sz = b.sizes")
        else:
            src(1, "if b is None:")
            src(2, "sz = _E")
            src(1, "else:")
            src(2, "sz = b.sizes")
    for code, j in keys.items():
        src(1, f"k{j} = {code}")
        src(1, f"v{j} = sz.get(k{j}, _M)")
        src(1, f"w{j} = -1")
    for i, spec in named:
        if i == v:
            continue
        axis = str(i) if v is None or i < v else f"L - {k - i}"
        depth = 1
        if spec.broadcast:
            src(1, f"if a{i} != 1:")
            depth = 2
        j = keys[_key_code(spec, False)[0]]
        src(depth, f"if v{j} is _M:")
        src(depth + 1, f"v{j} = a{i}")
        src(depth + 1, f"w{j} = {axis}")
        src(depth, f"elif v{j} != a{i}:")
        src(depth + 1, "return False")
    variadic_key = None
    if v is not None and dims[v].kind == "var":
        variadic_key = keys[_key_code(dims[v], True)[0]]
        j = variadic_key
        src(1, f"if v{j} is not _M:")
        src(2, "fl = b.broadcast")
        src(2, f"gm = _mv(v{j}, g, fl is not None and k{j} in fl, {dims[v].broadcast})")
        src(2, "if gm is None:")
        src(3, "return False")
    if named:
        depth = 1
        if not alone:
            src(1, "if b is None:")
            src(2, "return True")
        src(1, "lab = b.label or _IL")  # a bare isinstance names no value
        src(1, "wh = b.where")
        for j in keys.values():
            if j == variadic_key:
                src(1, f"if v{j} is _M:")
                src(2, f"_cv(b, k{j}, (g, {dims[v].broadcast}), (lab, {v}, {v} + len(g)))")
                src(1, "else:")
                src(2, f"_cv(b, k{j}, gm, None)")
                continue
            src(1, f"if w{j} >= 0:")
            src(2, f"sz[k{j}] = v{j}")
            src(2, f"wh[k{j}] = (lab, w{j}, w{j} + 1)")
    src(1, "return True")
    source = "\n".join(src.lines) + "\n"
    filename = f"<tensortypes match {m.title}>"
    namespace = {
        "_ndarray": np.ndarray,
        "_DN": DNAMES,
        "_dn": numpy_dtype_name,
        "_ex": m.extract,
        "_acc": test.names,
        "_slow": test.slow,
        "_rej": test.rejected,
        "_M": _M,
        "_E": _EMPTY,
        "_mv": merge_variadic,
        "_cv": _commit_variadic,
        "_IL": ISINSTANCE_LABEL,
        "_tp": tree_path,
        "_m": m,
    }
    if m.kind in _NATIVE_READ:
        native, names = NATIVE_CLASSES.setdefault(m.kind, set()), _NATIVE_READ[m.kind]
        namespace.update(
            _NK=native,
            _KN=names,
            _kn=lambda x: cached_dtype_name(x, names),
            _learn=lambda x: learn_native(x, m.kind, native),
            _tuple=tuple,
        )
    _drop_unused_sources()
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (validated above)
    entry = (len(source), None, [line + "\n" for line in src.lines], filename)
    linecache.cache[filename] = entry
    # The source leaves linecache with the last live function of that file name
    # (annotation classes nothing uses any more are freed). Two classes may share a
    # title ("b c" and "b  c"): freeing one must not take the other's source away.
    _USERS[filename] = _USERS.get(filename, 0) + 1
    weakref.finalize(namespace["match"], _forget_source, filename)
    return namespace["match"], source


# The kinds whose own array classes generated matchers read inline, each with a
# dtype-name cache of that library's dtype objects.
_NATIVE_READ: dict[str, dict] = {"jax": {}, "torch": {}}


_USERS: dict[str, int] = {}  # file name -> live generated matchers registered under it
_UNUSED: list[str] = []  # file names whose source leaves linecache at the next safe point


def _forget_source(filename: str) -> None:
    left = _USERS.get(filename, 1) - 1
    if left > 0:
        _USERS[filename] = left
        return
    _USERS.pop(filename, None)
    _UNUSED.append(filename)
    # A finalizer runs wherever the collector does, also inside ``linecache.checkcache``,
    # which indexes the cache by a list of its keys taken before (a KeyError when an
    # entry goes in between): the entries leave when no ``linecache`` code is running.
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "linecache":
            return
        frame = frame.f_back
    _drop_unused_sources()


def _drop_unused_sources() -> None:
    while _UNUSED:
        filename = _UNUSED.pop()
        if filename not in _USERS:
            linecache.cache.pop(filename, None)


def _commit_variadic(b: Any, key: str, merged: tuple, where: tuple | None) -> None:
    """Store a multiple-axes binding ``(value, broadcast flag)`` found by a match."""
    value, flag = merged
    b.sizes[key] = value
    if where is not None:
        b.where[key] = where
    b.mark_broadcast(key, flag)
