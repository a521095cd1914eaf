"""Every hostile value of ``_fuzz.HOSTILE`` into compiled functions, both linkers.

``Function.__call__`` either refuses a value with a ``TypeCheckError`` whose
message prints, or computes what the plain ndarray the value holds gives; the
two linkers (``"py"`` and ``"c"``) give the same answer. Each call is guarded
against hangs; the graphs have fixed or rigid sizes, so nothing accepted can ask
for an enormous output.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensortypes
from _fuzz import HOSTILE, time_guard
from tensortypes._config import config
from tensortypes.errors import TypeCheckError
from tensortypes.link.c import default_compiler
from tensortypes.tensor import TensorType, tensor
from tensortypes.tensor.elemwise import exp

_LIMIT = 10.0  # seconds for one call: far above any real one, a guard against hangs


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory):
    old = config.cache_dir
    config.cache_dir = str(tmp_path_factory.mktemp("hostile-compiled-cache"))
    yield
    config.cache_dir = old


def _graphs() -> dict:
    m = TensorType("float64", (2, 3))("m")
    x = tensor("float64", ("n",), name="x")
    return {
        "fixed (2, 3) elementwise": ([m], exp(m) * 2.0 - m),
        "fixed (2, 3) sum": ([m], m.sum(axis=0)),
        "rigid n": ([x], x * x + 1.0),
        "identity": ([x], x),
    }


def _call(f, value) -> tuple[str, Any]:
    """("ok", result), ("refused", message) or ("escaped", description)."""
    try:
        with time_guard(_LIMIT, "compiled call"):
            out = f(value)
    except TypeCheckError as error:
        text = str(error)
        if not text.startswith("input 0 ("):
            return "escaped", f"TypeCheckError without the input's label: {text[:120]!r}"
        return "refused", text
    except BaseException as error:  # noqa: BLE001 (anything else is what we look for)
        return "escaped", f"{type(error).__name__}: {str(error)[:160]!r}"
    if type(out) is not np.ndarray:
        return "escaped", f"returned a {type(out).__name__}, not an ndarray"
    return "ok", out


@pytest.mark.skipif(default_compiler() is None, reason="no C compiler found")
@pytest.mark.parametrize("graph", list(_graphs()))
def test_hostile_values_into_compiled_functions(graph: str) -> None:
    inputs, output = _graphs()[graph]
    py = tensortypes.function(inputs, output, mode="py")
    c = tensortypes.function(inputs, output, mode="c")
    problems: list[str] = []
    for name, make in HOSTILE:
        by_mode = {}
        for mode, f in (("py", py), ("c", c)):
            kind, got = _call(f, make())
            by_mode[mode] = (kind, got)
            if kind == "escaped":
                problems.append(f"{mode}: {name}: {got}")
        (kp, gp), (kc, gc) = by_mode["py"], by_mode["c"]
        if {kp, kc} == {"ok", "refused"}:
            problems.append(f"{name}: py {kp}, c {kc}")
        elif kp == kc == "ok" and not np.array_equal(gp, gc, equal_nan=True):
            problems.append(f"{name}: py and c results differ")
    assert not problems, f"{graph}: {len(problems)} problems:\n" + "\n".join(problems)
