"""Our own flattener follows JAX's rules: the corpus and random trees against jax.tree_util.

The trees of ``pytree_corpus`` are flattened by ours and by JAX's; leaves must be
the very same objects in the same order, the structures must print alike, count
alike, rebuild the tree, and compare equal exactly when JAX's compare equal.
optree (in the ``tensortypes`` namespace) is held to the same answers except for
printing. Without JAX the comparison tests skip; ``test_pytree_backends`` covers
the JAX-less interpreters in subprocesses.
"""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from pytree_corpus import Box, MyList, Opaque, Point, corpus, trees_st

from tensortypes.pytree import (
    PyTreeDef,
    get_backend,
    tree_flatten,
    tree_leaves,
    tree_structure,
    tree_unflatten,
)
from tensortypes.pytree.flatten import own_flatten


def _same_leaves(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _check_against(reference, tree, backend: str, compare_repr: bool) -> None:
    ref_leaves, ref_def = reference.tree_flatten(tree)
    leaves, structure = tree_flatten(tree, backend=backend)
    assert _same_leaves(leaves, ref_leaves), (tree, leaves, ref_leaves)
    assert structure.num_leaves == ref_def.num_leaves
    assert structure.num_nodes == ref_def.num_nodes
    if compare_repr:
        assert repr(structure) == repr(ref_def)
    rebuilt = tree_unflatten(structure, leaves)
    assert repr(tree_structure(rebuilt, backend=backend)) == repr(structure)
    assert _same_leaves(tree_leaves(rebuilt, backend=backend), ref_leaves)


@pytest.mark.parametrize("index", range(len(corpus())))
def test_own_flattener_matches_jax_on_the_corpus(jax, index):
    _check_against(jax.tree_util, corpus()[index], "own", compare_repr=True)


@pytest.mark.parametrize("index", range(len(corpus())))
def test_optree_matches_jax_on_the_corpus(jax, index):
    pytest.importorskip("optree")
    _check_against(jax.tree_util, corpus()[index], "optree", compare_repr=False)


def test_structure_equality_agrees_with_jax_on_every_pair(jax):
    trees = corpus() + [
        (5, 6),
        {"a": 7, "b": 8},
        Point(0, 0),
        [None, [None]],
        Box("other", 1, (2, 3)),
        Box("lbl", 9, (9, 9)),
    ]
    ref = [jax.tree_util.tree_structure(t) for t in trees]
    backends = ["own"] + (["optree"] if _has("optree") else [])
    for backend in backends:
        mine = [tree_structure(t, backend=backend) for t in trees]
        for i, j in itertools.combinations_with_replacement(range(len(trees)), 2):
            assert (mine[i] == mine[j]) == (ref[i] == ref[j]), (backend, trees[i], trees[j])
            if mine[i] == mine[j]:
                assert hash(mine[i]) == hash(mine[j])


@settings(deadline=None, max_examples=150)
@given(trees_st)
def test_random_trees_flatten_as_jax_does(tree):
    jax = pytest.importorskip("jax")
    _check_against(jax.tree_util, tree, "own", compare_repr=True)


@settings(deadline=None, max_examples=60)
@given(trees_st, trees_st)
def test_random_structures_compare_as_jax_does(a, b):
    jtu = pytest.importorskip("jax").tree_util
    assert (tree_structure(a, backend="own") == tree_structure(b, backend="own")) == (
        jtu.tree_structure(a) == jtu.tree_structure(b)
    )


def test_is_leaf_stops_flattening_like_jax(jax):
    tree = {"a": (1, 2), "b": [(3,), None], "c": None}
    for is_leaf in (
        lambda x: isinstance(x, tuple),
        lambda x: x is None,
        lambda x: isinstance(x, list),
    ):
        ref_leaves, ref_def = jax.tree_util.tree_flatten(tree, is_leaf)
        leaves, structure = tree_flatten(tree, is_leaf, backend="own")
        assert _same_leaves(leaves, ref_leaves)
        assert repr(structure) == repr(ref_def)


def test_is_leaf_on_the_root_makes_one_leaf():
    leaves, structure = own_flatten([1, 2], lambda x: True)
    assert leaves == [[1, 2]] and structure.is_leaf() and structure.num_leaves == 1


# -- JAX's rules, stated without JAX ----------------------------------------------------


def test_dict_leaves_come_in_sorted_key_order():
    assert own_flatten({"b": 1, "c": 2, "a": 3})[0] == [3, 1, 2]


def test_ordered_dict_keeps_insertion_order_and_differs_from_dict():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, structure = own_flatten(od)
    assert leaves == [1, 2]
    assert structure != own_flatten({"b": 1, "a": 2})[1]
    assert tree_unflatten(structure, [5, 6]) == collections.OrderedDict([("b", 5), ("a", 6)])


def test_defaultdict_keeps_its_factory():
    structure = own_flatten(collections.defaultdict(list, {"y": 1, "x": 2}))[1]
    rebuilt = tree_unflatten(structure, [7, 8])
    assert type(rebuilt) is collections.defaultdict and rebuilt.default_factory is list
    assert dict(rebuilt) == {"x": 7, "y": 8}
    assert structure != own_flatten(collections.defaultdict(int, {"y": 1, "x": 2}))[1]


def test_none_is_a_node_without_children():
    leaves, structure = own_flatten(None)
    assert leaves == [] and structure.num_leaves == 0 and structure.num_nodes == 1
    assert not structure.is_leaf()
    assert repr(structure) == "PyTreeDef(None)"


def test_namedtuple_is_a_node_distinct_from_tuple():
    leaves, structure = own_flatten(Point(1, (2, 3)))
    assert leaves == [1, 2, 3]
    assert structure != own_flatten((1, (2, 3)))[1]
    assert type(tree_unflatten(structure, [4, 5, 6])) is Point


def test_subclasses_and_unregistered_classes_are_leaves():
    for value in (
        MyList([1, 2]),
        Opaque(),
        np.zeros(3),
        "abc",
        b"x",
        1.5,
        collections.deque([1, 2]),
    ):
        leaves, structure = own_flatten(value)
        assert leaves == [value] or leaves[0] is value
        assert structure.is_leaf()


def test_unsortable_dict_keys_raise_value_error_as_in_jax():
    with pytest.raises(ValueError, match="sorting pytree dictionary keys"):
        own_flatten({1: "a", "b": 2})


def test_unflatten_checks_the_leaf_count():
    structure = own_flatten((1, 2))[1]
    with pytest.raises(ValueError, match="expected 2, got 3"):
        structure.unflatten([1, 2, 3])


def test_registered_node_flattens_on_every_backend_in_use():
    tree = [Box("t", 1, [2, None])]
    assert own_flatten(tree)[0] == [1, 2]
    assert tree_leaves(tree) == [1, 2]  # the backend in use (JAX, optree or ours)
    assert tree_unflatten(tree_structure(tree), [3, 4]) == [Box("t", 3, [4, None])]
    assert get_backend().name in ("jax", "optree", "own")


def test_own_structure_is_a_pytreedef():
    assert isinstance(own_flatten((1,))[1], PyTreeDef)


def _has(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def test_nodes_registered_with_jax_directly_are_respected_on_the_jax_backend(jax):
    from tensortypes.pytree import PyTree

    class Linear:  # registered the way equinox registers its modules: with JAX itself
        def __init__(self, weight, bias):
            self.weight, self.bias = weight, bias

    jax.tree_util.register_pytree_node(
        Linear, lambda m: ((m.weight, m.bias), None), lambda _, ch: Linear(*ch)
    )
    tree = {"layer": Linear(np.zeros((2, 3)), np.zeros(3))}
    assert [x.shape for x in tree_leaves(tree, backend="jax")] == [(2, 3), (3,)]
    assert tree_leaves(tree, backend="own")[0] is tree["layer"]  # ours was not told
    from tensortypes.annotate import Float
    from tensortypes.pytree import set_backend

    set_backend("jax")
    try:
        assert isinstance(tree, PyTree[Float[np.ndarray, "..."]])
        assert not isinstance(tree, PyTree[Float[np.ndarray, "2 3"]])
    finally:
        set_backend(None)


def test_jax_arrays_are_leaves(jax):
    tree = {"a": jax.numpy.zeros(3), "b": [jax.numpy.ones((2, 2))]}
    for backend in ("jax", "own"):
        leaves = tree_leaves(tree, backend=backend)
        assert [x.shape for x in leaves] == [(3,), (2, 2)]
