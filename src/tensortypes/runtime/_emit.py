"""Python source from the intermediate form: tests as expressions, arrays as statements
(layer 6: runtime).

:class:`Source` collects the lines of one generated function and the objects it
refers to (classes, types, helper functions), each under a generated name with
the function's reserved prefix, so no parameter name can clash. Only three
things reach the source as text: the reserved names, parameter names (checked
to be identifiers in NFKC form by the plan) and the locals of size names (ASCII
names as they are, any other name numbered, so that two names Python would
normalise alike never share a variable); everything else is a constant passed in.

Builtins are named through constants too (a parameter called ``type`` or
``len`` must not change what the checks mean).

``expression(node, value, label)`` gives a boolean expression for a test node;
``array(node, value, fail)`` the statements of an array check whose sizes live
in local variables (``<prefix>d_b`` for ``b``), each mismatch running the
``fail`` statement.
"""

from __future__ import annotations

import abc
import builtins
import re
from typing import Any

import numpy as np

from tensortypes._config import config
from tensortypes.core.arrays import array_info
from tensortypes.core.dtypes import dtype_from_name
from tensortypes.errors import TypeCheckError
from tensortypes.types import is_instance as _accept_any
from tensortypes.types.arrays import dtype_category
from tensortypes.types.check import ACCEPT
from tensortypes.annotate._extract import NATIVE_CLASSES, DtypeTest, extractor, learn_native
from tensortypes.annotate import Bindings
from tensortypes.annotate._compile import matcher_for, scope_aware
from tensortypes.runtime._ir import (
    Accept,
    Always,
    ArrayCheck,
    Each,
    Fixed,
    Instance,
    IsNone,
    Mapping,
    Match,
    Node,
    Numeric,
    Or,
    Subclass,
    Walk,
)
from tensortypes.runtime._walk import sample, why

__all__ = ["Source", "UNBOUND"]

UNBOUND = object()
"""The value of a size variable not bound yet (behind an ``Optional`` or ``#`` axis)."""

_IDENT = re.compile(r"[^\W\d]\w*\Z")
_EXPR_TOKENS = re.compile(r"[^\W\d]\w*|\d+|\*\*|[-+*(),]")


_LEARNED_LIMIT = 256  # classes remembered per test, at most


def _plain_checks(cls: Any) -> bool:
    """Whether ``isinstance`` and ``issubclass`` with ``cls`` are the language's own or
    ``abc.ABCMeta``'s: then a class found to be a subclass stays one (registering
    with an ABC only adds subclasses), and every instance of it passes."""
    meta = type(cls)
    return (meta.__instancecheck__, meta.__subclasscheck__) in (
        (type.__instancecheck__, type.__subclasscheck__),
        (abc.ABCMeta.__instancecheck__, abc.ABCMeta.__subclasscheck__),
    )


def _learned(cls: Any) -> bool:
    """Whether ``Instance(cls)`` is tested through the classes that passed before:
    a class with a metaclass of its own whose tests are ``type``'s or ABCMeta's."""
    return type(cls) is not type and isinstance(cls, type) and _plain_checks(cls)


def learn_instance(value: Any, cls: type, seen: dict) -> bool:
    """``isinstance(value, cls)``, remembering ``value``'s class in ``seen`` (by its
    ``id``, the class kept alive there) when the answer holds for every instance of
    it (the class is a subclass of ``cls``). Keys are ids so that a class whose
    metaclass makes it unhashable is looked up like any other."""
    if not isinstance(value, cls):
        return False
    kind = type(value)
    if len(seen) < _LEARNED_LIMIT and issubclass(kind, cls):
        seen[id(kind)] = kind
    return True


def learn_subclass(value: type, cls: type, seen: dict) -> bool:
    """``issubclass(value, cls)``, remembering the classes that passed in ``seen``
    (by ``id``, as :func:`learn_instance`)."""
    if not issubclass(value, cls):
        return False
    if len(seen) < _LEARNED_LIMIT:
        seen[id(value)] = value
    return True


def _dtype_slow(value: Any, accepted: set, test: DtypeTest) -> bool:
    """Whether the array's dtype passes ``test``; remembers the dtype object if so."""
    info = array_info(value)
    if info is None or not test.accepts(value, info[1]):
        return False
    if len(accepted) < 64:
        try:
            accepted.add(value.dtype)
        except TypeError:  # an unhashable dtype is only ever checked the slow way
            pass
    return True


_DTYPE_TABLES: dict = {}


def _dtype_tables(dtypes: Any) -> tuple[DtypeTest, set]:
    """The dtype test of a dtype set, and the set of dtype objects seen to pass it
    (shared by every check of that dtype set, so it fills up once)."""
    found = _DTYPE_TABLES.get(dtypes)
    if found is None:
        # Named as in every other message: "not Float (bfloat16, float16, ...)".
        label = None if dtypes is None else dtype_category(dtypes)
        found = (DtypeTest(None if dtypes is None else tuple(dtypes), label), set())
        if len(_DTYPE_TABLES) < 1024:
            _DTYPE_TABLES[dtypes] = found
    return found


def _evaluate(dim: Any, sizes: dict) -> Any:
    """A size expression's value, or None when it cannot be evaluated (the slow path
    says why)."""
    try:
        return dim.evaluate(sizes)
    except (ArithmeticError, ValueError):
        return None


class Source:
    """The lines of one generated function and the constants they name."""

    __slots__ = ("prefix", "lines", "consts", "_ids", "sizes", "depth", "env", "overrides")

    def __init__(self, prefix: str, overrides: dict | None = None):
        self.prefix = prefix
        self.overrides = overrides
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self._ids: dict[int, str] = {}
        self.sizes: dict[str, str] = {}  # size name -> its local variable
        self.depth = 1
        self.env: str | None = None  # the local holding the call's bindings, in env mode

    def const(self, value: Any, hint: str = "c") -> str:
        """The generated name under which the function sees ``value``."""
        found = self._ids.get(id(value))
        if found is not None and self.consts[found] is value:
            return found
        name = f"{self.prefix}{hint}{len(self.consts)}"
        self.consts[name] = value
        self._ids[id(value)] = name
        return name

    def b(self, name: str) -> str:
        """A builtin, under its name with the reserved prefix (``_tt_len``; other
        constants' names end in a number, so none can clash)."""
        alias = self.prefix + name
        self.consts[alias] = getattr(builtins, name)
        return alias

    def add(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def size_var(self, name: str) -> str:
        """The local variable of size ``name`` (``*name`` for several axes).

        Python reads identifiers in NFKC form, so ``ﬁ`` and ``fi`` (or ``𝐧`` and ``n``)
        written into source would be one variable. An ASCII name (NFKC-stable) is kept
        readable (``<prefix>d_n``); any other name gets a numbered local
        (``<prefix>d_0``, never an identifier's spelling), one per distinct name.
        """
        found = self.sizes.get(name)
        if found is not None:
            return found
        variadic = name.startswith("*")
        bare = name[1:] if variadic else name
        if not _IDENT.match(bare):
            raise ValueError(f"size name {name!r} is not an identifier")
        suffix = bare if bare.isascii() else str(len(self.sizes))
        var = f"{self.prefix}{'v' if variadic else 'd'}_{suffix}"
        self.sizes[name] = var
        return var

    # -- test nodes as expressions ---------------------------------------------------------
    def expression(self, node: Node, v: str, label: str, depth: int = 0) -> str:
        """A boolean expression: does the value named by ``v`` pass ``node``?"""
        kind = type(node)
        if kind is Always:
            return "True"
        if kind is IsNone:
            return f"{v} is None"
        isinstance_ = self.b("isinstance")
        if kind is Instance:
            cls = node.cls
            if _learned(cls):
                # An ABC's isinstance (an equinox Module's reads ``__class__`` through
                # the module's own ``__getattribute__``) costs far more than looking
                # its class up among the classes that passed before.
                seen = self.const({}, "KI")
                return (
                    f"({self.b('id')}({self.b('type')}({v})) in {seen} or "
                    f"{self.const(learn_instance, 'li')}({v}, {self.const(cls, 'k')}, {seen}))"
                )
            return f"{isinstance_}({v}, {self.const(cls, 'k')})"
        if kind is Subclass:
            is_class = f"{isinstance_}({v}, {self.b('type')})"
            if not _plain_checks(node.cls):
                return f"({is_class} and {self.b('issubclass')}({v}, {self.const(node.cls, 'k')}))"
            seen = self.const({}, "KC")
            return (
                f"({is_class} and ({self.b('id')}({v}) in {seen} or "
                f"{self.const(learn_subclass, 'ls')}({v}, {self.const(node.cls, 'k')}, {seen})))"
            )
        if kind is Numeric:
            cls = self.b(node.name)
            wider = self.const(int if node.name == "float" else (int, float), "k")
            cfg = self.const(config, "cfg")
            return (
                f"({isinstance_}({v}, {cls}) or ({cfg}.numeric_tower and "
                f"{isinstance_}({v}, {wider})))"
            )
        if kind is Accept:
            # A Type outside the type language's tables answers for itself.
            test = self.const(ACCEPT.get(type(node.t)) or _accept_any, "acc")
            return f"{test}({v}, {self.const(node.t, 't')})"
        if kind is Or:
            return "(" + " or ".join(self.expression(p, v, label, depth) for p in node.parts) + ")"
        if kind is Each:
            e = f"{self.prefix}e{depth}"
            inner = self.expression(node.element, e, label, depth + 1)
            return (
                f"({isinstance_}({v}, {self.const(node.cls, 'k')}) and {self.b('all')}"
                f"({inner} for {e} in {self.const(sample, 'sample')}({v})))"
            )
        if kind is Mapping:
            k, x = f"{self.prefix}k{depth}", f"{self.prefix}e{depth}"
            tests = " and ".join(
                t
                for t in (
                    self.expression(node.key, k, label, depth + 1),
                    self.expression(node.value, x, label, depth + 1),
                )
                if t != "True"
            )
            return (
                f"({isinstance_}({v}, {self.b('dict')}) and {self.b('all')}({tests} for "
                f"{k}, {x} in {self.const(sample, 'sample')}({v}.items())))"
            )
        if kind is Fixed:
            parts = [
                f"{isinstance_}({v}, {self.b('tuple')})",
                f"{self.b('len')}({v}) == {len(node.elements)}",
            ]
            parts += [
                self.expression(e, f"{v}[{i}]", label, depth) for i, e in enumerate(node.elements)
            ]
            return "(" + " and ".join(p for p in parts if p != "True") + ")"
        if kind is Match:
            if self.overrides and node.t in self.overrides:
                # The annotation's own matcher may read {...} sizes of the call.
                return self.expression(Walk(node.t), v, label, depth)
            return f"{self.const(matcher_for(node.t), 'm')}.match({v}, None)"
        if kind is Walk:
            env = self.env or f"{self.const(Bindings, 'B')}()"
            if scope_aware(node.t):
                return f"{self.const(node.t, 't')}.check({v}, {env})"
            return (
                f"{self.const(why, 'why')}({v}, {self.const(node.t, 't')}, {env}, "
                f"{label!r}, {self.const(self.overrides, 'ov')}) is None"
            )
        raise TypeError(f"no expression for {node!r}")

    # -- arrays as statements -----------------------------------------------------------------
    def array(self, node: ArrayCheck, v: str, fail: str) -> None:
        """Statements checking an array whose sizes are local variables."""
        if node.optional:
            self.add(f"if {v} is not None:")
            self.depth += 1
        self._array(node, v, fail)
        if node.optional:
            self.depth -= 1

    def _array(self, node: ArrayCheck, v: str, fail: str) -> None:
        t = node.t
        kind = t.kind
        test, accepted = _dtype_tables(t.dtypes)
        s = f"{self.prefix}s"
        ops = node.ops
        if kind in ("numpy", "torch", "jax"):
            # A class whose .shape and .dtype are its library's C-level attributes
            # (core.arrays.native_kind) is read inline. Anything else (a subclass that
            # overrides them, a class that only claims the library's name, an object
            # whose __class__ lies) goes through the guarded extraction, whatever its
            # properties do.
            seen = NATIVE_CLASSES.setdefault(kind, set())
            ks = self.const(seen, "KS")
            # NumPy's own class is tested by identity first: one pointer comparison
            # where the set lookup hashes the class.
            first = (
                f"{self.b('type')}({v}) is {self.const(np.ndarray, 'ND')} or "
                if kind == "numpy"
                else ""
            )
            # A class its metaclass made unhashable cannot be looked up in the set: its
            # TypeError sends the value through the extraction too. (A try costs
            # nothing until something raises; a TypeCheckError of a failed check, a
            # TypeError too, passes through.)
            self.add("try:")
            self.depth += 1
            self.add(
                f"if {first}{self.b('type')}({v}) in {ks} or "
                f"{self.const(learn_native, 'kslow')}({v}, {kind!r}, {ks}):"
            )
            self.depth += 1
            if t.dtypes is not None:
                self._dtype(t, v, test, accepted, fail)
            self.add(f"{s} = {v}.shape" if ops else "pass")
            self.depth -= 1
            self.add("else:")
            self.depth += 1
            self._extracted(kind, v, test, s, ops, fail)
            self.depth -= 2
            self.add(f"except {self.const(TypeCheckError, 'TCE')}:")
            self.add("    raise")
            self.add(f"except {self.b('TypeError')}:")
            self.depth += 1
            self._extracted(kind, v, test, s, ops, fail)
            self.depth -= 1
        else:
            self._extracted(kind, v, test, s, ops, fail)
        if not ops:
            return
        if (
            ops[0][0] == "rank"
            and len(ops) == ops[0][1] + 1
            and all(
                op[0] in ("bind", "same") and op[1] == i and not op[3]
                for i, op in enumerate(ops[1:])
            )
        ):
            # Every axis binds a new name or meets a bound one, in order: one unpacking
            # reads them all (a met size into a temporary compared after).
            self.add(f"if {self.b('len')}({s}) != {ops[0][1]}:")
            self.add(f"    {fail}")
            targets = [
                self.size_var(op[2]) if op[0] == "bind" else f"{self.prefix}e{op[1]}"
                for op in ops[1:]
            ]
            self.add(f"{', '.join(targets)}{',' if len(ops) == 2 else ''} = {s}")
            for op, target in zip(ops[1:], targets, strict=True):
                if op[0] == "same":
                    self.add(f"if {target} != {self.size_var(op[2])}:")
                    self.add(f"    {fail}")
            return
        for op in ops:
            self._shape_op(op, s, fail)

    def _extracted(
        self, kind: Any, v: str, test: DtypeTest, s: str, ops: list | tuple, fail: str
    ) -> None:
        """Read dtype name and shape through the kind's guarded extractor (None: not
        an array of that kind, whatever its attributes did)."""
        e = f"{self.prefix}x"
        self.add(f"{e} = {self.const(extractor(kind), 'ex')}({v})")
        self.add(f"if {e} is None:")
        self.add(f"    {fail}")
        if test.names is not None:
            self.add(f"if not {self.const(test, 'dt')}.accepts({v}, {e}[0]):")
            self.add(f"    {fail}")
        if ops:
            self.add(f"{s} = {e}[1]")

    def _dtype(self, t: Any, v: str, test: DtypeTest, seen: set, fail: str) -> None:
        d = f"{self.prefix}dt"
        accepted = self.const(seen, "DS")
        slow = f"not {self.const(_dtype_slow, 'dslow')}({v}, {accepted}, {self.const(test, 'dt')})"
        self.add(f"{d} = {v}.dtype")
        single = t.dtype
        found = dtype_from_name(single) if single is not None else None
        if t.kind == "numpy" and found is not None and found.is_numpy:
            exact = self.const(np.dtype(single), "DT")
            self.add(f"if {d} is not {exact} and {d} not in {accepted} and {slow}:")
        else:
            self.add(f"if {d} not in {accepted} and {slow}:")
        self.add(f"    {fail}")

    def _shape_op(self, op: tuple, s: str, fail: str) -> None:
        verb = op[0]
        if verb == "shape":
            self.add(f"if {s} != {self.const(op[1], 'SH')}:")
        elif verb == "rank":
            self.add(f"if {self.b('len')}({s}) != {op[1]}:")
        elif verb == "min_rank":
            self.add(f"if {self.b('len')}({s}) < {op[1]}:")
        elif verb == "fixed":
            _, axis, size, broadcast = op
            extra = f" and {s}[{axis}] != 1" if broadcast else ""
            self.add(f"if {s}[{axis}] != {int(size)}{extra}:")
        elif verb in ("bind", "same", "maybe"):
            self._named(op, s, fail)
            return
        elif verb == "expr":
            _, axis, dim, broadcast = op
            extra = f" and {s}[{axis}] != 1" if broadcast else ""
            self.add(f"if {s}[{axis}] != {self._dim_code(dim)}{extra}:")
        else:
            self._variadic(op, s, fail)
            return
        self.add(f"    {fail}")

    def _named(self, op: tuple, s: str, fail: str) -> None:
        verb, axis, name, broadcast = op
        var, a = self.size_var(name), f"{s}[{axis}]"
        if broadcast:
            self.add(f"if {a} != 1:")
            self.depth += 1
        if verb == "bind":
            self.add(f"{var} = {a}")
        elif verb == "same":
            self.add(f"if {a} != {var}:")
            self.add(f"    {fail}")
        else:
            self.add(f"if {var} is {self.const(UNBOUND, 'U')}:")
            self.add(f"    {var} = {a}")
            self.add(f"elif {a} != {var}:")
            self.add(f"    {fail}")
        if broadcast:
            self.depth -= 1

    def _variadic(self, op: tuple, s: str, fail: str) -> None:
        verb, start, tail, name = op
        var = self.size_var(name)
        tuple_ = self.b("tuple")
        segment = (
            f"{tuple_}({s}[{start}:])"
            if tail == 0
            else f"{tuple_}({s}[{start}:{self.b('len')}({s}) - {tail}])"
        )
        if verb == "vbind":
            self.add(f"{var} = {segment}")
            return
        if verb == "vsame":
            self.add(f"if {segment} != {var}:")
            self.add(f"    {fail}")
            return
        g = f"{self.prefix}g"
        self.add(f"{g} = {segment}")
        self.add(f"if {var} is {self.const(UNBOUND, 'U')}:")
        self.add(f"    {var} = {g}")
        self.add(f"elif {g} != {var}:")
        self.add(f"    {fail}")

    def _dim_code(self, dim: Any) -> str:
        """Python for a size expression over bound size variables.

        Sums, products, ``min`` and ``max`` of non-negative sizes never raise and stay
        small, so they become Python arithmetic. ``//`` and ``%`` may divide by zero and
        ``**`` may ask for a huge integer (``n**10**8``): they go through
        ``Dim.evaluate``, which stops before computing a value over
        ``limits.MAX_BITS`` bits (None on error, which fails the check).
        """
        text = str(dim)
        tokens = _EXPR_TOKENS.findall(text)
        names = dim.free_symbols
        if "".join(tokens) == text and not any(op in text for op in ("//", "%", "**")):
            out = []
            for tok in tokens:
                if tok in names:
                    out.append(self.size_var(tok))
                elif tok in ("min", "max"):
                    out.append(self.b(tok))
                elif not _IDENT.match(tok):
                    out.append(tok)
                else:
                    break
            else:
                return "(" + "".join(out) + ")"
        sizes = ", ".join(f"{n!r}: {self.size_var(n)}" for n in sorted(names))
        return f"{self.const(_evaluate, 'ev')}({self.const(dim, 'dim')}, {{{sizes}}})"
