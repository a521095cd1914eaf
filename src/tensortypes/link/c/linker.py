"""``CLinker``: a whole graph as one compiled CPython extension module (layer 6, ``link``).

``CLinker().make_function(fgraph)`` returns ``f(list_of_input_values) ->
list_of_output_values``; ``f`` is the module's C function itself, so a call
costs one C call. Inside, in order:

1. each input is taken from the list and extracted by its type's C code,
   which checks it as ``filter(v, strict=True)`` would (dtype, rank, fixed
   sizes, alignment for tensors), then rigid symbols are bound from the first
   axis that carries them and checked on every other; a failure is a
   ``TypeCheckError`` whose ``input_index`` attribute names the input;
2. constants the C code needs are extracted from the module's state;
3. each node runs: C nodes run their code (registry lowering or ``c_code``);
   other nodes call ``perform`` through a Python thunk, and their outputs are
   extracted by their types' C code, so a wrong ``perform`` result is an error,
   never silently wrong;
4. the outputs are synced back to Python objects and returned in a list.

Failures unwind through the ladder of ``codegen`` (each acquired variable is
cleaned exactly once). ``CLinker().compile(fgraph)`` gives the ``CompiledGraph``
with the function, its source, its module and the nodes that ran in Python.
"""

from __future__ import annotations

import numpy as np

from tensortypes.core.dims import Dim
from tensortypes.errors import TypeCheckError
from tensortypes.graph.evaluate import empty_output_error
from tensortypes.link.c import codegen
from tensortypes.link.c.cache import BuildSettings, ModuleCache
from tensortypes.link.c.cnames import c_string
from tensortypes.link.c.enum_types import check_enum_conflicts
from tensortypes.link.c.plan import MARK, CVar, plan_node, plan_variables
from tensortypes.tensor import TensorType, check_symbolic_shape

__all__ = ["CLinker", "CompiledGraph"]

_CALL_CHECKER = """{{
    PyObject* tt_bound = PyTuple_New({nsym});
    PyObject* tt_r = NULL;
    int tt_s;
    if (tt_bound != NULL) {{
        for (tt_s = 0; tt_s < {nsym}; tt_s++) {{
            PyObject* tt_v = tt_sym[tt_s] >= 0 ? PyLong_FromSsize_t((Py_ssize_t)tt_sym[tt_s])
                                               : (Py_INCREF(Py_None), Py_None);
            if (tt_v == NULL) {{ Py_CLEAR(tt_bound); break; }}
            PyTuple_SET_ITEM(tt_bound, tt_s, tt_v);
        }}
    }}
    if (tt_bound != NULL)
        tt_r = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(tt_checkers, {index}), tt_bound,
                                            {arrays}, NULL);
    Py_XDECREF(tt_bound);
    if (tt_r == NULL) {fail}
    Py_DECREF(tt_r);
}}"""


class CompiledGraph:
    """A compiled graph: ``function`` and what explains it (source, module, fallbacks)."""

    __slots__ = ("function", "source", "module", "fallbacks", "versioned")

    def __init__(self, function, source, module, fallbacks, versioned):
        self.function = function
        self.source = source
        self.module = module
        self.fallbacks = fallbacks
        self.versioned = versioned

    def __call__(self, values):
        return self.function(values)

    def __repr__(self) -> str:
        return (
            f"CompiledGraph({self.module.__name__}, {len(self.fallbacks)} node(s) through perform)"
        )


def _perform_thunk(node):
    perform = node.op.perform
    out_types = [v.type for v in node.outputs]
    tensor_outs = [isinstance(t, TensorType) for t in out_types]

    def thunk(*values):
        storage = [[None] for _ in out_types]
        perform(node, list(values), storage)
        results = []
        for j, cell in enumerate(storage):
            value = cell[0]
            if value is None:
                raise empty_output_error(node, j)
            if tensor_outs[j] and isinstance(value, np.generic):
                value = np.asarray(value)  # NumPy's 0-d results are scalars
            results.append(value)
        return tuple(results)

    thunk.__name__ = f"perform_{type(node.op).__name__}"
    return thunk


def _checker(names: list, entries: list, where: dict):
    """A Python check of symbolic sizes that are expressions (``2*n``), with C's bindings.

    ``where`` says which input and axis bound each of C's symbols, for messages."""

    def check(bound, *arrays):
        bindings = {n: v for n, v in zip(names, bound) if v is not None}
        seen = dict(where)  # a solved symbol is recorded here, per call
        for (label, static), value in zip(entries, arrays):
            problem = check_symbolic_shape(static, tuple(value.shape), bindings, seen, label)
            if problem is not None:
                raise TypeCheckError(f"{label}: {problem}")
        return None

    return check


class _Assembly:
    """The steps, state and settings of one module, built from the plan."""

    __slots__ = (
        "cvars",
        "mod",
        "consts",
        "thunks",
        "checkers",
        "symbols",
        "versions",
        "settings",
        "release",
        "fallbacks",
        "labels",
    )

    def __init__(self, fgraph, cvars, plans, vector_math):
        self.cvars = cvars
        self.mod = codegen.Module(
            f"{len(fgraph.inputs)} input(s), {len(fgraph.outputs)} output(s), {len(plans)} node(s)"
        )
        self.mod.vector_math = vector_math
        self.mod.n_inputs = len(fgraph.inputs)
        self.consts: list = []
        self.thunks: list = []
        self.checkers: list = []
        self.symbols: dict = {}  # name -> (index, (label index, axis) that binds it)
        self.versions: list = []
        self.settings = {
            "header_dirs": [],
            "libraries": [],
            "lib_dirs": [],
            "compile_args": [],
            "no_compile_args": [],
        }
        self.release: list = []
        self.fallbacks: list = []
        self.labels: list = [cv.label for cv in cvars.values()]

    # -- building blocks -------------------------------------------------------------------
    def step(self, comment, init="", body="", cleanup="", input_index=-1) -> None:
        k = len(self.mod.steps) + 1
        fail = codegen.fail_code(k)
        self.mod.steps.append(
            codegen.Step(
                comment,
                init.replace(MARK, fail),
                body.replace(MARK, fail),
                cleanup.replace(MARK, fail),
                input_index,
            )
        )

    def declare(self, cv: CVar) -> None:
        self.mod.declarations.append(f"PyObject* py_{cv.name} = NULL;")
        self.release.append(f"py_{cv.name}")
        iface = cv.iface
        if iface is None:
            return
        self.mod.declarations.append(iface.c_declare(cv.name, cv.sub()))
        for header in iface.c_headers():
            self.mod.add_header(header)
        self.mod.add_support(iface.c_support_code())
        self.mod.init_code.extend(iface.c_init_code())
        self.versions.append(tuple(iface.c_code_cache_version()))
        for key, method in (
            ("header_dirs", "c_header_dirs"),
            ("libraries", "c_libraries"),
            ("lib_dirs", "c_lib_dirs"),
            ("compile_args", "c_compile_args"),
            ("no_compile_args", "c_no_compile_args"),
        ):
            self.settings[key].extend(getattr(iface, method)())

    def symbol_checks(self, cv: CVar) -> tuple[str, list]:
        """C checks of the bare symbols of ``cv``'s type; the axes left to the checker."""
        t = cv.var.type
        if not isinstance(t, TensorType) or not t._symbolic or cv.iface is None:
            return "", []
        code, pending = [], []
        for axis, size in enumerate(t.shape):
            if not isinstance(size, Dim):
                continue
            if not size.is_symbol:
                pending.append(axis)
                continue
            index, (origin, origin_axis) = self.symbols.setdefault(
                size.name, (len(self.symbols), (cv.label_index, axis))
            )
            # A symbol's name is an identifier: nothing to escape in this format.
            message = c_string(
                f"%s: axis {axis} has size %zd, but {size.name}=%zd was bound "
                f"by %s, axis {origin_axis}"
            )
            code.append(f"""{{
    npy_intp tt_d = PyArray_DIMS((PyArrayObject*)py_{cv.name})[{axis}];
    if (tt_sym[{index}] < 0) tt_sym[{index}] = tt_d;
    else if (tt_sym[{index}] != tt_d) {{
        PyErr_Format(tt_TypeCheckError, {message}, tt_label({cv.label_index}),
                     (Py_ssize_t)tt_d, (Py_ssize_t)tt_sym[{index}], tt_label({origin}));
        {MARK}
    }}
}}""")
        return "\n".join(code), pending

    def call_checker(self, entries: list) -> str:
        """C code calling a new checker on ``entries`` (CVars with expression sizes)."""
        names = [n for n, _ in sorted(self.symbols.items(), key=lambda kv: kv[1][0])]
        where = {
            n: f"{self.labels[origin]} axis {axis}"
            for n, (_, (origin, axis)) in self.symbols.items()
        }
        self.checkers.append(
            _checker(names, [(cv.label, cv.var.type.shape) for cv in entries], where)
        )
        return _CALL_CHECKER.format(
            nsym=max(len(names), 1),
            index=len(self.checkers) - 1,
            arrays=", ".join(f"py_{cv.name}" for cv in entries),
            fail=MARK,
        )


def assemble(fgraph, vector_math: bool) -> _Assembly:
    """Plan ``fgraph`` and lay it out as steps (see the module docstring)."""
    cvars = plan_variables(fgraph)
    plans = [plan_node(node, i, cvars) for i, node in enumerate(fgraph.toposort())]
    check_enum_conflicts(cv.var.type for cv in cvars.values() if cv.iface is not None)
    asm = _Assembly(fgraph, cvars, plans, vector_math)
    need_c, need_py = set(), set(fgraph.outputs)
    for plan in plans:
        for pos, var in enumerate(plan.node.inputs):
            if plan.kind == "py":
                need_py.add(var)
            elif pos not in plan.literals:
                need_c.add(var)
    for cv in cvars.values():
        asm.declare(cv)
    pending_inputs = []
    for k, var in enumerate(fgraph.inputs):
        cv = cvars[var]
        body = f"py_{cv.name} = tt_items[{k}]; Py_INCREF(py_{cv.name});"
        init = cleanup = ""
        if cv.iface is not None:
            init = cv.iface.c_init(cv.name, cv.sub())
            body += "\n" + cv.iface.c_extract(cv.name, cv.sub(), True)
            cleanup = cv.iface.c_cleanup(cv.name, cv.sub())
            checks, pending = asm.symbol_checks(cv)
            body += "\n" + checks
            if pending:
                pending_inputs.append(cv)
        asm.step(f"input {k}", init, body, cleanup, input_index=k)
    if pending_inputs:
        asm.step("symbolic sizes of the inputs", body=asm.call_checker(pending_inputs))
    for var, cv in cvars.items():
        if cv.kind != "constant":
            continue
        asm.consts.append(var.data)
        body = f"py_{cv.name} = PyTuple_GET_ITEM(tt_consts, {cv.index}); Py_INCREF(py_{cv.name});"
        if var in need_c:
            asm.step(
                f"constant {cv.index}",
                cv.iface.c_init(cv.name, cv.sub()),
                body + "\n" + cv.iface.c_extract(cv.name, cv.sub(), False),
                cv.iface.c_cleanup(cv.name, cv.sub()),
            )
        elif var in need_py:
            asm.step(f"constant {cv.index}", body=body)  # C reads it as a literal
    for plan in plans:
        (_c_node if plan.kind == "c" else _py_node)(asm, plan, need_py)
    asm.mod.outputs = [f"py_{cvars[v].name}" for v in fgraph.outputs]
    asm.mod.n_symbols = len(asm.symbols)
    asm.fallbacks = [(p.node, p.reason) for p in plans if p.kind == "py"]
    return asm


def _c_node(asm: _Assembly, plan, need_py) -> None:
    node, cvars = plan.node, asm.cvars
    outs = [cvars[v] for v in node.outputs]
    init = [cv.iface.c_init(cv.name, cv.sub()) for cv in outs]
    body, cleanup = [], []
    if plan.params is not None:
        ptype, value = plan.params
        pvar = CVar(
            ptype.make_constant(value),
            f"P{plan.index}",
            f"params of {node.op}",
            "params",
            len(asm.consts),
            len(asm.labels),
        )
        asm.consts.append(value)
        asm.labels.append(pvar.label)
        asm.declare(pvar)
        init.append(pvar.iface.c_init(pvar.name, pvar.sub()))
        body.append(
            f"py_{pvar.name} = PyTuple_GET_ITEM(tt_consts, {pvar.index}); "
            f"Py_INCREF(py_{pvar.name});"
        )
        body.append(pvar.iface.c_extract(pvar.name, pvar.sub(), True))
        cleanup.append(pvar.iface.c_cleanup(pvar.name, pvar.sub()))
    if plan.struct_decl:
        asm.mod.declarations.append(plan.struct_decl)
    body += [plan.struct_init, "{", plan.code, "}"]
    for cv in outs:
        if cv.var in need_py:
            body.append(cv.iface.c_sync(cv.name, cv.sub()))
    cleanup = [
        plan.cleanup,
        plan.struct_cleanup,
        *(cv.iface.c_cleanup(cv.name, cv.sub()) for cv in reversed(outs)),
        *cleanup,
    ]
    for header in plan.headers:
        asm.mod.add_header(header)
    asm.mod.add_support(plan.support)
    asm.mod.init_code.extend(plan.init_code)
    asm.versions.append(plan.version)
    for key, values in plan.settings.items():
        asm.settings[key].extend(values)
    asm.step(
        f"{node.op} (C)",
        "\n".join(init),
        "\n".join(filter(None, body)),
        "\n".join(filter(None, cleanup)),
    )


def _py_node(asm: _Assembly, plan, need_py) -> None:
    node, cvars = plan.node, asm.cvars
    asm.thunks.append(_perform_thunk(node))
    ins = [cvars[v] for v in node.inputs]
    outs = [cvars[v] for v in node.outputs]
    args = ", ".join(f"py_{cv.name}" for cv in ins) or "NULL"
    body = [
        f"""{{
    PyObject* tt_args[{max(len(ins), 1)}] = {{{args}}};
    PyObject* tt_res = PyObject_Vectorcall(PyTuple_GET_ITEM(tt_thunks, {len(asm.thunks) - 1}),
                                           tt_args, {len(ins)}, NULL);
    if (tt_res == NULL) {MARK}"""
    ]
    for j, cv in enumerate(outs):
        body.append(f"    py_{cv.name} = PyTuple_GET_ITEM(tt_res, {j}); Py_INCREF(py_{cv.name});")
    body.append("    Py_DECREF(tt_res);\n}")
    init, cleanup, pending = [], [], []
    for cv in outs:
        if cv.iface is None:
            continue
        init.append(cv.iface.c_init(cv.name, cv.sub()))
        body.append(cv.iface.c_extract(cv.name, cv.sub(), True))
        checks, more = asm.symbol_checks(cv)
        body.append(checks)
        pending += [cv] if more else []
        cleanup.insert(0, cv.iface.c_cleanup(cv.name, cv.sub()))
    if pending:
        body.append(asm.call_checker(pending))
    asm.step(
        f"{node.op} (perform)",
        "\n".join(init),
        "\n".join(filter(None, body)),
        "\n".join(filter(None, cleanup)),
    )


class CLinker:
    """Compile a ``FunctionGraph`` into one C function (see the module docstring).

    >>> CLinker().cache is None
    True
    """

    __slots__ = ("cache",)

    def __init__(self, cache: ModuleCache | None = None):
        self.cache = cache

    def _cache(self) -> ModuleCache:
        return self.cache if self.cache is not None else ModuleCache.default()

    def source(self, fgraph) -> str:
        """The C source the graph compiles to (for reading; nothing is built)."""
        cache = self._cache()
        asm = assemble(fgraph, cache.get_compiler().vector_math)
        return codegen.render(asm.mod, asm.release)

    def compile(self, fgraph) -> CompiledGraph:
        """Build (or load from the cache) the module of ``fgraph``; a ``CompiledGraph``."""
        cache = self._cache()
        asm = assemble(fgraph, cache.get_compiler().vector_math)
        source = codegen.render(asm.mod, asm.release)
        s = asm.settings
        settings = BuildSettings(
            include_dirs=s["header_dirs"],
            lib_dirs=s["lib_dirs"],
            libraries=s["libraries"],
            extra_args=s["compile_args"],
            no_args=s["no_compile_args"],
        )
        versioned = all(asm.versions)
        module = cache.module(source, tuple(asm.versions), settings, versioned=versioned)
        state = (tuple(asm.consts), tuple(asm.thunks), tuple(asm.checkers), tuple(asm.labels))
        return CompiledGraph(module.make_function(state), source, module, asm.fallbacks, versioned)

    def make_function(self, fgraph):
        """``f(list_of_input_values) -> list_of_output_values``, compiled.

        >>> import numpy as np
        >>> from tensortypes.graph import FunctionGraph
        >>> from tensortypes.tensor import dvector
        >>> x = dvector("x")
        >>> f = CLinker().make_function(FunctionGraph([x], [x * 2.0]))
        >>> f([np.arange(3.0)])
        [array([0., 2., 4.])]
        """
        return self.compile(fgraph).function
