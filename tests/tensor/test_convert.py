"""filter_variable, convert_variable and SpecifyShape: PyTensor's example, finished."""

import numpy as np
import pytest

from tensortypes import TypeCheckError
from tensortypes.graph import FunctionGraph, dprint
from tensortypes.tensor import (
    SpecifyShape,
    TensorConstant,
    TensorType,
    constant,
    matrix,
    specify_shape,
)


def test_spec_000_example_with_merged_shape():
    v1 = TensorType("float64", (2, None))()
    v2 = TensorType("float64", (2, 1))()
    assert v1.type.filter_variable(v2) is v2
    v3 = v2.type.filter_variable(v1)
    assert isinstance(v3.owner.op, SpecifyShape)
    assert v3.owner.inputs[0] is v1
    assert v3.type == TensorType("float64", (2, 1))  # not (2, ?): the unfinished part
    text = dprint(v3, print_type=True, file="str")
    lines = text.splitlines()
    assert lines[0] == "SpecifyShape [id A] <TensorType(float64, (2, 1))>"
    assert lines[1] == " |<TensorType(float64, (2, ?))> [id B] <TensorType(float64, (2, ?))>"


def test_merging_works_both_ways():
    a = TensorType("float64", (1, None, 3))
    b = TensorType("float64", (None, 5, 3))
    assert a.filter_variable(b()).type.shape == (1, 5, 3)
    assert b.filter_variable(a()).type.shape == (1, 5, 3)


def test_conflicting_fixed_dim_is_type_error_naming_axis():
    a = TensorType("float64", (2, None))
    with pytest.raises(TypeError, match="Axis 0"):
        a.filter_variable(TensorType("float64", (3, None))())
    assert a.convert_variable(TensorType("float64", (3, None))()) is None


def test_dtype_or_rank_mismatch_is_type_error():
    a = TensorType("float64", (None,))
    with pytest.raises(TypeError, match="dtypes differ"):
        a.filter_variable(TensorType("float32", (None,))())
    with pytest.raises(TypeError, match="dimensions differ"):
        a.filter_variable(TensorType("float64", (None, None))())
    with pytest.raises(TypeError):
        a.filter_variable(TensorType("float32", (None,))(), allow_convert=False)


def test_rigid_symbol_kept_by_conversion():
    n = TensorType("float64", ("n",))
    out = n.filter_variable(TensorType("float64", (None,))())
    assert out.type == n


def test_non_variables_become_refined_constants():
    t = TensorType("float64", (None, None))
    c = t.filter_variable([[1.0, 2.0]])
    assert isinstance(c, TensorConstant)
    assert c.type == TensorType("float64", (1, 2))
    assert t.is_super(c.type)


def test_convert_returns_var_when_already_subtype():
    x = TensorType("float64", (2, 2))()
    assert TensorType("float64", (None, 2)).convert_variable(x) is x


class TestSpecifyShape:
    def test_accepts_ints_none_ellipsis_and_dims(self):
        x = TensorType("float64", (None, None, None))("x")
        assert specify_shape(x, (2, None, 4)).type.shape == (2, None, 4)
        assert specify_shape(x, (..., 4)).type.shape == (None, None, 4)
        assert str(specify_shape(x, ("n", ..., 3)).type) == "TensorType(float64, (n, ?, 3))"

    def test_returns_x_when_nothing_new(self):
        x = TensorType("float64", (2, None))("x")
        assert specify_shape(x, (None, None)) is x
        assert specify_shape(x, (2, ...)) is x

    @pytest.mark.parametrize(
        "shape", [(2,), (2, 3, 4), (2.5, None), ("a", "b", ..., ...), (True, None)]
    )
    def test_bad_shapes_are_value_errors_at_build_time(self, shape):
        with pytest.raises(ValueError):
            specify_shape(matrix("x"), shape)

    def test_build_time_conflict(self):
        x = TensorType("float64", (2, None))("x")
        with pytest.raises(ValueError, match="axis 0"):
            specify_shape(x, (3, None))

    def test_run_time_mismatch_names_axis(self):
        x = matrix("x")
        y = specify_shape(x, (2, 3))
        assert y.eval({x: np.zeros((2, 3))}).shape == (2, 3)
        with pytest.raises(TypeCheckError) as info:
            y.eval({x: np.zeros((2, 4))})
        assert "axis 1 has size 4, expected 3" in str(info.value)

    def test_run_time_symbols(self):
        x = matrix("x")
        y = specify_shape(x, ("n", "n"))
        assert y.eval({x: np.zeros((2, 2))}).shape == (2, 2)
        with pytest.raises(TypeCheckError, match="n=2"):
            y.eval({x: np.zeros((2, 3))})

    def test_plain_data(self):
        y = specify_shape([1.0, 2.0], (2,))
        assert isinstance(y, TensorConstant)

    def test_equal_ops_hash_equal(self):
        assert SpecifyShape((2, None)) == SpecifyShape([2, None])
        assert hash(SpecifyShape((2, None))) == hash(SpecifyShape((2, None)))
        assert SpecifyShape((2, None)) != SpecifyShape((3, None))


def test_fgraph_replace_goes_through_filter_variable():
    x = TensorType("float64", (2, None))("x")
    y = specify_shape(x, (None, 3))
    fg = FunctionGraph([x], [y])
    new = TensorType("float64", (None, None))("z")
    with pytest.raises(Exception):
        # z is not an input of the graph: replacing y with it leaves a missing input
        fg.replace(y, new)
    fg2 = FunctionGraph([x], [y])
    fg2.replace(y, x)
    # x's type (2, ?) is less specific than y's (2, 3): the replacement is wrapped
    out = fg2.outputs[0]
    assert out.type == y.type and isinstance(out.owner.op, SpecifyShape)


def test_constant_dtypes():
    assert constant(2).type == TensorType("int8", ())
    assert constant(300).type == TensorType("int16", ())
    assert constant(True).type == TensorType("bool", ())
    assert constant(np.zeros((2, 3), "float32")).type == TensorType("float32", (2, 3))
    assert str(constant(2)) == "TensorConstant{2}"
