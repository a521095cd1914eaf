"""``ann_to_type``: the one converter from Python annotations to types (layer 3, ``types``).

Every typing form becomes a lattice type: ``List[int]``/``list[int]``,
``Tuple[int, str]``, ``Tuple[()]``, ``Tuple[int, ...]``, ``Dict[K, V]``,
``Optional``/``X | None``/``Union``, ``Any``, ``None``, ``Literal``, ``Callable``,
``Annotated`` (metadata kept), ``Final``/``ClassVar`` (the inner type),
``type[C]``, sets, ``collections.abc`` generics, ``TypeVar``, ``NewType``,
protocols, ``TypedDict``, ``NamedTuple``, enums, modules, dataclasses and other
classes; strings and forward references are resolved in the namespaces;
``torch.Tensor``, ``torch.device``, ``torch.dtype``, ``torch.Stream``,
``torch.Generator`` and the array classes of NumPy, JAX, TensorFlow and MLX are
recognised by name (nothing is imported). An annotation object with a lattice
``.type`` (the array and PyTree annotations of ``tensortypes.annotate``) gives
that type: ``Float32[torch.Tensor, "b 3"]`` keeps its dtype and shape.

With ``torchscript=True`` only TorchScript's language is accepted, with
TorchScript's errors for the rest (see ``_torchscript``): each an
``AnnotationError`` saying what to write instead.

Conversions without namespaces are cached per annotation object (identity
first, then equality), so a repeated annotation costs a dict lookup.
"""

from __future__ import annotations

import collections.abc as abc
import dataclasses
import enum
import sys
import types as pytypes
import typing
from typing import Any, ForwardRef

import numpy as _np

from tensortypes.core.dtypes import NUMPY_DTYPES
from tensortypes.errors import AnnotationError
from tensortypes.graph.type import Type
import tensortypes.types._torchscript as ts
from tensortypes.types._annparse import evaluate
from tensortypes.types.arrays import ArrayType, class_kind
from tensortypes.types.containers import ABC_ORIGINS, AbcType, FrozenSetType, SetType, TypeOfType
from tensortypes.types.extras import (
    AnnotatedType,
    CallableType,
    LiteralType,
    NewTypeType,
    ProtocolType,
    TypedDictType,
    TypeVarType,
)
from tensortypes.types.nominal import (
    DEVICE,
    DTYPE,
    GENERATOR,
    STREAM,
    ClassType,
    EnumClassType,
    InterfaceType,
    ModuleType,
    is_module_class,
    torch_class_name,
)
from tensortypes.types.primitives import ANY, BOOL, FLOAT, INT, NEVER, NONE, PRIMITIVES, STR
from tensortypes.types.structural import (
    DictType,
    FutureType,
    ListType,
    NamedTupleType,
    RRefType,
    TupleType,
    UnionType,
    VarTupleType,
)

__all__ = ["ann_to_type", "convert"]


def _numpy_scalar_dtypes(dtype_ann: Any) -> frozenset[str] | None:
    """The dtype names of ``np.dtype[X]``: NumPy's own dtypes whose scalar type is a
    subclass of X (``np.floating``: float16, float32, float64). None (any dtype) for
    ``np.generic``, ``Any``, a TypeVar, or an X none of them is (``np.str_``, ``np.void``:
    not narrowed rather than refused)."""
    if typing.get_origin(dtype_ann) is not _np.dtype:
        return None
    (scalar,) = typing.get_args(dtype_ann) or (None,)
    if not isinstance(scalar, type) or scalar is _np.generic:
        return None
    names = frozenset(d.name for d in NUMPY_DTYPES if issubclass(_np.dtype(d.name).type, scalar))
    return names or None


_TORCH_BUILTINS = {"device": DEVICE, "dtype": DTYPE, "Stream": STREAM, "Generator": GENERATOR}
_SYM = {"SymInt": INT, "SymFloat": FLOAT, "SymBool": BOOL}
_BARE = {
    list: lambda: ListType(ANY),
    dict: lambda: DictType(ANY, ANY),
    tuple: lambda: VarTupleType(ANY),
    set: lambda: SetType(ANY),
    frozenset: lambda: FrozenSetType(ANY),
    type: lambda: TypeOfType(ANY),
}
_VARIANCE = {
    (False, False): "invariant",
    (True, False): "covariant",
    (False, True): "contravariant",
}
_WRAPPERS = (typing.Final, typing.ClassVar)
_KEY_WRAPPERS = (typing.Required, typing.NotRequired)

_BY_ID: tuple[dict, dict] = ({}, {})
_BY_EQ: tuple[dict, dict] = ({}, {})
_CACHE_LIMIT = 1 << 14


def ann_to_type(
    ann: Any, globalns: Any = None, localns: Any = None, torchscript: bool = False
) -> Any:
    """The lattice type of the annotation ``ann``.

    >>> from typing import Dict, List, Optional
    >>> ann_to_type(List[int]), ann_to_type(Optional[str]), ann_to_type("Dict[str, float]")
    (List[int], Optional[str], Dict[str, float])
    >>> ann_to_type(Optional[int]).torchscript_str()
    'int?'
    """
    if globalns is None and localns is None:
        by_id = _BY_ID[torchscript]
        entry = by_id.get(id(ann))
        if entry is not None and entry[0] is ann:
            return entry[1]
        by_eq = _BY_EQ[torchscript]
        try:
            found = by_eq.get(ann)
        except TypeError:  # unhashable (an Annotated with a list in its metadata)
            return convert(ann, None, None, torchscript)
        if found is None:
            found = convert(ann, None, None, torchscript)
            if len(by_eq) < _CACHE_LIMIT:
                by_eq[ann] = found
        if len(by_id) < _CACHE_LIMIT:
            by_id[id(ann)] = (ann, found)
        return found
    return convert(ann, globalns, localns, torchscript)


def convert(
    ann: Any,
    globalns: Any = None,
    localns: Any = None,
    torchscript: bool = False,
    module_attribute: bool = False,
) -> Any:
    """``ann_to_type`` without the cache. ``module_attribute``: ``ann`` annotates an
    attribute of a module class (TorchScript's example #49650 allows module classes there).

    >>> convert("Optional[X]", {"X": int})
    Optional[int]
    """
    return _Converter(globalns, localns, torchscript, module_attribute).convert(ann)


class _Converter:
    __slots__ = ("globalns", "localns", "torchscript", "module_attribute", "active")

    def __init__(self, globalns, localns, torchscript: bool, module_attribute: bool):
        self.globalns = globalns
        self.localns = localns
        self.torchscript = bool(torchscript)
        self.module_attribute = module_attribute
        self.active: set[int] = set()

    def convert(self, ann: Any) -> Any:
        if ann is None or ann is type(None):
            return NONE
        if isinstance(ann, Type):
            return ann
        if ann is Any:
            return ANY
        if ann is typing.NoReturn or ann is _NEVER_FORM:
            if self.torchscript:
                ts.refuse(
                    ann,
                    f"{ts.ann_name(ann)} is not supported",
                    "leave the return value unannotated",
                )
            return NEVER
        if isinstance(ann, str):
            return self.convert(evaluate(ann, self.globalns, self.localns))
        if isinstance(ann, ForwardRef):
            return self.convert(evaluate(ann.__forward_arg__, self.globalns, self.localns))
        lattice = _lattice_type(ann)
        if lattice is not None:
            return lattice
        if isinstance(ann, type):
            return self.convert_class(ann)
        origin = typing.get_origin(ann)
        if origin is not None:
            return self.convert_generic(ann, origin, typing.get_args(ann))
        return self.convert_special(ann)

    # -- generic aliases ---------------------------------------------------------------
    def convert_generic(self, ann: Any, origin: Any, args: tuple) -> Any:
        c, tsmode = self.convert, self.torchscript
        if origin is typing.Union or origin is pytypes.UnionType:
            return UnionType([c(a) for a in args])
        if origin is tuple:
            if ann is typing.Tuple:  # noqa: UP006 (the bare typing.Tuple, not an annotation)
                return ts.refuse_bare(ann) if tsmode else VarTupleType(ANY)
            if len(args) == 2 and args[1] is Ellipsis:
                if tsmode:
                    ts.refuse(
                        ann,
                        "variable-length tuples are not supported",
                        f"use List[{ts.ann_name(args[0])}] or a fixed-length Tuple",
                    )
                return VarTupleType(c(args[0]))
            return TupleType([c(a) for a in args])
        if not args:
            return self.convert_bare(ann, origin)
        if origin is list:
            return ListType(c(args[0]))
        if origin is dict:
            key, value = c(args[0]), c(args[1])
            if tsmode:
                ts.check_dict_key(ann, key)
            return DictType(key, value)
        if origin is typing.Literal:
            if tsmode:
                ts.refuse(
                    ann,
                    "Literal types are not supported",
                    "annotate with the values' type (int, str) or use an Enum",
                )
            return LiteralType(args)
        if origin is typing.Annotated:
            if tsmode:
                ts.refuse(ann, "Annotated is not supported", f"write {ts.ann_name(args[0])}")
            return AnnotatedType(c(args[0]), ann.__metadata__)
        if origin in _KEY_WRAPPERS:
            return c(args[0])
        if origin in _WRAPPERS:
            if tsmode and not self.module_attribute:
                ts.refuse(
                    ann,
                    f"{ts.ann_name(origin)} is only meaningful on module attributes",
                    f"annotate the value as {ts.ann_name(args[0])}",
                )
            return c(args[0])
        if ts.torch_generic(origin) == "Future":
            return FutureType(c(args[0]))
        if ts.torch_generic(origin) == "RRef":
            return RRefType(c(args[0]))
        if tsmode:
            ts.refuse_generic(ann, origin, args)
        if origin is set:
            return SetType(c(args[0]))
        if origin is frozenset:
            return FrozenSetType(c(args[0]))
        if origin is type:
            return TypeOfType(c(args[0]))
        if origin is abc.Callable:
            params, result = args
            if params is Ellipsis or not isinstance(params, (list, tuple)):
                # ``...``, a ParamSpec (``Callable[P, T]``) or ``Concatenate[int, P]``:
                # the parameters are not known here.
                return CallableType(None, c(result))
            return CallableType([c(p) for p in params], c(result))
        if origin in ABC_ORIGINS:
            return AbcType(origin, [c(a) for a in args])
        if origin is typing.TypeGuard:
            return BOOL
        if origin is _np.ndarray and len(args) == 2:
            # ``np.ndarray[shape, np.dtype[X]]`` (``npt.NDArray[X]``): the dtypes of X,
            # as beartype checks them (``np.issubdtype``); the shape argument is not read.
            return ArrayType(origin, _numpy_scalar_dtypes(args[1]))
        if isinstance(origin, type):
            # A generic class of its own (``deque[int]``, ``MyBox[int]``): by its class.
            return self.convert_class(origin)
        raise AnnotationError(f"unsupported annotation {ann!r}")

    def convert_bare(self, ann: Any, origin: Any) -> Any:
        if self.torchscript:
            if origin in (list, dict, tuple):
                ts.refuse_bare(ann)
            ts.refuse_generic(ann, origin, ())
        if origin in _BARE:
            return _BARE[origin]()
        if origin is abc.Callable:
            return CallableType(None, ANY)
        if origin in ABC_ORIGINS:
            return AbcType(origin)
        if isinstance(origin, type):
            return self.convert_class(origin)
        raise AnnotationError(f"{ann!r} needs type arguments")

    # -- classes ---------------------------------------------------------------------------
    def convert_class(self, cls: type) -> Any:
        found = PRIMITIVES.get(cls)
        if found is not None:
            return found
        tsmode = self.torchscript
        if cls is object:
            if tsmode:
                ts.refuse(cls, "object is not a TorchScript type", "use Any")
            return ANY
        if cls in _BARE:
            if tsmode:
                self.convert_bare(cls, cls)
            return _BARE[cls]()
        torch_name = torch_class_name(cls)
        if torch_name is not None and cls.__name__ in _TORCH_BUILTINS:
            return _TORCH_BUILTINS[torch_name]
        if cls.__module__ == "torch" and cls.__name__ in _SYM:
            return _SYM[cls.__name__]
        kind = class_kind(cls)
        if kind is not None:
            if tsmode:
                return ts.array_class(cls, kind)
            return ArrayType(cls)
        if issubclass(cls, enum.Enum):
            if tsmode:
                ts.check_enum(cls)
            return EnumClassType(cls)
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            return self.named_tuple(cls)
        if typing.is_typeddict(cls):
            if tsmode:
                ts.refuse(cls, "TypedDict is not supported", "use Dict[str, T] or a class")
            return self.typed_dict(cls)
        if getattr(cls, "_is_protocol", False):
            if tsmode:
                ts.refuse(cls, "protocols are not supported", "use a @torch.jit.interface class")
            return ProtocolType(cls)
        if hasattr(cls, "__torch_script_interface__"):
            return InterfaceType(cls)
        if is_module_class(cls):
            if tsmode:
                ts.check_module_class(cls, self.module_attribute)
                return ModuleType.from_class(cls, torchscript=True)
            return ModuleType.from_class(cls)
        if tsmode:
            ts.check_class(cls)
        if cls in ABC_ORIGINS:
            return AbcType(cls)
        if cls is abc.Callable:
            return CallableType(None, ANY)
        return ClassType(cls)

    def named_tuple(self, cls: type) -> NamedTupleType:
        if id(cls) in self.active:
            raise AnnotationError(
                f"NamedTuple {cls.__qualname__} refers to itself; "
                "recursive named tuples have no finite type"
            )
        self.active.add(id(cls))
        try:
            hints = _class_annotations(cls)
            default = ts.unannotated_field_type() if self.torchscript else ANY
            sub = _Converter(_module_globals(cls), dict(vars(cls)), self.torchscript, False)
            sub.active = self.active
            fields = [
                (name, sub.convert(hints[name]) if name in hints else default)
                for name in getattr(cls, "_fields")  # noqa: B009 (a NamedTuple class)
            ]
        finally:
            self.active.discard(id(cls))
        return NamedTupleType(cls, fields)

    def typed_dict(self, cls: type) -> TypedDictType:
        globalns, localns = _module_globals(cls), dict(vars(cls))
        sub = _Converter(globalns, localns, False, False)
        required = set(getattr(cls, "__required_keys__", ()))
        fields = []
        for name, hint in _class_annotations(cls).items():
            if isinstance(hint, (str, ForwardRef)):
                # Python cannot see Required[...] inside a string annotation.
                text = hint if isinstance(hint, str) else hint.__forward_arg__
                hint = evaluate(text, globalns, localns)
            origin = typing.get_origin(hint)
            if origin is typing.Required:
                required.add(name)
            elif origin is typing.NotRequired:
                required.discard(name)
            fields.append((name, sub.convert(hint)))
        return TypedDictType(cls, fields, required=required)

    # -- special forms ------------------------------------------------------------------------
    def convert_special(self, ann: Any) -> Any:
        tsmode = self.torchscript
        if isinstance(ann, typing.TypeVar):
            if tsmode:
                ts.refuse(ann, "type variables are not supported", "use a concrete type")
            bound = ann.__bound__
            if isinstance(bound, (str, ForwardRef)):
                # bound="Module" names something of the module that made the TypeVar.
                module = sys.modules.get(getattr(ann, "__module__", None) or "")
                text = bound if isinstance(bound, str) else bound.__forward_arg__
                bound = evaluate(
                    text, vars(module) if module is not None else self.globalns, self.localns
                )
            return TypeVarType(
                ann.__name__,
                None if bound is None else self.convert(bound),
                [self.convert(c) for c in ann.__constraints__],
                _VARIANCE.get((ann.__covariant__, ann.__contravariant__), "invariant"),
                ann,
            )
        if isinstance(ann, typing.NewType):
            if tsmode:
                ts.refuse(
                    ann,
                    "NewType is not supported",
                    f"use its base type {ts.ann_name(ann.__supertype__)}",
                )
            return NewTypeType(ann.__name__, self.convert(ann.__supertype__), ann)
        if ann is typing.LiteralString:
            if tsmode:
                ts.refuse(ann, "LiteralString is not supported", "use str")
            return STR
        if isinstance(ann, dataclasses.InitVar):
            # A dataclass's ``InitVar[T]`` (an ``__init__`` parameter, or a field whose
            # string annotation dataclasses did not recognise): its values are T's, as
            # beartype checks them.
            return self.convert(ann.type)
        if type(ann).__name__ == "TypeAliasType":  # Python 3.12's ``type X = ...``
            return self.convert(ann.__value__)
        if ann in (
            typing.Union,
            typing.Optional,
            typing.Literal,
            typing.Annotated,
            typing.Final,
            typing.ClassVar,
        ):
            raise AnnotationError(
                f"{ts.ann_name(ann)} needs type arguments, e.g. {ts.ann_name(ann)}[int]"
            )
        if ann is Ellipsis:
            raise AnnotationError("'...' is only valid inside Tuple[T, ...] and Callable[..., R]")
        raise AnnotationError(
            f"unsupported annotation {ann!r}: not a type, a typing form, "
            "a class or a string naming one"
        )


_NEVER_FORM = getattr(typing, "Never", typing.NoReturn)  # typing.Never: Python 3.11+


def _lattice_type(ann: Any) -> Any:
    """The lattice ``.type`` an annotation object (or annotation class) carries, if any.

    Only a ``graph.Type`` counts: ``torch.Tensor.type`` is a method, not a type."""
    try:
        found = getattr(ann, "type", None)
    except AnnotationError:  # an annotation that says it cannot be checked
        raise
    except Exception:  # noqa: BLE001 (a property may raise anything)
        return None
    return found if isinstance(found, Type) else None


def _module_globals(cls: type) -> dict:
    module = sys.modules.get(cls.__module__)
    return dict(vars(module)) if module is not None else {}


def _class_annotations(cls: type) -> dict:
    """The annotations of ``cls`` and its bases, base classes first (not evaluated)."""
    found: dict = {}
    for base in reversed(cls.__mro__):
        found.update(base.__dict__.get("__annotations__", {}))
    return found
