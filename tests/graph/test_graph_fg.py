"""``FunctionGraph``: construction, clients, replace, integrity and cloning."""

from __future__ import annotations

import pytest

from graph_toys import AssertRange, RangeType, add, divmod_op, floatt, mul, neg
from tensortypes.graph import (
    Constant,
    FunctionGraph,
    MissingInputError,
    clone_get_equiv,
    generic,
)


def build():
    x, y = floatt("x"), floatt("y")
    s = add(x, y)
    p = mul(s, x)
    return x, y, s, p


def test_construction_records_nodes_variables_and_clients():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p])
    assert fg.inputs == [x, y] and fg.outputs == [p]
    assert fg.apply_nodes == {s.owner, p.owner}
    assert fg.variables == {x, y, s, p}
    assert fg.clients[x] == [(s.owner, 0), (p.owner, 1)]
    assert fg.clients[s] == [(p.owner, 0)]
    assert fg.clients[p] == [("output", 0)]
    assert fg.toposort() == [s.owner, p.owner]
    fg.check_integrity()
    assert s in fg and p.owner in fg and floatt() not in fg
    assert str(fg) == "FunctionGraph([x, y] -> [Mul.0])"


def test_construction_leaves_variables_untouched():
    x, y, s, p = build()
    owner, index = p.owner, p.index
    FunctionGraph([x, y], [p])
    assert (p.owner, p.index) == (owner, index)
    assert s.owner.inputs == [x, y]


def test_missing_input_names_the_variable():
    x, y, s, p = build()
    with pytest.raises(MissingInputError, match="the FunctionGraph needs the value of y"):
        FunctionGraph([x], [p])


def test_constants_may_be_roots_and_inputs():
    x = floatt("x")
    c = Constant(floatt, 2.0)
    fg = FunctionGraph([x], [add(x, c)])
    assert c in fg.variables and fg.clients[c] == [(fg.outputs[0].owner, 1)]
    fg2 = FunctionGraph([c, x], [add(x, c)])
    assert fg2.inputs[0] is c


def test_inputs_must_be_distinct_variables():
    x = floatt("x")
    with pytest.raises(ValueError, match="listed twice"):
        FunctionGraph([x, x], [x])
    with pytest.raises(TypeError, match=r"outputs\[0\] must be a Variable"):
        FunctionGraph([x], [1.0])


def test_unused_input_and_input_as_output():
    x, y = floatt("x"), floatt("y")
    fg = FunctionGraph([x, y], [x, x])
    assert fg.clients[x] == [("output", 0), ("output", 1)] and fg.clients[y] == []
    fg.check_integrity()


def test_replace_rewires_clients_and_outputs():
    x, y, s, p = build()
    z = floatt("z")
    fg = FunctionGraph([x, y, z], [p, s])
    new = neg(z)
    fg.replace(s, new, reason="test")
    assert p.owner.inputs[0] is new  # the node is edited in place
    assert fg.outputs == [p, new]
    assert fg.clients[new] == [(p.owner, 0), ("output", 1)]
    assert s not in fg.variables and s.owner not in fg.apply_nodes
    assert new.owner in fg.apply_nodes and new in fg.variables
    assert fg.clients[y] == []  # y fed only the pruned node
    assert fg.toposort() == [new.owner, p.owner]
    fg.check_integrity()


def test_replace_output_directly():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p])
    fg.replace(p, s)
    assert fg.outputs == [s] and p not in fg.variables
    assert fg.apply_nodes == {s.owner}
    fg.check_integrity()


def test_replace_converts_through_the_type():
    x = floatt("x")
    r = RangeType(0, 1)("r")
    out = neg(r)
    fg = FunctionGraph([x, r], [out])
    fg.replace(r, x)  # x is wrapped in AssertRange to become a Range[0, 1]
    wrapped = out.owner.inputs[0]
    assert isinstance(wrapped.owner.op, AssertRange) and wrapped.owner.inputs == [x]
    assert wrapped.owner in fg.apply_nodes
    fg.check_integrity()


def test_replace_refuses_an_incompatible_type():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p])
    g = generic("g")
    with pytest.raises(
        TypeError, match="Cannot convert Type Generic .of Variable g. into Type FloatType"
    ):
        fg.replace(s, g)
    assert p.owner.inputs[0] is s  # nothing changed
    fg.check_integrity()


def test_change_node_input_refuses_a_non_subtype():
    r = RangeType(0, 1)("r")
    fg = FunctionGraph([r], [neg(r)])
    node = fg.outputs[0].owner
    with pytest.raises(TypeError, match="must be a subtype"):
        fg.change_node_input(node, 0, RangeType(0, 5)("wide"))


def test_replace_with_a_variable_needing_a_missing_input():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p])
    with pytest.raises(MissingInputError, match="ghost"):
        fg.replace(s, neg(floatt("ghost")))
    fg.check_integrity()


def test_replace_errors_for_foreign_variables():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p])
    with pytest.raises(ValueError, match="not a Variable of this FunctionGraph"):
        fg.replace(floatt("other"), x)
    with pytest.raises(TypeError, match="not a Variable"):
        fg.replace("s", x)


def test_replace_all_and_toposort_cache_invalidation():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p])
    first = fg.toposort()
    assert fg.toposort() == first
    a, b = neg(x), neg(y)
    fg.replace_all([(x, a), (y, b)])
    order = fg.toposort()
    assert order[-1] is p.owner and {a.owner, b.owner} <= set(order)
    assert s.owner.inputs == [a, b] and p.owner.inputs == [s, a]
    fg.check_integrity()


def test_import_node():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [s])
    extra = neg(p)
    fg.import_node(extra.owner)
    assert {p.owner, extra.owner} <= fg.apply_nodes
    assert (extra.owner, 0) in fg.clients[p]
    with pytest.raises(TypeError, match="Apply"):
        fg.import_node(p)
    with pytest.raises(MissingInputError):
        fg.import_node(add(x, floatt("nowhere")).owner)


def test_check_integrity_notices_tampering():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p])
    fg.clients[x].append((s.owner, 1))
    with pytest.raises(RuntimeError, match="clients of x"):
        fg.check_integrity()
    fg2 = FunctionGraph([x, y], [p])
    fg2.apply_nodes.discard(s.owner)
    with pytest.raises(RuntimeError, match="apply_nodes"):
        fg2.check_integrity()


def test_multi_output_nodes_stay_while_a_sibling_is_used():
    x, y = floatt("x"), floatt("y")
    q, r = divmod_op(x, y)
    fg = FunctionGraph([x, y], [q, r])
    fg.replace(q, x)
    assert r.owner in fg.apply_nodes and q in fg.variables
    fg.replace(r, y)
    assert fg.apply_nodes == set() and fg.variables == {x, y}
    fg.check_integrity()


def test_clone_option_leaves_the_original_graph_alone():
    x, y, s, p = build()
    fg = FunctionGraph([x, y], [p], clone=True)
    assert fg.inputs[0] is not x and fg.inputs[0].name == "x"
    assert fg.outputs[0] is not p and p.owner.inputs == [s, x]
    fg.replace(fg.outputs[0].owner.inputs[0], fg.inputs[1])
    assert p.owner.inputs == [s, x]
    fg.check_integrity()


def test_clone_and_clone_get_equiv():
    x, y, s, p = build()
    c = Constant(floatt, 3.0)
    out = add(p, c)
    fg = FunctionGraph([x, y], [out])
    fg2, equiv = fg.clone_get_equiv()
    assert fg2.inputs == [equiv[x], equiv[y]] and fg2.outputs == [equiv[out]]
    assert equiv[s.owner] in fg2.apply_nodes and equiv[s.owner] is not s.owner
    assert equiv[c] is not c and equiv[c].data is c.data
    assert len(fg2.toposort()) == 3
    fg2.check_integrity()
    assert isinstance(fg.clone(), FunctionGraph)


def test_clone_get_equiv_function():
    x, y, s, p = build()
    equiv = clone_get_equiv([x, y], [p])
    assert set(equiv) == {x, y, s, p, s.owner, p.owner}
    assert equiv[p].owner.inputs == [equiv[s], equiv[x]]
