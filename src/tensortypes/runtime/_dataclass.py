"""Checked dataclasses: fields after ``__init__``, and optionally every assignment
(layer 6: runtime).

As in jaxtyping, what is checked is the object ``__init__`` leaves behind (so a
``__post_init__`` that converts a field is checked after converting): a
function whose parameters are the fields, with the fields' annotations, is
generated once, decorated by the checker (ours, or another one inside our
scope) and called with the field values when the outermost ``__init__``
returns. Its code carries the class's file and line, so messages point at the
class. Fields not set by then (``field(init=False)`` left for later) are not
checked, as jaxtyping does. An ``InitVar`` pseudo-field (given to ``__init__`` and
``__post_init__``, never stored) is checked with the fields, from the arguments of
that call, against the type inside ``InitVar[...]``: jaxtyping checks it as a
parameter of ``__init__``.

With ``check_assignment=True``, assigning a field after construction checks the
whole object again with the new value (sizes must still agree with the other
fields) and restores the old value when the check fails.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword
import operator
import sys
import types
from typing import Any

from tensortypes.errors import TypeCheckError

__all__ = ["check_dataclass"]

_MISSING = object()


def _location(cls: type) -> tuple[str, int]:
    try:
        lines, first = inspect.getsourcelines(cls)
        return inspect.getsourcefile(cls) or "?", first
    except (OSError, TypeError):
        module = sys.modules.get(cls.__module__)
        return getattr(module, "__file__", None) or cls.__module__, 1


def _field_function(
    cls: type, names: tuple, assigned: str | None = None, initvars: dict | None = None
) -> Any:
    """``def Cls(self, a, b): return None`` with the fields' annotations, in the class's
    module (for string annotations) and at the class's place in the source.

    With ``assigned``, that field is the last parameter (the other fields bind the
    sizes first, so a disagreement blames the new value) and messages call it
    "assignment to field ...". ``initvars`` maps the ``InitVar`` names, parameters
    after the fields, to their types."""
    initvars = initvars or {}
    if assigned is not None:
        names = tuple(n for n in names if n != assigned) + (assigned,)
    annotations: dict = {}
    for base in reversed(cls.__mro__):
        annotations.update(base.__dict__.get("__annotations__", {}))
    annotations.update(_init_annotations(cls, names))
    annotations.update(initvars)
    names = names + tuple(initvars)
    for name in names:
        if not name.isidentifier() or keyword.iskeyword(name):  # it reaches source code
            raise TypeError(
                f"dataclass {cls.__qualname__} has a field named {name!r}, "
                "which is not an identifier"
            )
    namespace: dict = {}
    # The instance comes first, under a name no field can have (fields are not dunder).
    source = f"def fields(__instance__, {', '.join(names)}):\n    return None\n"
    exec(compile(source, "<tensortypes fields>", "exec", dont_inherit=True), namespace)  # noqa: S102
    code = namespace["fields"].__code__
    namespace.clear()  # the function and its globals form a cycle: leave no garbage
    filename, line = _location(cls)
    code = code.replace(
        co_filename=filename,
        co_firstlineno=line,
        co_name=cls.__name__,
        co_qualname=cls.__qualname__,
    )
    module = sys.modules.get(cls.__module__)
    made = types.FunctionType(code, vars(module) if module is not None else {}, cls.__name__)
    made.__qualname__ = cls.__qualname__
    made.__module__ = cls.__module__
    made.__annotations__ = {n: annotations[n] for n in names if n in annotations}
    made.__tensortypes_role__ = "field" if assigned is None else {assigned: "assignment to field"}
    return made


def _init_annotations(cls: type, names: tuple) -> dict:
    """The annotations the dataclass's generated ``__init__`` gives its fields, where
    they differ from the fields' own: equinox writes there what a field's converter
    accepts (``eqx.field(converter=jnp.asarray)`` takes any value), and the field
    holds that value until the converter runs, after ``__init__``. jaxtyping checks
    ``__init__``'s parameters, so these are what it checks too."""
    init = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    params = getattr(cls, "__dataclass_params__", None)
    # Only the __init__ that dataclasses wrote (a hand-written one's parameters need
    # not be the fields).
    generated = (
        code is not None and code.co_filename == "<string>" and getattr(params, "init", False)
    )
    given = (getattr(init, "__annotations__", None) or {}) if generated else {}
    out = {n: given[n] for n in names if n in given}
    # A field with a converter holds what __init__ was given until the converter
    # runs: after a hand-written __init__ that is anything.
    for f in dataclasses.fields(cls):
        if f.name in names and f.name not in out and "converter" in (f.metadata or {}):
            out[f.name] = Any
    return out


def _initvars(cls: type) -> dict:
    """The ``InitVar`` pseudo-fields of ``cls``, name -> the type inside (or the string
    annotation, ``"InitVar[int]"`` under postponed annotations, which the checker
    evaluates); only when ``__init__`` is the one dataclasses wrote and takes them all
    (a hand-written ``__init__`` need not)."""
    out = {}
    marker = getattr(dataclasses, "_FIELD_INITVAR", None)  # how dataclasses marks them
    for name, f in getattr(cls, "__dataclass_fields__", {}).items():
        if isinstance(f.type, dataclasses.InitVar):
            out[name] = f.type.type
        elif marker is not None and getattr(f, "_field_type", None) is marker:
            out[name] = f.type
    if not out or not getattr(getattr(cls, "__dataclass_params__", None), "init", False):
        return {}
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return {}
    return out if all(n in params for n in out) else {}


def _getter(names: tuple) -> Any:
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda obj: (get(obj),)
    return operator.attrgetter(*names)


class _FieldChecks:
    """The checks of one dataclass: all fields, or (rarely) the ones set so far."""

    __slots__ = (
        "cls",
        "names",
        "wrap",
        "full",
        "get",
        "partial",
        "assigned",
        "initvars",
        "signature",
    )

    def __init__(self, cls: type, wrap: Any):
        self.cls = cls
        self.names = tuple(f.name for f in dataclasses.fields(cls))
        self.initvars = _initvars(cls)
        self.signature: Any = None  # of the checked __init__, read at the first InitVar call
        self.wrap = wrap
        self.full = wrap(_field_function(cls, self.names, initvars=self.initvars))
        self.get = _getter(self.names)
        self.partial: dict = {}
        self.assigned: dict = {}

    def run_assignment(self, obj: Any, name: str) -> None:
        """Check ``obj`` after ``name`` was assigned: the new value is checked last,
        against the sizes the other fields bind, and named as an assignment."""
        present = tuple(n for n in self.names if getattr(obj, n, _MISSING) is not _MISSING)
        key = (present, name)
        check = self.assigned.get(key)
        if check is None:
            check = self.wrap(_field_function(self.cls, present, assigned=name))
            if len(self.assigned) < 256:
                self.assigned[key] = check
        order = tuple(n for n in present if n != name) + (name,)
        check(obj, *(getattr(obj, n) for n in order))

    def run(self, obj: Any, given: tuple = ()) -> None:
        """Check ``obj``'s fields, and ``given``, the values of the ``InitVar``s."""
        try:
            values = self.get(obj)
        except AttributeError:
            present = tuple(n for n in self.names if getattr(obj, n, _MISSING) is not _MISSING)
            check = self.partial.get(present)
            if check is None:
                made = _field_function(self.cls, present, initvars=self.initvars)
                check = self.partial[present] = self.wrap(made)
            check(obj, *(getattr(obj, n) for n in present), *given)
            return
        self.full(obj, *values, *given)

    def initvar_values(self, init: Any, obj: Any, args: tuple, kwargs: dict) -> tuple:
        """The ``InitVar`` arguments of the call ``init(obj, *args, **kwargs)`` (which
        has returned: the arguments bind)."""
        if self.signature is None:
            self.signature = inspect.signature(init)
        bound = self.signature.bind(obj, *args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments[n] for n in self.initvars)


def _unchecked(init: Any, obj: Any) -> bool:
    """Whether ``@no_type_check`` was put on the class (or its ``__init__``) after
    the check was added."""
    return bool(
        init.__dict__.get("__no_type_check__") or getattr(type(obj), "__no_type_check__", False)
    )


def check_dataclass(cls: type, wrap: Any, check_assignment: bool) -> type:
    """Check the fields of ``cls``'s instances after ``__init__`` (and, if asked, on
    every assignment); returns ``cls`` itself, modified in place.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class P:
    ...     x: int
    >>> P = check_dataclass(P, lambda f: f, False)
    >>> P(1).x
    1
    """
    checks = _FieldChecks(cls, wrap)
    init = cls.__init__
    # Read once: a class without InitVars (nearly all) pays one local test per object.
    initvars, initvar_values = bool(checks.initvars), checks.initvar_values
    building: set = set()

    if check_assignment:

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            building.add(id(self))
            try:
                init(self, *args, **kwargs)
            finally:
                building.discard(id(self))
            if type(self).__init__ is __init__:
                checks.run(self, initvar_values(init, self, args, kwargs) if initvars else ())
    else:

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            # Only the outermost __init__ checks: a subclass's __init__ calling this one
            # through super() has not set its own fields yet.
            if type(self).__init__ is __init__ and not _unchecked(__init__, self):
                checks.run(self, initvar_values(init, self, args, kwargs) if initvars else ())

    # The function itself, not another checker's wrapper of it: one level, as
    # jaxtyping leaves it (inspect.signature reads the same either way).
    __init__.__wrapped__ = inspect.unwrap(init)
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(__init__, attr, getattr(init, attr, None))
    cls.__init__ = __init__
    if check_assignment:
        _check_assignments(cls, checks, building)
    return cls


def _check_assignments(cls: type, checks: _FieldChecks, building: set) -> None:
    setter = cls.__setattr__
    fields = frozenset(checks.names)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if name not in fields or id(self) in building:
            setter(self, name, value)
            return
        old = getattr(self, name, _MISSING)
        setter(self, name, value)
        try:
            checks.run_assignment(self, name)
        except TypeCheckError:
            if old is _MISSING:
                object.__delattr__(self, name)
            else:
                setter(self, name, old)
            raise

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    cls.__setattr__ = __setattr__
