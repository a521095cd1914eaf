"""``tensortypes.link.function``: build-time errors, input filtering, symbols, shared values."""

from __future__ import annotations

import numpy as np
import pytest

import tensortypes.tensor as tt
from tensortypes.errors import TypeCheckError
from tensortypes.graph import MissingInputError
from tensortypes.link import Function, function
from tensortypes.tensor import Composite, tensor


def test_single_output_returns_an_array_and_a_list_returns_a_list():
    x, y = tt.dvector("x"), tt.dvector("y")
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    f = function([x, y], x + y, mode="py")
    assert isinstance(f, Function)
    np.testing.assert_array_equal(f(a, b), a + b)
    g = function([x, y], [x + y, x * y], mode="py")
    out = g(a, b)
    assert isinstance(out, list) and len(out) == 2
    np.testing.assert_array_equal(out[1], a * b)
    assert isinstance(function([x], (x,), mode="py")(a), list)


def test_an_output_needing_a_missing_input_is_an_error_naming_it():
    x, y = tt.dvector("x"), tt.dvector("y")
    with pytest.raises(MissingInputError, match="needs the value of y") as info:
        function([x], x + y, mode="py")
    assert info.value.variable is y
    assert isinstance(info.value, ValueError)


def test_a_constant_or_shared_variable_given_as_input_is_an_error():
    c = tt.constant(np.array([1.0]), name="c")
    with pytest.raises(TypeError, match="input 0 is the Constant c"):
        function([c], c * 2, mode="py")
    w = tt.shared(np.zeros(2), name="w")
    with pytest.raises(TypeError, match="shared variable w"):
        function([w], w * 2, mode="py")


def test_bad_arguments_to_function():
    x = tt.dvector("x")
    with pytest.raises(ValueError, match="mode must be one of"):
        function([x], x, mode="fast")
    with pytest.raises(TypeError, match="inputs must be a list"):
        function(x, x, mode="py")
    with pytest.raises(TypeError, match="output 0 is"):
        function([x], [np.zeros(2)], mode="py")
    with pytest.raises(TypeError, match="input 1 is"):
        function([x, 3], x, mode="py")
    with pytest.raises(ValueError, match="listed twice"):
        function([x, x], x, mode="py")


def test_calls_with_the_wrong_number_of_arguments():
    x, y = tt.dvector("x"), tt.dvector("y")
    f = function([x, y], x - y, mode="py")
    with pytest.raises(TypeError, match=r"takes 2 argument\(s\) \(x, y\), got 1"):
        f(np.zeros(2))


def test_inputs_are_filtered_by_their_types():
    x = tensor("float64", (None, 3), name="x")
    f = function([x], x.sum(axis=1), mode="py")
    np.testing.assert_array_equal(f([[1, 2, 3]]), [6.0])
    np.testing.assert_array_equal(f(np.ones((2, 3), "float32")), [3.0, 3.0])
    with pytest.raises(TypeCheckError, match=r"input 0 \(x\).*dtype complex128"):
        f(np.ones((2, 3), "complex128"))
    with pytest.raises(TypeCheckError, match=r"input 0 \(x\).*expected 2 axes, got 1"):
        f(np.ones(3))
    with pytest.raises(TypeCheckError, match=r"input 0 \(x\).*axis 1 has size 4"):
        f(np.ones((2, 4)))
    with pytest.raises(TypeCheckError, match="input 0"):
        f(None)


def test_unaligned_arrays_are_refused_like_filter_does():
    x = tt.dvector("x")
    f = function([x], x + 1, mode="py")
    raw = np.zeros(8 * 4 + 1, dtype=np.uint8)
    unaligned = np.frombuffer(raw.data, dtype=np.float64, count=4, offset=1)
    assert not unaligned.flags.aligned
    with pytest.raises(TypeCheckError, match="not aligned"):
        f(unaligned)


def test_rigid_symbols_are_bound_by_the_first_input_and_checked_in_the_others():
    x, y = tensor("float64", ("n",), name="x"), tensor("float64", ("n", "m"), name="y")
    f = function([x, y], tt.expand_dims(x, 1) * y, mode="py")
    assert f(np.ones(2), np.ones((2, 5))).shape == (2, 5)
    with pytest.raises(TypeCheckError) as info:
        f(np.ones(2), np.ones((3, 5)))
    message = str(info.value)
    assert "input 1 (y): axis 0 has size 3" in message
    assert "n=2, as bound by input 0 (x) axis 0" in message


def test_a_symbol_repeated_in_one_input_and_expressions_are_checked():
    sq = tensor("float64", ("n", "n"), name="sq")
    f = function([sq], sq.sum(), mode="py")
    assert f(np.ones((3, 3))) == 9.0
    with pytest.raises(TypeCheckError, match="axis 1"):
        f(np.ones((3, 4)))
    x, y = tensor("float64", ("n",), name="x"), tensor("float64", ("2*n",), name="y")
    g = function([x, y], [x.sum(), y.sum()], mode="py")
    assert g(np.ones(2), np.ones(4))[1] == 4.0
    with pytest.raises(TypeCheckError, match=r"input 1 \(y\): axis 0 has size 5, but 2\*n=4"):
        g(np.ones(2), np.ones(5))
    odd = function([y], y.sum(), mode="py")
    with pytest.raises(TypeCheckError, match="no value of 2\\*n"):
        odd(np.ones(3))


def test_expressions_are_checked_after_every_bare_symbol_is_bound():
    # y comes first but its size is an expression over the n that x binds.
    y, x = tensor("float64", ("2*n",), name="y"), tensor("float64", ("n",), name="x")
    f = function([y, x], [y.sum(), x.sum()], mode="py")
    assert f(np.ones(6), np.ones(3))[0] == 6.0
    with pytest.raises(TypeCheckError) as info:
        f(np.ones(5), np.ones(3))
    assert str(info.value) == (
        "input 0 (y): axis 0 has size 5, but 2*n=6 with n=3 (as bound by input 1 (x) axis 0)"
    )


def test_shared_variables_are_read_at_call_time():
    x = tt.dvector("x")
    w = tt.shared(np.array([1.0, 2.0]), name="w")
    f = function([x], x * w, mode="py")
    assert f.shared == (w,)
    np.testing.assert_array_equal(f(np.array([1.0, 1.0])), [1.0, 2.0])
    w.set_value(np.array([10.0, 20.0]))
    np.testing.assert_array_equal(f(np.array([1.0, 1.0])), [10.0, 20.0])


def test_outputs_never_alias_inputs_or_constants():
    x = tt.dvector("x")
    c = tt.constant(np.array([1.0, 2.0]))
    f = function([x], [x, c], mode="py")
    a = np.array([5.0, 6.0])
    same, const = f(a)
    assert same is not a and not np.shares_memory(same, a)
    const[:] = 0
    np.testing.assert_array_equal(f(a)[1], [1.0, 2.0])


def test_rewrites_run_by_default_and_can_be_skipped():
    x, y, z = tt.dvector("x"), tt.dvector("y"), tt.dvector("z")
    expr = tt.exp(x) * y + z * 2 - x / y
    f = function([x, y, z], expr, mode="py")
    (node,) = f.fgraph.apply_nodes
    assert isinstance(node.op.scalar_op, Composite)
    g = function([x, y, z], expr, mode="py", rewrite=False)
    assert len(g.fgraph.apply_nodes) == 6
    a, b, c = np.linspace(0, 1, 5), np.linspace(1, 2, 5), np.linspace(2, 3, 5)
    np.testing.assert_allclose(f(a, b, c), np.exp(a) * b + c * 2 - a / b)
    np.testing.assert_allclose(g(a, b, c), f(a, b, c))


def test_the_callers_graph_is_left_untouched():
    x = tt.dvector("x")
    out = (x * 1 + 0) * 2
    before = str(out.owner)
    function([x], out, mode="py")
    assert str(out.owner) == before and out.owner.inputs[0].owner is not None


def test_errors_inside_ops_surface_at_call_time():
    x = tensor("float64", (None,), name="x")
    f = function([x], x.reshape((2, -1)), mode="py")
    with pytest.raises(ValueError, match="reshape"):
        f(np.ones(3))


def test_generated_call_source_is_inspectable():
    x = tensor("float32", (None, 3), name="x")
    f = function([x], x * 2, mode="py")
    assert "a0.shape[1] != 3" in f.source and "_filter(0, a0)" in f.source
    assert "mode='py'" in repr(f)


def _c_linker_or_skip():
    try:
        from tensortypes.link.c import CLinker  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"the C backend (tensortypes.link.c) is not available yet: {exc}")


def test_mode_c_uses_the_c_backend(cache_dir):
    _c_linker_or_skip()
    x, y, z = tt.dvector("x"), tt.dvector("y"), tt.dvector("z")
    f = function([x, y, z], tt.exp(x) * y + z * 2 - x / y, mode="c")
    a, b, c = np.linspace(0, 1, 5), np.linspace(1, 2, 5), np.linspace(2, 3, 5)
    np.testing.assert_allclose(f(a, b, c), np.exp(a) * b + c * 2 - a / b)
    with pytest.raises(TypeCheckError, match="input 0"):
        f(np.ones(5, "complex128"), b, c)
    assert any(cache_dir.iterdir()), "the module is built in the test's own cache"
