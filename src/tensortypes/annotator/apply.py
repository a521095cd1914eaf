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

from .infer import FunctionPlan, infer_function, open_ranks, unequal_axes

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
                calls, node, cls, tree, package, unequal, ranks.get(id(cls))
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
