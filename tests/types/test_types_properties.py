"""Lattice laws of the type language, as hypothesis properties.

- ``is_subtype`` is reflexive, transitive and antisymmetric (equivalent types are
  one interned object);
- ``join`` is the least upper bound; ``unify``, where it answers, is an upper
  bound (for types without arrays: TorchScript unshapes arrays inside lists);
- unions are order-independent;
- the fast and slow halves of ``check_value`` agree, a value of a type is a value
  of its supertypes, ``infer_type`` gives a type its value belongs to, ``filter``
  is idempotent;
- the Python notation reads back through ``ann_to_type``.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensortypes.types as T

_SCALARS = [T.INT, T.FLOAT, T.COMPLEX, T.BOOL, T.STR, T.NONE, T.ANY]
_LEAVES = _SCALARS + [
    T.NUMBER,
    T.TENSOR,
    T.DEVICE,
    T.ArrayType("torch", "float32", (2, 3)),
    T.ArrayType("torch", "float32", (2, None)),
    T.ArrayType("torch", "float64"),
    T.LiteralType([1]),
    T.LiteralType(["a", 2]),
    T.LiteralType([True]),
]


def _containers(children, keys):
    return st.one_of(
        st.builds(T.ListType, children),
        st.builds(T.DictType, keys, children),
        st.lists(children, max_size=3).map(T.TupleType),
        st.builds(T.OptionalType, children),
        st.lists(children, min_size=1, max_size=3).map(T.UnionType),
        st.builds(T.VarTupleType, children),
        st.builds(T.FrozenSetType, children),
    )


def _types(leaves):
    keys = st.sampled_from([T.STR, T.INT])
    return st.recursive(
        st.sampled_from(leaves),
        lambda c: st.one_of(_containers(c, keys), st.builds(T.FutureType, c)),
        max_leaves=6,
    )


types = _types(_LEAVES)
plain_types = _types(_SCALARS + [T.NUMBER, T.LiteralType([1, "b"])])
printable_types = st.recursive(
    st.sampled_from(_SCALARS),
    lambda c: _containers(c, st.sampled_from([T.STR, T.INT])),
    max_leaves=6,
)


@settings(deadline=None, max_examples=300)
@given(types, types, types)
def test_subtype_is_a_partial_order(a, b, c):
    assert T.is_subtype(a, a) is True
    if T.is_subtype(a, b) is True and T.is_subtype(b, c) is True:
        assert T.is_subtype(a, c) is True
    if T.is_subtype(a, b) is True and T.is_subtype(b, a) is True:
        assert a is b


def test_a_literal_value_another_member_holds_leaves_the_union():
    # Found by the property above: each was a subtype of the other, two objects.
    a = T.UnionType([T.NONE, T.BOOL, T.LiteralType([1])])
    b = T.UnionType([T.NONE, T.BOOL, T.LiteralType([True, 1])])
    assert a is b and str(a) == "Union[NoneType, bool, Literal[1]]"
    # bool is no subtype of int here (TorchScript's rule): True stays.
    assert T.UnionType([T.INT, T.LiteralType([True, 1, "a"])]) is T.UnionType(
        [T.INT, T.LiteralType([True, "a"])]
    )
    assert T.UnionType([T.STR, T.LiteralType(["a"])]) is T.STR


@settings(deadline=None, max_examples=300)
@given(types, types, types)
def test_join_is_the_least_upper_bound(a, b, c):
    j = T.join(a, b)
    assert T.is_subtype(a, j) is True and T.is_subtype(b, j) is True
    if T.is_subtype(a, c) is True and T.is_subtype(b, c) is True:
        assert T.is_subtype(j, c) is True
    assert T.join(b, a) is j


@settings(deadline=None, max_examples=300)
@given(plain_types, plain_types)
def test_unify_is_an_upper_bound(a, b):
    u = T.unify(a, b)
    if u is not None:
        assert T.is_subtype(a, u) is True and T.is_subtype(b, u) is True
    if T.is_subtype(a, b) is True:
        assert u is b


@settings(deadline=None)
@given(st.lists(types, min_size=1, max_size=4), st.randoms())
def test_unions_do_not_depend_on_order(members, rnd):
    shuffled = list(members)
    rnd.shuffle(shuffled)
    assert T.UnionType(members) is T.UnionType(shuffled)
    assert T.UnionType([T.UnionType(members)]) is T.UnionType(members)


_scalar_values = st.one_of(
    st.integers(-5, 5),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.none(),
    st.booleans(),
    st.complex_numbers(allow_nan=False),
)
values = st.recursive(
    _scalar_values,
    lambda c: st.one_of(
        st.lists(c, max_size=3),
        st.tuples(c, c),
        st.dictionaries(st.text(max_size=2), c, max_size=3),
    ),
    max_leaves=8,
)


@settings(deadline=None, max_examples=300)
@given(values, types)
def test_fast_and_slow_checks_agree(value, t):
    accepted = T.is_instance(value, t)
    assert (T.explain(value, t) is None) is accepted
    if accepted:
        assert t.filter(t.filter(value)) is value


@settings(deadline=None, max_examples=300)
@given(values, types)
def test_inferred_type_holds_its_value_and_its_supertypes_do(value, t):
    try:
        inferred = T.infer_type(value)
    except TypeError:
        assume(False)
    assert T.is_instance(value, inferred)
    if T.is_subtype(inferred, t) is True:
        assert T.is_instance(value, t)


@settings(deadline=None, max_examples=200)
@given(printable_types)
def test_python_notation_reads_back(t):
    assert T.ann_to_type(str(t)) is t
