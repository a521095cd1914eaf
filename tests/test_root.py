"""The package root: jaxtyping's public names, lazy loading, and what mypy sees."""

import subprocess
import sys

import numpy as np
import pytest

import tensortypes

# jaxtyping's public names that do not need JAX.
JAXTYPING_NAMES = [
    "Shaped",
    "Bool",
    "Key",
    "Num",
    "Inexact",
    "Float",
    "BFloat16",
    "Float16",
    "Float32",
    "Float64",
    "Float8e4m3b11fnuz",
    "Float8e4m3fn",
    "Float8e4m3fnuz",
    "Float8e5m2",
    "Float8e5m2fnuz",
    "Complex",
    "Complex64",
    "Complex128",
    "Integer",
    "UInt",
    "UInt2",
    "UInt4",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "Int",
    "Int2",
    "Int4",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "Real",
    "AbstractDtype",
    "AbstractArray",
    "make_numpy_struct_dtype",
    "get_array_name_format",
    "set_array_name_format",
    "TypeCheckError",
    "AnnotationError",
    "config",
]


@pytest.mark.parametrize("name", JAXTYPING_NAMES)
def test_jaxtyping_names_at_the_root(name):
    assert getattr(tensortypes, name) is not None
    assert name in dir(tensortypes)


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no_such_name"):
        tensortypes.no_such_name


def test_drop_in_for_jaxtyping():
    import tensortypes as jaxtyping

    x = np.zeros((2, 3), dtype=np.float32)
    assert isinstance(x, jaxtyping.Float32[np.ndarray, "b c"])
    assert not isinstance(x, jaxtyping.Int[np.ndarray, "b c"])


def test_lazy_root_imports_nothing_heavy():
    code = (
        "import sys, tensortypes; "
        "print(sorted(m for m in sys.modules if m.startswith('tensortypes.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "tensortypes.annotate" not in out and "tensortypes.link" not in out


def test_mypy_reads_root_annotations_as_arrays(tmp_path):
    api = pytest.importorskip("mypy.api")
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import numpy as np\n"
        "from tensortypes import Float32, Int\n"
        "import tensortypes as jt\n"
        "def f(x: Float32[np.ndarray, 'b c'], i: Int[np.ndarray, '']) -> "
        "jt.Float[np.ndarray, 'b']:\n"
        "    return x.sum(axis=1)\n"
        "y: np.ndarray = f(np.zeros((2, 3), np.float32), np.array(0))\n"
        "z: int = f(np.zeros((2, 3), np.float32), np.array(0))  # a real error\n"
        "def g(t: jt.PyTree[jt.Float[np.ndarray, '?n']]) -> None:\n"
        "    return None\n"
    )
    out, err, status = api.run(
        [
            "--ignore-missing-imports",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy"),
            str(sample),
        ]
    )
    assert status == 1, out + err
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "sample.py:7" in errors[0], out


def test_lazy_tables_match_the_modules_that_define_the_names():
    # The root lists the annotation names without importing annotate (to stay
    # cheap); this keeps that list equal to annotate's own.
    from tensortypes import annotate

    assert set(tensortypes._DTYPE_CLASSES) == set(annotate.DTYPE_CLASSES)
    assert set(tensortypes._JAX_NAMES) == set(annotate.JAX_NAMES)
