"""``join`` (least upper bound), ``unify`` and ``unify_list`` (TorchScript's control-flow
join)."""

from __future__ import annotations

import pytest

import tensortypes.types as T
from tensortypes.types.joins import unshaped

I, F, S, N, A = T.INT, T.FLOAT, T.STR, T.NONE, T.ANY
L, O, U = T.ListType, T.OptionalType, T.UnionType


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (I, N, O(I)),
        (N, I, O(I)),
        (I, S, None),
        (I, F, None),
        (I, I, I),
        (I, O(I), O(I)),
        (L(I), L(F), None),
        (L(I), L(O(I)), None),
        (I, A, A),
        (A, I, A),
        (N, N, N),
        (O(I), O(S), None),
        (T.TENSOR, N, O(T.TENSOR)),
        (U([I, S]), I, U([I, S])),
        (U([I, S]), N, U([I, S, N])),
        (U([I, S]), O(I), U([I, S, N])),
        (I, T.NUMBER, T.NUMBER),
        (T.BOOL, I, None),
        (T.BOOL, T.NUMBER, None),
        (T.TupleType([I, S]), T.TupleType([N, S]), T.TupleType([O(I), S])),
        (T.TupleType([I]), T.TupleType([I, I]), None),
        (T.TupleType([I, N]), T.TupleType([N, I]), T.TupleType([O(I), O(I)])),
        (T.FutureType(I), T.FutureType(N), T.FutureType(O(I))),
        (T.FutureType(I), T.FutureType(S), None),
        (T.DictType(S, I), T.DictType(S, N), None),
        (L(I), N, O(L(I))),
        (T.RRefType(I), T.RRefType(O(I)), None),
        (T.NamedTupleType("P", [("a", I)]), T.TupleType([N]), T.TupleType([O(I)])),
    ],
)
def test_unify(a, b, expected):
    assert T.unify(a, b) is expected


def test_unify_of_arrays_keeps_what_both_share():
    f23 = T.ArrayType("torch", "float32", (2, 3))
    f24 = T.ArrayType("torch", "float32", (2, 4))
    assert T.unify(f23, f24) is T.ArrayType("torch", "float32", (2, None))
    assert T.unify(f23, T.ArrayType("torch", "float32", (2, 3, 4))) is T.ArrayType(
        "torch", "float32"
    )
    assert T.unify(L(f23), L(f24)) is L(T.TENSOR)  # lists: through the unshaped forms
    assert T.unify(O(f23), f24) is O(T.ArrayType("torch", "float32", (2, None)))


def test_unify_list():
    assert T.unify_list([I, N, I]) is O(I)
    assert T.unify_list([I]) is I
    assert T.unify_list([]) is None
    assert T.unify_list([I, S, N]) is None
    assert T.unify_list(iter([N, L(I)])) is O(L(I))
    with pytest.raises(TypeError, match="types"):
        T.unify_list([int])


def test_join_is_the_union():
    assert T.join(I, S) is U([I, S])
    assert T.join(I, T.NUMBER) is T.NUMBER
    assert T.join(I, F, T.COMPLEX) is T.NUMBER
    assert T.join(L(I), L(F)) is U([L(I), L(F)])  # lists are invariant: no List[number]
    assert T.join(T.LiteralType([1]), T.LiteralType(["a"])) is T.LiteralType([1, "a"])
    assert T.join(I, A) is A and T.join(I, I) is I
    with pytest.raises(TypeError, match="types"):
        T.join(I, int)


def test_unshaped():
    f23 = T.ArrayType("torch", "float32", (2, 3))
    nt = T.NamedTupleType("P", [("x", f23)])
    assert unshaped(T.DictType(S, O(f23))) is T.DictType(S, O(T.TENSOR))
    assert unshaped(nt) is T.NamedTupleType("P", [("x", T.TENSOR)])
    assert unshaped(T.RRefType(f23)) is T.RRefType(T.TENSOR)
    assert unshaped(I) is I


def test_bad_arguments():
    with pytest.raises(TypeError, match="unify takes two types"):
        T.unify(I, "int")
