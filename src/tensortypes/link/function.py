"""``function``: compile a typed graph into a Python callable (layer 6, ``link``).

``function(inputs, outputs, mode="c")`` checks the graph at build time (every
root an output needs is an input, a Constant or a shared variable; no Constant
among the inputs), clones it into a ``FunctionGraph``, applies the tensor
rewrites (merge, canonicalisation with constant folding, elementwise fusion)
and asks a linker for the callable: ``"py"`` is ``PyLinker``, ``"c"`` the
C linker of ``tensortypes.link.c`` (never replaced by the Python linker behind
the user's back; ops without C code run through ``perform`` inside it).

Each call filters the input values by their types (a wrong dtype, rank or
static size, or a value whose own code raises while it is read, is a
``TypeCheckError`` naming the input; an ndarray subclass is read as a plain
array, a masked array refused), binds the
rigid symbols of the input types from the first input that carries each one
(another input that disagrees is a ``TypeCheckError`` naming both), reads the
shared variables' current values, runs the linker's callable and returns one
array for a single output, a list for a list of outputs. A ``Function``
pickles as its graph and mode: unpickling compiles it again (for ``"c"``,
loading the module from the cache when it is there).
"""

from __future__ import annotations

import itertools
import linecache
import sys

import numpy as np

from tensortypes.core.dims import Dim
from tensortypes.errors import TypeCheckError
from tensortypes.graph import Constant, FunctionGraph, MissingInputError, Variable
from tensortypes.graph.walk import ancestors
from tensortypes.link.py import PyFunction, PyLinker
from tensortypes.tensor import check_symbolic_shape
from tensortypes.tensor.rewriting import default_rewriter
from tensortypes.tensor.type import TensorType

__all__ = ["function", "Function", "MODES"]

MODES = ("c", "py")
_COUNTER = itertools.count(1)


def _label(i: int, var) -> str:
    return f"input {i} ({var.name})" if var.name else f"input {i}"


def _is_shared(var) -> bool:
    # A shared variable is a root whose value lives on the variable (as in Theano).
    return callable(getattr(var, "get_value", None)) and not isinstance(var, Constant)


def _roots(inputs: list, outputs: list) -> list:
    """The shared variables the outputs need, in order; missing inputs raise."""
    given = set(inputs)
    shared = []
    for j, out in enumerate(outputs):
        for var in ancestors([out], given):
            if var in given or var.owner is not None or isinstance(var, Constant):
                continue
            if _is_shared(var):
                if var not in shared:
                    shared.append(var)
                continue
            raise MissingInputError(
                f"function: output {j} ({out}) needs the value of {var} (a root Variable of "
                f"type {var.type}), which is not among the inputs; add {var} to the inputs",
                var,
            )
    return shared


class _SymbolPlan:
    """Binding rigid symbols across the inputs, decided once at build time.

    Every input's bare symbols bind first, in input order, then every input's
    expressions are checked (or solved), so an expression is checked against a
    symbol that a later input binds. Each step is ``(input, static shape)`` with
    the other axes blanked out, for ``tensor.check_symbolic_shape``.
    """

    __slots__ = ("steps", "labels")

    def __init__(self, variables: list, labels: list):
        self.labels = labels
        bare, exprs = [], []
        for i, var in enumerate(variables):
            if not isinstance(var.type, TensorType):
                continue
            shape = var.type.shape
            if any(isinstance(d, Dim) and d.is_symbol for d in shape):
                bare.append(
                    (i, tuple(d if isinstance(d, Dim) and d.is_symbol else None for d in shape))
                )
            if any(isinstance(d, Dim) and not d.is_symbol for d in shape):
                exprs.append(
                    (i, tuple(d if isinstance(d, Dim) and not d.is_symbol else None for d in shape))
                )
        self.steps = tuple(bare + exprs)

    def __bool__(self) -> bool:
        return bool(self.steps)

    def check(self, values: list) -> None:
        bound: dict = {}
        where: dict = {}
        labels = self.labels
        for i, static in self.steps:
            problem = check_symbolic_shape(static, values[i].shape, bound, where, labels[i])
            if problem is not None:
                raise TypeCheckError(f"{labels[i]}: {problem}")


class Function:
    """A compiled graph: call it with one value per input.

    Attributes: ``inputs``, ``outputs`` (the Variables given), ``fgraph`` (the
    rewritten graph that runs), ``mode``, ``shared`` (the shared variables read
    at each call) and ``source`` (the generated Python of the call path).
    """

    __slots__ = (
        "inputs",
        "outputs",
        "fgraph",
        "mode",
        "shared",
        "source",
        "_call",
        "_types",
        "_labels",
        "_single",
        "_rewrite",
        "_allow_downcast",
    )

    def __init__(
        self, inputs, outputs, single, fgraph, mode, shared, fn, rewrite=True, allow_downcast=None
    ):
        self._single = bool(single)
        self._rewrite = bool(rewrite)
        self._allow_downcast = allow_downcast
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.fgraph = fgraph
        self.mode = mode
        self.shared = tuple(shared)
        self._types = tuple(v.type for v in self.inputs)
        self._labels = [_label(i, v) for i, v in enumerate(self.inputs)]
        self._labels += [f"shared variable {v.name or v}" for v in self.shared]
        self.source, self._call = self._generate(single, fn)

    def _generate(self, single: bool, fn):
        """Straight-line Python for one call: filter, bind symbols, run, return."""
        n = len(self.inputs)
        ns: dict = {
            "ndarray": np.ndarray,
            "_filter": self._filter,
            "_arity": self._arity,
            "_copy": np.array,
        }
        args = [f"a{i}" for i in range(n)]
        lines = ["def call(*args):", f"    if len(args) != {n}: _arity(args)"]
        if n:
            lines.append(f"    {', '.join(args)}{',' if n == 1 else ''} = args")
        for i, t in enumerate(self._types):
            a = args[i]
            if not isinstance(t, TensorType):
                lines.append(f"    {a} = _filter({i}, {a})")
                continue
            # Accept at once an ndarray that is exactly right (dtype, rank, fixed sizes,
            # alignment): what filter would return unchanged. Anything else: filter.
            ns[f"nd{i}"] = t.numpy_dtype
            tests = [
                f"type({a}) is not ndarray",
                f"{a}.dtype is not nd{i}",
                f"{a}.ndim != {t.ndim}",
            ]
            tests += [f"{a}.shape[{k}] != {s}" for k, s in enumerate(t.shape) if type(s) is int]
            tests.append(f"not {a}.flags.aligned")
            lines.append(f"    if {' or '.join(tests)}: {a} = _filter({i}, {a})")
        for k, var in enumerate(self.shared):
            ns[f"sh{k}"] = var
            args.append(f"sh{k}.get_value(borrow=True)")
        values = f"[{', '.join(args)}]"
        plan = _SymbolPlan(list(self.inputs) + list(self.shared), self._labels)
        if plan:
            ns["_plan"] = plan.check
            lines.append(f"    values = {values}")
            lines.append("    _plan(values)")
            values = "values"
        if isinstance(fn, PyFunction):  # skip one level of calls and the list
            ns["_run"] = fn.run
            star = "*values" if values == "values" else values[1:-1]
            lines.append(f"    r = _run({star})")
        else:
            ns["_run"] = fn
            lines.append(f"    r = _run({values})")
        ins = set(self.fgraph.inputs)
        for j, v in enumerate(self.fgraph.outputs):
            if v in ins or isinstance(v, Constant):  # never hand out our own storage
                lines.append(f"    r[{j}] = _copy(r[{j}], copy=True)")
        lines.append("    return r[0]" if single else "    return r")
        source = "\n".join(lines) + "\n"
        filename = f"<tensortypes function {next(_COUNTER)}>"
        exec(compile(source, filename, "exec"), ns)  # noqa: S102  (our own source)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        return source, ns["call"]

    def _filter(self, i: int, value):
        """The input as its type's ``filter`` returns it; every refusal a ``TypeCheckError``.

        An ndarray subclass is read as the array it is (as the C code reads it), so
        ops never meet ``np.matrix``'s or a subclass's own semantics; a masked array
        is refused (its mask would be ignored). Whatever the value's own code raises
        (``__array__``, properties, ``__float__``), the refusal is a
        ``TypeCheckError``, and its message never calls the value's ``__str__``.
        """
        t = self._types[i]
        try:
            if isinstance(t, TensorType):
                value = _plain_array(value)
            return t.filter(value, allow_downcast=self._allow_downcast)
        except Exception as exc:  # noqa: BLE001 - the value's own code may raise anything
            if isinstance(exc, TypeCheckError):
                raise TypeCheckError(f"{self._labels[i]}: {_text(exc)}") from exc
            raise TypeCheckError(
                f"{self._labels[i]}: expected {t}, got a {_type_name(value)} that could not be "
                f"read as one ({_text(exc, with_class=True)})"
            ) from exc

    def _arity(self, args):
        names = ", ".join(str(v) for v in self.inputs)
        raise TypeError(
            f"this function takes {len(self.inputs)} argument(s) ({names}), got {len(args)}"
        )

    def __call__(self, *args):
        return self._call(*args)

    def __reduce__(self):
        # The graph and the mode; unpickling compiles again, which for mode "c" loads
        # the module from the cache when it is there.
        outputs = self.outputs[0] if self._single else list(self.outputs)
        return (function, (list(self.inputs), outputs, self.mode, self._rewrite))

    def __copy__(self):
        return self  # nothing in a Function changes after it is built

    def __repr__(self) -> str:
        return (
            f"Function([{', '.join(map(str, self.inputs))}] -> "
            f"[{', '.join(map(str, self.outputs))}], mode={self.mode!r})"
        )


def _type_name(value) -> str:
    cls = type(value)
    return (
        f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ != "builtins" else cls.__qualname__
    )


def _text(exc: BaseException, with_class: bool = False, limit: int = 300) -> str:
    """An exception's message for ours, even when its ``__str__`` raises (never raises)."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a hostile __str__ must not replace our error
        text = "<its message could not be read>"
    if len(text) > limit:
        text = text[: limit - 5] + "(...)"
    return f"{type(exc).__name__}: {text}" if with_class else text


def _plain_array(value):
    """An ndarray subclass as a plain ndarray view (no copy); anything else unchanged."""
    cls = type(value)  # never value.__class__, which a value may fake
    if cls is np.ndarray or not issubclass(cls, np.ndarray):
        return value
    ma = sys.modules.get("numpy.ma")
    if ma is not None and issubclass(cls, ma.MaskedArray):
        raise TypeCheckError(
            f"got a masked array ({_type_name(value)}): compiled code would "
            "ignore its mask; pass value.filled(fill_value) or value.data"
        )
    return np.asarray(value)


def _linker(mode: str):
    if mode == "py":
        return PyLinker()
    try:
        from tensortypes.link.c import CLinker
    except ImportError as exc:
        raise ImportError(
            f"function(mode='c') needs the C backend tensortypes.link.c, which "
            f"could not be imported ({exc}); use mode='py' for the Python "
            "linker"
        ) from exc
    return CLinker()


def function(
    inputs, outputs, mode: str = "c", rewrite: bool = True, allow_downcast: bool | None = None
) -> Function:
    """Compile the graph from ``inputs`` to ``outputs`` into a callable ``Function``.

    ``outputs`` is one Variable (the call returns one array) or a list (the call
    returns a list). ``mode`` is ``"c"`` (compiled C where ops have it) or
    ``"py"`` (the Python linker); ``rewrite=False`` skips the rewrites. Each
    input is filtered by its type at every call; ``allow_downcast`` is passed to
    that ``filter`` (``True``: any cast, even one that loses precision; the
    default converts only what can be converted exactly).

    >>> from tensortypes.tensor import dvector
    >>> import numpy as np
    >>> x, y = dvector("x"), dvector("y")
    >>> f = function([x, y], x * y + 1, mode="py")
    >>> f(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    array([4., 9.])
    """
    if mode not in MODES:
        raise ValueError(
            f"function: mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}"
        )
    if isinstance(inputs, Variable) or not isinstance(inputs, (list, tuple)):
        raise TypeError(f"function: inputs must be a list of Variables, got {inputs!r}")
    single = isinstance(outputs, Variable)
    outputs = [outputs] if single else outputs
    if not isinstance(outputs, (list, tuple)):
        raise TypeError(
            f"function: outputs must be a Variable or a list of Variables, got {outputs!r}"
        )
    for j, out in enumerate(outputs):
        if not isinstance(out, Variable):
            raise TypeError(f"function: output {j} is {out!r}, not a Variable")
    for i, var in enumerate(inputs):
        if not isinstance(var, Variable):
            raise TypeError(f"function: input {i} is {var!r}, not a Variable")
        if isinstance(var, Constant):
            raise TypeError(
                f"function: input {i} is the Constant {var}; a Constant has a "
                "fixed value and cannot be an input (remove it from the inputs)"
            )
        if _is_shared(var):
            raise TypeError(
                f"function: input {i} is the shared variable {var}; shared "
                "variables are read at each call and cannot be inputs"
            )
        if var in inputs[:i]:
            raise ValueError(f"function: input {var} is listed twice")
    shared = _roots(list(inputs), list(outputs))
    fgraph = FunctionGraph(list(inputs) + shared, list(outputs), clone=True)
    if rewrite:
        default_rewriter().apply(fgraph)
    fn = _linker(mode).make_function(fgraph)
    return Function(inputs, outputs, single, fgraph, mode, shared, fn, rewrite, allow_downcast)
