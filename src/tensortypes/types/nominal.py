"""Nominal types: torch's builtin classes, user classes, enums, interfaces, modules
(layer 3, ``types``).

TorchScript's ``TSNominalType`` and ``TSModuleType``:

- ``DeviceType``, ``DTypeType``, ``StreamType``, ``GeneratorType``: the
  builtin classes ``torch.device``, ``torch.dtype``, ``torch.Stream``,
  ``torch.Generator`` (recognised by module and class name; torch is never
  imported).
- ``ClassType``: any Python class. Following the spec's proposal rather than
  TorchScript's restriction, a class need not be compilable as a whole: its
  schema (attribute types from annotations and from the first assignment of
  each attribute in ``__init__``, read with ``ast``; method signatures from
  annotations, each marked checkable or not) is read lazily, and only using an
  attribute that cannot be resolved fails (``attribute(name)``).
- ``EnumClassType``: an ``enum.Enum`` class and the type of its values.
- ``InterfaceType``: method signatures only (``@torch.jit.interface`` classes).
- ``ModuleType``: an *instance class*: its schema comes from an object's
  attribute values (``from_instance``), or from a class's annotations
  (``from_class``), so two modules of one class may have different types.

The schema reader lives in ``tensortypes.types.schema`` (it needs
``ann_to_type``) and is reached through ``hooks.class_schema``.
"""

from __future__ import annotations

import enum
from typing import Any

from tensortypes.graph.type import Type
from tensortypes.types.base import LatticeType, SingletonLatticeType, hooks, qualified
from tensortypes.types.primitives import PRIMITIVES

__all__ = [
    "DeviceType",
    "DTypeType",
    "StreamType",
    "GeneratorType",
    "DEVICE",
    "DTYPE",
    "STREAM",
    "GENERATOR",
    "ClassType",
    "EnumClassType",
    "InterfaceType",
    "ModuleType",
    "ClassSchema",
    "MethodInfo",
    "torch_class_name",
    "is_module_class",
]


def torch_class_name(cls: type) -> str | None:
    """``"device"``, ``"dtype"``, ``"Stream"`` or ``"Generator"`` when ``cls`` is (a
    subclass of) that torch builtin class; else None. Never imports torch.

    >>> torch_class_name(int) is None
    True
    """
    for base in getattr(cls, "__mro__", ()):
        module = base.__module__
        if module == "torch" and base.__name__ in ("device", "dtype", "Stream"):
            return base.__name__
        if module == "torch._C" and base.__name__ == "Generator":
            return "Generator"
    return None


def is_module_class(cls: Any) -> bool:
    """Whether ``cls`` subclasses ``torch.nn.Module`` (by MRO names; no import).

    >>> is_module_class(dict)
    False
    """
    return isinstance(cls, type) and any(
        b.__name__ == "Module" and b.__module__ == "torch.nn.modules.module" for b in cls.__mro__
    )


class _TorchBuiltin(SingletonLatticeType):
    """Abstract base of torch's builtin nominal types: one class name each."""

    __slots__ = ()
    torch_name: str = ""


class DeviceType(_TorchBuiltin):
    """``torch.device`` (printed ``Device``, as TorchScript prints it).

    >>> str(DEVICE)
    'Device'
    """

    __slots__ = ()
    _kind = "device"
    _name = "Device"
    torch_name = "device"


class DTypeType(_TorchBuiltin):
    """``torch.dtype`` (TorchScript's ``ScalarType``; its annotations say ``int``).

    >>> str(DTYPE), DTYPE.torchscript_str()
    ('dtype', 'ScalarType')
    """

    __slots__ = ()
    _kind = "dtype"
    _name = "dtype"
    _ts_name = "ScalarType"
    torch_name = "dtype"


class StreamType(_TorchBuiltin):
    """``torch.Stream``.

    >>> str(STREAM)
    'Stream'
    """

    __slots__ = ()
    _kind = "stream"
    _name = "Stream"
    torch_name = "Stream"


class GeneratorType(_TorchBuiltin):
    """``torch.Generator`` (a random number generator, not a Python generator).

    >>> str(GENERATOR)
    'Generator'
    """

    __slots__ = ()
    _kind = "generator"
    _name = "Generator"
    torch_name = "Generator"


DEVICE = DeviceType()
DTYPE = DTypeType()
STREAM = StreamType()
GENERATOR = GeneratorType()


class MethodInfo:
    """One method of a class schema: its signature and whether it is checkable.

    ``signature`` is a ``CallableType`` (without ``self``) or None when an
    annotation could not be resolved; ``reason`` then says why.

    >>> MethodInfo("close", None, "its annotation 'Nope' does not resolve").checkable
    False
    """

    __slots__ = ("name", "signature", "reason", "binding")

    def __init__(
        self, name: str, signature: Any, reason: str | None = None, binding: str = "instance"
    ):
        self.name = name
        self.signature = signature
        self.reason = reason
        self.binding = binding

    @property
    def checkable(self) -> bool:
        """True when every annotation of the method resolved."""
        return self.signature is not None

    def __repr__(self) -> str:
        state = str(self.signature) if self.checkable else f"unresolved: {self.reason}"
        return f"MethodInfo({self.name}, {state})"


class ClassSchema:
    """The static schema of a class: attributes, methods, dataclass fields.

    ``attributes`` maps names to types; ``unresolved`` maps the names of
    attributes whose type could not be read statically to the reason;
    ``methods`` maps names to ``MethodInfo``.

    >>> from tensortypes.types import INT
    >>> ClassSchema({"x": INT}, {}, {}).resolve("Point", "x")
    int
    """

    __slots__ = ("attributes", "unresolved", "methods", "fields")

    def __init__(
        self, attributes: dict, unresolved: dict, methods: dict, fields: tuple[str, ...] = ()
    ):
        self.attributes = attributes
        self.unresolved = unresolved
        self.methods = methods
        self.fields = fields

    def resolve(self, owner: str, name: str):
        """The type of attribute or method ``name`` of the class named ``owner``."""
        found = self.attributes.get(name)
        if found is not None:
            return found
        method = self.methods.get(name)
        if method is not None:
            if method.checkable:
                return method.signature
            raise TypeError(f"{owner}.{name}() cannot be resolved: {method.reason}")
        reason = self.unresolved.get(name)
        if reason is not None:
            raise TypeError(f"{owner}.{name} cannot be resolved: {reason}")
        raise AttributeError(f"{owner} has no attribute {name!r}")


class _Classy(LatticeType):
    """Abstract base of the types named by a Python class, with a lazy schema."""

    __slots__ = ("cls", "_schema")
    _schema: Any
    cls: Any
    _fields = ("cls",)

    @classmethod
    def _construct(cls, py_class: Any):
        if not isinstance(py_class, type):
            raise TypeError(f"{cls.__name__} takes a class, got {py_class!r}")
        return cls._get((py_class,))

    @classmethod
    def from_class(cls, py_class: type):
        """The type of the instances of ``py_class``."""
        return cls(py_class)

    def _post_init(self) -> None:
        self._set("_schema", None)

    @property
    def name(self) -> str:
        """The class's qualified name."""
        return qualified(self.cls)

    @property
    def schema(self) -> ClassSchema:
        """Attributes and methods, read from the class on first use (never by running it)."""
        found = self._schema
        if found is None:
            found = hooks.class_schema(self.cls)
            self._set("_schema", found)
        return found

    def attribute(self, name: str):
        """The type of attribute (or method) ``name``.

        Raises ``AttributeError`` naming the class and the attribute when the
        class has no such attribute, and ``TypeError`` when it has one whose
        type cannot be resolved statically.
        """
        return self.schema.resolve(self.name, name)

    def _py_str(self) -> str:
        return self.name


class ClassType(_Classy):
    """A Python class as a nominal type; below the types of its base classes.

    >>> class Point:
    ...     def __init__(self, x: int, y: float):
    ...         self.x = x
    ...         self.y = y
    >>> p = ClassType(Point)
    >>> str(p), str(p.attribute("x")), str(p.attribute("y"))
    ('Point', 'int', 'float')
    """

    __slots__ = ()
    _kind = "class"

    @property
    def methods(self) -> dict:
        """``{name: MethodInfo}`` for the methods of the class."""
        return self.schema.methods

    @property
    def is_dataclass(self) -> bool:
        """Whether the class is a dataclass (its fields are ``schema.fields``)."""
        return "__dataclass_fields__" in getattr(self.cls, "__dict__", {}) or hasattr(
            self.cls, "__dataclass_fields__"
        )


class InterfaceType(_Classy):
    """Method signatures only (``@torch.jit.interface``): classes with these methods
    are below it.

    >>> class Greeter:
    ...     def greet(self, name: str) -> str: ...
    >>> InterfaceType(Greeter).torchscript_str()
    'InterfaceType<Greeter>'
    """

    __slots__ = ()
    _kind = "interface"

    def _ts_str(self) -> str:
        return f"InterfaceType<{self.cls.__name__}>"

    @property
    def methods(self) -> dict:
        """``{name: MethodInfo}``: the interface's methods."""
        return self.schema.methods


def _enum_value_type(cls: Any):
    kinds = {type(m.value) for m in cls}
    if len(kinds) == 1:
        (only,) = kinds
        return PRIMITIVES.get(only)
    return None


class EnumClassType(LatticeType):
    """An ``enum.Enum`` class: its members are its values.

    ``value_type`` is the primitive type of all member values when they share
    one (``int``, ``float``, ``str``...), else None.

    >>> import enum
    >>> class Color(enum.Enum):
    ...     RED = 1
    >>> c = EnumClassType(Color)
    >>> str(c), c.torchscript_str(), str(c.value_type), c.names
    ('Color', 'Enum<Color>', 'int', ('RED',))
    """

    __slots__ = ("cls", "value_type", "names")
    cls: Any
    _fields = ("cls",)
    _kind = "enum"

    @classmethod
    def _construct(cls, py_class: Any):
        if not (isinstance(py_class, type) and issubclass(py_class, enum.Enum)):
            raise TypeError(f"EnumClassType takes an enum.Enum class, got {py_class!r}")
        return cls._get((py_class,))

    def _post_init(self) -> None:
        self._set("value_type", _enum_value_type(self.cls))
        self._set("names", tuple(self.cls.__members__))

    @property
    def name(self) -> str:
        """The enum class's qualified name."""
        return qualified(self.cls)

    def _py_str(self) -> str:
        return self.name

    def _ts_str(self) -> str:
        return f"Enum<{self.name}>"


class ModuleType(LatticeType):
    """An instance class (TorchScript's ``TSModuleType``): a class plus an attribute
    schema read from one object (``from_instance``) or from annotations
    (``from_class``).

    >>> class Box:
    ...     def __init__(self):
    ...         self.size = 3
    >>> m = ModuleType.from_instance(Box())
    >>> str(m), str(m.attribute("size"))
    ('Box', 'int')
    """

    __slots__ = ("cls", "attributes", "unresolved", "nominal", "_schema")
    _schema: Any
    attributes: Any
    cls: Any
    unresolved: Any
    nominal: bool
    _fields = ("cls", "attributes", "unresolved", "nominal")
    _kind = "module"

    @classmethod
    def _construct(
        cls, py_class: Any, attributes: Any = (), unresolved: Any = (), nominal: bool = False
    ):
        if not isinstance(py_class, type):
            raise TypeError(f"ModuleType takes a class, got {py_class!r}")
        attrs = tuple(sorted(dict(attributes).items()))
        for name, t in attrs:
            if not isinstance(name, str) or not isinstance(t, Type):
                raise TypeError(f"ModuleType attributes map names to types; got {name!r}: {t!r}")
        missing = tuple(sorted(dict(unresolved).items()))
        return cls._get((py_class, attrs, missing, bool(nominal)))

    @classmethod
    def from_instance(cls, obj: Any) -> ModuleType:
        """The type of ``obj`` with a schema inferred from its attribute values."""
        attributes, unresolved = hooks.instance_schema(obj)
        return cls(type(obj), attributes, unresolved)

    @classmethod
    def from_class(cls, py_class: type, torchscript: bool = False) -> ModuleType:
        """The type of instances of ``py_class`` with the schema of its annotations
        and ``__init__`` assignments (read under TorchScript's rules with
        ``torchscript``, where a module class may annotate an attribute).

        Outside TorchScript the type is *nominal* for values (``nominal``): a value
        is accepted when it is an instance of the class, as Python reads an
        annotation (an attribute ``__init__`` sets to None in one branch and to a
        module in another is the program's business). The schema still serves
        subtyping and attribute types."""
        schema = hooks.class_schema(py_class, torchscript)
        return cls(py_class, schema.attributes, schema.unresolved, not torchscript)

    def _post_init(self) -> None:
        self._set("_schema", None)

    @property
    def name(self) -> str:
        """The class's qualified name."""
        return qualified(self.cls)

    @property
    def schema(self) -> ClassSchema:
        """This module's attributes, with the methods of its class."""
        found = self._schema
        if found is None:
            methods = hooks.class_schema(self.cls).methods
            found = ClassSchema(dict(self.attributes), dict(self.unresolved), methods)
            self._set("_schema", found)
        return found

    def attribute(self, name: str):
        """The type of attribute (or method) ``name``; AttributeError or TypeError
        as for ``ClassType.attribute``."""
        return self.schema.resolve(self.name, name)

    def _py_str(self) -> str:
        return self.name
