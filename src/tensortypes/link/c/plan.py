"""What each variable and node of a graph becomes in C (layer 6, ``link``).

The first half of the C linker: it names every variable (``V0``, ``V1``, ...
in a deterministic order, so the same graph gives the same source and hits the
module cache), finds each type's C code and decides, node by node, whether
the node runs as C (a registered lowering, else the op's own ``c_code``) or
through ``perform``, recording why. ``linker`` turns the result into steps.

A type's C code is the type itself when it implements the ``CLinkerType``
methods (Theano's type interface: a user's type is used as it is), else the implementation
registered for its class (``graph.register_c_implementation``). A type whose
required methods raise ``MethodNotDefined`` has no C code: its variables live
only as Python objects, and nodes touching them run through ``perform``.
"""

from __future__ import annotations

import functools

from tensortypes.errors import MethodNotDefined
from tensortypes.graph import CLinkerOp, CLinkerType, Constant, Op, c_implementation
from tensortypes.graph.evaluate import MissingInputError, missing_input_message
from tensortypes.link.c import ops as _ops

__all__ = ["MARK", "CVar", "NodePlan", "c_interface", "plan_variables", "plan_node"]

MARK = "TT_FAIL_MARK_7f3a"
"""Placeholder for ``sub["fail"]`` until steps are numbered (replaced by the linker)."""

_REQUIRED = ("c_declare", "c_init", "c_extract", "c_sync", "c_cleanup")


class _Adapter:
    """A type's C methods with ``CLinkerType``'s defaults for those it lacks.

    ``impl`` is the implementation registered for the type's class, called
    with the type as ``self``; None when the type carries its own methods
    (a user's type that implements only the required ones, duck-typed).
    """

    __slots__ = ("type", "impl")

    def __init__(self, t, impl):
        self.type = t
        self.impl = impl

    def __getattr__(self, method):
        if not method.startswith("c_"):
            raise AttributeError(method)
        if self.impl is None:
            func = getattr(self.type, method, None)
            if func is not None:
                return func
        else:
            func = getattr(self.impl, method, None)
            if func is not None:
                return functools.partial(func, self.type)
        default = getattr(CLinkerType, method, None)
        if default is None:
            raise AttributeError(method)
        return functools.partial(default, self)


def c_interface(t):
    """The object answering ``t``'s C methods, or None when ``t`` has no C code.

    >>> from tensortypes.tensor import TensorType
    >>> c_interface(TensorType("int64", ())).c_element_type()
    'npy_int64'
    """
    if isinstance(t, CLinkerType):
        iface = t
    elif callable(getattr(t, "c_declare", None)):
        iface = _Adapter(t, None)
    else:
        impl = c_implementation(type(t))
        if impl is None:
            return None
        iface = _Adapter(t, impl)
    try:
        for method in _REQUIRED:
            if not callable(getattr(iface, method, None)):
                return None
        iface.c_declare("v", {"fail": MARK, "label": "v"})
        iface.c_init("v", {"fail": MARK})
        iface.c_cleanup("v", {"fail": MARK})
    except MethodNotDefined:
        return None
    return iface


class CVar:
    """One variable of the graph: its C name, label, kind and C interface (or None).

    ``label`` names the variable in error messages; the generated code reads it
    at run time (``tt_label(label_index)``), so names never enter the source.
    """

    __slots__ = ("var", "name", "label", "kind", "index", "label_index", "iface")

    def __init__(self, var, name: str, label: str, kind: str, index: int, label_index: int):
        self.var = var
        self.name = name
        self.label = label
        self.kind = kind  # "input", "constant", "computed" or "params"
        self.index = index
        self.label_index = label_index
        self.iface = c_interface(var.type)

    def sub(self, fail: str = MARK, **extra) -> dict:
        return {
            "fail": fail,
            "label": self.label,
            "label_c": f"tt_label({self.label_index})",
            "name": self.name,
            **extra,
        }


def _short(obj, limit: int = 60) -> str:
    text = str(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plan_variables(fgraph) -> dict:
    """``{Variable: CVar}`` for every variable the outputs need, in a fixed order."""
    cvars: dict = {}

    def add(var, label: str, kind: str, index: int = -1):
        cvars[var] = CVar(var, f"V{len(cvars)}", label, kind, index, len(cvars))

    for k, var in enumerate(fgraph.inputs):
        add(var, f"input {k} ({var.name})" if var.name else f"input {k}", "input", k)
    consts = 0

    def root(var):
        nonlocal consts
        if var in cvars:
            return
        if not isinstance(var, Constant):
            raise MissingInputError(missing_input_message(var, "the compiled graph"), var)
        add(var, f"constant {_short(var)}", "constant", consts)
        consts += 1

    for node in fgraph.toposort():
        for var in node.inputs:
            root(var)
        for j, var in enumerate(node.outputs):
            add(var, f"output {j} of {_short(node.op)}", "computed")
    for var in fgraph.outputs:
        root(var)
    return cvars


class NodePlan:
    """How one node runs: ``kind`` "c" (with its code and build settings) or "py" (why)."""

    __slots__ = (
        "node",
        "index",
        "name",
        "kind",
        "reason",
        "code",
        "cleanup",
        "support",
        "headers",
        "version",
        "init_code",
        "struct_decl",
        "struct_init",
        "struct_cleanup",
        "settings",
        "literals",
        "params",
    )

    def __init__(self, node, index: int):
        self.node = node
        self.index = index
        self.name = f"node{index}"
        self.kind = "py"
        self.reason = ""
        self.code = self.cleanup = self.support = ""
        self.struct_decl = self.struct_init = self.struct_cleanup = ""
        self.headers: list = []
        self.init_code: list = []
        self.version: tuple = ()
        self.settings = {
            "header_dirs": [],
            "libraries": [],
            "lib_dirs": [],
            "compile_args": [],
            "no_compile_args": [],
        }
        self.literals: dict = {}
        self.params = None  # (params type, value) when the op has C parameters


def _has_perform(op) -> bool:
    perform = getattr(type(op), "perform", None)
    return callable(perform) and perform is not Op.perform


def _literals(node, cvars) -> dict:
    out = {}
    for pos, var in enumerate(node.inputs):
        iface = cvars[var].iface
        if isinstance(var, Constant) and iface is not None:
            try:
                out[pos] = iface.c_literal(var.data)
            except (MethodNotDefined, TypeError, ValueError):
                continue
    return out


def plan_node(node, index: int, cvars: dict) -> NodePlan:
    """Decide how ``node`` runs, generating its C code (with ``MARK`` for fail) if it can."""
    plan = NodePlan(node, index)
    op = node.op
    lacking = [v for v in (*node.inputs, *node.outputs) if cvars[v].iface is None]
    lowering = _ops.lowering_for(op)
    if lacking:
        v = lacking[0]
        plan.reason = f"{v} has type {v.type}, which has no C code"
    elif lowering is None and not _ops.own_c_code(op):
        plan.reason = (
            f"no C lowering is registered for {type(op).__name__} and it does not define c_code"
        )
    else:
        params_type = getattr(op, "params_type", None)
        sub = {"fail": MARK, "id": index}
        try:
            if params_type is not None and callable(getattr(op, "get_params", None)):
                value = params_type.filter(op.get_params(node))
                if c_interface(params_type) is None:
                    raise MethodNotDefined(f"its params type {params_type} has no C code")
                plan.params = (params_type, value)
                sub["params"] = f"P{index}"
            inputs = [cvars[v].name for v in node.inputs]
            outputs = [cvars[v].name for v in node.outputs]
            if lowering is not None:
                if lowering.inline_literals:
                    plan.literals = sub["literals"] = _literals(node, cvars)
                plan.code = lowering.code(node, plan.name, inputs, outputs, sub)
                plan.support = lowering.support(node, plan.name, sub)
                plan.headers = list(lowering.headers(node))
                plan.version = tuple(lowering.version(node))
                plan.init_code = list(lowering.init(node))
            else:
                _own_code(plan, op, node, inputs, outputs, sub, cvars)
            plan.kind = "c"
        except MethodNotDefined as exc:
            plan.reason = f"its C code is not available: {exc}"
            plan.literals = {}
            plan.params = None
    if plan.kind == "py" and not _has_perform(op):
        raise MethodNotDefined(
            f"cannot run {node}: {plan.reason}, and {type(op).__name__} does not define perform()"
        )
    return plan


def _node_version(op_version: tuple, node, cvars) -> tuple:
    """The op's version with its types' (from their C interfaces); empty if any is."""
    if not op_version:
        return ()
    parts, seen = [op_version], []
    for var in (*node.inputs, *node.outputs):
        if any(var.type == t for t in seen):
            continue
        seen.append(var.type)
        version = tuple(cvars[var].iface.c_code_cache_version())
        if not version:
            return ()
        parts.append((type(var.type).__name__, version))
    return tuple(parts)


def _own_code(plan: NodePlan, op, node, inputs, outputs, sub, cvars) -> None:
    name = plan.name
    plan.code = op.c_code(node, name, inputs, outputs, sub)
    plan.cleanup = _call(op, "c_code_cleanup", "", node, name, inputs, outputs, sub)
    plan.support = "\n".join(
        filter(
            None,
            [_call(op, "c_support_code", ""), _call(op, "c_support_code_apply", "", node, name)],
        )
    )
    plan.struct_decl = _call(op, "c_support_code_struct", "", node, name)
    plan.struct_init = _call(op, "c_init_code_struct", "", node, name, sub)
    plan.struct_cleanup = _call(op, "c_cleanup_code_struct", "", node, name)
    plan.headers = list(_call(op, "c_headers", []))
    plan.init_code = [
        *_call(op, "c_init_code", []),
        *filter(None, [_call(op, "c_init_code_apply", "", node, name)]),
    ]
    for key, method in (
        ("header_dirs", "c_header_dirs"),
        ("libraries", "c_libraries"),
        ("lib_dirs", "c_lib_dirs"),
        ("compile_args", "c_compile_args"),
        ("no_compile_args", "c_no_compile_args"),
    ):
        plan.settings[key] = list(_call(op, method, []))
    custom = getattr(type(op), "c_code_cache_version_apply", None)
    if custom is not None and custom is not CLinkerOp.c_code_cache_version_apply:
        plan.version = tuple(op.c_code_cache_version_apply(node))
    else:
        plan.version = _node_version(tuple(_call(op, "c_code_cache_version", ())), node, cvars)


def _call(obj, method: str, default, *args):
    func = getattr(obj, method, None)
    if func is None:
        return default
    try:
        result = func(*args)
    except MethodNotDefined:
        return default
    return default if result is None else result
