"""``EnumType``, ``EnumList`` and ``CEnumType``: named constants for Python and C (layer 6).

Theano's op parameter types. An ``EnumType`` is an immutable mapping from
constant names (capital letters, digits and underscores, starting with a
letter) to int or float values (a bool is stored as an int); each constant is
also an attribute (``enum.A``) and, in C, a ``#define``. A constant may have an
alias (``EnumType(A=("alpha", 1))``) for Python code: ``fromalias``,
``has_alias``, ``get_aliases``, and non-strict ``filter`` accept it. A value of
the type is one of the constants' values; anything else is a
``TypeCheckError``, so ``is_valid_value`` answers False, and compiled code
agrees: a value is compared with the constants as Python compares numbers
(``1.5`` is not ``1``, an int beyond ``long long`` is no constant) before any
cast. A constant its C type cannot hold exactly (``2**40`` in an ``int``) is
refused when the enum is built; a NaN constant is one value, equal to itself.

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

# One NaN object: NaN != NaN, but a NaN constant is one value that equals itself here
# (sets, dicts and tuples compare by identity first), so enums holding it compare,
# hash and pickle as values.
_NAN = float("nan")

_LL_MIN, _LL_MAX = -(2**63), 2**63 - 1


def _c_ranges() -> dict:
    """The value range of the integer C types the library knows, on this platform."""
    import ctypes

    def signed(ct):
        bits = 8 * ctypes.sizeof(ct)
        return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)

    def unsigned(ct):
        return (0, 2 ** (8 * ctypes.sizeof(ct)) - 1)

    table = {"char": (0, 127)}  # signed on some platforms, unsigned on others
    groups = [
        (signed(ctypes.c_byte), "signed char|int8_t|npy_int8|npy_byte"),
        (unsigned(ctypes.c_ubyte), "unsigned char|uint8_t|npy_uint8|npy_ubyte|npy_bool"),
        (
            signed(ctypes.c_short),
            "short|short int|signed short|signed short int|int16_t|npy_int16|npy_short",
        ),
        (
            unsigned(ctypes.c_ushort),
            "unsigned short|unsigned short int|uint16_t|npy_uint16|npy_ushort",
        ),
        (signed(ctypes.c_int), "int|signed|signed int|npy_int"),
        ((-(2**31), 2**31 - 1), "int32_t|npy_int32"),
        (unsigned(ctypes.c_uint), "unsigned|unsigned int|npy_uint"),
        ((0, 2**32 - 1), "uint32_t|npy_uint32"),
        (signed(ctypes.c_long), "long|long int|signed long|signed long int|npy_long"),
        (unsigned(ctypes.c_ulong), "unsigned long|unsigned long int|npy_ulong"),
        (
            signed(ctypes.c_longlong),
            "long long|long long int|signed long long|signed long long int|npy_longlong",
        ),
        ((_LL_MIN, _LL_MAX), "int64_t|npy_int64"),
        (unsigned(ctypes.c_ulonglong), "unsigned long long|unsigned long long int|npy_ulonglong"),
        ((0, 2**64 - 1), "uint64_t|npy_uint64"),
        (signed(ctypes.c_ssize_t), "ssize_t|Py_ssize_t|npy_intp|intptr_t"),
        (unsigned(ctypes.c_size_t), "size_t|npy_uintp|uintptr_t"),
    ]
    for bounds, names in groups:
        table.update(dict.fromkeys(names.split("|"), bounds))
    return table


_INT_RANGES = _c_ranges()
_FLOAT_CTYPES = {
    "float": "float32",
    "npy_float": "float32",
    "npy_float32": "float32",
    "double": "float64",
    "npy_double": "float64",
    "npy_float64": "float64",
    "long double": None,
    "npy_longdouble": None,
}


def _number(value, what: str, cls: str):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return _NAN if math.isnan(value) else value
    raise TypeError(
        f"{cls}: {what}: expected an int, a float or a bool, got {type(value).__name__} {value!r}"
    )


def _check_fits(cls: str, ctype: str, name: str, value) -> None:
    """Refuse a constant that the C type cannot hold exactly (it would be truncated)."""
    problem = None
    if isinstance(value, int) and not _LL_MIN <= value <= _LL_MAX:
        problem = "C code reads enum values as long long"
    if ctype in _INT_RANGES:
        lo, hi = _INT_RANGES[ctype]
        if isinstance(value, float) and not value.is_integer():
            problem = f"{ctype} holds integers only"
        elif not lo <= value <= hi:
            problem = f"{ctype} holds {lo} to {hi}" + (
                " (char may be signed or unsigned: use signed char or unsigned char)"
                if ctype == "char"
                else ""
            )
    elif ctype in _FLOAT_CTYPES and _FLOAT_CTYPES[ctype] is not None:
        import numpy as np

        with np.errstate(all="ignore"):
            stored = float(getattr(np, _FLOAT_CTYPES[ctype])(value))
        exact = stored == value or (math.isnan(stored) and math.isnan(value))
        if isinstance(value, int):
            exact = exact and int(stored) == value if math.isfinite(stored) else False
        if not exact:
            problem = f"{ctype} would store it as {stored!r}"
    if problem is not None:
        raise ValueError(
            f"{cls}: constant {name}={value!r} does not fit the C type "
            f"{ctype!r} ({problem}); choose another ctype or value"
        )


def _same(a, b) -> bool:
    return a == b or (
        isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    )


def _ll(value: int) -> str:
    # -2**63 has no literal in C: its magnitude does not fit long long.
    return f"({value + 1}LL - 1)" if value == _LL_MIN else f"{value}LL"


def _float_test(var: str, value: float) -> str:
    if math.isnan(value):
        return f"isnan({var})"
    if math.isinf(value):
        return f"{var} == {'' if value > 0 else '-'}HUGE_VAL"
    return f"{var} == {value!r}"


def _define_text(value) -> str:
    if isinstance(value, int):
        return f"({value})" if value < 0 else str(value)
    if math.isnan(value):
        return "(NAN)"
    if math.isinf(value):
        return "(HUGE_VAL)" if value > 0 else "(-HUGE_VAL)"
    return f"({value!r})"


def _type_name(value) -> str:
    # Never the value's repr: a hostile __repr__ must not replace the TypeCheckError.
    return type(value).__name__


def _value_text(value) -> str:
    """An int's or float's text without calling a subclass's ``__repr__`` (never raises)."""
    if isinstance(value, int):
        if abs(value) > 10**30:
            return f"(an int of {value.bit_length()} bits)"
        return int.__repr__(value)
    return float.__repr__(value)


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
        ctype = check_ctype(
            kwargs.pop("ctype", self._default_ctype), f"{cls}: ctype", pointer=False
        )
        cname = check_identifier(
            kwargs.pop("cname", ctype.replace(" ", "_")), f"{cls}: cname", keywords=True
        )
        constants: dict = {}
        aliases: dict = {}
        for name, value in kwargs.items():
            if not _NAME.match(name):
                raise ValueError(
                    f'{cls}: invalid constant name "{name}": only capital letters, '
                    "digits and underscores are allowed, starting with a letter"
                )
            if isinstance(value, (list, tuple)):
                if len(value) != 2:
                    raise TypeError(
                        f"{cls}: constant {name}: a tuple must hold 2 values, the "
                        f"alias then the value; got {value!r}"
                    )
                alias, value = value
                if not isinstance(alias, str):
                    raise TypeError(
                        f"{cls}: constant {name}: the alias must be a str, got "
                        f"{type(alias).__name__} {alias!r}"
                    )
                if alias == name:
                    raise ValueError(
                        f"{cls}: constant {name}: an alias equal to the constant's "
                        "own name is useless"
                    )
                if alias in aliases:
                    raise ValueError(
                        f'{cls}: alias "{alias}" is used twice ({aliases[alias]} and {name})'
                    )
                aliases[alias] = name
            constants[name] = _number(value, f"constant {name}", cls)
            _check_fits(cls, ctype, name, constants[name])
        clash = sorted(a for a in aliases if a in constants)
        if clash:
            raise ValueError(f"{cls}: aliases {clash} are also constant names")
        self._setup(ctype, cname, constants, aliases)

    def _setup(self, ctype, cname, constants, aliases) -> None:
        constants = {
            k: _NAN if isinstance(v, float) and math.isnan(v) else v for k, v in constants.items()
        }  # an unpickled NaN is another object
        set_ = object.__setattr__
        set_(self, "ctype", ctype)
        set_(self, "cname", cname)
        set_(self, "_constants", constants)
        set_(self, "aliases", MappingProxyType(aliases))  # read-only: alias -> name
        set_(self, "_values", frozenset(constants.values()))
        set_(
            self,
            "_hash",
            hash(
                (
                    type(self),
                    ctype,
                    cname,
                    tuple(sorted(constants.items())),
                    tuple(sorted(aliases.items())),
                )
            ),
        )

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
            type(self) is type(other)
            and self.ctype == other.ctype
            and self.cname == other.cname
            and self._constants == other._constants
            and dict(self.aliases) == dict(other.aliases)
        )

    def __hash__(self):
        return self._hash

    def __reduce__(self):
        return (
            _rebuild,
            (
                type(self),
                self.ctype,
                self.cname,
                tuple(self._constants.items()),
                tuple(self.aliases.items()),
            ),
        )

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
            raise TypeCheckError(f"{self}: expected an int or a float, got {_type_name(data)}")
        if isinstance(data, float) and math.isnan(data):
            data = _NAN  # the NaN constant, if there is one
        if data not in self._values:
            raise TypeCheckError(f"{self}: unknown value {_value_text(data)}")
        return data

    # -- C --------------------------------------------------------------------------------
    def c_to_string(self) -> str:
        """The C function ``tensortypes_enum_to_string_<cname>(value, out)`` (as in Theano).

        It writes the name of the constant equal to ``value`` into ``out`` (which
        must hold the longest name) and returns 0; for an unknown value it sets
        ``ValueError`` and returns -1.
        """
        checks = "".join(
            f"    if (value == {k}) {{ strcpy(out, {c_string(k)}); return 0; }}\n" for k in self
        )
        message = c_string(f"{type(self).__name__} {self.cname}: unknown enum value")
        return (
            f"static int tensortypes_enum_to_string_{self.cname}({self.ctype} value, "
            f"char* out)\n{{\n{checks}    PyErr_SetString(PyExc_ValueError, {message});\n"
            "    return -1;\n}\n"
        )

    def c_support_code(self, **kwargs) -> str:
        defines = "".join(
            f"#define {name} {_define_text(value)}\n"
            for name, value in sorted(self._constants.items())
        )
        return defines + self.c_to_string()

    def c_headers(self, **kwargs):
        return ["<string.h>", "<math.h>"]

    def c_declare(self, name, sub, check_input=True):
        return f"{self.ctype} {name};"

    def c_init(self, name, sub):
        return f"{name} = ({self.ctype})0;"

    def c_extract(self, name, sub, check_input=True):
        # The value is compared with each constant in its own kind (an int as long long,
        # a float as double), as Python's ``in`` compares, before any cast to the C type:
        # 1.5 is not 1, and an int beyond long long is no constant, never an OverflowError.
        int_tests, float_tests = [], []
        for k, value in self.items():
            hit = f"{{ {name} = ({self.ctype}){k}; tt_hit = 1; }}"
            if isinstance(value, int):
                int_tests.append(f"if (tt_i == {_ll(value)}) {hit}")
                if float(value) == value:
                    float_tests.append(f"if ({_float_test('tt_d', float(value))}) {hit}")
            else:
                float_tests.append(f"if ({_float_test('tt_d', value)}) {hit}")
                if value.is_integer() and _LL_MIN <= value <= _LL_MAX:
                    int_tests.append(f"if (tt_i == {_ll(int(value))}) {hit}")
        label, kind = label_c(name, sub), c_format(f" of type {self}")
        ints = "\n        ".join(int_tests) or ";"
        floats = "\n        ".join(float_tests) or ";"
        fail = sub["fail"]
        return f"""{{
    int tt_hit = 0;
    if (PyLong_Check(py_{name})) {{
        int tt_over = 0;
        long long tt_i = PyLong_AsLongLongAndOverflow(py_{name}, &tt_over);
        if (tt_i == -1 && PyErr_Occurred()) {{ {fail} }}
        if (tt_over == 0) {{
        {ints}
        }}
        if (!tt_hit) {{
            if (tt_over) PyErr_Format(tt_TypeCheckError, "%s" {kind} ": unknown value (an "
                                      "int beyond the range of long long)", {label});
            else PyErr_Format(tt_TypeCheckError, "%s" {kind} ": unknown value %lld", {label},
                              tt_i);
            {fail}
        }}
    }} else if (PyFloat_Check(py_{name})) {{
        double tt_d = PyFloat_AsDouble(py_{name});
        if (tt_d == -1.0 && PyErr_Occurred()) {{ {fail} }}
        {floats}
        if (!tt_hit) {{
            PyObject* tt_f = PyFloat_FromDouble(tt_d);
            if (tt_f != NULL) {{
                PyErr_Format(tt_TypeCheckError, "%s" {kind} ": unknown value %R", {label}, tt_f);
                Py_DECREF(tt_f);
            }}
            {fail}
        }}
    }} else {{
        PyErr_Format(tt_TypeCheckError, "%s" {kind} ": expected an int or a float, got %s",
                     {label}, Py_TYPE(py_{name})->tp_name);
        {fail}
    }}
}}"""

    def c_sync(self, name, sub):
        all_ints = all(isinstance(v, int) for v in self._constants.values())
        make = (
            f"PyLong_FromLongLong((long long){name})"
            if all_ints
            else f"PyFloat_FromDouble((double){name})"
        )
        return f"""Py_XDECREF(py_{name});
py_{name} = {make};
if (py_{name} == NULL) {{ {sub["fail"]} }}"""

    def c_cleanup(self, name, sub):
        return ""

    def c_element_type(self):
        return self.ctype

    def c_is_simple(self):
        return True

    def c_code_cache_version(self):
        return (3, self.ctype, self.cname, tuple(sorted(self._constants.items())))


def _list_constants(cls: str, args) -> dict:
    constants: dict = {}
    for rank, arg in enumerate(args):
        if isinstance(arg, (list, tuple)):
            if len(arg) != 2:
                raise TypeError(
                    f"{cls}: a tuple must hold 2 values, the constant name then "
                    f"its alias; got {arg!r}"
                )
            name, alias = arg
            if not isinstance(alias, str):
                raise TypeError(
                    f"{cls}: the alias of {name!r} must be a str, got "
                    f"{type(alias).__name__} {alias!r}"
                )
            value = (alias, rank)
        else:
            name, value = arg, rank
        if not isinstance(name, str):
            raise TypeError(
                f"{cls}: a constant name must be a str, got {type(name).__name__} {name!r}"
            )
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
            raise TypeError(
                f"{type(self).__name__}: unexpected keyword arguments "
                f"{sorted(unknown)} (only ctype and cname)"
            )
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
    int over_{name} = 0;
    long long value_{name} = PyLong_Check(py_{name})
        ? PyLong_AsLongLongAndOverflow(py_{name}, &over_{name}) : -1;
    if (value_{name} == -1 && PyErr_Occurred()) {{ {sub["fail"]} }}
    if (over_{name}) value_{name} = -1;  /* beyond long long: no constant */
    switch (value_{name}) {{
{cases}    default:
        if (PyLong_Check(py_{name}) && !over_{name})
            PyErr_Format(tt_TypeCheckError, "%s" {kind} ": invalid value %lld to map to C "
                         "constants", {label}, value_{name});
        else
            PyErr_Format(tt_TypeCheckError, "%s" {kind} ": invalid value (%s) to map to C "
                         "constants; expected an int from 0 to {len(self) - 1}", {label},
                         PyLong_Check(py_{name}) ? "an int beyond long long"
                                                 : Py_TYPE(py_{name})->tp_name);
        {sub["fail"]}
    }}
}}"""

    def c_sync(self, name, sub):
        checks = " else ".join(
            f"if ({name} == {k}) index_{name} = {i};" for i, k in enumerate(self)
        )
        label, kind = label_c(name, sub), c_format(f" of type {self}")
        return f"""{{
    long index_{name} = -1;
    {checks}
    if (index_{name} < 0) {{
        PyErr_Format(PyExc_ValueError, "%s" {kind} ": the C value is none of the constants",
                     {label});
        {sub["fail"]}
    }}
    Py_XDECREF(py_{name});
    py_{name} = PyLong_FromLong(index_{name});
    if (py_{name} == NULL) {{ {sub["fail"]} }}
}}"""

    def c_code_cache_version(self):
        return (2, super().c_code_cache_version())


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
            raise ValueError(
                f"{other} and {t} share the C name {t.cname!r}; give one of them "
                "another cname so that each has its own C functions"
            )
        if isinstance(t, CEnumType):
            continue
        for name, value in t.items():
            seen = defined.setdefault(name, (value, t))
            if not _same(seen[0], value):
                raise ValueError(
                    f"the C constant {name} is {seen[0]} in {seen[1]} but {value} "
                    f"in {t}; one C module cannot define both"
                )
