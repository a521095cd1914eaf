"""Graphs with reductions and products, compiled, against NumPy, JAX ``jit``, numba and PyTensor.

Float64, one process, one core (set ``XLA_FLAGS``/thread limits in the environment for
the other tools if the machine has more), best of several repeats:

- row softmax of a 2000x500 matrix: ``e = exp(S - S.max(1, keepdims)); e / e.sum(1, keepdims)``;
- layer norm of a 4096x1024 matrix: ``(X - mean) / sqrt(var + 1e-5)`` over rows;
- logistic loss, X 20000x200: ``sum(log(1 + exp(-y * (X @ w))))`` (our graph becomes
  ``softplus`` through the stability rewrites);
- the elementwise chain ``exp(x)*y + z*2 - x/y`` at 10^7 (the fused loop's benchmark).

Each row also says how ours runs: which nodes run as C and which through ``perform``
inside the compiled function (reductions, ``dot`` and ``matmul`` still do).

    python benchmarks/graphs.py [--repeat 5]

Tools that are not installed read ``n/a``. Run it in its own environment (see
benchmarks/README.md); JAX on the CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_seconds, markdown_table  # noqa: E402

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")


def _ours():
    import tensortypes
    import tensortypes.tensor as tt

    def softmax():
        s = tt.tensor("float64", (2000, 500), name="S")
        e = tt.exp(s - tt.max(s, axis=1, keepdims=True))
        return [s], e / tt.sum(e, axis=1, keepdims=True)

    def layernorm():
        x = tt.tensor("float64", (4096, 1024), name="X")
        mu = tt.mean(x, axis=1, keepdims=True)
        var = tt.mean((x - mu) * (x - mu), axis=1, keepdims=True)
        return [x], (x - mu) / tt.sqrt(var + 1e-5)

    def logistic():
        x = tt.tensor("float64", (20000, 200), name="X")
        w = tt.tensor("float64", (200,), name="w")
        y = tt.tensor("float64", (20000,), name="y")
        return [x, w, y], tt.sum(tt.log(1 + tt.exp(-y * tt.dot(x, w))))

    def chain():
        x, y, z = (tt.tensor("float64", ("n",), name=n) for n in "xyz")
        return [x, y, z], tt.exp(x) * y + z * 2 - x / y

    out = {}
    for name, build in (("softmax", softmax), ("layernorm", layernorm),
                        ("logistic", logistic), ("chain", chain)):
        inputs, output = build()
        f = tensortypes.function(inputs, output, mode="c")
        out[name] = (lambda f: lambda *a: f(*a))(f), _plan(f)
    return out


def _plan(f) -> str:
    """Which ops of the compiled function run as C and which through ``perform``."""
    fg = getattr(f, "fgraph", None) or getattr(f, "maker", None)
    nodes = fg.toposort() if fg is not None and hasattr(fg, "toposort") else []
    c, py = set(), set()
    for node in nodes:
        name = type(node.op).__name__
        (c if hasattr(node.op, "c_code") or name in ("Elemwise", "SpecifyShape") else py).add(name)
    if not nodes:
        return "?"
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

    return {"softmax": softmax, "layernorm": layernorm,
            "logistic": lambda x, w, y: xp.sum(xp.logaddexp(0.0, -y * (x @ w))),
            "chain": lambda x, y, z: xp.exp(x) * y + z * 2 - x / y}


def _numpy():
    return _reference(np)


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return {k: (lambda g: lambda *a: g(*a).block_until_ready())(jax.jit(f))
            for k, f in _reference(jnp).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    data = {"softmax": (rng.normal(size=(2000, 500)),),
            "layernorm": (rng.normal(size=(4096, 1024)),),
            "logistic": (rng.normal(size=(20000, 200)), rng.normal(size=200) / 10,
                         np.sign(rng.normal(size=20000))),
            "chain": (rng.normal(size=10**7), rng.uniform(1, 2, size=10**7),
                      rng.normal(size=10**7))}
    ours, numpy_, jax_ = _ours(), _numpy(), _jax()
    rows, plans = [], []
    for name, args_ in data.items():
        f, plan = ours[name]
        want = numpy_[name](*args_)
        np.testing.assert_allclose(f(*args_), want, rtol=1e-7, atol=1e-12)
        times = {"ours": best_seconds(lambda: f(*args_), args.repeat, 0.2),
                 "numpy": best_seconds(lambda: numpy_[name](*args_), args.repeat, 0.2)}
        if jax_ is not None:
            import jax.numpy as jnp

            jargs = [jnp.asarray(a) for a in args_]
            jax_[name](*jargs)
            times["jax jit"] = best_seconds(lambda: jax_[name](*jargs), args.repeat, 0.2)
        rows.append((name, *(f"{times[k] * 1e3:.1f} ms" if k in times else "n/a"
                             for k in ("ours", "numpy", "jax jit")),
                     f"{times['numpy'] / times['ours']:.2f}x",
                     f"{times['jax jit'] / times['ours']:.2f}x" if "jax jit" in times else "n/a"))
        plans.append((name, plan))
    print(markdown_table(("graph", "ours (C)", "NumPy", "JAX jit", "NumPy/ours",
                          "JAX/ours"), rows))
    print()
    print(markdown_table(("graph", "how ours runs"), plans))


if __name__ == "__main__":
    main()
