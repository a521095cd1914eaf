"""The walker: statements, functions, classes and control flow (layer 6: ``check``).

:class:`Checker` reads one module's source with ``ast`` (nothing is imported
or run) and applies spec 003's checking rules, extended to shapes and dtypes:

- annotations seed the values of parameters (``check.annotations``); their
  dim names are universally quantified symbols;
- parameter binding and assignment: arguments against parameter annotations
  (``check.calls``), annotated assignments, returns against the return
  annotation;
- control-flow joins: each branch is walked on its own copy of the
  variables, and the copies are joined (``symbolic.join_values``); a branch
  that returns or raises does not reach the join. Loops are walked until
  their variables settle;
- refinement: ``is None``/``is not None``, truthiness, ``isinstance``,
  ``assert`` and early return narrow locals and attributes (``self.h``); a
  size comparison (``assert x.shape[1] == d``) makes the two sizes equal from
  there on;
- constructors: a class's instance attribute schema is what ``__init__``
  assigns (plus dataclass fields and class attributes); attribute resolution
  on an instance outside that schema is an ``attr`` error.

Expressions and calls are in ``check.expr`` and ``check.calls``.
"""

from __future__ import annotations

import ast

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.errors import AnnotationError

from .annotations import read_annotation
from .binding import Binder
from .calls import CallMixin
from .diagnostics import CheckFailure, Diagnostic
from .expr import ExprMixin, attr_key, index_array, join_all, label_of
from .refine import RefineMixin
from .rules import shapefns as sf
from .rules.base import is_float, is_int
from .symbolic import (
    NONE,
    UNKNOWN,
    Arr,
    Bcast,
    ClassV,
    InstV,
    IntV,
    ListV,
    NoneV,
    Ref,
    TupleV,
    UnionV,
    fmt_dtypes,
    fmt_shape,
    join_values,
    strip_none,
)

__all__ = ["Checker", "Frame"]

_TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)


class Frame:
    """The state of one walk through a function: variables, symbol origins, returns."""

    __slots__ = ("vars", "where", "func", "returns", "globals", "terminated", "building",
                 "facts")

    def __init__(self, func=None, building=None):
        self.vars: dict = {}
        self.where: dict = {}
        self.func = func
        self.returns: list = []
        self.globals: dict = {}
        self.terminated = False
        self.building = building  # the ClassInfo whose __init__ is being walked
        self.facts: tuple = ()  # divisibility facts: (name, k) after ``assert name % k == 0``

    def copy(self) -> Frame:
        other = Frame(self.func, self.building)
        other.vars = dict(self.vars)
        other.where = self.where
        other.returns = self.returns
        other.globals = self.globals
        other.facts = self.facts
        return other


def join_frames(a: Frame, b: Frame) -> Frame:
    """The variables after two branches meet."""
    out = a.copy()
    out.facts = tuple(f for f in a.facts if f in b.facts)
    out.vars = {}
    for key in a.vars.keys() | b.vars.keys():
        x, y = a.vars.get(key), b.vars.get(key)
        out.vars[key] = x if y is None else y if x is None else join_values(x, y)
    return out


class Checker(RefineMixin, ExprMixin, CallMixin):
    """Check one module's source; :meth:`run` returns the diagnostics.

    >>> src = "import torch\\nx = torch.zeros(3, 4)\\ny = x @ torch.ones(5, 2)\\n"
    >>> [d.code for d in Checker(src, "m.py").run()]
    ['matmul']
    """

    def __init__(self, source: str, path: str = "<string>", strict: bool = False):
        self.source = source
        self.path = path
        self.strict = strict
        self.diagnostics: dict = {}
        self.quiet = 0
        self.ann_cache: dict = {}
        self.module = None

    # -- reporting ---------------------------------------------------------------------
    def report(self, node, code: str, message: str, notes=(), severity: str = "error"):
        if self.quiet:
            return
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + 1
        d = Diagnostic(self.path, line, col, code, message, notes, severity)
        self.diagnostics.setdefault(d.key(), d)

    def fail(self, node, failure: CheckFailure, frame) -> None:
        notes = list(failure.notes)
        bound = self.symbol_notes(failure.message, frame)
        if bound:
            notes.append(bound)
        self.report(node, failure.code, failure.message, notes)

    def symbol_notes(self, text: str, frame) -> str:
        words = set(_identifiers(text))
        found = [f"{name} from {frame.where[name]}" for name in sorted(words)
                 if name in frame.where]
        return ("sizes bound by: " + "; ".join(found)) if found else ""

    def with_notes(self, compute, operands, frame):
        try:
            return compute()
        except CheckFailure as failure:
            notes = list(failure.notes)
            for node, value in operands:
                if node is None or type(value) is not Arr:
                    continue
                text = f"{label_of(node)}: {fmt_shape(value.shape)} {fmt_dtypes(value.dtypes)}"
                if value.origin:
                    text += f", {value.origin}"
                notes.append(text)
            raise CheckFailure(failure.code, failure.message, notes) from None

    def gave_up(self, node, message: str) -> None:
        if self.strict:
            self.report(node, "unchecked", message, severity="note")

    def check_optional(self, value, node, frame):
        """A value that may be None used where None fails: report, then use the rest."""
        if type(value) is UnionV and any(type(v) is NoneV for v in value.items):
            rest = strip_none(value)
            if type(rest) is Arr:
                self.report(node, "optional", f"{label_of(node)} may be None here; check "
                                              f"'is not None' first")
            return rest
        return value

    # -- the module ------------------------------------------------------------------------
    def run(self) -> list:
        from .modinfo import ModuleInfo
        try:
            tree = ast.parse(self.source, filename=self.path)
        except SyntaxError as error:
            self.report(_Pos(error.lineno or 1, (error.offset or 1) - 1), "syntax",
                        f"invalid syntax: {error.msg}")
            return self.result()
        self.module = ModuleInfo(tree)
        for info in self.module.classes.values():
            self.ensure_schema(info)
            for method in info.methods.values():
                if method.name != "__init__":
                    self.check_function(method)
        for info in self.module.functions.values():
            self.check_function(info)
        frame = Frame()
        body = [s for s in tree.body if not isinstance(
            s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                ast.ImportFrom))]
        self.exec_block(body, frame)
        return self.result()

    def result(self) -> list:
        return sorted(self.diagnostics.values(), key=lambda d: (d.line, d.col, d.code))

    def annotation_value(self, node, frame=None):
        found = self.ann_cache.get(id(node))
        if found is None:
            try:
                found = read_annotation(node, self.module)
            except AnnotationError as error:
                self.report(node, "annotation", f"bad annotation: {error.message}")
                found = UNKNOWN
            if found is UNKNOWN and "[" in label_of(node):
                self.gave_up(node, f"annotation {label_of(node)} is not understood; values "
                                   f"of this type are unchecked")
            self.ann_cache[id(node)] = found
        return found

    # -- classes and functions ----------------------------------------------------------------
    def ensure_schema(self, info) -> None:
        if info.ready:
            return
        info.ready = True
        for base in info.bases:
            if base in self.module.classes:
                self.ensure_schema(self.module.classes[base])
                info.attrs.update(self.module.classes[base].attrs)
        for field in info.fields:
            info.attrs[field.target.id] = self.annotation_value(field.annotation)
        init = info.methods.get("__init__")
        if init is not None:
            self.check_function(init, building=info)
        for name in info.assigned:
            if name not in info.attrs:
                info.attrs[name] = UNKNOWN

    def check_function(self, info, building=None):
        if info.inferred is not None or info.checking:
            return info.inferred
        info.checking = True
        saved, self.quiet = self.quiet, 0
        try:
            frame = Frame(info, building)
            if info.cls is not None and building is None:
                frame.facts = info.cls.facts
            self.bind_params(info, frame)
            if id(info.node) in self.module.generators:
                self.exec_block(info.node.body, frame)
                info.inferred = UNKNOWN
                return UNKNOWN
            end = self.exec_block(info.node.body, frame)
            if building is not None:
                building.facts = end.facts
            values = [v for v, _ in frame.returns]
            if not end.terminated:
                values.append(NONE)
            info.inferred = join_all(values) if values else NONE
            return info.inferred
        finally:
            self.quiet = saved
            info.checking = False

    def bind_params(self, info, frame: Frame) -> None:
        line = info.node.lineno
        for index, (name, ann, default, kind) in enumerate(info.params):
            if index == 0 and info.cls is not None and not info.is_static and \
                    kind == "positional":
                frame.vars[name] = ClassV(info.cls) if "classmethod" in info.decorators \
                    else InstV(info.cls)
                continue
            if kind in ("star", "starstar"):
                frame.vars[name] = UNKNOWN
                continue
            if ann is None:
                if isinstance(default, ast.Constant) and type(default.value) is int:
                    value = IntV(dims.symbol(name))
                    frame.where.setdefault(name, f"parameter {name} (line {line})")
                else:
                    value = UNKNOWN
                frame.vars[name] = value
                continue
            value = self.annotation_value(ann, frame)
            if type(value) is IntV:
                value = IntV(dims.symbol(name))
                frame.where.setdefault(name, f"parameter {name} (line {line})")
            for arr in _arrays(value):
                for axis, d in enumerate(arr.shape or ()):
                    d = d.dim if type(d) is Bcast else d
                    if type(d) is Dim and d.is_symbol:
                        frame.where.setdefault(d.name, f"{name} axis {axis} (line {line})")
            if type(value) is Arr:
                value = value.with_(origin=f"parameter at line {line}")
            if isinstance(default, ast.Constant) and default.value is None and \
                    type(value) not in (UnionV, NoneV):
                value = UnionV((NONE, value))
            frame.vars[name] = value

    def inferred_return(self, info):
        if info.inferred is None:
            self.check_function(info, building=None)
        return info.inferred if info.inferred is not None else UNKNOWN

    def instance_attribute(self, inst: InstV, attr: str, node, frame):
        info = inst.info
        self.ensure_schema(info)
        if attr in info.attrs:
            value = info.attrs[attr]
            if inst.env and type(value) is Arr:
                return value.with_(shape=Binder(inst.env).substitute(value.shape))
            return value
        method = self.find_method(info, attr)
        if method is not None:
            if method.is_property:
                return self.call_function(method, [], {}, node, frame, _NoLabels(), inst,
                                          False)
            return _method(inst, attr)
        if attr in info.class_attrs:
            return self.eval(info.class_attrs[attr], Frame())
        known = info.has_attr(attr, self.module)
        if known is False:
            names = ", ".join(sorted(info.attrs)[:8])
            self.report(node, "attr", f"{info.name} has no attribute {attr!r}",
                        [f"attributes set in __init__: {names}"] if names else [])
        return UNKNOWN

    # -- statements ------------------------------------------------------------------------------
    def exec_block(self, body, frame: Frame) -> Frame:
        for stmt in body:
            if frame.terminated:
                break
            frame = self.exec_stmt(stmt, frame)
        return frame

    def exec_stmt(self, stmt, frame: Frame) -> Frame:
        method = getattr(self, "s_" + type(stmt).__name__, None)
        if method is None:
            return frame
        try:
            return method(stmt, frame)
        except CheckFailure as failure:
            self.fail(stmt, failure, frame)
            return frame

    def s_Expr(self, stmt, frame):
        self.eval(stmt.value, frame)
        return frame

    def s_Assign(self, stmt, frame):
        value = self.eval(stmt.value, frame)
        for target in stmt.targets:
            self.assign(target, value, frame, stmt)
        return frame

    def s_AnnAssign(self, stmt, frame):
        want = self.annotation_value(stmt.annotation, frame)
        if stmt.value is None:
            key = attr_key(stmt.target) if not isinstance(stmt.target, ast.Name) \
                else stmt.target.id
            if key is not None:
                frame.vars[key] = want
            return frame
        got = self.eval(stmt.value, frame)
        binder = self.own_binder(frame)
        self.check_binding(want, got, f"value assigned to {label_of(stmt.target)}", binder,
                           stmt.value, frame, code="assign")
        self.assign(stmt.target, got if got is not UNKNOWN else want, frame, stmt)
        return frame

    def s_AugAssign(self, stmt, frame):
        old = self.eval(stmt.target, frame)
        value = self.eval(stmt.value, frame)
        if type(old) is Arr:
            new = self.arith(stmt, type(stmt.op), old, value, frame,
                             (stmt.target, stmt.value)) \
                if not isinstance(stmt.op, ast.MatMult) else UNKNOWN
            if type(new) is Arr:
                self.check_inplace(stmt, old, new, value, frame)
            return frame
        self.assign(stmt.target, self.arith(stmt, type(stmt.op), old, value, frame,
                                            (stmt.target, stmt.value))
                    if not isinstance(stmt.target, ast.Subscript) else old, frame, stmt)
        return frame

    def check_inplace(self, stmt, old: Arr, new: Arr, value, frame) -> None:
        target = label_of(stmt.target)
        if old.shape is not None and new.shape is not None and (
                len(new.shape) != len(old.shape) or any(
                    type(a) is Dim and type(b) is Dim and not dims.eq(a, b)
                    for a, b in zip(old.shape, new.shape))):
            self.report(stmt, "broadcast", f"in-place update of {target} {fmt_shape(old.shape)} "
                                           f"would need shape {fmt_shape(new.shape)}: the "
                                           f"result of an in-place operation keeps the "
                                           f"target's shape")
            return
        if is_int(old.dtypes) and new.dtypes is not None and is_float(new.dtypes):
            self.report(stmt, "dtype", f"in-place update of {target} ({fmt_dtypes(old.dtypes)}) "
                                       f"with a {fmt_dtypes(new.dtypes)} result: the float "
                                       f"result cannot be cast back to the integer array "
                                       f"(cast {target} to float first)")

    def assign(self, target, value, frame: Frame, stmt) -> None:
        if isinstance(target, ast.Name):
            if type(value) is Arr and value.origin is None:
                value = value.with_(origin=f"assigned at line {stmt.lineno}")
            frame.vars[target.id] = value
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            items = value.items if type(value) is TupleV or (
                type(value) is ListV and value.items is not None) else None
            if any(isinstance(e, ast.Starred) for e in target.elts):
                items = None
            if items is not None and len(items) != len(target.elts):
                self.report(stmt, "rank", f"cannot unpack {label_of(stmt.value)} of length "
                                          f"{len(items)} into {len(target.elts)} names")
                items = None
            if items is None and type(value) is Arr and value.rank is not None and \
                    value.rank >= 1 and not any(isinstance(e, ast.Starred) for e in target.elts):
                items = None
            for i, element in enumerate(target.elts):
                element = element.value if isinstance(element, ast.Starred) else element
                self.assign(element, items[i] if items is not None else UNKNOWN, frame, stmt)
            return
        if isinstance(target, ast.Attribute):
            key = attr_key(target)
            if key is not None:
                frame.vars[key] = value
            if frame.building is not None and isinstance(target.value, ast.Name) and \
                    target.value.id == "self":
                attrs = frame.building.attrs
                attrs[target.attr] = value if target.attr not in attrs else \
                    join_values(attrs[target.attr], value)
            return
        if isinstance(target, ast.Subscript):
            receiver = self.eval(target.value, frame)
            if type(receiver) is Arr and type(value) is Arr:
                index = self.eval_index(target.slice, frame)
                try:
                    region = index_array(receiver, index, label_of(target.value))
                    joined = sf.broadcast([region.shape, value.shape],
                                          [f"{label_of(target)}", label_of(stmt.value)])
                    if region.shape is not None and joined is not None and \
                            len(joined) != len(region.shape):
                        raise CheckFailure("broadcast", f"cannot assign {label_of(stmt.value)} "
                                                        f"{fmt_shape(value.shape)} to "
                                                        f"{label_of(target)} "
                                                        f"{fmt_shape(region.shape)}")
                except CheckFailure as failure:
                    self.fail(stmt, failure, frame)
            return

    def s_Return(self, stmt, frame):
        value = self.eval(stmt.value, frame) if stmt.value is not None else NONE
        frame.returns.append((value, stmt))
        info = frame.func
        if info is not None and info.returns is not None and info.name != "__init__":
            want = self.annotation_value(info.returns, frame)
            self.check_binding(want, value, f"return value of {info.qualname}()",
                               self.own_binder(frame), stmt.value or stmt, frame, code="return")
        frame.terminated = True
        return frame

    def own_binder(self, frame) -> Binder:
        """A binder where the function's own size names stand for themselves."""
        names = {n: dims.symbol(n) for n in frame.where if n.isidentifier()}
        return Binder(names, {n: frame.where[n] for n in names})

    def s_Raise(self, stmt, frame):
        frame.terminated = True
        return frame

    s_Break = s_Continue = s_Raise

    def s_Delete(self, stmt, frame):
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                frame.vars.pop(target.id, None)
        return frame

    def s_Assert(self, stmt, frame):
        self.eval(stmt.test, frame)
        return self.narrow(stmt.test, frame, True)

    def s_If(self, stmt, frame):
        self.eval(stmt.test, frame)
        yes = self.exec_block(stmt.body, self.narrow(stmt.test, frame.copy(), True))
        no = self.exec_block(stmt.orelse, self.narrow(stmt.test, frame.copy(), False))
        if yes.terminated and no.terminated:
            return yes
        if yes.terminated:
            return no
        if no.terminated:
            return yes
        return join_frames(yes, no)

    def s_With(self, stmt, frame):
        for item in stmt.items:
            value = self.eval(item.context_expr, frame)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN if type(value) is not Arr else value,
                            frame, stmt)
        return self.exec_block(stmt.body, frame)

    s_AsyncWith = s_With

    def s_Try(self, stmt, frame):
        body = self.exec_block(stmt.body, frame.copy())
        outs = [] if body.terminated else [self.exec_block(stmt.orelse, body)]
        for handler in stmt.handlers:
            start = join_frames(frame, body) if not body.terminated else frame.copy()
            if handler.name:
                start.vars[handler.name] = UNKNOWN
            end = self.exec_block(handler.body, start)
            if not end.terminated:
                outs.append(end)
        if not outs:
            result = body if body.terminated else frame
            result.terminated = True
        else:
            result = outs[0]
            for other in outs[1:]:
                result = join_frames(result, other)
        if stmt.finalbody:
            saved = result.terminated
            result.terminated = False
            result = self.exec_block(stmt.finalbody, result)
            result.terminated = result.terminated or saved
        return result

    s_TryStar = s_Try

    def s_For(self, stmt, frame):
        iterable = self.eval(stmt.iter, frame)
        element = _element_of(iterable)
        return self.loop(stmt, frame, lambda f: self.assign(stmt.target, element, f, stmt))

    s_AsyncFor = s_For

    def s_While(self, stmt, frame):
        self.eval(stmt.test, frame)
        return self.loop(stmt, frame, None, stmt.test)

    def loop(self, stmt, frame, bind, test=None):
        head = frame
        for attempt in range(2):
            start = head.copy()
            if bind is not None:
                bind(start)
            if test is not None:
                start = self.narrow(test, start, True)
            if attempt == 0:
                self.quiet += 1
            try:
                end = self.exec_block(stmt.body, start)
            finally:
                if attempt == 0:
                    self.quiet -= 1
            end.terminated = False
            head = join_frames(frame, end)
        out = head
        if test is not None:
            out = self.narrow(test, out, False)
        if stmt.orelse:
            out = self.exec_block(stmt.orelse, out)
        return out

class _Pos:
    __slots__ = ("lineno", "col_offset")

    def __init__(self, line, col):
        self.lineno, self.col_offset = line, col


class _NoLabels:
    nodes: dict = {}

    def get(self, key, default=None):
        return default


def _method(inst, name):
    from .symbolic import MethodV
    return MethodV(inst, name)


def _identifiers(text: str):
    import re
    return re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)


def _arrays(value):
    if type(value) is Arr:
        return [value]
    if type(value) in (UnionV, TupleV):
        return [v for v in value.items if type(v) is Arr]
    return []


def _element_of(iterable):
    t = type(iterable)
    if t is ListV:
        return join_all(iterable.items) if iterable.items is not None else iterable.elem
    if t is TupleV:
        return join_all(iterable.items)
    if t is Arr:
        if iterable.rank:
            return iterable.with_(shape=iterable.shape[1:], origin=None)
        return iterable.with_(shape=None, origin=None)
    if t is Ref and iterable.path == "builtins.range()":
        return IntV()
    return UNKNOWN


