"""Differences from jaxtyping that ``scripts/jaxtyping_differential.py`` found, each
fixed; the expectations are what jaxtyping 0.3.11 does with the same annotation,
checker and value (real jaxtyping is never imported here)."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pytest

from tensortypes import AnnotationError, Float, PyTree, TypeCheckError, jaxtyped, typechecked


def _checkers():
    yield pytest.param(typechecked, id="own")
    try:
        import beartype
    except ImportError:
        pass
    else:
        yield pytest.param(jaxtyped(typechecker=beartype.beartype), id="beartype")
    try:
        import typeguard
    except ImportError:
        pass
    else:
        yield pytest.param(jaxtyped(typechecker=typeguard.typechecked), id="typeguard")


CHECKERS = list(_checkers())


@pytest.mark.parametrize("check", CHECKERS)
@pytest.mark.parametrize("shape", ["?n", "?n m", "*?b n", "?n n-1"])
def test_a_tree_path_size_outside_a_structured_pytree_is_an_annotation_error(check, shape):
    # jaxtyping: "Cannot use `?` annotations ... except when contained with structured
    # `PyTree` annotations" (AnnotationError) once a value reaches the axes. Before, the
    # '?' was read as a plain name and every such value passed.
    @check
    def f(x: Float[np.ndarray, shape]):
        return x

    value = np.zeros((3,) * len(shape.split()), np.float32)
    with pytest.raises(AnnotationError, match=r"checked only inside one \(PyTree\[\.\.\., 'T'\]\)"):
        f(value)
    with pytest.raises(AnnotationError):
        isinstance(value, Float[np.ndarray, shape])
    # A value of another dtype or kind fails before the axes are read: a TypeCheckError.
    with pytest.raises(TypeCheckError):
        f(value.astype(np.int32))
    with pytest.raises(TypeCheckError):
        f("not an array")

    # Inside a structured tree the sizes are keyed leaf by leaf, as before.
    @check
    def g(x: PyTree[Float[np.ndarray, shape], "T"], y: PyTree[Float[np.ndarray, shape], "T"]):
        return x

    leaves = {"?n": [(2,), (3,)], "?n m": [(2, 5), (3, 5)], "*?b n": [(2, 5), (3, 4, 5)]}
    leaves["?n n-1"] = [(3, 2), (4, 2)]  # n-1 names the plain n, one for all leaves
    a, b = (np.zeros(s, np.float32) for s in leaves[shape])
    g((a, b), (a, b))
    with pytest.raises(TypeCheckError):
        g((a, b), (b, b))


@pytest.mark.parametrize("check", CHECKERS)
@pytest.mark.parametrize("structure", ["T ...", "... T", "S T"])
def test_a_composite_structure_with_an_unbound_name_is_an_annotation_error(check, structure):
    # jaxtyping: "Cannot process composite structure 'T ...' as the structure name T
    # has not been seen before." (AnnotationError); it was a TypeCheckError here.
    @check
    def f(x: PyTree[int, structure]):
        return x

    with pytest.raises(AnnotationError, match=r"not bound yet; a composite"):
        f((1, 2))

    @check
    def g(t: PyTree[int, "T"], s: PyTree[int, "S"], x: PyTree[int, structure]):
        return x

    g((1, 2), {"k": 3}, {"k": (4, 5)} if structure == "S T" else (1, 2))


@pytest.mark.parametrize("check", [c for c in CHECKERS if c.id != "typeguard"])
def test_a_dataclass_initvar_is_checked_as_a_parameter_of_init(check):
    # jaxtyping checks the dataclass's __init__, InitVar parameters included; here only
    # the stored fields were checked, so an InitVar of the wrong type passed (this
    # module's annotations are strings: dataclasses finds InitVar by its module name).
    # typeguard 2.13.3 does not check InitVar[T], with jaxtyping as here.
    @check
    @dataclasses.dataclass
    class Box:
        x: Float[np.ndarray, "n"]
        c: typing.ClassVar[int] = 1
        i: dataclasses.InitVar[int] = 0
        mask: dataclasses.InitVar[Float[np.ndarray, "n"] | None] = None

        def __post_init__(self, i, mask):
            self.seen = (i, mask)

    z3 = np.zeros(3, np.float32)
    assert Box(z3).seen == (0, None)
    assert Box(z3, 2, z3).seen[0] == 2
    assert Box(z3, i=5).seen == (5, None)
    with pytest.raises(TypeCheckError, match=r"i: expected int, got str 'no'"):
        Box(z3, "no")
    # The InitVar shares the call's sizes with the fields.
    with pytest.raises(TypeCheckError, match=r"axis 0 of mask has size 4, but n=3") as info:
        Box(z3, 1, np.zeros(4, np.float32))
    assert "expected: InitVar[Float[np.ndarray, 'n'] | None]" in str(info.value)


def test_numpy_typing_ndarray_dtype_is_checked_by_the_own_checker():
    # npt.NDArray[np.float32] is np.ndarray[..., np.dtype[np.float32]]: beartype (and so
    # jaxtyping with beartype) checks the dtype with np.issubdtype; the own checker read
    # only the class and let any dtype pass.
    import numpy.typing as npt

    @typechecked
    def f(x: npt.NDArray[np.float32], y: np.ndarray[typing.Any, np.dtype[np.floating]]):
        return x

    z = np.zeros(3, np.float32)
    f(z, np.zeros(2, np.float16))
    with pytest.raises(TypeCheckError, match=r"its dtype is int32, not float32"):
        f(np.zeros(3, np.int32), z)
    with pytest.raises(
        TypeCheckError, match=r"its dtype is int64, not one of float16, float32, float64"
    ):
        f(z, np.zeros(3, np.int64))

    # Any dtype, np.generic, and scalar types no NumPy dtype of ours has: not narrowed.
    @typechecked
    def g(a: npt.NDArray[typing.Any], b: npt.NDArray[np.generic], c: npt.NDArray[np.str_]):
        return a

    g(np.zeros(1, np.int8), np.zeros(1, bool), np.array(["s"]))


@pytest.mark.parametrize("check", CHECKERS)
def test_a_tree_the_flattener_cannot_take_is_rejected_not_raised(check):
    # jaxtyping: TypeCheckError. Here, under beartype or typeguard, building the message
    # flattened the value again and JAX's "Comparator raised exception while sorting
    # pytree dictionary keys" (a ValueError) escaped.
    @check
    def f(x: PyTree[Float[np.ndarray, "n"]]):
        return x

    z3 = np.zeros(3, np.float32)
    f({"a": [z3, (z3, None)]})
    with pytest.raises(TypeCheckError) as info:
        f({1: z3, (2, 3): [z3]})
    if "ValueError" in str(info.value):  # JAX's flattener; the own one may differ
        assert "reason:   checking x raised ValueError" in str(info.value)


@pytest.mark.parametrize("check", CHECKERS)
def test_none_passes_a_structured_pytree_and_binds_nothing(check):
    # jaxtyping: isinstance(None, PyTree[...]) is True and binds nothing, so an absent
    # Optional[PyTree[..., "T"]] does not fix T to the structure of None.
    @check
    def f(
        x: typing.Optional[PyTree[Float[np.ndarray, "n"], "T"]],
        y: PyTree[Float[np.ndarray, "n"], "T"],
    ):
        return x

    z3 = np.zeros(3, np.float32)
    f(None, [z3])
    f([z3], [z3])
    with pytest.raises(TypeCheckError):
        f([z3], (z3,))  # T is bound by x: y must have its structure
    with pytest.raises(TypeCheckError):
        f([z3], [np.zeros(4, np.float32)])

    @check
    def g(x: PyTree[int, "T ..."]):
        return x

    g(None)  # nothing is flattened, so the unbound T is not looked at
