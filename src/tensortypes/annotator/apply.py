"""Writing proposed annotations into source files with libcst (layer 7: ``annotator``).

:func:`annotate_source` rewrites one module's text: every traced function whose
parameters or return value lack an annotation gets the proposed one, imports are
added once (``from tensortypes import Float32``; ``jaxtyping`` instead when the
module already imports from it), and everything else (formatting, comments,
existing annotations) is kept byte for byte. Existing annotations are never
replaced; a recorded call that contradicts one is reported.

:func:`stub_source` gives the ``.pyi`` form (signatures only) instead.
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from .infer import FunctionPlan, infer_function, open_ranks, passed_on, unequal_axes

__all__ = ["annotate_source", "stub_source", "plans_for_source", "Report"]


class Report:
    """What one file's rewrite did: annotations added, left alone, contradicted."""

    def __init__(self) -> None:
        self.added: list = []  # (qualname, param or "return", text)
        self.kept: list = []  # (qualname, param, existing annotation)
        self.skipped: list = []  # (qualname, reason)
        self.contradictions: list = []  # (qualname, param, message)
        self.array_params = 0

    def lines(self) -> list:
        out = [f"{q}: {p}: {t}" for q, p, t in self.added]
        out += [f"{q}: left alone: {r}" for q, r in self.skipped]
        out += [
            f"{q}: {p}: a recorded call contradicts the annotation: {m}"
            for q, p, m in self.contradictions
        ]
        return out


def _qualnames(tree: ast.Module) -> dict:
    """``qualname -> (FunctionDef, enclosing ClassDef or None)`` as ``co_qualname`` spells it."""
    found: dict = {}

    def visit(body, prefix: str, cls):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{node.name}"
                found.setdefault(name, (node, cls))
                visit(node.body, f"{name}.<locals>.", None)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", node)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(node, part, []) or [], prefix, cls)

    visit(tree.body, "", None)
    return found


def _returned_closures(tree: ast.Module) -> set:
    """Qualnames of nested functions their enclosing function returns (``maybe(fn)``'s
    ``inner``): one per decorated function, so no one annotation fits them all."""
    found: set = set()
    for qualname, (node, _cls) in _qualnames(tree).items():
        returned = {
            sub.value.id
            for sub in ast.walk(node)
            if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Name)
        }
        for sub in ast.walk(node):
            if (
                sub is not node
                and isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef))
                and sub.name in returned
            ):
                found.add(f"{qualname}.<locals>.{sub.name}")
    return found


def _held_classes(cls: ast.ClassDef) -> dict:
    """``{attr: class names}`` of the objects ``__init__`` stores on ``self``:
    ``self.rotary = RotaryEmbedding(d) if rotary else None`` gives ``RotaryEmbedding``."""
    found: dict = {}
    for node in cls.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "__init__"):
            continue
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Assign):
                continue
            values = [sub.value]
            while any(isinstance(v, ast.IfExp) for v in values):
                values = [
                    part
                    for v in values
                    for part in ((v.body, v.orelse) if isinstance(v, ast.IfExp) else (v,))
                ]
            names = {
                v.func.id
                for v in values
                if isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
            }
            for target in sub.targets:
                if (
                    names
                    and isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    found.setdefault(target.attr, set()).update(names)
    return found


def _callee_params(node: ast.FunctionDef, method: bool) -> list:
    a = node.args
    params = [p.arg for p in (*a.posonlyargs, *a.args)]
    return params[1:] if method and params else params


def _passed_ranks(found: dict, calls_by_qualname: dict, own: dict) -> dict:
    """``{qualname: {param: ranks}}``: parameters passed as they are to a function of the
    module whose code handles several ranks of that parameter (it tests the rank:
    ``AttentionLayers.forward(context_pos)`` calls ``self.rotary_pos_emb(context_pos)``,
    a ``RotaryEmbedding`` whose ``forward(t)`` tests ``t.ndim == 1`` and was called
    with ``(n,)`` and ``(b, n)``). The caller's parameter takes those ranks (tested and
    recorded) too, whatever its own tests passed. A helper that takes anything
    (``exists(v)``) tests no rank and says nothing. Followed through the module's
    functions until nothing changes.

    ``own``: ``{qualname: {param: ranks}}`` each function's code tests.
    """

    def recorded(qualname: str, param: str) -> set:
        return {
            len(v["shape"])
            for c in calls_by_qualname.get(qualname, ())
            if isinstance(c[0], dict)
            for v in (c[0].get(param),)
            if isinstance(v, dict) and v.get("k") == "array"
        }

    open_: dict = {}
    for qualname, (node, _cls) in found.items():
        for param in _callee_params(node, _cls is not None):
            if param in own.get(qualname, {}):
                ranks = recorded(qualname, param) | own[qualname][param]
                open_.setdefault(qualname, {})[param] = ranks
    held = {id(cls): _held_classes(cls) for _q, (_n, cls) in found.items() if cls is not None}
    flows = {q: passed_on(node) for q, (node, _c) in found.items()}
    result: dict = {}
    for _round in range(4):
        changed = False
        for qualname, (_node, cls) in found.items():
            prefix = qualname.rsplit(".", 1)[0] + "." if cls is not None else ""
            for param, (kind, name), where in flows[qualname]:
                if kind == "self" and cls is not None:
                    targets = [f"{prefix}{name}"] + [
                        f"{c}.{m}"
                        for c in sorted(held[id(cls)].get(name, ()))
                        for m in ("forward",)
                    ]
                elif kind == "name":
                    targets = [name]
                else:
                    continue
                for target in targets:
                    if target not in found:
                        continue
                    tnode, tcls = found[target]
                    tparams = _callee_params(tnode, tcls is not None)
                    tparam = (
                        tparams[where]
                        if isinstance(where, int) and where < len(tparams)
                        else where
                        if isinstance(where, str)
                        else None
                    )
                    ranks = open_.get(target, {}).get(tparam)
                    if ranks is None:
                        continue
                    mine = result.setdefault(qualname, {}).setdefault(param, set())
                    if not ranks <= mine:
                        mine |= ranks
                        open_.setdefault(qualname, {}).setdefault(param, set()).update(ranks)
                        changed = True
        if not changed:
            break
    return result


def _package(tree: ast.Module, default: str) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "jaxtyping":
            return "jaxtyping"
        if isinstance(node, ast.Import) and any(a.name == "jaxtyping" for a in node.names):
            return "jaxtyping"
    return default


def plans_for_source(text: str, calls_by_qualname: dict, package: str = "tensortypes") -> dict:
    """``qualname -> FunctionPlan`` for the traced functions of one module's source."""
    tree = ast.parse(text)
    package = _package(tree, package)
    plans = {}
    found = _qualnames(tree)
    # Per class, the axes each method saw unequal: evidence for its other methods.
    # and the ranks each method's code expects of its parameters.
    seen_unequal: dict = {}
    ranks: dict = {}
    for qualname, (node, cls) in found.items():
        if cls is None:
            continue
        if calls_by_qualname.get(qualname):
            seen_unequal.setdefault(id(cls), {})[qualname] = unequal_axes(
                calls_by_qualname[qualname]
            )
        for param, tested in open_ranks(node).items():
            ranks.setdefault(id(cls), {}).setdefault(param, set()).update(tested)
    own_ranks = {q: open_ranks(node) for q, (node, _cls) in found.items()}
    passed = _passed_ranks(found, calls_by_qualname, own_ranks)
    wrappers = _returned_closures(tree)
    for qualname, (node, cls) in found.items():
        calls = calls_by_qualname.get(qualname)
        if calls and qualname in wrappers:
            plans[qualname] = FunctionPlan(
                {},
                None,
                [
                    "a function its enclosing function returns (a decorator's wrapper): "
                    "its types are those of each function it wraps"
                ],
            )
        elif calls:
            others = seen_unequal.get(id(cls), {}) if cls is not None else {}
            unequal = set().union(*(v for q, v in others.items() if q != qualname))
            plans[qualname] = infer_function(
                calls,
                node,
                cls,
                tree,
                package,
                unequal,
                ranks.get(id(cls)),
                passed.get(qualname),
            )
    return plans


def _existing_contradicts(annotation: str, values) -> str | None:
    """A message when a recorded array value cannot fit an existing array annotation.

    Reads only what the annotation text states: its dtype class and its rank (a
    fixed-rank shape string without ``*``/``...``), and fixed sizes.
    """
    from .infer import dtype_class

    try:
        node = ast.parse(annotation, mode="eval").body
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node = ast.parse(node.value, mode="eval").body  # a string annotation
    except SyntaxError:
        return None
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Tuple)
        and len(node.slice.elts) == 2
        and isinstance(node.slice.elts[1], ast.Constant)
        and isinstance(node.slice.elts[1].value, str)
    ):
        return None
    dims = node.slice.elts[1].value.split()
    arrays = [v for v in values if v and v.get("k") == "array"]
    if not arrays:
        return None
    if not any(d.startswith("*") or d in ("...", "#") or d.startswith("*") for d in dims):
        for v in arrays:
            if len(v["shape"]) != len(dims):
                return (
                    f"recorded shape {tuple(v['shape'])} has rank {len(v['shape'])}, "
                    f"the annotation {len(dims)}"
                )
            for axis, (d, size) in enumerate(zip(dims, v["shape"])):
                if d.isdigit() and int(d) != size:
                    return f"recorded shape {tuple(v['shape'])}: axis {axis} is {size}, not {d}"
    cls = (
        node.value.id
        if isinstance(node.value, ast.Name)
        else node.value.attr
        if isinstance(node.value, ast.Attribute)
        else None
    )
    if cls in (
        "Float16",
        "Float32",
        "Float64",
        "Int8",
        "Int16",
        "Int32",
        "Int64",
        "Bool",
        "UInt8",
        "Complex64",
        "Complex128",
    ):
        for v in arrays:
            if dtype_class({v["dtype"]}) != cls:
                return f"recorded dtype {v['dtype']} is not {cls}"
    return None


class _Annotator(cst.CSTTransformer):
    def __init__(self, plans: dict, calls: dict, report: Report) -> None:
        self.plans = plans
        self.calls = calls
        self.report = report
        self.stack: list = []

    def _qualname(self, name: str) -> str:
        return ".".join([*self.stack, name])

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.stack.append(node.name.value)
        return True

    def leave_ClassDef(self, original, updated):
        self.stack.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.stack.append(node.name.value)
        self.stack.append("<locals>")
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef):
        self.stack.pop()
        name = self.stack.pop()
        qualname = self._qualname(name)
        plan: FunctionPlan | None = self.plans.get(qualname)
        if plan is None:
            return updated
        for note in plan.notes:
            self.report.skipped.append((qualname, note))
        calls = self.calls.get(qualname, [])

        def fix(param: cst.Param) -> cst.Param:
            pname = param.name.value
            proposal = plan.params.get(pname)
            if proposal is not None and "[" in proposal.text:
                self.report.array_params += 1
            if param.annotation is not None:
                existing = cst.Module([]).code_for_node(param.annotation.annotation)
                self.report.kept.append((qualname, pname, existing))
                problem = _existing_contradicts(existing, [c[0].get(pname) for c in calls])
                if problem:
                    self.report.contradictions.append((qualname, pname, problem))
                return param
            if proposal is None:
                return param
            self.report.added.append((qualname, pname, proposal.text))
            changes = {"annotation": cst.Annotation(cst.parse_expression(proposal.text))}
            if param.default is not None:
                # PEP 8: spaces around the = of an annotated parameter's default.
                changes["equal"] = cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(" "),
                    whitespace_after=cst.SimpleWhitespace(" "),
                )
            return param.with_changes(**changes)

        params = updated.params
        params = params.with_changes(
            params=[fix(p) for p in params.params],
            posonly_params=[fix(p) for p in params.posonly_params],
            kwonly_params=[fix(p) for p in params.kwonly_params],
        )
        updated = updated.with_changes(params=params)
        if plan.returns is not None and "[" in plan.returns.text:
            self.report.array_params += 1
        if updated.returns is not None:
            existing = cst.Module([]).code_for_node(updated.returns.annotation)
            problem = _existing_contradicts(existing, [c[1] for c in calls])
            if problem:
                self.report.contradictions.append((qualname, "return", problem))
        elif plan.returns is not None:
            self.report.added.append((qualname, "return", plan.returns.text))
            updated = updated.with_changes(
                returns=cst.Annotation(cst.parse_expression(plan.returns.text))
            )
        return updated


def _imports(plans: dict) -> set:
    found = set()
    for plan in plans.values():
        for proposal in (*plan.params.values(), plan.returns):
            if proposal is not None:
                found |= proposal.imports
    return found


def annotate_source(text: str, calls_by_qualname: dict, package: str = "tensortypes"):
    """``(new_text, Report)``: ``text`` with the annotations the records support added."""
    report = Report()
    plans = plans_for_source(text, calls_by_qualname, package)
    if not plans:
        return text, report
    module = cst.parse_module(text)
    updated = module.visit(_Annotator(plans, calls_by_qualname, report))
    if not report.added:
        return text, report
    used = set()
    for _, _, added in report.added:
        used.add(added)
    context = CodemodContext()
    for module_name, name in sorted(_imports(plans)):
        if module_name == "import":
            mod, _, alias = name.partition(" as ")
            AddImportsVisitor.add_needed_import(context, mod, asname=alias or None)
        elif any(t.startswith(name + "[") for t in used):
            AddImportsVisitor.add_needed_import(context, module_name, name)
    updated = AddImportsVisitor(context).transform_module(updated)
    return updated.code, report


class _Stubber(cst.CSTTransformer):
    """Signatures only: bodies become ``...``, module-level statements other than imports,
    classes, functions and annotated assignments are dropped."""

    def leave_FunctionDef(self, original, updated):
        return updated.with_changes(
            body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Expr(cst.Ellipsis())])])
            if isinstance(updated.body, cst.IndentedBlock)
            else cst.SimpleStatementSuite([cst.Expr(cst.Ellipsis())])
        )

    def leave_Module(self, original, updated):
        keep = []
        for stmt in updated.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                keep.append(stmt)
            elif isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Import, cst.ImportFrom, cst.AnnAssign)) for s in stmt.body
            ):
                keep.append(stmt)
        return updated.with_changes(body=keep)


def stub_source(text: str) -> str:
    """The ``.pyi`` stub of a module's (annotated) source."""
    return cst.parse_module(text).visit(_Stubber()).code
