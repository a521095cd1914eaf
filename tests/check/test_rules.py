"""Unit tests of the checker's pieces: shape functions, binding, rules, annotations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.check.binding import Binder
from tensortypes.check.diagnostics import (
    CODES,
    CheckFailure,
    Diagnostic,
    format_text,
    from_json,
    to_json,
)
from tensortypes.check.joins import join_values
from tensortypes.check.rules import dtype_object, function_rule, layer_rule, loss_rule, method_rule
from tensortypes.check.rules import shapefns as sf
from tensortypes.check.rules.layer_table import LAYERS
from tensortypes.check.rules.reshape import reshape_shape
from tensortypes.check.shapetext import parse_shape
from tensortypes.check.symbolic import Arr, Bcast, IntV, Rest
from tensortypes.core import dims
from tensortypes.core.dtypes import float32, float64, int64
from tensortypes.errors import AnnotationError

n, m, k, b = (dims.symbol(s) for s in "nmkb")
C = dims.const


def test_shape_strings_read_every_modifier():
    assert parse_shape("b n-1 _ #c *r") == (b, n - 1, None, Bcast(dims.symbol("c")), Rest("r"))
    assert parse_shape("... 3") == (Rest(None), C(3))
    assert parse_shape("{self.d_in} rows=4") == (dims.symbol("d_in"), C(4))
    with pytest.raises(AnnotationError) as info:
        parse_shape("b n+*2")
    assert "^" in str(info.value)


def test_broadcast_under_the_universal_contract():
    assert sf.broadcast([(n, C(1)), (C(3),)], ["a", "b"]) == (n, C(3))
    assert sf.broadcast([(n,), (Bcast(n),)], ["a", "b"]) == (n,)
    with pytest.raises(CheckFailure) as info:
        sf.broadcast([(n,), (m,)], ["a", "b"])
    assert "different sizes unless proven equal" in info.value.message


def test_broadcast_is_gradual_on_unknown_sizes():
    assert sf.broadcast([(None, C(3)), (n, C(3))], ["a", "b"]) == (n, C(3))
    # An unknown rank may add axes in front, and change only the axes that may be 1.
    assert sf.broadcast([None, (n,)], ["a", "b"]) == (Rest(None), n)
    assert sf.broadcast([None, (n, C(1))], ["a", "b"]) == (Rest(None), n, None)
    assert sf.broadcast([None, (Rest("b"), Bcast(n))], ["a", "b"]) == (Rest(None), None)
    assert sf.broadcast([None, (C(1),)], ["a", "b"]) == (Rest(None), None)
    assert sf.broadcast([None, ()], ["a", "b"]) is None
    with pytest.raises(CheckFailure):
        sf.broadcast([None, (n,), (m,)], ["a", "b", "c"])


def test_matmul_contraction_and_batches():
    assert sf.matmul_shape((b, n, k), (k, m)) == (b, n, m)
    assert sf.matmul_shape((n,), (n,)) == ()
    with pytest.raises(CheckFailure) as info:
        sf.matmul_shape((n, k), (m, k))
    assert info.value.code == "matmul"


def test_reshape_reasons_on_element_counts():
    assert reshape_shape((b, 2 * n), (b, -1, C(2))) == (b, n, C(2))
    assert reshape_shape((b, n, m), (b, -1)) == (b, n * m)
    with pytest.raises(CheckFailure):
        reshape_shape((C(2), C(3)), (C(4), C(2)))
    with pytest.raises(CheckFailure) as info:
        reshape_shape((b, n), (b, n // 2, C(3)))
    assert "not provably equal" in info.value.message
    # Equal exactly when 2 divides n: "cannot tell", taken as equal.
    assert reshape_shape((b, n), (b, n // 2, C(2))) == (b, n // 2, C(2))


def test_reductions_concat_and_axes():
    assert sf.reduce_shape((b, n, m), [1], False) == (b, m)
    assert sf.reduce_shape((b, n, m), [-1], True) == (b, n, C(1))
    assert sf.concat_shape([(b, n), (b, m)], ["a", "b"], 1) == (b, n + m)
    with pytest.raises(CheckFailure) as info:
        sf.norm_axis(3, 2)
    assert info.value.code == "axis"


@settings(deadline=None, max_examples=60)
@given(
    st.lists(st.integers(1, 6), min_size=1, max_size=4),
    st.lists(st.integers(1, 6), min_size=1, max_size=4),
)
def test_broadcast_agrees_with_numpy_on_fixed_sizes(a, c):
    import numpy as np

    try:
        expected = np.broadcast_shapes(tuple(a), tuple(c))
    except ValueError:
        expected = None
    try:
        got = sf.broadcast([tuple(C(x) for x in a), tuple(C(x) for x in c)], ["a", "b"])
        got = tuple(d.value for d in got)
    except CheckFailure:
        got = None
    assert got == expected


@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.integers(1, 6))
def test_reshape_agrees_with_numpy_on_fixed_sizes(shape, first):
    import numpy as np

    try:
        expected = np.zeros(shape).reshape(first, -1).shape
    except ValueError:
        expected = None
    try:
        got = reshape_shape(tuple(C(x) for x in shape), (C(first), -1))
        got = tuple(d.value for d in got)
    except CheckFailure:
        got = None
    assert got == expected


def test_binder_binds_names_and_reports_where():
    binder = Binder()
    assert binder.match(parse_shape("b n"), (C(4), C(3)), "x") == []
    problems = binder.match(parse_shape("n k"), (C(5), C(2)), "w")
    assert problems and "expected 3" in problems[0].message and "x axis 1" in problems[0].message
    assert binder.substitute(parse_shape("b k")) == (C(4), C(2))


def test_binder_solves_linear_expressions():
    binder = Binder()
    assert binder.match(parse_shape("2*n"), (C(8),), "x") == []
    assert binder.env["n"] == C(4)
    assert binder.substitute(parse_shape("n-1")) == (C(3),)


def test_rule_tables_resolve_paths():
    assert function_rule("torch.matmul")[1] == "torch"
    assert function_rule("jax.numpy.concatenate")[1] == "jax"
    assert function_rule("numpy.random.randn")[1] == "numpy"
    assert function_rule("torch.not_a_function") is None
    assert method_rule("torch", "view") is not None
    assert layer_rule("torch.nn.Conv2d") is LAYERS["Conv2d"]
    assert loss_rule("torch.nn.functional.cross_entropy").kind == "class"
    assert dtype_object("torch.long") is int64 and dtype_object("numpy.float64") is float64


def test_joins_keep_what_both_branches_agree_on():
    a = Arr("torch", frozenset({float32}), (b, n))
    c = Arr("torch", frozenset({float32}), (b, m))
    joined = join_values(a, c)
    assert joined.shape == (b, None)
    assert join_values(IntV(n), IntV(n)).dim is n


def test_diagnostics_render_and_round_trip():
    d = Diagnostic("m.py", 3, 5, "matmul", "contracted axes differ", ("x: (2, 3)",))
    assert d.to_text().splitlines() == [
        "m.py:3:5: error: contracted axes differ [matmul]",
        "m.py:3:5: note: x: (2, 3)",
    ]
    assert from_json(to_json([d])) == [d]
    assert format_text([d], files=1).endswith("Found 1 error in 1 file (checked 1 source file)")
    with pytest.raises(ValueError):
        Diagnostic("m.py", 1, 1, "no-such-code", "x")
    assert "unchecked" in CODES


_HALVES = st.fractions(min_value=-4, max_value=4, max_denominator=8)


@given(
    _HALVES,
    _HALVES,
    st.integers(1, 3),
    _HALVES,
    st.fractions(1, 2, max_denominator=4),
    st.integers(1, 60),
)
@settings(max_examples=300, deadline=None)
def test_float_arange_counts_agree_with_numpy(t0, t1, k, e1, s1, size):
    """``arange(t0 + t1/n, e0 + e1/n, s1/n)`` with ``e0 - t0 = k*s1`` (so a count
    ``k*n + r`` is known): when the checker gives a size, it is the length NumPy's
    ``arange`` (the formula PyTorch uses) has, for each ``n``."""
    e0 = t0 + k * s1
    import numpy as np
    from fractions import Fraction

    from tensortypes.check.rules.create import float_count
    from tensortypes.check.symbolic import FloatV

    start = FloatV((Fraction(t0), Fraction(t1), n if t1 else None))
    stop = FloatV((Fraction(e0), Fraction(e1), n if e1 else None))
    step = FloatV((Fraction(0), Fraction(s1), n))
    found = float_count(start, stop, step)
    if found is None:
        return
    value = found.substitute({"n": C(size)})
    w = float(s1) / size
    length = len(np.arange(float(t0) + float(t1) / size, float(e0) + float(e1) / size, w))
    assert max(0, value.value) == length
