"""Graph walking: ancestors, graph_inputs, variables, io_toposort."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_toys import add, divmod_op, floatt, neg
from tensortypes.graph import Constant, ancestors, graph_inputs, io_toposort, variables


def small_graph():
    x, y = floatt("x"), floatt("y")
    s = add(x, y)
    q, r = divmod_op(s, x)
    out = add(q, Constant(floatt, 1.0))
    return x, y, s, q, r, out


def test_ancestors_depth_first_each_once():
    x, y, s, q, r, out = small_graph()
    found = list(ancestors([out]))
    assert found[0] is out and found[1] is q
    assert len(found) == len(set(found))
    assert set(found) == {out, q, s, x, y, out.owner.inputs[1]}
    assert r not in found  # a sibling output is not an ancestor


def test_ancestors_blockers():
    x, y, s, q, r, out = small_graph()
    found = set(ancestors([out], blockers=[s]))
    assert s in found and y not in found and x in found  # x is also an input of divmod


def test_graph_inputs():
    x, y, s, q, r, out = small_graph()
    roots = graph_inputs([out])
    assert roots[:2] == [x, y] and len(roots) == 3
    assert isinstance(roots[2], Constant)
    assert graph_inputs(out) == roots  # a single Variable is accepted
    assert set(graph_inputs([out], blockers=[s])) == {s, x, roots[2]}


def test_variables_between_includes_sibling_outputs():
    x, y, s, q, r, out = small_graph()
    found = set(variables([x, y], [out]))
    assert {x, y, s, q, r, out} <= found and len(found) == 7
    assert set(variables([s], [q])) == {s, q, r, x}


def test_io_toposort_orders_producers_first():
    x, y, s, q, r, out = small_graph()
    order = io_toposort([x, y], [out])
    assert order == [s.owner, q.owner, out.owner]
    assert io_toposort([s], [out]) == [q.owner, out.owner]
    assert io_toposort([x, y], [x]) == []
    assert io_toposort([x, y], [r, q]) == [s.owner, q.owner]


def test_io_toposort_long_chain_without_recursion():
    x = floatt("x")
    v = x
    nodes = []
    for _ in range(10_000):
        v = neg(v)
        nodes.append(v.owner)
    assert io_toposort([x], [v]) == nodes
    assert len(list(ancestors([v]))) == 10_001
    assert graph_inputs([v]) == [x]


def test_io_toposort_detects_a_cycle():
    x = floatt("x")
    a = neg(x)
    b = neg(a)
    a.owner.inputs[0] = b  # rewired by hand into a loop
    with pytest.raises(ValueError, match="cycle"):
        io_toposort([x], [b])


def test_walkers_refuse_non_variables():
    with pytest.raises(TypeError, match=r"outputs\[1\] must be a Variable"):
        io_toposort([], [floatt(), 3])
    with pytest.raises(TypeError, match="must be a Variable or an iterable"):
        list(ancestors(5))
    with pytest.raises(TypeError, match="must be a Variable or an iterable"):
        graph_inputs("x")


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), max_size=40))
def test_random_dag_toposort_respects_dependencies(edges):
    roots = [floatt(f"r{i}") for i in range(3)]
    pool = list(roots)
    for a, b in edges:
        pool.append(add(pool[a % len(pool)], pool[b % len(pool)]))
    order = io_toposort(roots, pool)
    position = {node: i for i, node in enumerate(order)}
    assert len(order) == len(edges) == len(position)
    for node in order:
        for inp in node.inputs:
            if inp.owner is not None:
                assert position[inp.owner] < position[node]
