"""Wrong inputs to a compiled function raise Python exceptions; nothing crashes.

The calls run in a fresh interpreter, so a crash (a segmentation fault in the
generated code) fails this test instead of taking the test run down. Inputs
that are valid values of the type, whatever their memory layout (strided,
reversed, read-only, Fortran order), must give NumPy's result.
"""

from __future__ import annotations

from c_toys import needs_cc

pytestmark = needs_cc

CASES = r"""
import json, sys
import numpy as np
from tensortypes._config import config
config.cache_dir = sys.argv[1]
from tensortypes.graph import FunctionGraph
from tensortypes.link.c import CLinker
from tensortypes.tensor import TensorType, dmatrix
from tensortypes.tensor.elemwise import exp

x, y = dmatrix("x"), TensorType("float64", (None, 3))("y")
f = CLinker().make_function(FunctionGraph([x, y], [exp(x) * y - x]))

good = np.arange(6.0).reshape(2, 3) / 10
buf = np.zeros(6 * 8 + 1, dtype=np.uint8)
unaligned = buf[1:].view(np.float64).reshape(2, 3)
readonly = good.copy(); readonly.flags.writeable = False
big = np.arange(24.0).reshape(4, 6) / 10
errors = {
    "wrong dtype": [good.astype(np.float32), good],
    "int dtype": [np.arange(6).reshape(2, 3), good],
    "wrong rank": [good.ravel(), good],
    "0-d": [np.array(1.0), good],
    "wrong static shape": [good, np.ones((2, 4))],
    "unaligned": [unaligned, good],
    "byte-swapped": [good.astype(">f8"), good],
    "None": [None, good],
    "a list": [[[1.0, 2.0, 3.0]], good],
    "a dict": [{}, good],
    "object array": [good.astype(object), good],
    "not broadcastable": [np.ones((2, 2)), good],
    "too few inputs": [good],
    "too many inputs": [good, good, good],
    "not a sequence": 5,
    "a string": "ab",
    "None inputs": None,
}
valid = {
    "non-contiguous": [big[::2, ::2], big[1::2, 1::2]],
    "negative strides": [good[::-1, ::-1], good[::-1]],
    "read-only": [readonly, readonly],
    "fortran order": [np.asfortranarray(good), good],
    "broadcast view": [np.broadcast_to(good[:1], (2, 3)), good],
    "empty": [np.ones((0, 3)), np.ones((0, 3))],
    "subclass": [good.view(np.matrix), good],
}
report = {}
for name, args in errors.items():
    try:
        f(args)
        report[name] = "no error"
    except Exception as exc:
        report[name] = type(exc).__name__
for name, (a, b) in valid.items():
    (out,) = f([a, b])
    a, b = np.asarray(a), np.asarray(b)
    report[name] = bool(np.allclose(out, np.exp(a) * b - a))
print(json.dumps(report))
"""


def test_wrong_inputs_raise_and_valid_layouts_compute(run_python, tmp_path):
    import json

    proc = run_python(CASES, str(tmp_path / "cache"))
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in (
        "wrong dtype",
        "int dtype",
        "wrong rank",
        "0-d",
        "wrong static shape",
        "unaligned",
        "byte-swapped",
        "None",
        "a list",
        "a dict",
        "object array",
        "a string",
    ):  # a str is a sequence of two inputs, neither an array
        assert report[name] == "TypeCheckError", (name, report[name])
    assert report["not broadcastable"] == "ValueError"
    for name in ("too few inputs", "too many inputs", "not a sequence", "None inputs"):
        assert report[name] == "TypeError", (name, report[name])
    for name in (
        "non-contiguous",
        "negative strides",
        "read-only",
        "fortran order",
        "broadcast view",
        "empty",
        "subclass",
    ):
        assert report[name] is True, name
