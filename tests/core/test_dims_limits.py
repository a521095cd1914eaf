"""Bounded work in the dims parser, normal form and evaluation.

Each input of the reliability probe that hung, grew without bound or raised a raw
exception is here, with what it gives now: an AnnotationError naming the limit of
``tensortypes.core.limits`` (with a caret where the parser has a position), or an
evaluation that stops before computing a huge integer.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tensortypes import AnnotationError, Float
from tensortypes.core import limits
from tensortypes.core.dims import parse
from tensortypes.errors import caret_message


def _refused(text, name):
    with pytest.raises(AnnotationError) as info:
        parse(text)
    assert f"({name} in tensortypes.core.limits)" in str(info.value)
    return info.value


def _caret(error):
    lines = str(error).splitlines()
    return lines[-2][4:], lines[-1][4:]


# -- definition time ------------------------------------------------------------------------


def test_a_product_of_sums_is_expanded_only_up_to_max_terms():
    # 15 binomials took 4.6 s; the expansion now stops at the first product over the limit.
    text = "*".join(f"(a{i}+b{i})" for i in range(15))
    error = _refused(text, "MAX_TERMS")
    assert error.position == 0 and "512 terms" in error.message
    _refused("(a+b)**64*(c+d)**64*(e+f)**64", "MAX_TERMS")
    # Within the limit the product is expanded as before.
    assert len(parse("*".join(f"(a{i}+b{i})" for i in range(8)))._terms) == 256
    assert str(parse("(a+b)**2")) == "a**2+2*a*b+b**2"


def test_max_of_many_names_is_linear_and_still_simplifies():
    text = f"max({','.join(f'a{i}' for i in range(150))})"
    d = parse(text)
    assert len(d.free_symbols) == 150
    assert parse("max(n,n+1,n+3,m,m-2,2,5)") is parse("max(n+3,m,5)")
    assert parse("min(n,n+1,n-3,4,1)") is parse("min(n-3,1)")
    assert parse("max(n+1,n+1)") is parse("n+1")


def test_a_size_over_max_bits_is_refused():
    error = _refused("2**4097", "MAX_BITS")
    assert error.message.startswith("2**4097 is too large") and error.end == 7
    # A coefficient too large to print (it was a ValueError from str()).
    _refused("(n+2**4000)**4", "MAX_BITS")
    # A monomial's exponent grows by products of exponents.
    _refused("((n**(2**4000))**(2**4000))", "MAX_BITS")


def test_a_literal_over_max_digits_is_refused_before_conversion(monkeypatch):
    # MAX_DIGITS is above MAX_LENGTH today; the check must still hold if that changes.
    from tensortypes.core import _dimparse

    text = "1" * (limits.MAX_DIGITS + 1)
    monkeypatch.setattr(_dimparse, "MAX_LENGTH", len(text))
    with pytest.raises(AnnotationError, match="MAX_DIGITS") as info:
        _dimparse.parse_tree(text)
    assert (info.value.position, info.value.end) == (0, len(text))


def test_a_shape_size_of_4301_digits_is_an_annotation_error():
    # It was a ValueError from int() (Python's limit on decimal conversion).
    with pytest.raises(AnnotationError, match="MAX_LENGTH"):
        Float[np.ndarray, "9" * 4301]
    with pytest.raises(AnnotationError, match="MAX_LENGTH"):
        Float[np.ndarray, "a " * 600]
    assert Float[np.ndarray, "9" * 999] is not None


def test_nesting_operands_and_length_are_limited():
    error = _refused("(" * 33 + "n" + ")" * 33, "MAX_NESTING")
    assert _caret(error)[1].index("^") == 32
    _refused("-" * 40 + "n", "MAX_NESTING")
    _refused("**".join(["n"] * 40), "MAX_NESTING")
    _refused("max(" * 40 + "a,b" + ")" * 40, "MAX_NESTING")
    parse("(" * 32 + "n" + ")" * 32)
    error = _refused("+".join(["n"] * 300), "MAX_OPERANDS")
    line, caret = _caret(error)
    assert line[caret.index("^")] == "n"
    _refused("n+" * 600 + "n", "MAX_LENGTH")


def test_opaque_terms_nest_at_most_max_nesting_deep():
    # A left-associative chain of // nests in the normal form without any parentheses.
    _refused("//".join(["n"] + [str(p) for p in range(2, 60)]), "MAX_NESTING")
    d = parse("//".join(["n"] + ["2"] * 20))
    assert d.evaluate({"n": 1 << 20}) == 1


def test_long_chains_cost_no_recursion():
    # 200 operands in one chain: built in a loop (the tree is 200 deep on its left).
    text = "+".join(f"a{i}" for i in range(200))
    assert len(parse(text).free_symbols) == 200
    assert parse("-".join(["n"] * 200)) is parse("-198*n")
    assert parse("*".join(["n"] * 200)) is parse("n**200")


def test_long_text_in_an_error_is_shown_around_the_caret():
    text = "a" * 5000 + "$" + "b" * 5000
    message = caret_message("bad", text, 5000, 5001)
    assert len(message) < 400
    line, caret = message.splitlines()[1][4:], message.splitlines()[2][4:]
    assert line[caret.index("^")] == "$"


# -- evaluation -----------------------------------------------------------------------------


def test_evaluation_never_computes_a_huge_power():
    d = parse("n**10**8")
    with pytest.raises(OverflowError, match="MAX_BITS"):
        d.evaluate({"n": 3})
    assert d.evaluate({"n": 1}) == 1 and d.evaluate({"n": 0}) == 0
    # (n**10000)**m: the message formatting itself raised ValueError.
    with pytest.raises(OverflowError, match="too large"):
        parse("(n**10000)**m").evaluate({"n": 3, "m": 10**7})
    assert parse("(n**10000)**m").evaluate({"n": 1, "m": 10**7}) == 1
    assert parse("2**n").evaluate({"n": 100}) == 2**100
    with pytest.raises(OverflowError):
        parse("2**n").evaluate({"n": 10**9})


def test_a_huge_power_in_an_annotation_fails_the_check_at_once():
    ann = Float[np.ndarray, "n n**10**8"]
    assert not isinstance(np.zeros((3, 5)), ann)
    assert isinstance(np.zeros((1, 1)), ann)
    assert isinstance(np.zeros((0, 0)), ann)
    reason = ann.__instancecheck_str__(np.zeros((3, 5)))
    assert "too large" in reason


# -- properties -----------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "n",
        "m",
        "2",
        "(",
        ")",
        "+",
        "-",
        "*",
        "//",
        "%",
        "**",
        "max(",
        ",",
        "min(",
        "10",
        "9" * 50,
        " ",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=120))
@example(pieces=["10", "**", "10", "2", "2"])  # 10**1022: 1023 characters when printed
def test_any_text_parses_or_is_an_annotation_error(pieces):
    text = "".join(pieces)
    try:
        d = parse(text)
    except AnnotationError as error:
        assert error.text == text
        return
    # Whatever parses is within the limits and prints back to itself, unless the
    # printed form is past MAX_LENGTH: a constant within MAX_BITS can have more
    # digits than that ("10**1022" prints 1023 characters), and then reading it back
    # is the length error, as for any text that long.
    assert len(d._terms) <= limits.MAX_TERMS
    assert all(c.bit_length() <= limits.MAX_BITS for _, c in d._terms)
    printed = str(d)
    if len(printed) > limits.MAX_LENGTH:
        with pytest.raises(AnnotationError, match="MAX_LENGTH"):
            parse(printed)
    else:
        assert parse(printed) is d


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(0, 3))
def test_products_of_sums_are_refused_exactly_past_max_terms(k, extra):
    text = "*".join(
        f"(a{i}+b{i}" + "".join(f"+c{i}x{j}" for j in range(extra)) + ")" for i in range(k)
    )
    terms = 1
    for _ in range(k):
        if terms * (2 + extra) > limits.MAX_TERMS:
            with pytest.raises(AnnotationError, match="MAX_TERMS"):
                parse(text)
            return
        terms *= 2 + extra
    assert len(parse(text)._terms) == terms


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-9, 9), st.sampled_from(["", "a", "b", "a*b", "a**2"])),
        min_size=2,
        max_size=4,
    ),
    st.integers(2, 12),
    st.integers(-6, 6),
    st.integers(-6, 6),
)
def test_powers_of_sums_expand_to_what_python_computes(terms, k, a, b):
    base = "+".join(f"({c}*{m})" if m else f"({c})" for c, m in terms)
    text = f"({base})**{k}"
    d = parse(text)
    assert d.evaluate({"a": a, "b": b}) == eval(text, {}, {"a": a, "b": b})  # noqa: S307
