"""Tests of tensortypes.core.shapes: static shapes, broadcasting and shape patterns."""

from __future__ import annotations

import copy
import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.core.dims import const, parse, symbol
from tensortypes.core.shapes import (
    DimSpec,
    ShapePattern,
    broadcast_compatible,
    broadcast_static_shapes,
    dim_is_super,
    format_static_shape,
    match_static,
    merge_dims,
    merge_shapes,
    normalize_static_shape,
    pattern_is_super,
    shape_is_super,
)
from tensortypes.errors import AnnotationError

n, m, k = symbol("n"), symbol("m"), symbol("k")


def var(expr, **kw):
    return DimSpec("var", expr, **kw)


def fixed(size, **kw):
    return DimSpec("fixed", size, **kw)


def pattern(*specs):
    return ShapePattern(specs)


# -- normalize_static_shape --------------------------------------------------------------------


def test_normalize_accepts_every_entry_form():
    shape = normalize_static_shape(
        [np.int64(2), None, "n", parse("2*n"), True, False, "?", const(4), "2*3"]
    )
    assert shape == (2, None, n, 2 * n, 1, None, None, 4, 6)
    assert type(shape[0]) is int and type(shape[7]) is int


def test_normalize_returns_a_normal_tuple_unchanged():
    shape = (2, None, 3)
    assert normalize_static_shape(shape) is shape
    shape = (n, 2)
    assert normalize_static_shape(shape) is shape
    assert normalize_static_shape(()) == ()
    assert normalize_static_shape(iter([1, 2])) == (1, 2)


@pytest.mark.parametrize(
    "shape, fragment",
    [
        ((2, -1), "axis 1"),
        ((1.0,), "axis 0"),
        ((2, np.float64(3)), "axis 1"),
        ((object(),), "axis 0"),
        (("2-5",), "axis 0"),
        ((2, 3, const(-2)), "axis 2"),
        ((0,) * 65, "at most 64"),
    ],
)
def test_normalize_rejects_bad_entries_naming_the_axis(shape, fragment):
    with pytest.raises(ValueError, match=fragment):
        normalize_static_shape(shape)


def test_normalize_malformed_expression_is_an_annotation_error_with_caret():
    with pytest.raises(AnnotationError) as info:
        normalize_static_shape((2, "n+"))
    assert "axis 1" in str(info.value) and "\n    n+\n" in str(info.value)


@pytest.mark.parametrize("shape", [5, "n", None, b"ab"])
def test_normalize_rejects_non_sequences(shape):
    with pytest.raises(TypeError):
        normalize_static_shape(shape)


def test_format_static_shape():
    assert format_static_shape((2, None, n + 1)) == "(2, None, n+1)"
    assert format_static_shape((3,)) == "(3,)" and format_static_shape(()) == "()"


# -- relations ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (None, None, True),
        (None, 3, True),
        (None, n, True),
        (3, 3, True),
        (3, 4, False),
        (3, None, False),
        (3, n, None),
        (1, n + 1, None),
        (0, n + 1, False),
        (n, n, True),
        (n, None, False),
        (n, 5, None),
        (n, m, None),
        (n, n + 1, False),
        (n + 1, 0, False),
    ],
)
def test_dim_is_super(a, b, expected):
    assert dim_is_super(a, b) is expected


def test_decision_rigid_symbol_against_a_size_cannot_tell():
    assert shape_is_super(("n",), (5,)) is None
    assert pattern_is_super(ShapePattern.from_static(("n",)), (5,)) is None


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ((2, 3), (2, 3), True),
        ((None, 3), (2, 3), True),
        ((2,), (2, 3), False),
        ((2, 3), (None, 3), False),
        (("n", 3), (5, 3), None),
        (("n", 3), (5, 4), False),
        (("n", None), ("n", 7), True),
        ((), (), True),
        (("n", "m"), ("m", "n"), None),
    ],
)
def test_shape_is_super(a, b, expected):
    assert shape_is_super(a, b) is expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (None, 5, 5),
        (5, None, 5),
        (5, 5, 5),
        (n, 5, 5),
        (5, n, 5),
        (n, n, n),
        (None, n, n),
        (n, None, n),
        (None, None, None),
    ],
)
def test_merge_dims(a, b, expected):
    assert merge_dims(a, b) is expected or merge_dims(a, b) == expected


def test_merge_dims_of_two_symbols_is_commutative():
    assert merge_dims(n, m) is merge_dims(m, n)
    assert merge_dims(n, m) in (n, m)


@pytest.mark.parametrize("a, b", [(2, 3), (n, n + 1), (0, n + 1)])
def test_merge_dims_conflict_names_axis_and_sizes(a, b):
    with pytest.raises(ValueError) as info:
        merge_dims(a, b, axis=4)
    message = str(info.value)
    assert "axis 4" in message and str(a) in message and str(b) in message


def test_merge_shapes():
    assert merge_shapes((None, 3), (2, None)) == (2, 3)
    assert merge_shapes(("n", None), (5, "m")) == (5, m)
    with pytest.raises(ValueError, match="axis 1.*3 and 4|3 and 4 at axis 1"):
        merge_shapes((2, 3), (2, 4))
    with pytest.raises(ValueError, match="rank|dimensions"):
        merge_shapes((2,), (2, 3))


ENTRIES = [None, 0, 1, 2, 3, n, m, n + 1, 2 * n, n + 2]


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ENTRIES), st.sampled_from(ENTRIES)), max_size=4))
def test_merge_shapes_is_commutative(pairs):
    a = tuple(x for x, _ in pairs)
    b = tuple(y for _, y in pairs)
    try:
        forward = merge_shapes(a, b)
    except ValueError:
        with pytest.raises(ValueError):
            merge_shapes(b, a)
        return
    assert merge_shapes(b, a) == forward
    # The merge is at least as specific as both inputs.
    assert shape_is_super(a, forward) is not False and shape_is_super(b, forward) is not False


# -- broadcasting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes, expected",
    [
        (((3, 1), (4,)), (3, 4)),
        (((), (2, 3)), (2, 3)),
        (((0,), (1,)), (0,)),
        ((("n",), (1,)), (n,)),
        ((("n",), ("n",)), (n,)),
        ((("n",), ("m",)), (None,)),
        (((None,), (1,)), (None,)),
        (((None,), (5,)), (5,)),
        (((None,), (None,)), (None,)),
        ((("n",), (5,)), (5,)),
        ((("n",), ("n+1",)), (None,)),
        (((None,), ("n+1",)), (None,)),
        (((None,), ("n+2",)), (n + 2,)),
        ((("n", 1), (1, "m"), (1, 1)), (n, m)),
        (((2, 1, 3), ("n", 3)), (2, n, 3)),
        ((), ()),
    ],
)
def test_broadcast_static_shapes(shapes, expected):
    assert broadcast_static_shapes(*shapes) == expected


@pytest.mark.parametrize(
    "shapes, fragment",
    [
        (((2, 3), (4,)), "sizes 3 and 4"),
        (((3,), ("n+4",)), "sizes 3 and n+4"),
        ((("n+2",), ("n+3",)), "sizes n+2 and n+3"),
        (((2, 3), (3,), (4,)), "arg 2"),
    ],
)
def test_broadcast_conflicts_raise(shapes, fragment):
    with pytest.raises(ValueError) as info:
        broadcast_static_shapes(*shapes)
    assert fragment in str(info.value) and "axis -1" in str(info.value)


small_shapes = st.lists(st.integers(0, 4), max_size=4).map(tuple)


@settings(deadline=None, max_examples=300)
@given(st.lists(small_shapes, max_size=4))
def test_broadcast_agrees_with_numpy_on_int_shapes(shapes):
    try:
        expected = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError):
            broadcast_static_shapes(*shapes)
        if len(shapes) == 2:
            assert broadcast_compatible(*shapes) is False
        return
    assert broadcast_static_shapes(*shapes) == expected
    if len(shapes) == 2:
        assert broadcast_compatible(*shapes) is True


SYMBOLIC = [None, 0, 1, 2, 3, n, m, n + 1, n + 2, 2 * n, parse("n%2")]


def _value(entry, env):
    return entry if entry is None or type(entry) is int else entry.evaluate(env)


@settings(deadline=None, max_examples=300)
@given(
    st.lists(st.tuples(st.sampled_from(SYMBOLIC), st.sampled_from(SYMBOLIC)), max_size=3),
    st.lists(
        st.fixed_dictionaries({"n": st.integers(0, 4), "m": st.integers(0, 4)}),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 4),
)
def test_symbolic_broadcast_is_sound(pairs, envs, unknown):
    a = tuple(x for x, _ in pairs)
    b = tuple(y for _, y in pairs)
    try:
        result = broadcast_static_shapes(a, b)
    except ValueError:
        result = None
    compatible = broadcast_compatible(a, b)
    for env in envs:
        concrete_a = tuple(unknown if x is None else _value(x, env) for x in a)
        concrete_b = tuple(unknown if y is None else _value(y, env) for y in b)
        try:
            actual = np.broadcast_shapes(concrete_a, concrete_b)
        except ValueError:
            actual = None
        if result is None:  # a provable conflict: no binding broadcasts
            assert actual is None
            assert compatible is False
            continue
        if compatible is True:
            assert actual is not None
        if actual is not None:
            for entry, size in zip(result, actual):
                assert entry is None or _value(entry, env) == size


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ((3, 1), (4,), True),
        ((3,), (4,), False),
        (("n",), (1,), True),
        (("n",), ("n",), True),
        (("n",), ("m",), None),
        ((None,), (1,), True),
        ((None,), (5,), None),
        (("n+2",), ("n+3",), False),
        ((2, "n"), (3, 1), False),
        ((), (7,), True),
    ],
)
def test_broadcast_compatible(a, b, expected):
    assert broadcast_compatible(a, b) is expected


# -- DimSpec ------------------------------------------------------------------------------------


def test_dimspec_is_interned_and_canonical():
    assert var("n") is var(n) is DimSpec("var", "n")
    assert fixed(3) is fixed(np.int64(3)) is var("1+2") is var(3)
    assert var("n").kind == "var" and var("n").expr is n
    assert fixed(3).kind == "fixed" and fixed(3).expr == 3
    assert DimSpec("anon").expr is None and DimSpec("unknown").expr is None
    assert var("n", broadcast=True) is not var("n")


def test_dimspec_is_immutable_and_pickles():
    spec = var("n+1", broadcast=True, doc="rows")
    with pytest.raises(AttributeError):
        spec.kind = "fixed"
    assert pickle.loads(pickle.dumps(spec)) is spec
    assert copy.deepcopy(spec) is spec
    with pytest.raises(TypeError):

        class Sub(DimSpec):  # noqa: F841 - defining it is the test
            pass


@pytest.mark.parametrize(
    "args, kwargs, exc",
    [
        (("bogus",), {}, AnnotationError),
        (("fixed", -1), {}, AnnotationError),
        (("fixed", 1.5), {}, AnnotationError),
        (("fixed", True), {}, AnnotationError),
        (("fixed", "n"), {}, AnnotationError),
        (("var", None), {}, AnnotationError),
        (("var", "n+"), {}, AnnotationError),
        (("var", "1-5"), {}, AnnotationError),
        (("anon", "n"), {}, AnnotationError),
        (("unknown", 3), {}, AnnotationError),
        (("rigid", "n"), {"broadcast": True}, AnnotationError),
        (("unknown",), {"doc": "x"}, AnnotationError),
        (("var", "n+1"), {"variadic": True}, AnnotationError),
        (("fixed", 3), {"variadic": True}, AnnotationError),
        (("fixed", 3), {"path": True}, AnnotationError),
        (("var", "n"), {"doc": "not a name"}, AnnotationError),
        (("var", "n"), {"broadcast": "yes"}, TypeError),
    ],
)
def test_dimspec_rejects_bad_entries(args, kwargs, exc):
    with pytest.raises(exc):
        DimSpec(*args, **kwargs)


@pytest.mark.parametrize(
    "spec, text",
    [
        (fixed(3), "3"),
        (var("n"), "n"),
        (var("n-1"), "n-1"),
        (DimSpec("anon"), "_"),
        (DimSpec("unknown"), "?"),
        (DimSpec("rigid", "n"), "n"),
        (var("batch", variadic=True), "*batch"),
        (DimSpec("anon", variadic=True), "..."),
        (var("n", broadcast=True), "#n"),
        (var("b", variadic=True, broadcast=True), "*#b"),
        (var("n", path=True), "?n"),
        (fixed(4, doc="rows"), "rows=4"),
        (DimSpec("anon", variadic=True, broadcast=True), "*#_"),
    ],
)
def test_dimspec_text(spec, text):
    assert str(spec) == text


def test_dimspec_repr():
    assert repr(var("n", broadcast=True)) == "DimSpec('var', Dim('n'), broadcast=True)"
    assert repr(fixed(2, doc="x")) == "DimSpec('fixed', 2, doc='x')"


# -- ShapePattern -------------------------------------------------------------------------------


def test_shape_pattern_basics():
    p = pattern(var("b"), fixed(3))
    assert p is ShapePattern([var("b"), fixed(3)])
    assert len(p) == 2 and list(p) == [var("b"), fixed(3)] and p[1] is fixed(3)
    assert str(p) == "b 3" and repr(p) == "ShapePattern('b 3')"
    assert p.rank == 2 and p.min_rank == 2 and p.variadic_index is None
    assert pickle.loads(pickle.dumps(p)) is p
    with pytest.raises(AttributeError):
        p.specs = ()


@pytest.mark.parametrize(
    "specs, text",
    [
        ((var("batch", variadic=True), fixed(3)), "*batch 3"),
        ((DimSpec("anon", variadic=True), var("c")), "... c"),
        ((var("n", broadcast=True),), "#n"),
        ((), ""),
    ],
)
def test_shape_pattern_text(specs, text):
    assert str(ShapePattern(specs)) == text


def test_shape_pattern_variadic_rules():
    p = pattern(var("b", variadic=True), fixed(3))
    assert p.variadic_index == 0 and p.rank is None and p.min_rank == 1
    with pytest.raises(AnnotationError, match="at most one"):
        pattern(var("a", variadic=True), DimSpec("anon", variadic=True))
    with pytest.raises(TypeError):
        ShapePattern([3])
    with pytest.raises(TypeError):
        ShapePattern("b c")


def test_shape_pattern_static_round_trip():
    p = ShapePattern.from_static((2, None, "n+1"))
    assert str(p) == "2 ? n+1" and p.is_static
    assert [s.kind for s in p] == ["fixed", "unknown", "rigid"]
    assert p.to_static() == (2, None, n + 1)
    with pytest.raises(ValueError):
        pattern(var("n")).to_static()


# -- matching ------------------------------------------------------------------------------------


def test_decision_pattern_variable_binds_per_call():
    two_n = pattern(fixed(2), var("n"))
    assert pattern_is_super(two_n, (2, 5)) is True
    assert match_static(two_n, (2, 5)) == (True, {"n": 5})


@pytest.mark.parametrize(
    "specs, shape, expected",
    [
        ((var("n"),), (None,), True),
        ((var("n"), var("n")), (None, None), None),
        ((fixed(3),), (None,), False),
        ((var("n"), var("n")), (None, 5), False),
        ((var("n"), var("n")), (5, 5), True),
        ((var("n"), var("n")), (5, 6), False),
        ((var("n"), var("m")), (None, None), True),
        ((var("n"), var("n")), ("k", "k"), True),
        ((var("n"), var("n")), ("k", "m"), None),
        ((var("n"), var("n+1")), (3, 4), True),
        ((var("n+1"), var("n")), (4, 3), True),
        ((var("n"), var("n+1")), (3, 5), False),
        ((var("n+1"),), (0,), False),
        ((var("2*n"),), (5,), False),
        ((var("2*n"),), (6,), True),
        ((var("n+1"),), ("m",), None),
        ((var("n+1"),), ("m+1",), True),
        ((var("n*m"),), (6,), None),
        ((var("n*m"), var("n"), var("m")), (6, 2, 3), True),
        ((var("n*m"), var("n"), var("m")), (7, 2, 3), False),
        ((var("n+1"),), (None,), None),
        ((var("n", broadcast=True), var("n", broadcast=True)), (1, 5), True),
        ((var("n", broadcast=True), var("n")), (5, 3), False),
        ((var("n", broadcast=True), var("n", broadcast=True)), ("k", "m"), None),
        ((fixed(3, broadcast=True),), (1,), True),
        ((fixed(3, broadcast=True),), (None,), False),
        ((fixed(3),), ("k",), None),
        ((fixed(3),), ("k+4",), False),
        ((DimSpec("anon"), DimSpec("unknown")), (None, 7), True),
        ((fixed(2), var("n")), (2,), False),
        ((DimSpec("rigid", "n"),), ("n",), True),
        ((DimSpec("rigid", "n"),), (None,), False),
    ],
)
def test_pattern_is_super(specs, shape, expected):
    assert pattern_is_super(ShapePattern(specs), shape) is expected


@pytest.mark.parametrize(
    "specs, shape, expected, bound",
    [
        ((var("b", variadic=True), fixed(3)), (2, 4, 3), True, {"*b": (2, 4)}),
        ((var("b", variadic=True), fixed(3)), (3,), True, {"*b": ()}),
        ((var("b", variadic=True), fixed(3)), (), False, None),
        ((var("b", variadic=True), fixed(3)), (3, 4), False, None),
        ((DimSpec("anon", variadic=True), var("c")), (2, 4, 3), True, {"c": 3}),
        ((var("x"), DimSpec("anon", variadic=True), var("x")), (5, 1, 2, 5), True, {"x": 5}),
        ((var("x"), DimSpec("anon", variadic=True), var("x")), (5, 4), False, None),
    ],
)
def test_variadic_patterns(specs, shape, expected, bound):
    result, bindings = match_static(ShapePattern(specs), shape)
    assert result is expected
    if bound is not None:
        assert bindings == bound


def test_matching_uses_and_keeps_given_bindings():
    p = pattern(var("n"), var("b", variadic=True))
    given_bindings = {"n": 3, "*b": (2,)}
    assert match_static(p, (3, 2), given_bindings) == (True, {"n": 3, "*b": (2,)})
    assert pattern_is_super(p, (4, 2), given_bindings) is False
    assert pattern_is_super(p, (3, 2, 2), given_bindings) is False
    assert pattern_is_super(p, (None, 2), given_bindings) is False
    assert given_bindings == {"n": 3, "*b": (2,)}
    assert pattern_is_super(pattern(var("n")), (5,), {"n": None}) is None
    assert pattern_is_super(pattern(var("n")), (5,), {"n": "m"}) is None
    broadcast_b = pattern(var("b", variadic=True, broadcast=True))
    assert pattern_is_super(broadcast_b, (1, 4), {"*b": (3, 1)}) is True
    assert pattern_is_super(broadcast_b, (2, 4), {"*b": (3, 1)}) is False


def test_match_static_rejects_bad_arguments():
    with pytest.raises(TypeError):
        pattern_is_super("n", (5,))
    with pytest.raises(TypeError):
        pattern_is_super(pattern(var("n")), (5,), {1: 2})
    with pytest.raises(ValueError):
        pattern_is_super(pattern(var("n")), (-1,))
    with pytest.raises(ValueError, match="binding 'n'"):
        pattern_is_super(pattern(var("n")), (5,), {"n": -1})


STATIC = [None, 0, 1, 3, n, m, n + 1]


@settings(deadline=None, max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(STATIC), st.sampled_from(STATIC)), max_size=4))
def test_graph_patterns_agree_with_shape_is_super(pairs):
    a = tuple(x for x, _ in pairs)
    b = tuple(y for _, y in pairs)
    assert pattern_is_super(ShapePattern.from_static(a), b) is shape_is_super(a, b)


PATTERN_ENTRIES = [
    fixed(1),
    fixed(3),
    var("p"),
    var("q"),
    var("p+1"),
    var("2*p"),
    var("p", broadcast=True),
    DimSpec("anon"),
    fixed(3, broadcast=True),
]


@settings(deadline=None, max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(PATTERN_ENTRIES), st.integers(0, 4)), max_size=4))
def test_pattern_matching_is_exact_on_int_shapes(pairs):
    """With only known sizes the answer is never None and agrees with brute force."""
    p = ShapePattern([spec for spec, _ in pairs])
    shape = tuple(size for _, size in pairs)
    result = pattern_is_super(p, shape)
    assert result is not None
    brute = any(_matches(p, shape, {"p": pv, "q": qv}) for pv in range(6) for qv in range(6))
    assert result is brute


def _matches(p, shape, env):
    for spec, size in zip(p, shape):
        if spec.kind == "anon":
            continue
        expected = spec.expr if spec.kind == "fixed" else spec.expr.evaluate(env)
        if size != expected and not (spec.broadcast and size == 1):
            return False
    return True


def _instances(shape):
    """Every concrete shape of a small static shape: n, m and unknown sizes in 0..3."""
    unknown = [i for i, x in enumerate(shape) if x is None]
    for nv in range(4):
        for mv in range(4):
            env = {"n": nv, "m": mv}
            base = [x if x is None or type(x) is int else x.evaluate(env) for x in shape]
            for fill in itertools.product(range(4), repeat=len(unknown)):
                for i, v in zip(unknown, fill):
                    base[i] = v
                yield tuple(base)


@settings(deadline=None, max_examples=200)
@given(st.lists(st.tuples(st.sampled_from(PATTERN_ENTRIES), st.sampled_from(STATIC)), max_size=3))
def test_pattern_matching_is_sound_on_symbolic_shapes(pairs):
    """True: every concrete shape matches; False: some concrete shape does not."""
    p = ShapePattern([spec for spec, _ in pairs])
    shape = tuple(entry for _, entry in pairs)
    result = pattern_is_super(p, shape)
    outcomes = [
        any(_matches(p, concrete, {"p": pv, "q": qv}) for pv in range(8) for qv in range(8))
        for concrete in _instances(shape)
    ]
    if result is True:
        assert all(outcomes)
    elif result is False:
        assert not all(outcomes)
