"""``dprint``: PyTensor's debugprint format."""

from __future__ import annotations

import io
import textwrap

import pytest

from graph_toys import add, divmod_op, floatt, mul, neg
from tensortypes.graph import Apply, Constant, FunctionGraph, Op, Type, dprint
from tensortypes.graph.printing import char_from_number


class FakeTensorType(Type):
    """Prints like a TensorType, to reproduce PyTensor's picture."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    def filter(self, data, strict=False, allow_downcast=None):
        return data


class TensorConstant(Constant):
    __slots__ = ()


class SpecifyShape(Op):
    def make_node(self, x, *shape):
        return Apply(self, [x, *shape], [FakeTensorType("TensorType(float64, (2, 1))")()])


def test_spec_000_picture():
    v1 = FakeTensorType("TensorType(float64, (2, ?))")()
    int8 = FakeTensorType("TensorType(int8, ())")
    v3 = SpecifyShape()(v1, TensorConstant(int8, 2), TensorConstant(int8, 1))
    expected = textwrap.dedent("""\
        SpecifyShape [id A] <TensorType(float64, (2, 1))>
         |<TensorType(float64, (2, ?))> [id B] <TensorType(float64, (2, ?))>
         |TensorConstant{2} [id C] <TensorType(int8, ())>
         |TensorConstant{1} [id D] <TensorType(int8, ())>
        """)
    assert dprint(v3, print_type=True, file="str") == expected


def test_nested_indentation_names_and_no_types():
    x, y = floatt("x"), floatt("y")
    s = add(x, y)
    s.name = "s"
    out = mul(s, 2.0)
    assert dprint(out, file="str") == textwrap.dedent("""\
        Mul [id A]
         |Add [id B] 's'
         | |x [id C]
         | |y [id D]
         |Constant{2.0} [id E]
        """)


def test_shared_node_is_printed_once_with_its_inputs():
    x = floatt("x")
    s = neg(x)
    out = add(s, s)
    assert dprint(out, file="str") == textwrap.dedent("""\
        Add [id A]
         |Neg [id B]
         | |x [id C]
         |Neg [id B]
        """)


def test_multi_output_nodes_share_an_id_and_show_the_index():
    x, y = floatt("x"), floatt("y")
    q, r = divmod_op(x, y)
    text = dprint([q, r], file="str")
    assert text == textwrap.dedent("""\
        DivMod.0 [id A]
         |x [id B]
         |y [id C]
        DivMod.1 [id A]
        """)
    assert dprint(q.owner, file="str") == text


def test_function_graph_stops_at_its_inputs():
    x = floatt("x")
    mid = neg(x)
    out = add(mid, mid)
    fg = FunctionGraph([mid], [out])
    assert dprint(fg, file="str", print_type=True) == textwrap.dedent("""\
        Add [id A] <FloatType>
         |Neg.0 [id B] <FloatType>
         |Neg.0 [id B] <FloatType>
        """)


def test_depth_limits_the_levels():
    x = floatt("x")
    out = neg(neg(neg(x)))
    assert dprint(out, depth=1, file="str") == "Neg [id A]\n"
    assert dprint(out, depth=2, file="str") == "Neg [id A]\n |Neg [id B]\n"
    with pytest.raises(ValueError, match="depth"):
        dprint(out, depth=0)


def test_prints_to_stdout_by_default_and_to_a_file(capsys):
    x = floatt("x")
    text = dprint(x)
    assert capsys.readouterr().out == text == "x [id A]\n"
    buf = io.StringIO()
    assert dprint(neg(x), file=buf) == buf.getvalue() == "Neg [id A]\n |x [id B]\n"
    assert dprint(x, file="str") == "x [id A]\n" and capsys.readouterr().out == ""


def test_deep_chain_does_not_recurse():
    v = floatt("x")
    for _ in range(5000):
        v = neg(v)
    lines = dprint(v, file="str").splitlines()
    assert len(lines) == 5001 and lines[-1].endswith("x [id " + char_from_number(5000) + "]")


def test_bad_arguments():
    with pytest.raises(TypeError, match="cannot print int"):
        dprint(3)
    with pytest.raises(TypeError, match="nested"):
        dprint([[floatt()]])
    with pytest.raises(TypeError, match="write method"):
        dprint(floatt(), file=42)


def test_char_from_number():
    assert [char_from_number(i) for i in (0, 1, 25, 26, 27, 26 * 26)] == [
        "A",
        "B",
        "Z",
        "BA",
        "BB",
        "BAA",
    ]
    with pytest.raises(ValueError):
        char_from_number(-1)
