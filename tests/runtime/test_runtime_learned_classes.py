"""Class tests the generated checks answer from classes seen before: an ABC's
instances, ``type[C]`` and ``type[T]``, and dtype names a slow dtype test refused. Each must give ``isinstance``'s answer on every call, the
first and the later ones, whatever passed before."""

from __future__ import annotations

import abc
import sys
from typing import TypeVar

import numpy as np
import pytest

from tensortypes import TypeCheckError, typechecked
from tensortypes.annotate._extract import DtypeTest


class Base(abc.ABC):
    @abc.abstractmethod
    def f(self) -> int: ...


class Child(Base):
    def f(self) -> int:
        return 1


class Virtual:
    pass


class Moody(type):
    """A metaclass whose isinstance looks at the instance, not only its class."""

    def __instancecheck__(cls, value: object) -> bool:
        return getattr(value, "ok", False)


class Judged(metaclass=Moody):
    pass


class Thing:
    def __init__(self, ok: bool):
        self.ok = ok


def test_an_abc_is_checked_by_isinstance_then_by_the_classes_that_passed() -> None:
    @typechecked
    def take(x: Base) -> int:
        return 0

    class Later:
        pass

    class Sub(abc.ABC):
        @abc.abstractmethod
        def g(self) -> int: ...

    @typechecked
    def take_sub(x: Sub) -> int:
        return 0

    for _ in range(3):
        assert take(Child()) == 0
        with pytest.raises(TypeCheckError):
            take(Virtual())  # type: ignore[arg-type]
        with pytest.raises(TypeCheckError):
            take_sub(Later())  # type: ignore[arg-type]
    Sub.register(Later)  # registering adds a subclass: it passes from now on
    assert take_sub(Later()) == 0  # type: ignore[arg-type]


def test_a_metaclass_of_its_own_is_asked_at_every_call() -> None:
    @typechecked
    def take(x: Judged) -> int:
        return 0

    assert take(Thing(True)) == 0  # type: ignore[arg-type]
    # The same class, another answer: nothing was remembered from the first call.
    with pytest.raises(TypeCheckError):
        take(Thing(False))  # type: ignore[arg-type]


def test_an_instance_whose_class_lies_is_not_remembered_by_its_real_class() -> None:
    class Liar:
        def __init__(self, claimed: type):
            self.claimed = claimed

        @property  # type: ignore[misc]
        def __class__(self):  # noqa: D105 (the lie under test)
            return self.claimed

    @typechecked
    def take(x: Base) -> int:
        return 0

    assert take(Liar(Child)) == 0  # type: ignore[arg-type]  (isinstance reads __class__)
    with pytest.raises(TypeCheckError):
        take(Liar(Virtual))  # type: ignore[arg-type]


ModuleT = TypeVar("ModuleT", bound=Base)
AnyT = TypeVar("AnyT")


def test_type_of_a_class_and_of_a_bound_type_variable() -> None:
    @typechecked
    def make(cls: type[ModuleT]) -> int:
        return 0

    @typechecked
    def named(cls: type[Base]) -> int:
        return 0

    @typechecked
    def anything(cls: type[AnyT]) -> int:
        return 0

    for check in (make, named):
        for _ in range(2):
            assert check(Child) == 0
            assert check(Base) == 0
            with pytest.raises(TypeCheckError):
                check(Virtual)
            with pytest.raises(TypeCheckError):
                check(Child())  # an instance, not a class
    assert anything(int) == 0
    with pytest.raises(TypeCheckError):
        anything(3)  # type: ignore[arg-type]


def test_a_tuple_of_ints_and_of_their_subclasses() -> None:
    @typechecked
    def shape_of(shape: tuple[int, ...]) -> int:
        return len(shape)

    assert shape_of((3, 4)) == 2
    assert shape_of(()) == 0
    assert shape_of((True, 2)) == 2  # bool is an int
    with pytest.raises(TypeCheckError):
        shape_of((3, "4"))  # type: ignore[arg-type]
    with pytest.raises(TypeCheckError):
        shape_of((3, 4.0))  # type: ignore[arg-type]


def test_a_dtype_name_refused_by_the_slow_test_is_refused_again_by_a_lookup() -> None:
    test = DtypeTest(("key",))
    assert not test.accepts(None, "uint32")
    assert "uint32" in test.rejected
    assert not test.accepts(None, "uint32")
    assert test.accepts(None, "key<fry>")
    assert "key<fry>" not in test.rejected
    structured = DtypeTest(("[('a', '<i4')]",))
    assert not structured.accepts(np.zeros(1, dtype=[("b", "<i4")]), "void")
    # A structured dtype is told by the value: its name "void" is never remembered.
    assert "void" not in structured.rejected
    assert structured.accepts(np.zeros(1, dtype=[("a", "<i4")]), "void")


def test_the_union_of_a_key_and_a_uint32_pair(jax) -> None:
    from tensortypes import Key, UInt32

    @typechecked
    def split(key: Key[jax.Array, ""] | UInt32[jax.Array, "2"]) -> int:
        return 0

    for _ in range(2):
        assert split(jax.random.PRNGKey(0)) == 0
        assert split(jax.random.key(0)) == 0
        with pytest.raises(TypeCheckError):
            split(jax.numpy.zeros(2, dtype=jax.numpy.float32))
        with pytest.raises(TypeCheckError):
            split(jax.numpy.zeros(3, dtype=jax.numpy.uint32))


def test_type_of_a_class_refuses_an_unhashable_value_with_a_type_error() -> None:
    @typechecked
    def named(cls: type[Base]) -> int:
        return 0

    with pytest.raises(TypeCheckError, match="cls"):
        named([1, 2])  # type: ignore[arg-type]


def test_a_class_with_an_unhashable_metaclass_is_looked_up_by_identity() -> None:
    class Meta(abc.ABCMeta):
        def __eq__(cls, other: object) -> bool:  # no __hash__: the class is unhashable
            return cls is other

    class Holder:
        @typechecked
        def take(self, cls: type[Base], items: tuple[int, ...]) -> int:
            return len(items)

    class Odd(metaclass=Meta):
        pass

    # isinstance with an ABC hashes the class itself (Python's own cache), so only
    # the lookups of the generated code are at stake: type[...] and the tuple.
    with pytest.raises(TypeCheckError):
        Holder().take(Odd, (1,))  # type: ignore[arg-type]
    assert Holder().take(Child, (1, 2)) == 2
    with pytest.raises(TypeCheckError):
        Holder().take(Child, (1, Odd()))  # type: ignore[arg-type]


class _UnhashableMeta(type):
    def __eq__(cls, other: object) -> bool:  # no __hash__: the class is unhashable
        return cls is other


class _Unhashable(metaclass=_UnhashableMeta):
    pass


def _array_annotations() -> list:
    from tensortypes import Float, Key, PyTree, Shaped

    out = [Float[np.ndarray, "n"], Shaped[np.ndarray, "..."], PyTree[Float[np.ndarray, "n"]]]
    out.append(Float[np.typing.ArrayLike, "n"])
    for module, attr in (("torch", "Tensor"), ("jax", "Array")):
        try:
            lib = __import__(module)
        except ImportError:
            continue
        out.append(Float[getattr(lib, attr), "n"])
        out.append(Float[getattr(lib, attr), "n"] | None)
    if "jax" in sys.modules:  # tensortypes.Array is jax.Array, there only with JAX
        from tensortypes import Array

        out += [Float[Array, "n"], Key[Array, ""]]
    return out


@pytest.mark.parametrize("ann", _array_annotations(), ids=str)
@pytest.mark.parametrize("how", ["typechecked", "isinstance", "beartype"])
def test_a_value_of_an_unhashable_class_is_no_array(ann: object, how: str) -> None:
    # Class-keyed lookups (known array classes, extraction by class) cannot hash such
    # a class: the value goes through the guarded extraction and is refused.
    from tensortypes import jaxtyped

    value = _Unhashable()
    if how == "isinstance":
        assert not isinstance(value, ann)  # type: ignore[arg-type]
        return

    def f(x: object) -> int:
        return 1

    f.__annotations__ = {"x": ann, "return": int}
    if how == "typechecked":
        checked = typechecked(f)
    else:
        beartype = pytest.importorskip("beartype")
        checked = jaxtyped(typechecker=beartype.beartype)(f)
    with pytest.raises(TypeCheckError):
        checked(value)
