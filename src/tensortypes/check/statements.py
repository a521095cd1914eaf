"""Statements: assignment, returns and control flow (layer 6: ``check``).

:class:`StatementMixin` is the part of the walker that executes statements
over a :class:`~.frame.Frame`, applying TorchScript's rules where a statement
binds a value:

- assignment: an annotated assignment (``y: Float[Tensor, "b"] = ...``,
  ``self.count: int = 0``) checks its value and declares the name's type, so
  every later assignment to that local or attribute is checked too (``assign``
  code); tuple unpacking of a known length (``b, c, h, w = x.shape`` of a
  rank-3 array is a ``rank`` error); subscript assignment must broadcast; an
  in-place update keeps the target's shape and dtype;
- return types: each ``return`` against the return annotation, with the
  function's own size names (a generator's ``return`` ends iteration and is
  not checked);
- control-flow joins: each branch of an ``if``/``try`` walks its own copy of
  the frame and the copies are joined (``check.frame.join_frames``); a branch
  that returns or raises does not reach the join; loops are walked until their
  variables settle (twice, the first walk silent).
"""

from __future__ import annotations

import ast

from tensortypes.core.dims import Dim
from tensortypes.errors import AnnotationError
from tensortypes.types import ArrayType, DictType, UnionType

from .host import CheckerHost
from .binding import Binder
from .defs import FunctionInfo, shape_of
from .diagnostics import CheckFailure
from .expr import attr_key, label_of, read_keys
from .frame import forget_guards, join_frames, valid_guard
from .indexing import index_array
from .joins import element_of, join_values, length_of
from .refine import flag_of, may_be_none, rank_owner
from .rules import dtype_object
from .rules import shapefns as sf
from .rules.base import int_const, is_float, is_int
from .sizes import agree, drain_unsure, size_symbol
from .symbolic import (
    NONE,
    UNKNOWN,
    Arr,
    Bcast,
    BoolV,
    FloatV,
    instance_names,
    laid_out_together,
    is_one,
    DictV,
    DTypeV,
    FuncV,
    InstV,
    IntV,
    ListV,
    NoneV,
    Ref,
    Rest,
    ShapeV,
    TupleV,
    UnionV,
    fmt_dim,
    fmt_dtypes,
    fmt_shape,
    pattern_names,
    unpacked_size,
)

__all__ = ["StatementMixin"]


def forget_items(frame, base: str | None) -> None:
    """Drop what refinement knew of ``base[...]`` (``base`` was assigned, or an item of it)."""
    if base is None:
        return
    prefix = base + "["
    for key in [k for k in frame.vars if k.startswith(prefix)]:
        del frame.vars[key]


class StatementMixin(CheckerHost):
    """Statement execution for the walker (needs ``eval``, ``narrow``, ``check_binding``)."""

    def exec_block(self, body, frame):
        if self.path_budget > 1:
            return self.exec_paths(body, frame, self.path_budget)
        for stmt in body:
            if frame.terminated:
                break
            frame = self.exec_stmt(stmt, frame)
        return frame

    def exec_paths(self, body, frame, paths: int):
        """``exec_block`` of a function's body, where an ``if`` whose branches leave an
        array of two layouts (``text_embeddings`` of ``(B, N, Nf)`` on one branch and
        ``(B*N, Nf)`` on the other) is followed on each branch to the end of its block
        (of the body, or of a loop's, a ``with``'s or a branch's body, which
        ``exec_block`` walks so within a function): what the rest of the block does
        fails on one of them, which their join (``(..., Nf)``) would hide. So is a
        ``match`` whose cases do. At most ``paths`` paths; past that (a ``match`` of
        more live cases than that, too), branches meet as usual."""
        outer, self.path_budget = self.path_budget, paths
        try:
            for i, stmt in enumerate(body):
                if frame.terminated:
                    break
                if paths > 1 and type(stmt) in (ast.If, ast.Match) and i + 1 < len(body):
                    self.last_if = None
                    joined = self.exec_stmt(stmt, frame)
                    found = self.last_if
                    tested = stmt.test if type(stmt) is ast.If else stmt.subject
                    if (
                        found is not None
                        and found[0] is stmt
                        and len(found) - 1 <= paths  # a match of many cases: joined
                        and _layouts_differ(*found[1:])
                        and not _tested_again(tested, body[i + 1 :])
                    ):
                        ends = []
                        share = paths // (len(found) - 1)
                        for branch in found[1:]:
                            branch.flags = frame.flags
                            ends.append(self.exec_paths(body[i + 1 :], branch, share))
                        live = [e for e in ends if not e.terminated]
                        if not live:
                            return ends[0]
                        out = live[0]
                        for other in live[1:]:
                            out = join_frames(out, other)
                        return out
                    frame = joined
                    continue
                frame = self.exec_stmt(stmt, frame)
            return frame
        finally:
            self.path_budget = outer

    def exec_stmt(self, stmt, frame):
        method = getattr(self, "s_" + type(stmt).__name__, None)
        if method is None:
            return frame
        try:
            return method(stmt, frame)
        except CheckFailure as failure:
            self.fail(stmt, failure, frame)
            return frame
        except AnnotationError as error:
            # A size the annotations imply that cannot be computed (``n**100000000``
            # bound to 3): the checked call would raise the same at run time.
            self.report(stmt, "annotation", f"a size here cannot be computed: {error.message}")
            return frame
        finally:
            for note in drain_unsure():
                self.gave_up(stmt, note)

    def s_Expr(self, stmt, frame):
        self.eval_discarded(stmt.value, frame)
        value = stmt.value
        if (
            isinstance(value, ast.Call)
            and self.module.path_of(value.func) in _NEVER_RETURNS
            and frame.func is not None
        ):
            frame.terminated = True  # ``assert_never(x)``: the cases before are all
        return frame

    def eval_discarded(self, node, frame):
        """Evaluate an expression whose value is dropped (see ``Checker.discarded``)."""
        outer, self.discarded = self.discarded, node if type(node) is ast.Call else None
        try:
            return self.eval(node, frame)
        finally:
            self.discarded = outer

    def s_Assign(self, stmt, frame):
        value = self.eval(stmt.value, frame)
        for target in stmt.targets:
            self.assign(target, value, frame, stmt)
        if len(stmt.targets) == 1:
            self.correlate(stmt.targets[0], stmt.value, frame)
        return frame

    def correlate(self, target, node, frame) -> None:
        """Record what ``target = node`` ties to a flag or names as a condition."""
        key = (
            target.id
            if isinstance(target, ast.Name)
            else attr_key(target)
            if isinstance(target, ast.Attribute)
            else None
        )
        if key is None:
            return
        branches = self.last_ifexp
        if isinstance(node, ast.IfExp) and branches is not None and branches[0] is node:
            flag = flag_of(node.test)
            value = frame.vars.get(key)
            if flag is not None and may_be_none(value):
                conds = frozenset(
                    (flag[0], truth == flag[1])
                    for truth, v in ((True, branches[1]), (False, branches[2]))
                    if not may_be_none(v)
                )
                if conds:
                    frame.guards[key] = (value, conds)
        elif isinstance(target, ast.Name) and (
            isinstance(node, ast.Compare)
            or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
            or (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance"
            )
        ):
            deps = tuple(
                (n.id, frame.vars.get(n.id))
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and n.id != "isinstance"
            )
            if all(n != key for n, _ in deps):
                frame.aliases[key] = (node, deps)

    def s_AnnAssign(self, stmt, frame):
        want = self.annotation_type(stmt.annotation)
        target = stmt.target
        if isinstance(target, ast.Name):
            # A bare declaration (``y: T`` then ``y = ...`` in each branch) holds every
            # value assigned to the name; an annotated assignment holds its own value.
            frame.declared[target.id] = (want, stmt.value is None, stmt.annotation)
        elif (
            frame.building is not None
            and isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            frame.building.declared.setdefault(target.attr, stmt.annotation)
        binder = self.local_binder(frame)
        got = self.eval(stmt.value, frame) if stmt.value is not None else UNKNOWN
        if stmt.value is not None:
            self.check_binding(
                want,
                got,
                f"value assigned to {label_of(target)}",
                binder,
                stmt.value,
                frame,
                code="assign",
            )
        # Size names the function's signature does not have are introduced here: each
        # stands for the size it met (``Nr`` for ``B*H*W``), or for an unknown size when
        # the value is unknown, in every later annotation of this function.
        for name in pattern_names(self.annotation_value(stmt.annotation)):
            if name not in frame.where and name not in frame.sizes:
                frame.sizes[name] = (
                    binder.env.get(name),
                    binder.where.get(name, f"line {stmt.lineno}"),
                )
        declared = _substituted(self.annotation_value(stmt.annotation), self.local_binder(frame))
        got = _filled(got, declared)
        if stmt.value is None:
            key = attr_key(target) if not isinstance(target, ast.Name) else target.id
            # A bare declaration assigns nothing: a value already there stays
            # (``self.register_buffer("pe", pe)`` then ``self.pe: Tensor``).
            if key is not None and key not in frame.vars:
                frame.vars[key] = got
            return frame
        self.assign(target, got, frame, stmt, declared=False)
        return frame

    def s_AugAssign(self, stmt, frame):
        old = self.eval(stmt.target, frame)
        value = self.eval(stmt.value, frame)
        if type(old) is Arr:
            new = (
                self.arith(stmt, type(stmt.op), old, value, frame, (stmt.target, stmt.value))
                if not isinstance(stmt.op, ast.MatMult)
                else UNKNOWN
            )
            if type(new) is Arr:
                self.check_inplace(stmt, old, new, frame, value)
                if (
                    old.shape is None
                    and new.shape is not None
                    and not isinstance(stmt.target, ast.Subscript)
                ):
                    # ``x &= y`` of an ``x`` of unknown rank: ``x`` has the broadcast
                    # shape (an in-place result keeps it), its dtype stays.
                    self.assign(
                        stmt.target,
                        old.with_(shape=new.shape, origin=None),
                        frame,
                        stmt,
                        declared=False,
                    )
            return frame
        if isinstance(stmt.target, ast.Subscript):
            return frame
        new = self.arith(stmt, type(stmt.op), old, value, frame, (stmt.target, stmt.value))
        self.assign(stmt.target, new, frame, stmt)
        return frame

    def check_inplace(self, stmt, old: Arr, new: Arr, frame, value=None) -> None:
        target = label_of(stmt.target)
        old_shape, new_shape = old.shape, new.shape
        if (
            new_shape is not None
            and sf.split_rest(new_shape)[1] is not None
            and old_shape is not None
        ):
            # ``(..., n, 3)``: only the last axes are known; compare those
            _, old_rest, _ = sf.split_rest(old_shape)
            tail = sf.split_rest(new_shape)[2]
            old_tail = sf.split_rest(old_shape)[2] if old_rest is not None else old_shape
            if old_rest is not None or len(tail) <= len(old_tail):
                count = min(len(tail), len(old_tail))
                old_shape = old_tail[len(old_tail) - count :]
                new_shape = tail[len(tail) - count :]
        if (
            old_shape is not None
            and new_shape is not None
            and (
                len(new_shape) != len(old_shape)
                or any(not agree(a, b) for a, b in zip(old_shape, new_shape))
            )
        ):
            failure = self.noted(
                CheckFailure(
                    "broadcast",
                    f"in-place update of {target} {fmt_shape(old.shape)} "
                    f"would need shape {fmt_shape(new.shape)}: the "
                    f"result of an in-place operation keeps the "
                    f"target's shape",
                ),
                [(stmt.target, old), (stmt.value, value)],
                frame,
            )
            self.report(stmt, failure.code, failure.message, failure.notes)
            return
        if is_int(old.dtypes) and new.dtypes is not None and is_float(new.dtypes):
            self.report(
                stmt,
                "dtype",
                f"in-place update of {target} ({fmt_dtypes(old.dtypes)}) "
                f"with a {fmt_dtypes(new.dtypes)} result: the float "
                f"result cannot be cast back to the integer array "
                f"(cast {target} to float first)",
            )

    # -- assignment -----------------------------------------------------------------------
    def assign(self, target, value, frame, stmt, declared: bool = True) -> None:
        """Bind ``value`` to ``target``; ``declared``: check it against a declared type."""
        if isinstance(target, ast.Name):
            want, bare, node = (
                frame.declared.get(target.id, (None, False, None))
                if declared
                else (None, False, None)
            )
            if want is not None:
                # The shape and dtype of ``y: T = v`` describe ``v`` (as jaxtyping checks
                # it); a later value is held to the rest (an array of that library, None
                # only if allowed), as mypy reads ``Float[Tensor, "b n"]``.
                self.check_binding(
                    want if bare else _kind_only(want),
                    value,
                    f"value assigned to {target.id}",
                    self.local_binder(frame),
                    stmt,
                    frame,
                    code="assign",
                    source=_assigned_expr(stmt, target),
                )
            if bare:  # ``latents: Float[Tensor, "B 4 64 64"]``, then ``latents = encode(x)``
                binder = self.local_binder(frame)
                value = _filled(value, _substituted(self.annotation_value(node), binder), False)
            if type(value) is Arr:
                value = shaped_since(value, stmt, frame)
                laid_out_together(value.shape)
                if value.origin is None:
                    value = value.with_(origin=f"assigned at line {stmt.lineno}")
            elif type(value) is UnionV and any(
                type(v) is Arr and v.origin is None for v in value.items
            ):
                # ``sel = f(mask)`` of ``Bool[Tensor, "n"] | None``: the array, once the
                # None is ruled out, is the one assigned here (a mask's selections)
                value = UnionV(
                    tuple(
                        v.with_(origin=f"assigned at line {stmt.lineno}")
                        if type(v) is Arr and v.origin is None
                        else v
                        for v in value.items
                    )
                )
            elif (
                type(value) is ListV
                and isinstance(stmt, (ast.Assign, ast.AnnAssign))
                # a list built here, not another variable's (``xs = toks``)
                and not isinstance(stmt.value, (ast.Name, ast.Attribute, ast.Subscript))
            ):
                value = _made_here(value, stmt.lineno)
            frame.vars[target.id] = value
            forget_items(frame, target.id)
            forget_guards(frame, target.id)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, value, frame, stmt)
            return
        if isinstance(target, ast.Attribute):
            self.assign_attribute(target, value, frame, stmt, declared)
            key = attr_key(target)
            forget_items(frame, key)
            if key is not None:
                forget_guards(frame, key)
            return
        if isinstance(target, ast.Subscript):
            base = target.value
            forget_items(frame, base.id if isinstance(base, ast.Name) else attr_key(base))
            self.assign_item(target, value, frame, stmt)

    def unpack(self, target, value, frame, stmt) -> None:
        starred = any(isinstance(e, ast.Starred) for e in target.elts)
        if not starred and self.narrow_unpacked(target, frame, stmt):
            value = self.eval(stmt.value, frame)
        value = self.named_items(value, stmt, frame)
        items = (
            value.items
            if type(value) is TupleV or (type(value) is ListV and value.items is not None)
            else None
        )
        rows = (
            value.shape[0].value
            if type(value) is Arr and value.shape and type(value.shape[0]) is Dim
            else None
        )
        if not starred and type(value) is Arr and rows is not None and rows <= 64:
            # ``q, k, v = rearrange(qkv, "b n (three d) -> three b n d", three=3)``: the
            # rows of the first axis, as many as it has
            items = (value.with_(shape=value.shape[1:], origin=None),) * rows
        if starred:
            split = _starred_split(target.elts, value)
            if split is not None:
                for element, got in zip(target.elts, split):
                    element = element.value if isinstance(element, ast.Starred) else element
                    self.assign(element, got, frame, stmt)
                return
            items = None
        if items is not None and len(items) != len(target.elts):
            failure = CheckFailure(
                "rank",
                f"cannot unpack {label_of(stmt.value)} of length "
                f"{len(items)} into {len(target.elts)} names",
            )
            # the arrays a call is given say where its length came from
            # (``torch.where(alive_mask)``: the rank of ``alive_mask``)
            call = stmt.value if isinstance(stmt.value, ast.Call) else None
            operands = [
                (arg, frame.vars.get(arg.id))
                for arg in (call.args if call is not None else ())
                if isinstance(arg, ast.Name)
            ]
            operands = [(n, v) for n, v in operands if type(v) is Arr]
            self.fail(stmt, self.noted(failure, operands, frame), frame)
            items = None
        each = value.elem if type(value) is ListV and value.items is None else UNKNOWN
        for i, element in enumerate(target.elts):
            if items is not None:
                got = items[i]
            elif isinstance(element, ast.Starred):
                got = ListV(None, each) if each is not UNKNOWN else UNKNOWN
            else:
                got = each  # any element of a sequence of unknown length
            element = element.value if isinstance(element, ast.Starred) else element
            self.assign(element, got, frame, stmt)

    def narrow_unpacked(self, target, frame, stmt) -> bool:
        """``b, c, h, w = q.shape`` (or ``q.size()``) of an array ``q`` whose rank nothing
        told (``q = self.q(h_)`` of an unknown input, ``x: Tensor``; ``x.size()`` of any
        value nothing is known about, which only a torch tensor has): the statement
        raises unless ``q`` has exactly that many axes, so from here on ``q`` has
        them, each the size its name unpacks (:func:`unpacked_size`; ``_`` or an
        attribute gives an unknown size). Whether it changed ``q``."""
        if not isinstance(stmt, ast.Assign):
            return False  # a loop's or a comprehension's target
        name = shape_of(stmt.value)
        if name is None or not 0 < len(target.elts) <= 8:
            return False
        arr = frame.vars.get(name)
        if arr is UNKNOWN and isinstance(stmt.value, ast.Call):
            # ``B, T, C = x.size()`` of an unannotated ``x``: only a torch tensor's
            # ``size`` is called for its sizes (NumPy's is a number)
            arr = Arr("torch", None, None)
        elif arr is UNKNOWN:
            # ``b, c, h, w = x.shape`` of an unannotated ``x``: an array of some library
            arr = Arr(None, None, None)
        if type(arr) is not Arr or not (
            arr.shape is None
            or (len(arr.shape) == 1 and type(arr.shape[0]) is Rest and arr.shape[0].anonymous)
        ):
            return False
        module = getattr(self.module, "name", None) or ""
        group = (module, name, stmt.lineno)
        shape = tuple(
            unpacked_size(e.id, stmt.lineno, group, module)
            if isinstance(e, ast.Name) and e.id != "_"
            else None
            for e in target.elts
        )
        frame.vars[name] = arr.with_(shape=shape)
        return True

    def assign_attribute(self, target, value, frame, stmt, declared: bool) -> None:
        key = attr_key(target)
        owner = None
        if isinstance(target.value, ast.Name):
            owner = frame.vars.get(target.value.id)
        if declared and type(owner) is InstV:
            node = self.declared_attribute(owner.info, target.attr)
            if node is not None:
                self.check_binding(
                    self.annotation_type(node),
                    value,
                    f"value assigned to {label_of(target)}",
                    self.own_binder(frame),
                    stmt,
                    frame,
                    code="assign",
                    source=_assigned_expr(stmt, target),
                )
        if key is not None:
            if (
                value is UNKNOWN
                and type(owner) is InstV
                and self.declared_attribute(owner.info, target.attr) is not None
            ):
                # ``self.cfg = Config.unwrap(cfg)`` of unknown result: the declared
                # ``cfg: Config`` tells what it holds (read as an attribute).
                frame.vars.pop(key, None)
            else:
                frame.vars[key] = value
        if frame.building is not None and type(owner) is InstV and owner.info is frame.building:
            attrs = frame.building.attrs
            attrs[target.attr] = (
                value if target.attr not in attrs else join_values(attrs[target.attr], value)
            )

    def declared_attribute(self, info, attr: str):
        """The annotation node declaring ``attr`` in ``info`` or a checked base, or None."""
        found = info.declared.get(attr)
        if found is not None:
            return found
        if info.walker is not None and info.walker is not self:
            return info.walker.declared_attribute(info, attr)
        for cls in self.mro(info)[1:]:
            found = cls.declared.get(attr)
            if found is not None:
                return found
        return None

    def assign_item(self, target, value, frame, stmt) -> None:
        receiver = self.eval(target.value, frame)
        held = frame.declared.get(target.value.id) if type(target.value) is ast.Name else None
        if held is not None and type(held[0]) is DictType:
            # ``counts: dict[str, list[int]] = {}``, then ``counts[k] = v``: the value is
            # held to the declared value type, as mypy holds it
            self.check_binding(
                held[0].value,
                value,
                f"value assigned to {label_of(target)}",
                self.local_binder(frame),
                stmt,
                frame,
                code="assign",
                source=stmt.value,
            )
        if type(receiver) is ListV:
            key = (
                attr_key(target.value)
                if isinstance(target.value, ast.Attribute)
                else getattr(target.value, "id", None)
            )
            if key is not None and key in frame.vars:
                frame.vars[key] = self.stored_item(receiver, target.slice, value, frame)
            return
        if type(receiver) is DictV:
            key = (
                attr_key(target.value)
                if isinstance(target.value, ast.Attribute)
                else getattr(target.value, "id", None)
            )
            const = target.slice.value if isinstance(target.slice, ast.Constant) else None
            if key is not None and key in frame.vars:
                items = (
                    dict(receiver.items)
                    if receiver.items is not None and type(const) in (str, int)
                    else None
                )
                if items is not None:
                    items[const] = value
                frame.vars[key] = DictV(items, receiver.value)  # d["k"] = v: known from here on
            return
        if type(receiver) is not Arr or type(value) not in (Arr, IntV, FloatV, BoolV):
            return
        index = self.eval_index(target.slice, frame)
        number = type(value) is not Arr
        if number:
            # ``mask[~sampled] = False``: a number fits any region, but the index must
            # fit the array (a boolean mask of another rank does not)
            value = Arr(receiver.kind, None, ())
        shape = value.shape
        while shape and type(shape[0]) is Dim and shape[0].value == 1:
            shape = shape[1:]  # NumPy and PyTorch drop leading 1s of an assigned value

        def store() -> None:
            if self.loop_bounds:
                # ``full[0, pos, m] = v`` of ``pos`` over another axis's size, as a read
                self.loop_index(receiver, parts, index, target, frame)
            region = index_array(receiver, index, label_of(target.value))
            joined = sf.broadcast(
                [region.shape, shape], [f"{label_of(target)}", label_of(stmt.value)]
            )
            if (
                region.shape is not None
                and shape is not None
                and joined is not None
                and not any(type(d) is Rest and d.anonymous for d in shape)
                and len(joined) != len(region.shape)
                # an extra leading axis of unknown size may be 1, which the store drops
                and not any(d is None for d in shape[: max(len(shape) - len(region.shape), 0)])
            ):
                raise CheckFailure(
                    "broadcast",
                    f"cannot assign {label_of(stmt.value)} "
                    f"{fmt_shape(value.shape)} to {label_of(target)} "
                    f"{fmt_shape(region.shape)}",
                )

        try:
            # The notes say where the array, the index arrays and the value were made.
            parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
            operands = [(target.value, receiver)]
            if not number:
                operands.append((getattr(stmt, "value", None), value))
            operands += [
                (part, v)
                for part, (kind, v) in zip(parts, index)
                if kind == "item" and type(v) is Arr
            ]
            self.with_notes(store, operands, frame)
        except CheckFailure as failure:
            self.fail(stmt, failure, frame)

    def stored_item(self, receiver: ListV, index, value, frame) -> ListV:
        """The list ``lst`` after ``lst[index] = value``: that item replaced when the index
        is a known position of known items; else any item may be ``value``. Of a list of
        None placeholders (``pos = [None] * 3``, filled in a loop) the items are then
        unknown: which are filled is not followed, and None or an array would cascade
        into "may be None" where the loop fills them all."""
        if isinstance(index, ast.Slice):
            self.eval_index(index, frame)
            return ListV(None, join_values(element_of(receiver), element_of(value)))
        i = int_const(self.eval(index, frame))
        items = receiver.items
        if items is not None and i is not None and -len(items) <= i < len(items):
            changed = list(items)
            changed[i] = value
            return ListV(tuple(changed), kind=receiver.kind)
        placeholders = items is not None and all(type(v) is NoneV for v in items)
        elem = UNKNOWN if placeholders else join_values(element_of(receiver), value)
        return ListV(None, elem, receiver.kind, length=length_of(receiver))

    # -- returns and other simple statements ---------------------------------------------------
    def s_Return(self, stmt, frame):
        value = self.eval(stmt.value, frame) if stmt.value is not None else NONE
        frame.returns.append((value, stmt))
        info = frame.func
        if (
            info is not None
            and info.returns is not None
            and info.name != "__init__"
            and id(info.node) not in self.module.generators
        ):
            want = self.annotation_type(info.returns)
            self.check_binding(
                want,
                value,
                f"return value of {info.qualname}()",
                self.own_binder(frame),
                stmt.value or stmt,
                frame,
                code="return",
            )
        frame.terminated = True
        return frame

    def own_binder(self, frame) -> Binder:
        """A binder where the function's own size names stand for themselves."""
        names = {n: size_symbol(n) for n in frame.where if size_symbol(n) is not None}
        for n, d in frame.equal.items():  # ``if len(x) == 0:``: this path's N is 0
            if n in names and type(d) is Dim:
                names[n] = d
        # A ``*rest`` of the function's own annotations stands for its own axes.
        names.update({n: (Rest(n[1:]),) for n in frame.where if n.startswith("*")})
        where = {n: frame.where[n] for n in names}
        # A name the parameters leave free is the instance's size of that name, if any.
        for n in instance_names().difference(names):
            d = size_symbol(n)
            if d is not None:
                names[n] = d
                where[n] = "the instance"
        return Binder(names, where, frame.facts)

    def local_binder(self, frame) -> Binder:
        """:meth:`own_binder` with the size names local annotations introduced.

        Such a name holds the size it first met (or an unknown size); a later
        annotation contradicts it only when the two are provably different, since
        the author's annotation, not the signature, is all that ties them.
        """
        binder = self.own_binder(frame)
        for name, (value, where) in frame.sizes.items():
            binder.env[name] = value
            binder.where[name] = where
        binder.soft = frozenset(frame.sizes)
        return binder

    def s_Raise(self, stmt, frame):
        frame.terminated = True
        return frame

    s_Continue = s_Raise

    def s_Break(self, stmt, frame):
        """A ``break``: the loop is left with this path's state (``loop`` joins it)."""
        if self.breaks:
            self.breaks[-1].append(frame.copy())
        frame.terminated = True
        return frame

    def s_FunctionDef(self, stmt, frame):
        """A nested ``def``: calls to it are bound to its signature and its body is
        checked, with the names it takes from the enclosing function unknown there
        (they may change before it runs); lists it changes (``outs.append(x)``,
        ``outs[i] = x``) may change when it runs. A call of it reads the names it takes
        as they are at that point (``info.closure``)."""
        if frame.func is not None:
            info = FunctionInfo(stmt)
            info.closure = (frame, self)
            frame.vars[stmt.name] = FuncV(info)
            if not self.quiet:
                self.check_function(info)
            for name in _changed_names(stmt):
                found = frame.vars.get(name)
                if type(found) is ListV and found.items is not None:
                    frame.vars[name] = ListV(None)
        return frame

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, stmt, frame):
        if frame.func is not None:
            frame.vars[stmt.name] = UNKNOWN
        return frame

    def s_Import(self, stmt, frame):
        """An import inside a function binds its names there (they may shadow globals)."""
        if frame.func is None:
            return frame
        for alias in stmt.names:
            if isinstance(stmt, ast.ImportFrom):
                name = alias.asname or alias.name
                if not stmt.module or stmt.level:
                    frame.vars[name] = UNKNOWN  # a relative import: another checked file
                    continue
                path = f"{stmt.module}.{alias.name}"
            else:
                name = alias.asname or alias.name.partition(".")[0]
                path = alias.name if alias.asname else name
            found = dtype_object(path)
            frame.vars[name] = DTypeV(found) if found is not None else Ref(path)
        return frame

    s_ImportFrom = s_Import

    def s_Delete(self, stmt, frame):
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                frame.vars.pop(target.id, None)
        return frame

    def s_Assert(self, stmt, frame):
        value = self.eval(stmt.test, frame)
        test = stmt.test
        if (
            type(value) is BoolV
            and value.value is False
            and isinstance(test, ast.Compare)
            and any(_shape_owner(n) is not None for n in (test.left, *test.comparators))
        ):
            # ``assert retval.shape == self.indices_hit.shape`` of ``(n-1,)`` and ``(n,)``:
            # sizes of arrays that differ for every size the annotations allow (not a
            # counter a closure bumps, whose value here is only where it started)
            # read again for the message (their errors are reported already)
            operands = [(n, self.peek(n, frame)) for n in (test.left, *test.comparators)]
            owners = [_shape_owner(n) for n, _v in operands]
            arrays = [(b, self.peek(b, frame)) for b in owners if b is not None]
            shown = ", ".join(
                f"{label_of(n)} is {_sizes_text(v)}"
                for n, v in operands
                if type(v) in (IntV, TupleV) and not isinstance(n, ast.Constant)
            )
            text = ast.unparse(test)
            text = text if len(text) <= 80 else text[:77] + "..."
            failure = CheckFailure(
                "assert", f"'assert {text}' fails for every size the annotations allow: {shown}"
            )
            arrays = [(b, v) for b, v in arrays if type(v) is Arr]  # for their notes
            self.fail(stmt, self.noted(failure, arrays, frame), frame)
            return frame  # what it would narrow is false
        return self.narrow(stmt.test, frame, True)

    # -- control flow ------------------------------------------------------------------------
    def s_If(self, stmt, frame):
        yes, no = self.if_ends(stmt, frame)
        if not yes.terminated and not no.terminated:
            self.last_if = (stmt, yes, no)  # for exec_paths, which may follow each
        return self.if_join(stmt, frame, yes, no)

    def if_ends(self, stmt, frame) -> tuple:
        """The frames the two branches of an ``if`` end with."""
        self.eval(stmt.test, frame)
        flags = frame.flags if _none_check(stmt.test) else frame.flags | read_keys(stmt.test)
        start = self.narrow(stmt.test, frame.copy(), True)
        start.flags = flags
        if self.never_instance(stmt.test, frame):
            start.terminated = True  # ``isinstance(t, Tensor)`` of a tuple: never taken
        yes = self.exec_block(stmt.body, start)
        start = self.narrow(stmt.test, frame.copy(), False)
        start.flags = flags
        no = self.exec_block(stmt.orelse, start)
        return yes, no

    def if_join(self, stmt, frame, yes, no):
        """Where the branches of an ``if`` meet (flag correlations kept)."""
        if yes.terminated and no.terminated:
            return yes
        if yes.terminated:
            return no
        if no.terminated:
            return yes
        out = join_frames(yes, no)
        out.flags = frame.flags  # past the if, its test no longer holds either way
        flag = flag_of(stmt.test)
        if flag is not None:
            # ``if flag: h = h + (x,)`` (h not None under flag on both paths): the join
            # keeps h not None under flag.
            key, truth = flag
            for var, value in out.vars.items():
                if var == key or not may_be_none(value):
                    continue
                conds = frozenset(
                    (key, t == truth)
                    for t, branch in ((True, yes), (False, no))
                    if not may_be_none(branch.vars.get(var, NONE))
                    or (key, t == truth) in valid_guard(branch, var)
                )
                if conds:
                    old = out.guards.get(var)
                    out.guards[var] = (
                        value,
                        conds | (old[1] if old is not None and old[0] is value else frozenset()),
                    )
        return out

    def s_Match(self, stmt, frame):
        """``match subject: case ...:``: each case's body walked on its own, from the
        state before the ``match``, the subject narrowed as the pattern says (``case
        None``, ``case dict()``, a literal, ``|`` of them) and as the unguarded cases
        before it leave it (after ``case None:``, not None), the names the pattern
        captures bound (the subject for ``case x`` and ``case ... as x``, else
        unknown) and its guard read; the ends joined as an ``if`` chain's are, with
        the state before when no case is sure to match (a last ``case _`` is)."""
        self.eval(stmt.subject, frame)
        ends = []
        sure = False
        left = frame  # the state the cases so far leave to the next one
        for case in stmt.cases:
            test = _pattern_test(case.pattern, stmt.subject)
            start = self.narrow(test, left.copy(), True) if test is not None else left.copy()
            for name in _captured(case.pattern):
                start.vars[name] = UNKNOWN
            if type(case.pattern) is ast.MatchAs and case.pattern.name is not None:
                start.vars[case.pattern.name] = self.eval(stmt.subject, start)
            if case.guard is not None:
                self.eval(case.guard, start)
            ends.append(self.exec_block(case.body, start))
            if case.guard is None and test is None and _wildcard(case.pattern):
                sure = True  # ``case _:`` / ``case x:`` matches whatever is left
                break
            if case.guard is None and test is not None:
                left = self.narrow(test, left.copy(), False)
        if not sure:
            ends.append(left.copy())
        live = [e for e in ends if not e.terminated]
        if not live:
            return ends[0]
        if len(live) > 1:
            self.last_if = (stmt, *live)  # for exec_paths, which may follow each
        out = live[0]
        for other in live[1:]:
            out = join_frames(out, other)
        out.flags = frame.flags
        return out

    def s_With(self, stmt, frame):
        expects_error = False
        for item in stmt.items:
            if item.optional_vars is None:
                value = self.eval_discarded(item.context_expr, frame)
            else:
                value = self.eval(item.context_expr, frame)
            expects_error |= _raises(item.context_expr)
            if item.optional_vars is not None:
                self.assign(
                    item.optional_vars, UNKNOWN if type(value) is not Arr else value, frame, stmt
                )
        if not expects_error:
            return self.exec_block(stmt.body, frame)
        self.quiet += 1  # ``with pytest.raises(...)``: the body is meant to fail
        try:
            end = self.exec_block(stmt.body, frame.copy())
        finally:
            self.quiet -= 1
        end.terminated = False
        out = join_frames(frame, end)
        for key in [k for k in out.vars if k not in frame.vars and ("." in k or "[" in k)]:
            # ``e.b = bad`` that raises leaves ``e.b`` as it was, which the frame
            # before did not hold: read it afresh
            del out.vars[key]
        return out

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
        element = element_of(self.eval(stmt.iter, frame))
        bound = self.range_bound(stmt, frame)
        if bound is None:
            return self.loop(stmt, frame, lambda f: self.assign(stmt.target, element, f, stmt))
        name = stmt.target.id
        outer = self.loop_bounds.get(name)
        self.loop_bounds[name] = (bound, stmt.lineno, stmt.iter.args[-1])
        try:
            return self.loop(stmt, frame, lambda f: self.assign(stmt.target, element, f, stmt))
        finally:
            if outer is None:
                del self.loop_bounds[name]
            else:
                self.loop_bounds[name] = outer

    def range_bound(self, stmt, frame):
        """The size ``n`` of ``for i in range(n)`` (or ``range(start, n)``) when it is a
        size of symbols and the body never rebinds ``i``: each index ``i`` takes is
        below it (``IndexMixin.loop_index``). None otherwise."""
        it, target = stmt.iter, stmt.target
        if (
            type(target) is not ast.Name
            or type(it) is not ast.Call
            or type(it.func) is not ast.Name
            or it.func.id != "range"
            or "range" in self.module.shadowed
            or it.keywords
            or not 1 <= len(it.args) <= 2
            or stmt.orelse
        ):
            return None
        stop = self.peek(it.args[-1], frame)
        if type(stop) is not IntV or type(stop.dim) is not Dim or stop.dim.is_constant:
            return None
        if target.id in _rebound_names(stmt):
            return None
        return stop.dim

    s_AsyncFor = s_For

    def s_While(self, stmt, frame):
        self.eval(stmt.test, frame)
        return self.loop(stmt, frame, None, stmt.test)

    def loop(self, stmt, frame, bind, test=None):
        """A ``for`` or ``while`` loop: its body walked twice (the second time from the
        join of the state before it and after one pass), then left when ``test`` fails
        (after the ``else`` block) or at a ``break`` (with that path's state). A ``while
        True:`` is left only at a ``break``."""
        head = frame
        broken: list = []
        for attempt in range(2):
            start = head.copy()
            if bind is not None:
                bind(start)
            if test is not None:
                start = self.narrow(test, start, True)
            if attempt == 0:
                self.quiet += 1
            self.breaks.append([])
            try:
                end = self.exec_block(stmt.body, start)
            finally:
                broken = self.breaks.pop()
                if attempt == 0:
                    self.quiet -= 1
            end.terminated = False
            head = join_frames(frame, end)
        out = head
        if test is not None:
            out = self.narrow(test, out, False)
        if stmt.orelse:
            out = self.exec_block(stmt.orelse, out)
        endless = isinstance(test, ast.Constant) and bool(test.value)
        if endless:
            if not broken:
                out = out.copy()
                out.terminated = True  # left only by a return or a raise
                return out
            out = broken[0]
            broken = broken[1:]
        for other in broken:
            out = join_frames(out, other)
        return out


_RAISES = frozenset(
    {
        "raises",
        "assertRaises",
        "assertRaisesRegex",
        "assert_raises",
        "assert_raises_regex",
        "raises_regex",
    }
)


def _shape_owner(node):
    """``x`` of ``x.shape``, ``x.shape[i]``, ``x.size(i)``, or of its rank (``x.ndim``,
    ``x.dim()``, ``len(x.shape)``: ``refine.rank_owner``), else None."""
    found = rank_owner(node)
    if found is not None:
        return found
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value if node.func.attr == "size" else None
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return node.value
    return None


def _sizes_text(value) -> str:
    """A size (``n-1``) or a shape (``(n-1, 3)``) as the user reads it."""
    if type(value) is IntV:
        return fmt_dim(value.dim) if type(value.dim) is Dim else "?"
    return fmt_shape(tuple(v.dim if type(v) is IntV else None for v in value.items))


def _starred_split(elts, value) -> list | None:
    """The values ``a, *b, c = value`` gives its targets, for a tuple or list of known
    items and for the shape of an array of open rank (``*b, a = mask.shape`` of a
    ``(..., a)`` mask: ``b`` holds the batch's sizes, starred into a call as
    ``x.shape[:-1]`` is, and ``a`` is ``a``). None when not known so."""
    star = next(i for i, e in enumerate(elts) if isinstance(e, ast.Starred))
    before, after = star, len(elts) - star - 1
    if type(value) in (TupleV, ListV) and value.items is not None:
        items = value.items
        if len(items) < before + after:
            return None
        return [
            *items[:before],
            ListV(items[before : len(items) - after]),
            *items[len(items) - after :],
        ]
    if type(value) is ShapeV:
        entries = value.entries
        cut = next((i for i, d in enumerate(entries) if type(d) is Rest), None)
        if cut is None or before > cut or after > len(entries) - cut - 1:
            return None
        sizes = [IntV(d) if type(d) is Dim else IntV() for d in entries]
        return [
            *sizes[:before],
            ShapeV(entries[before : len(entries) - after]),
            *sizes[len(sizes) - after :],
        ]
    return None


def _raises(node) -> bool:
    """Whether a context manager expects its body to raise (``pytest.raises(...)``)."""
    func = node.func if isinstance(node, ast.Call) else None
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in _RAISES


def _substituted(value, binder: Binder):
    """An annotation's value with its size names read through ``binder``."""
    if type(value) is Arr and value.shape is not None:
        return value.with_(shape=binder.substitute(value.shape))
    if type(value) is UnionV:
        return UnionV(tuple(_substituted(v, binder) for v in value.items))
    return value


def _filled(value, declared, partial: bool = True):
    """``value`` assigned to a name declared ``declared`` (an annotation's value, its
    sizes read through the function's binder): what the code declares the name to
    hold, as for a parameter. The declared value where ``value`` is unknown (with
    ``partial`` False, only a declared array of known sizes: after ``latents:
    Float[Tensor, "B 4 Hl Wl"]``, an unknown value is no better known as ``(B, 4, ?,
    ?)``, and a branch's ``(B, C, 64, 64)`` would lose its sizes where they meet); the
    declared size of each axis of unknown size of an array of the declared rank
    (``(B, 4, ?, ?)`` for ``"B 4 32 32"`` is ``(B, 4, 32, 32)``). A size the value has
    stays (a mismatch is the binding's error).

    >>> from tensortypes.core import dims
    >>> n = dims.symbol("n")
    >>> _filled(Arr("torch", None, (n, None)), Arr("torch", None, (n, 4))).shape == (n, 4)
    True
    >>> _filled(Arr("torch", None, (None,)), Arr("torch", None, (n, 4))).shape
    (None,)
    >>> _filled(UNKNOWN, Arr("torch", None, (n, None)), partial=False) is UNKNOWN
    True
    """
    if value is UNKNOWN:
        if partial or type(declared) is not Arr:
            return declared
        shape = declared.shape
        if shape is None or any(d is None or type(d) in (Rest, Bcast) for d in shape):
            return value
        return declared
    if (
        type(value) is not Arr
        or type(declared) is not Arr
        or value.shape is None
        or declared.shape is None
        or len(value.shape) != len(declared.shape)
        or None not in value.shape
        or any(type(d) is Rest for d in value.shape + declared.shape)
    ):
        return value
    shape = tuple(
        d if d is not None or e is None or type(e) is Bcast else e
        for d, e in zip(value.shape, declared.shape)
    )
    return value.with_(shape=shape)


def _kind_only(want):
    """``want`` with each array type's dtype and shape dropped (its library kept)."""
    if type(want) is ArrayType:
        return ArrayType(want.kind)
    if isinstance(want, UnionType) and any(type(m) is ArrayType for m in want.members):
        return UnionType([_kind_only(m) for m in want.members])
    return want


def _none_check(test) -> bool:
    """Whether a test only checks values against None (``x is not None and y is None``)."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.BoolOp):
        return all(_none_check(v) for v in test.values)
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Is, ast.IsNot))
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def _tested_again(test, rest) -> bool:
    """Whether a later condition reads what ``test`` reads (``if self.gqa:``, then ``if
    self.gqa and self.repeat > 1:``): the paths of the first would meet the second's
    branches they cannot take, so the branches are not followed apart."""
    keys = read_keys(test)
    for stmt in rest:
        for node in ast.walk(stmt):
            tested = (
                getattr(node, "test", None)
                if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert))
                else None
            )
            if tested is not None and not keys.isdisjoint(read_keys(tested)):
                return True
    return False


def _layouts_differ(*frames) -> bool:
    """Whether a variable holds an array of known shape on two of the frames whose
    join would lose axes (another rank, or sizes on one axis known on both and
    different)."""
    return any(_two_layouts(a, b) for i, a in enumerate(frames) for b in frames[i + 1 :])


def _two_layouts(a, b) -> bool:
    for key, x in a.vars.items():
        y = b.vars.get(key)
        if type(x) is not Arr or type(y) is not Arr or x.shape is None or y.shape is None:
            continue
        if a.declared.get(key, (None, False))[1]:
            continue  # ``y: T`` declared bare: each value assigned is held to it
        if x.shape == y.shape:
            continue
        if len(x.shape) != len(y.shape):
            return True
        for p, q in zip(x.shape, y.shape):
            if type(p) is Dim and type(q) is Dim and p != q and not (is_one(p) or is_one(q)):
                return True
    return False


def shaped_since(value: Arr, stmt, frame) -> Arr:
    """``value`` with ``since`` set: the line where its shape was made.

    A shape equal to that of a variable the statement reads (``y = torch.clamp(x)``,
    ``m = x > 0``, ``p = torch.gather(x, 1, index=i)``, ``x &= y``) was made where
    that variable's was (None for a parameter's); any other shape is made by this
    statement. Diagnostics name the line in a note (``its shape from line 26``),
    which points at the statement that changed a shape when the error surfaces only
    where the value is used.
    """
    if value.shape is None:
        return value if value.since is None else value.with_(since=None)
    iterated = stmt.iter if isinstance(stmt, (ast.For, ast.AsyncFor)) else stmt
    if value.since is not None and isinstance(iterated, ast.expr):
        # an element of a list variable the loop (or comprehension) reads, as made
        # where the list was (``dists = [reduce(...) for t in toks]``, then ``for t,
        # dist in zip(toks, dists)``)
        for node in ast.walk(iterated):
            if type(node) is ast.Name:
                held = frame.vars.get(node.id)
                if type(held) is ListV and _holds_since(held, value):
                    return value
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        sources = [stmt.iter]
    elif _splits(getattr(stmt, "value", None)):
        sources = []  # pieces are made here, also of an axis of unknown size (``?`` / 2)
    else:
        sources = [stmt.target] if isinstance(stmt, ast.AugAssign) else []
        if getattr(stmt, "value", None) is not None:
            sources.append(stmt.value)
    for source in sources:
        for node in ast.walk(source):
            if type(node) is ast.Name:
                old = frame.vars.get(node.id)
                if type(old) is Arr and old.shape == value.shape:
                    return value if value.since == old.since else value.with_(since=old.since)
    if value.since == stmt.lineno:
        return value
    return value.with_(since=stmt.lineno, sources=_previous_shape(value, stmt, frame))


def _made_here(value: ListV, line: int) -> ListV:
    """A list assigned at ``line`` whose arrays have no line of their own: made there
    (the line an element's note names once a loop takes it out)."""
    if value.items is not None:
        if not any(type(v) is Arr and v.since is None and v.shape for v in value.items):
            return value
        items = tuple(
            v.with_(since=line) if type(v) is Arr and v.since is None and v.shape else v
            for v in value.items
        )
        return ListV(items, value.elem, value.kind, value.length)
    elem = value.elem
    if type(elem) is Arr and elem.since is None and elem.shape:
        return ListV(None, elem.with_(since=line), value.kind, value.length)
    return value


def _holds_since(held: ListV, value: Arr) -> bool:
    """Whether list ``held`` has an array of ``value``'s shape made on its line."""
    arrays = held.items if held.items is not None else (held.elem,)
    return any(type(v) is Arr and v.since == value.since and v.shape == value.shape for v in arrays)


def _rebound_names(stmt) -> frozenset:
    """The names a loop's body binds (assigns, or takes as a parameter of a function or
    lambda it defines), found once per syntax tree."""
    found = getattr(stmt, "_tt_rebound", None)
    if found is None:
        names: set = set()
        for node in stmt.body:
            for sub in ast.walk(node):
                if type(sub) is ast.Name and type(sub.ctx) is not ast.Load:
                    names.add(sub.id)
                elif type(sub) is ast.arg:
                    names.add(sub.arg)
        found = frozenset(names)
        setattr(stmt, "_tt_rebound", found)  # noqa: B010 (ast declares no such field)
    return found


# Methods (and ``torch`` functions) that cut an array into pieces along an axis.
_SPLITTING = frozenset(("chunk", "split", "tensor_split", "unbind", "hsplit", "vsplit", "dsplit"))


def _splits(node) -> bool:
    """Whether ``node`` is a call that cuts an array into pieces (``x.chunk(2, dim=1)``,
    ``torch.split(x, 3)``), unpacked or indexed (``x.unbind(-1)[0]``)."""
    while type(node) is ast.Subscript:
        node = node.value
    return (
        type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in _SPLITTING
    )


def _previous_shape(value: Arr, stmt, frame):
    """``((line, shape),)`` of the variable a statement assigns, when the statement makes
    its new shape from its previous value (``eps = eps.sigmoid().mean(dim=-1)``): where
    that value's shape was made. None otherwise."""
    targets = getattr(stmt, "targets", None)
    if not targets or len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return None
    name = targets[0].id
    old = frame.vars.get(name)
    if type(old) is not Arr or old.since is None or old.shape is None or old.shape == value.shape:
        return None
    if not any(type(n) is ast.Name and n.id == name for n in ast.walk(stmt.value)):
        return None
    return ((old.since, old.shape),)


def _assigned_expr(stmt, target):
    """The expression ``stmt`` assigns to ``target`` as a whole (``x = verts``, ``y: T =
    v``), for the notes of a value that does not fit; else the statement itself."""
    if type(stmt) is ast.Assign:
        targets = stmt.targets
    elif type(stmt) is ast.AnnAssign:
        targets = [stmt.target]
    else:
        return stmt  # ``x += y``: the value assigned is not ``y``
    if stmt.value is not None and len(targets) == 1 and targets[0] is target:
        return stmt.value
    return stmt


def _wildcard(pattern) -> bool:
    """Whether a ``case`` pattern matches anything (``_``, ``x``, ``_ as y``)."""
    while type(pattern) is ast.MatchAs and pattern.pattern is not None:
        pattern = pattern.pattern
    return type(pattern) is ast.MatchAs


def _pattern_test(pattern, subject):
    """A test that holds where a ``case`` pattern matches, for narrowing the subject:
    ``subject is None`` for ``case None``, ``isinstance(subject, C)`` for ``case
    C(...)``, ``subject == v`` for a literal, ``or`` of those for ``|``; None for a
    pattern that says nothing narrowing can use (a sequence, a mapping, ``_``)."""
    if type(pattern) is ast.MatchAs:
        return None if pattern.pattern is None else _pattern_test(pattern.pattern, subject)
    if type(pattern) is ast.MatchSingleton:
        test = ast.Compare(subject, [ast.Is()], [ast.Constant(pattern.value)])
    elif type(pattern) is ast.MatchValue:
        test = ast.Compare(subject, [ast.Eq()], [pattern.value])
    elif type(pattern) is ast.MatchClass:
        test = ast.Call(ast.Name("isinstance", ast.Load()), [subject, pattern.cls], [])
    elif type(pattern) is ast.MatchOr:
        parts = [_pattern_test(p, subject) for p in pattern.patterns]
        if any(p is None for p in parts):
            return None
        test = ast.BoolOp(ast.Or(), parts)
    else:
        return None
    return ast.copy_location(test, pattern)


def _captured(pattern) -> list:
    """The names a ``match`` pattern binds (``case Point(x=a, y=b) as p``)."""
    found = []
    for node in ast.walk(pattern):
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name is not None:
            found.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest is not None:
            found.append(node.rest)
    return found


# Calls that never return (a match's exhaustiveness check, an exit).
_NEVER_RETURNS = frozenset(("typing.assert_never", "typing_extensions.assert_never", "sys.exit"))


def _changed_names(func) -> set:
    """The names a nested function may change the value of, in place: the receivers of
    its method calls (``outs.append(x)``), the targets of its item assignments,
    deletions and augmented assignments, and the arguments it passes to a method or
    a module's function (``torch.cat(outs)``; not to a plain name such as
    ``unpack(t, ps, pattern)``, whose callee is read when the call is walked)."""
    found = set()
    for n in ast.walk(func):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            found.add(n.value.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
            if isinstance(n.value, ast.Name):
                found.add(n.value.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            found.add(n.target.id)
        elif isinstance(n, ast.Call) and not isinstance(n.func, ast.Name):
            found.update(a.id for a in n.args if isinstance(a, ast.Name))
    return found
