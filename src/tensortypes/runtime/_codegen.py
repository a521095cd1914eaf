"""One specialised check function per signature, generated as Python (layer 6: runtime).

:func:`compile_checker` turns a :class:`~tensortypes.runtime._plan.Plan` into a
:class:`Checker` whose ``wrapper`` has the wrapped function's own parameter
list (no ``*args`` re-binding), checks every annotated parameter inline, opens
the call's dimension scope, calls the function and checks what it returns. For
the common signatures (arrays at the top of parameters, sizes named plainly)
the sizes are local variables: ``b, c = x.shape`` and ``if y.shape[0] != c``.
Otherwise the values go through the general checker with a ``Bindings`` ("env
mode"). The source is registered with ``linecache`` under ``<tensortypes check
module.f>`` so tracebacks and debuggers show it; ``Checker.source`` keeps it.

Failures call back into the checker (``fail_params``/``fail_return``): the slow
path, which finds the reason with the general checker and raises the
``TypeCheckError`` that ``_messages`` words.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import linecache
from contextvars import Token
from typing import Any

from tensortypes.annotate import Bindings
from tensortypes.annotate._compile import has_arrays
from tensortypes.errors import TypeCheckError, describe_raised, raised_by_value
from tensortypes.annotate._scope import SCOPE, register
from tensortypes.types import STR, DictType, VarTupleType
from tensortypes.runtime._emit import UNBOUND, Source
from tensortypes.runtime.scopes import ACTIVE, CallScope, register_wrapper, take
from tensortypes.runtime._ir import ArrayCheck, Binder, lower
from tensortypes.runtime._messages import format_error
from tensortypes.runtime._walk import why

__all__ = ["Checker", "compile_checker", "Check"]

_P = inspect.Parameter
_COUNTER = itertools.count(1)


NO_SKIP = object()
"""``Check.default`` of a value that is always checked."""

# Defaults that checking can neither change nor bind a size from.
_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes)


class Check:
    """One value the generated code checks: where it sits among the call's values.

    ``default``: a value that is not checked when the parameter holds it (``is``),
    or ``NO_SKIP``."""

    __slots__ = ("index", "label", "what", "ann", "type", "default")

    def __init__(self, index: int, label: str, what: str, ann: Any, t: Any, default: Any = NO_SKIP):
        self.index = index
        self.label = label
        self.what = what
        self.ann = ann
        self.type = t
        self.default = default


def _skipped_default(p: Any, t: Any, overrides: Any) -> Any:
    """The default a parameter is not checked against, or ``NO_SKIP``.

    A parameter the caller omits holds its default, which is not checked (as
    beartype does): libraries mark "not given" with a sentinel of another type
    (``state: State = sentinel``) or write ``x: int = None``. An immutable default
    that passes its check needs no guard: checking it changes nothing and costs
    the call nothing more, unless the type has arrays in it (``key: PRNGKeyArray |
    None = None``: the general checker would try each array member first).
    """
    default = p.default
    if default is _P.empty:
        return NO_SKIP
    if type(default) in _IMMUTABLE and not has_arrays(t):
        try:
            if why(default, t, Bindings(), p.name, overrides) is None:
                return NO_SKIP
        except Exception:  # noqa: BLE001 (a user class's check may raise: guard it)
            pass
    return default


def _checks(plan: Any) -> list[Check]:
    out = []
    for i, p in enumerate(plan.params):
        if not p.checked:
            continue
        t = p.type
        if p.kind is _P.VAR_POSITIONAL:
            t = VarTupleType(t)
        elif p.kind is _P.VAR_KEYWORD:
            t = DictType(STR, t)
        out.append(
            Check(
                i,
                p.name,
                f"{plan.role_of(p.name)} {p.name}",
                p.ann,
                t,
                _skipped_default(p, t, plan.overrides),
            )
        )
    return out


class Checker:
    """A compiled signature: the generated ``wrapper`` and its slow path."""

    __slots__ = (
        "plan",
        "checks",
        "env_mode",
        "source",
        "filename",
        "wrapper",
        "size_locals",
        "__weakref__",
    )

    def __init__(self, plan: Any):
        self.plan = plan
        self.checks = _checks(plan)
        self.env_mode = False
        self.source = ""
        self.filename = ""
        self.wrapper: Any = None
        # Size name -> the wrapper's local holding it (the fast path's bindings).
        self.size_locals: dict[str, str] = {}

    def arguments(self, values: tuple) -> dict:
        """The call's arguments by parameter name."""
        return dict(zip(self.plan.names, values))

    def why(self, value: Any, t: Any, env: Any, label: str) -> tuple[str | None, Any]:
        """``(reason, None)`` from the general checker (reason None: the value fits), or
        ``(reason, error)`` when looking at the value raised ``error`` from the value's
        own code (a property, ``__iter__``, ``__eq__``...). An error of tensortypes'
        own propagates."""
        try:
            return why(value, t, env, label, self.plan.overrides), None
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if not raised_by_value(error):
                raise
            return f"checking {label} raised {describe_raised(error)}", error

    def bind_params(self, values: tuple, env: Bindings) -> str | None:
        """Check the parameters into ``env``; the first reason, or None if all fit."""
        for check in self.checks:
            value = values[check.index]
            if value is check.default:
                continue
            reason = self.why(value, check.type, env, check.label)[0]
            if reason is not None:
                env.label = None
                return reason
        env.label = None
        return None

    def fail_params(self, values: tuple, raised: Any = None) -> None:
        """Raise the ``TypeCheckError`` for parameters the fast path rejected (or whose
        check ``raised`` an exception of the value's own)."""
        __tracebackhide__ = True  # pytest ends the traceback at the user's call
        env = Bindings(self.arguments(values))
        for check in self.checks:
            value = values[check.index]
            if value is check.default:
                continue
            reason, error = self.why(value, check.type, env, check.label)
            if reason is not None:
                raise format_error(
                    self.plan, check.what, value, check.ann, check.type, reason, env
                ) from (error or raised)
        if raised is not None:
            # The value raised once and then not: report what it did the first time.
            raise format_error(
                self.plan,
                "the parameters",
                values,
                None,
                None,
                f"checking them raised {describe_raised(raised)}",
                env,
            ) from raised
        # Unreachable while the two paths agree (a test asserts they do).
        raise format_error(self.plan, "the parameters", values, None, None, None, env)

    def raised_params(self, values: tuple, error: Exception) -> None:
        """The fast path's parameter checks raised ``error``: a ``TypeCheckError`` if
        the value raised it, else (a bug of ours) ``error`` itself."""
        if not raised_by_value(error):
            raise error
        self.fail_params(values, error)

    def entry_bindings(self, local: dict) -> Bindings:
        """The bindings of a running call, from its wrapper's locals ``local``.

        Where each size came from is found by checking the arguments again, but the
        sizes are those the fast path bound at call entry (its local variables): the
        body may have changed an argument in place since (``x.resize(...)``), and the
        call's scope must not change with it.
        """
        values = tuple(local[name] for name in self.plan.names)
        bindings = Bindings(self.arguments(values))
        self.bind_params(values, bindings)
        sizes = bindings.sizes
        for name, var in self.size_locals.items():
            value = local.get(var, UNBOUND)
            if value is not UNBOUND and sizes.get(name, UNBOUND) != value:
                sizes[name] = value
        return bindings

    def scope_of(self, values: tuple, env: Any) -> Bindings:
        """The bindings a value after the call is checked in: the call's own, or
        (None) rebuilt from the arguments as the fast path bound them."""
        if env is not None:
            return env
        fresh = Bindings(self.arguments(values))
        self.bind_params(values, fresh)
        return fresh

    def fail_value(
        self,
        what: str,
        label: str,
        value: Any,
        ann: Any,
        t: Any,
        values: tuple,
        env: Any,
        raised: Any = None,
    ) -> None:
        """Raise the ``TypeCheckError`` for a value checked after the call began."""
        __tracebackhide__ = True  # pytest ends the traceback at the user's call
        env = self.scope_of(values, env)
        reason, error = self.why(value, t, env, label)
        env.label = None
        if reason is None and raised is not None:
            reason = f"checking {label} raised {describe_raised(raised)}"
        raise format_error(self.plan, what, value, ann, t, reason, env) from (error or raised)

    def fail_return(self, values: tuple, result: Any, env: Any) -> None:
        __tracebackhide__ = True  # pytest ends the traceback at the user's call
        plan = self.plan
        self.fail_value(
            "return value", "the return value", result, plan.ret_ann, plan.ret, values, env
        )

    def raised_return(self, values: tuple, result: Any, env: Any, error: Exception) -> None:
        """``raised_params`` for the check of the return value."""
        if not raised_by_value(error):
            raise error
        plan = self.plan
        self.fail_value(
            "return value", "the return value", result, plan.ret_ann, plan.ret, values, env, error
        )


def _param_list(plan: Any, src: Source) -> tuple[str, str, str]:
    """The generated ``def``'s parameters, the call's arguments, the values tuple."""
    params, call, star, last_positional = [], [], False, -1
    for i, p in enumerate(plan.params):
        if p.kind is _P.POSITIONAL_ONLY:
            last_positional = i
    for i, p in enumerate(plan.params):
        default = "" if p.default is _P.empty else f"={src.const(p.default, 'df')}"
        if p.kind is _P.VAR_POSITIONAL:
            params.append(f"*{p.name}")
            call.append(f"*{p.name}")
            star = True
        elif p.kind is _P.VAR_KEYWORD:
            params.append(f"**{p.name}")
            call.append(f"**{p.name}")
        elif p.kind is _P.KEYWORD_ONLY:
            if not star:
                params.append("*")
                star = True
            params.append(p.name + default)
            call.append(f"{p.name}={p.name}")
        else:
            params.append(p.name + default)
            call.append(p.name)
        if i == last_positional:
            params.append("/")
    names = [p.name for p in plan.params]
    values = "()" if not names else "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    return ", ".join(params), ", ".join(call), values


def _prefix(plan: Any) -> str:
    prefix = "_tt_"
    while any(name.startswith(prefix) for name in plan.names):
        prefix = "_" + prefix
    return prefix


def _emit_checks(checker: Checker, src: Source, nodes: list, values: str) -> None:
    fail = f"{src.const(checker.fail_params, 'FA')}({values})"
    for check, node in zip(checker.checks, nodes):
        name = checker.plan.params[check.index].name
        # A parameter holding its default is not checked.
        given = (
            "" if check.default is NO_SKIP else f"{name} is not {src.const(check.default, 'df')}"
        )
        if type(node) is ArrayCheck:
            if given:
                src.add(f"if {given}:")
                src.depth += 1
            src.array(node, name, fail)
            src.depth -= 1 if given else 0
            continue
        test = src.expression(node, name, check.label)
        if test != "True":
            if src.env is not None and ".check(" in test:
                # A scope-aware type records where it bound sizes under the label.
                src.add(f"{src.env}.label = {check.label!r}")
            src.add(f"if {given + ' and ' if given else ''}not {test}:")
            src.add(f"    {fail}")
    if src.env is not None:
        src.add(f"{src.env}.label = None")


def _named_ops(node: Any) -> bool:
    return type(node) is ArrayCheck and any(
        op[0] not in ("shape", "rank", "min_rank", "fixed") for op in node.ops
    )


def _emit_return(
    checker: Checker, src: Source, node: Any, r: str, values: str, scope: str | None, current: str
) -> None:
    plan = checker.plan
    fail_return = src.const(checker.fail_return, "FR")

    def walk(env: str) -> str:
        return (
            f"{src.const(why, 'why')}({r}, {src.const(plan.ret, 't')}, {env}, "
            f"'the return value', {src.const(plan.overrides, 'ov')}) is not None"
        )

    if checker.env_mode:
        src.add(f"if {walk(scope)}:")
        src.add(f"    {fail_return}({values}, {r}, {scope})")
        return
    if _named_ops(node):
        # An isinstance in the body read the scope (and may have bound more sizes):
        # check against it; the local variables are only valid while it was not read.
        src.add(f"if {current}:" if scope is None else f"if {current} is not {scope}:")
        src.add(f"    if {walk(current)}:")
        src.add(f"        {fail_return}({values}, {r}, {current})")
        src.add("else:")
        src.depth += 1
        src.array(node, r, f"{fail_return}({values}, {r}, None)")
        src.depth -= 1
        return
    if type(node) is ArrayCheck:
        src.array(node, r, f"{fail_return}({values}, {r}, None)")
        return
    test = src.expression(node, r, "the return value")
    if test != "True":
        src.add(f"if not {test}:")
        src.add(f"    {fail_return}({values}, {r}, None)")


def compile_checker(plan: Any, drivers: dict) -> Checker:
    """Generate, compile and register the wrapper of ``plan``'s function.

    ``drivers`` maps ``"generator"``/``"asyncgen"`` to the functions that drive a
    generator created by the call (checking what it yields and returns, in the
    call's scope).

    >>> from tensortypes.runtime._plan import make_plan
    >>> def twice(x: int) -> int:
    ...     return 2 * x
    >>> checker = compile_checker(make_plan(twice), {})
    >>> checker.wrapper(4), "_tt_isinstance(x, " in checker.source
    (8, True)
    """
    checker = Checker(plan)
    binder = Binder()
    nodes = [binder.top(c.type, c.default is not NO_SKIP) for c in checker.checks]
    ret_node = None
    if plan.ret is not None and plan.flavor in ("function", "coroutine"):
        ret_node = binder.top(plan.ret)
    generator = plan.flavor in ("generator", "asyncgen")
    src = Source(_prefix(plan), plan.overrides)
    params, call, values = _param_list(plan, src)
    p = src.prefix
    scope, r, token, current = f"{p}scope", f"{p}r", f"{p}tok", f"{p}cur"
    flag, marker = f"{p}body", None
    if binder.needs_env or generator or plan.overrides:
        # A generator's body runs after the call returns: it needs real bindings.
        checker.env_mode = True
        src.env = scope
        nodes = [lower(c.type) for c in checker.checks]
        ret_node = None if ret_node is None else lower(plan.ret)
        src.add(
            f"{scope} = {src.const(Bindings, 'B')}({src.const(checker.arguments, 'args')}"
            f"({values}))"
        )
    else:
        _init_maybe(src, [*nodes, ret_node])
        if plan.flavor == "coroutine":
            marker = CallScope(checker, None)
            scope = src.const(marker, "CS")
    _guarded(
        src,
        lambda: _emit_checks(checker, src, nodes, values),
        f"{src.const(checker.raised_params, 'RP')}({values}, {{}})",
    )
    fn = src.const(plan.fn, "fn")
    if generator:
        driver = src.const(drivers[plan.flavor], "drive")
        src.add(f"return {driver}({fn}({call}), {src.const(checker, 'chk')}, {scope}, {values})")
    elif plan.flavor == "coroutine":
        src.add(f"{token} = {src.const(SCOPE.set, 'set')}({scope})")
        src.add("try:")
        src.add(f"    {r} = await {fn}({call})")
        if not checker.env_mode and _named_ops(ret_node):
            src.add(f"    {current} = {src.const(SCOPE.get, 'get')}()")
        src.add("finally:")
        src.add(f"    {src.const(_reset, 'reset')}({token})")
        if ret_node is not None:
            _guarded(
                src,
                lambda: _emit_return(checker, src, ret_node, r, values, scope, current),
                f"{src.const(checker.raised_return, 'RR')}({values}, {r}, "
                f"{scope if checker.env_mode else None}, {{}})",
            )
        src.add(f"return {r}")
    else:
        # No per-call push: the flag tells annotate._scope.current() that the body
        # runs, and the bindings it materialised (if any) are taken back after it.
        src.add(f"{flag} = True")
        src.add("try:")
        src.add(f"    {r} = {fn}({call})")
        src.add("finally:")
        src.add(f"    {flag} = False")
        taken = f"{src.const(ACTIVE, 'ACT')} and {src.const(take, 'take')}()"
        if not checker.env_mode and _named_ops(ret_node):
            # Falsy (the empty ACTIVE, or None) when the body never read its scope.
            src.add(f"    {current} = {taken}")
        else:
            src.add(f"    {taken}")
        if ret_node is not None:
            _guarded(
                src,
                lambda: _emit_return(
                    checker, src, ret_node, r, values, scope if checker.env_mode else None, current
                ),
                f"{src.const(checker.raised_return, 'RR')}({values}, {r}, "
                f"{scope if checker.env_mode else None}, {{}})",
            )
        src.add(f"return {r}")
    if not checker.env_mode:
        checker.size_locals = dict(src.sizes)
    _finish(checker, src, params)
    code = checker.wrapper.__code__
    if generator or plan.flavor == "coroutine":
        # Their scopes are in the ContextVar (set by this wrapper or its driver).
        register(code)
        if marker is not None:
            # The marker finds its call by the wrapper's code, known only now.
            object.__setattr__(marker, "_code", code)
    else:
        register_wrapper(checker, flag, scope if checker.env_mode else None)
    return checker


def _guarded(src: Source, emit: Any, handler: str) -> None:
    """Emit checks inside ``try``: a ``TypeCheckError`` passes, any other exception goes
    to ``handler`` (a call with ``{}`` for the exception), which turns one the value
    raised into a ``TypeCheckError`` and lets one of ours through. A ``try`` costs
    nothing until something raises."""
    start = len(src.lines)
    src.depth += 1
    emit()
    src.depth -= 1
    if len(src.lines) == start:
        return
    src.lines.insert(start, "    " * src.depth + "try:")
    exc = f"{src.prefix}exc"
    src.add(f"except {src.const(TypeCheckError, 'TCE')}:")
    src.add("    raise")
    src.add(f"except {src.b('Exception')} as {exc}:")
    src.add(f"    {handler.format(exc)}")


def _init_maybe(src: Source, nodes: list) -> None:
    """Start every size variable as UNBOUND when some check finds it only maybe bound."""
    ops = [op for node in nodes if type(node) is ArrayCheck for op in node.ops]
    if not any(op[0] in ("maybe", "vmaybe") for op in ops):
        return
    unbound = src.const(UNBOUND, "U")
    names = sorted(
        {
            op[2] if op[0] in ("bind", "same", "maybe") else op[3]
            for op in ops
            if op[0] in ("bind", "same", "maybe", "vbind", "vsame", "vmaybe")
        }
    )
    for name in names:
        src.add(f"{src.size_var(name)} = {unbound}")


def _reset(token: Any) -> None:
    """Close a coroutine's scope, even when it was resumed in another context."""
    try:
        SCOPE.reset(token)
    except ValueError:
        old = token.old_value
        SCOPE.set(None if old is Token.MISSING else old)


def _finish(checker: Checker, src: Source, params: str) -> None:
    plan = checker.plan
    keyword = "async def" if plan.flavor == "coroutine" else "def"
    head = f"{keyword} {src.prefix}checked({params}):"
    body = "\n".join([head, *src.lines]) + "\n"
    filename = f"<tensortypes check {plan.label}#{next(_COUNTER)}>"
    namespace = dict(src.consts)
    # pytest hides a frame whose globals say so: a failed check's traceback ends at the
    # user's call, not in this generated wrapper (pytest --full-trace shows it).
    namespace["__tracebackhide__"] = True
    exec(compile(body, filename, "exec", dont_inherit=True), namespace)  # noqa: S102 (names validated)
    linecache.cache[filename] = (len(body), None, body.splitlines(keepends=True), filename)
    wrapper = namespace[f"{src.prefix}checked"]
    fn = plan.fn
    name = getattr(fn, "__name__", None)
    qualname = getattr(fn, "__qualname__", None)
    if isinstance(name, str) and isinstance(qualname, str):
        wrapper.__code__ = wrapper.__code__.replace(co_name=name, co_qualname=qualname)
    functools.update_wrapper(wrapper, fn)
    wrapper.__tensortypes_checker__ = checker
    checker.source = body
    checker.filename = filename
    checker.wrapper = wrapper
