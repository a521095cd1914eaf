"""Structures on every backend: equality, counts, composition, prefixes, suffixes, printing."""

from __future__ import annotations

import pickle

import pytest
from pytree_corpus import Point

from tensortypes.pytree import PyTreeDef, is_structure, tree_structure, tree_unflatten
from tensortypes.pytree.backends import NAMES, load, of_structure
from tensortypes.pytree.flatten import own_flatten


def _backends() -> list[str]:
    found = []
    for name in NAMES:
        try:
            load(name)
        except ImportError:
            continue
        found.append(name)
    return found


BACKENDS = _backends()


@pytest.fixture(params=BACKENDS)
def backend(request):
    return load(request.param)


def s(tree, backend):
    return backend.flatten(tree)[1]


def test_equality_and_leaf_counts(backend):
    a, b = s({"a": (1, 2)}, backend), s({"a": ("x", "y")}, backend)
    assert a == b and not (a != b)
    assert a != s({"a": [1, 2]}, backend)
    assert a != s({"b": (1, 2)}, backend)
    assert a.num_leaves == 2 and a.num_nodes == 4
    assert s(None, backend).num_leaves == 0


def test_composition_is_outer_with_inner_at_every_leaf(backend):
    outer, inner = s({"key": 0}, backend), s((0, 0), backend)
    composed = backend.compose(outer, inner)
    assert composed == s({"key": (4, 5)}, backend)
    assert composed.num_leaves == 2
    assert backend.compose(inner, outer) == s(({"key": 1}, {"key": 2}), backend)
    leaf = s(0, backend)
    assert backend.compose(leaf, inner) == inner and backend.compose(inner, leaf) == inner


def test_prefix_test(backend):
    full = s({"a": (1, [2, 3]), "b": None}, backend)
    assert backend.is_prefix(s(0, backend), full)
    assert backend.is_prefix(s({"a": 0, "b": None}, backend), full)
    assert backend.is_prefix(s({"a": (0, 0), "b": None}, backend), full)
    assert backend.is_prefix(full, full)
    assert not backend.is_prefix(s({"a": 0}, backend), full)
    assert not backend.is_prefix(s({"a": (0, 0, 0), "b": None}, backend), full)
    assert not backend.is_prefix(s({"a": [0, 0], "b": None}, backend), full)
    assert not backend.is_prefix(full, s({"a": 0, "b": None}, backend))


def test_suffix_test_follows_jaxtyping(backend):
    pair = s((0, 0), backend)
    assert backend.matches_suffix(s([(1, 2), (3, 4)], backend), pair)
    assert backend.matches_suffix(s({"a": (1, 2), "b": [(3, 4)]}, backend), pair)
    assert backend.matches_suffix(s((1, 2), backend), pair)
    # A node without children needs nothing; a stray leaf fails.
    assert backend.matches_suffix(s([(1, 2), None, ()], backend), pair)
    assert not backend.matches_suffix(s([(1, 2), 3], backend), pair)
    assert not backend.matches_suffix(s([(1, 2, 3)], backend), pair)


def test_structures_are_recognised_and_owned(backend):
    structure = s((1, 2), backend)
    assert is_structure(structure) and isinstance(structure, PyTreeDef)
    assert of_structure(structure) is backend
    assert not isinstance((1, 2), PyTreeDef)
    assert tree_unflatten(structure, ["a", "b"]) == ("a", "b")
    with pytest.raises(TypeError, match="expected a PyTree structure"):
        of_structure((1, 2))


def test_own_structure_prints_like_jax(jax):
    for tree in ({"b": (1,), "a": [None]}, Point(1, 2), (), [[]]):
        assert repr(own_flatten(tree)[1]) == repr(jax.tree_util.tree_structure(tree))


def test_own_structure_pickles_hashes_and_is_immutable():
    structure = own_flatten({"a": (1, Point(2, 3))})[1]
    again = pickle.loads(pickle.dumps(structure))
    assert again == structure and hash(again) == hash(structure)
    assert {structure: 1}[again] == 1
    with pytest.raises(AttributeError):
        structure._node = None


def test_own_structure_parts():
    structure = own_flatten({"a": (1, 2), "b": 3})[1]
    assert structure.node_data() == (dict, ("a", "b"))
    assert [c.num_leaves for c in structure.children()] == [2, 1]
    assert own_flatten(7)[1].node_data() is None and own_flatten(7)[1].children() == []
    with pytest.raises(TypeError, match="same backend"):
        structure.compose("not a structure")


def test_own_structure_with_unhashable_aux_data_still_hashes():
    from tensortypes.pytree import register_pytree_node

    class Tagged:
        def __init__(self, tags, x):
            self.tags, self.x = tags, x

    register_pytree_node(
        Tagged, lambda t: ((t.x,), list(t.tags)), lambda tags, ch: Tagged(tags, *ch)
    )
    a = own_flatten(Tagged(["u"], 1))[1]
    b = own_flatten(Tagged(["u"], 2))[1]
    assert a == b and hash(a) == hash(b)
    assert a != own_flatten(Tagged(["v"], 1))[1]


def test_tree_structure_uses_the_backend_in_use():
    assert is_structure(tree_structure({"a": 1}))


def test_backend_names_are_checked():
    with pytest.raises(ValueError, match="unknown PyTree backend 'numpy'"):
        load("numpy")


# -- laws, on random trees ----------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from pytree_corpus import trees_st  # noqa: E402


@settings(deadline=None, max_examples=60)
@given(trees_st, trees_st)
def test_composition_laws_on_every_backend(a, b):
    for name in BACKENDS:
        backend = load(name)
        outer, inner = s(a, backend), s(b, backend)
        composed = backend.compose(outer, inner)
        assert composed.num_leaves == outer.num_leaves * inner.num_leaves
        assert backend.is_prefix(outer, composed)
        assert backend.matches_suffix(composed, inner)
        assert backend.is_prefix(outer, outer)
        # Rebuilding the composed tree from its structure gives the same structure.
        rebuilt = tree_unflatten(composed, list(range(composed.num_leaves)))
        assert s(rebuilt, backend) == composed
