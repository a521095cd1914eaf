"""The Type contract of PyTensor and Theano, and the singleton and generic Types (layer 3, ``graph``).

A Type is a set of constraints on run-time values: it makes Variables of
itself (``__call__``), filters values (``filter``), converts Variables
(``filter_variable``), and relates to other Types (``in_same_class``,
``is_super``). ``Type`` supplies PyTensor's defaults for everything but
``filter``. Anything implementing the contract is accepted as a Type, whether
or not it subclasses ``Type`` (PyTensor's Type documentation: "a Type is any object which defines
the following methods").
"""

from __future__ import annotations

import abc
import sys
import threading

import numpy as np

from tensortypes.errors import MethodNotDefined
from tensortypes.graph.basic import Constant, Variable
from tensortypes.graph.clinker import CRegistered

__all__ = ["Type", "SingletonType", "Generic", "generic"]


class Type(abc.ABC):
    """Interface and defaults of variable types (as in PyTensor).

    A subclass must define ``filter``; it usually also defines ``__eq__`` and
    ``__hash__`` (the defaults are object identity) and, for a family of types
    with sub- and supertypes, ``in_same_class``/``is_super``.

    >>> class Text(Type):
    ...     def filter(self, data, strict=False, allow_downcast=None):
    ...         if not isinstance(data, str):
    ...             raise TypeError(f"expected a str, got {data!r}")
    ...         return data
    >>> text = Text()
    >>> text.is_valid_value("a"), text.is_valid_value(1)
    (True, False)
    """

    __slots__ = ()

    variable_type = Variable
    """The class of the Variables this Type makes (subclasses override)."""
    constant_type = Constant
    """The class of the Constants this Type makes (subclasses override)."""

    # -- values ----------------------------------------------------------------------
    @abc.abstractmethod
    def filter(self, data, strict=False, allow_downcast=None):
        """Required: return ``data``, or a converted copy, as a valid value of this Type.

        With ``strict`` the data must already be valid and is returned as is.
        Otherwise it may be converted; ``allow_downcast=True`` permits a loss of
        precision, ``False`` forbids it, and ``None`` is Type-dependent. Invalid
        data raises ``TypeCheckError`` (a TypeError).
        """
        raise MethodNotDefined(f"{type(self).__name__} does not define filter()")

    def filter_inplace(self, value, storage, strict=False, allow_downcast=None):
        """Optional: like ``filter`` but may reuse ``storage``, the previous value."""
        raise MethodNotDefined(f"{type(self).__name__} does not define filter_inplace()")

    def is_valid_value(self, data, strict=True) -> bool:
        """True iff ``filter(data, strict=strict)`` does not raise."""
        try:
            self.filter(data, strict=strict)
        except (TypeError, ValueError):
            return False
        return True

    def value_validity_msg(self, data) -> str:
        """``"valid"``, or the message explaining why ``data`` is not a valid value."""
        try:
            self.filter(data, strict=True)
        except (TypeError, ValueError) as exc:
            return str(exc)
        return "valid"

    def values_eq(self, a, b) -> bool:
        """True iff the values ``a`` and ``b`` are equal. Default: ``a == b``."""
        return a == b

    def values_eq_approx(self, a, b) -> bool:
        """True iff ``a`` and ``b`` are approximately equal. Default: ``values_eq``."""
        return self.values_eq(a, b)

    @staticmethod
    def may_share_memory(a, b) -> bool:
        """True if the values ``a`` and ``b`` could share memory."""
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return bool(np.may_share_memory(a, b))
        return a is b

    def get_shape_info(self, obj):
        """What ``get_size`` needs to know about the value ``obj``. Default: ``obj``."""
        return obj

    def get_size(self, shape_info) -> int:
        """Optional: bytes taken by the data of a value described by ``shape_info``."""
        raise MethodNotDefined(f"{type(self).__name__} does not define get_size()")

    # -- relations -------------------------------------------------------------------
    def in_same_class(self, otype) -> bool:
        """True if ``otype`` belongs to the same "class" of types. Default: ``self == otype``."""
        return bool(self == otype)

    def is_super(self, otype) -> bool | None:
        """True if this type is a supertype of ``otype``; None when that cannot be told."""
        if self.in_same_class(otype):
            return True
        return None

    # -- variables -------------------------------------------------------------------
    def convert_variable(self, var):
        """Return ``var`` patched to this Type, or None. Default: ``var`` when a subtype."""
        if self.is_super(var.type) is True:
            return var
        return None

    def filter_variable(self, other, allow_convert=True):
        """Return ``other`` as a Variable of this Type, converting it if allowed.

        A non-Variable becomes a Constant of this Type. Incompatible types raise
        TypeError.

        >>> from tensortypes.graph import generic
        >>> generic.filter_variable(3)
        Constant{3}
        """
        if not isinstance(other, Variable):
            other = self.constant_type(type=self, data=other)
        if other.type != self and allow_convert:
            converted = self.convert_variable(other)
            if converted is not None:
                return converted
        if other.type != self:
            raise TypeError(
                f"Cannot convert Type {other.type} (of Variable {other}) into Type {self}. "
                f"You can try to manually convert {other} into a {self}."
            )
        return other

    def make_variable(self, name=None):
        """Return a new root Variable of this Type."""
        return self.variable_type(self, None, name=name)

    def make_constant(self, value, name=None):
        """Return a Constant of this Type holding ``filter(value)``."""
        return self.constant_type(type=self, data=value, name=name)

    def __call__(self, name=None):
        """Shortcut for ``make_variable(name)``."""
        return self.make_variable(name)

    def clone(self, *args, **kwargs):
        """A Type of the same class built from the given arguments."""
        return type(self)(*args, **kwargs)

    def __repr__(self) -> str:
        return type(self).__name__


_singletons: dict[type, SingletonType] = {}
_singletons_lock = threading.Lock()


class SingletonType(Type):
    """A Type class with exactly one instance: ``Cls() is Cls()``.

    Equality is "same class", the hash is the class's, pickling and copying
    return the one instance, and the repr is the class name.

    >>> generic is Generic() and repr(generic)
    'Generic'
    """

    __slots__ = ()

    def __new__(cls):
        inst = _singletons.get(cls)
        if inst is None:
            with _singletons_lock:
                inst = _singletons.get(cls)
                if inst is None:
                    inst = _singletons[cls] = super().__new__(cls)
        return inst

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __reduce__(self):
        return (type(self), ())

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        return type(self).__name__


class Generic(SingletonType, CRegistered):
    """The Type of any Python object (as in Theano). Its C code comes from the registry.

    >>> generic.filter([1, 2]), generic.is_valid_value(object())
    ([1, 2], True)
    """

    __slots__ = ()

    def filter(self, data, strict=False, allow_downcast=None):
        """Return ``data`` unchanged: every Python object is a valid value."""
        return data

    def is_valid_value(self, data, strict=True) -> bool:
        """Always True."""
        return True

    def values_eq(self, a, b) -> bool:
        """``a == b`` as a bool; identity where ``==`` gives no single truth value."""
        if a is b:
            return True
        try:
            return bool(a == b)
        except Exception:  # noqa: BLE001  (arrays, objects with odd __eq__/__bool__)
            return False

    def get_size(self, shape_info) -> int:
        """``sys.getsizeof`` of the object."""
        return sys.getsizeof(shape_info)


generic = Generic()
