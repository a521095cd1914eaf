"""The meta type ``Any`` and the primitive types (layer 3, ``types``).

TorchScript's ``TSMetaType`` and ``TSPrimitiveType``: ``Any``, ``int``, ``float``,
``complex``, ``bool``, ``str``, ``None``, plus TorchScript's ``number`` (the
common supertype of ``int``, ``float`` and ``complex``; ``bool`` is not below
``int`` or ``number`` in the lattice, as in TorchScript, although ``True``
passes ``int`` at run time, as in Python).

Each class has exactly one instance, also bound to a module constant:
``ANY``, ``NONE``, ``INT``, ``FLOAT``, ``COMPLEX``, ``BOOL``, ``STR``, ``NUMBER``.

``int``, ``float`` and ``bool`` have C code (``tensortypes.link.c`` registers it
per class): they are ``graph.CRegistered``, so Theano's methods work on them as
methods (``INT.c_element_type() == "npy_int64"``), loading the C back end on
first use, as ``TensorType``'s do.
"""

from __future__ import annotations

from typing import ClassVar

from tensortypes.graph.clinker import CRegistered
from tensortypes.types.base import SingletonLatticeType

__all__ = [
    "AnyType",
    "NoneType",
    "IntType",
    "FloatType",
    "ComplexType",
    "BoolType",
    "StrType",
    "NumberType",
    "NeverType",
    "ANY",
    "NEVER",
    "NONE",
    "INT",
    "FLOAT",
    "COMPLEX",
    "BOOL",
    "STR",
    "NUMBER",
    "PRIMITIVES",
]


class _Primitive(SingletonLatticeType):
    """Abstract base of the primitive types: a name and the Python class of the values."""

    __slots__ = ()
    py_class: ClassVar[type | tuple[type, ...] | None] = None


class AnyType(SingletonLatticeType):
    """``Any``: every type is below it; it is below nothing but itself.

    >>> ANY is AnyType(), str(ANY)
    (True, 'Any')
    """

    __slots__ = ()
    _kind = "any"
    _name = "Any"
    py_class = object


class NeverType(SingletonLatticeType):
    """``Never`` (``NoReturn``): no value is of it; it is below every type.

    A function annotated ``-> NoReturn`` never returns: a value it returns fails.

    >>> str(NEVER), NEVER.is_valid_value(None)
    ('Never', False)
    """

    __slots__ = ()
    _kind = "never"
    _name = "Never"
    py_class = None


class NoneType(_Primitive):
    """The type of ``None`` (printed ``NoneType``, as TorchScript prints it).

    >>> str(NONE), NONE.is_valid_value(None)
    ('NoneType', True)
    """

    __slots__ = ()
    _kind = "none"
    _name = "NoneType"
    py_class = type(None)


class IntType(CRegistered, _Primitive):
    """``int``. At run time ``True`` passes (Python's ``isinstance``).

    >>> str(INT), INT.is_valid_value(True), INT.is_valid_value(1.0)
    ('int', True, False)
    """

    __slots__ = ()
    _kind = "int"
    _name = "int"
    py_class = int


class FloatType(CRegistered, _Primitive):
    """``float``. An ``int`` passes too, unless ``config.numeric_tower`` is off (PEP 484).

    >>> str(FLOAT), FLOAT.is_valid_value(1.5)
    ('float', True)
    """

    __slots__ = ()
    _kind = "float"
    _name = "float"
    py_class = float


class ComplexType(_Primitive):
    """``complex``. An ``int`` or ``float`` passes too, unless ``config.numeric_tower`` is off.

    >>> str(COMPLEX), COMPLEX.is_valid_value(1j)
    ('complex', True)
    """

    __slots__ = ()
    _kind = "complex"
    _name = "complex"
    py_class = complex


class BoolType(CRegistered, _Primitive):
    """``bool``: not a subtype of ``int`` in the lattice (TorchScript's rule).

    >>> str(BOOL), BOOL.is_valid_value(1)
    ('bool', False)
    """

    __slots__ = ()
    _kind = "bool"
    _name = "bool"
    py_class = bool


class StrType(_Primitive):
    """``str``.

    >>> str(STR), STR.is_valid_value("a")
    ('str', True)
    """

    __slots__ = ()
    _kind = "str"
    _name = "str"
    py_class = str


class NumberType(_Primitive):
    """TorchScript's ``number`` (``Scalar`` in its notation): int, float or complex.

    ``Union[int, float, complex]`` is this type.

    >>> str(NUMBER), NUMBER.torchscript_str(), NUMBER.is_valid_value(2.5)
    ('number', 'Scalar', True)
    """

    __slots__ = ()
    _kind = "number"
    _name = "number"
    _ts_name = "Scalar"
    py_class = (int, float, complex)


ANY = AnyType()
NEVER = NeverType()
NONE = NoneType()
INT = IntType()
FLOAT = FloatType()
COMPLEX = ComplexType()
BOOL = BoolType()
STR = StrType()
NUMBER = NumberType()

PRIMITIVES = {int: INT, float: FLOAT, complex: COMPLEX, bool: BOOL, str: STR, type(None): NONE}
"""The primitive type of each Python class that has one."""
