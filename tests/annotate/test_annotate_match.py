"""Matching values against shapes: sizes, names, expressions, modifiers, braces, the
bindings a match adds (and a failure does not), and agreement between the generated
fast path and the explaining interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.annotate import Bindings, Float, Matcher, Shaped, parse_shape, scope
from tensortypes.annotate._interpret import run
from tensortypes.errors import AnnotationError


def arr(*shape, dtype=np.float32):
    return np.zeros(shape, dtype)


def check(shape_text, *shapes, arguments=None):
    """Check arrays of ``shapes`` in one scope; return (all matched, bindings)."""
    hint = Shaped[np.ndarray, shape_text]
    with scope(arguments) as b:
        ok = all(isinstance(arr(*s), hint) for s in shapes)
    return ok, b


@pytest.mark.parametrize(
    "text, shape, ok",
    [
        ("", (), True),
        ("", (1,), False),
        ("3 4", (3, 4), True),
        ("3 4", (3, 5), False),
        ("3 4", (3,), False),
        ("n n", (2, 2), True),
        ("n n", (2, 3), False),
        ("#3", (1,), True),
        ("#3", (3,), True),
        ("#3", (2,), False),
        ("_ _", (5, 6), True),
        ("_foo 2", (9, 2), True),
        ("rows=4 cols=3", (4, 3), True),
        ("rows=4 cols=3", (3, 4), False),
        ("...", (), True),
        ("...", (2, 3, 4), True),
        ("... 3", (3,), True),
        ("... 3", (2, 3), True),
        ("... 3", (), False),
        ("3 ... 4", (3, 4), True),
        ("3 ... 4", (3, 9, 9, 4), True),
        ("3 ... 4", (4, 3), False),
        ("*b n", (2, 3, 4), True),
        ("*b n", (), False),
        ("n-1 n", (4, 5), True),
        ("n-1 n", (4, 4), False),
        ("n n-1", (5, 4), True),
        ("2*n n", (6, 3), True),
        ("2*n n", (5, 3), False),
        ("n+1", (0,), False),
        ("min(a,b) a b", (2, 2, 3), True),
    ],
)
def test_single_values(text, shape, ok):
    hint = Shaped[np.ndarray, text]
    assert isinstance(arr(*shape), hint) is ok
    assert (hint.__instancecheck_str__(arr(*shape)) == "") is ok


def test_names_bind_across_values_in_one_scope():
    x, y = Shaped[np.ndarray, "b c"], Shaped[np.ndarray, "c d"]
    with scope() as b:
        b.label = "x"
        assert isinstance(arr(8, 16), x)
        b.label = "y"
        assert isinstance(arr(16, 32), y)
        assert b.sizes == {"b": 8, "c": 16, "d": 32}
        assert b.where == {"b": ("x", 0, 1), "c": ("x", 1, 2), "d": ("y", 1, 2)}
        assert not isinstance(arr(4, 32), y)
        reason = y.__instancecheck_str__(arr(4, 32))
        assert reason == "axis 0 of y has size 4, but c=16 was bound by axis 1 of x"
        assert b.sizes == {"b": 8, "c": 16, "d": 32}  # a failure adds nothing
    # Outside the scope, each value stands alone again.
    assert isinstance(arr(4, 32), y)


def test_failed_match_leaves_no_partial_bindings():
    hint = Shaped[np.ndarray, "a b 3"]
    with scope() as b:
        assert not isinstance(arr(1, 2, 4), hint)
        assert b.sizes == {} and b.where == {}
        assert not isinstance(arr(1, 2, 4), Shaped[np.ndarray, "a n-1 5"])
        assert b.sizes == {}


def test_broadcast_names_skip_size_one():
    hint = Shaped[np.ndarray, "#n"]
    ok, b = check("#n", (1,), (5,), (1,))
    assert ok and b.sizes == {"n": 5}
    assert not check("#n", (5,), (4,))[0]
    assert not check("n", (1,), (5,))[0]  # only '#' makes 1 special
    with scope() as b:
        b.bind("n", 1)
        assert not isinstance(arr(5), hint)  # "#n" is n or 1, and n is 1


def test_variadic_names_bind_tuples():
    ok, b = check("*batch c", (2, 3, 4), (2, 3, 4))
    assert ok and b.sizes == {"*batch": (2, 3), "c": 4}
    assert b.where["*batch"] == ("a value checked with isinstance", 0, 2)
    assert not check("*batch c", (2, 3, 4), (2, 4))[0]
    assert check("_ *batch", (4,), (5,))[0]  # the empty tuple both times


def test_broadcast_variadic_follows_jaxtyping():
    # '#*b' against '#*b': any shapes that broadcast together.
    ok, b = check("#*b", (3, 1), (1, 4))
    assert ok and b.sizes["*b"] == (3, 4) and b.broadcast == {"*b"}
    assert not check("#*b", (3,), (2,))[0]
    with scope() as b:
        assert isinstance(arr(3, 1), Shaped[np.ndarray, "#*b"])
        assert isinstance(arr(3, 4), Shaped[np.ndarray, "*b"])  # broadcast binding widens
        assert b.sizes["*b"] == (3, 4) and not b.broadcast
        assert isinstance(arr(1, 4), Shaped[np.ndarray, "#*b"])  # broadcasts to (3, 4)
        assert not isinstance(arr(2, 4), Shaped[np.ndarray, "#*b"])
        assert not isinstance(arr(3, 5), Shaped[np.ndarray, "*b"])


def test_expressions_are_solved_for_one_unbound_name():
    ok, b = check("n-1", (4,))
    assert ok and b.sizes == {"n": 5}
    assert check("n-1", (4,), (4,))[0]
    assert not check("2*n", (5,))[0]
    reason = Float[np.ndarray, "2*n"].__instancecheck_str__(arr(5))
    assert "no size n makes 2*n equal 5" in reason
    with scope() as b:
        b.bind("n", 3)
        assert "n-1 is 2 with n=3" in Float[np.ndarray, "n-1"].__instancecheck_str__(arr(5))


def test_expressions_whose_names_stay_unbound_are_annotation_errors():
    with pytest.raises(AnnotationError, match="m, n are not bound"):
        isinstance(arr(6), Shaped[np.ndarray, "n*m"])
    assert check("n m n*m", (2, 3, 6))[0]
    assert not check("n m n*m", (2, 3, 5))[0]


def test_braces_resolve_from_the_call_arguments():
    class Owner:
        some_value = 5

    assert check("{size}", (3,), arguments={"size": 3})[0]
    assert not check("{size}", (4,), arguments={"size": 3})[0]
    ok, b = check("{self.some_value}+3", (8,), arguments={"self": Owner()})
    assert ok
    assert check("{size}*n", (6,), arguments={"size": 2})[1].sizes == {"n": 3}
    with scope({"size": 2.0}):
        reason = Shaped[np.ndarray, "{size}"].__instancecheck_str__(arr(2))
        assert "{size} is 2.0 (float), not an int size" in reason
    with pytest.raises(AnnotationError, match="no checked call"):
        isinstance(arr(3), Shaped[np.ndarray, "{size}"])
    with scope({}), pytest.raises(AnnotationError, match="no argument 'size'"):
        isinstance(arr(3), Shaped[np.ndarray, "{size}"])


@pytest.mark.parametrize(
    "text, shape, ok",
    [("?n ?n", (2, 2), True), ("?n ?n", (2, 3), False), ("?n n", (2, 2), True)],
)
def test_tree_path_sizes_inside_a_tree(text, shape, ok):
    with scope() as b:
        b.treepath = "(leaf 0 of T) "
        assert isinstance(arr(*shape), Shaped[np.ndarray, text]) is ok


@pytest.mark.parametrize("text", ["?n", "?n ?n", "?n n", "3 ?n", "*?b n", "?n n-1"])
def test_tree_path_sizes_outside_a_tree_are_an_annotation_error(text):
    # As jaxtyping: a value that reaches the axes of a '?' annotation checked with no
    # structured PyTree around it (alone, or in a scope with no tree path) raises.
    hint = Shaped[np.ndarray, text]
    value = arr(*[2] * len(text.split()))
    with pytest.raises(AnnotationError, match=r"checked only inside one") as info:
        isinstance(value, hint)
    assert info.value.position == text.find("?")
    with scope(), pytest.raises(AnnotationError):
        isinstance(value, hint)
    # Another kind, dtype or number of axes fails before the axes are read.
    assert not isinstance([1], hint)
    wrong_rank = arr() if "*" in text else arr(*[2] * (len(text.split()) + 3))
    assert not isinstance(wrong_rank, hint)
    assert not isinstance(value.astype(bool), Float[np.ndarray, text])


def test_tree_path_names_are_keyed_by_the_scope_path():
    hint = Shaped[np.ndarray, "?n"]
    with scope() as b:
        b.treepath = "[0]"
        assert isinstance(arr(2), hint)
        b.treepath = "[1]"
        assert isinstance(arr(3), hint)
        assert b.sizes == {"[0]n": 2, "[1]n": 3}
        assert not isinstance(arr(4), hint)


def test_reasons_name_kind_dtype_and_rank():
    hint = Float[np.ndarray, "b c"]
    assert hint.__instancecheck_str__([1, 2]) == "expected a NumPy array, got list [1, 2]"
    assert hint.__instancecheck_str__(arr(2, 3, dtype=np.int32)).startswith(
        "its dtype is int32, not Float (bfloat16, float16, float32"
    )
    assert (
        hint.__instancecheck_str__(arr(2))
        == "it has 1 axis (shape (2,)), but the annotation expects 2 ('b c')"
    )
    assert "needs at least 3" in Float[np.ndarray, "a ... b c"].__instancecheck_str__(arr(2))
    assert "axis 1 has size 3, not 4" == Float[np.ndarray, "2 4"].__instancecheck_str__(arr(2, 3))
    assert "expects a scalar" in Float[np.ndarray, ""].__instancecheck_str__(arr(2))


# -- the generated fast path agrees with the interpreter ---------------------------------

NAMES = ("a", "b", "c")
SINGLE = st.one_of(
    st.integers(1, 3).map(str),
    st.sampled_from(NAMES),
    st.sampled_from(NAMES).map(lambda n: "#" + n),
    st.sampled_from(NAMES).map(lambda n: "?" + n),
    st.integers(1, 3).map(lambda k: f"#{k}"),
    st.just("_"),
    st.sampled_from(NAMES).map(lambda n: f"doc={n}"),
)
VARIADIC = st.sampled_from(["...", "*v", "#*v", "*_", "*a"])


@st.composite
def cases(draw):
    tokens = draw(st.lists(SINGLE, max_size=4))
    if draw(st.booleans()):
        tokens.insert(draw(st.integers(0, len(tokens))), draw(VARIADIC))
    shape = tuple(draw(st.lists(st.integers(1, 3), max_size=5)))
    preset = draw(st.dictionaries(st.sampled_from(NAMES), st.integers(1, 3), max_size=2))
    variadic = draw(
        st.one_of(
            st.none(), st.tuples(st.lists(st.integers(1, 3), max_size=2).map(tuple), st.booleans())
        )
    )
    treepath = draw(st.sampled_from(["", "[0]"]))
    return " ".join(tokens), shape, preset, variadic, treepath


def _bindings(preset, variadic, treepath):
    b = Bindings(label="x")
    b.treepath = treepath
    for name, value in preset.items():
        b.bind(name, value, ("w", 0, 1))
    if variadic is not None:
        for key in ("*v", "*a"):
            b.bind(key, variadic[0], ("w", 0, len(variadic[0])))
            if variadic[1]:
                b.broadcast = (b.broadcast or set()) | {key}
    return b


def _state(b):
    return b.sizes, b.where, b.broadcast or set()


@settings(deadline=None, max_examples=400)
@given(cases())
def test_generated_matcher_agrees_with_the_interpreter(case):
    text, shape, preset, variadic, treepath = case
    parsed = parse_shape(text)
    matcher = Matcher("numpy", ("float32",), parsed, f"T[{text}]")
    x = arr(*shape)
    alone = _answer(matcher.match, x, None)
    assert alone == _answer(lambda x, b: run(matcher, x, b, True) is None, x, None)
    fast_b, slow_b = (_bindings(preset, variadic, treepath) for _ in range(2))
    fast = _answer(matcher.match, x, fast_b)
    slow = _answer(lambda x, b: run(matcher, x, b, True) is None, x, slow_b)
    assert fast == slow
    assert _state(fast_b) == _state(slow_b)
    explained = _answer(matcher.explain, x, _bindings(preset, variadic, treepath))
    assert explained == "raised" if fast == "raised" else (explained is None) is fast


def _answer(check, x, b):
    """The check's answer, or "raised" for the AnnotationError of a '?' size checked
    outside a structured PyTree (the fast and the slow path raise at the same point)."""
    try:
        return check(x, b)
    except AnnotationError as error:
        assert "checked only inside one" in str(error)
        return "raised"


def test_generated_source_is_registered_for_tracebacks():
    import linecache

    hint = Float[np.ndarray, "b c"]
    source = hint._tt_matcher.source
    assert source.startswith("def match(x, b):")
    lines = linecache.getlines("<tensortypes match Float[ndarray, 'b c']>")
    assert "".join(lines) == source
    assert Float[np.ndarray, "n-1"]._tt_matcher.source is None  # interpreted


@pytest.mark.parametrize("library", ["torch", "jax"])
def test_library_arrays_are_read_inline_once_their_class_is_seen(library):
    # torch's and JAX's own array classes are read inline by the generated matcher
    # after the first (guarded) extraction; the answers and bindings stay the same,
    # a torch.Size is bound as a tuple, and a subclass whose .shape is its own code
    # still goes through the guarded extraction.
    mod = pytest.importorskip(library)
    if library == "torch":
        make, cls = (
            (lambda *s, dtype="float32": mod.zeros(s, dtype=getattr(mod, dtype))),
            mod.Tensor,
        )
    else:
        import jax.numpy as jnp

        make, cls = (lambda *s, dtype="float32": jnp.zeros(s, dtype=dtype)), mod.Array
    hint = Float[cls, "*batch n 3"]
    assert "type(x) in _NK" in hint._tt_matcher.source
    for _ in range(2):  # the first call learns the class, the second reads it inline
        assert isinstance(make(2, 4, 3), hint)
        assert not isinstance(make(2, 4, 2), hint)
        assert not isinstance(make(2, 4, 3, dtype="int32"), hint)
        with scope() as b:
            assert isinstance(make(5, 2, 3), hint)
            assert isinstance(make(5, 2, 3), hint)
            assert not isinstance(make(6, 2, 3), hint)
        assert type(b.sizes["*batch"]) is tuple and b.sizes["*batch"] == (5,)
    if library == "torch":

        class Liar(mod.Tensor):
            @property
            def shape(self):
                return (7, 3)

        liar = mod.zeros(2, 4, 3).as_subclass(Liar)
        assert isinstance(liar, Float[cls, "a 3"]) and not isinstance(liar, Float[cls, "a n 3"])
