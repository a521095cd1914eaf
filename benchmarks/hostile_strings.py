"""Hostile shape strings: each is accepted or refused in bounded time, and annotations are freed.

Shape strings come from users, from files the static checker reads and sometimes from
data, so no string may make the library hang. This script times, for each string, what
a user would pay the first time it is seen: building ``Float[np.ndarray, s]`` (parse,
normal form, code generation) and one ``isinstance`` of an array of its rank (which
evaluates its expressions; braces read from a scope's arguments), or the
``AnnotationError`` that refuses it. Two sets of strings:

- the worst strings of the reliability probe (each named; several were hangs of 5 s to
  over 20 s, or raw exceptions, before the limits of ``tensortypes.core.limits``);
- a generated set of strings of at most 200 characters (seeded), built to be hostile:
  products of sums, powers and power chains, ``min``/``max`` of many names, deep
  nesting, unary chains, long numbers, braces, Unicode names and character soup.

Each string is timed cold three times (the library's caches of parsed text, of
annotation classes and of dimension arithmetic are emptied before each run, so every
run does the whole work) and its best run is kept. The target: every string of at most
200 characters accepted or refused in under 10 ms of CPU time. CPU time is the
measure because it counts the work done (garbage collection included) and not the
time the process waits for a core: on a shared host a run of 1 ms of work often takes
15 ms of wall time. Wall times are printed beside it.

For the probe's strings a third figure: decorating a function whose parameter has the
annotation with ``typechecked`` and calling it once (its generated checker does its own
arithmetic on sizes).

Then memory: the bytes retained per distinct annotation while it is in use, and after
nothing uses it any more (annotation classes are held weakly and freed, with their
generated source).

    python benchmarks/hostile_strings.py                 # 3,000 generated strings
    python benchmarks/hostile_strings.py --generated 20000 --seed 7

Needs only NumPy; it runs in the test environment too.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import markdown_table  # noqa: E402 (shared helpers beside this script)

from tensortypes import AnnotationError, Float, TypeCheckError, typechecked  # noqa: E402
from tensortypes.annotate import _array, _dtypes, _shape, scope  # noqa: E402
from tensortypes.core import _dimexpr, dims  # noqa: E402

TARGET_MS = 10.0
SHORT = 200  # the target applies to strings of at most this many characters
REPEATS = 3


class _Owner:
    size = 4
    k = 2


# The arguments a checked call would bind; braces read them.
ARGUMENTS = {"k": 2, "a": 3, "b": 2, "dim": 5, "self": _Owner(), "fn": len, "x_": 1}


def _binomials(k: int) -> str:
    return "*".join(f"(a{i}+b{i})" for i in range(k))


def _names(k: int) -> str:
    return ",".join(f"a{i}" for i in range(k))


# (name, string): the probe's worst inputs (sections 1a and 1b), as it wrote them.
WORST = [
    ("15 binomials multiplied (was 4.6 s)", _binomials(15)),
    ("20 binomials multiplied (was > 5 s)", _binomials(20)),
    ("(a+b)**64*(c+d)**64*(e+f)**64 (was > 5 s)", "(a+b)**64*(c+d)**64*(e+f)**64"),
    ("max of 40 names", f"max({_names(40)})"),
    ("max of 800 names (was 10.5 s)", f"max({_names(800)})"),
    ("max of 5000 names (was > 5 s)", f"max({_names(5000)})"),
    ("n n**10**8, used (was > 20 s)", "n n**10**8"),
    ("n n**10**7, used (was 3.7 s)", "n n**10**7"),
    ("n m (n**10000)**m, used", "n m (n**10000)**m"),
    ("(n+2**4000)**4 (was a ValueError)", "(n+2**4000)**4"),
    ("9 x 4301 digits (was a ValueError)", "9" * 4301),
    ("9 x 1300 digits", "9" * 1300),
    ("9 x 199 digits", "9" * 199),
    ("2**4096", "2**4096"),
    ("2**4097", "2**4097"),
    ("5,000 unary minus", "-" * 5000 + "n"),
    ("2,000 nested parentheses", "(" * 2000 + "n" + ")" * 2000),
    ("99 nested parentheses", "(" * 99 + "n" + ")" * 99),
    ("20,000-term sum", "+".join(["n"] * 20000)),
    ("66-term sum of names", "+".join(f"a{i}" for i in range(66))),
    ("n**n**n**n", "n**n**n**n"),
    ("** chain of 40", "**".join(["n"] * 40)),
    ("(a+b)**64", "(a+b)**64"),
    ("(a+b+c)**20", "(a+b+c)**20"),
    ("n//2//3//... (66 divisions)", "//".join(["n"] + ["2"] * 66)),
    ("200,000-character name", "n" * 200000),
    ("NUL character", "n\x00"),
    ("{x_.__class__}", "{x_.__class__}"),
    ("{fn.__globals__}", "{fn.__globals__}"),
    ("n{k} (was the symbol n1)", "n n{k}"),
    ("{a}{b} (was pasted as text)", "{a}{b}"),
    ("{dim-1} {a*b} {self.size}", "{dim-1} {a*b} {self.size}"),
    ("ﬁ fi ﬁ+fi", "ﬁ fi ﬁ+fi"),
    ("injection payload", "__import__('os').system('true')"),
]


# -- the generated set ------------------------------------------------------------------------

_NAMES = ["n", "m", "a", "b", "c", "h", "w", "ﬁ", "fi", "𝐧", "Δ", "k0", "k1", "batch", "in"]
_BRACES = ["{k}", "{a*b}", "{self.size}", "{dim-1}", "{x.__class__}", "{k", "k}", "{}"]
_SOUP = list("()+-*/%,{}._#?=*  0123456789nmab") + [
    "**",
    "//",
    "max(",
    "min(",
    "\x00",
    "\ud800",
    "²",
    "٣",
    "Ⅻ",
    "１",
    "\u3000",
    "ﬁ",
    "𝐧",
    "😀",
    "\u0301",
]


def _expr(rng: random.Random, depth: int) -> str:
    if depth > 6 or rng.random() < 0.25:
        roll = rng.random()
        if roll < 0.6:
            return rng.choice(_NAMES)
        if roll < 0.85:
            return str(rng.choice([0, 1, 2, 3, 7, 10, 64, 4096, 10 ** rng.randint(1, 60)]))
        return rng.choice(_BRACES)
    kind = rng.randrange(9)
    if kind < 3:
        op = rng.choice(["+", "-", "*", "*", "//", "%", "**"])
        return f"{_expr(rng, depth + 1)}{op}{_expr(rng, depth + 1)}"
    if kind == 3:
        return f"({_expr(rng, depth + 1)})"
    if kind == 4:
        return "-" + _expr(rng, depth + 1)
    if kind == 5:
        args = ",".join(_expr(rng, depth + 2) for _ in range(rng.randint(1, 6)))
        return f"{rng.choice(['max', 'min'])}({args})"
    if kind == 6:
        return f"({_expr(rng, depth + 1)})**{rng.choice([2, 3, 8, 64, 65, 10**8])}"
    if kind == 7:
        return "*".join(
            f"({rng.choice(_NAMES)}+{rng.choice(_NAMES)})" for _ in range(rng.randint(2, 20))
        )
    return "**".join(rng.choice(_NAMES) for _ in range(rng.randint(2, 8)))


def _fill(rng: random.Random) -> str:
    """One of the adversarial shapes, repeated up to the character budget."""
    kind = rng.randrange(8)
    parts: list[str] = []
    if kind == 0:  # a product of as many sums as fit
        unit = lambda i: f"({rng.choice(_NAMES)}{i}+{rng.choice(_NAMES)}{i})"  # noqa: E731
        joiner, head, tail = "*", "", ""
    elif kind == 1:  # max/min of as many names as fit
        unit = lambda i: f"a{i}"  # noqa: E731
        joiner, head, tail = ",", rng.choice(["max(", "min("]), ")"
    elif kind == 2:  # nesting
        depth = rng.randint(10, 99)
        return "(" * depth + "n" + ")" * depth
    elif kind == 3:  # unary chain
        return "".join(rng.choice("-+") for _ in range(rng.randint(10, 199))) + "n"
    elif kind == 4:  # a long number
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(20, 200)))
    elif kind == 5:  # a sum of many names
        unit = lambda i: f"{rng.choice(_NAMES)}{i}"  # noqa: E731
        joiner, head, tail = rng.choice("+-"), "", ""
    elif kind == 6:  # a product of many names or a power tower
        unit = lambda i: rng.choice(_NAMES)  # noqa: E731
        joiner, head, tail = rng.choice(["*", "**"]), "", ""
    else:  # many axes
        unit = lambda i: f"{rng.choice(_NAMES)}{i}"  # noqa: E731
        joiner, head, tail = " ", "", ""
    i = 0
    while True:
        piece = unit(i)
        if len(head) + len(tail) + len(joiner.join(parts + [piece])) > SHORT:
            break
        parts.append(piece)
        i += 1
    return head + joiner.join(parts) + tail


def generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.45:
            axes = []
            for _ in range(rng.randint(1, 6)):
                prefix = "".join(rng.sample(["#", "*", "_", "?", "rows="], rng.randint(0, 1)))
                axes.append(prefix + _expr(rng, 0))
            text = " ".join(axes)
        elif roll < 0.8:
            text = _fill(rng)
        else:
            text = "".join(rng.choice(_SOUP) for _ in range(rng.randint(1, SHORT)))
        out.append(text[:SHORT])
    return out


# -- timing -----------------------------------------------------------------------------------


def _clear_caches() -> None:
    """Empty the caches that would let a repeated string skip work."""
    _array._CANON.clear()
    _dtypes._RAW.clear()
    _dtypes._RAW_UNIONS.clear()
    _shape._PARSED.clear()
    dims._PARSED.clear()
    _dimexpr._BIN_CACHE.clear()


def _attempt(text: str) -> str:
    """Build the annotation and use it once; what happened, in one word."""
    try:
        ann = Float[np.ndarray, text]
    except AnnotationError:
        return "refused"
    matcher = ann._tt_matcher
    rank = len(matcher.dims) - (matcher.index_variadic is not None)
    try:
        with scope(dict(ARGUMENTS)):
            # Sizes 3 (1 beyond 38 axes: NumPy counts elements in an int64).
            shape = (3 if rank <= 38 else 1,) * min(rank, 64)
            isinstance(np.broadcast_to(np.float64(0), shape), ann)
    except AnnotationError:
        return "refused at use"
    return "accepted"


def checked_call_ms(text: str) -> str:
    """CPU milliseconds of decorating ``f(x: ann, k, a, b, dim, self)`` with
    ``typechecked`` and calling it once (the generated checker's own arithmetic)."""
    # (The braces' arguments are passed too; x_ stands for the probe's x.)
    try:
        ann = Float[np.ndarray, text]
    except AnnotationError:
        return "-"
    matcher = ann._tt_matcher
    rank = len(matcher.dims) - (matcher.index_variadic is not None)
    shape = (3 if rank <= 38 else 1,) * min(rank, 64)

    def f(x, k, a, b, dim, self, fn, x_):
        return None

    f.__annotations__ = {"x": ann}
    start = time.process_time()
    try:
        typechecked(f)(np.broadcast_to(np.float64(0), shape), **ARGUMENTS)
    except (AnnotationError, TypeCheckError):
        pass
    return f"{(time.process_time() - start) * 1e3:.2f}"


def cold_ms(text: str) -> tuple[float, float, str]:
    """Best of REPEATS cold runs of ``_attempt(text)``: CPU and wall milliseconds."""
    cpu = wall = float("inf")
    outcome = ""
    for _ in range(REPEATS):
        _clear_caches()
        start, start_cpu = time.perf_counter(), time.process_time()
        outcome = _attempt(text)
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start)
    return cpu * 1e3, wall * 1e3, outcome


def _shown(text: str) -> str:
    text = text.encode("unicode_escape").decode("ascii")
    return (text if len(text) <= 40 else text[:37] + "...").replace("|", "\\|")


def memory(count: int) -> tuple[float, float, float]:
    """KiB retained per distinct annotation while in use and after release, and the
    CPU milliseconds to build one (without tracemalloc, which slows allocation)."""
    start = time.process_time()
    timed = [Float[np.ndarray, f"time_a time_b {i + 2}"] for i in range(count)]
    seconds = time.process_time() - start
    del timed
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = [Float[np.ndarray, f"mem_a mem_b {i + 2}"] for i in range(count)]
    gc.collect()
    in_use = tracemalloc.get_traced_memory()[0] - base
    del kept
    gc.collect()
    after = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return in_use / count / 1024, after / count / 1024, seconds / count * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20240)
    parser.add_argument("--memory", type=int, default=2000)
    args = parser.parse_args()
    Float[np.ndarray, "warm up"]  # imports and first-use costs outside the timings

    rows, worst_short = [], 0.0
    for name, text in WORST:
        cpu, wall, outcome = cold_ms(text)
        if len(text) <= SHORT:
            worst_short = max(worst_short, cpu)
        rows.append((name, len(text), outcome, f"{cpu:.2f}", f"{wall:.2f}", checked_call_ms(text)))
    print("## The probe's worst strings\n")
    print(
        markdown_table(
            ("string", "characters", "outcome", "CPU ms", "wall ms", "checked call CPU ms"), rows
        )
    )

    texts = generated(args.generated, args.seed)
    timed = [(cold_ms(t), t) for t in texts]
    cpu = sorted(c for (c, _, _), _ in timed)
    wall = sorted(w for (_, w, _), _ in timed)
    outcomes: dict[str, int] = {}
    for (_, _, outcome), _ in timed:
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print(f"\n## {len(texts)} generated strings of at most {SHORT} characters (seed {args.seed})\n")
    print(", ".join(f"{outcome}: {n}" for outcome, n in sorted(outcomes.items())))
    print()
    print(
        markdown_table(
            ("", "median", "99th percentile", "max"),
            [
                (
                    f"{name} ms",
                    *(
                        f"{v:.3f}"
                        for v in (
                            statistics.median(times),
                            times[int(len(times) * 0.99) - 1],
                            times[-1],
                        )
                    ),
                )
                for name, times in (("CPU", cpu), ("wall", wall))
            ],
        )
    )
    print()
    slowest = sorted(timed, key=lambda item: -item[0][0])[:5]
    print(
        markdown_table(
            ("slowest generated strings (CPU)", "characters", "outcome", "CPU ms", "wall ms"),
            [
                (f"`{_shown(t)}`", len(t), outcome, f"{c:.2f}", f"{w:.2f}")
                for (c, w, outcome), t in slowest
            ],
        )
    )
    worst_short = max(worst_short, cpu[-1])

    in_use, after, each_ms = memory(args.memory)
    print(f"\n## Memory: {args.memory} distinct annotations\n")
    print(
        markdown_table(
            ("retained per annotation", "KiB"),
            [("while in use", f"{in_use:.1f}"), ("after nothing uses it", f"{after:.1f}")],
        )
    )
    print(f"\nbuilding one: {each_ms:.2f} ms of CPU")

    verdict = "yes" if worst_short < TARGET_MS else "NO"
    print(
        f"\nevery string of at most {SHORT} characters under {TARGET_MS:g} ms of CPU: "
        f"{verdict} (slowest {worst_short:.2f} ms)"
    )


if __name__ == "__main__":
    main()
