"""``typechecked`` and ``jaxtyped``: the decorators users write (layer 6: runtime).

``typechecked`` compiles a function's whole signature once into one generated
check function (see ``_codegen``); sizes bind across all parameters and the
return value in one scope per call. It also takes methods, ``classmethod``,
``staticmethod``, ``property``, generators, async generators, coroutines,
classes (each method) and dataclasses (their fields after ``__init__``; with
``check_assignment=True`` every later assignment too).

``jaxtyped`` accepts jaxtyping's call forms:

- ``@jaxtyped`` / ``jaxtyped(fn)``: this package's checker, also stacked on a
  function another checker already wrapped (jaxtyping's old style); it warns,
  as jaxtyping does, that ``typechecker=`` is preferred (``@typechecked`` is
  the same without the warning);
- ``@jaxtyped(typechecker=beartype)``, ``@jaxtyped(typechecker=typeguard.typechecked)``:
  that checker, inside one dimension scope per call, with our messages;
- ``@jaxtyped(typechecker=None)``: a dimension scope only, for ``isinstance``;
- ``with jaxtyped("context"):``: a dimension scope around a block.

With ``TENSORTYPES_DISABLE=1`` (or ``JAXTYPING_DISABLE=1``) at import, or
``config.disable`` set before decorating, every decorator returns the function
itself.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import inspect
import warnings
from typing import Any

from tensortypes._config import config
from tensortypes.annotate import scope
from tensortypes.errors import AnnotationError
from tensortypes.runtime._checkerspec import resolve_checker_text
from tensortypes.runtime._codegen import compile_checker
from tensortypes.runtime._dataclass import check_dataclass
from tensortypes.runtime.scopes import DRIVERS
from tensortypes.runtime._external import external_checker, scope_only
from tensortypes.runtime._plan import Unresolved, defining_locals, make_plan
from tensortypes.runtime._reuse import keep, lookup, rewrap, stand_in, template_of

__all__ = ["typechecked", "jaxtyped"]

_SENTINEL = object()
# jaxtyping's words (its users' tests match them), for its old double-decorator form.
_OLD_STYLE = (
    "As of jaxtyping version 0.2.24, jaxtyping now prefers the syntax\n"
    "    @jaxtyped(typechecker=typechecker)\n    def foo(...):\n"
    "and the old double-decorator syntax\n"
    "    @jaxtyped\n    @typechecker\n    def foo(...):\n"
    "should no longer be used. (It still works: tensortypes checks the function with "
    "its own checker, around the other one if there is one; @typechecked, or "
    "@jaxtyped(typechecker=tensortypes.typechecked), says so without this warning.)"
)


def _apply(obj: Any, wrap: Any, on_class: Any) -> Any:
    """Decorate a function, a descriptor of one, or a class, with ``wrap``."""
    if isinstance(obj, classmethod):
        return classmethod(_apply(obj.__func__, wrap, on_class))
    if isinstance(obj, staticmethod):
        return staticmethod(_apply(obj.__func__, wrap, on_class))
    if isinstance(obj, property):
        return property(
            *(
                None if f is None else _apply(f, wrap, on_class)
                for f in (obj.fget, obj.fset, obj.fdel)
            ),
            obj.__doc__,
        )
    if getattr(obj, "__no_type_check__", False):
        return obj
    if inspect.isclass(obj):
        return on_class(obj)
    if not callable(obj) or not hasattr(obj, "__code__") and not hasattr(obj, "__wrapped__"):
        raise TypeError(f"cannot check {obj!r}: not a function, method, property or class")
    return wrap(obj)


def _compile(fn: Any, lenient: bool = False) -> Any:
    """The checked wrapper of a function (deferred to its first call when a string
    annotation names something not defined yet). With ``lenient`` (the import hook),
    an annotation whose evaluation raises is left unchecked with a warning."""
    if getattr(fn, "__tensortypes_checker__", None) is not None or getattr(
        fn, "__tensortypes_deferred__", False
    ):
        return fn
    template = lookup(fn)
    if template is not None:  # a nested function defined again: its check is compiled
        return rewrap(template, fn)
    stub = stand_in(fn)
    if stub is not None:
        try:
            plan = make_plan(stub)
        except (Unresolved, AnnotationError):
            pass  # the general path below says it
        else:
            template = template_of(compile_checker(plan, DRIVERS).wrapper, stub)
            if template is not None:
                keep(fn, template, stub=stub)
                return rewrap(template, fn)
    try:
        try:
            plan = make_plan(fn, lenient=lenient)
        except Unresolved:
            localns = defining_locals(fn)
            try:
                plan = make_plan(fn, localns, lenient=lenient)
            except Unresolved:
                return _deferred(fn, localns, lenient)
    except AnnotationError as error:
        if not getattr(error, "deferred", False):
            raise
        return _refused(fn, error)
    return compile_checker(plan, DRIVERS).wrapper


def _refused(fn: Any, error: AnnotationError) -> Any:
    """A function whose annotation may be written but not checked (``PyTree[...]``
    with '?' sizes and no structure name): each call raises the error, as jaxtyping
    raises it when it checks."""

    @functools.wraps(fn)
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AnnotationError(str(error))

    refused.__tensortypes_deferred__ = True
    return refused


def _deferred(fn: Any, localns: dict | None, lenient: bool = False) -> Any:
    """``fn`` checked from its first call on. An annotation naming something still
    undefined then (a class being defined, a module the file never imports) is
    unchecked (``Any``, as jaxtyping leaves it to its checker, which reads it so)
    until that name is defined: each call looks it up and compiles the whole
    check once it is."""
    state: list = []  # the wrapper checking everything, once every name resolves
    partial: list = []  # [wrapper with some parts unchecked, the names they lack]

    def compiled() -> Any:
        if state:
            return state[0]
        if partial and not _defined_now(fn, partial[1]):
            return partial[0]
        missing: list = []
        plan = make_plan(fn, localns, missing, lenient)
        if partial and missing == partial[1]:
            return partial[0]
        wrapper = compile_checker(plan, DRIVERS).wrapper
        if missing:
            partial[:] = [wrapper, missing]
        else:
            state.append(wrapper)
            partial.clear()
        return wrapper

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def checked_later(*args: Any, **kwargs: Any) -> Any:
            return await (state[0] if state else compiled())(*args, **kwargs)
    else:

        @functools.wraps(fn)
        def checked_later(*args: Any, **kwargs: Any) -> Any:
            # Once every name resolved, one list read (no call) finds the check.
            return (state[0] if state else compiled())(*args, **kwargs)

    checked_later.__tensortypes_deferred__ = True
    return checked_later


def _defined_now(fn: Any, missing: list) -> bool:
    """Whether one of the names an annotation of ``fn`` lacked may be defined now
    (None: a name not of ``fn``'s module, looked for again at every call)."""
    namespace = getattr(inspect.unwrap(fn), "__globals__", None) or {}
    return any(name is None or name in namespace or hasattr(builtins, name) for name in missing)


def _check_class(cls: type, check_assignment: bool) -> type:
    """Check each method of ``cls``; a dataclass's fields instead of its ``__init__``'s
    parameters (what ``__init__`` leaves behind is what the annotations describe)."""
    dataclass = dataclasses.is_dataclass(cls)
    for name, member in list(vars(cls).items()):
        if name.startswith("__") and name not in ("__init__", "__call__", "__new__"):
            continue
        if dataclass and name == "__init__":
            continue
        if inspect.isfunction(member) or isinstance(member, (classmethod, staticmethod, property)):
            setattr(cls, name, _apply(member, _compile, lambda c: c))
    if dataclass:
        return check_dataclass(cls, _compile, check_assignment)
    return cls


def typechecked(fn: Any = None, *, check_assignment: bool = False) -> Any:
    """Check every call of ``fn`` against its annotations, with sizes bound per call.

    >>> import numpy as np
    >>> @typechecked
    ... def total(x: np.ndarray) -> float:
    ...     return float(x.sum())
    >>> total(np.ones(3))
    3.0
    """
    if fn is None:
        return functools.partial(typechecked, check_assignment=check_assignment)
    if config.disable:
        return fn
    return _apply(fn, _compile, lambda cls: _check_class(cls, check_assignment))


def hook_checked(fn: Any) -> Any:
    """``typechecked`` as the import hook applies it to code its user did not write:
    an annotation that raises when evaluated is left unchecked with an
    ``AnnotationWarning`` instead of stopping the import."""
    if config.disable:
        return fn
    return _apply(
        fn, functools.partial(_compile, lenient=True), lambda cls: _check_class(cls, False)
    )


def resolve_checker(typechecker: Any) -> Any:
    """None for our checker, ``scope_only`` for ``typechecker=None``, else a decorator.

    A string names one (``"beartype.beartype"``) or a call making one
    (``"beartype.beartype(conf=beartype.BeartypeConf(...))"``); it is read with
    ``ast`` and resolved by import now, never evaluated.

    >>> resolve_checker(None) is scope_only, resolve_checker("tensortypes.runtime.typechecked")
    (True, None)
    """
    if typechecker is None:
        return scope_only
    if isinstance(typechecker, str):
        typechecker = resolve_checker_text(typechecker)
    if typechecker is _SENTINEL or typechecker is typechecked or typechecker is jaxtyped:
        return None
    if not callable(typechecker):
        raise TypeError(
            f"typechecker must be a decorator such as beartype.beartype, a "
            f"dotted name of one, or None; got {typechecker!r}"
        )
    return typechecker


def jaxtyped(
    fn: Any = _SENTINEL, *, typechecker: Any = _SENTINEL, check_assignment: bool = False
) -> Any:
    """jaxtyping's decorator: a dimension scope per call, and a type checker.

    ``check_assignment`` (ours, not jaxtyping's): on a dataclass, also check every
    field assignment after construction.

    >>> import numpy as np
    >>> @jaxtyped(typechecker=None)
    ... def f(x):
    ...     return x
    >>> f(np.zeros(2)).shape
    (2,)
    """
    if isinstance(fn, str):
        if fn != "context":
            raise ValueError(
                f"jaxtyped takes a function, a class or the string 'context', got {fn!r}"
            )
        if typechecker is not _SENTINEL:
            raise ValueError(
                "jaxtyped('context') opens a scope for isinstance checks; it "
                "takes no typechecker (there is no function to check)"
            )
        return scope()
    if fn is _SENTINEL:
        return functools.partial(
            jaxtyped, typechecker=typechecker, check_assignment=check_assignment
        )
    if config.disable:
        return fn
    if typechecker is _SENTINEL:
        warnings.warn(_OLD_STYLE, stacklevel=2)
    checker = resolve_checker(typechecker)
    if checker is None:
        return typechecked(fn, check_assignment=check_assignment)
    if checker is scope_only:
        return _apply(fn, scope_only, lambda cls: cls)
    wrap = functools.partial(external_checker, typechecker=checker)
    return _apply(fn, wrap, lambda cls: _external_class(cls, wrap, check_assignment))


def _external_class(cls: type, wrap: Any, check_assignment: bool) -> type:
    if dataclasses.is_dataclass(cls):
        return check_dataclass(cls, wrap, check_assignment)
    return cls
