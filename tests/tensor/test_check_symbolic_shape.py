"""``tensor.check_symbolic_shape``: rigid symbols of a static shape against concrete
shapes, as ``filter``, ``function`` and the C linker check them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortypes.tensor as tt
from tensortypes.core.dims import parse
from tensortypes.errors import TypeCheckError
from tensortypes.tensor import TensorType, check_symbolic_shape

N, M = parse("n"), parse("m")


def test_it_is_public():
    assert "check_symbolic_shape" in tt.__all__


def test_bare_symbols_bind_from_the_first_axis_and_are_compared_after():
    bound: dict = {}
    assert check_symbolic_shape((N, 3, M), (2, 3, 5), bound) is None
    assert bound == {"n": 2, "m": 5}
    assert check_symbolic_shape((N, N), (4, 4)) is None
    assert (
        check_symbolic_shape((N, N), (4, 5))
        == "axis 1 has size 5, but n=4 was bound by an earlier axis"
    )


def test_bindings_carry_over_between_values_with_where_they_came_from():
    bound, where = {}, {}
    assert check_symbolic_shape((N, None), (3, 9), bound, where, "input 0 (x)") is None
    assert where == {"n": "input 0 (x) axis 0"}
    problem = check_symbolic_shape((None, N), (1, 4), bound, where, "input 1 (y)")
    assert problem == "axis 1 has size 4, but n=3, as bound by input 0 (x) axis 0"
    assert bound == {"n": 3}  # a mismatch binds nothing new


def test_expressions_are_evaluated_or_solved():
    two_n, n_plus_m = parse("2*n"), parse("n+m")
    assert check_symbolic_shape((N, two_n), (3, 6)) is None
    problem = check_symbolic_shape((N, two_n), (3, 5), {}, {}, "input 0 (x)")
    assert problem == "axis 1 has size 5, but 2*n=6 with n=3 (as bound by input 0 (x) axis 0)"
    bound: dict = {}
    assert check_symbolic_shape((two_n,), (8,), bound) is None and bound == {"n": 4}
    assert (
        check_symbolic_shape((two_n,), (7,)) == "axis 0 has size 7, which no value of 2*n can take"
    )
    # Two unknowns in one expression: nothing in one value can contradict it.
    assert check_symbolic_shape((n_plus_m,), (7,)) is None


def test_a_shape_of_another_rank_is_a_mismatch_not_a_crash():
    assert "has 1 axes" in check_symbolic_shape((N, N), (3,))


@settings(deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=4))
def test_a_symbol_repeated_on_every_axis_needs_equal_sizes(sizes):
    static = (N,) * len(sizes)
    problem = check_symbolic_shape(static, tuple(sizes))
    assert (problem is None) == (len(set(sizes)) == 1)


def test_filter_uses_it():
    t = TensorType("float64", ("n", "n"))
    assert t.filter(np.zeros((2, 2))).shape == (2, 2)
    with pytest.raises(TypeCheckError, match="n=2 was bound by an earlier axis"):
        t.filter(np.zeros((2, 3)))
