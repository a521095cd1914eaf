"""How ops become C: the lowering registry, keyed by op class (layer 6, ``link``).

A lowering is data: a ``Lowering`` entry registered for an op class (and its
subclasses) with ``register_lowering``. It produces the same things an op's own
``c_code`` family does (code, support code, headers, cache version), so the
linker treats both alike: an op is lowered by the registry entry for its
class if there is one, else by its own ``c_code``, else it runs through
``perform`` inside the compiled function. A lowering that cannot handle one
particular node raises ``MethodNotDefined`` and that node falls back to
``perform`` (per node, never silently wrong).

Built-in entries: ``SpecifyShape`` (a check of fixed sizes, the output aliases
the input) and, when ``tensortypes.tensor.elemwise`` exists, ``Elemwise``
(one fused loop, see ``loops``), ``Reduce``, ``Argmax`` and ``FusedReduce`` (see
``reduce``), ``MatMul`` and ``Dot`` (see ``blas``), and the view ops ``Reshape``,
``Transpose``, ``ExpandDims``, ``Squeeze`` and ``Subtensor`` (see ``views``).
"""

from __future__ import annotations

import threading

from tensortypes.core.dims import Dim
from tensortypes.errors import MethodNotDefined
from tensortypes.link.c.cnames import c_string

__all__ = ["Lowering", "register_lowering", "lowering_for", "own_c_code"]


def _no_support(node, name, sub) -> str:
    return ""


def _no_headers(node) -> list:
    return []


def _no_init(node) -> list:
    return []


class Lowering:
    """The C lowering of one op class.

    ``code(node, name, inputs, outputs, sub)`` returns the C statements of one
    node, exactly like ``CLinkerOp.c_code`` (``sub["fail"]`` jumps to the
    failure path; ``sub["literals"]`` maps an input position to a C literal when
    ``inline_literals`` is set and that input is a constant the linker could
    print). ``support(node, name, sub)``, ``headers(node)`` and ``version(node)`` give
    support code, headers and the cache version (empty: unversioned);
    ``init(node)`` the statements the module's init function runs (which must
    not fail: they run once per node of the class, so they are idempotent).
    """

    __slots__ = ("op_class", "code", "support", "headers", "version", "init", "inline_literals")

    def __init__(
        self,
        op_class,
        code,
        support=_no_support,
        headers=_no_headers,
        version=(1,),
        inline_literals=False,
        init=_no_init,
    ):
        if not callable(code):
            raise TypeError(
                f"the lowering of {op_class.__name__} needs a callable code(node, "
                f"name, inputs, outputs, sub), got {code!r}"
            )
        self.op_class = op_class
        self.code = code
        self.support = support
        self.headers = headers
        self.init = init
        self.version = version if callable(version) else (lambda node, v=tuple(version): v)
        self.inline_literals = bool(inline_literals)

    def __repr__(self) -> str:
        return f"Lowering({self.op_class.__name__})"


_lowerings: dict[type, Lowering] = {}
_resolved: dict[type, Lowering | None] = {}
_lock = threading.Lock()


def register_lowering(op_class: type, code, **options) -> Lowering:
    """Register how ``op_class`` (and its subclasses) become C; replaces an earlier entry.

    >>> from tensortypes.graph import Op
    >>> class Nop(Op):
    ...     pass
    >>> entry = register_lowering(Nop, lambda node, name, i, o, sub: "")
    >>> lowering_for(Nop()) is entry
    True
    """
    if not isinstance(op_class, type):
        raise TypeError(f"register_lowering needs an op class, got {op_class!r}")
    entry = Lowering(op_class, code, **options)
    with _lock:
        _lowerings[op_class] = entry
        _resolved.clear()
    return entry


def lowering_for(op) -> Lowering | None:
    """The registry entry for ``type(op)`` or its nearest registered base class, or None."""
    cls = type(op)
    try:
        return _resolved[cls]
    except KeyError:
        pass
    found = next((_lowerings[k] for k in cls.__mro__ if k in _lowerings), None)
    _resolved[cls] = found
    return found


def own_c_code(op) -> bool:
    """Whether ``op`` writes its own ``c_code`` (not the interface's raising default)."""
    method = getattr(type(op), "c_code", None)
    if method is None or not callable(method):
        return False
    from tensortypes.graph import CLinkerOp

    return method is not CLinkerOp.c_code


# -- SpecifyShape ---------------------------------------------------------------------------


def _specify_shape_code(node, name, inputs, outputs, sub) -> str:
    spec = node.op.shape
    if any(isinstance(s, Dim) for s in spec):
        raise MethodNotDefined(
            "SpecifyShape with symbolic sizes runs through perform, which binds and checks them"
        )
    (x,), (out,) = inputs, outputs
    checks = []
    for axis, size in enumerate(spec):
        if size is None:
            continue
        message = c_string(f"SpecifyShape: axis {axis} has size %zd, expected {size}")
        checks.append(f"""if (PyArray_DIMS({x})[{axis}] != {int(size)}) {{
    PyErr_Format(tt_TypeCheckError, {message}, (Py_ssize_t)PyArray_DIMS({x})[{axis}]);
    {sub["fail"]}
}}""")
    checks.append(f"Py_XDECREF({out}); {out} = {x}; Py_INCREF({out});")
    return "\n".join(checks)


def _register_builtin() -> None:
    from tensortypes.tensor.shape import SpecifyShape

    register_lowering(SpecifyShape, _specify_shape_code, version=(1,))
    try:
        from tensortypes.tensor.elemwise import Elemwise
    except ImportError:
        return  # the elementwise ops are not there: nothing to lower
    from tensortypes.link.c import loops

    register_lowering(
        Elemwise,
        loops.elemwise_code,
        support=loops.elemwise_support,
        headers=loops.elemwise_headers,
        version=loops.elemwise_version,
        inline_literals=True,
    )
    from tensortypes.link.c import reduce
    from tensortypes.tensor.math import Reduce

    register_lowering(
        Reduce,
        reduce.reduce_code,
        support=reduce.reduce_support,
        headers=loops.elemwise_headers,
        version=reduce.reduce_version,
    )
    from tensortypes.tensor.fused import FusedReduce
    from tensortypes.tensor.math import Argmax

    register_lowering(
        Argmax, reduce.argmax_code, support=reduce.argmax_support, version=reduce.reduce_version
    )

    from tensortypes.link.c import fused_walk

    register_lowering(
        FusedReduce,
        fused_walk.fused_reduce_code,
        support=fused_walk.fused_reduce_support,
        headers=loops.elemwise_headers,
        version=reduce.fused_version,
    )
    from tensortypes.link.c import blas
    from tensortypes.tensor.math import Dot, MatMul

    for op_class, code in ((MatMul, blas.matmul_code), (Dot, blas.dot_code)):
        register_lowering(
            op_class,
            code,
            support=blas.product_support,
            version=blas.product_version,
            init=blas.product_init,
        )
    from tensortypes.link.c import views
    from tensortypes.tensor import shape_ops

    view_ops: tuple[tuple[type, object], ...] = (
        (shape_ops.Reshape, views.reshape_code),
        (shape_ops.Transpose, views.transpose_code),
        (shape_ops.ExpandDims, views.expand_dims_code),
        (shape_ops.Squeeze, views.squeeze_code),
        (shape_ops.Subtensor, views.subtensor_code),
    )
    for view_class, view_code in view_ops:
        register_lowering(
            view_class, view_code, support=views.view_support, version=views.view_version
        )
