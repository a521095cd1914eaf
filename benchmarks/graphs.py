"""Graphs with reductions and products, compiled, against NumPy, PyTensor C, numba and JAX ``jit``.

Float64, one process, one core (BLAS, OpenMP and XLA limited to one thread here,
before any of them is imported), best of several repeats of the process's CPU time
(``--wall``: wall-clock time); in each repeat every tool runs once, in turn, so a
load that changes during the run favours none of them:

- row softmax of a 2000x500 matrix: ``e = exp(S - S.max(1, keepdims)); e / e.sum(1, keepdims)``;
- layer norm of a 4096x1024 matrix: ``(X - mean) / sqrt(var + 1e-5)`` over rows;
- logistic loss, X 20000x200: ``sum(log(1 + exp(-y * (X @ w))))`` (our graph becomes
  ``softplus`` through the stability rewrites);
- the elementwise chain ``exp(x)*y + z*2 - x/y`` at 10^7 (the fused loop's benchmark);
- reductions over the leading axis of a 4096x1024 matrix: the column sum ``sum(exp(X), 0)``,
  column standardisation ``(X - mean) / sqrt(var + 1e-5)`` over axis 0 and the column
  softmax ``e = exp(X - X.max(0, keepdims)); e / e.sum(0, keepdims)``.

Each row also says how ours runs: which nodes run as C and which through ``perform``
inside the compiled function (``dot`` runs as C, calling SciPy's BLAS when installed).

    python benchmarks/graphs.py [--repeat 5] [--wall] [--only colsum colstd ...]

Tools that are not installed read ``absent``. PyTensor is the ``FAST_RUN`` C mode;
numba runs the same loops written out (``njit``, no ``fastmath``), its ``dot`` from
NumPy's BLAS; JAX on the CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_seconds, markdown_table  # noqa: E402

TOOLS = ("ours", "numpy", "pytensor", "numba", "jax jit")


def _ours():
    import tensortypes
    import tensortypes.tensor as tt

    def softmax():
        s = tt.tensor("float64", (2000, 500), name="S")
        e = tt.exp(s - tt.max(s, axis=1, keepdims=True))
        return [s], e / tt.sum(e, axis=1, keepdims=True)

    def standardised(axis):
        x = tt.tensor("float64", (4096, 1024), name="X")
        mu = tt.mean(x, axis=axis, keepdims=True)
        var = tt.mean((x - mu) * (x - mu), axis=axis, keepdims=True)
        return [x], (x - mu) / tt.sqrt(var + 1e-5)

    def layernorm():
        return standardised(1)

    def logistic():
        x = tt.tensor("float64", (20000, 200), name="X")
        w = tt.tensor("float64", (200,), name="w")
        y = tt.tensor("float64", (20000,), name="y")
        return [x, w, y], tt.sum(tt.log(1 + tt.exp(-y * tt.dot(x, w))))

    def chain():
        x, y, z = (tt.tensor("float64", ("n",), name=n) for n in "xyz")
        return [x, y, z], tt.exp(x) * y + z * 2 - x / y

    def colsum():
        x = tt.tensor("float64", (4096, 1024), name="X")
        return [x], tt.sum(tt.exp(x), axis=0)

    def colstd():
        return standardised(0)

    def colsoftmax():
        x = tt.tensor("float64", (4096, 1024), name="X")
        e = tt.exp(x - tt.max(x, axis=0, keepdims=True))
        return [x], e / tt.sum(e, axis=0, keepdims=True)

    out = {}
    for name, build in (
        ("softmax", softmax),
        ("layernorm", layernorm),
        ("logistic", logistic),
        ("chain", chain),
        ("colsum", colsum),
        ("colstd", colstd),
        ("colsoftmax", colsoftmax),
    ):
        inputs, output = build()
        f = tensortypes.function(inputs, output, mode="c")
        out[name] = (lambda *a, f=f: f(*a)), _plan(f)
    return out


def _plan(f) -> str:
    """Which ops of the compiled function run as C and which through ``perform``."""
    from tensortypes.link.c import CLinker

    compiled = CLinker().compile(f.fgraph)  # the module is in the cache: no build
    slow = {id(node) for node, _ in compiled.fallbacks}
    c, py = set(), set()
    for node in f.fgraph.toposort():
        (py if id(node) in slow else c).add(type(node.op).__name__)
    return f"C: {', '.join(sorted(c)) or '-'}; perform: {', '.join(sorted(py)) or '-'}"


def _reference(xp) -> dict:
    """The four graphs written with the array module ``xp`` (NumPy, or ``jax.numpy``)."""

    def softmax(s):
        e = xp.exp(s - s.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    def layernorm(x):
        mu = x.mean(1, keepdims=True)
        var = ((x - mu) ** 2).mean(1, keepdims=True)
        return (x - mu) / xp.sqrt(var + 1e-5)

    def colstd(x):
        mu = x.mean(0, keepdims=True)
        var = ((x - mu) ** 2).mean(0, keepdims=True)
        return (x - mu) / xp.sqrt(var + 1e-5)

    def colsoftmax(x):
        e = xp.exp(x - x.max(0, keepdims=True))
        return e / e.sum(0, keepdims=True)

    return {
        "softmax": softmax,
        "layernorm": layernorm,
        "logistic": lambda x, w, y: xp.sum(xp.logaddexp(0.0, -y * (x @ w))),
        "chain": lambda x, y, z: xp.exp(x) * y + z * 2 - x / y,
        "colsum": lambda x: xp.exp(x).sum(0),
        "colstd": colstd,
        "colsoftmax": colsoftmax,
    }


def _numpy():
    return _reference(np)


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    fns = {k: jax.jit(f) for k, f in _reference(jnp).items()}
    return {k: (lambda *a, g=g: g(*a).block_until_ready()) for k, g in fns.items()}, jnp.asarray


def _pytensor():
    try:
        import pytensor
        import pytensor.tensor as pt
    except ImportError:
        return None
    s, x = pt.dmatrix("S"), pt.dmatrix("X")
    e = pt.exp(s - s.max(axis=1, keepdims=True))
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) * (x - mu)).mean(axis=1, keepdims=True)
    w, y = pt.dvector("w"), pt.dvector("y")
    a, b, c = pt.dvector("a"), pt.dvector("b"), pt.dvector("c")
    cmu = x.mean(axis=0, keepdims=True)
    cvar = ((x - cmu) * (x - cmu)).mean(axis=0, keepdims=True)
    ce = pt.exp(x - x.max(axis=0, keepdims=True))
    graphs = {
        "softmax": ([s], e / e.sum(axis=1, keepdims=True)),
        "layernorm": ([x], (x - mu) / pt.sqrt(var + 1e-5)),
        "logistic": ([x, w, y], pt.sum(pt.log(1 + pt.exp(-y * pt.dot(x, w))))),
        "chain": ([a, b, c], pt.exp(a) * b + c * 2 - a / b),
        "colsum": ([x], pt.exp(x).sum(axis=0)),
        "colstd": ([x], (x - cmu) / pt.sqrt(cvar + 1e-5)),
        "colsoftmax": ([x], ce / ce.sum(axis=0, keepdims=True)),
    }
    return {k: pytensor.function(i, o, mode="FAST_RUN") for k, (i, o) in graphs.items()}, None


def _numba():
    try:
        import numba
    except ImportError:
        return None
    njit = numba.njit(cache=False, fastmath=False)

    @njit
    def softmax(s):
        out = np.empty_like(s)
        for i in range(s.shape[0]):
            m = -np.inf
            for j in range(s.shape[1]):
                m = max(m, s[i, j])
            t = 0.0
            for j in range(s.shape[1]):
                out[i, j] = np.exp(s[i, j] - m)
                t += out[i, j]
            for j in range(s.shape[1]):
                out[i, j] /= t
        return out

    @njit
    def layernorm(x):
        out = np.empty_like(x)
        n = x.shape[1]
        for i in range(x.shape[0]):
            mu = 0.0
            for j in range(n):
                mu += x[i, j]
            mu /= n
            var = 0.0
            for j in range(n):
                var += (x[i, j] - mu) * (x[i, j] - mu)
            scale = 1.0 / np.sqrt(var / n + 1e-5)
            for j in range(n):
                out[i, j] = (x[i, j] - mu) * scale
        return out

    @njit
    def logistic(x, w, y):
        z = x @ w
        total = 0.0
        for i in range(z.shape[0]):
            t = -y[i] * z[i]
            total += max(t, 0.0) + np.log1p(np.exp(-abs(t)))
        return total

    @njit
    def chain(x, y, z):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = np.exp(x[i]) * y[i] + z[i] * 2 - x[i] / y[i]
        return out

    # column reductions walk the rows in memory order, one partial result per column

    @njit
    def colsum(x):
        acc = np.zeros(x.shape[1])
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                acc[j] += np.exp(x[i, j])
        return acc

    @njit
    def colstd(x):
        n, m = x.shape
        mu = np.zeros(m)
        for i in range(n):
            for j in range(m):
                mu[j] += x[i, j]
        mu /= n
        var = np.zeros(m)
        for i in range(n):
            for j in range(m):
                var[j] += (x[i, j] - mu[j]) * (x[i, j] - mu[j])
        scale = 1.0 / np.sqrt(var / n + 1e-5)
        out = np.empty_like(x)
        for i in range(n):
            for j in range(m):
                out[i, j] = (x[i, j] - mu[j]) * scale[j]
        return out

    @njit
    def colsoftmax(x):
        n, m = x.shape
        top = np.full(m, -np.inf)
        for i in range(n):
            for j in range(m):
                top[j] = max(top[j], x[i, j])
        total = np.zeros(m)
        out = np.empty_like(x)
        for i in range(n):
            for j in range(m):
                out[i, j] = np.exp(x[i, j] - top[j])
                total[j] += out[i, j]
        for i in range(n):
            for j in range(m):
                out[i, j] /= total[j]
        return out

    return {
        "softmax": softmax,
        "layernorm": layernorm,
        "logistic": logistic,
        "chain": chain,
        "colsum": colsum,
        "colstd": colstd,
        "colsoftmax": colsoftmax,
    }, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--wall", action="store_true", help="wall-clock time instead of the process's CPU time"
    )
    parser.add_argument("--only", nargs="+", metavar="GRAPH", help="run only these graphs")
    args = parser.parse_args()
    timer = time.perf_counter if args.wall else time.process_time
    rng = np.random.default_rng(0)
    data = {
        "softmax": (rng.normal(size=(2000, 500)),),
        "layernorm": (rng.normal(size=(4096, 1024)),),
        "logistic": (
            rng.normal(size=(20000, 200)),
            rng.normal(size=200) / 10,
            np.sign(rng.normal(size=20000)),
        ),
        "chain": (rng.normal(size=10**7), rng.uniform(1, 2, size=10**7), rng.normal(size=10**7)),
        "colsum": (rng.normal(size=(4096, 1024)),),
        "colstd": (rng.normal(size=(4096, 1024)),),
        "colsoftmax": (rng.normal(size=(4096, 1024)),),
    }
    tools = {
        "ours": (_ours(), None),
        "numpy": (_numpy(), None),
        "pytensor": _pytensor(),
        "numba": _numba(),
        "jax jit": _jax(),
    }
    rows, plans = [], []
    for name, args_ in data.items():
        if args.only and name not in args.only:
            continue
        f, plan = tools["ours"][0][name]
        want = tools["numpy"][0][name](*args_)
        calls = {}
        for tool in TOOLS:
            entry = tools[tool]
            if entry is None:
                continue
            fns, convert = entry
            fn = fns[name][0] if tool == "ours" else fns[name]
            targs = [convert(a) for a in args_] if convert is not None else list(args_)
            np.testing.assert_allclose(np.asarray(fn(*targs)), want, rtol=1e-7, atol=1e-12)
            calls[tool] = lambda fn=fn, targs=targs: fn(*targs)
        # the tools take turns, so that load changing during the run favours none of them
        times: dict = {}
        for _ in range(args.repeat):
            for tool, call in calls.items():
                t = best_seconds(call, 1, 0.1, timer=timer)
                times[tool] = min(times.get(tool, t), t)
        rows.append(
            (
                name,
                *(f"{times[k] * 1e3:.2f} ms" if k in times else "absent" for k in TOOLS),
                *(
                    f"{times[k] / times['ours']:.2f}x" if k in times else "absent"
                    for k in ("numpy", "jax jit")
                ),
            )
        )
        plans.append((name, plan))
    print(
        markdown_table(
            (
                "graph",
                "ours (C)",
                "NumPy",
                "PyTensor C",
                "numba",
                "JAX jit",
                "NumPy/ours",
                "JAX/ours",
            ),
            rows,
        )
    )
    print()
    print(markdown_table(("graph", "how ours runs"), plans))


if __name__ == "__main__":
    main()
