"""Trees shared by the PyTree tests: a hand-written corpus and a hypothesis strategy.

Every tree uses only the node kinds on which all three backends agree (tuple,
list, dict with comparable keys, None, namedtuple, OrderedDict, defaultdict,
and the registered ``Box``), plus leaves of several kinds.
"""

from __future__ import annotations

import collections
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

from tensortypes.pytree import GetAttrKey, register_pytree_node


class Point(NamedTuple):
    x: object
    y: object


Pair = collections.namedtuple("Pair", "first second")


class Box:
    """A registered custom node with aux data (its label) and two children."""

    def __init__(self, label, a, b):
        self.label, self.a, self.b = label, a, b

    def __eq__(self, other):
        return (
            type(other) is Box
            and self.label == other.label
            and self.a == other.a
            and self.b == other.b
        )

    def __repr__(self):
        return f"Box({self.label!r}, {self.a!r}, {self.b!r})"


register_pytree_node(
    Box,
    lambda b: ((b.a, b.b), b.label),
    lambda label, ch: Box(label, *ch),
    lambda b: (((GetAttrKey("a"), b.a), (GetAttrKey("b"), b.b)), b.label),
)


class Opaque:
    """An unregistered class: always a leaf."""

    __slots__ = ()


class MyList(list):
    """A list subclass: a leaf under JAX's rules."""


def corpus() -> list:
    arr = np.arange(3.0)
    od = collections.OrderedDict([("b", 1), ("a", (2, 3))])
    dd = collections.defaultdict(list, {"z": [1], "y": 2})
    return [
        1,
        None,
        (),
        [],
        {},
        "text",
        arr,
        Opaque(),
        MyList([1, 2]),
        (1,),
        (1, 2),
        [1, (2, 3)],
        {"b": 1, "a": 2},
        {"a": None, "b": [None, 4]},
        {2: "x", 1: "y"},
        {(1, 2): 3, (0, 5): 4},
        Point(1, 2),
        Point((1, 2), None),
        Pair([1], {"k": 2}),
        od,
        collections.OrderedDict(),
        dd,
        collections.defaultdict(int),
        Box("lbl", 1, (2, 3)),
        [Box("p", None, Box("q", 1, 2))],
        {"params": [arr, arr, {"w": arr, "b": None}], "state": (Point(arr, 3),)},
        [[[[[1]]]]],
        ((), [], {}, None),
        (Opaque(), MyList(), "s", 2.5, True),
    ]


leaves_st = st.one_of(
    st.integers(-3, 3),
    st.text(max_size=2),
    st.floats(allow_nan=False),
    st.booleans(),
    st.builds(np.zeros, st.integers(0, 3)),
)
keys_st = st.text(alphabet="abcdef", min_size=1, max_size=3)


def _extend(children):
    return st.one_of(
        st.tuples(children, children).map(tuple),
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=4),
        st.dictionaries(keys_st, children, max_size=4),
        st.none(),
        st.builds(Point, children, children),
        st.builds(Pair, children, children),
        st.dictionaries(keys_st, children, max_size=3).map(
            lambda d: collections.OrderedDict(reversed(list(d.items())))
        ),
        st.dictionaries(keys_st, children, max_size=3).map(
            lambda d: collections.defaultdict(list, d)
        ),
        st.builds(Box, st.sampled_from(["u", "v"]), children, children),
    )


trees_st = st.recursive(leaves_st | st.none(), _extend, max_leaves=12)
