"""Names and literals that reach C source (layer 6, ``link``).

Every identifier, type name and literal that the C back end writes into
generated source passes through this module, so nothing a user supplies can
break out of the place it was meant for: identifiers and C type names are
validated, strings are escaped, numbers are printed exactly (``repr`` of a
float round-trips; infinities and NaN become ``HUGE_VAL``/``NAN``).

The tables map NumPy dtype names to the names of NumPy's C API: the element
type (``npy_float64``) and the type number (``NPY_FLOAT64``).
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = [
    "C_KEYWORDS",
    "DTYPE_CTYPE",
    "DTYPE_TYPENUM",
    "check_identifier",
    "check_ctype",
    "c_string",
    "c_format",
    "c_number",
    "indent",
]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

C_KEYWORDS = frozenset(
    """
auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic
_Generic _Noreturn _Static_assert _Thread_local
""".split()
)

# Words a C type name may be made of besides identifiers: qualifiers and base types.
_TYPE_WORDS = frozenset(
    """
const volatile restrict struct union enum signed unsigned short long int char float double
void _Bool _Complex
""".split()
)

DTYPE_CTYPE = {
    "bool": "npy_bool",
    "int8": "npy_int8",
    "int16": "npy_int16",
    "int32": "npy_int32",
    "int64": "npy_int64",
    "uint8": "npy_uint8",
    "uint16": "npy_uint16",
    "uint32": "npy_uint32",
    "uint64": "npy_uint64",
    "float16": "npy_float16",
    "float32": "npy_float32",
    "float64": "npy_float64",
    "complex64": "npy_complex64",
    "complex128": "npy_complex128",
}
"""dtype name -> the C element type of NumPy's API (Theano's type interface: int64 is ``npy_int64``)."""

DTYPE_TYPENUM = {name: "NPY_" + name.upper() for name in DTYPE_CTYPE}
"""dtype name -> the type number macro of NumPy's API (``NPY_FLOAT64``)."""


def check_identifier(name, what: str = "C identifier", keywords: bool = False) -> str:
    """Return ``name`` if it is a valid C identifier that is not a keyword, else raise.

    With ``keywords``, a C keyword passes too (for a name only ever used as a
    suffix, such as an enum's ``cname`` ``int``). Raises TypeError for a non-str
    and ValueError for a bad name.

    >>> check_identifier("my_enum_1")
    'my_enum_1'
    """
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__} {name!r}")
    if not _IDENT.match(name) or (name in C_KEYWORDS and not keywords):
        raise ValueError(
            f"{what} {name!r} is not a valid C identifier (letters, digits and "
            "underscores, not starting with a digit, not a C keyword)"
        )
    return name


def check_ctype(ctype, what: str = "C type", pointer: bool | None = None) -> str:
    """Return ``ctype`` normalised (single spaces) if it reads as a C type name.

    A C type here is words (identifiers or C type keywords) optionally followed
    by ``*``s: ``"unsigned long long"``, ``"struct foo *"``, ``"my_t"``. With
    ``pointer=True`` at least one ``*`` is required; with ``False`` none is
    allowed. Anything else (braces, semicolons, parentheses) is a ValueError.

    >>> check_ctype("unsigned   long")
    'unsigned long'
    >>> check_ctype("struct foo*", pointer=True)
    'struct foo *'
    """
    if not isinstance(ctype, str):
        raise TypeError(f"{what} must be a str, got {type(ctype).__name__} {ctype!r}")
    text = ctype.strip()
    stars = len(text) - len(text.rstrip("* \t"))
    base, tail = text[: len(text) - stars].strip(), text[len(text) - stars :]
    nstars = tail.count("*")
    words = base.split()
    if (
        not words
        or any(not _IDENT.match(w) for w in words)
        or any(w in C_KEYWORDS and w not in _TYPE_WORDS for w in words)
        or tail.replace("*", "").strip()
    ):
        raise ValueError(
            f"{what} {ctype!r} is not a C type name (words such as "
            "'unsigned long' or 'my_struct', optionally followed by '*')"
        )
    if pointer is True and nstars == 0:
        raise ValueError(f"{what} {ctype!r} must be a pointer type (ending with '*')")
    if pointer is False and nstars:
        raise ValueError(f"{what} {ctype!r} must not be a pointer type")
    return " ".join(words) + (" " + "*" * nstars if nstars else "")


def c_string(text: str) -> str:
    """A C string literal for ``text`` (UTF-8, every unusual byte escaped).

    >>> print(c_string('say "hi"\\n'))
    "say \\"hi\\"\\n"
    """
    out = ['"']
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif 32 <= byte < 127 and ch != "?":  # '?' could start a trigraph
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def c_format(text: str) -> str:
    """A C string literal of ``text`` for use inside a ``printf``-style format (``%`` doubled).

    >>> print(c_format("100% sure"))
    "100%% sure"
    """
    return c_string(text.replace("%", "%%"))


def c_number(value, ctype: str = "double") -> str:
    """A C literal for a Python or NumPy number, exact, cast to ``ctype``.

    Booleans become ``0``/``1``; floats print with ``repr`` (exact round trip),
    infinities as ``HUGE_VAL`` and NaN as ``NAN`` (both from ``<math.h>``).

    >>> c_number(0.1), c_number(True, "npy_bool"), c_number(-3, "npy_int64")
    ('((double)0.1)', '((npy_bool)1)', '((npy_int64)-3LL)')
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        text = "1" if value else "0"
    elif isinstance(value, int):
        if not -(1 << 63) <= value < (1 << 64):
            raise ValueError(f"{value} does not fit a 64-bit C integer")
        if value == -(1 << 63):
            text = "(-9223372036854775807LL - 1)"
        elif value >= (1 << 63):
            text = f"{value}ULL"
        else:
            text = f"{value}LL"
    elif isinstance(value, float):
        if math.isnan(value):
            text = "NAN"
        elif math.isinf(value):
            text = "HUGE_VAL" if value > 0 else "(-HUGE_VAL)"
        else:
            text = repr(value)
    else:
        raise TypeError(f"c_number takes a bool, int or float, got {type(value).__name__}")
    return f"(({ctype}){text})"


def indent(code: str, prefix: str = "    ") -> str:
    """Indent every non-empty line of ``code`` by ``prefix`` (for readable generated C).

    >>> indent("a;\\nb;")
    '    a;\\n    b;'
    """
    return "\n".join(prefix + line if line.strip() else line for line in code.split("\n"))
