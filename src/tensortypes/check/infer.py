"""The walker: the module, its classes and functions (layer 6: ``check``).

:class:`Checker` reads one module's source with ``ast`` (nothing is imported
or run) and applies TorchScript's checking rules, extended to shapes and dtypes:

- annotations give each parameter its type (``check.annotations``, lattice
  types of ``tensortypes.types``) and its starting value; dim names in shape
  strings are universally quantified symbols, and so are int parameters;
- every class gets its schema (``check.schema``) and every function and
  method is walked once, ``__init__`` first; module-level code last;
- a value that may be None used where None fails is an ``optional`` error;
- the diagnostics the source's ignore comments silence are dropped
  (``check.suppress``).

The rest of the walk is in mixins: statements, assignment and control flow
(``check.statements``), refinement (``check.refine``), expressions
(``check.expr``, ``check.indexing``), calls (``check.calls``), parameter
binding (``check.signatures``) and instance schemas (``check.schema``).
"""

from __future__ import annotations

import ast
import bisect
import re
import copy
import warnings

from tensortypes.core.dims import Dim
from tensortypes.errors import AnnotationError
from tensortypes.types import ANY

from .annotations import read_annotation
from .annvalues import value_of
from .calls import CallMixin
from .defs import ClassInfo, implied_axes, int_params, shape_names, signature_names
from .diagnostics import CheckFailure, Diagnostic
from .expr import ExprMixin, label_of, read_keys
from .frame import Frame
from .indexing import IndexMixin
from .joins import join_all, strip_none
from .limits import MAX_DEPTH, prune_deep
from .modinfo import ModuleInfo
from .notes import ShapeNote, shape_origin
from .reduced import reduction_against
from .refine import RefineMixin
from .rules import pretrained
from .sources import parse_module
from .schema import SchemaMixin
from .signatures import SignatureMixin
from .sizes import size_symbol
from .statements import StatementMixin
from .suppress import unsuppressed
from .symbolic import (
    assigned_line,
    NONE,
    inputs,
    instance,
    operand_axes,
    UNKNOWN,
    Arr,
    Bcast,
    ClassV,
    InstV,
    IntV,
    ListV,
    NoneV,
    Rest,
    TupleV,
    UnionV,
    Unknown,
    Value,
    FloatV,
    anonymized,
    fmt_dim,
    fmt_shape,
    implied_rest,
    implied_size,
    list_length,
    own_rest,
)
from .typelang import class_type, describe

__all__ = ["Checker"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


class Checker(
    StatementMixin, RefineMixin, ExprMixin, IndexMixin, CallMixin, SignatureMixin, SchemaMixin
):
    """Check one module's source; :meth:`run` returns the diagnostics.

    >>> src = "import torch\\nx = torch.zeros(3, 4)\\ny = x @ torch.ones(5, 2)\\n"
    >>> [d.code for d in Checker(src, "m.py").run()]
    ['matmul']
    """

    def __init__(
        self,
        source: str,
        path: str = "<string>",
        strict: bool = False,
        record: dict | None = None,
        project=None,
    ):
        self.source = source
        self.source_lines: list | None = None  # split when a located note needs a column
        # When a dict: every evaluated expression node -> its value (the editor's hover).
        self.record = record
        self.tree: ast.Module | None = None
        self.path = path
        self.strict = strict
        self.project = project  # check.project.Project: imports followed across modules
        # id of another module's annotation node -> its ModuleInfo (shared by the project)
        self.owners: dict = project.owners if project is not None else {}
        if project is not None and project.reader is None:
            project.reader = type(self).reader
        self.diagnostics: dict = {}
        self.quiet = 0
        self.lambda_depth = 0  # lambdas being called (``check.calls.call_lambda``)
        self.lambda_budget = [0]  # what is left of their bound, shared with other walkers
        # While a callee's body is walked for a call (``inlined_call``): what fails in it.
        self.caught: list | None = None
        self.breaks: list = []  # per loop being walked: the states at its ``break``s
        self.scopes_of: dict = {}  # id of a class -> its scopes of size names (built_with)
        self.fields_of: dict = {}  # id of a class -> its dataclass fields (dataclass_fields)
        self.init_names_of: dict = {}  # id of a class -> its __init__'s parameters
        self.renamed_of: dict = {}  # id of a class -> its renamed attributes
        # The call whose result the statement drops (``with torch.no_grad():``,
        # ``nn.init.zeros_(w)``): its unknown result costs nothing, so no note.
        self.discarded = None
        self.last_ifexp = None  # (node, value if true, value if false) of the last IfExp
        self.last_if = None  # (node, branch frames) of the last if statement (exec_paths)
        self.path_budget = 1  # paths a block may be followed on (exec_paths; 1: joined)
        # ``i`` of an enclosing ``for i in range(n)`` -> (n, the loop's line)
        self.loop_bounds: dict = {}
        self.ann_types: dict = {}
        self.ann_values: dict = {}
        self.foreign_modules: dict = {}  # id of another module's FunctionInfo -> its module
        self.nested_classes: dict = {}  # id of a class nested in a class -> its ClassInfo
        self.field_tables: dict = {}  # (id of a class, field) -> schema.int_fields
        self.mros: dict = {}  # id of a class -> its resolution order (schema.mro)
        self.inlining = 0  # one-statement wrappers being evaluated at a call (a bound)
        # the walks one outermost call may make of its callees' bodies, nested ones
        # included (shared with the checkers of other modules it walks in)
        self.inline_budget = [0]
        self.unrolling = False  # a comprehension is evaluated item by item (not nested)
        self.module: ModuleInfo | None = None  # set by run(), before anything reads it

    # -- reporting ---------------------------------------------------------------------
    def report(self, node, code: str, message: str, notes=(), severity: str = "error"):
        if self.quiet:
            if self.caught is not None and severity == "error":
                # the lines the notes name as where an operand got its shape, kept for
                # an error a caller relays (``check.signatures.inlined_call``)
                made = tuple(
                    (n.line, n.name, n.shape)
                    for n in notes
                    if isinstance(n, ShapeNote) and n.line and n.name
                )
                self.caught.append((getattr(node, "lineno", 1), code, message, self.path, made))
            return
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + 1
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        d = Diagnostic(
            self.path,
            line,
            col,
            code,
            message,
            notes,
            severity,
            end_line,
            None if end_col is None else end_col + 1,
            self.shape_origins(notes, line),
        )
        self.diagnostics.setdefault(d.key(), d)

    def shape_origins(self, notes, line: int) -> tuple:
        """The located notes of an error at ``line``: one at each other line where an
        operand's shape was made (``notes.shape_origin``), in the order of the notes."""
        if not any(isinstance(note, ShapeNote) for note in notes):
            return ()
        if self.source_lines is None:
            self.source_lines = self.source.splitlines()
        found = []
        for note in notes:
            for located in shape_origin(note, line, self.source_lines):
                if located not in found:
                    found.append(located)
        return tuple(found)

    def fail(self, node, failure: CheckFailure, frame) -> None:
        notes = list(failure.notes)
        bound = self.symbol_notes(failure.message, frame)
        if bound:
            notes.append(bound)
        self.report(node, failure.code, failure.message, notes)

    def symbol_notes(self, text: str, frame) -> str:
        words = set(_IDENTIFIER.findall(text))
        found = [
            f"{name} from {frame.where[name]}" for name in sorted(words) if name in frame.where
        ]
        return ("sizes bound by: " + "; ".join(found)) if found else ""

    def with_notes(self, compute, operands, frame):
        try:
            with operand_axes([v for _, v in operands]):
                return compute()
        except CheckFailure as failure:
            raise self.noted(failure, operands, frame) from None

    def noted(self, failure: CheckFailure, operands, frame) -> CheckFailure:
        """``failure`` with a note on each operand (``(node, value)``): where an array
        got its shape, where an int variable was set."""
        notes = list(failure.notes)
        for node, value in operands:
            if node is None:
                continue
            if type(value) is IntV:
                text = self.number_note(node, value, frame)
                if text is None:
                    continue
            elif type(value) is Arr:
                text = self.value_note(node, value, frame, about=failure.message)
            else:
                continue
            if text not in notes:
                notes.append(text)
        return CheckFailure(failure.code, failure.message, notes)

    def assigned_note(self, node, what: str, frame) -> list:
        """A located note on the line that assigned variable ``node`` the value an
        error is about (``what``), when the function walked assigned it before."""
        made = _assigned_before(node, frame) if isinstance(node, ast.Name) else None
        if made is None:
            return []
        said = f"{node.id} is {what} here"
        return [
            ShapeNote(
                f"{node.id}: {what}, assigned at line {made}",
                0,
                node.id,
                what,
                sources=((made, said, node.id, "said"),),
            )
        ]

    def number_note(self, node, value, frame) -> str | None:
        """``seq: 3, assigned at line 4143``: an int variable given to a failed
        operation (``rearrange(x, p, n=seq)``), and the line of the function that set
        it, a located note there; None for another argument."""
        if type(node) is not ast.Name or value.dim is None:
            return None
        made = _assigned_before(node, frame)
        if made is None:
            return None
        said = f"{node.id} is {fmt_dim(value.dim)}"
        return ShapeNote(
            f"{node.id}: {fmt_dim(value.dim)}, assigned at line {made}",
            0,
            node.id,
            fmt_dim(value.dim),
            sources=((made, said, node.id, "number"),),
        )

    def value_note(
        self, node, value: Arr, frame, always: bool = True, about: str = ""
    ) -> str | None:
        """``x: f32[b,3](torch), assigned at line 4, its shape from line 2``: an operand
        of a failed operation and where it was made.

        The line is where the value's shape was made (``Arr.since``): a variable's
        own, or for an expression (``x[:, 0]``) that of the first variable it reads
        that carries a size the message ``about`` names (``div_term`` of
        ``sin(position * div_term)`` when ``d_model`` is the size that does not
        match), else of the first variable it reads.
        With ``always=False``, None unless the note names such a line.
        """
        text = f"{label_of(node)}: {value.describe()}"
        if value.origin:
            text += f", {value.origin}"
        here = getattr(node, "lineno", None)
        if isinstance(node, ast.Name):
            since = value.since
            sources = tuple(
                (line, fmt_shape(shape)) for line, shape in value.sources or () if line != here
            )
            assigned = assigned_line(value.origin)
            if (since is None or since == here) and not sources:
                if assigned is None or assigned == here:
                    return text if always else None
                # A shape kept from a parameter's (``blocked_mask.float()``): where the
                # variable was assigned it, and where an array of that shape it was made
                # from was assigned (``dist_breaks = dist_breaks.type(dtype)``, where a
                # pad was left out)
                return ShapeNote(
                    text,
                    0,
                    node.id,
                    fmt_shape(value.shape),
                    assigned,
                    self.kept_from(frame, assigned, node.id, value.shape),
                )
            shown = _made_line(frame, since)  # the line of the call that made it
            if since is not None and since != here and f"line {shown}" not in text:
                text = f"{text}, its shape from line {shown}"
            if sources:
                lines = " and ".join(f"{shape} at line {line}" for line, shape in sources)
                text = f"{text}, {'made from its value' if since else 'its shapes'} {lines}"
            if since is not None and since != here and frame is not None:
                hops = self.size_hops(frame, since, value.shape, about)
                if hops:
                    text += "".join(f", {said} at line {line}" for line, said, *_ in hops)
                    sources += hops
            return ShapeNote(
                text,
                shown if since is not None and since != here else 0,
                node.id,
                fmt_shape(value.shape),
                assigned,
                sources,
            )
        known = frame.vars if frame is not None else {}
        read = []
        for sub in ast.walk(node):
            if type(sub) is ast.Name and sub.id in known:
                found = known[sub.id]
                if type(found) is Arr and found.since is not None and found.since != here:
                    read.append((sub.id, found))
        if read:
            name, found = next((r for r in read if _names_a_size(r[1], about)), read[0])
            text = f"{text}, from {name}: {found.describe()}, its shape from line {found.since}"
            hops = self.size_hops(frame, found.since, found.shape)
            text += "".join(f", {said} at line {line}" for line, said, *_ in hops)
            return ShapeNote(text, found.since, name, fmt_shape(found.shape), sources=hops)
        return text if always else None

    def kept_from(self, frame, line: int, name: str, shape) -> tuple:
        """``((line, text, name, "array"),)`` for the array variable of the same shape
        that the statement at ``line`` reads, when the function assigned it above that
        line (a shape kept from a parameter's through that assignment); else ()."""
        func = frame.func.node if frame is not None and frame.func is not None else None
        if func is None or shape is None:
            return ()
        assigns, assigned = _assignments(func)
        stmt = assigns.get(line)
        if stmt is None or stmt.value is None:
            return ()
        for sub in ast.walk(stmt.value):
            if type(sub) is not ast.Name or sub.id == name or type(sub.ctx) is not ast.Load:
                continue
            other = frame.vars.get(sub.id)
            if type(other) is not Arr or other.shape != shape:
                continue
            made = _last_assignment(assigned, sub.id, line)
            if made is not None:
                return ((made, f"{sub.id} is {fmt_shape(shape)}", sub.id, "array"),)
        return ()

    def size_hops(self, frame, line: int, shape, about: str = "") -> tuple:
        """Where the int and float variables that set a shape were computed:
        ``((line, text, name), ...)`` for the statement at ``line`` that made the
        shape (``centres = torch.arange(0.5 * w, 1.0, w)``), then for the statements
        those variables came from (``w = 1.0 / n_bins``, ``n_bins = x.shape[1]``),
        each a variable whose value is one of the shape's sizes (a size of the shape
        or a number over one). At most six steps, in the function being walked.
        """
        func = frame.func.node if frame.func is not None else None
        if func is None or shape is None:
            return ()
        wanted: set = set()
        for d in shape:
            if type(d) is Dim:
                wanted |= d.free_symbols
        # a size the statement was given as a constant int variable (``n =
        # ids.shape[0]`` of ``Int[Tensor, "1 n"]`` is 1, ``torch.full((n, n), ...)``)
        assigns, assigned = _assignments(func)
        given = _size_arguments(assigns.get(line))
        constants = {d for d in shape if type(d) is Dim and d.is_constant}
        if not wanted and not (given and constants):
            return ()
        # sizes computed in the function (``n//2``), not a parameter's own: an array
        # variable the statement reads that has one made it (``out = einx.add(...,
        # single_i, single_j)`` of pieces ``(b, n//2, d)`` chunked a line before)
        made_sizes = {
            d
            for d in shape
            if type(d) is Dim and not d.is_constant and not (d.is_symbol and str(d) in frame.where)
        }
        found: list = []
        todo = [(line, made_sizes)]
        seen = {line}
        while todo and len(found) < _HOPS:
            at, made_here = todo.pop(0)
            stmt = assigns.get(at)
            if stmt is None or stmt.value is None:
                continue
            # an array read here made one of these sizes, or a term of one (the
            # ``2*s_max+1`` one-hot packed into ``4*r_max+2*s_max+6`` features)
            symbols = set().union(*(d.free_symbols for d in made_here))
            for sub in ast.walk(stmt.value):
                if type(sub) is not ast.Name or type(sub.ctx) is not ast.Load:
                    continue
                number = frame.vars.get(sub.id)
                after = made_here
                if type(number) is Arr:
                    if number.shape is None:
                        continue
                    after = {
                        d
                        for d in number.shape
                        if type(d) is Dim
                        and not d.is_constant
                        and not (d.is_symbol and str(d) in frame.where)
                        and (d in made_here or d.free_symbols & symbols)
                    }
                    if not after:
                        continue
                    said = (
                        # ``m = F.pad(m, ...)``: the value it reads is not the one it has now
                        f"the {sub.id} line {at} reads is assigned"
                        if sub.id in _target_names(stmt)
                        else f"{sub.id} is {fmt_shape(number.shape)}"
                    )
                    hop: tuple = (said, sub.id, "array")
                elif (
                    at == line
                    and sub.id in given
                    and type(number) is IntV
                    and number.dim in constants
                ):
                    hop = (f"{sub.id} is {fmt_dim(number.dim)}", sub.id)
                else:
                    size = _size_of_number(number)
                    if size is None or not size.free_symbols & wanted:
                        continue
                    said = (
                        f"{sub.id} is {fmt_dim(size)}"
                        if type(number) is IntV
                        else f"{sub.id} is a number over {fmt_dim(size)}"
                    )
                    hop = (said, sub.id)
                made = _last_assignment(assigned, sub.id, at)
                if made is None or made in seen:
                    continue
                seen.add(made)
                found.append((made, *hop))
                todo.append((made, after))
        named = {d for d in shape if type(d) is Dim and d.is_symbol and str(d) in frame.where}
        if named and len(found) < _HOPS:
            renamed = _renamed_hops(frame, line, named, assigns, assigned, seen)
            # a parameter's size the message is about, where another was expected:
            # the arrays that carried it from the parameter it was read from
            named = {d for d in named if _says_size(d, about)}
            found.extend(renamed or _carried_hops(frame, line, named, assigns, assigned, seen))
        return tuple(found)

    def gave_up(self, node, message: str) -> None:
        if self.strict:
            self.report(node, "unchecked", message, severity="note")

    def check_optional(self, value, node, frame):
        """A value that may be None used where None fails: report, then use the rest."""
        if type(value) is UnionV and any(type(v) is NoneV for v in value.items):
            rest = strip_none(value)
            if (
                type(rest) is not Unknown
                and frame is not None
                and frame.flags
                and not read_keys(node) & frame.flags
            ):
                self.gave_up(
                    node,
                    f"{label_of(node)} may be None, unless a condition on "
                    f"this path rules it out (not followed): not reported",
                )
            elif type(rest) is not Unknown:
                self.report(
                    node,
                    "optional",
                    f"{label_of(node)} may be None here "
                    f"({describe(value)}); check 'is not None' "
                    f"first",
                )
            return rest
        return value

    # -- the module ------------------------------------------------------------------------
    def run(self) -> list:
        source = self.source[1:] if self.source.startswith("\ufeff") else self.source
        try:
            with warnings.catch_warnings():
                # Python's own warnings about the checked code ("invalid escape
                # sequence", "invalid decimal literal") are not ours to print.
                warnings.simplefilter("ignore", SyntaxWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                shared = self.project.take_tree(self.path, source) if self.project else None
                tree, newer = shared or parse_module(source, filename=self.path)
        except SyntaxError as error:
            self.report(
                _Pos(error.lineno or 1, (error.offset or 1) - 1),
                "syntax",
                error.msg
                if error.msg.startswith("invalid syntax")
                else f"invalid syntax: {error.msg}",
            )
            return self.result()
        except (RecursionError, MemoryError) as error:
            # Python's own parser gives up on it too: the module cannot be compiled.
            self.report(
                _Pos(1, 0),
                "syntax",
                f"Python cannot parse this module: it is nested "
                f"too deeply ({type(error).__name__})",
            )
            return self.result()
        except ValueError as error:  # NUL bytes on some Python versions
            self.report(_Pos(1, 0), "syntax", f"invalid source: {error}")
            return self.result()
        if newer:
            self.gave_up(
                _Pos(1, 0),
                "this module uses the syntax of Python 3.12 (type parameters, type "
                "statements, f-strings), which this Python cannot parse: it is read with "
                "those parts written out, and type parameters are unknown",
            )
        for line, col in dict(prune_deep(tree, source=source)).items():  # one note per line
            self.gave_up(
                _Pos(line, col),
                f"expression nested more than {MAX_DEPTH} levels "
                f"deep: the rest of it is not checked",
            )
        self.tree = tree
        self.module = ModuleInfo(tree, self.project, self.path if self.project else None)
        for line, name in self.module.unresolved:
            self.gave_up(
                _Pos(line, 0),
                f"import of {name} not resolved in the project: the names it gives are unknown",
            )
        for info in self.module.classes.values():
            class_type(info, self.module)
        for info in self.module.classes.values():
            self.ensure_schema(info)
            for method in info.methods.values():
                if method.name != "__init__":
                    self.check_function(method)
        for info in self.module.functions.values():
            self.check_function(info)
        frame = Frame()
        body = [
            s
            for s in tree.body
            if not isinstance(
                s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
            )
        ]
        self.exec_block(body, frame)
        return self.result()

    def result(self) -> list:
        """The diagnostics by position, without the errors the source says to ignore."""
        found = unsuppressed(self.diagnostics.values(), self.source)
        return sorted(found, key=lambda d: (d.line, d.col, d.code))

    def owner_of(self, node):
        """The module an annotation node is read in: the other module that holds it
        (``self.owners``), else this one. A node of this module's own tree that another
        module's reading met first (the tree is parsed once, ``Project.take_tree``) is
        read here, with this module's classes."""
        found = self.owners.get(id(node))
        if found is None or (found.name, found.local) == (self.module.name, self.module.local):
            return self.module
        return found

    def annotation_type(self, node):
        """The lattice type of an annotation node (cached; ``Any`` if unreadable)."""
        found = self.ann_types.get(id(node))
        if found is None:
            try:
                found = read_annotation(node, self.owner_of(node))
            except AnnotationError as error:
                notes = str(error).split("\n")[1:] if error.text is not None else []
                self.report(
                    node,
                    "annotation",
                    f"bad annotation: {error.message}",
                    [line for line in notes if line.strip()],
                )
                found = ANY
            except (ValueError, ArithmeticError, RecursionError) as error:
                # A limit of the parser under the annotation (digits, nesting): the
                # annotation is still what is wrong, and the user's to fix.
                self.report(node, "annotation", f"bad annotation: {error}")
                found = ANY
            if found is ANY and "[" in label_of(node):
                head = node
                while isinstance(head, ast.Subscript):
                    head = head.value
                owner = self.owner_of(node)
                if (
                    isinstance(head, ast.Name)
                    and owner.path_of(head) is None
                    and head.id not in owner.classes
                    and owner.alias_annotation(head.id) is None
                ):
                    self.gave_up(
                        node,
                        f"annotation {label_of(node)} names {head.id}, which "
                        f"is not resolved; values of this type are unchecked",
                    )
                else:
                    self.gave_up(
                        node,
                        f"annotation {label_of(node)} is not understood; "
                        f"values of this type are unchecked",
                    )
            self.ann_types[id(node)] = found
        return found

    def annotation_value(self, node, frame=None):
        """The value an annotation gives a parameter or an attribute (cached)."""
        found = self.ann_values.get(id(node))
        if found is None:
            owner = self.owner_of(node)
            found = value_of(self.annotation_type(node), owner)
            if found is UNKNOWN and isinstance(node, (ast.Name, ast.Attribute)):
                # ``pipe: StableDiffusionPipeline``, ``vae: AutoencoderKL``: a library
                # model the checker knows by hand
                path = owner.path_of(node)
                found = (pretrained.made_by(path) if path else None) or UNKNOWN
            self.ann_values[id(node)] = found
        return found

    # -- classes and functions ----------------------------------------------------------------
    def check_function(self, info, building=None):
        if info.inferred is not None or info.checking:
            return info.inferred
        info.checking = True
        saved, self.quiet = self.quiet, 0
        # a body walked while another function's is (its result asked for by a call):
        # the caller's loops and paths are not its own
        outer = self.loop_bounds, self.path_budget
        self.loop_bounds, self.path_budget = {}, 1
        try:
            frame = Frame(info, building)
            if info.cls is not None and building is None:
                frame.facts = info.cls.facts
            self.bind_params(info, frame)
            built = self.built_with(info) if building is None else ()
            renamed = self.renamed_attributes(info) if built else frozenset()
            given = self.dataclass_fields(info.cls) if built else frozenset()
            signature = signature_names(info, self.declared_annotations, self.own_declared(info))
            if id(info.node) in self.module.generators:
                with inputs(frame.where, signature), instance(built, renamed, given):
                    self.exec_block(info.node.body, frame)
                info.inferred = UNKNOWN
                return UNKNOWN
            with inputs(frame.where, signature), instance(built, renamed, given):
                end = self.exec_paths(info.node.body, frame, _PATHS)
            if building is not None:
                building.facts = end.facts
                if not end.terminated and info.params:
                    self.settle_schema(building, info.params[0][0], end)
            values = [v for v, _ in frame.returns]
            if not end.terminated and values:
                values.append(NONE)
            # No return statement: a procedure, or a body that ends in a call that always
            # raises (a NoReturn helper); its calls give nothing known.
            found = join_all(values) if values else UNKNOWN
            if type(found) is UnionV:
                # Returns that disagree (None on one path, an int on another): without
                # an annotation the author's intent is unknown, so the result fits
                # anything, as an unannotated function's does for mypy.
                found = UNKNOWN
            found = anonymized(found)  # its parameters' ``...`` are plain outside it
            info.inferred = found
            return found
        finally:
            self.quiet = saved
            self.loop_bounds, self.path_budget = outer
            info.checking = False

    def built_with(self, info) -> tuple:
        """The scopes of the names of sizes an instance of the class of method ``info`` is
        built with (``symbolic.instance``), one per checked class of its resolution
        order: the parameters of its ``__init__``, and the names in the shapes of their
        annotations and of its declared attributes. No scope for a function, a static
        method or ``__init__``."""
        cls = info.cls
        if cls is None or info.name == "__init__" or info.is_static:
            return ()
        found = self.scopes_of.get(id(cls))
        if found is not None:
            return found
        scopes = []
        for c in self.mro(cls):
            names: set = set()
            init = c.methods.get("__init__")
            notes = list(c.declared.values())
            if init is not None:
                names.update(p[0] for p in init.params[1:])
                notes += [p[1] for p in init.params[1:] if p[1] is not None]
            names |= shape_names(*notes)
            scopes.append(frozenset(names))
        found = self.scopes_of[id(cls)] = tuple(scopes)
        return found

    def init_names(self, cls) -> frozenset:
        """The parameters of the ``__init__`` of each class of ``cls``'s resolution order
        (a dataclass's fields), ``self`` aside."""
        found = self.init_names_of.get(id(cls))
        if found is None:
            names: set = set(self.dataclass_fields(cls))
            for c in self.mro(cls):
                init = c.methods.get("__init__")
                if init is not None:
                    names.update(p[0] for p in init.params[1:] if p[3] in ("positional", "keyword"))
            found = self.init_names_of[id(cls)] = frozenset(names)
        return found

    def assignment_line(self, frame, name: str, before: int) -> int | None:
        """The line of the walked function's last plain assignment of ``name`` above
        line ``before``, or None."""
        if frame.func is None:
            return None
        return _last_assignment(_assignments(frame.func.node)[1], name, before)

    def against_reduction(self, left, right, line: int, frame, library: bool) -> None:
        """An error when one operand of a broadcasting operation at ``line`` is the
        other reduced without keepdim, its axes out of line with the other's whatever
        the rank, both of unknown rank (``check.reduced``); with ``library``, only by
        a library's function or after a new axis."""
        if frame.func is None or self.module is None:
            return
        assigns, lines = _assignments(frame.func.node)

        def assigned(name, before):
            stmt = assigns.get(_last_assignment(lines, name, before))
            if type(stmt) is ast.Assign and len(stmt.targets) == 1:
                target = stmt.targets[0]
            elif type(stmt) is ast.AnnAssign and stmt.value is not None:
                target = stmt.target
            else:
                return None
            return (stmt.value, stmt.lineno) if type(target) is ast.Name else None

        found = reduction_against(
            left,
            right,
            line,
            self.module.path_of,
            assigned,
            lambda name, before: _last_assignment(lines, name, before),
            library,
            lambda name: type(frame.vars.get(name)) in (IntV, FloatV),
            lambda node: _kind_of(self.peek(node, frame)),
        )
        if found is None:
            return
        root, (p, q), reduced, at, done = found
        said = f"{label_of(reduced)} comes from {root} {done}"
        notes: tuple = ()
        if at != line:
            notes = (
                ShapeNote(
                    f"{said} (line {at})",
                    0,
                    label_of(reduced),
                    "",
                    sources=((at, f"{root} is {done} here", root, "said"),),
                ),
            )
        raise CheckFailure(
            "broadcast",
            f"cannot broadcast {label_of(left)} with {label_of(right)}: {said}, so "
            f"broadcasting lines axis {p} of {root} up with its axis {q}, whatever the "
            f"rank: it fails unless they are of one size, and is wrong if they are "
            f"(keepdim=True keeps the reduced axis in place)",
            notes,
        )

    def own_declared(self, info):
        """For a method that takes ``self``: how to find the annotations of the
        attributes its class declares (through its resolution order); else ()."""
        cls = info.cls
        if (
            cls is None
            or info.is_static
            or "classmethod" in info.decorators
            or not info.params
            or info.params[0][1] is not None
        ):
            return ()
        return lambda: [a for c in self.mro(cls) for a in c.declared.values()]

    def declared_annotations(self, annotation) -> list:
        """The annotations of the attributes the checked classes named in ``annotation``
        (``Info``, ``Info | None``) declare, through their resolution orders."""
        out: list = []
        for node in ast.walk(annotation):
            if type(node) is not ast.Name and type(node) is not ast.Attribute:
                continue
            target = self.class_target(node)
            if type(target) is ClassInfo:
                for c in self.mro(target):
                    out.extend(c.declared.values())
        return out

    def dataclass_fields(self, cls) -> frozenset:
        """The fields of the dataclasses (with no ``__init__`` of their own) of ``cls``'s
        resolution order. Such a name in a method's own annotations, where its
        parameters leave it free, is that field's size (``symbolic.instance_names``).
        Not the parameters of a module's ``__init__``: its ``forward`` runs layers built
        in a loop or by a factory, whose widths the checker may not see, and a shape
        kept past them (a loop of ``x = layer(x)`` that might not run) would meet
        ``out_dim``."""
        found = self.fields_of.get(id(cls))
        if found is None:
            names: set = set()
            for c in self.mro(cls):
                if c.is_dataclass and "__init__" not in c.methods:
                    names.update(f.target.id for f in c.fields)
            found = self.fields_of[id(cls)] = frozenset(names)
        return found

    def renamed_attributes(self, info) -> frozenset:
        """The attributes the ``__init__`` of the classes of method ``info``'s resolution
        order set to anything but the field of the same name (``self.rotary_dim =
        self.head_dim``, not ``self.n_head = config.n_head``)."""
        cls = info.cls
        found = self.renamed_of.get(id(cls))
        if found is not None:
            return found
        names: set = set()
        for c in self.mro(cls):
            init = c.methods.get("__init__")
            if init is None or not init.params:
                continue
            me = init.params[0][0]
            for node in ast.walk(init.node):
                if not isinstance(node, ast.Assign):
                    continue
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == me
                        and _copied_name(node.value) != target.attr
                    ):
                        names.add(target.attr)
        found = self.renamed_of[id(cls)] = frozenset(names)
        return found

    def foreign_function(self, path: str):
        """Another project module's function a canonical ``path`` names, or None.

        Its annotations are read in its own module (``self.owners``); its body is
        walked only when that module is checked, so an unannotated result is unknown.
        """
        if self.project is None or self.module is None:
            return None
        found = self.project.function(
            self.project.canonical(path, self.module.local), self.module.local
        )
        if found is None:
            return None
        info, owner = found
        self.foreign_modules[id(info)] = owner
        for _, ann, _, _ in info.params:
            if ann is not None:
                self.owners[id(ann)] = owner
        for ann in (info.returns, *info.overloads):
            if ann is not None:
                self.owners[id(ann)] = owner
        return info

    def foreign_class(self, path: str):
        """Another project module's class a ``path`` names (its ``ClassInfo``), or None
        (``check.project.Project.foreign_class``)."""
        if self.project is None or self.module is None:
            return None
        return self.project.foreign_class(
            self.project.canonical(path, self.module.local), self.module.local
        )

    @classmethod
    def reader(cls, file, project, module, classes):
        """A quiet checker of ``file`` that reads its classes for other modules.

        ``module`` is the project's first pass of it (functions with unknown
        results unless annotated) and ``classes`` the classes taken out of it.
        """
        walker = cls("", str(file), project=project)
        walker.quiet = 1  # its own check reports what is wrong in it
        walker.module = copy.copy(module)
        walker.module.classes = classes
        walker.module.by_type = dict(module.by_type)
        for info in classes.values():
            info.walker = walker
            class_type(info, walker.module)
            for method in info.methods.values():
                if method.name != "__init__":
                    method.inferred = UNKNOWN
        return walker

    def bind_params(self, info, frame: Frame) -> None:
        line = info.node.lineno
        for index, (name, ann, default, kind) in enumerate(info.params):
            if index == 0 and info.cls is not None and not info.is_static and kind == "positional":
                implicit = info.name in ("__new__", "__init_subclass__", "__class_getitem__")
                frame.vars[name] = (
                    ClassV(info.cls)
                    if "classmethod" in info.decorators or implicit
                    else InstV(info.cls)
                )
                continue
            if kind in ("star", "starstar"):
                frame.vars[name] = UNKNOWN
                continue
            value: Value
            if ann is None:
                if (isinstance(default, ast.Constant) and type(default.value) is int) or (
                    default is None and info.name == "__init__" and name in int_params(info.node)
                ):
                    # ``heads = 8``, or a constructor's ``dim`` that its body gives to
                    # ``nn.Linear``: a size of the instance
                    value = self.size_param(name, frame, line)
                elif isinstance(default, ast.Constant) and type(default.value) is float:
                    value = FloatV()  # ``sigma_data = 0.5``: a float, whatever its value
                elif default is None and (axes := implied_axes(info.node, name)):
                    # ``tv_loss(x)`` reading ``x.size()[3]``: a torch tensor with at
                    # least that many axes, each a size of its own
                    value = Arr(
                        "torch",
                        None,
                        (
                            *(implied_size(name, k, info.qualname) for k in range(axes)),
                            implied_rest(f"{info.qualname}.{name}"),
                        ),
                    )
                else:
                    value = UNKNOWN
                frame.vars[name] = value
                continue
            value = self.annotation_value(ann, frame)
            if type(value) is IntV:
                value = self.size_param(name, frame, line)
            else:
                value = _owning(value, own_rest(f"{info.qualname}.{name}"))
            for arr in _arrays(value):
                shape = arr.shape or ()
                cut = next((i for i, d in enumerate(shape) if type(d) is Rest), None)
                for axis, d in enumerate(shape):
                    d = d.dim if type(d) is Bcast else d
                    # Axes after a ``*rest`` are counted from the end: the last is -1.
                    where = axis if cut is None or axis < cut else axis - len(shape)
                    if type(d) is Dim and d.is_symbol:
                        frame.where.setdefault(d.name, f"{name} axis {where} (line {line})")
                    elif type(d) is Rest and not d.anonymous:
                        frame.where.setdefault("*" + d.name, f"{name} (line {line})")
            if type(value) is Arr:
                value = value.with_(origin=f"parameter at line {line}")
            elif type(value) is ListV and value.kind == "list" and value.items is None:
                # ``names: list[str]``: a length of its own (``len(names)``)
                value = ListV(None, value.elem, "list", list_length(name, info.qualname))
            if (
                isinstance(default, ast.Constant)
                and default.value is None
                and type(value) not in (UnionV, NoneV)
            ):
                value = UnionV((NONE, value))
            frame.vars[name] = value

    @staticmethod
    def size_param(name: str, frame: Frame, line: int) -> IntV:
        """An int parameter: the size its name stands for (``d_in``), bound here."""
        symbol = size_symbol(name)
        if symbol is not None:
            frame.where.setdefault(name, f"parameter {name} (line {line})")
        return IntV(symbol)

    def inferred_return(self, info):
        if info.inferred is None:
            self.check_function(info, building=None)
        return info.inferred if info.inferred is not None else UNKNOWN


_PATHS = 4  # paths a function's body is walked on at most (see exec_paths)
_HOPS = 6  # statements the notes of one operand follow back (see size_hops)


def _names_a_size(value: Arr, message: str) -> bool:
    """Whether ``message`` names one of the symbolic sizes of ``value``'s shape as a
    word (``d_model`` in ``sizes (d_model+1)//2 and d_model``), after the operands
    it names (:func:`_says_size`)."""
    return value.shape is not None and any(
        type(d) is Dim and d.value is None and _says_size(d, message) for d in value.shape
    )


def _assigned_before(node, frame) -> int | None:
    """The line of the walked function that last assigned variable ``node`` before
    it is read, or None (none, or the same line)."""
    func = frame.func.node if frame is not None and frame.func is not None else None
    if func is None:
        return None
    made = _last_assignment(_assignments(func)[1], node.id, node.lineno)
    return None if made == node.lineno else made


def _says_size(d: Dim, message: str) -> bool:
    """Whether ``message`` names size ``d`` as a word, in what it says of the operands
    it names (after its first ``": "``: ``cannot broadcast a (n, m) with b (n, k):
    axis -1 has sizes m and k``), when it says something of them."""
    message = message.partition(": ")[2] or message
    return (
        bool(message)
        and re.search(rf"(?<![\w.]){re.escape(fmt_dim(d))}(?![\w.])", message) is not None
    )


def _carried_hops(frame, line: int, named: set, assigns, assigned, seen) -> list:
    """The hops through the arrays that carry a parameter's size to the statement at
    ``line``, back to the one that made an array of it from the parameter
    (``total_lens = lens.sum(dim=0)`` of ``lens: "b n"``, then ``mask =
    lens_to_mask(total_lens)``): where the size took the place the error finds it in.
    Empty when no such chain of at most four arrays is found."""
    if not named:
        return []
    params = {p[0] for p in frame.func.params}
    for name, value, made, path in _read_back(frame, line, named, assigns, assigned, seen):
        if made is None and path and name in params and _carries(value, named):
            return path  # read from the parameter itself
    return []


def _renamed_hops(frame, line: int, named: set, assigns, assigned, seen) -> list:
    """The hops to an int variable that holds a parameter's size under another name
    (``t`` of ``_b, t = idx.size()`` is ``batch``), through the arrays that carry
    that size from it to the statement at ``line`` (``pos = torch.arange(0, t)``,
    then ``pos_emb = self.wpe(pos)``): where a size reached a shape under a name
    that is not its own, the usual place of a swapped unpacking. Empty when no such
    variable is found within four statements."""
    for name, value, made, path in _read_back(frame, line, named, assigns, assigned, seen):
        if (
            made is not None
            and type(value) is IntV
            and value.dim in named
            and str(value.dim) != name
        ):
            return [*path, (made, f"{name} is {fmt_dim(value.dim)}", name)]
    return []


def _carries(value, named: set) -> bool:
    """Whether ``value`` is an array with one of the sizes ``named`` among its axes."""
    return type(value) is Arr and value.shape is not None and bool(named & set(value.shape))


def _read_back(frame, line: int, named: set, assigns, assigned, seen):
    """``(name, value, line assigned or None, hops to there)`` for each variable read by
    the statement at ``line`` and, breadth first, by the statements that assigned
    the arrays among them that carry one of the sizes ``named`` (at most four deep,
    each statement once; ``seen``: lines already named)."""
    todo: list = [(line, [])]
    visited = set(seen)
    while todo:
        at, path = todo.pop(0)
        stmt = assigns.get(at)
        if stmt is None or stmt.value is None or len(path) >= 4:
            continue
        for sub in ast.walk(stmt.value):
            if type(sub) is not ast.Name or type(sub.ctx) is not ast.Load:
                continue
            value = frame.vars.get(sub.id)
            made = _last_assignment(assigned, sub.id, at)
            if made is not None and made in visited:
                continue
            yield sub.id, value, made, path
            if made is not None and _carries(value, named):
                visited.add(made)
                said = f"{sub.id} is {fmt_shape(value.shape)}"
                todo.append((made, [*path, (made, said, sub.id, "array")]))


class _Pos:
    __slots__ = ("lineno", "col_offset")

    def __init__(self, line, col):
        self.lineno, self.col_offset = line, col


def _owning(value, own: Rest):
    """A parameter's value with its ``...`` made its own (``symbolic.own_rest``): of an
    array, or of each array of a union (``Float[Tensor, "... 3"] | None``)."""
    if type(value) is UnionV:
        return UnionV(tuple(_owning(v, own) for v in value.items))
    if type(value) is Arr and value.shape is not None and Rest(None) in value.shape:
        return value.with_(shape=tuple(own if d is Rest(None) else d for d in value.shape))
    return value


def _arrays(value):
    if type(value) is Arr:
        return [value]
    if type(value) in (UnionV, TupleV):
        return [v for v in value.items if type(v) is Arr]
    return []


def _copied_name(node) -> str | None:
    """``n_head`` of ``config.n_head`` or ``n_head``: the name a value copies, or None."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _size_arguments(stmt) -> set:
    """The names a statement gives a call as sizes: its positional arguments (also in
    a tuple or list, starred, or in arithmetic) and ``size=``/``shape=``; not
    ``dim=``, ``fill_value=`` and the like."""
    value = getattr(stmt, "value", None)
    if value is None:
        return set()
    found: set = set()
    for call in ast.walk(value):
        if type(call) is not ast.Call:
            continue
        todo = list(call.args)
        todo.extend(k.value for k in call.keywords if k.arg in ("size", "shape"))
        while todo:
            node = todo.pop()
            if type(node) is ast.Name:
                found.add(node.id)
            elif isinstance(node, (ast.Tuple, ast.List)):
                todo.extend(node.elts)
            elif type(node) is ast.Starred:
                todo.append(node.value)
            elif type(node) is ast.BinOp:
                todo.extend((node.left, node.right))
    return found


def _size_of_number(value) -> Dim | None:
    """The size an int stands for, or the size a float is a number over (``1.0 / n``)."""
    if type(value) is IntV and type(value.dim) is Dim and not value.dim.is_constant:
        return value.dim
    if type(value) is FloatV and value.value is not None and value.value[2] is not None:
        return value.value[2]
    return None


def _made_line(frame, since):
    """The line of the statement at line ``since`` where its last call is written:
    ``.reshape(3, -1)`` ending a chain that spans lines 42 to 44 is at line 44."""
    func = frame.func.node if frame is not None and frame.func is not None else None
    if since is None or func is None:
        return since
    stmt = _assignments(func)[0].get(since)
    call = getattr(stmt, "value", None)
    if type(call) is ast.Call and type(call.func) is ast.Attribute:
        end = call.func.end_lineno
        if end is not None and end > since:
            return end
    return since


def _target_names(stmt) -> set:
    """The plain names an assignment statement binds."""
    targets = stmt.targets if type(stmt) is ast.Assign else [stmt.target]
    found = set()
    for t in targets:
        for n in [t] if type(t) is ast.Name else (t.elts if type(t) is ast.Tuple else []):
            if type(n) is ast.Name:
                found.add(n.id)
    return found


def _assignments(func) -> tuple:
    """The assignments of a function's own body (not nested functions): by first line,
    and each plain name's assignment lines in order; found once per syntax tree (a note
    of every error of a long function reads them)."""
    found = getattr(func, "_tt_assignments", None)
    if found is None:
        found = _collect_assignments(func)
        setattr(func, "_tt_assignments", found)  # noqa: B010 (an attribute ast does not declare)
    return found


def _collect_assignments(func) -> tuple:
    at: dict = {}
    lines: dict = {}
    todo = list(func.body)
    while todo:
        stmt = todo.pop()
        if type(stmt) in (ast.Assign, ast.AnnAssign, ast.AugAssign):
            at[stmt.lineno] = stmt
            for name in _target_names(stmt):
                lines.setdefault(name, []).append(stmt.lineno)
        elif type(stmt) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                todo.extend(getattr(stmt, field, ()))
    for found in lines.values():
        found.sort()
    return at, lines


def _kind_of(value) -> str | None:
    """The array library of a value (``"numpy"``, ``"torch"``), or None."""
    return value.kind if type(value) is Arr else None


def _last_assignment(lines: dict, name: str, before: int) -> int | None:
    """The line of the last plain assignment of ``name`` above line ``before``."""
    found = lines.get(name)
    if not found:
        return None
    i = bisect.bisect_left(found, before)
    return found[i - 1] if i else None
