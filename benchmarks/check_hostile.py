"""Hostile sources for ``tensortypes check``: each answered with diagnostics in bounded time.

The static checker reads code nobody vetted. This script times ``check_source`` on:

- the inputs of the reliability probe that crashed or hung the checker (a 496-term sum,
  50,000 ``.T``, 50,000 unary minus, 2,500 chained calls, a lone surrogate in a string
  annotation, a 4,301-digit size, a call binding ``n**100000000``, 18 binomials in one
  shape string, a byte order mark), and two of exact floats (3,000 errors whose notes
  follow the numbers that set a size, ``1e-300`` multiplied 2,000 times), each named,
  with the diagnostic codes it gets;
- a generated set of texts of at most 200 characters (seeded), glued from pieces of
  array code: names, ``.T``, calls, brackets, operators, shape annotations, ``def``,
  ``class``, ``if``, ``lambda``, line breaks and indentation, after a fixed header of
  imports (not counted in the 200).

Each text is checked three times and its best CPU time kept (CPU time counts the work
done, not the wait for a core on a shared host; wall time is printed beside it). The
target: every text of at most 200 characters answered in under 10 ms of CPU time, and
no text raises or gets an ``internal`` error.

    python benchmarks/check_hostile.py                  # 3,000 generated texts
    python benchmarks/check_hostile.py --generated 20000 --seed 7

Needs only NumPy; it runs in the test environment too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import markdown_table  # noqa: E402 (shared helpers beside this script)

from tensortypes.check import check_source  # noqa: E402

TARGET_MS = 10.0
SHORT = 200
REPEATS = 3
HEADER = "import numpy as np\nimport torch\nfrom torch import nn\nfrom jaxtyping import Float\n"

PROBE = [
    ("sum of 496 terms", "x = 1\ny = " + " + ".join(["x"] * 496) + "\n"),
    (
        "sum of 2,000 terms",
        "import numpy as np\nx = np.zeros(3)\ny = " + " + ".join(["x"] * 2000) + "\n",
    ),
    ("`np` + `.T` x 50,000", "import numpy as np\ny = np" + ".T" * 50000 + "\n"),
    ("50,000 unary minus", "y = " + "-" * 50000 + "1\n"),
    (
        "2,500 chained `.reshape(2, 3)`",
        "import numpy as np\ny = np.zeros(6)" + ".reshape(2, 3)" * 2500 + "\n",
    ),
    (
        "lone surrogate in a string annotation",
        "def f(x: 'Float[np.ndarray, \"\\ud800\"]'):\n    return x\n",
    ),
    (
        "size of 4,301 digits",
        "import numpy as np\nfrom tensortypes import Float\n"
        "def f(x: Float[np.ndarray, '" + "9" * 4301 + "']):\n    return x\n",
    ),
    (
        "call binding `n**100000000`",
        "import numpy as np\nfrom tensortypes import Float\n"
        "def f(x: Float[np.ndarray, 'n'], y: Float[np.ndarray, 'n**100000000']):\n"
        "    return x\n\nf(np.zeros(3), np.zeros(5))\n",
    ),
    (
        "18 binomials in a shape string",
        "import numpy as np\nfrom tensortypes import Float\n"
        "def f(x: Float[np.ndarray, '"
        + "*".join(f"(a{i}+b{i})" for i in range(18))
        + "']):\n    return x\n",
    ),
    ("UTF-8 byte order mark", "\ufeffx = 1\n"),
    (
        "3,000 errors with size notes in one function",
        "import torch\nfrom jaxtyping import Float\n"
        "def f(logits: Float[torch.Tensor, 'b p m']):\n"
        "    n = logits.shape[1]\n    w = 1.0 / n\n"
        + "".join(
            f"    c{i} = torch.arange(0.5 * w, 1.0, w)\n"
            f"    e{i} = torch.einsum('bmp,p->bm', logits, c{i})\n"
            for i in range(3000)
        ),
    ),
    (
        "`1e-300` multiplied 2,000 times",
        "import torch\nx = 1e-300\n"
        + "x = x * 1e-300 + 0.5\n" * 2000
        + "y = torch.arange(0, 1, x)\n",
    ),
    (
        "a lambda that calls itself 10 times a level",
        "import torch\ndef g(x: torch.Tensor):\n    f = lambda x: "
        + " + ".join(["f(x)"] * 10)
        + "\n    return f(x) @ torch.zeros(2, 2)\n",
    ),
    (
        "a returned closure that calls its maker 10 times",
        "import torch\ndef make(t):\n    def inner(x):\n        return "
        + " + ".join(["make(x)[1](x)"] * 10)
        + "\n    return t, inner\n"
        + "def g(x: torch.Tensor):\n    t, f = make(x)\n    return f(t) @ torch.zeros(2, 2)\n",
    ),
    (
        "300 attributes, each reassigned from the one before",
        "import torch\nclass C:\n    def __init__(self):\n"
        + "".join(f"        self.a{i} = torch.zeros(2, 3)\n" for i in range(300))
        + "".join(
            f"    def up{i}(self, k):\n        self.a{i} = self.a{i - 1}[None][0]\n"
            for i in range(1, 300)
        )
        + "    def use(self):\n        return self.a299 @ self.a150\n",
    ),
    (
        "99 nested `if`",
        "".join("    " * i + f"if x{i}:\n" for i in range(99))
        + "    " * 99
        + "y = "
        + " + ".join(["x"] * 300)
        + "\n",
    ),
]

PIECES = [
    "x",
    "y",
    "w",
    "np",
    "torch",
    ".T",
    ".reshape(",
    ".sum(",
    ".view(",
    "(",
    ")",
    "[",
    "]",
    "+",
    "*",
    "**",
    "-",
    "@",
    "//",
    " ",
    " ",
    "\n",
    "    ",
    ":",
    "=",
    ",",
    "1",
    "0",
    "-1",
    "10**9",
    "'",
    "Float[np.ndarray, 'n m'] ",
    "Float[torch.Tensor, '",
    "*b",
    "...",
    "n",
    "def f(",
    "):",
    "return ",
    "class A(nn.Module):",
    "if ",
    "else:",
    "None",
    "is not ",
    "lambda: ",
    "nn.Linear(",
    "np.zeros(",
    "torch.cat(",
    "for i in ",
    "assert ",
    "self.",
    "\\",
    "#",
    "{",
    "}",
    "max(",
    "n**n**n",
]


def generated(count: int, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 70)))
        if len(text) <= SHORT:
            out.append(text)
    return out


def timed(text: str) -> tuple:
    """``(best CPU ms, best wall ms, codes)`` of ``check_source(text)``."""
    cpu, wall, codes = [], [], ()
    for _ in range(REPEATS):
        c0, w0 = time.process_time(), time.perf_counter()
        found = check_source(text, "bench.py")
        cpu.append((time.process_time() - c0) * 1e3)
        wall.append((time.perf_counter() - w0) * 1e3)
        codes = tuple(sorted({d.code for d in found}))
    return min(cpu), min(wall), codes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20240)
    args = parser.parse_args(argv)
    rows, bad = [], 0
    for name, text in PROBE:
        cpu, wall, codes = timed(text)
        bad += "internal" in codes
        rows.append(
            (name, f"{len(text):,}", ", ".join(codes) or "none", f"{cpu:.1f}", f"{wall:.1f}")
        )
    print("The reliability probe's inputs:\n")
    print(markdown_table(("input", "characters", "codes", "CPU ms", "wall ms"), rows))
    texts = generated(args.generated, args.seed)
    cpus, over, internal = [], [], 0
    for text in texts:
        cpu, _, codes = timed(HEADER + text)
        cpus.append(cpu)
        internal += "internal" in codes
        if cpu > TARGET_MS:
            over.append((cpu, text))
    cpus.sort()
    print(
        f"\n{len(texts):,} generated texts of at most {SHORT} characters (seed {args.seed}):"
        f" median {statistics.median(cpus):.2f} ms, 99th percentile "
        f"{cpus[int(len(cpus) * 0.99) - 1]:.2f} ms, max {cpus[-1]:.2f} ms CPU; "
        f"{len(over)} over {TARGET_MS:.0f} ms; {internal} internal errors"
    )
    for cpu, text in sorted(over, reverse=True)[:5]:
        print(f"  {cpu:.1f} ms: {text!r}")
    return 1 if bad or internal else 0


if __name__ == "__main__":
    sys.exit(main())
