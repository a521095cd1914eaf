"""Another checker inside our scope: ``jaxtyped(typechecker=beartype)`` and friends
(layer 6: runtime).

As jaxtyping does, the other checker (beartype, typeguard 2.x's ``typechecked``,
any decorator that raises on a bad call) decorates two generated functions with
the wrapped function's annotations: one taking its parameters, one taking the
return value. Each call opens a fresh dimension scope, runs the first, calls the
function (awaiting a coroutine, so the return annotation is checked against
what it gives, not the coroutine object), then runs the second in the same
scope. The array annotations' ``isinstance`` reads and extends that scope, so
sizes bind across parameters whichever checker asks.

When the other checker objects, the error is ours: the general checker finds
the parameter and the reason where it can, and the first line of the other
checker's own words stands in where it cannot.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
import unicodedata
from typing import Any

from tensortypes.annotate import SCOPE, Bindings, forget_frames, scope
from tensortypes.annotate._scope import FRAMES, register
from tensortypes.annotate._interpret import ISINSTANCE_LABEL
from tensortypes.errors import AnnotationError, TypeCheckError
from tensortypes.runtime.scopes import drive_asyncgen, drive_generator
from tensortypes.runtime._plan import defining_locals, make_plan
from tensortypes.runtime._reuse import keep, lookup, stand_in
from tensortypes.runtime._messages import first_line, format_error, function_label, where_defined
from tensortypes.runtime._walk import why

__all__ = ["scope_only", "external_checker"]

_P = inspect.Parameter


class _NoTypes:
    """A stand-in checker for generators run in a bare scope: nothing to check."""

    __slots__ = ()

    class plan:  # noqa: N801 (read as checker.plan by the drivers)
        yields = sends = ret = overrides = None


def _arguments(signature: inspect.Signature, args: tuple, kwargs: dict) -> dict:
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def scope_only(fn: Any) -> Any:
    """``jaxtyped(typechecker=None)``: each call of ``fn`` runs in a fresh scope.

    >>> @scope_only
    ... def f(x):
    ...     return x
    >>> f(3)
    3
    """
    signature = inspect.signature(fn)
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        drive = drive_asyncgen if inspect.isasyncgenfunction(fn) else drive_generator

        @functools.wraps(fn)
        def scoped_generator(*args: Any, **kwargs: Any) -> Any:
            bindings = Bindings(_arguments(signature, args, kwargs))
            return drive(fn(*args, **kwargs), _NoTypes, bindings, ())

        return scoped_generator
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def scoped_coroutine(*args: Any, **kwargs: Any) -> Any:
            with scope(_arguments(signature, args, kwargs)):
                return await fn(*args, **kwargs)

        return scoped_coroutine

    @functools.wraps(fn)
    def scoped(*args: Any, **kwargs: Any) -> Any:
        with scope(_arguments(signature, args, kwargs)):
            return fn(*args, **kwargs)

    return scoped


def _parameter_list(params: list, fn: Any, namespace: dict, annotated: bool) -> str:
    """Source of a parameter list like ``fn``'s (annotations read from ``namespace``
    as ``_a<i>`` when ``annotated``, defaults always as ``_d<i>``, both put there)."""
    pieces, star = [], False
    for i, p in enumerate(params):
        if not p.name.isascii() and unicodedata.normalize("NFKC", p.name) != p.name:
            # In source "ﬁ" reads as "fi": the copy would not have the same parameters.
            raise AnnotationError(
                f"{function_label(fn)} has a parameter named {p.name!r}, "
                f"which Python reads as "
                f"{unicodedata.normalize('NFKC', p.name)!r} in source"
            )
        ann = "" if p.annotation is _P.empty or not annotated else f": _a{i}"
        default = "" if p.default is _P.empty else f" = _d{i}"
        namespace[f"_a{i}"], namespace[f"_d{i}"] = p.annotation, p.default
        if p.kind is _P.VAR_POSITIONAL:
            pieces.append(f"*{p.name}{ann}")
            star = True
        elif p.kind is _P.VAR_KEYWORD:
            pieces.append(f"**{p.name}{ann}")
        else:
            if p.kind is _P.KEYWORD_ONLY and not star:
                pieces.append("*")
                star = True
            pieces.append(f"{p.name}{ann}{default}")
        if p.kind is _P.POSITIONAL_ONLY and (
            i + 1 == len(params) or params[i + 1].kind is not _P.POSITIONAL_ONLY
        ):
            pieces.append("/")
    return ", ".join(pieces)


def _made(name: str, params: str, body: str, namespace: dict, fn: Any) -> Any:
    source = f"def {name}({params}):\n    {body}\n"
    # dont_inherit: this module's ``from __future__ import annotations`` would turn
    # the annotations into strings.
    exec(compile(source, f"<tensortypes {name}>", "exec", dont_inherit=True), namespace)  # noqa: S102
    made = namespace[name]
    _named_as(made, fn)
    return made


def _named_as(made: Any, fn: Any) -> None:
    """Name ``made`` as ``fn``: the other checker's own message (the cause of ours)
    then says ``Function model.loss() parameter y=...``, not our helper's name."""
    made.__module__ = getattr(fn, "__module__", None) or __name__
    for attribute in ("__name__", "__qualname__"):
        name = getattr(fn, attribute, None)
        if isinstance(name, str):
            setattr(made, attribute, name)


def _signature_function(name: str, params: list, fn: Any) -> Any:
    """A function with these parameters and annotations whose body does nothing, for
    the other checker to decorate (beartype reads the real annotations of real code)."""
    namespace: dict = {}
    return _made(name, _parameter_list(params, fn, namespace, True), "return None", namespace, fn)


def _binder(signature: inspect.Signature, fn: Any) -> Any:
    """A function taking ``fn``'s arguments and returning them by name, defaults
    filled in: ``signature.bind`` and ``apply_defaults`` at the cost of one plain
    call (Python's own argument binding). A bad call raises the ``TypeError`` that
    calling ``fn`` would, naming ``fn``.

    >>> def f(x, /, y=2, *rest, z, **kw): ...
    >>> _binder(inspect.signature(f), f)(1, z=3)
    {'x': 1, 'y': 2, 'rest': (), 'z': 3, 'kw': {}}
    """
    params = list(signature.parameters.values())
    namespace: dict = {}
    listed = _parameter_list(params, fn, namespace, False)
    made = _made(
        "bind",
        listed,
        "return {" + ", ".join(f"{p.name!r}: {p.name}" for p in params) + "}",
        namespace,
        fn,
    )
    return made


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


def _param_error(
    fn: Any, plan: Any, arguments: dict, bindings: Any, error: BaseException
) -> TypeCheckError:
    if plan is not None:
        env = Bindings(arguments)
        for p in plan.checked_params:
            if p.name in arguments:
                reason = why(arguments[p.name], p.type, env, p.name, plan.overrides)
                if reason is not None:
                    return format_error(
                        plan,
                        f"{plan.role_of(p.name)} {p.name}",
                        arguments[p.name],
                        p.ann,
                        p.type,
                        reason,
                        env,
                    )
    label = function_label(fn)
    return TypeCheckError(
        f"{first_line(label, 'the parameters')}\n  where:    the "
        f"parameters of {label} ({where_defined(fn)})\n  reason:   "
        f"{_first_line(error)}\n  bindings: {_describe(bindings)}"
    )


def _describe(bindings: Any) -> str:
    names = list(bindings.sizes)
    return ", ".join(bindings.describe(n) for n in names) if names else "none"


def _name_origins(plan: Any, arguments: dict, bindings: Any) -> None:
    """Say which parameter bound each size: the other checker's ``isinstance`` calls
    bound them without knowing the parameters' names."""
    env = Bindings(arguments)
    for p in plan.checked_params:
        if p.name in arguments:
            why(arguments[p.name], p.type, env, p.name, plan.overrides)
    for name, where in list(bindings.where.items()):
        if (
            where[0] in (None, ISINSTANCE_LABEL)
            and name in env.where
            and env.sizes.get(name) == bindings.sizes.get(name)
        ):
            bindings.where[name] = env.where[name]


def _return_error(
    fn: Any, plan: Any, value: Any, ann: Any, bindings: Any, error: BaseException
) -> TypeCheckError:
    reason = None
    t = None if plan is None else plan.ret
    if t is not None:
        _name_origins(plan, bindings.arguments or {}, bindings)
        reason = why(value, t, bindings.copy(), "the return value", plan.overrides)
    detail = _first_line(error) if reason is None else reason
    if plan is None:
        label = function_label(fn)
        return TypeCheckError(
            f"{first_line(label, 'return value')}\n  where:    return "
            f"value of {label} ({where_defined(fn)})\n  reason:   {detail}"
        )
    return format_error(plan, "return value", value, ann, t, detail, bindings)


def _hints(fn: Any, localns: dict | None, lenient: bool) -> dict:
    """The evaluated annotations of ``fn``. With ``lenient``, one that still names
    something undefined is ``Any`` (jaxtyping's rule: the checker checks the rest)."""
    try:
        return typing.get_type_hints(fn, None, localns, include_extras=True)
    except Exception:  # noqa: BLE001 (names defined later; any annotation code)
        if not lenient:
            raise
    out = {}
    globalns = getattr(inspect.unwrap(fn), "__globals__", {})
    for name, ann in getattr(fn, "__annotations__", {}).items():

        def probe(value: Any) -> None:
            del value

        probe.__annotations__ = {"value": ann}
        try:
            out[name] = typing.get_type_hints(probe, globalns, localns, include_extras=True)[
                "value"
            ]
        except Exception:  # noqa: BLE001
            out[name] = typing.Any
    return out


def _typing_unions(ann: Any, depth: int = 0) -> Any:
    """``A | B`` as ``typing.Union[A, B]`` (also inside ``Union``/``Optional``): the
    same type, in the form every checker reads (typeguard 2.x leaves a PEP 604
    union unchecked)."""
    if depth > 20:
        return ann
    if isinstance(ann, types.UnionType):
        return typing.Union[  # noqa: UP007 (that form)
            tuple(_typing_unions(a, depth + 1) for a in typing.get_args(ann))
        ]
    if typing.get_origin(ann) is typing.Union:
        return typing.Union[  # noqa: UP007 (that form)
            tuple(_typing_unions(a, depth + 1) for a in typing.get_args(ann))
        ]
    return ann


def _return_function(ann: Any, fn: Any) -> Any:
    """``def check_return(value) -> ann: return value``: the return annotation stays
    a return annotation (``NoReturn`` and ``Never`` are allowed only there)."""
    namespace = {"_r": ann}
    source = "def check_return(value, /) -> _r:\n    return value\n"
    exec(
        compile(source, "<tensortypes check_return>", "exec", dont_inherit=True),  # noqa: S102
        namespace,
    )
    made = namespace["check_return"]
    _named_as(made, fn)
    return made


class _Later(Exception):
    """Some string annotation cannot be evaluated yet: set up at the first call."""


class _Setup:
    """What checking ``fn`` with another checker needs, built when its annotations
    can be evaluated: at decoration, or (a name defined later) at the first call."""

    __slots__ = ("plan", "ret_ann", "check_params", "check_return", "bind")

    def __init__(self, fn: Any, typechecker: Any, localns: dict | None, lenient: bool):
        try:
            evaluated = _hints(fn, localns, lenient)
        except Exception as error:  # noqa: BLE001 (a name defined later; a bad string)
            raise _Later(error) from None
        hints = {name: _typing_unions(ann) for name, ann in evaluated.items()}
        try:
            self.plan = make_plan(fn, localns)
        except Exception:  # noqa: BLE001 (our types cannot say it: the checker's words will do)
            self.plan = None
        signature = inspect.signature(fn)
        self.bind = _binder(signature, fn)
        params = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in signature.parameters.values()
        ]
        self.check_params = None
        if any(p.annotation is not _P.empty for p in params):
            self.check_params = typechecker(_signature_function("check_params", params, fn))
        self.ret_ann = hints.get("return", _P.empty)
        generator = inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn)
        self.check_return = None
        if self.ret_ann is not _P.empty and not generator:
            self.check_return = typechecker(_return_function(self.ret_ann, fn))


def external_checker(fn: Any, typechecker: Any) -> Any:
    """Check calls of ``fn`` with ``typechecker`` inside a fresh dimension scope each.

    String annotations naming something not defined yet are evaluated at the first
    call; one that still cannot be evaluated then is ``Any``, as jaxtyping has it
    (the other checker checks the rest).

    >>> def never_raises(f):
    ...     return f
    >>> def f(x: int) -> int:
    ...     return x
    >>> external_checker(f, never_raises)(2)
    2
    """
    # A nested function defined again: what the last definition had built serves.
    state: list = [found] if (found := lookup(fn, typechecker)) is not None else []
    stub = None if state else stand_in(fn)
    if stub is not None:
        try:
            state.append(_Setup(stub, typechecker, None, lenient=False))
        except Exception:  # noqa: BLE001 (the general path below says it)
            pass
        else:
            keep(fn, state[0], typechecker, stub)
    localns = None if state else defining_locals(fn)
    if not state:
        try:
            state.append(_Setup(fn, typechecker, localns, lenient=False))
        except _Later:
            pass  # resolved at the first call, as far as it can be then
        except AnnotationError:
            raise
        except Exception as error:  # noqa: BLE001 (any annotation code)
            raise AnnotationError(
                f"cannot evaluate the annotations of {function_label(fn)} "
                f"({where_defined(fn)}): {type(error).__name__}: {error}"
            ) from None

    def setup() -> _Setup:
        if not state:
            state.append(_Setup(fn, typechecker, localns, lenient=True))
        return state[0]

    def check_params(
        made: _Setup, arguments: dict, bindings: Bindings, args: tuple, kwargs: dict
    ) -> None:
        __tracebackhide__ = True  # pytest ends the traceback at the user's call
        try:
            made.check_params(*args, **kwargs)
        except AnnotationError:
            raise
        except Exception as error:  # noqa: BLE001 (whatever the other checker raises)
            raise _param_error(fn, made.plan, arguments, bindings, error) from error

    def check_return(made: _Setup, value: Any, bindings: Bindings) -> None:
        __tracebackhide__ = True  # pytest ends the traceback at the user's call
        try:
            made.check_return(value)
        except AnnotationError:
            raise
        except Exception as error:  # noqa: BLE001 (whatever the other checker raises)
            raise _return_error(fn, made.plan, value, made.ret_ann, bindings, error) from error

    # Each call's scope is the ContextVar's, set by the wrapper, whose frame is
    # registered as one that sets it: an ``isinstance`` the other checker makes finds
    # it one frame out, not by walking the whole stack (see annotate._scope).
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def checked_coroutine(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # pytest ends the traceback at the user's call
            if checked_coroutine.__dict__.get("__no_type_check__"):
                return await fn(*args, **kwargs)
            made = state[0] if state else setup()
            bindings = Bindings(made.bind(*args, **kwargs))
            token = set_scope(bindings)
            try:
                if made.check_params is not None:
                    check_params(made, bindings.arguments, bindings, args, kwargs)
                value = await fn(*args, **kwargs)
                if made.check_return is not None:
                    check_return(made, value, bindings)
            finally:
                reset_scope(token)
            return value

        _register_once(checked_coroutine.__code__)
        return checked_coroutine

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # pytest ends the traceback at the user's call
        if checked.__dict__.get("__no_type_check__"):  # @no_type_check put on top
            return fn(*args, **kwargs)
        made = state[0] if state else setup()
        bindings = Bindings(made.bind(*args, **kwargs))
        token = set_scope(bindings)
        try:
            if made.check_params is not None:
                check_params(made, bindings.arguments, bindings, args, kwargs)
            value = fn(*args, **kwargs)
            if made.check_return is not None:
                check_return(made, value, bindings)
        finally:
            reset_scope(token)
            # Another checker costs far more than the memo saves: keep nothing alive.
            forget_frames()
        return value

    _register_once(checked.__code__)
    return checked


set_scope, reset_scope = SCOPE.set, SCOPE.reset


def _register_once(code: Any) -> None:
    """Register a wrapper's code (shared by every function so checked) as a frame
    that sets the ContextVar's scope itself."""
    if id(code) not in FRAMES:
        register(code)
