"""Scalar operations: what one element of an elementwise tensor op computes (layer 4, ``tensor``).

A scalar op is an immutable, hashable object with a ``name``, ``nin`` (inputs)
and ``nout`` (outputs, 1 for the basic ops), ``nfunc`` (the NumPy ufunc or
callable that ``Elemwise.perform`` applies to whole arrays), a dtype rule
``output_dtype(*input_dtypes)`` following NumPy 2 (promotion comes from
``core.dtypes.result_type``), and ``c_expr`` for back ends that generate C.

The basic ops are a table (in ``_scalar_basic``: a dtype rule and the promoted
kinds each op refuses, as NumPy has no boolean ``subtract`` and no complex
``floor_divide``) with C rules as data (in ``_scalar_c``). This module is the
public face and holds ``Composite``: a scalar op made of a small DAG of scalar
ops (``ScalarExpr`` nodes), which elementwise fusion builds.

C conventions (the contract with the C linker): an element of dtype ``d`` has
the C type ``npy_<d>`` (``npy_bool`` for bool). ``c_expr(inputs, in_dtypes,
out_dtype)`` receives C expressions whose values have the C types of
``in_dtypes`` and returns one C expression; the caller assigns it to a variable
of ``out_dtype``'s C type. Expressions may call the helpers of
``c_support_code()`` (one include-guarded block shared by every op). Integer
arithmetic wraps modulo 2**bits as NumPy does (computed in unsigned C types,
never signed overflow); division by zero gives NumPy's values. float16 and
complex have no C form here (``MethodNotDefined``); nor does integer ``pow``,
whose negative exponents NumPy reports as an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortypes.errors import MethodNotDefined
from tensortypes.tensor._scalar_basic import (
    SCALAR_OPS,
    BasicScalarOp,
    ScalarOp,
    abs_,
    add,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    cos,
    eq,
    exp,
    expm1,
    floor_div,
    ge,
    gt,
    invert,
    le,
    log,
    log1p,
    lt,
    maximum,
    minimum,
    mod,
    mul,
    neg,
    neq,
    pow,
    promote_dtypes,
    scalar_op,
    sigmoid,
    sin,
    softplus,
    sqrt,
    sub,
    tanh,
    true_div,
    where,
)
from tensortypes.tensor._scalar_c import C_HELPERS, c_literal, c_type

__all__ = [
    "ScalarOp",
    "BasicScalarOp",
    "SCALAR_OPS",
    "scalar_op",
    "c_type",
    "c_literal",
    "C_HELPERS",
    "promote_dtypes",
    "ScalarExpr",
    "Composite",
    "op_expr",
    "op_exprs",
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


# -- composites ----------------------------------------------------------------------------
class ScalarExpr:
    """A node of a scalar expression DAG: an input, a constant or an applied scalar op.

    Build inputs with ``ScalarExpr.input(dtype)``, constants with
    ``ScalarExpr.constant(value, dtype)`` and the rest with ``op_expr(op, *args)``
    (the dtype follows the op's rule). Nodes compare by identity.

    >>> x = ScalarExpr.input("float32")
    >>> op_expr(exp, x).dtype
    'float32'
    """

    __slots__ = ("op", "args", "dtype", "value", "index")

    def __init__(self, op, args, dtype, value=None, index=0):
        self.op = op
        self.args = tuple(args)
        self.dtype = dtype
        self.value = value
        self.index = index

    @classmethod
    def input(cls, dtype) -> ScalarExpr:
        """A free input of ``dtype``."""
        return cls(None, (), np.dtype(dtype).name)

    @classmethod
    def constant(cls, value, dtype) -> ScalarExpr:
        """A constant: ``value`` as a 0-d array of ``dtype``."""
        dtype = np.dtype(dtype).name
        with np.errstate(all="ignore"):
            data = np.asarray(value, dtype=dtype)
        if data.ndim != 0:
            raise ValueError(f"a scalar constant must be 0-d, got shape {data.shape}")
        return cls(None, (), dtype, data)

    @property
    def is_input(self) -> bool:
        return self.op is None and self.value is None

    def __repr__(self) -> str:
        if self.op is not None:
            return f"{self.op}({', '.join(map(repr, self.args))})"
        return f"<{self.dtype} {'input' if self.value is None else self.value.item()}>"


def op_expr(op: ScalarOp, *args: ScalarExpr) -> ScalarExpr:
    """Apply ``op`` to scalar expressions (the first output of a multi-output op).

    >>> a, b = ScalarExpr.input("int8"), ScalarExpr.input("float32")
    >>> op_expr(add, a, b).dtype
    'float32'
    """
    return op_exprs(op, *args)[0]


def op_exprs(op: ScalarOp, *args: ScalarExpr) -> list:
    """Apply ``op``; one expression per output (a Composite is inlined).

    >>> x = ScalarExpr.input("int8")
    >>> [e.dtype for e in op_exprs(lt, x, x)]
    ['bool']
    """
    if isinstance(op, Composite):
        return op.inline(args)
    dtypes = op.output_dtypes(*(a.dtype for a in args))
    return [ScalarExpr(op, args, d, None, k) for k, d in enumerate(dtypes)]


# Python operators that call exactly the op's ufunc on ndarrays and NumPy scalars
# (not ``**``: NumPy may compute ``x ** 2`` or ``x ** 0.5`` with another ufunc).
_PY_OPERATORS = {
    "add": "({0} + {1})",
    "sub": "({0} - {1})",
    "mul": "({0} * {1})",
    "true_div": "({0} / {1})",
    "floor_div": "({0} // {1})",
    "mod": "({0} % {1})",
    "lt": "({0} < {1})",
    "le": "({0} <= {1})",
    "gt": "({0} > {1})",
    "ge": "({0} >= {1})",
    "eq": "({0} == {1})",
    "neq": "({0} != {1})",
    "bitwise_and": "({0} & {1})",
    "bitwise_or": "({0} | {1})",
    "bitwise_xor": "({0} ^ {1})",
    "neg": "(-{0})",
    "invert": "(~{0})",
}


def _check_dtype(value, nd):
    value = np.asarray(value)
    return value if value.dtype == nd else value.astype(nd)


class Composite(ScalarOp):
    """A scalar op computing ``outputs`` (ScalarExprs) from ``inputs`` (final class).

    Equal composites (same dtypes, same DAG) compare and hash equal. ``impl``
    runs the DAG with NumPy; ``c_expr`` nests the ops' C expressions (a
    subexpression used twice is repeated); ``c_body`` emits statements with
    temporaries (names starting ``tt_tmp_`` are reserved).

    >>> x, y = ScalarExpr.input("float64"), ScalarExpr.input("float64")
    >>> c = Composite([x, y], [op_expr(add, op_expr(exp, x), y)])
    >>> c.name, c.output_dtype("float64", "float64")
    ('add(exp(i0), i1)', 'float64')
    """

    __slots__ = (
        "name",
        "nin",
        "nout",
        "promoted",
        "in_dtypes",
        "out_dtypes",
        "nodes",
        "out_slots",
        "_key",
        "_hash",
        "_fn",
    )
    in_dtypes: Any
    nodes: Any
    out_dtypes: Any
    out_slots: Any

    def __init_subclass__(cls, **kwargs):
        raise TypeError("Composite is final")

    def __init__(self, inputs, outputs):
        inputs, outputs = list(inputs), list(outputs)
        if not outputs:
            raise ValueError("a Composite needs at least one output")
        slot = {}
        for i, x in enumerate(inputs):
            if not isinstance(x, ScalarExpr) or not x.is_input:
                raise TypeError(f"Composite input {i} must be ScalarExpr.input(...), got {x!r}")
            if x in slot:
                raise ValueError(f"Composite input {i} is listed twice")
            slot[x] = i
        nodes = []

        def visit(e):  # iterative post-order, so deep chains cannot hit the recursion limit
            stack = [(e, False)]
            while stack:
                node, ready = stack.pop()
                if node in slot:
                    continue
                if not isinstance(node, ScalarExpr):
                    raise TypeError(f"Composite outputs must be ScalarExprs, got {node!r}")
                if node.is_input:
                    raise ValueError(
                        f"Composite output depends on an input {node!r} that "
                        "is not among its inputs"
                    )
                if node.op is None:
                    slot[node] = len(inputs) + len(nodes)
                    nodes.append(("const", node.dtype, node.value))
                elif ready:
                    slot[node] = len(inputs) + len(nodes)
                    nodes.append(
                        (node.op, tuple(slot[a] for a in node.args), node.dtype, node.index)
                    )
                else:
                    stack.append((node, True))
                    stack.extend((a, False) for a in reversed(node.args) if a not in slot)

        for out in outputs:
            visit(out)
        set_ = object.__setattr__
        set_(self, "nin", len(inputs))
        set_(self, "nout", len(outputs))
        set_(self, "promoted", tuple(range(len(inputs))))
        set_(self, "in_dtypes", tuple(x.dtype for x in inputs))
        set_(self, "out_dtypes", tuple(o.dtype for o in outputs))
        set_(self, "nodes", tuple(nodes))
        set_(self, "out_slots", tuple(slot[o] for o in outputs))
        key = (
            self.in_dtypes,
            tuple((n[0], n[1], n[2].tobytes()) if n[0] == "const" else n for n in nodes),
            self.out_slots,
        )
        set_(self, "_key", key)
        set_(self, "_hash", hash(key))
        set_(self, "name", self._text())
        set_(self, "_fn", None)

    def __setattr__(self, key, value):
        raise AttributeError(f"Composite is immutable (cannot set {key!r})")

    def __eq__(self, other):
        return self is other or (type(other) is Composite and self._key == other._key)

    def __hash__(self):
        return self._hash

    def __reduce__(self):
        ins = [ScalarExpr.input(d) for d in self.in_dtypes]
        return (Composite, (ins, self.inline(ins)))

    @property
    def nfunc(self):
        return self.impl

    def _text(self) -> str:
        texts = [f"i{i}" for i in range(self.nin)]
        for op, *rest in self.nodes:
            if op == "const":
                texts.append(repr(rest[1].item()))
            else:
                args, _, index = rest
                suffix = f"[{index}]" if index else ""
                texts.append(f"{op}({', '.join(texts[a] for a in args)}){suffix}")
        outs = [texts[s] for s in self.out_slots]
        return outs[0] if len(outs) == 1 else f"({', '.join(outs)})"

    def output_dtypes(self, *in_dtypes: str) -> tuple:
        """The output dtypes; the inputs must have exactly the composite's dtypes."""
        if tuple(np.dtype(d).name for d in in_dtypes) != self.in_dtypes:
            raise TypeError(
                f"Composite {self.name} takes dtypes {self.in_dtypes}, got {tuple(in_dtypes)}"
            )
        return self.out_dtypes

    def inline(self, args) -> list:
        """The output expressions with the inputs replaced by ``args`` (ScalarExprs)."""
        if len(args) != self.nin:
            raise TypeError(f"Composite {self.name} takes {self.nin} inputs, got {len(args)}")
        exprs = list(args)
        for op, *rest in self.nodes:
            if op == "const":
                exprs.append(ScalarExpr(None, (), rest[0], rest[1]))
            else:
                sub = [exprs[a] for a in rest[0]]
                exprs.append(op_exprs(op, *sub)[rest[2]])
        return [exprs[s] for s in self.out_slots]

    def impl(self, *values):
        """Run the DAG with NumPy; one value, or a tuple for several outputs."""
        fn = self._fn
        if fn is None:
            fn = self._compile()
        return fn(*values)

    def _compile(self):
        # Straight-line Python: a node used once is nested into its consumer and
        # written with Python's operator when it has one, so NumPy can reuse the
        # temporary arrays (it elides temporaries only for operators); a node used
        # more than once gets a local. The basic ops' dtype rules equal NumPy's,
        # so only a user's scalar op gets its result dtype checked.
        uses = [0] * (self.nin + len(self.nodes))
        for op, *rest in self.nodes:
            if op != "const":
                for a in rest[0]:
                    uses[a] += 1
        for slot in self.out_slots:
            uses[slot] += 2  # an output is never nested away
        texts = [f"i{i}" for i in range(self.nin)]
        namespace: dict = {"_check": _check_dtype}
        lines = []
        for k, (op, *rest) in enumerate(self.nodes):
            slot = self.nin + k
            if op == "const":
                namespace[f"c{k}"] = rest[1]
                texts.append(f"c{k}")
                continue
            args, dtype, index = rest
            call = self._py_call(k, op, [texts[a] for a in args], index, dtype, namespace)
            if uses[slot] == 1:
                texts.append(call)
            else:
                lines.append(f"    t{k} = {call}")
                texts.append(f"t{k}")
        outs = [texts[s] for s in self.out_slots]
        ret = outs[0] if self.nout == 1 else f"({', '.join(outs)},)"
        source = (
            f"def impl({', '.join(texts[: self.nin])}):\n"
            + "".join(line + "\n" for line in lines)
            + f"    return {ret}\n"
        )
        exec(compile(source, f"<Composite {self.name[:80]}>", "exec"), namespace)  # noqa: S102
        object.__setattr__(self, "_fn", namespace["impl"])
        return namespace["impl"]

    @staticmethod
    def _py_call(k: int, op, args: list, index: int, dtype: str, namespace: dict) -> str:
        if isinstance(op, BasicScalarOp):
            form = _PY_OPERATORS.get(op.name)
            if form is not None:
                return form.format(*args)
            namespace[f"op{k}"] = op.nfunc
            return f"op{k}({', '.join(args)})"
        namespace[f"op{k}"] = op.impl
        namespace[f"d{k}"] = np.dtype(dtype)
        call = f"op{k}({', '.join(args)})"
        if op.nout != 1:
            call += f"[{index}]"
        return f"_check({call}, d{k})"

    def _c_exprs(self, names: list) -> list:
        exprs, dtypes = list(names), list(self.in_dtypes)
        for op, *rest in self.nodes:
            if op == "const":
                exprs.append(c_literal(rest[1], rest[0]))
                dtypes.append(rest[0])
                continue
            args, dtype, _ = rest
            exprs.append(op.c_expr([exprs[a] for a in args], [dtypes[a] for a in args], dtype))
            dtypes.append(dtype)
        return exprs

    def c_expr(self, inputs, in_dtypes, out_dtype) -> str:
        """One nested C expression (single-output composites only)."""
        if self.nout != 1:
            raise MethodNotDefined(f"Composite {self.name} has {self.nout} outputs; use c_body")
        self.output_dtypes(*in_dtypes)
        return self._c_exprs(list(inputs))[self.out_slots[0]]

    def c_body(self, input_names, output_names, dtypes) -> str:
        """C statements assigning every output from the inputs, in a block of their own.

        ``dtypes`` are the input dtypes; ``output_names`` name C variables of
        the output dtypes' C types.
        """
        self.output_dtypes(*dtypes)
        if len(input_names) != self.nin or len(output_names) != self.nout:
            raise ValueError(
                f"Composite {self.name} takes {self.nin} input and {self.nout} output names"
            )
        names, lines = list(input_names), ["{"]
        dts = list(self.in_dtypes)
        for k, (op, *rest) in enumerate(self.nodes):
            tmp = f"tt_tmp_{k}"
            if op == "const":
                expr, dtype = c_literal(rest[1], rest[0]), rest[0]
            else:
                args, dtype, _ = rest
                expr = op.c_expr([names[a] for a in args], [dts[a] for a in args], dtype)
            lines.append(f"    {c_type(dtype)} {tmp} = {expr};")
            names.append(tmp)
            dts.append(dtype)
        for name, s in zip(output_names, self.out_slots):
            lines.append(f"    {name} = {names[s]};")
        lines.append("}")
        return "\n".join(lines)

    def c_support_code(self) -> str:
        codes = []
        for node in self.nodes:
            if node[0] != "const":
                code = node[0].c_support_code()
                if code and code not in codes:
                    codes.append(code)
        return "\n".join(codes)

    def c_code_cache_version(self) -> tuple:
        versions = [node[0].c_code_cache_version() for node in self.nodes if node[0] != "const"]
        if any(not v for v in versions):
            return ()
        return (1, *[n for v in sorted(set(versions)) for n in v])
