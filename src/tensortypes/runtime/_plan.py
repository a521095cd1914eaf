"""A function's signature read once into what the checker must check (layer 6: runtime).

:func:`make_plan` resolves the annotations (strings and forward references
through the function's globals; ``NameError`` is deferred to the first call),
converts each with ``types.ann_to_type`` (the one converter), and records per
parameter its kind, default, annotation, lattice type and the label messages
use. Generator and coroutine functions get the types of what they yield, accept
and return (``Iterator[Y]``, ``Generator[Y, S, R]``, ``AsyncIterator[Y]``).

An annotation that does not convert is an ``AnnotationError`` naming the
function and the parameter; nothing is silently left unchecked.
"""

from __future__ import annotations

import collections.abc as abc
import inspect
import keyword
import sys
import types
import typing
import unicodedata
import warnings
from typing import Any

from tensortypes.annotate import annotation_matchers
from tensortypes.errors import AnnotationError, AnnotationWarning
from tensortypes.types import ANY, AbcType, ann_to_type
from tensortypes.runtime._messages import function_label, where_defined

__all__ = ["Param", "Plan", "make_plan", "Unresolved", "FLAVORS", "defining_locals"]

FLAVORS = ("function", "coroutine", "generator", "asyncgen")

_EMPTY = inspect.Parameter.empty
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_YIELDING = {
    "generator": {abc.Generator: 3, abc.Iterator: 1, abc.Iterable: 1},
    "asyncgen": {abc.AsyncGenerator: 2, abc.AsyncIterator: 1, abc.AsyncIterable: 1},
}


class Unresolved(Exception):
    """A string annotation names something not defined yet (resolved at the first call)."""


class Param:
    """One parameter: name, kind, default, annotation and lattice type."""

    __slots__ = ("name", "kind", "default", "ann", "type", "checked")

    def __init__(self, name: str, kind: Any, default: Any, ann: Any, t: Any):
        self.name = name
        self.kind = kind
        self.default = default
        self.ann = ann
        self.type = t
        self.checked = ann is not _EMPTY and t is not ANY

    def __repr__(self) -> str:
        return f"Param({self.name!r}, {self.type})"


class Plan:
    """Everything the generated check of one function needs to know.

    ``flavor`` is one of ``FLAVORS``; ``ret`` the lattice type of the return
    value (of what a generator returns; of what a coroutine's await gives), or
    None when unchecked; ``yields``/``sends`` the types of what a generator
    yields and is sent (None when unchecked).
    """

    __slots__ = (
        "fn",
        "label",
        "where",
        "params",
        "ret",
        "ret_ann",
        "yields",
        "sends",
        "flavor",
        "names",
        "role",
        "overrides",
    )

    def __init__(
        self,
        fn: Any,
        params: list,
        ret: Any,
        ret_ann: Any,
        flavor: str,
        yields: Any = None,
        sends: Any = None,
    ):
        self.fn = fn
        self.label = function_label(fn)
        self.where = where_defined(fn)
        self.params = tuple(params)
        self.ret = ret
        self.ret_ann = ret_ann
        self.flavor = flavor
        self.yields = yields
        self.sends = sends
        self.names = tuple(p.name for p in self.params)
        # "parameter", or "field" for the generated check of a dataclass's fields, or a
        # dict naming some of them ("assignment to field" for the field just assigned).
        self.role = getattr(fn, "__tensortypes_role__", "parameter")
        self.overrides = _template_matchers(fn, [p.ann for p in self.params] + [ret_ann])

    def role_of(self, name: str) -> str:
        """What messages call parameter ``name``: ``parameter``, ``field`` or
        ``assignment to field``."""
        role = self.role
        return role if isinstance(role, str) else role.get(name, "field")

    @property
    def checked_params(self) -> tuple:
        """The parameters with an annotation to check."""
        return tuple(p for p in self.params if p.checked)


def _template_matchers(fn: Any, annotations: list) -> dict | None:
    """The matchers of the array annotations with ``{...}`` sizes in ``annotations``:
    their lattice type knows such a size only as ``_``, their own matcher resolves it
    per call. None when there are none."""
    found: dict = {}
    for ann in annotations:
        try:
            annotation_matchers(ann, found)
        except AnnotationError as error:
            raise AnnotationError(
                f"cannot check {function_label(fn)} ({where_defined(fn)}): {error}"
            ) from None
    return {t: m for t, m in found.items() if m.templated} or None


def flavor_of(fn: Any) -> str:
    """``"function"``, ``"coroutine"``, ``"generator"`` or ``"asyncgen"``.

    >>> def g(): yield 1
    >>> flavor_of(g)
    'generator'
    """
    if inspect.isasyncgenfunction(fn):
        return "asyncgen"
    if inspect.iscoroutinefunction(fn):
        return "coroutine"
    if inspect.isgeneratorfunction(fn):
        return "generator"
    return "function"


def _what(name: str) -> str:
    return "the return value" if name == "return" else f"parameter {name}"


def _hints(
    fn: Any, localns: dict | None, missing: list | None = None, lenient: bool = False
) -> dict:
    """The function's annotations with strings evaluated (one by one, so that an error
    names its parameter) in its globals and ``localns``; ``Unresolved`` on a name not
    defined yet (with ``missing``, that annotation is left out and the name, or None
    when not known, appended to it). An annotation whose evaluation raises anything
    else is an ``AnnotationError``; with ``lenient`` (the import hook, checking code
    its user did not write) it is left out with an ``AnnotationWarning`` instead."""
    raw = dict(getattr(fn, "__annotations__", None) or {})
    if not any(isinstance(a, (str, typing.ForwardRef)) for a in raw.values()):
        return raw
    globalns = getattr(inspect.unwrap(fn), "__globals__", None) or {}
    shim = types.FunctionType(_SHIM_CODE, globalns)
    out = {}
    for name, ann in raw.items():
        shim.__annotations__ = {"x": ann}
        try:
            out[name] = typing.get_type_hints(shim, None, localns, include_extras=True)["x"]
        except NameError as error:
            if missing is None:
                raise Unresolved(str(error)) from None
            missing.append(getattr(error, "name", None))
        except Exception as error:  # noqa: BLE001 (an annotation's own code may raise anything)
            message = (
                f"cannot check {_what(name)} of {function_label(fn)} "
                f"({where_defined(fn)}): cannot evaluate {ann!r}: "
                f"{type(error).__name__}: {error}"
            )
            if not lenient or isinstance(error, AnnotationError):
                # Our own error (a malformed shape string) is the author's to fix.
                raise AnnotationError(message) from None
            _warn_unchecked(message)
    return out


def _warn_unchecked(message: str) -> None:
    """Say once per annotation that the import hook left it unchecked."""
    if message in _WARNED:
        return
    _WARNED.add(message)
    warnings.warn(
        f"{message}; left unchecked (the rest of the function is checked)",
        AnnotationWarning,
        stacklevel=2,
    )


_WARNED: set[str] = set()


_SHIM_CODE = (lambda: None).__code__


def _convert(fn: Any, what: str, ann: Any, missing: list | None = None) -> Any:
    try:
        return ann_to_type(ann)
    except AnnotationError as error:
        if getattr(error, "unresolved", None):
            # A forward reference inside the annotation (a TypeVar's bound="Module",
            # "type[_ModuleT]" in the class body): resolved at the first call.
            if missing is None:
                raise Unresolved(str(error)) from None
            # Named in some other module's namespace (a TypeVar's): not known where.
            missing.append(None)
            return ANY
        wrapped = AnnotationError(
            f"cannot check {what} of {function_label(fn)} ({where_defined(fn)}): {error}"
        )
        if getattr(error, "deferred", False):
            wrapped.deferred = True  # an annotation refused when checked, not written
        raise wrapped from None
    except TypeError as error:
        raise AnnotationError(
            f"cannot check {what} of {function_label(fn)} "
            f"({where_defined(fn)}): annotation {ann!r}: {error}"
        ) from None


def _check_name(fn: Any, name: str) -> str:
    # Names reach generated source: only identifiers pass, and only in the NFKC form
    # Python reads them in (a signature made by hand may hold "ﬁ" beside "fi").
    if not name.isidentifier() or keyword.iskeyword(name):
        raise AnnotationError(
            f"{function_label(fn)} has a parameter named {name!r}, which is not an identifier"
        )
    if not name.isascii() and unicodedata.normalize("NFKC", name) != name:
        raise AnnotationError(
            f"{function_label(fn)} has a parameter named {name!r}, which "
            f"Python reads as "
            f"{unicodedata.normalize('NFKC', name)!r} in source"
        )
    return name


def _split_yields(fn: Any, flavor: str, ret_t: Any) -> tuple[Any, Any, Any]:
    """``(yields, sends, returns)`` of a generator's return annotation."""
    if ret_t is None or ret_t is ANY:
        return None, None, None
    if type(ret_t) is not AbcType or ret_t.origin not in _YIELDING[flavor]:
        raise AnnotationError(
            f"cannot check the return annotation of {function_label(fn)} "
            f"({where_defined(fn)}): a {'generator' if flavor == 'generator' else 'async generator'}"
            f" function is annotated with what it yields, e.g. "
            f"{'Iterator[int] or Generator[int, None, None]' if flavor == 'generator' else 'AsyncIterator[int]'}"
            f", got {ret_t}"
        )
    args = ret_t.args
    yields = args[0] if args and args[0] is not ANY else None
    sends = args[1] if len(args) > 1 and args[1] is not ANY else None
    returns = args[2] if len(args) > 2 and args[2] is not ANY else None
    return yields, sends, returns


def defining_locals(fn: Any) -> dict | None:
    """The local names of the scope that defined ``fn`` (a function or class body),
    found on the stack at decoration time; None when it is not there.

    String annotations may name things only that scope knows (``from __future__
    import annotations`` in a function that imports ``torch`` locally).
    """
    code = getattr(inspect.unwrap(fn), "__code__", None)
    # A generated function (a dataclass's field check) was defined by no frame: the
    # scope that applied the decorator to the class is the one that knows its names.
    generated = hasattr(fn, "__tensortypes_role__")
    frame = sys._getframe(1)
    while frame is not None:
        if generated:
            if not frame.f_globals.get("__name__", "").startswith(_OURS):
                return dict(frame.f_locals)
        elif code is not None and code in frame.f_code.co_consts:
            return dict(frame.f_locals)
        frame = frame.f_back
    return None


_OURS = ("tensortypes.runtime", "dataclasses", "functools")


def make_plan(
    fn: Any, localns: dict | None = None, missing: list | None = None, lenient: bool = False
) -> Plan:
    """Read ``fn``'s signature and annotations into a :class:`Plan`.

    String annotations are evaluated in ``fn``'s globals and ``localns`` (the
    names of the scope that defined it, when the decorator could find them).

    Raises ``Unresolved`` when a string annotation names something undefined
    (the caller retries at the first call) and ``AnnotationError`` for an
    annotation that cannot be checked. Given a list ``missing``, an annotation
    naming something undefined is left unchecked instead (``Any``) and the name
    (None when it is not a name of ``fn``'s globals) appended to ``missing``.
    With ``lenient``, an annotation whose evaluation raises is left unchecked with
    an ``AnnotationWarning`` (see ``_hints``).

    >>> def f(x: int, *, y: "list[str]" = ()) -> float: ...
    >>> p = make_plan(f)
    >>> [(q.name, str(q.type)) for q in p.params], str(p.ret)
    ([('x', 'int'), ('y', 'List[str]')], 'float')
    """
    hints = _hints(fn, localns, missing, lenient)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as error:
        raise TypeError(f"cannot read the signature of {fn!r}: {error}") from None
    params = []
    for p in signature.parameters.values():
        name = _check_name(fn, p.name)
        ann = hints.get(p.name, _EMPTY)
        t = ANY if ann is _EMPTY else _convert(fn, f"parameter {name}", ann, missing)
        params.append(Param(name, p.kind, p.default, ann, t))
    flavor = flavor_of(fn)
    ret_ann = hints.get("return", _EMPTY)
    ret = None if ret_ann is _EMPTY else _convert(fn, "the return value", ret_ann, missing)
    if ret is ANY:
        ret = None
    if flavor in ("generator", "asyncgen"):
        yields, sends, ret = _split_yields(fn, flavor, ret)
        return Plan(fn, params, ret, ret_ann, flavor, yields, sends)
    return Plan(fn, params, ret, ret_ann, flavor)
