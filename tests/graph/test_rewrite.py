"""The generic rewrite machinery on the toy float graphs (no tensor layer)."""

from __future__ import annotations

import pytest
from graph_toys import AssertRange, RangeType, add, floatt, mul, neg

from tensortypes.graph import Constant, FunctionGraph, Op
from tensortypes.graph.rewrite import (
    EquilibriumRewriter,
    MergeRewriter,
    NodeRewriter,
    RewriteRefused,
    RuleTable,
    SequenceRewriter,
    apply_replacements,
    fold_constants,
    node_rewriter,
)


def c(value):
    return Constant(floatt, value)


def test_rule_table_indexes_rules_by_op_class_and_instance():
    by_class = NodeRewriter("by_class", lambda fg, n: None, tracks=[type(add)])
    by_instance = NodeRewriter("by_instance", lambda fg, n: None, tracks=[neg])
    everywhere = NodeRewriter("everywhere", lambda fg, n: None)
    table = RuleTable([by_class, by_instance, everywhere])
    assert [r.name for r in table.rules_for(add)] == ["by_class", "everywhere"]
    assert [r.name for r in table.rules_for(neg)] == ["by_instance", "everywhere"]
    assert [r.name for r in table.rules_for(mul)] == ["everywhere"]
    with pytest.raises(ValueError, match="already registered"):
        table.register(NodeRewriter("everywhere", lambda fg, n: None))
    with pytest.raises(TypeError, match="NodeRewriter"):
        table.register(lambda fg, n: None)


def test_node_rewriter_decorator_and_validation():
    @node_rewriter(tracks=[Op])
    def drop(fgraph, node):
        return None

    assert drop.name == "drop" and drop.tracks == (Op,)
    with pytest.raises(TypeError, match="name"):
        NodeRewriter("", lambda fg, n: None)
    with pytest.raises(TypeError, match="callable"):
        NodeRewriter("x", 3)


@node_rewriter(tracks=[type(neg)])
def double_negation(fgraph, node):
    inner = node.inputs[0].owner
    if inner is not None and inner.op == neg:
        return [inner.inputs[0]]
    return None


def test_equilibrium_applies_rules_until_none_fires():
    x = floatt("x")
    out = neg(neg(neg(neg(x))))
    fg = FunctionGraph([x], [out], clone=True)
    counts = EquilibriumRewriter([double_negation]).apply(fg)
    assert counts == {"double_negation": 2}
    assert fg.outputs[0] is fg.inputs[0] and not fg.apply_nodes
    fg.check_integrity()


def test_rules_that_never_converge_are_reported():
    @node_rewriter(tracks=[type(neg)])
    def flip(fgraph, node):
        return [neg(neg(node.inputs[0]))] if node.inputs[0].owner is None else None

    @node_rewriter(tracks=[type(neg)], name="unflip")
    def unflip(fgraph, node):
        inner = node.inputs[0].owner
        return [neg(inner.inputs[0])] if inner is not None and inner.op == neg else None

    x = floatt("x")
    fg = FunctionGraph([x], [neg(x)], clone=True)
    with pytest.raises(RuntimeError, match="did not converge"):
        EquilibriumRewriter([flip, unflip], max_passes=5).apply(fg)


def test_merge_constants_and_common_subexpressions():
    x, y = floatt("x"), floatt("y")
    left = add(mul(x, y), c(2.0))
    right = add(mul(x, y), c(2.0))
    fg = FunctionGraph([x, y], [left, right, add(left, right)], clone=True)
    assert len(fg.apply_nodes) == 5
    counts = MergeRewriter().apply(fg)
    assert counts == {"merge_constants": 1, "merge_nodes": 2}
    assert len(fg.apply_nodes) == 3
    assert fg.outputs[0] is fg.outputs[1]
    fg.check_integrity()


def test_constant_folding_uses_perform_and_folds_chains():
    x = floatt("x")
    out = mul(x, add(c(1.0), mul(c(2.0), c(3.0))))
    fg = FunctionGraph([x], [out], clone=True)
    counts = EquilibriumRewriter([fold_constants]).apply(fg)
    assert counts == {"constant_folding": 2}
    (node,) = fg.apply_nodes
    assert node.inputs[1].data == 7.0
    fg.check_integrity()


def test_constant_folding_leaves_failures_to_run_time():
    class Div(Op):
        def make_node(self, a, b):
            from tensortypes.graph import Apply

            return Apply(self, [a, b], [floatt()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] / inputs[1]

    out = Div()(c(1.0), c(0.0))
    fg = FunctionGraph([], [out], clone=True)
    assert EquilibriumRewriter([fold_constants]).apply(fg) == {}
    assert len(fg.apply_nodes) == 1


def test_a_wider_replacement_is_checked_so_the_type_never_widens():
    x = floatt("x")
    fg = FunctionGraph([x], [neg(AssertRange(0, 1)(x))], clone=True)

    @node_rewriter(tracks=[AssertRange])
    def drop_assert(fgraph, node):
        return [node.inputs[0]]  # a plain float: wider than Range[0, 1]

    assert EquilibriumRewriter([drop_assert], max_passes=2).apply(fg) == {}
    (checked,) = [n for n in fg.apply_nodes if isinstance(n.op, AssertRange)]
    assert checked.outputs[0].type == RangeType(0, 1)


def test_a_rule_whose_replacement_the_type_refuses_is_refused():
    from tensortypes.graph import generic

    x = floatt("x")
    fg = FunctionGraph([x], [neg(neg(x))], clone=True)

    @node_rewriter(tracks=[type(neg)])
    def to_generic(fgraph, node):
        return [generic("anything")]

    with pytest.raises(RewriteRefused, match="rule to_generic would replace") as info:
        EquilibriumRewriter([to_generic]).apply(fg)
    assert info.value.rule == "to_generic" and isinstance(info.value, TypeError)
    fg.check_integrity()
    assert all(v.type == floatt for v in fg.variables)
    skipped = EquilibriumRewriter([to_generic], on_refused="skip").apply(fg)
    assert skipped == {} and len(fg.apply_nodes) == 2


def test_sequence_sums_counts_and_validates_passes():
    x, y = floatt("x"), floatt("y")
    fg = FunctionGraph([x, y], [neg(neg(add(x, y))), add(x, y)], clone=True)
    counts = SequenceRewriter([MergeRewriter(), EquilibriumRewriter([double_negation])]).apply(fg)
    assert counts == {"merge_nodes": 1, "double_negation": 1}
    with pytest.raises(TypeError, match="apply method"):
        SequenceRewriter([object()])


def test_wrong_number_of_replacements_is_an_error():
    x = floatt("x")
    fg = FunctionGraph([x], [neg(x)], clone=True)
    (node,) = fg.apply_nodes
    with pytest.raises(ValueError, match="returned 2 replacement"):
        apply_replacements(fg, node, [x, x], "bad")
    with pytest.raises(TypeError, match="not a Variable"):
        apply_replacements(fg, node, [3.0], "bad")
