"""Leaf paths read as Python on every backend: ``x['params'][3].weight``."""

from __future__ import annotations

import collections
import doctest
import importlib

import pytest
from pytree_corpus import Box, Point

from tensortypes.pytree import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    SequenceKey,
    format_path,
    keystr,
    register_pytree_node,
    tree_flatten_with_path,
)
from tensortypes.pytree.backends import NAMES, load
from tensortypes.pytree.paths import as_key


class Layer:
    """Registered with keys: its child reads ``.weight``."""

    def __init__(self, weight):
        self.weight = weight


register_pytree_node(
    Layer,
    lambda m: ((m.weight,), None),
    lambda _, ch: Layer(*ch),
    lambda m: (((GetAttrKey("weight"), m.weight),), None),
)


class Keyless:
    def __init__(self, a, b):
        self.a, self.b = a, b


register_pytree_node(Keyless, lambda k: ((k.a, k.b), None), lambda _, ch: Keyless(*ch))


def _available() -> list[str]:
    names = []
    for name in NAMES:
        try:
            load(name)
        except ImportError:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("backend", _available())
def test_paths_read_as_python_on_every_backend(backend):
    tree = {
        "params": [0, 1, 2, Layer(3)],
        "state": (Point(4, None),),
        "od": collections.OrderedDict(z=5),
        "k": Keyless(6, 7),
        "box": Box("l", 8, 9),
    }
    paths = {
        leaf: format_path("x", path) for path, leaf in tree_flatten_with_path(tree, backend=backend)
    }
    assert paths == {
        0: "x['params'][0]",
        1: "x['params'][1]",
        2: "x['params'][2]",
        3: "x['params'][3].weight",
        4: "x['state'][0].x",
        5: "x['od']['z']",
        6: "x['k'][<flat index 0>]",
        7: "x['k'][<flat index 1>]",
        8: "x['box'].a",
        9: "x['box'].b",
    }


@pytest.mark.parametrize("backend", _available())
def test_is_leaf_applies_to_paths(backend):
    pairs = tree_flatten_with_path(
        {"a": (1, 2), "b": 3}, lambda x: isinstance(x, tuple), backend=backend
    )
    assert [(keystr(p), leaf) for p, leaf in pairs] == [("['a']", (1, 2)), ("['b']", 3)]


def test_keys_print_compare_and_pickle():
    import pickle

    assert str(DictKey("a")) == "['a']" and str(DictKey(1)) == "[1]"
    assert str(SequenceKey(2)) == "[2]" and str(GetAttrKey("w")) == ".w"
    assert str(FlattenedIndexKey(0)) == "[<flat index 0>]"
    assert DictKey("a") == DictKey("a") and DictKey("a") != SequenceKey("a")
    assert hash(GetAttrKey("w")) == hash(GetAttrKey("w"))
    assert pickle.loads(pickle.dumps(GetAttrKey("w"))) == GetAttrKey("w")
    with pytest.raises(AttributeError):
        DictKey("a").key = "b"


def test_foreign_entries_are_converted(jax):
    jtu = jax.tree_util
    assert as_key(jtu.DictKey("a")) == DictKey("a")
    assert as_key(jtu.SequenceKey(1)) == SequenceKey(1)
    assert as_key(jtu.GetAttrKey("w")) == GetAttrKey("w")
    assert as_key(jtu.FlattenedIndexKey(2)) == FlattenedIndexKey(2)
    assert keystr((jtu.DictKey("p"), jtu.SequenceKey(0))) == "['p'][0]"


def test_root_alone():
    assert format_path("x", ()) == "x"


@pytest.mark.parametrize(
    "module",
    [
        "paths",
        "_registry",
        "structure",
        "flatten",
        "backends",
        "api",
        "_spec",
        "_leaves",
        "lattice",
        "annotation",
    ],
)
def test_docstring_examples_hold(module):
    mod = importlib.import_module(f"tensortypes.pytree.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
