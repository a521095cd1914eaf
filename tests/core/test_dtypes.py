"""Interned dtypes, categories, conversion, promotion and casting (tensortypes.core.dtypes)."""

from __future__ import annotations

import copy
import itertools
import pickle
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.core import _promotion
from tensortypes.core import dtypes as D
from tensortypes.core.dtypes import (
    ALL_DTYPES,
    CATEGORIES,
    NUMPY_DTYPES,
    DType,
    as_dtype,
    can_cast,
    category,
    dtype_from_name,
    matches,
    result_type,
)

NUMPY_NAMES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
FLOAT8 = [
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
]
NON_KEY = [d for d in ALL_DTYPES if d is not D.key]

numpy_dtypes = st.sampled_from(NUMPY_DTYPES)
non_key_dtypes = st.sampled_from(NON_KEY)


def by_name(*names: str) -> frozenset[DType]:
    return frozenset(DType(n) for n in names)


# -- DType values --------------------------------------------------------------


def test_all_dtypes_order_and_numpy_subset():
    assert [d.name for d in ALL_DTYPES] == [
        "bool",
        "int2",
        "int4",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint2",
        "uint4",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bfloat16",
        "float16",
        "float32",
        "float64",
        *FLOAT8,
        "complex64",
        "complex128",
        "key",
    ]
    assert sorted(d.name for d in NUMPY_DTYPES) == sorted(NUMPY_NAMES)
    assert all(d.is_numpy == (d in NUMPY_DTYPES) for d in ALL_DTYPES)


def test_module_constants_are_the_interned_values():
    assert D.bool_ is DType("bool")
    for d in ALL_DTYPES:
        if d.name != "bool":
            assert getattr(D, d.name) is d


@pytest.mark.parametrize("d", ALL_DTYPES, ids=str)
def test_interned_identity_pickle_and_copy(d):
    assert DType(d.name) is d
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(d, protocol)) is d
    assert copy.copy(d) is d and copy.deepcopy([d])[0] is d
    assert str(d) == d.name and repr(d) == f"DType({d.name!r})"


def test_attributes():
    facts = {d.name: (d.kind, d.bits, d.itemsize) for d in ALL_DTYPES}
    assert facts["bool"] == ("b", 8, 1)
    assert facts["int2"] == ("i", 2, None) and facts["uint4"] == ("u", 4, None)
    assert facts["int64"] == ("i", 64, 8) and facts["uint16"] == ("u", 16, 2)
    assert facts["bfloat16"] == ("f", 16, 2) and facts["float8_e5m2"] == ("f", 8, 1)
    assert facts["complex128"] == ("c", 128, 16)
    assert facts["key"] == ("key", 0, None)
    for d in NUMPY_DTYPES:
        assert d.numpy == np.dtype(d.name)
        assert d.itemsize == d.numpy.itemsize and d.kind == d.numpy.kind
    assert D.key.numpy is None


def test_immutable_and_final():
    with pytest.raises(AttributeError, match="immutable"):
        D.float32.name = "float64"
    with pytest.raises(AttributeError, match="immutable"):
        del D.float32.bits
    with pytest.raises(TypeError, match="final"):
        type("Sub", (DType,), {})
    assert D.float32.name == "float32"


@pytest.mark.parametrize("bad", ["f4", "float128", "", None, ["float32"]])
def test_constructor_takes_only_canonical_names(bad):
    with pytest.raises(TypeError, match="canonical"):
        DType(bad)


def test_extension_numpy_dtype_appears_only_when_ml_dtypes_is_imported(run_python):
    pytest.importorskip("ml_dtypes")
    run_python("""
        import sys
        from tensortypes.core import dtypes as D
        assert "ml_dtypes" not in sys.modules
        assert D.bfloat16.numpy is None and D.int4.numpy is None
        assert "ml_dtypes" not in sys.modules
        import ml_dtypes, numpy as np
        assert D.bfloat16.numpy == np.dtype(ml_dtypes.bfloat16)
        assert D.float8_e4m3fn.numpy == np.dtype(ml_dtypes.float8_e4m3fn)
        assert D.uint2.numpy == np.dtype(ml_dtypes.uint2)
        assert D.key.numpy is None
    """)


# -- categories (as in jaxtyping) -----------------------------------------------------


def test_categories_golden():
    ints = ("int2", "int4", "int8", "int16", "int32", "int64")
    uints = ("uint2", "uint4", "uint8", "uint16", "uint32", "uint64")
    floats = ("bfloat16", "float16", "float32", "float64", *FLOAT8)
    complexes = ("complex64", "complex128")
    assert CATEGORIES["any"] == frozenset(ALL_DTYPES)
    assert CATEGORIES["bool"] == by_name("bool")
    assert CATEGORIES["signed"] == by_name(*ints)
    assert CATEGORIES["unsigned"] == by_name(*uints)
    assert CATEGORIES["integer"] == by_name(*ints, *uints)
    assert CATEGORIES["floating"] == by_name(*floats)
    assert CATEGORIES["complex"] == by_name(*complexes)
    assert CATEGORIES["inexact"] == by_name(*floats, *complexes)
    assert CATEGORIES["real"] == by_name(*floats, *ints, *uints)
    assert CATEGORIES["num"] == by_name(*floats, *complexes, *ints, *uints)
    assert CATEGORIES["key"] == by_name("key")
    named = {
        "any": D.ANY,
        "bool": D.BOOL,
        "num": D.NUM,
        "inexact": D.INEXACT,
        "floating": D.FLOATING,
        "complex": D.COMPLEX,
        "integer": D.INTEGER,
        "unsigned": D.UNSIGNED,
        "signed": D.SIGNED,
        "real": D.REAL,
        "key": D.KEY,
    }
    assert named == CATEGORIES


def test_category_relations():
    assert D.REAL == D.FLOATING | D.INTEGER
    assert D.bool_ not in D.NUM and D.key not in D.NUM and D.key in D.ANY
    assert D.NUM == D.INEXACT | D.INTEGER
    assert category("real") is D.REAL
    with pytest.raises(ValueError, match="unknown dtype category 'reals'.*real"):
        category("reals")


# -- conversion ----------------------------------------------------------------

STRINGS = {
    "float": "float64",
    "int": "int64",
    "uint": "uint64",
    "complex": "complex128",
    "double": "float64",
    "single": "float32",
    "half": "float16",
    "bool_": "bool",
    "bool": "bool",
    "?": "bool",
    "f4": "float32",
    "<f8": "float64",
    ">f4": "float32",
    "=i2": "int16",
    "b": "int8",
    "B": "uint8",
    "e": "float16",
    "F": "complex64",
    "D": "complex128",
    "longlong": "int64",
    "intp": "int64",
    "uint8": "uint8",
    "bfloat16": "bfloat16",
    "int4": "int4",
    "uint4": "uint4",
    "int2": "int2",
    "uint2": "uint2",
    "key": "key",
    "key<fry>": "key",
    "key<rbg>": "key",
    **{name: name for name in FLOAT8},
}


@pytest.mark.parametrize(("text", "expected"), sorted(STRINGS.items()))
def test_as_dtype_strings(text, expected):
    assert as_dtype(text) is DType(expected)
    assert as_dtype(text) is DType(expected)  # second time from the cache


@pytest.mark.parametrize("name", NUMPY_NAMES)
def test_as_dtype_numpy_dtypes_scalar_types_and_byte_order(name):
    dt = np.dtype(name)
    assert as_dtype(dt) is DType(name)
    assert as_dtype(dt.type) is DType(name)
    assert as_dtype(dt.newbyteorder()) is DType(name)


def test_as_dtype_python_types_and_dtype_itself():
    assert as_dtype(bool) is D.bool_
    assert as_dtype(int) is D.int64
    assert as_dtype(float) is D.float64
    assert as_dtype(complex) is D.complex128
    for d in ALL_DTYPES:
        assert as_dtype(d) is d


def test_as_dtype_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for name in ("bfloat16", "int2", "int4", "uint2", "uint4", *FLOAT8):
        scalar = getattr(ml_dtypes, name)
        assert as_dtype(np.dtype(scalar)) is DType(name)
        assert as_dtype(scalar) is DType(name)
    for unmodelled in ("float8_e3m4", "float4_e2m1fn", "float8_e8m0fnu"):
        if hasattr(ml_dtypes, unmodelled):
            with pytest.raises(TypeError, match=unmodelled):
                as_dtype(np.dtype(getattr(ml_dtypes, unmodelled)))


TORCH_MODELLED = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "int2",
    "int4",
    "uint2",
    "uint4",
]


def test_as_dtype_torch(torch):
    for name in TORCH_MODELLED:
        if hasattr(torch, name):
            assert as_dtype(getattr(torch, name)) is DType(name), name
    assert as_dtype(torch.float) is D.float32 and as_dtype(torch.long) is D.int64
    assert as_dtype(torch.half) is D.float16 and as_dtype(torch.cdouble) is D.complex128
    for unmodelled in ("complex32", "qint8", "quint8", "float8_e8m0fnu", "uint1", "int3"):
        if hasattr(torch, unmodelled):
            with pytest.raises(TypeError, match=unmodelled):
                as_dtype(getattr(torch, unmodelled))


def test_as_dtype_jax(jax):
    jnp = jax.numpy
    assert as_dtype(jnp.float32) is D.float32
    assert as_dtype(jnp.bfloat16) is D.bfloat16
    assert as_dtype(jnp.bool_) is D.bool_
    assert as_dtype(jnp.int4) is D.int4
    assert as_dtype(jnp.float8_e4m3fn) is D.float8_e4m3fn
    assert as_dtype(jnp.dtype("int16")) is D.int16
    assert as_dtype(jnp.ones(2, dtype=jnp.bfloat16).dtype) is D.bfloat16
    assert as_dtype(jax.random.key(0).dtype) is D.key


def foreign_class(module: str, name: str, namespace: dict) -> type:
    """A class that looks, by module and name, like another library's."""
    cls = type(name, (), namespace)
    cls.__module__ = module
    return cls


TFDType = foreign_class(
    "tensorflow.python.framework.dtypes",
    "DType",
    {"__init__": lambda self, name: setattr(self, "name", name)},
)
MLXDtype = foreign_class(
    "mlx.core",
    "Dtype",
    {
        "__init__": lambda self, name: setattr(self, "_name", name),
        "__str__": lambda self: f"mlx.core.{self._name}",
    },
)


def test_as_dtype_tensorflow_and_mlx_by_module_name():
    assert as_dtype(TFDType("bfloat16")) is D.bfloat16
    assert as_dtype(TFDType("bool")) is D.bool_
    assert as_dtype(MLXDtype("float32")) is D.float32
    assert as_dtype(MLXDtype("complex64")) is D.complex64
    with pytest.raises(TypeError, match="named 'string'"):
        as_dtype(TFDType("string"))
    # Another class of the same library with a .name is not a dtype.
    tensor = foreign_class("tensorflow.python.framework.ops", "EagerTensor", {"name": "float32"})
    with pytest.raises(TypeError, match="EagerTensor"):
        as_dtype(tensor())


BAD_INPUTS = [
    "float128",
    "O",
    "str",
    "M8",
    "S5",
    "f4,i4",
    "",
    "floatX",
    "torch.float32",
    None,
    1,
    1.5,
    b"f4",
    ["f4"],
    object,
    np.longdouble,
    np.str_,
    np.dtype("M8[s]"),
    np.dtype(object),
    np.dtype([("a", "f4")]),
    np.dtype(("f4", (2,))),
    np.zeros(3),
]


@pytest.mark.parametrize("bad", BAD_INPUTS, ids=repr)
def test_as_dtype_rejects_with_type_error_naming_the_input(bad):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError) as info:
            as_dtype(bad)
    shown = repr(bad) if not isinstance(bad, np.ndarray) else "array"
    assert shown[:20] in str(info.value) or "floatX" in str(info.value)


def test_float_x():
    assert as_dtype("floatX", floatX="float32") is D.float32
    assert as_dtype("floatX", floatX="float16") is D.float16
    assert as_dtype("float64", floatX="float16") is D.float64
    with pytest.raises(TypeError, match="resolve 'floatX' first"):
        as_dtype("floatX")
    with pytest.raises(TypeError):
        as_dtype("floatX", floatX="floatX")


def test_cache_stays_bounded():
    for _ in range(D._CACHE_LIMIT + 10):
        assert as_dtype(TFDType("int8")) is D.int8
    assert len(D._CACHE) <= D._CACHE_LIMIT


def test_dtype_from_name():
    assert dtype_from_name("float32") is D.float32
    assert dtype_from_name("key<fry>") is D.key
    for unknown in ("f4", "my_dtype", "key<", 3, None):
        assert dtype_from_name(unknown) is None  # tensortypes: ignore[optional]


def test_matches():
    assert matches("float32", "float32") and not matches("float32", "float")
    assert matches(D.float32, "float32")
    assert matches("key<fry>", re.compile(r"key<.*>"))
    assert not matches("xkey<fry>", re.compile(r"key<.*>"))
    assert not matches("float32", re.compile("float"))  # fullmatch, not search
    with pytest.raises(TypeError, match="pattern"):
        matches("float32", 3)
    with pytest.raises(TypeError, match="dtype name"):
        matches(3, "float32")


# -- promotion -----------------------------------------------------------------


@pytest.mark.parametrize("a", NUMPY_NAMES)
def test_result_type_golden_against_numpy(a):
    for b in NUMPY_NAMES:
        assert result_type(a, b).name == np.result_type(a, b).name, (a, b)
        assert result_type(DType(a), np.dtype(b)).name == np.result_type(a, b).name


def test_result_type_of_three_is_numpys_least_upper_bound_not_a_fold():
    for triple in itertools.product(NUMPY_NAMES, repeat=3):
        assert result_type(*triple).name == np.result_type(*triple).name, triple
    assert result_type("int8", "uint8", "float16") is D.float16
    assert result_type(result_type("int8", "uint8"), "float16") is D.float32


EXTENSION_GOLDEN = [
    ("int2", "int4", "int4"),
    ("int4", "int8", "int8"),
    ("uint2", "uint4", "uint4"),
    ("uint4", "uint8", "uint8"),
    ("int2", "uint2", "int4"),
    ("int4", "uint4", "int8"),
    ("int4", "uint8", "int16"),
    ("bool", "int2", "int2"),
    ("bool", "uint2", "uint2"),
    ("bfloat16", "float16", "float32"),
    ("bfloat16", "float32", "float32"),
    ("bfloat16", "int8", "bfloat16"),
    ("bfloat16", "uint8", "bfloat16"),
    ("bfloat16", "int16", "float32"),
    ("bfloat16", "complex64", "complex64"),
    ("float8_e4m3fn", "float8_e5m2", "float32"),
    ("float8_e4m3fn", "float16", "float32"),
    ("float8_e4m3fn", "bfloat16", "float32"),
    ("float8_e5m2", "bool", "float8_e5m2"),
    ("float8_e4m3fn", "int8", "float32"),
    ("float8_e5m2fnuz", "float64", "float64"),
    ("int4", "float16", "float16"),
    ("uint4", "bfloat16", "bfloat16"),
    ("key", "key", "key"),
]


@pytest.mark.parametrize(("a", "b", "expected"), EXTENSION_GOLDEN)
def test_result_type_extension_golden(a, b, expected):
    assert result_type(a, b) is DType(expected)
    assert result_type(b, a) is DType(expected)


@pytest.mark.parametrize("other", [d for d in ALL_DTYPES if d is not D.key], ids=str)
def test_key_promotes_only_with_itself(other):
    with pytest.raises(TypeError, match="key"):
        result_type(D.key, other)
    with pytest.raises(TypeError, match="key"):
        result_type(other, "float32", D.key)


def test_result_type_arity_and_bad_input():
    assert result_type("f4") is D.float32
    with pytest.raises(TypeError, match="at least one"):
        result_type()
    with pytest.raises(TypeError, match="float128"):
        result_type("float32", "float128")


def test_no_combination_of_dtypes_is_ambiguous():
    # A join depends only on (intersection of the inputs' upper bounds, highest
    # input kind rank). Closing the single dtypes' pairs under "intersect, take
    # the max rank" yields every pair any input list can produce, so resolving
    # each of them proves that no list of dtypes, of any length, is ambiguous.
    ubs = _promotion.upper_bounds(_promotion.EDGES)
    kinds = _promotion.KINDS
    states = {(ubs[n], _promotion.KIND_RANK[kinds[n]]) for n in ubs}
    frontier = set(states)
    while frontier:
        new = {(c1 & c2, max(r1, r2)) for c1, r1 in frontier for c2, r2 in states} - states
        states |= new
        frontier = new
    assert len(states) > len(ubs)
    for common, rank in states:
        chosen = _promotion.choose(common, rank, ubs, kinds)
        assert (chosen is None) == (not common)


def test_malformed_tables_fail_loudly():
    with pytest.raises(_promotion.PromotionTableError, match="cycle"):
        _promotion.upper_bounds({"a": ("b",), "b": ("a",)})
    with pytest.raises(_promotion.PromotionTableError, match="unknown"):
        _promotion.upper_bounds({"a": ("z",)})
    ubs = _promotion.upper_bounds({"a": ("x", "y"), "b": ("x", "y"), "x": (), "y": ()})
    kinds = {"a": "i", "b": "u", "x": "f", "y": "f"}
    assert _promotion.least_upper_bound(["a"], ubs, kinds) == "a"
    with pytest.raises(_promotion.PromotionTableError, match="ambiguous.*'x', 'y'"):
        _promotion.least_upper_bound(["a", "b"], ubs, kinds)


@settings(deadline=None)
@given(non_key_dtypes, non_key_dtypes)
def test_result_type_commutative_and_an_upper_bound(a, b):
    r = result_type(a, b)
    assert r is result_type(b, a)
    assert can_cast(a, r) and can_cast(b, r)
    if can_cast(b, a):
        assert r is a


@settings(deadline=None)
@given(st.sampled_from(ALL_DTYPES))
def test_result_type_idempotent(a):
    assert result_type(a, a) is a and result_type(a, a, a) is a


@settings(deadline=None)
@given(non_key_dtypes, non_key_dtypes, non_key_dtypes)
def test_associativity_holds_exactly_without_a_signed_unsigned_inexact_mix(a, b, c):
    # NumPy's pairwise promotion is not associative: (int8 + uint8) + float16 is
    # float32, int8 + (uint8 + float16) is float16. Every such triple, in NumPy's
    # table and in the extension, holds a signed and an unsigned integer and an
    # inexact dtype; the n-ary result is the least of the two bracketings.
    left = result_type(result_type(a, b), c)
    right = result_type(a, result_type(b, c))
    kinds = {a.kind, b.kind, c.kind}
    if not ({"i", "u"} <= kinds and kinds & {"f", "c"}):
        assert left is right
    joined = result_type(a, b, c)
    assert can_cast(joined, left) and can_cast(joined, right)
    assert joined is result_type(c, a, b) is result_type(b, c, a)


def test_numpy_itself_is_not_associative():
    left = np.result_type(np.result_type("int8", "uint8"), "float16")
    right = np.result_type("int8", np.result_type("uint8", "float16"))
    assert (left.name, right.name) == ("float32", "float16")


# -- casting -------------------------------------------------------------------


@pytest.mark.parametrize("casting", _promotion.CASTINGS)
def test_can_cast_golden_against_numpy(casting):
    for a, b in itertools.product(NUMPY_NAMES, repeat=2):
        assert can_cast(a, b, casting) == np.can_cast(a, b, casting), (a, b, casting)


@settings(deadline=None)
@given(numpy_dtypes, numpy_dtypes)
def test_can_cast_to_the_promoted_dtype(a, b):
    r = result_type(a, b)
    assert can_cast(a, r) and can_cast(b, r)
    assert can_cast(a, r) == np.can_cast(a.numpy, r.numpy)


def test_can_cast_extension():
    assert can_cast("int2", "int8") and can_cast("uint4", "int8")
    assert not can_cast("int4", "uint8")
    assert can_cast("bfloat16", "float32") and not can_cast("bfloat16", "float16")
    assert can_cast("int8", "bfloat16") and not can_cast("int16", "bfloat16")
    assert can_cast("float8_e4m3fn", "float32") and not can_cast("float8_e4m3fn", "float16")
    assert can_cast("float32", "float8_e5m2", "same_kind")
    assert not can_cast("float32", "int4", "same_kind")
    assert can_cast("float32", "int4", "unsafe")
    for casting in _promotion.CASTINGS:
        assert can_cast("key", "key", casting)
        assert not can_cast("key", "uint32", casting)
        assert not can_cast("uint32", "key", casting)
        assert can_cast("bfloat16", "bfloat16", casting)
    assert not can_cast("bfloat16", "float32", "equiv")


def test_can_cast_rejects_unknown_casting():
    with pytest.raises(ValueError, match="casting must be one of"):
        can_cast("int8", "int16", "sometimes")
    with pytest.raises(TypeError, match="float128"):
        can_cast("float128", "float64")
