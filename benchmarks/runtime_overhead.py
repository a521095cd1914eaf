"""The cost of run-time checking: tensortypes, jaxtyping and a hand-written check, side by side.

One process, one table. The workload is the issue's signature

    f(x: Float[np.ndarray, "b c"], y: Float[np.ndarray, "c d"]) -> Float[np.ndarray, "b d"]

called with x (8, 16) and y (16, 32) float32 arrays, returning a preallocated
(8, 32) array, so what is timed is the check, not the arithmetic. Rows:

- call overhead (time of a checked call minus an undecorated one) for
  ``typechecked``, jaxtyping's ``jaxtyped(typechecker=beartype)``, jaxtyping with
  typeguard 2.13.3, and a careful hand-written check (isinstance, dtype, shape
  unpacking, local comparisons);
- a failing call, including building its message;
- ``isinstance(x, T)`` outside any call, and repeating a subscript;
- constructing a checked dataclass, over a plain one;
- the same signature on torch tensors and JAX arrays (ours);
- the call overhead of each decorator form a jaxtyping user may keep or switch
  to (``typechecked``, a bare ``jaxtyped``, ``jaxtyped(typechecker=beartype)``
  and ``jaxtyped(typechecker=typeguard.typechecked)``, ours and jaxtyping's):
  the figures behind the speed table of docs/migrating.md.

Each timing is the best of several repeats of a loop long enough to dwarf the
clock. Run it in its own environment, never in the test one (jaxtyping must not
be importable there):

    python -m venv --system-site-packages /tmp/tt-bench-rt
    /tmp/tt-bench-rt/bin/pip install jaxtyping beartype "typeguard==2.13.3"
    /tmp/tt-bench-rt/bin/pip install -e .
    /tmp/tt-bench-rt/bin/python benchmarks/runtime_overhead.py

(torch and JAX come from the system site here; without them, or without
jaxtyping, beartype or typeguard, those columns read ``n/a``.)
"""

# No ``from __future__ import annotations`` here: jaxtyping reads a string annotation
# naming a local variable as Any, which would time it checking nothing.
import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_ns, markdown_table  # noqa: E402 (shared helpers beside this script)

# Targets (docs/benchmarks.md): overhead within 10% of the hand-written check's and 20x below
# jaxtyping+beartype's; a failing call under 200 us; isinstance under 500 ns; a
# repeated subscript under 1 us; a dataclass at most 1.5 us over a plain one;
# torch and JAX calls under 2 us of overhead.
RATIO_HAND = 1.10
SPEEDUP = 20.0
FAIL_NS = 200_000.0
ISINSTANCE_NS = 500.0
SUBSCRIPT_NS = 1_000.0
DATACLASS_NS = 1_500.0
OTHER_LIBRARY_NS = 2_000.0


def _signature(Float32, kind):  # noqa: N803 (the dtype class, as users spell it)
    return Float32[kind, "b c"], Float32[kind, "c d"], Float32[kind, "b d"]


def _ours(out):
    from tensortypes.annotate import Float32
    from tensortypes.runtime import typechecked

    X, Y, R = _signature(Float32, np.ndarray)

    @typechecked
    def f(x: X, y: Y) -> R:
        return out

    @typechecked
    @dataclasses.dataclass
    class Pair:
        x: X
        y: Y

    return {"f": f, "Pair": Pair, "X": X, "Float32": Float32}


def _jaxtyping(out, typechecker_name):
    try:
        import jaxtyping

        if typechecker_name == "beartype":
            from beartype import beartype as checker
        else:
            import typeguard

            if hasattr(typeguard, "TypeCheckError"):  # typeguard 3+: not jaxtyping's form
                return None
            checker = typeguard.typechecked
    except ImportError:
        return None
    X, Y, R = _signature(jaxtyping.Float32, np.ndarray)

    @jaxtyping.jaxtyped(typechecker=checker)
    def f(x: X, y: Y) -> R:
        return out

    @jaxtyping.jaxtyped(typechecker=checker)
    @dataclasses.dataclass
    class Pair:
        x: X
        y: Y

    return {"f": f, "Pair": Pair, "X": X, "Float32": jaxtyping.Float32}


def _decorator_forms(out) -> dict:
    """``{form: checked f}`` for every decorator form that can be built here."""
    import tensortypes
    from tensortypes.annotate import Float32

    X, Y, R = _signature(Float32, np.ndarray)
    forms: dict = {
        "tensortypes: @typechecked": tensortypes.typechecked,
        "tensortypes: @jaxtyped": tensortypes.jaxtyped,
    }
    checkers: dict = {}
    try:
        from beartype import beartype

        checkers["beartype"] = beartype
    except ImportError:
        pass
    try:
        import typeguard

        if not hasattr(typeguard, "TypeCheckError"):  # 2.x, the form jaxtyping supports
            checkers["typeguard.typechecked"] = typeguard.typechecked
    except ImportError:
        pass
    for name, checker in checkers.items():
        forms[f"tensortypes: @jaxtyped(typechecker={name})"] = tensortypes.jaxtyped(
            typechecker=checker
        )
    try:
        import jaxtyping
    except ImportError:
        jaxtyping = None
    if jaxtyping is not None:
        JX, JY, JR = _signature(jaxtyping.Float32, np.ndarray)
        for name, checker in checkers.items():
            forms[f"jaxtyping: @jaxtyped(typechecker={name})"] = (
                jaxtyping.jaxtyped(typechecker=checker),
                (JX, JY, JR),
            )
    built = {}
    for form, decorator in forms.items():
        x_t, y_t, r_t = (X, Y, R)
        if isinstance(decorator, tuple):
            decorator, (x_t, y_t, r_t) = decorator

        def f(x, y):
            return out

        f.__annotations__ = {"x": x_t, "y": y_t, "return": r_t}
        built[form] = decorator(f)
    return built


def _hand(out):
    ndarray, f32 = np.ndarray, np.dtype(np.float32)

    def body(x, y):
        return out

    def f(x, y):
        if type(x) is not ndarray and not isinstance(x, ndarray) or x.dtype != f32:
            raise TypeError("x")
        if type(y) is not ndarray and not isinstance(y, ndarray) or y.dtype != f32:
            raise TypeError("y")
        sx, sy = x.shape, y.shape
        if len(sx) != 2 or len(sy) != 2:
            raise TypeError("rank")
        b, c = sx
        c2, d = sy
        if c2 != c:
            raise TypeError("c")
        result = body(x, y)
        if (
            type(result) is not ndarray
            and not isinstance(result, ndarray)
            or result.dtype != f32
            or result.shape != (b, d)
        ):
            raise TypeError("return")
        return result

    return {"f": f}


def _library_call(kind_name):
    """``(checked, plain, x, y)`` for the signature on torch or JAX, or None."""
    from tensortypes.annotate import Float32
    from tensortypes.runtime import typechecked

    try:
        if kind_name == "torch":
            import torch

            kind, x, y = torch.Tensor, torch.zeros(8, 16), torch.zeros(16, 32)
            out = torch.zeros(8, 32)
        else:
            import jax
            import jax.numpy as jnp

            kind, x, y = jax.Array, jnp.zeros((8, 16)), jnp.zeros((16, 32))
            out = jnp.zeros((8, 32))
    except ImportError:
        return None
    X, Y, R = _signature(Float32, kind)

    def plain(x, y):
        return out

    @typechecked
    def checked(x: X, y: Y) -> R:
        return out

    return checked, plain, x, y


def measure(repeat: int, min_time: float) -> dict:
    x = np.zeros((8, 16), np.float32)
    y = np.zeros((16, 32), np.float32)
    bad = np.zeros((4, 32), np.float32)
    out = np.zeros((8, 32), np.float32)

    def plain(x, y):
        return out

    def t(stmt: str, ns: dict) -> float:
        return best_ns(stmt, {**ns, "x": x, "y": y, "bad": bad}, repeat, min_time)

    sides = {
        "tensortypes": _ours(out),
        "jaxtyping+beartype": _jaxtyping(out, "beartype"),
        "jaxtyping+typeguard2": _jaxtyping(out, "typeguard"),
        "hand-written": _hand(out),
    }
    base = t("f(x, y)", {"f": plain})
    results: dict = {
        "undecorated call": base,
        "overhead": {},
        "failing call": {},
        "isinstance": {},
        "subscript": {},
        "dataclass over plain": {},
        "library overhead": {},
    }
    for name, side in sides.items():
        if side is None:
            continue
        results["overhead"][name] = t("f(x, y)", side) - base
        if name == "hand-written":
            continue
        results["failing call"][name] = t("try:\n    f(x, bad)\nexcept Exception:\n    pass", side)
        results["isinstance"][name] = t("isinstance(x, X)", side)
        results["subscript"][name] = t("Float32[np.ndarray, 'b c']", {**side, "np": np})
        plain_pair = dataclasses.make_dataclass("Plain", [("x", np.ndarray), ("y", np.ndarray)])
        results["dataclass over plain"][name] = t("Pair(x, y)", side) - t(
            "Pair(x, y)", {"Pair": plain_pair}
        )
    results["decorator forms"] = {
        form: t("f(x, y)", {"f": f}) - base for form, f in _decorator_forms(out).items()
    }
    for library in ("torch", "jax"):
        found = _library_call(library)
        if found is None:
            continue
        checked, plain_lib, lx, ly = found
        ns = {"f": checked, "g": plain_lib, "lx": lx, "ly": ly}
        results["library overhead"][library] = best_ns("f(lx, ly)", ns, repeat, min_time) - best_ns(
            "g(lx, ly)", ns, repeat, min_time
        )
    return results


def _fmt(ns: "float | None") -> str:
    if ns is None:
        return "n/a"
    if ns >= 100_000:
        return f"{ns / 1000:,.0f} us"
    if ns >= 10_000:
        return f"{ns / 1000:,.1f} us"
    return f"{ns:,.0f} ns"


def verdicts(r: dict) -> list:
    """Rows of the table: what, ours, hand, jaxtyping+beartype, +typeguard2, verdict."""
    rows = []

    def get(section: str, name: str) -> "float | None":
        return r[section].get(name)

    ours, hand, bear = (
        get("overhead", n) for n in ("tensortypes", "hand-written", "jaxtyping+beartype")
    )
    misses = []
    if hand is not None and ours > RATIO_HAND * hand:
        misses.append(f"{ours / hand:.2f}x hand-written")
    if bear is not None and bear / ours < SPEEDUP:
        misses.append(f"only {bear / ours:.1f}x below jaxtyping+beartype")
    speedup = "" if bear is None else f" ({bear / ours:.0f}x less than jaxtyping+beartype)"
    rows.append(
        (
            "call overhead",
            _fmt(ours),
            _fmt(hand),
            _fmt(bear),
            _fmt(get("overhead", "jaxtyping+typeguard2")),
            ("MISSED " + "; ".join(misses)) if misses else "ok" + speedup,
        )
    )
    for section, label, limit in (
        ("failing call", "failing call with message", FAIL_NS),
        ("isinstance", "isinstance(x, T), no scope", ISINSTANCE_NS),
        ("subscript", "Float32[np.ndarray, 'b c'] again", SUBSCRIPT_NS),
        ("dataclass over plain", "dataclass construction over plain", DATACLASS_NS),
    ):
        value = get(section, "tensortypes")
        rows.append(
            (
                label,
                _fmt(value),
                "",
                _fmt(get(section, "jaxtyping+beartype")),
                _fmt(get(section, "jaxtyping+typeguard2")),
                "ok" if value is not None and value <= limit else f"MISSED > {_fmt(limit)}",
            )
        )
    for library, value in r["library overhead"].items():
        rows.append(
            (
                f"call overhead on {library}",
                _fmt(value),
                "",
                "",
                "",
                "ok" if value <= OTHER_LIBRARY_NS else f"MISSED > {_fmt(OTHER_LIBRARY_NS)}",
            )
        )
    return rows


def render(r: dict) -> str:
    header = (
        "measure",
        "tensortypes",
        "hand-written",
        "jaxtyping+beartype",
        "jaxtyping+typeguard2",
        "target",
    )
    forms = r.get("decorator forms", {})
    fastest = min(forms.values(), default=None)
    form_rows = [
        (form, _fmt(ns), f"{ns / fastest:.1f}x" if fastest else "") for form, ns in forms.items()
    ]
    return (
        f"undecorated call: {_fmt(r['undecorated call'])}\n\n"
        + markdown_table(header, verdicts(r))
        + "\n\ncall overhead per decorator form:\n\n"
        + markdown_table(("decorator form", "call overhead", "vs fastest"), form_rows)
    )


def main(argv: "list[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="best of N repeats")
    parser.add_argument(
        "--min-time", type=float, default=0.05, help="seconds each timing loop runs at least"
    )
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    args = parser.parse_args(argv)
    results = measure(args.repeat, args.min_time)
    print(json.dumps(results, indent=2) if args.json else render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
