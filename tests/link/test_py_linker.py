"""``PyLinker``: a fixed schedule as straight-line Python, perform fallback, tracebacks."""

from __future__ import annotations

import linecache
import traceback

import numpy as np
import pytest

import tensortypes.tensor as tt
from tensortypes.graph import Apply, FunctionGraph, Op, generic
from tensortypes.link import PyFunction, PyLinker


class Split(Op):
    """Two outputs through perform: the value and its negation."""

    def make_node(self, x):
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]
        output_storage[1][0] = -inputs[0]


class Lazy(Op):
    def make_node(self, x):
        return Apply(self, [x], [generic()])

    def perform(self, node, inputs, output_storage):
        return None


class Boom(Op):
    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        raise ZeroDivisionError("boom")


def test_linker_runs_elemwise_directly_and_other_ops_through_perform():
    x = tt.dvector("x")
    a, b = Split()(x)
    fg = FunctionGraph([x], [tt.exp(a) + b], clone=True)
    f = PyLinker().make_function(fg)
    assert isinstance(f, PyFunction)
    value = np.array([0.0, 1.0])
    (out,) = f([value])
    np.testing.assert_allclose(out, np.exp(value) - value)
    assert "c = [[None], [None]]" in f.source  # Split goes through perform
    assert "s1_0 = f1(s0_0)" in f.source  # the ufunc, called directly


def test_intermediates_are_released_after_their_last_use():
    x = tt.dvector("x")
    fg = FunctionGraph([x], [tt.sqrt(tt.exp(x) + 1) * 2])
    f = PyLinker().make_function(fg)
    assert "del s0_0" in f.source and "del s1_0" in f.source


def test_wrong_number_of_values_and_empty_outputs():
    x = tt.dvector("x")
    f = PyLinker().make_function(FunctionGraph([x], [x + 1]))
    with pytest.raises(TypeError, match="takes 1 input"):
        f([])
    g = PyLinker().make_function(FunctionGraph([x], [Lazy()(x)]))
    with pytest.raises(RuntimeError, match="left output 0"):
        g([np.zeros(2)])
    with pytest.raises(TypeError, match="FunctionGraph"):
        PyLinker().make_function([x])


def test_constants_and_inputs_as_outputs():
    x = tt.dvector("x")
    c = tt.constant(np.array([1.0, 2.0]))
    f = PyLinker().make_function(FunctionGraph([x], [x, c, x * c]))
    a = np.array([3.0, 4.0])
    same, const, prod = f([a])
    assert same is a
    np.testing.assert_array_equal(const, [1.0, 2.0])
    np.testing.assert_array_equal(prod, [3.0, 8.0])


def test_tracebacks_show_the_generated_statement():
    x = tt.dvector("x")
    f = PyLinker().make_function(FunctionGraph([x], [Boom()(x)]))
    assert linecache.getline(f.filename, 1).startswith("def run(")
    with pytest.raises(ZeroDivisionError) as info:
        f([np.zeros(1)])
    text = "".join(traceback.format_tb(info.tb))
    assert f.filename in text and "Boom" in text
