"""``infer_type``: the type of a run-time value (layer 3, ``types``).

TorchScript's inference where TorchScript has the type, Python's classes
otherwise: ``[1, 2]`` is ``List[int]``, ``{"a": t}`` is ``Dict[str, Tensor]``
(the elements' types unified, so ``[1, None]`` is ``List[Optional[int]]``),
an empty list is ``List[Tensor]`` and an empty dict ``Dict[str, Tensor]`` (as
TorchScript types the literals ``[]`` and ``{}``), an array is its kind with
its dtype and exact shape, a named tuple its ``NamedTupleType``, an enum member
its enum, a module its ``ModuleType`` (schema from its attribute values), any
other object its ``ClassType``. Elements that do not unify (``[1, "a"]``) are
a ``TypeError`` naming both element types.

The handler for each class is found once and cached, so ``infer_type([1, 2,
3])`` is a dict lookup per element plus one for the list type.
"""

from __future__ import annotations

import enum
import inspect
import types as pytypes
from typing import Any

from tensortypes.core.arrays import array_info
from tensortypes.types.annotations import ann_to_type
from tensortypes.types.arrays import TENSOR, ArrayType
from tensortypes.types.containers import FrozenSetType, SetType, TypeOfType
from tensortypes.types.extras import CallableType
from tensortypes.types.joins import unify
from tensortypes.types.nominal import (
    DEVICE,
    DTYPE,
    GENERATOR,
    STREAM,
    ClassType,
    EnumClassType,
    ModuleType,
    is_module_class,
    torch_class_name,
)
from tensortypes.types.primitives import ANY, BOOL, COMPLEX, FLOAT, INT, NONE, STR
from tensortypes.types.structural import DictType, ListType, NamedTupleType, TupleType

__all__ = ["infer_type"]

_PRIMITIVE = {int: INT, float: FLOAT, bool: BOOL, complex: COMPLEX, str: STR, type(None): NONE}
_TORCH = {"device": DEVICE, "dtype": DTYPE, "Stream": STREAM, "Generator": GENERATOR}
EMPTY_LIST = ListType(TENSOR)
EMPTY_DICT = DictType(STR, TENSOR)
_LISTS: dict[Any, ListType] = {}


def infer_type(value: Any) -> Any:
    """The type of ``value``.

    >>> infer_type([1, 2, 3]), infer_type({"a": 1.0}), infer_type([]), infer_type((1, "x"))
    (List[int], Dict[str, float], List[Tensor], Tuple[int, str])
    >>> try:
    ...     infer_type([1, "a"])
    ... except TypeError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    cannot infer one element type for list: int (the elements before 1) and str
    (element 1) do not unify; annotate the value instead
    """
    try:
        return _infer(value)
    except RecursionError:
        raise TypeError(
            f"cannot infer the type of a {type(value).__name__} that contains "
            "itself or is nested too deeply"
        ) from None


def _infer(value: Any) -> Any:
    cls = type(value)
    found = _PRIMITIVE.get(cls)
    if found is not None:
        return found
    handler = _HANDLERS.get(cls)
    if handler is None:
        return _first_time(value)
    return handler(value)


def _elements(items: Any, what: str) -> Any:
    """The unified type of the items (never empty)."""
    element = None
    previous_cls = None
    for index, item in enumerate(items):
        cls = type(item)
        if cls is previous_cls and cls in _PRIMITIVE:
            continue
        previous_cls = cls
        t = _PRIMITIVE.get(cls)
        if t is None:
            t = _infer(item)
        if element is None:
            element = t
        elif t is not element:
            merged = unify(element, t)
            if merged is None:
                raise TypeError(
                    f"cannot infer one element type for {what}: "
                    f"{element.message_str()} (the elements before {index}) "
                    f"and {t.message_str()} (element {index}) "
                    "do not unify; annotate the value instead"
                )
            element = merged
    return element


def _list(value: list) -> Any:
    if not value:
        return EMPTY_LIST
    element = _elements(value, "list")
    found = _LISTS.get(element)
    if found is None:
        found = _LISTS[element] = ListType(element)
    return found


def _dict(value: dict) -> Any:
    if not value:
        return EMPTY_DICT
    return DictType(_elements(value.keys(), "dict keys"), _elements(value.values(), "dict values"))


def _tuple(value: tuple) -> Any:
    cls = type(value)
    if cls is not tuple and hasattr(cls, "_fields"):
        return _named_tuple(value)
    return TupleType([_infer(x) for x in value])


def _named_tuple(value: tuple) -> Any:
    cls = type(value)
    if cls.__dict__.get("__annotations__"):
        return ann_to_type(cls)
    names = getattr(cls, "_fields")  # noqa: B009 (a namedtuple class)
    return NamedTupleType(cls, [(name, _infer(x)) for name, x in zip(names, value)])


def _set_of(kind):
    def infer(value):
        return kind(_elements(value, kind.__name__) if value else ANY)

    return infer


def _array(value: Any) -> Any:
    info = array_info(value)
    if info is None:
        return ClassType(type(value))
    kind, dtype, shape = info
    shape = tuple(d if type(d) is int else None for d in shape)
    return ArrayType(type(value) if kind == "duck" else kind, dtype, shape)


def _callable(value: Any) -> Any:
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return CallableType(None, ANY)
    namespace = getattr(value, "__globals__", None)

    def convert(annotation):
        if annotation is inspect.Parameter.empty:
            return ANY
        try:
            return (
                ann_to_type(annotation, namespace)
                if isinstance(annotation, str)
                else ann_to_type(annotation)
            )
        except (TypeError, ValueError):
            return ANY

    result = convert(signature.return_annotation)
    params = []
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            return CallableType(None, result)
        params.append(convert(p.annotation))
    return CallableType(params, result)


_HANDLERS: dict[type, Any] = {
    list: _list,
    dict: _dict,
    tuple: _tuple,
    set: _set_of(SetType),
    frozenset: _set_of(FrozenSetType),
    pytypes.FunctionType: _callable,
    pytypes.BuiltinFunctionType: _callable,
    pytypes.MethodType: _callable,
}


def _constant(t: Any):
    return lambda value: t


def _first_time(value: Any) -> Any:
    """Find (and usually cache) the handler for a class met for the first time."""
    cls = type(value)
    handler: Any = None
    cacheable = True
    info = array_info(value)
    if info is not None:
        handler = _array
        cacheable = info[0] != "duck"  # duck-ness is decided per value
    elif issubclass(cls, enum.Enum):
        handler = _constant(EnumClassType(cls))
    elif torch_class_name(cls) in _TORCH:
        handler = _constant(_TORCH[torch_class_name(cls) or ""])
    elif is_module_class(cls):
        handler = ModuleType.from_instance
    elif issubclass(cls, type):
        handler = _type_of
    elif issubclass(cls, tuple):
        handler = _tuple
    elif callable(value) and isinstance(value, (pytypes.FunctionType, pytypes.MethodType)):
        handler = _callable
    else:
        handler = _constant(ClassType(cls))
    if cacheable and len(_HANDLERS) < 4096:
        _HANDLERS[cls] = handler
    return handler(value)


def _type_of(value: type) -> Any:
    return TypeOfType(ann_to_type(value))
