"""Run a short workload of compiled graphs under valgrind; report errors in generated code.

Opt-in, not part of the test suite (valgrind makes Python some 50 times slower):

    python scripts/valgrind_check.py            # needs valgrind on PATH
    python scripts/valgrind_check.py --keep     # keep the XML report and the modules
    python scripts/valgrind_check.py --asan     # AddressSanitizer instead (gcc's libasan)

The workload compiles its graphs with ``-g -O1`` (and without ``-march=native``:
valgrind does not decode every recent instruction) into a temporary module cache,
then exercises every path of the generated C: fused elementwise loops (flat
and strided, broadcasting, empty arrays), reductions and fused row programs
(any axes, layouts, empty axes), fused passes over leading, middle and several axes, ``dot``/``matmul`` (BLAS and loops, copied layouts),
views (indexing, transposes, squeezes, reshapes), every kind of wrong input, a node that
fails after allocating its output, ``perform`` fallbacks (one raising), rigid
symbols, enum parameters and ``CDataType`` pointers freed by their capsules or
by the cleanup code. valgrind runs it with ``PYTHONMALLOC=malloc`` and writes
XML; this script keeps the errors (invalid reads and writes, uses of
uninitialised values, invalid frees, definite leaks) whose stack passes
through a generated module (``tt_*.so``), prints them and exits with status 1
when there is any. Errors of the interpreter itself are counted, not shown.

``--asan`` builds the modules with ``-fsanitize=address`` instead and runs the
workload natively with the sanitizer's runtime preloaded: it also sees
overruns of arrays on the stack, which valgrind cannot. Its first error stops
the run and is printed (leak checking is off: the interpreter's own
allocations would drown it; valgrind's run covers leaks).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

WORKLOAD = r"""
import ctypes, gc, sys
import numpy as np
from tensortypes.graph import Apply, CLinkerOp, FunctionGraph, Op
from tensortypes.link.c import CDataType, CLinker, EnumList, ModuleCache, default_compiler
from tensortypes.link.c.compiler import Compiler
from tensortypes.tensor import dvector, dmatrix, tensor
from tensortypes.tensor.elemwise import exp, log, where
from tensortypes.tensor.rewriting import default_rewriter
from tensortypes.types.primitives import INT

base = default_compiler()
if sys.argv[2] == "asan":
    flags = (*base.flags, "-g", "-O1", "-fsanitize=address", "-fno-omit-frame-pointer")
else:
    # valgrind does not decode AVX-512: build for the baseline CPU, with debug information.
    flags = (*(f for f in base.flags if not f.startswith(("-march=", "-mtune="))), "-g", "-O1")
debug = Compiler(base.command, base.version, flags, vector_math=base.vector_math)
linker = CLinker(ModuleCache(sys.argv[1], debug))

def build(inputs, outputs, rewrite=True):
    graph = FunctionGraph(inputs, outputs, clone=True)
    if rewrite:
        default_rewriter().apply(graph)
    return linker.make_function(graph)

def expect_error(f, args):
    try:
        f(args)
    except Exception:
        return
    raise AssertionError(f"no error for {args!r}")

# fused loops: flat, strided, broadcast, empty
x, y = dmatrix("x"), dvector("y")
f = build([x, y], [where(x > 0.5, exp(x) * y, log(x + 1.0) - y)])
a, b = np.random.rand(40, 30), np.random.rand(30)
for args in ([a, b], [a[::-1, ::2], b[::2]], [np.asfortranarray(a), b], [a[:0], b]):
    f(args)
for args in ([a.astype("f4"), b], [None, b], [[1.0], b], [a, np.ones(7)], [a], 3,
             [np.ones(3), b], [a.astype(">f8"), b]):
    expect_error(f, args)

# a node failing after allocating its output; a raising perform; fallbacks
class AllocThenFail(Op, CLinkerOp):
    def make_node(self, v):
        return Apply(self, [v], [v.type()])
    def c_code(self, node, name, inputs, outputs, sub):
        (v,), (z,) = inputs, outputs
        return (f"{z} = (PyArrayObject*)PyArray_NewLikeArray({v}, NPY_CORDER, NULL, 0);"
                f"if (!{z}) {{ {sub['fail']} }}"
                f"if (((double*)PyArray_DATA({v}))[0] < 0) {{"
                f" PyErr_SetString(PyExc_ValueError, \"negative\"); {sub['fail']} }}"
                f"memcpy(PyArray_DATA({z}), PyArray_DATA({v}), PyArray_NBYTES({v}));")
    def c_headers(self, **kwargs):
        return ["<string.h>"]
    def c_code_cache_version(self):
        return (1,)

class Raises(Op):
    def make_node(self, v):
        return Apply(self, [v], [v.type()])
    def perform(self, node, inputs, output_storage):
        if inputs[0][0] > 100:
            raise ArithmeticError("boom")
        output_storage[0][0] = inputs[0] * 2

v = dvector("v")
g = build([v], [exp(Raises()(exp(AllocThenFail()(v))))], rewrite=False)
g([np.ones(50)])
expect_error(g, [-np.ones(50)])
expect_error(g, [np.full(50, 10.0)])

# rigid symbols
s1, s2 = tensor("float64", ("n",), name="s1"), tensor("float64", ("2*n",), name="s2")
q1, q2 = tensor("float64", ("m", "k"), name="q1"), tensor("float64", ("k", "m"), name="q2")
h = build([s1, s2, q1, q2], [exp(s1), exp(s2), exp(q1), exp(q2)])
h([np.ones(3), np.ones(6), np.ones((2, 4)), np.ones((4, 2))])
expect_error(h, [np.ones(3), np.ones(5), np.ones((2, 4)), np.ones((4, 2))])
expect_error(h, [np.ones(3), np.ones(6), np.ones((2, 4)), np.ones((4, 3))])

# reductions: any axes and layouts, empty axes; fused row programs (copies, buffers)
import tensortypes.tensor as tt
import warnings
warnings.simplefilter("ignore", RuntimeWarning)
r3 = tensor("float64", (None, None, None), name="r3")
red = build([r3], [tt.sum(r3, axis=(0, 2)), tt.max(r3, axis=1, keepdims=True),
                   tt.mean(r3, axis=2), tt.prod(r3), tt.min(r3, axis=0)])
c3 = np.random.rand(5, 6, 7)
for args in ([c3], [c3[::-1, :, ::2]], [np.asfortranarray(c3)], [c3[:, :1]]):
    red(args)
expect_error(red, [c3[:, :0]])
ri = tensor("int8", (None, None), name="ri")
build([ri], [tt.sum(ri, axis=1), tt.mean(ri, axis=0), tt.max(ri)])([np.ones((4, 9), "i1")])
fm = tensor("float64", ("n", "m"), name="fm")
e = exp(fm - tt.max(fm, axis=1, keepdims=True))
mu = tt.mean(fm, axis=1, keepdims=True)
d = fm - mu
fused = build([fm], [e / tt.sum(e, axis=1, keepdims=True),
                     d / tt.sqrt(tt.mean(d * d, axis=1, keepdims=True) + 1e-5),
                     tt.sum(exp(fm) * 2, axis=1)])
m2 = np.random.rand(9, 33)
for args in ([m2], [m2.T.copy().T], [m2[::2]], [m2[:0]]):
    fused(args)
expect_error(fused, [m2[:, :0]])

# fused passes over leading / middle / several axes (per-column accumulators, row steps)
cm = tensor("float64", (None, None), name="cm")
ce = exp(cm - tt.max(cm, axis=0, keepdims=True))
cmu = tt.mean(cm, axis=0, keepdims=True)
cd = cm - cmu
cols = build([cm], [ce / tt.sum(ce, axis=0, keepdims=True),
                    cd / tt.sqrt(tt.mean(cd * cd, axis=0, keepdims=True) + 1e-5),
                    tt.sum(exp(cm), axis=0), tt.min(cm * 2, axis=0, keepdims=True)])
for args in ([m2], [m2.T.copy().T], [m2[::-1, ::2]], [np.broadcast_to(m2[:1], m2.shape)],
             [m2[:0]], [m2[:, :0]], [m2[:1]]):
    expect_error(cols, args) if args[0].shape[0] == 0 else cols(args)
bx = tensor("float64", ("n", "c", "hw"), name="bx")
bg = tensor("float64", ("c", 1), name="bg")
bmu = tt.mean(bx, axis=(0, 2), keepdims=True)
bd = bx - bmu
bn = build([bx, bg], [bd / tt.sqrt(tt.mean(bd * bd, axis=(0, 2), keepdims=True) + 1e-5) * bg,
                      tt.sum(exp(bx), axis=1)])
for args in ([c3, np.ones((6, 1))], [np.asfortranarray(c3), np.ones((6, 1))],
             [c3[:0], np.ones((6, 1))], [c3[:, :, ::3], np.ones((6, 1))]):
    bn(args)
expect_error(bn, [c3, np.ones((5, 1))])
ci = tensor("int8", (None, None, None), name="ci")
build([ci], [tt.sum(ci * 3, axis=(0, 1)), tt.mean(ci * 3, axis=0)])([np.ones((4, 9, 3), "i1")])
cf = tensor("float32", (None, None), name="cf")
build([cf], [tt.sum(exp(cf), axis=0)])([np.random.rand(7, 5).astype("f4")])

# dot/matmul: BLAS and the loop, layouts that are copied, casts, 0-size, bad sizes
from unittest import mock
from tensortypes.link.c import blas
pa, pb = tensor("float64", (None, None), name="pa"), tensor("float64", (None, None), name="pb")
pv, p3 = tensor("float64", (None,), name="pv"), tensor("float64", (None, None, None), name="p3")
pi = tensor("int32", (None, None), name="pi")
prod_outs = [tt.matmul(pa, pb), tt.dot(pa, pv), tt.dot(pv, pb), tt.dot(pv, pv),
             tt.matmul(p3, pb), tt.dot(p3, pb), tt.matmul(pi, pa), tt.dot(pi, pi)]
ma, mb, mv, m3 = (np.random.rand(*s) for s in ((6, 5), (5, 7), (5,), (3, 6, 5)))
mi, mr = np.arange(25, dtype="i4").reshape(5, 5), np.random.rand(10, 10)
with mock.patch.object(blas, "blas_module", lambda: None):
    loops = build([pa, pb, pv, p3, pi], prod_outs)
for products in (build([pa, pb, pv, p3, pi], prod_outs), loops):
    for args in ([ma[:5, :5], mb, mv, m3, mi], [mr[::-2, ::2], mb.T.copy().T, mv[::-1],
                 m3[:, ::-1].transpose(1, 0, 2)[:3, :5], mi.T],
                 [ma[:5, :5], mb[:, :0], mv, m3[:0], mi]):
        products(args)
    expect_error(products, [ma, mb, mv, m3, mi])

# views: slices, int indices, new axes, transposes, squeezes, reshapes (views and copies)
vx = tensor("float64", ("a", "b", "c"), name="vx")
views = build([vx], [vx[1:, ::-2, 0], vx[None, ..., -1:], vx.T, vx[:, None].squeeze(1),
                     vx.reshape(-1), vx.reshape(("c", "b", "a")), tt.expand_dims(vx, (0, 2)),
                     vx[0, 0, 0], exp(vx[::2].T.reshape(-1))], rewrite=False)
mv3 = np.random.rand(4, 5, 6)
for args in ([mv3], [mv3[::-1, ::2]], [np.asfortranarray(mv3)], [mv3[:, :0]]):
    expect_error(views, args) if args[0].size == 0 else views(args)
expect_error(views, [mv3[:0]])

# enum parameters and opaque pointers
MODES = EnumList("ONE", "TWO", cname="vg_modes")
class Pick(Op, CLinkerOp):
    params_type = MODES
    def get_params(self, node):
        return MODES.TWO
    def make_node(self, v):
        return Apply(self, [v], [INT()])
    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = ({sub['params']} == TWO) ? 2 : 1;"
i = INT("i")
assert build([i], [Pick()(i)], rewrite=False)([0]) == [2]

MARK = CDataType("long *", freefunc="vg_mark", version=1,
                 extra_support_code="static void vg_mark(long* p) { p[0] = 7; }\n")
memory = (ctypes.c_long * 1)(0)
capsule = MARK.make_value(ctypes.addressof(memory))
del capsule
gc.collect()
assert memory[0] == 7
print("workload done")
"""


def _frames(error) -> list[str]:
    frames = []
    for frame in error.iter("frame"):
        obj = frame.findtext("obj") or ""
        fn = frame.findtext("fn") or "?"
        where = frame.findtext("file") or ""
        line = frame.findtext("line") or ""
        frames.append(f"{fn} ({Path(obj).name}{':' + where + ':' + line if where else ''})")
    return frames


def _in_generated(error) -> bool:
    return any(
        Path(frame.findtext("obj") or "").name.startswith("tt_") for frame in error.iter("frame")
    )


def run_asan(script: Path, cache: Path, env: dict) -> int:
    """The workload with modules built by -fsanitize=address; 1 on a sanitizer report."""
    compiler = os.environ.get("CC", "gcc")
    runtime = subprocess.run(
        [compiler, "-print-file-name=libasan.so"], capture_output=True, text=True
    ).stdout.strip()
    if not runtime or not os.path.isabs(runtime) or not os.path.exists(runtime):
        print(f"{compiler} has no libasan.so; nothing to check", file=sys.stderr)
        return 2
    env = {
        **env,
        "LD_PRELOAD": runtime,
        "PYTHONMALLOC": "malloc",
        "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1",
    }
    proc = subprocess.run(
        [sys.executable, str(script), str(cache), "asan"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    report = (
        proc.stderr[proc.stderr.find("ERROR: AddressSanitizer") :]
        if "ERROR: AddressSanitizer" in proc.stderr
        else ""
    )
    if report:
        print(report)
        return 1
    if "workload done" not in proc.stdout:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        print("the workload did not finish under AddressSanitizer", file=sys.stderr)
        return 1
    print("AddressSanitizer: no error in the workload")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the report and the modules")
    parser.add_argument("--valgrind", default="valgrind", help="the valgrind command")
    parser.add_argument("--asan", action="store_true", help="use AddressSanitizer instead")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="tensortypes-valgrind-"))
    cache = work / "cache"
    script = work / "workload.py"
    script.write_text(WORKLOAD)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    if args.asan:
        status = run_asan(script, cache, env)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return status
    if shutil.which(args.valgrind) is None:
        print(f"{args.valgrind} is not installed; nothing to check", file=sys.stderr)
        return 2
    # Build the modules first, natively: valgrind then only runs them.
    subprocess.run(
        [sys.executable, str(script), str(cache), "valgrind"], check=True, env=env, cwd=REPO
    )
    report = work / "valgrind.xml"
    cmd = [
        args.valgrind,
        "--xml=yes",
        f"--xml-file={report}",
        "--leak-check=full",
        "--show-leak-kinds=definite",
        "--track-origins=yes",
        "--num-callers=30",
        sys.executable,
        str(script),
        str(cache),
        "valgrind",
    ]
    print("running:", " ".join(cmd), flush=True)
    proc = subprocess.run(
        cmd, env={**env, "PYTHONMALLOC": "malloc"}, cwd=REPO, capture_output=True, text=True
    )
    if "workload done" not in proc.stdout:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        print("the workload did not finish under valgrind", file=sys.stderr)
        return 1
    root = ET.parse(report).getroot()
    errors = root.findall("error")
    ours = [e for e in errors if _in_generated(e)]
    print(f"valgrind: {len(errors)} error record(s) in all, {len(ours)} in generated modules")
    for error in ours:
        kind = error.findtext("kind")
        what = error.findtext("what") or error.findtext("xwhat/text") or ""
        print(f"\n{kind}: {what}")
        for frame in _frames(error)[:12]:
            print(f"    {frame}")
    if args.keep:
        print(f"\nreport and modules kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
