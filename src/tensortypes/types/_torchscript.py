"""TorchScript's restrictions on annotations, for ``ann_to_type(..., torchscript=True)``
(layer 3, ``types``).

TorchScript's language is smaller than Python's: dict keys are ``str``, ``int``,
``float``, ``complex``, ``bool``, ``Tensor``, ``device`` or ``Any``; there is no
``Sequence``, ``Callable``, ``Set``, ``Literal``, ``Final`` (outside module
attributes), ``object``, bare ``List``/``Tuple``/``Dict``, ``Tuple[T, ...]``,
protocols, type variables or ``TypedDict``; enum values are all ``int``, all
``float`` or all ``str``; module classes are instance classes, not usable as
annotations (as in TorchScript) -- except, following the spec's example #49650, as the
annotation of a module's attribute, or when every attribute of the module
class is declared statically. Each refusal is an ``AnnotationError`` saying
what to write instead. Classes in general are accepted without compiling them
(the spec's proposal): only what is used must resolve.
"""

from __future__ import annotations

import collections.abc as abc
import enum
from typing import Any, NoReturn

from tensortypes.errors import AnnotationError
from tensortypes.types.arrays import TENSOR, ArrayType
from tensortypes.types.base import hooks
from tensortypes.types.nominal import DEVICE
from tensortypes.types.primitives import ANY, BOOL, COMPLEX, FLOAT, INT, STR

__all__ = [
    "ann_name",
    "refuse",
    "refuse_bare",
    "refuse_generic",
    "check_dict_key",
    "check_enum",
    "check_module_class",
    "check_class",
    "array_class",
    "torch_generic",
    "unannotated_field_type",
]

_KEY_TYPES = (STR, INT, FLOAT, COMPLEX, BOOL, DEVICE, ANY)
_BARE_EXAMPLES = {
    list: "List[int]",
    tuple: "Tuple[int]",
    dict: "Dict[str, int]",
    set: "List[int]",
    frozenset: "List[int]",
    type: "a concrete class",
}
_GENERIC_ADVICE = {
    set: "use List[T] (or Dict[T, bool] for membership tests)",
    frozenset: "use List[T] or Tuple[...]",
    type: "pass an instance, or use an Enum to choose among classes",
    abc.Callable: "pass a module (torch.nn.Module) or use a @torch.jit.interface class",
    abc.Mapping: "use Dict[K, V]",
    abc.MutableMapping: "use Dict[K, V]",
}
_ENUM_BASES = frozenset(
    getattr(enum, n)
    for n in ("Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "ReprEnum")
    if hasattr(enum, n)
)


def ann_name(ann: Any) -> str:
    """How messages name an annotation: a class by its qualified name, a typing form
    without the ``typing.`` prefix.

    >>> import typing
    >>> ann_name(typing.List[int]), ann_name(dict)
    ('List[int]', 'dict')
    """
    if isinstance(ann, type):
        return ann.__qualname__
    return repr(ann).replace("typing.", "")


def refuse(ann: Any, why: str, instead: str) -> NoReturn:
    """Raise the ``AnnotationError`` for an annotation TorchScript does not accept.

    >>> refuse(object, "object is not a TorchScript type", "use Any")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tensortypes.errors.AnnotationError: object is not a TorchScript type: object is ...
    """
    raise AnnotationError(f"{ann_name(ann)} is not a TorchScript type: {why}; {instead}")


def refuse_bare(ann: Any) -> NoReturn:
    """A container without its type arguments (``List``, ``dict``).

    >>> refuse_bare(dict)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tensortypes.errors.AnnotationError: dict is not a TorchScript type: ... Dict[str, int]
    """
    origin = getattr(ann, "__origin__", ann)
    example = _BARE_EXAMPLES.get(origin, f"{ann_name(ann)}[int]")
    raise AnnotationError(
        f"{ann_name(ann)} is not a TorchScript type: attempted to use it "
        f"without contained types; add them, e.g. {example}"
    )


def refuse_generic(ann: Any, origin: Any, args: tuple) -> NoReturn:
    """Any generic alias TorchScript has no counterpart for.

    >>> refuse_generic(set[int], set, (int,))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tensortypes.errors.AnnotationError: set[int] is not a TorchScript type: ... use List[T] ...
    """
    advice = _GENERIC_ADVICE.get(origin)
    if advice is None and origin in (
        abc.Sequence,
        abc.MutableSequence,
        abc.Iterable,
        abc.Iterator,
        abc.Collection,
        abc.Generator,
        abc.Reversible,
        abc.Container,
    ):
        advice = f"use List[{ann_name(args[0])}]" if args else "use List[T]"
    if advice is None:
        advice = "use List, Tuple, Dict, Optional or Union of TorchScript types"
    refuse(ann, f"{ann_name(origin)} has no TorchScript counterpart", advice)


def check_dict_key(ann: Any, key: Any) -> None:
    """TorchScript's dict keys: str, int, float, complex, bool, Tensor, device or Any.

    >>> check_dict_key("Dict[str, int]", STR) is None
    True
    """
    if key in _KEY_TYPES or (type(key) is ArrayType and key.kind == "torch"):
        return
    refuse(
        ann,
        f"dict keys of type {key} are not supported (only str, int, float, complex, "
        "bool, Tensor, device and Any keys are)",
        "use a str key, e.g. Dict[str, ...] with the key formatted as a string",
    )


def check_enum(cls: type[enum.Enum]) -> None:
    """Enum values all int, all float or all str; no extending an enum with members.

    >>> class Mixed(enum.Enum):
    ...     A = 1
    ...     B = "b"
    >>> check_enum(Mixed)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tensortypes.errors.AnnotationError: Mixed is not a TorchScript type: its values mix ...
    """
    members: list = list(cls)
    if not members:
        refuse(cls, "no enum values are defined", "add members, e.g. RED = 1")
    for base in cls.__mro__[1:]:
        if (
            isinstance(base, type)
            and issubclass(base, enum.Enum)
            and base not in _ENUM_BASES
            and base.__members__
        ):
            refuse(
                cls,
                f"it extends {base.__qualname__}, which has members (enums may be "
                "subclassed only when they define no members)",
                "define the members in one enum",
            )
    kinds = {type(m.value) for m in members}
    if len(kinds) > 1:
        names = ", ".join(sorted(k.__name__ for k in kinds))
        refuse(
            cls,
            f"its values mix types ({names})",
            "make every value an int, or every value a float, or every value a str",
        )
    (kind,) = kinds
    if kind not in (int, float, str):
        refuse(
            cls,
            f"its values are {kind.__name__} (only int, float and str values are supported)",
            "use int, float or str values",
        )


def check_module_class(cls: type, module_attribute: bool) -> None:
    """Module instance classes are not annotations (as in TorchScript), except on a module's
    attribute (#49650) or when every attribute is declared statically.

    >>> check_module_class(dict, module_attribute=True) is None
    True
    """
    if module_attribute:
        return
    unresolved = hooks.class_schema(cls).unresolved
    if unresolved:
        names = ", ".join(sorted(unresolved))
        refuse(
            cls,
            "a module class is an instance class: its schema comes from an instance, "
            f"and the attributes {names} have no static type",
            "declare them in the class body (name: type), or use the module as the "
            "annotated attribute of another module",
        )


def check_class(cls: type) -> None:
    """Builtin classes and abstract collections TorchScript has no type for.

    >>> check_class(bytes)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tensortypes.errors.AnnotationError: bytes is not a TorchScript type: ...; use str
    """
    if cls.__module__ == "builtins":
        advice = (
            "use str"
            if cls in (bytes, bytearray)
            else ("use one of int, float, complex, bool, str, Tensor, List, Tuple, Dict, Optional")
        )
        refuse(cls, f"the builtin class {cls.__name__} has no TorchScript type", advice)
    if cls.__module__ in ("collections", "collections.abc", "numbers", "typing"):
        refuse(
            cls,
            "abstract base classes are not supported",
            "use a concrete TorchScript type such as List[T], Dict[K, V] or a Union",
        )


def array_class(cls: type, kind: str) -> Any:
    """Every ``torch.Tensor`` subclass is ``Tensor`` in TorchScript; other arrays are not
    TorchScript types.

    >>> import numpy as np
    >>> array_class(np.ndarray, "numpy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tensortypes.errors.AnnotationError: ndarray is not a TorchScript type: ...
    """
    if kind == "torch":
        return TENSOR
    refuse(cls, f"{kind} arrays have no TorchScript type", "use torch.Tensor")


def torch_generic(origin: Any) -> str | None:
    """``"Future"`` or ``"RRef"`` when ``origin`` is torch's generic class of that name.

    >>> torch_generic(list) is None
    True
    """
    if not isinstance(origin, type):
        return None
    for base in origin.__mro__:
        module = base.__module__ or ""
        if module.startswith("torch") and base.__name__ in ("Future", "RRef"):
            return base.__name__
    return None


def unannotated_field_type() -> Any:
    """TorchScript types the fields of a ``namedtuple`` without annotations as Tensor.

    >>> unannotated_field_type()
    Tensor
    """
    return TENSOR
