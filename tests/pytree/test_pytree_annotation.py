"""``PyTree`` annotations: jaxtyping's forms, path-dependent sizes, leaves, errors, lattice.

Checks run as ``isinstance`` inside one dimension scope (``annotate.scope``),
which is what a checked call does for its parameters; every test runs on each
flattening backend that can be loaded (``backend`` fixture).
"""

from __future__ import annotations

import pickle
from typing import NamedTuple, Union

import numpy as np
import pytest

from tensortypes.annotate import Float, Int, Shaped
from tensortypes.annotate._scope import Bindings, scope
from tensortypes.errors import AnnotationError, TypeCheckError
from tensortypes.runtime import typechecked
from tensortypes.pytree import PyTree, PyTreeDef, register_pytree_node, set_backend, tree_structure
from tensortypes.pytree.backends import NAMES, load
from tensortypes.pytree.lattice import PyTreeType
from tensortypes.types import ANY, INT, STR, ListType, TupleType, ann_to_type, is_subtype


def _available() -> list[str]:
    out = []
    for name in NAMES:
        try:
            load(name)
        except ImportError:
            continue
        out.append(name)
    return out


@pytest.fixture(params=_available(), autouse=True)
def backend(request):
    set_backend(request.param)
    yield request.param
    set_backend(None)


def all_pass(*pairs) -> bool:
    """``isinstance`` of every (value, annotation) pair in one scope, in order."""
    with scope():
        return all(isinstance(v, a) for v, a in pairs)


# -- jaxtyping's PyTree annotations, a. to f. -------------------------------------------------------------------


def test_a_plain_pytree_is_any():
    assert isinstance(object(), PyTree) and isinstance(None, PyTree)
    assert ann_to_type(PyTree) is ANY and PyTree[Union[int, str, None]].type is not ANY


def test_b_every_leaf_must_match():
    assert isinstance({"a": (1, 2), "b": [3, None]}, PyTree[int])
    assert not isinstance({"a": (1, "2")}, PyTree[int])
    assert isinstance(("a", 1), PyTree[Union[int, str]])
    arrays = [np.zeros((2, 3), np.float32), {"w": np.ones((2, 3), np.float32)}]
    assert isinstance(arrays, PyTree[Float[np.ndarray, "b c"]])
    # Plain names are shared by every leaf; only ?names may vary between leaves.
    assert not isinstance(arrays + [np.ones((4, 5))], PyTree[Float[np.ndarray, "b c"]])
    assert not isinstance(arrays + [np.zeros(3, np.int32)], PyTree[Float[np.ndarray, "..."]])


def test_c_a_structure_name_binds_like_a_size():
    T = PyTree[int, "T"]
    assert all_pass(((1, 2), T), ((3, 4), T))
    assert not all_pass(((1, 2), T), ([3, 4], T))
    assert not all_pass(((1, 2), T), ((3, 4, 5), T))
    assert not all_pass(({"a": 1}, T), ({"b": 1}, T))
    with scope():  # names in different scopes are independent
        assert isinstance((1, 2), T)
    with scope():
        assert isinstance([1], T)


def test_d_a_composite_is_the_composition_of_bound_structures():
    x, y, z = (1, 2), {"key": 3}, {"key": (4, 5)}
    pieces = ((x, PyTree[int, "T"]), (y, PyTree[int, "S"]))
    assert all_pass(*pieces, (z, PyTree[int, "S T"]))
    assert not all_pass(*pieces, ((4, 5), PyTree[int, "S T"]))
    assert not all_pass(*pieces, ({"key": (4, 5, 6)}, PyTree[int, "S T"]))
    assert all_pass(*pieces, (({"key": 1}, {"key": 2}), PyTree[int, "T S"]))


def test_d_an_unbound_piece_is_an_annotation_error_naming_it():
    # AnnotationError, as jaxtyping raises ("Cannot process composite structure ..."):
    # the annotation cannot be checked there, whatever the value.
    with scope():
        assert isinstance((1, 2), PyTree[int, "T"])
        with pytest.raises(AnnotationError, match=r"structure name S is not bound"):
            isinstance({"key": (4, 5)}, PyTree[int, "S T"])
    with scope(), pytest.raises(AnnotationError, match=r"names S, T are not bound"):
        isinstance({"key": (4, 5)}, PyTree[int, "S T"])
    # Outside any scope nothing can be bound: the answer is no, with the reason.
    assert not isinstance({"key": (4, 5)}, PyTree[int, "S T"])
    assert "names S, T are not bound" in PyTree[int, "S T"].__instancecheck_str__({"key": (4, 5)})


def test_e_leading_ellipsis_matches_the_lower_levels():
    bind = ((0, 0), PyTree[int, "T"])
    lower = PyTree[int, "... T"]
    assert all_pass(bind, ([(1, 2), (3, 4)], lower))
    assert all_pass(bind, ({"a": (1, 2), "b": [(3, 4), None]}, lower))
    assert all_pass(bind, ((5, 6), lower))
    assert not all_pass(bind, ([(1, 2), 3], lower))
    assert not all_pass(bind, ([(1, 2, 3)], lower))


def test_f_trailing_ellipsis_requires_a_prefix():
    bind = ({"a": 0, "b": 0}, PyTree[int, "T"])
    prefix = PyTree[int, "T ..."]
    assert all_pass(bind, ({"a": (1, 2), "b": [3]}, prefix))
    assert all_pass(bind, ({"a": 1, "b": 2}, prefix))
    assert not all_pass(bind, ({"a": 1}, prefix))
    assert not all_pass(bind, ((1, 2), prefix))


def test_composite_with_ellipsis_composes_first():
    pieces = (((0, 0), PyTree[int, "S"]), ([0], PyTree[int, "T"]))
    assert all_pass(*pieces, ({"k": ([1], [2])}, PyTree[int, "... S T"]))
    assert all_pass(*pieces, (([(1, 2)], [3]), PyTree[int, "S T ..."]))
    assert not all_pass(*pieces, (((1,), [3]), PyTree[int, "S T ..."]))


# -- path-dependent sizes -----------------------------------------------------------------

PATHED = PyTree[Shaped[np.ndarray, "?foo"], "T"]


def test_path_dependent_sizes_agree_per_position_across_trees():
    x0, x1 = np.arange(3), np.arange(5)
    y0, y1 = np.arange(3) + 1, np.arange(5) + 1
    assert all_pass(((x0, x1), PATHED), ((y0, y1), PATHED))
    assert not all_pass(((x1, x1), PATHED), ((y0, y1), PATHED))


def test_path_dependent_failure_names_the_leaf():
    x1, y0, y1 = np.arange(5), np.arange(3), np.arange(5)
    with scope() as b:
        b.label = "x"
        assert isinstance((x1, x1), PATHED)
        reason = PATHED.type.explain((y0, y1), b, "y")
    assert reason.startswith("leaf y[0] is i64[3](numpy), expected Shaped[np.ndarray, ")
    assert "axis 0 of y[0] has size 3, but foo=5 was bound by axis 0 of" in reason


def test_path_dependent_sizes_need_a_structure_name():
    # As in jaxtyping, the annotation may be written; checking an array against it,
    # or compiling a checker for it, is the error.
    unnamed = PyTree[Shaped[np.ndarray, "?foo"]]
    assert not isinstance([None, "x"], unnamed)  # no array leaf reaches '?foo'
    with pytest.raises(AnnotationError, match="except when contained with structured"):
        isinstance([np.zeros(2)], unnamed)

    @typechecked
    def f(x: unnamed) -> None:
        pass

    with pytest.raises(AnnotationError, match="cannot check parameter x"):
        f([np.zeros(2)])


def test_ambiguous_nested_path_dependent_trees_are_refused():
    with pytest.raises(AnnotationError, match="ambiguous which PyTree"):
        isinstance([[np.zeros(2)]], PyTree[PATHED, "S"])
    with pytest.raises(AnnotationError, match="ambiguous which PyTree"):
        isinstance([[np.zeros(2)]], PyTree[PyTree[PyTree[PATHED, "S"]], "T"])
    assert PyTree[PATHED] is PyTree[PATHED]


# -- leaves ------------------------------------------------------------------------------


class Point(NamedTuple):
    x: int
    y: int


class Module:
    """A registered node class, like an equinox Module."""

    def __init__(self, w, b):
        self.w, self.b = w, b


register_pytree_node(Module, lambda m: ((m.w, m.b), None), lambda _, ch: Module(*ch))


def test_instances_of_the_leaf_type_are_not_flattened():
    assert isinstance([Point(1, 2), Point(3, 4)], PyTree[Point])
    assert all_pass(([Point(1, 2)], PyTree[Point, "T"]), ([Point(5, 6)], PyTree[Point, "T"]))
    assert all_pass(([Point(1, 2)], PyTree[Point, "T"]), (["leaf"], PyTree[str, "T"]))
    assert isinstance({"m": Module(1, 2)}, PyTree[Module])
    assert isinstance({"m": Module(1, 2)}, PyTree[int])
    assert isinstance([(1, 2), (3, 4)], PyTree[tuple[int, int]])
    assert all_pass(([(1, 2)], PyTree[tuple[int, int], "T"]), (["x"], PyTree[str, "T"]))


def test_array_leaves_bind_sizes_in_the_same_scope():
    tree = {"a": np.zeros((2, 3)), "b": [np.zeros((2, 3))]}
    with scope() as b:
        assert isinstance(tree, PyTree[Float[np.ndarray, "n m"]])
        assert b.sizes["n"] == 2 and b.sizes["m"] == 3
        assert isinstance(np.zeros(3), Float[np.ndarray, "m"])
        assert not isinstance(np.zeros(4), Float[np.ndarray, "m"])
    assert not isinstance([np.zeros((2, 3)), np.zeros((2, 4))], PyTree[Float[np.ndarray, "n m"]])


def test_a_failed_check_leaves_the_scope_untouched():
    with scope() as b:
        bad = [np.zeros((2, 3)), np.zeros(4, np.int32)]
        assert not isinstance(bad, PyTree[Float[np.ndarray, "n m"], "T"])
        assert b.sizes == {}
        assert not isinstance([1, "x"], PyTree[int, "T"])
        assert "structure T" not in b.sizes


def test_union_and_container_leaves_bind_sizes():
    leaf = Union[Float[np.ndarray, "n"], tuple[Float[np.ndarray, "n"], int]]
    assert isinstance([np.zeros(3), (np.zeros(3), 1)], PyTree[leaf])
    assert not isinstance([np.zeros(3), (np.zeros(4), 1)], PyTree[leaf])


def test_none_leaf_type_makes_none_a_leaf():
    assert all_pass(((None, None), PyTree[None, "T"]), ((1, 2), PyTree[int, "T"]))


# -- the annotation objects ---------------------------------------------------------------


def test_annotations_are_interned_pickled_printed():
    a = PyTree[Float[np.ndarray, "b c"], "T"]
    assert a is PyTree[Float[np.ndarray, "b c"], "T"]
    assert pickle.loads(pickle.dumps(a)) is a and pickle.loads(pickle.dumps(PyTree)) is PyTree
    assert str(a) == "PyTree[Float[ndarray, 'b c'], 'T']"
    assert str(PyTree[int | None]) == "PyTree[int | None]"
    assert repr(a) == "<class 'PyTree[Float[ndarray, 'b c'], 'T']'>"
    assert a.leaftype is Float[np.ndarray, "b c"] and a.structure == "T"
    assert PyTree[int].structure is None and issubclass(a, PyTree)
    with pytest.raises(TypeError, match="cannot be instantiated"):
        a()


def test_type_is_the_lattice_pytree_type():
    t = ann_to_type(PyTree[int, "T"])
    assert type(t) is PyTreeType and t is PyTreeType(INT, "T") and t.leaf is INT
    assert str(t) == "PyTree[int, 'T']"
    assert pickle.loads(pickle.dumps(t)) is t


@pytest.mark.parametrize(
    "item, fragment, caret",
    [
        ((int, "1x"), "must be a Python identifier", "^^"),
        ((int, "... T ..."), "not both", "^^^"),
        ((int, "..."), "needs a structure name", "^^^"),
    ],
)
def test_malformed_structures_are_annotation_errors_with_a_caret(item, fragment, caret):
    with pytest.raises(AnnotationError, match=fragment) as info:
        PyTree[item]
    assert caret in str(info.value)


@pytest.mark.parametrize(
    "item, fragment",
    [
        ((int, "T", "x"), "got 3 arguments"),
        ((int, ""), "cannot be empty"),
        ((int, 3), "is a string"),
        ((Float[np.ndarray, "n"], None), "is a string"),
    ],
)
def test_malformed_subscripts_are_annotation_errors(item, fragment):
    with pytest.raises(AnnotationError, match=fragment):
        PyTree[item]


def test_subscripting_twice_is_refused():
    with pytest.raises(AnnotationError, match="already subscripted"):
        PyTree[int][str]


def test_instancecheck_str_gives_the_reason():
    assert PyTree[int].__instancecheck_str__([1, 2]) == ""
    reason = PyTree[int].__instancecheck_str__({"a": [1, "x"]})
    assert reason == "leaf ['a'][1] is str 'x', expected int"
    tree = {"params": [np.zeros(2), np.zeros(2), np.zeros(2), Module(np.zeros(3), None)]}
    reason = PyTree[Float[np.ndarray, "2"]].type.explain(tree, None, "x")
    assert reason.startswith("leaf x['params'][3]")
    assert "expected Float[np.ndarray, '2']" in reason and "has size 3" in reason


def test_structure_mismatch_message_names_the_binding():
    with scope() as b:
        b.label = "x"
        assert isinstance((1, 2), PyTree[int, "T"])
        reason = PyTree[int, "T"].type.explain([1, 2], b, "y")
    assert reason.startswith("y has structure PyTreeDef([*, *]") or reason.startswith(
        "y has structure PyTreeSpec([*, *]"
    )
    assert "but T=" in reason and "was bound by x" in reason


def test_filter_raises_type_check_error():
    t = PyTree[int].type
    assert t.filter([1, (2,)]) == [1, (2,)]
    with pytest.raises(TypeCheckError, match=r"expected PyTree\[int\]: leaf \[1\]"):
        t.filter([1, "a"])


# -- PyTreeDef and the lattice ------------------------------------------------------------


def test_pytreedef_annotation_accepts_every_backend_structure():
    assert isinstance(tree_structure((1, 2)), PyTreeDef)
    assert isinstance(tree_structure((1, 2), backend="own"), PyTreeDef)
    assert not isinstance((1, 2), PyTreeDef)
    t = ann_to_type(PyTreeDef)
    assert t.is_valid_value(tree_structure({"a": 1}))


def test_subtype_relations():
    tree_int = PyTree[int].type
    assert is_subtype(INT, tree_int) is True
    assert is_subtype(TupleType([INT, ListType(INT)]), tree_int) is True
    assert is_subtype(ListType(STR), tree_int) is False
    assert is_subtype(tree_int, PyTree[Union[int, str]].type) is True
    assert is_subtype(PyTree[str].type, tree_int) is False
    assert is_subtype(PyTree[int, "T"].type, tree_int) is True
    assert is_subtype(INT, PyTree[int, "S T"].type) is None
    assert is_subtype(tree_int, ANY) is True


def test_path_dependent_sizes_on_empty_and_growing_trees():
    assert all_pass(((), PATHED), ((), PATHED))
    big = tuple(np.zeros(i % 4) for i in range(50))
    assert all_pass((big, PATHED), (tuple(np.ones(i % 4) for i in range(50)), PATHED))
    assert not all_pass((big, PATHED), (tuple(np.ones(3) for _ in range(50)), PATHED))


# -- the fast answer and the explanation agree ----------------------------------------------

_AGREEMENT = [
    (PyTree[int], [[1, (2, 3)], [1, "x"], "x", None, {"a": {"b": 2.5}}]),
    (PyTree[Union[int, str]], [[1, "x"], [1, 2.0], ()]),
    (
        PyTree[Float[np.ndarray, "n"]],
        [
            [np.zeros(2), np.ones(2)],
            [np.zeros(2), np.ones(3)],
            [np.zeros((2, 2))],
            [np.zeros(2, np.int8)],
            [1],
        ],
    ),
    (
        PyTree[Int[np.ndarray, "*b c"] | None, "T"],
        [
            [np.zeros((2, 3), int), None],
            [np.zeros((2, 3), int), np.zeros(3, int)],
            [np.zeros((2, 3), int)],
        ],
    ),
    (
        PyTree[tuple[Float[np.ndarray, "n"], int]],
        [[(np.zeros(2), 1)], [(np.zeros(2), "a")], [(np.zeros(2), 1), (np.zeros(3), 1)]],
    ),
    (PATHED, [(np.zeros(2), np.zeros(3)), (np.zeros(2),), [np.zeros((1, 1))]]),
]


@pytest.mark.parametrize("annotation, values", _AGREEMENT, ids=lambda x: repr(x)[:40])
def test_fast_and_slow_paths_agree_and_bind_alike(annotation, values):
    t = annotation.type
    fast, slow = Bindings(), Bindings()
    for value in values:
        answer = t.check(value, fast)
        reason = t.explain(value, slow, "x")
        assert answer == (reason is None), (value, reason)
        assert {k: v for k, v in fast.sizes.items()} == {k: v for k, v in slow.sizes.items()}, value
