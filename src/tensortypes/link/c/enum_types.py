"""``EnumType``, ``EnumList`` and ``CEnumType``: named constants for Python and C (layer 6).

Theano's op parameter types. An ``EnumType`` is an immutable mapping from
constant names (capital letters, digits and underscores, starting with a
letter) to int or float values (a bool is stored as an int); each constant is
also an attribute (``enum.A``) and, in C, a ``#define``. A constant may have an
alias (``EnumType(A=("alpha", 1))``) for Python code: ``fromalias``,
``has_alias``, ``get_aliases``, and non-strict ``filter`` accept it. A value of
the type is one of the constants' values; anything else is a
``TypeCheckError``, so ``is_valid_value`` answers False.

``EnumList("A", "B")`` numbers its constants 0, 1, ... (C type ``int``).
``CEnumType("SEEK_SET", "SEEK_END")`` numbers them in Python but maps them,
in C, to the constants of that name in the user's headers (an op lists them in
``c_headers``/``c_header_dirs``). Every enum has the C function
``tensortypes_enum_to_string_<cname>(<ctype> value, char* out)``, which writes
the constant's name into ``out`` and returns 0, or sets ``ValueError`` and
returns -1 for an unknown value.

Two enums are equal when they have the same class, C type, C name, constants
and aliases; they pickle by value.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from types import MappingProxyType

from tensortypes.errors import TypeCheckError
from tensortypes.graph import CLinkerType, Type
from tensortypes.link.c.cnames import c_format, c_string, check_ctype, check_identifier
from tensortypes.link.c.types_c import label_c

__all__ = ["EnumType", "EnumList", "CEnumType", "check_enum_conflicts"]

_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")


def _number(value, what: str, cls: str):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"{cls}: {what}: expected an int, a float or a bool, got "
                    f"{type(value).__name__} {value!r}")


def _define_text(value) -> str:
    if isinstance(value, int):
        return f"({value})" if value < 0 else str(value)
    if math.isnan(value):
        return "(NAN)"
    if math.isinf(value):
        return "(HUGE_VAL)" if value > 0 else "(-HUGE_VAL)"
    return f"({value!r})"


def _rebuild(cls, ctype, cname, constants, aliases):
    obj = object.__new__(cls)
    obj._setup(ctype, cname, dict(constants), dict(aliases))
    return obj


class EnumType(Type, CLinkerType, Mapping):
    """Named constants available in Python (attributes) and C (``#define``s).

    >>> enum = EnumType(A=("alpha", 1), B=2.5, C=False, ctype="double")
    >>> enum.A, enum.B, enum.C, enum.fromalias("alpha"), enum.get_aliases()
    (1, 2.5, 0, 1, ('alpha',))
    >>> enum.filter("alpha"), enum.is_valid_value(3)
    (1, False)
    """

    __slots__ = ("ctype", "cname", "aliases", "_constants", "_values", "_hash")

    _default_ctype = "double"

    def __init__(self, **kwargs):
        cls = type(self).__name__
        ctype = check_ctype(kwargs.pop("ctype", self._default_ctype), f"{cls}: ctype",
                            pointer=False)
        cname = check_identifier(kwargs.pop("cname", ctype.replace(" ", "_")), f"{cls}: cname",
                                 keywords=True)
        constants: dict = {}
        aliases: dict = {}
        for name, value in kwargs.items():
            if not _NAME.match(name):
                raise ValueError(f'{cls}: invalid constant name "{name}": only capital letters, '
                                 "digits and underscores are allowed, starting with a letter")
            if isinstance(value, (list, tuple)):
                if len(value) != 2:
                    raise TypeError(f"{cls}: constant {name}: a tuple must hold 2 values, the "
                                    f"alias then the value; got {value!r}")
                alias, value = value
                if not isinstance(alias, str):
                    raise TypeError(f"{cls}: constant {name}: the alias must be a str, got "
                                    f"{type(alias).__name__} {alias!r}")
                if alias == name:
                    raise ValueError(f"{cls}: constant {name}: an alias equal to the constant's "
                                     "own name is useless")
                if alias in aliases:
                    raise ValueError(f'{cls}: alias "{alias}" is used twice '
                                     f"({aliases[alias]} and {name})")
                aliases[alias] = name
            constants[name] = _number(value, f"constant {name}", cls)
        clash = sorted(a for a in aliases if a in constants)
        if clash:
            raise ValueError(f"{cls}: aliases {clash} are also constant names")
        self._setup(ctype, cname, constants, aliases)

    def _setup(self, ctype, cname, constants, aliases) -> None:
        set_ = object.__setattr__
        set_(self, "ctype", ctype)
        set_(self, "cname", cname)
        set_(self, "_constants", constants)
        set_(self, "aliases", MappingProxyType(aliases))  # read-only: alias -> name
        set_(self, "_values", frozenset(constants.values()))
        set_(self, "_hash", hash((type(self), ctype, cname, tuple(sorted(constants.items())),
                                  tuple(sorted(aliases.items())))))

    # -- an immutable mapping whose keys are also attributes ----------------------------
    def __getitem__(self, name):
        return self._constants[name]

    def __iter__(self):
        return iter(self._constants)

    def __len__(self):
        return len(self._constants)

    def __getattr__(self, key):
        if not key.startswith("_"):
            try:
                return self._constants[key]
            except KeyError:
                pass
        raise AttributeError(f"{type(self).__name__} has no constant or attribute {key!r}")

    def __setattr__(self, key, value):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {key!r}")

    def __delattr__(self, key):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {key!r}")

    def __eq__(self, other):
        return self is other or (
            type(self) is type(other) and self.ctype == other.ctype
            and self.cname == other.cname and self._constants == other._constants
            and dict(self.aliases) == dict(other.aliases))

    def __hash__(self):
        return self._hash

    def __reduce__(self):
        return (_rebuild, (type(self), self.ctype, self.cname,
                           tuple(self._constants.items()), tuple(self.aliases.items())))

    def __repr__(self):
        alias_of = {name: f"({alias})" for alias, name in self.aliases.items()}
        body = ", ".join(f"{k}{alias_of.get(k, '')}:{self._constants[k]}" for k in sorted(self))
        return f"{type(self).__name__}<{self.ctype}>({body})"

    __str__ = __repr__

    # -- aliases --------------------------------------------------------------------------
    def fromalias(self, alias):
        """The value of the constant with this alias, or with this name; KeyError if neither.

        >>> EnumType(A=("alpha", 1), C=3).fromalias("C")
        3
        """
        name = self.aliases.get(alias, alias)
        try:
            return self._constants[name]
        except (KeyError, TypeError):
            raise KeyError(f"{type(self).__name__} has no constant or alias {alias!r}") from None

    def has_alias(self, alias) -> bool:
        """True if and only if this enum has the alias ``alias``."""
        return alias in self.aliases

    def get_aliases(self) -> tuple:
        """The sorted tuple of this enum's aliases."""
        return tuple(sorted(self.aliases))

    # -- values ---------------------------------------------------------------------------
    def filter(self, data, strict=False, allow_downcast=None):
        """One of the constants' values; non-strict also takes names, aliases and bools."""
        if not strict:
            if isinstance(data, str):
                try:
                    data = self.fromalias(data)
                except KeyError:
                    raise TypeCheckError(f"{self}: unknown constant or alias {data!r}") from None
            elif isinstance(data, bool):
                data = int(data)
            elif isinstance(data, numbers.Integral):
                data = int(data)
            elif isinstance(data, numbers.Real):
                data = float(data)
        if not isinstance(data, (int, float)):
            raise TypeCheckError(f"{self}: expected an int or a float, got "
                                 f"{type(data).__name__} {data!r}")
        if data not in self._values:
            raise TypeCheckError(f"{self}: unknown value {data!r}")
        return data

    # -- C --------------------------------------------------------------------------------
    def c_to_string(self) -> str:
        """The C function ``tensortypes_enum_to_string_<cname>(value, out)`` (as in Theano).

        It writes the name of the constant equal to ``value`` into ``out`` (which
        must hold the longest name) and returns 0; for an unknown value it sets
        ``ValueError`` and returns -1.
        """
        checks = "".join(f"    if (value == {k}) {{ strcpy(out, {c_string(k)}); return 0; }}\n"
                         for k in self)
        message = c_string(f"{type(self).__name__} {self.cname}: unknown enum value")
        return (f"static int tensortypes_enum_to_string_{self.cname}({self.ctype} value, "
                f"char* out)\n{{\n{checks}    PyErr_SetString(PyExc_ValueError, {message});\n"
                "    return -1;\n}\n")

    def c_support_code(self, **kwargs) -> str:
        defines = "".join(f"#define {name} {_define_text(value)}\n"
                          for name, value in sorted(self._constants.items()))
        return defines + self.c_to_string()

    def c_headers(self, **kwargs):
        return ["<string.h>", "<math.h>"]

    def c_declare(self, name, sub, check_input=True):
        return f"{self.ctype} {name};"

    def c_init(self, name, sub):
        return f"{name} = ({self.ctype})0;"

    def c_extract(self, name, sub, check_input=True):
        members = " || ".join(f"{name} == ({self.ctype}){k}" for k in self) or "0"
        label, kind = label_c(name, sub), c_format(f" of type {self}")
        return f"""if (PyLong_Check(py_{name})) {{
    {name} = ({self.ctype})PyLong_AsLongLong(py_{name});
}} else if (PyFloat_Check(py_{name})) {{
    {name} = ({self.ctype})PyFloat_AsDouble(py_{name});
}} else {{
    PyErr_Format(tt_TypeCheckError, "%s" {kind} ": expected an int or a float, got %s",
                 {label}, Py_TYPE(py_{name})->tp_name);
    {sub['fail']}
}}
if (PyErr_Occurred()) {{ {sub['fail']} }}
if (!({members})) {{
    PyErr_Format(tt_TypeCheckError, "%s" {kind} ": unknown value %R", {label}, py_{name});
    {sub['fail']}
}}"""

    def c_sync(self, name, sub):
        all_ints = all(isinstance(v, int) for v in self._constants.values())
        make = (f"PyLong_FromLongLong((long long){name})" if all_ints
                else f"PyFloat_FromDouble((double){name})")
        return f"""Py_XDECREF(py_{name});
py_{name} = {make};
if (py_{name} == NULL) {{ {sub['fail']} }}"""

    def c_cleanup(self, name, sub):
        return ""

    def c_element_type(self):
        return self.ctype

    def c_is_simple(self):
        return True

    def c_code_cache_version(self):
        return (2, self.ctype, self.cname, tuple(sorted(self._constants.items())))


def _list_constants(cls: str, args) -> dict:
    constants: dict = {}
    for rank, arg in enumerate(args):
        if isinstance(arg, (list, tuple)):
            if len(arg) != 2:
                raise TypeError(f"{cls}: a tuple must hold 2 values, the constant name then "
                                f"its alias; got {arg!r}")
            name, alias = arg
            if not isinstance(alias, str):
                raise TypeError(f"{cls}: the alias of {name!r} must be a str, got "
                                f"{type(alias).__name__} {alias!r}")
            value = (alias, rank)
        else:
            name, value = arg, rank
        if not isinstance(name, str):
            raise TypeError(f"{cls}: a constant name must be a str, got "
                            f"{type(name).__name__} {name!r}")
        if name in constants or name in ("ctype", "cname"):
            raise ValueError(f'{cls}: constant name "{name}" is used twice or reserved')
        constants[name] = value
    return constants


class EnumList(EnumType):
    """An ``EnumType`` numbering its constants 0, 1, 2, ... in order (C type ``int``).

    >>> e = EnumList(("A", "alpha"), "B", "C")
    >>> e.A, e.B, e.C, e.fromalias("alpha")
    (0, 1, 2, 0)
    """

    __slots__ = ()
    _default_ctype = "int"

    def __init__(self, *args, **kwargs):
        unknown = set(kwargs) - {"ctype", "cname"}
        if unknown:
            raise TypeError(f"{type(self).__name__}: unexpected keyword arguments "
                            f"{sorted(unknown)} (only ctype and cname)")
        constants = _list_constants(type(self).__name__, args)
        super().__init__(**constants, **kwargs)


class CEnumType(EnumList):
    """Constants numbered in Python, mapped in C to the C constants of the same names.

    The constants must be defined by headers the op using this type includes
    (``c_headers``/``c_header_dirs``). Python sees 0, 1, 2, ...; C code sees
    the real C values.

    >>> e = CEnumType("SEEK_SET", ("SEEK_END", "end"), ctype="int")
    >>> e.SEEK_END, e.fromalias("end")
    (1, 1)
    """

    __slots__ = ()

    def c_support_code(self, **kwargs) -> str:
        return self.c_to_string()

    def c_extract(self, name, sub, check_input=True):
        cases = "".join(f"    case {i}: {name} = {k}; break;\n" for i, k in enumerate(self))
        label, kind = label_c(name, sub), c_format(f" of type {self}")
        return f"""{{
    long long value_{name} = PyLong_Check(py_{name}) ? PyLong_AsLongLong(py_{name}) : -1;
    if (PyErr_Occurred()) {{ {sub['fail']} }}
    switch (value_{name}) {{
{cases}    default:
        PyErr_Format(tt_TypeCheckError, "%s" {kind} ": invalid value %R to map to C "
                     "constants", {label}, py_{name});
        {sub['fail']}
    }}
}}"""

    def c_sync(self, name, sub):
        checks = " else ".join(f"if ({name} == {k}) index_{name} = {i};"
                               for i, k in enumerate(self))
        label, kind = label_c(name, sub), c_format(f" of type {self}")
        return f"""{{
    long index_{name} = -1;
    {checks}
    if (index_{name} < 0) {{
        PyErr_Format(PyExc_ValueError, "%s" {kind} ": the C value is none of the constants",
                     {label});
        {sub['fail']}
    }}
    Py_XDECREF(py_{name});
    py_{name} = PyLong_FromLong(index_{name});
    if (py_{name} == NULL) {{ {sub['fail']} }}
}}"""

    def c_code_cache_version(self):
        return (1, super().c_code_cache_version())


def check_enum_conflicts(types) -> None:
    """Refuse enums that cannot share one C module: a C name or a constant defined twice.

    Two different enums with the same ``cname`` would both define
    ``tensortypes_enum_to_string_<cname>``; two ``#define``s of one constant
    name with different values would silently keep one. ValueError names both.

    >>> check_enum_conflicts([EnumList("A"), EnumList("A")])
    """
    by_cname: dict = {}
    defined: dict = {}
    for t in dict.fromkeys(t for t in types if isinstance(t, EnumType)):
        other = by_cname.setdefault(t.cname, t)
        if other != t:
            raise ValueError(f"{other} and {t} share the C name {t.cname!r}; give one of them "
                             "another cname so that each has its own C functions")
        if isinstance(t, CEnumType):
            continue
        for name, value in t.items():
            seen = defined.setdefault(name, (value, t))
            if seen[0] != value:
                raise ValueError(f"the C constant {name} is {seen[0]} in {seen[1]} but {value} "
                                 f"in {t}; one C module cannot define both")
