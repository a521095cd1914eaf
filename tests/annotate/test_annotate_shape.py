"""The shape language of jaxtyping's array annotations: what each token parses to, and every malformed
token rejected with a caret under it."""

from __future__ import annotations

import numpy as np
import pytest

from tensortypes.annotate import Float, Template, parse_shape
from tensortypes.core.dims import parse
from tensortypes.core.shapes import DimSpec
from tensortypes.errors import AnnotationError


def specs(text):
    return parse_shape(text).dims


@pytest.mark.parametrize(
    "text, expected, variadic",
    [
        ("", (), None),
        ("28 28", (DimSpec("fixed", 28), DimSpec("fixed", 28)), None),
        ("batch channels", (DimSpec("var", "batch"), DimSpec("var", "channels")), None),
        ("dim-1", (DimSpec("var", parse("dim-1")),), None),
        ("min(h,w)", (DimSpec("var", parse("min(h,w)")),), None),
        ("2*3", (DimSpec("fixed", 6),), None),
        ("*batch c", (DimSpec("var", "batch", variadic=True), DimSpec("var", "c")), 0),
        ("#foo", (DimSpec("var", "foo", broadcast=True),), None),
        ("#4", (DimSpec("fixed", 4, broadcast=True),), None),
        ("b _ _", (DimSpec("var", "b"), DimSpec("anon"), DimSpec("anon")), None),
        ("_foo", (DimSpec("anon", doc="foo"),), None),
        ("rows=4 cols=3", (DimSpec("fixed", 4, doc="rows"), DimSpec("fixed", 3, doc="cols")), None),
        ("rows=n", (DimSpec("var", "n", doc="rows"),), None),
        ("?n", (DimSpec("var", "n", path=True),), None),
        (
            "... c h w",
            (
                DimSpec("anon", variadic=True),
                DimSpec("var", "c"),
                DimSpec("var", "h"),
                DimSpec("var", "w"),
            ),
            0,
        ),
        ("*_ c", (DimSpec("anon", variadic=True), DimSpec("var", "c")), 0),
        ("c #*b", (DimSpec("var", "c"), DimSpec("var", "b", broadcast=True, variadic=True)), 1),
        ("*#b", (DimSpec("var", "b", broadcast=True, variadic=True),), 0),
        ("?*b", (DimSpec("var", "b", path=True, variadic=True),), 0),
        ("#rows=n", (DimSpec("var", "n", broadcast=True, doc="rows"),), None),
        ("rows=#n", (DimSpec("var", "n", broadcast=True, doc="rows"),), None),
    ],
)
def test_tokens_parse_to_dimspecs(text, expected, variadic):
    parsed = parse_shape(text)
    assert parsed.dims == expected
    assert parsed.index_variadic == variadic


def test_whitespace_is_normalised_and_patterns_are_interned():
    a, b = parse_shape("  b\tc  "), parse_shape("b c")
    assert a.dim_str == b.dim_str == "b c"
    assert a.pattern is b.pattern
    assert Float[np.ndarray, " b  c "] is Float[np.ndarray, "b c"]


def test_simple_flag_marks_what_the_generated_matchers_handle():
    assert parse_shape("*b #c _ 3 ?d").simple
    assert not parse_shape("n-1").simple
    assert not parse_shape("{size}").simple


def test_braces_are_kept_as_templates():
    (t,) = specs("{self.some_value}+3")
    assert type(t) is Template
    assert str(t.dim) == "{0}+3"
    assert [(str(d), text) for d, text in t.braces] == [("self.some_value", "{self.some_value}")]

    class Owner:
        some_value = 5

    assert t.resolve({"self": Owner()}) == (parse("8"), None)
    (t,) = specs("#rows={size}*n")
    assert t.broadcast and t.doc == "rows" and str(t) == "#rows={size}*n"
    assert t.resolve({"size": np.int64(2)}) == (parse("2*n"), None)
    # In the lattice type a template is some size: '_'.
    assert str(parse_shape("{size} n").pattern) == "_ n"


def test_template_values_must_be_ints_and_names_must_exist():
    (t,) = specs("{size}")
    dim, reason = t.resolve({"size": 2.5})
    assert dim is None and "{size} is 2.5 (float)" in reason
    assert t.resolve({"size": True})[0] is None  # a bool is not a size
    with pytest.raises(AnnotationError, match="no argument 'size'"):
        t.resolve({"other": 1})
    with pytest.raises(AnnotationError, match="no checked call"):
        t.resolve(None)
    # An attribute the value lacks is the value's fault: a reason, not an AnnotationError.
    (t,) = specs("{self.missing}")
    dim, reason = t.resolve({"self": object()})
    assert dim is None and "AttributeError reading .missing" in reason


# text, the caret's start and end, and a fragment of the message.
MALFORMED = [
    ("a b,c", 3, 4, "not commas"),
    ("... ...", 4, 7, "at most one entry"),
    ("*a *b", 3, 5, "at most one entry"),
    ("*a ...", 3, 6, "at most one entry"),
    ("n+", 2, 3, "expected an operand"),
    ("b 2n", 2, 4, "invalid number"),
    ("b n.x", 3, 4, "attribute access"),
    ("{size", 0, 1, "unbalanced '{'"),
    ("x size}", 6, 7, "unbalanced '}'"),
    ("{a}{", 3, 4, "unbalanced '{'"),
    ("{a{b}}", 2, 3, "braces do not nest"),
    ("{}", 1, 2, "expected an operand, found '}'"),
    ("{a[0]}", 2, 3, "only parentheses group"),
    ("{f()}", 1, 2, "unknown function 'f'"),
    ("{a.f()}", 1, 4, "unknown function 'a.f'"),
    ("{a}+", 4, 5, "expected an operand"),
    # A brace is a whole operand: nothing is pasted together as text.
    ("n{k}", 1, 2, "a brace is a whole operand"),
    ("{a}{b}", 3, 4, "a brace is a whole operand"),
    ("{k}n", 3, 4, "a brace is a whole operand"),
    ("2{k}", 1, 2, "a brace is a whole operand"),
    # Dunder attributes are refused: braces read sizes, not an object's internals.
    ("{fn.__globals__}", 4, 15, "dunder names are not allowed"),
    ("{x.__class__.__init__}", 3, 12, "dunder names are not allowed"),
    ("{__import__}", 1, 11, "dunder names are not allowed"),
    ("{a.}", 2, 3, "expected an attribute name"),
    ("{a//0}", 4, 5, "division by zero"),
    ("##n", 1, 2, "appears twice"),
    ("**n", 1, 2, "appears twice"),
    ("__n", 1, 2, "appears twice"),
    ("??n", 1, 2, "appears twice"),
    ("*4", 0, 2, "fixed size cannot match several axes"),
    ("_4", 0, 2, "fixed size cannot be ignored"),
    ("?4", 0, 2, "fixed size cannot vary"),
    ("#_", 0, 2, "both ignored"),
    ("#_n", 0, 3, "both ignored"),
    ("_n+1", 0, 4, "expression cannot be ignored"),
    ("*n+1", 0, 4, "expression cannot match several axes"),
    ("?n+1", 0, 4, "expression cannot vary"),
    ("*{a}", 0, 4, "braces cannot match several axes"),
    ("n#", 1, 2, "written '#n'"),
    ("...x", 0, 3, "stands on its own"),
    ("*...", 1, 4, "stands on its own"),
    ("a=b=4", 3, 4, "only one 'name='"),
    ("=4", 0, 1, "documentation name"),
    ("1x=4", 0, 3, "documentation name"),
    ("rows=", 0, 5, "no size or name"),
    ("#", 0, 1, "no size or name"),
    ("b -1", 2, 4, "negative"),
    ("n//0", 3, 4, "division by zero"),
]


@pytest.mark.parametrize("text, start, end, fragment", MALFORMED)
def test_malformed_shapes_raise_with_a_caret(text, start, end, fragment):
    with pytest.raises(AnnotationError) as info:
        parse_shape(text)
    error = info.value
    assert fragment in error.message
    assert error.text == text
    assert (error.position, error.end) == (start, end)
    lines = str(error).splitlines()
    assert lines[-2] == "    " + text
    assert lines[-1] == "    " + " " * start + "^" * (end - start)


@pytest.mark.parametrize("text, start, end, fragment", MALFORMED[:4])
def test_subscripts_report_the_same_errors(text, start, end, fragment):
    with pytest.raises(AnnotationError, match=fragment):
        Float[np.ndarray, text]


@pytest.mark.parametrize("bad", [3, None, ["b", "c"], b"b c"])
def test_a_shape_must_be_a_string(bad):
    with pytest.raises(AnnotationError, match="a shape is a string"):
        parse_shape(bad)
    with pytest.raises(AnnotationError, match="a shape is a string"):
        Float[np.ndarray, bad]


def test_keyword_axis_names_as_in_jaxtyping():
    # jaxtyping treats any identifier as an axis name, keywords included.
    import numpy as np

    from tensortypes.annotate import Float

    assert isinstance(np.zeros((2, 3)), Float[np.ndarray, "batch in"])
    assert Float[np.ndarray, "batch in"].dim_str == "batch in"
