"""Graph rewriting as data: rules, rule tables and the passes that apply them (layer 3, ``graph``).

- ``NodeRewriter``: one rule, a named function ``fn(fgraph, node)`` that
  returns the replacements for ``node``'s outputs (a list, one entry per output,
  ``None`` to keep one; or a dict ``{old: new}``), or None when it does not
  apply. ``tracks`` says which ops it is tried on (Op classes or instances).
- ``RuleTable``: rules indexed by what they track, so a node only meets the
  rules that can match its op.
- Passes (``GraphRewriter``): ``EquilibriumRewriter`` applies a table until no
  rule fires, ``MergeRewriter`` merges equal constants and equal nodes on equal
  inputs (common subexpressions), ``SequenceRewriter`` runs passes in order.
  ``fold_constants`` is the constant-folding rule (``perform`` on constant
  inputs).

Every replacement goes through ``FunctionGraph.replace``, that is through the
old variable's ``type.filter_variable``: a rule can narrow a type or have its
result checked (``SpecifyShape``), never widen it. A replacement the type
refuses raises ``RewriteRefused`` naming the rule (or is skipped with
``on_refused="skip"``). Each pass returns how many replacements each rule made.
"""

from __future__ import annotations

import abc
import warnings

from tensortypes.graph.basic import Constant, Variable
from tensortypes.graph.fg import FunctionGraph

__all__ = [
    "RewriteRefused",
    "NodeRewriter",
    "node_rewriter",
    "RuleTable",
    "GraphRewriter",
    "EquilibriumRewriter",
    "MergeRewriter",
    "SequenceRewriter",
    "fold_constants",
    "apply_replacements",
]


class RewriteRefused(TypeError):
    """A rule proposed a replacement whose type the replaced variable's type refuses."""

    def __init__(self, message: str, rule: str = ""):
        super().__init__(message)
        self.rule = rule


class NodeRewriter:
    """A rewrite rule on one node: ``fn(fgraph, node) -> replacements or None``.

    >>> from tensortypes.graph import Op
    >>> rule = NodeRewriter("noop", lambda fgraph, node: None, tracks=[Op])
    >>> rule.name, rule.tracks
    ('noop', (<class 'tensortypes.graph.op.Op'>,))
    """

    __slots__ = ("name", "fn", "tracks")

    def __init__(self, name: str, fn, tracks=None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"a rule needs a non-empty str name, got {name!r}")
        if not callable(fn):
            raise TypeError(f"rule {name}: fn must be callable, got {fn!r}")
        self.name = name
        self.fn = fn
        self.tracks = None if tracks is None else tuple(tracks)

    def transform(self, fgraph, node):
        """The replacements this rule proposes for ``node`` (None: it does not apply)."""
        return self.fn(fgraph, node)

    def __repr__(self) -> str:
        return f"NodeRewriter({self.name})"


def node_rewriter(tracks=None, name: str | None = None):
    """Decorator making a function ``fn(fgraph, node)`` a ``NodeRewriter``.

    >>> @node_rewriter(name="keep")
    ... def keep(fgraph, node):
    ...     return None
    >>> keep.name
    'keep'
    """

    def wrap(fn) -> NodeRewriter:
        return NodeRewriter(name or fn.__name__, fn, tracks)

    return wrap


class RuleTable:
    """Rules indexed by the Op classes or instances they track.

    ``rules_for(op)`` returns, in registration order, the rules tracking the
    op's class (or a base class), the op itself, or every op (``tracks=None``);
    the answer is cached per op.

    >>> table = RuleTable([NodeRewriter("all", lambda fg, n: None)])
    >>> [r.name for r in table.rules_for(object())]
    ['all']
    """

    __slots__ = ("_rules", "_cache")

    def __init__(self, rules=()):
        self._rules: list = []
        self._cache: dict = {}
        for rule in rules:
            self.register(rule)

    def register(self, rule: NodeRewriter) -> NodeRewriter:
        """Add ``rule`` (returned, so this works as a decorator on a NodeRewriter)."""
        if not isinstance(rule, NodeRewriter):
            raise TypeError(f"RuleTable.register takes a NodeRewriter, got {rule!r}")
        if any(r.name == rule.name for r in self._rules):
            raise ValueError(f"a rule named {rule.name!r} is already registered")
        self._rules.append(rule)
        self._cache.clear()
        return rule

    @property
    def rules(self) -> tuple:
        return tuple(self._rules)

    def rules_for(self, op) -> tuple:
        try:
            return self._cache[op]
        except (KeyError, TypeError):
            pass
        found = tuple(
            r
            for r in self._rules
            if r.tracks is None
            or any(
                (isinstance(t, type) and isinstance(op, t)) or (not isinstance(t, type) and t == op)
                for t in r.tracks
            )
        )
        try:
            self._cache[op] = found
        except TypeError:  # an unhashable op: answer without caching
            pass
        return found


def apply_replacements(
    fgraph: FunctionGraph, node, proposed, rule: str, on_refused: str = "raise"
) -> int:
    """Apply a rule's answer for ``node`` through ``fgraph.replace``; the number made.

    ``proposed`` is what a rule returned: None, a list (one entry per output of
    ``node``, None to keep one) or a dict ``{old: new}``. A replacement the old
    variable's type refuses raises ``RewriteRefused`` (``on_refused="skip"``:
    it is left out).

    >>> from tensortypes.graph import generic
    >>> x = generic("x")
    >>> apply_replacements(FunctionGraph([x], [x]), None, None, "nothing")
    0
    """
    if proposed is None or proposed is False:
        return 0
    if isinstance(proposed, dict):
        pairs = list(proposed.items())
    else:
        proposed = list(proposed)
        if len(proposed) != len(node.outputs):
            raise ValueError(
                f"rule {rule} returned {len(proposed)} replacement(s) for the "
                f"{len(node.outputs)} output(s) of {node}"
            )
        pairs = [(old, new) for old, new in zip(node.outputs, proposed) if new is not None]
    done = 0
    for old, new in pairs:
        if old is new or old not in fgraph.variables:
            continue
        if not isinstance(new, Variable):
            raise TypeError(f"rule {rule} replaced {old} by {new!r}, which is not a Variable")
        try:
            converted = old.type.filter_variable(new, allow_convert=True)
        except TypeError as exc:
            if on_refused == "skip":
                continue
            raise RewriteRefused(
                f"rule {rule} would replace {old} of type {old.type} by "
                f"{new} of type {new.type}, which the type refuses: {exc}",
                rule,
            ) from exc
        # A new node that recomputes exactly what was there is no change (a rule
        # dropping a check that filter_variable restores), not progress.
        if converted not in fgraph.variables and _same_computation(old, converted):
            continue
        fgraph.replace(old, converted, reason=rule)
        done += 1
    return done


def _same_computation(a, b) -> bool:
    if a is b:
        return True
    na, nb = a.owner, b.owner
    return (
        na is not None
        and nb is not None
        and a.index == b.index
        and na.op == nb.op
        and len(na.inputs) == len(nb.inputs)
        and all(x is y for x, y in zip(na.inputs, nb.inputs))
    )


class GraphRewriter(abc.ABC):
    """A pass over a whole ``FunctionGraph``; ``apply`` returns ``{rule name: count}``."""

    __slots__ = ()

    @abc.abstractmethod
    def apply(self, fgraph: FunctionGraph) -> dict:
        """Rewrite ``fgraph`` in place."""

    def __call__(self, fgraph: FunctionGraph) -> dict:
        return self.apply(fgraph)


def _count(counts: dict, name: str, n: int) -> None:
    if n:
        counts[name] = counts.get(name, 0) + n


class EquilibriumRewriter(GraphRewriter):
    """Apply the rules of a table to every node, again and again, until none fires.

    A rule set that still fires after ``max_passes`` sweeps raises RuntimeError
    naming the rules (a set of rules that undo each other never converges).
    """

    __slots__ = ("table", "max_passes", "on_refused")

    def __init__(self, table, max_passes: int = 50, on_refused: str = "raise"):
        if not isinstance(table, RuleTable):
            table = RuleTable(table)
        if on_refused not in ("raise", "skip"):
            raise ValueError(f"on_refused must be 'raise' or 'skip', got {on_refused!r}")
        self.table = table
        self.max_passes = max_passes
        self.on_refused = on_refused

    def apply(self, fgraph: FunctionGraph) -> dict:
        counts: dict = {}
        for _ in range(self.max_passes):
            fired: dict = {}
            for node in fgraph.toposort():
                if node not in fgraph.apply_nodes:
                    continue  # removed by an earlier replacement of this sweep
                for rule in self.table.rules_for(node.op):
                    made = apply_replacements(
                        fgraph, node, rule.transform(fgraph, node), rule.name, self.on_refused
                    )
                    if made:
                        _count(fired, rule.name, made)
                        break
            if not fired:
                return counts
            for name, n in fired.items():
                _count(counts, name, n)
        raise RuntimeError(
            f"rewriting did not converge in {self.max_passes} passes; still "
            f"firing: {', '.join(sorted(fired))}"
        )


class MergeRewriter(GraphRewriter):
    """Merge equal constants, then nodes applying equal ops to the same inputs.

    One sweep in topological order suffices: merging a node makes its clients'
    inputs identical before they are looked at.
    """

    __slots__ = ()

    def apply(self, fgraph: FunctionGraph) -> dict:
        counts: dict = {}
        seen_constants: dict = {}
        order = fgraph.toposort()
        for var in [v for node in order for v in node.inputs] + list(fgraph.outputs):
            if isinstance(var, Constant) and var in fgraph.variables:
                first = seen_constants.setdefault(var.signature(), var)
                if first is not var:
                    _count(
                        counts,
                        "merge_constants",
                        apply_replacements(fgraph, None, {var: first}, "merge_constants"),
                    )
        seen_nodes: dict = {}
        for node in order:
            if node not in fgraph.apply_nodes:
                continue
            try:
                key = (node.op, tuple(node.inputs))
                first = seen_nodes.setdefault(key, node)
            except TypeError:  # an unhashable op is never merged
                continue
            if first is not node:
                _count(
                    counts,
                    "merge_nodes",
                    apply_replacements(
                        fgraph, node, dict(zip(node.outputs, first.outputs)), "merge_nodes"
                    ),
                )
        return counts


class SequenceRewriter(GraphRewriter):
    """Run passes in order; the counts are summed by rule name."""

    __slots__ = ("passes",)

    def __init__(self, passes):
        self.passes = tuple(passes)
        for p in self.passes:
            if not callable(getattr(p, "apply", None)):
                raise TypeError(f"SequenceRewriter takes passes with an apply method, got {p!r}")

    def apply(self, fgraph: FunctionGraph) -> dict:
        counts: dict = {}
        for p in self.passes:
            for name, n in p.apply(fgraph).items():
                _count(counts, name, n)
        return counts


def _fold(fgraph, node):
    if not all(isinstance(v, Constant) for v in node.inputs):
        return None
    if not node.op.do_constant_folding(node):
        return None
    cells = [[None] for _ in node.outputs]
    try:
        # A value that would warn (log(0)) or fail is left to run time, where the
        # user sees the warning or the error at the call that causes it.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            node.op.perform(node, [v.data for v in node.inputs], cells)
    except (ArithmeticError, ValueError, TypeError, Warning):
        return None
    if any(cell[0] is None for cell in cells):
        return None
    return [out.type.filter_variable(cell[0]) for out, cell in zip(node.outputs, cells)]


fold_constants = NodeRewriter("constant_folding", _fold)
"""Replace a node whose inputs are all Constants by Constants of its outputs' values."""
