"""The dimension scope of a checked call: found on the stack, filled in when read
(layer 6: runtime).

Every checked call has a fresh dimension scope (``annotate._scope``) for its
body, so that ``isinstance(x, Float[np.ndarray, "b c"])`` inside it sees the
sizes the arguments bound. Most bodies never look, and the generated fast path
keeps the sizes in local variables.

A plain function's call pushes nothing. Its wrapper's code is registered with
``annotate._scope.register`` and :func:`call_bindings` as handler: when
``current()`` finds the wrapper's frame on the stack (the innermost activation,
so recursion, threads and tasks are each their own) while the body runs, the
handler reads that call's arguments from the frame, runs the general checker
over them to rebuild the sizes the fast path bound, with where each came from,
and keeps that ``Bindings`` in :data:`ACTIVE` under the frame. The wrapper, after
the body (also when it raises), takes its entry back (:func:`take`) only if
``ACTIVE`` is not empty, and then checks the return value against the possibly
extended bindings.

A coroutine suspends, so its call sets the ContextVar to its checker's
:class:`CallScope`, one object per compiled function created once (pushing it
allocates nothing), which rebuilds the bindings the same way on first use.

A generator's body runs after its call returns, step by step: the drivers here
make the call's scope current for each step and check what it yields, is sent
and returns (``Iterator[Y]``, ``Generator[Y, S, R]``, ``AsyncIterator[Y]``;
``next()`` sends None, which is not checked). ``throw`` and ``close`` reach the
body unchanged.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any, TextIO

from tensortypes.annotate import Bindings, current
from tensortypes.annotate._scope import SCOPE, register

__all__ = [
    "CallScope",
    "resolve",
    "drive_generator",
    "drive_asyncgen",
    "DRIVERS",
    "print_bindings",
    "current_bindings",
    "ACTIVE",
    "take",
    "call_bindings",
    "register_wrapper",
]

ACTIVE: dict = {}
"""Frame of a running plain checked call -> the bindings its body materialised."""

_getframe = sys._getframe


def take() -> Any:
    """Remove and return the bindings materialised for the calling wrapper's frame
    (None if its body never read its scope).

    >>> take() is None
    True
    """
    return ACTIVE.pop(_getframe(1), None)


def call_bindings(checker: Any, frame: Any, flag: str, env: str | None) -> Any:
    """The bindings of the plain checked call running in ``frame``, made on first use;
    None while the frame is not in its body (its own checks run in the outer scope).
    """
    found = ACTIVE.get(frame)
    if found is not None:
        return found
    local = frame.f_locals
    if not local.get(flag):
        return None
    bindings = local[env] if env is not None else checker.entry_bindings(local)
    ACTIVE[frame] = bindings
    return bindings


def register_wrapper(checker: Any, flag: str, env: str | None) -> None:
    """Register a plain checked function's wrapper as the holder of its calls' scopes.

    The handler holds the checker weakly, so a discarded function is collected
    (and its registration with it).
    """
    ref = weakref.ref(checker)

    def handler(frame: Any) -> Any:
        found = ref()
        return None if found is None else call_bindings(found, frame, flag, env)

    register(checker.wrapper.__code__, handler)


_FIELDS = frozenset(Bindings.__slots__)


def resolve(scope: Any) -> Any:
    """The real ``Bindings`` behind a scope (a ``CallScope`` is filled in first)."""
    return scope.resolve() if type(scope) is CallScope else scope


class CallScope(Bindings):
    """The marker a checked coroutine pushes as its call's scope.

    Reading or setting any field of ``Bindings`` goes to the bindings of the
    call it stands for, filled in on first use (see the module docstring).
    """

    __slots__ = ("_checker", "_code")

    def __init__(self, checker: Any, code: Any):  # noqa: D107 (no Bindings fields on purpose)
        object.__setattr__(self, "_checker", checker)
        object.__setattr__(self, "_code", code)
        object.__setattr__(self, "outer", None)

    def resolve(self) -> Bindings:
        """The bindings of the innermost active call of this function."""
        active = SCOPE.get()
        if active is not self:
            return resolve(active) if active is not None else Bindings()
        checker = self._checker
        frame = sys._getframe(1)
        code = self._code
        while frame is not None and frame.f_code is not code:
            frame = frame.f_back
        if frame is None:
            # The marker outlived its call (a task created in the body runs later):
            # that call's sizes are gone, so the scope starts empty.
            bindings = Bindings()
        else:
            bindings = checker.entry_bindings(frame.f_locals)
        SCOPE.set(bindings)
        return bindings

    def __getattr__(self, name: str) -> Any:
        # Reached only for Bindings' own fields, which this object never sets.
        if name not in _FIELDS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self.resolve(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.resolve(), name, value)

    def __repr__(self) -> str:
        return f"CallScope({self._checker.plan.label})"


# -- generators ------------------------------------------------------------------------


def _check(
    checker: Any, what: str, label: str, value: Any, t: Any, scope: Any, values: tuple
) -> None:
    if t is not None and checker.why(value, t, scope, label)[0] is not None:
        checker.fail_value(what, label, value, t, t, values, scope)


def drive_generator(gen: Any, checker: Any, scope: Any, values: tuple):
    """Run ``gen`` step by step in ``scope``, checking what passes in and out.

    >>> def count():
    ...     yield 1
    >>> class C:
    ...     class plan: yields = sends = ret = overrides = None
    >>> list(drive_generator(count(), C, None, ()))
    [1]
    """
    plan = checker.plan
    send, error = None, None
    while True:
        token = SCOPE.set(scope)
        try:
            if error is not None:
                item, error = gen.throw(error), None
            else:
                item = gen.send(send)
        except StopIteration as stop:
            _check(checker, "return value", "the return value", stop.value, plan.ret, scope, values)
            return stop.value
        finally:
            SCOPE.reset(token)
        _check(checker, "value yielded", "the yielded value", item, plan.yields, scope, values)
        try:
            send = yield item
        except GeneratorExit:
            gen.close()
            raise
        except BaseException as thrown:  # noqa: BLE001 (gen.throw passes every error on)
            error = thrown
            continue
        if send is not None:
            _check(checker, "value sent", "the sent value", send, plan.sends, scope, values)


async def drive_asyncgen(agen: Any, checker: Any, scope: Any, values: tuple):
    """``drive_generator`` for an async generator (what it yields and is sent)."""
    plan = checker.plan
    send, error = None, None
    while True:
        token = SCOPE.set(scope)
        try:
            if error is not None:
                item, error = await agen.athrow(error), None
            else:
                item = await agen.asend(send)
        except StopAsyncIteration:
            return
        finally:
            try:
                SCOPE.reset(token)
            except ValueError:  # resumed in another context: leave that one as it was
                pass
        _check(checker, "value yielded", "the yielded value", item, plan.yields, scope, values)
        try:
            send = yield item
        except GeneratorExit:
            await agen.aclose()
            raise
        except BaseException as thrown:  # noqa: BLE001 (athrow passes every error on)
            error = thrown
            continue
        if send is not None:
            _check(checker, "value sent", "the sent value", send, plan.sends, scope, values)


DRIVERS = {"generator": drive_generator, "asyncgen": drive_asyncgen}
for _driver in (drive_generator, drive_asyncgen):
    # A generator's body runs below its driver, which sets the ContextVar each step.
    register(_driver.__code__)


# -- print_bindings --------------------------------------------------------------------


def current_bindings() -> Any:
    """The current scope's ``Bindings`` (filled in if need be), or None outside any.

    >>> current_bindings() is None
    True
    """
    found = current()
    return None if found is None else resolve(found)


def print_bindings(file: TextIO | None = None, *, where: bool = False) -> None:
    """Print the sizes bound in the current scope as jaxtyping does (``foo=3``, one
    a line, under its heading); with ``where=True``, also where each came from
    (``foo=3 (axis 0 of x)``).

    >>> print_bindings()
    print_bindings(): no dimension scope is active here (call it inside a checked function or a 'with jaxtyped("context"):' block)
    """
    out = sys.stdout if file is None else file
    bindings = current_bindings()
    if bindings is None:
        print(
            "print_bindings(): no dimension scope is active here (call it inside a checked "
            "function or a 'with jaxtyped(\"context\"):' block)",
            file=out,
        )
        return
    lines = []
    if bindings.sizes:
        lines.append("The current values for each jaxtyping axis annotation are as follows.")
        for name in bindings.sizes:
            shown = bindings.describe(name) if where else f"{name}={bindings.sizes[name]}"
            lines.append(shown[1:] if shown.startswith("*") else shown)
    print("\n".join(lines), file=out)
