"""``tensortypes annotate`` end to end on the sample projects under ``projects/``.

Each project is copied to a temporary folder; its own tests run under
``annotate run``; ``annotate apply`` writes the annotations; then the loop closes:
``tensortypes check`` accepts the annotated code, its tests pass under the runtime
checker (``--tensortypes-packages``), and a planted shape bug is caught by
``check``. Needs libcst (the ``annotate`` extra); the PyTorch project needs torch.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("libcst", reason="the 'annotate' extra (libcst) is not installed")

PROJECTS = Path(__file__).parent / "projects"


def _run(cwd: Path, *args: str, check_status: int | None = 0) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={
            **__import__("os").environ,
            "PYTHONDONTWRITEBYTECODE": "1",
            "TENSORTYPES_CACHE_DIR": str(cwd / ".ttcache"),
        },
    )
    if check_status is not None:
        assert done.returncode == check_status, done.stdout + done.stderr
    return done


def _annotate(tmp_path: Path, name: str, package: str) -> Path:
    project = tmp_path / name
    shutil.copytree(PROJECTS / name, project)
    _run(
        project,
        "-m",
        "tensortypes",
        "annotate",
        "run",
        "--trace",
        "t.sqlite3",
        "--include",
        package,
        "--",
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "tests",
    )
    return project


def _close_the_loop(project: Path, package: str, source: Path, bug: tuple) -> None:
    checked = _run(project, "-m", "tensortypes", "check", "--no-cache", package)
    assert "Success: no issues found" in checked.stdout
    _run(
        project,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        f"--tensortypes-packages={package}",
        "tests",
    )
    old, new = bug
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new))
    found = _run(project, "-m", "tensortypes", "check", "--no-cache", package, check_status=1)
    assert "error:" in found.stdout


def test_numpy_project(tmp_path):
    project = _annotate(tmp_path, "npgeo", "npgeo")
    source = project / "npgeo" / "geometry.py"
    before = source.read_text()
    diff = _run(project, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3", "--diff")
    # Arguments get the dtype's kind (the code runs on float32 as well); a result the
    # code builds with a dtype it names (``astype(np.int64)``) keeps that dtype.
    assert "+from tensortypes import Float, Int, Int64" in diff.stdout
    assert source.read_text() == before  # --diff writes nothing
    _run(project, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3")
    text = source.read_text()
    # The tests rotate by 3x3 matrices only: which of the rotation's axes is the
    # points' and which the offset's is unknown, so no two arrays share the 3.
    assert 'def transform(points: Float[np.ndarray, "batch n"], ' in text
    assert '-> Float[np.ndarray, "batch q"]:' in text
    assert (
        'def pairwise_sq_dist(a: Float[np.ndarray, "batch n"], '
        'b: Float[np.ndarray, "m n"]) -> Float[np.ndarray, "batch m"]:' in text
    )
    assert 'def normalise(vectors: Float[np.ndarray, "*batch' in text
    assert '-> Int64[np.ndarray, "*batch"]:' in text  # voxel_index: astype(np.int64)
    assert "def __init__(self, n_cells: int) -> None:" in text
    assert text.count("from tensortypes import") == 1
    # Applying twice changes nothing: existing annotations are kept.
    _run(project, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3")
    assert source.read_text() == text
    _close_the_loop(
        project, "npgeo", source, ("    return (diff ** 2).sum(-1)", "    return diff ** 2")
    )


def test_a_recorded_call_that_contradicts_an_annotation_is_reported(tmp_path):
    project = _annotate(tmp_path, "npgeo", "npgeo")
    source = project / "npgeo" / "geometry.py"
    source.write_text(
        source.read_text().replace(
            "def centre(points):", "def centre(points: 'Float64[np.ndarray, \"n 2\"]'):"
        )
    )
    done = _run(
        project, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3", check_status=1
    )
    assert "centre: points: a recorded call contradicts the annotation" in done.stderr
    assert "axis 1 is 3, not 2" in done.stderr
    assert "def centre(points: 'Float64[np.ndarray, \"n 2\"]')" in source.read_text()


def test_stubs(tmp_path):
    project = _annotate(tmp_path, "npgeo", "npgeo")
    before = (project / "npgeo" / "geometry.py").read_text()
    _run(
        project,
        "-m",
        "tensortypes",
        "annotate",
        "apply",
        "--trace",
        "t.sqlite3",
        "--stubs",
        "stubs",
    )
    stub = (project / "stubs" / "npgeo" / "geometry.pyi").read_text()
    # the same shape back, no axis shared with another array: one variadic group
    assert 'def centre(points: Float[np.ndarray, "*batch"]) -> Float[np.ndarray, "*batch"]:' in stub
    assert "mean(" not in stub and stub.count("...") >= 6
    assert (project / "npgeo" / "geometry.py").read_text() == before


def test_torch_gpt(tmp_path):
    pytest.importorskip("torch")
    project = _annotate(tmp_path, "tinygpt", "tinygpt")
    _run(project, "-m", "tensortypes", "annotate", "apply", "--trace", "t.sqlite3")
    source = project / "tinygpt" / "model.py"
    text = source.read_text()
    for signature in (
        # (no dtype named in the code: the tests' float32 is no dtype of the layer's)
        'def forward(self, x: Float[torch.Tensor, "b t d_model"]) -> '
        'Float[torch.Tensor, "b t d_model"]:',
        # a tuple return, an array sometimes None
        'def forward(self, idx: Int[torch.Tensor, "b t"], '
        'targets: Int[torch.Tensor, "b t"] | None = None) -> '
        'tuple[Float[torch.Tensor, "b t vocab_size"], Float[torch.Tensor, ""] | None]:',
        # a size that is a sum of an axis and an int parameter
        'def generate(self, idx: Int[torch.Tensor, "batch n"], max_new_tokens: int) -> '
        'Int[torch.Tensor, "batch n+{max_new_tokens}"]:',
        "def __init__(self, d_model: int, n_heads: int, block_size: int) -> None:",
    ):
        assert signature in text
    _close_the_loop(
        project,
        "tinygpt",
        source,
        ("        return self.out(F.gelu(self.fc(x)))", "        return F.gelu(self.fc(x))"),
    )


def test_run_refuses_what_it_cannot_run(tmp_path):
    done = _run(tmp_path, "-m", "tensortypes", "annotate", "run", "--", "python", check_status=2)
    assert "nothing to run" in done.stderr
    done = _run(
        tmp_path, "-m", "tensortypes", "annotate", "run", "--", "python", "nope.py", check_status=2
    )
    assert "no such script" in done.stderr
    done = _run(
        tmp_path, "-m", "tensortypes", "annotate", "apply", "--trace", "missing.db", check_status=2
    )
    assert "no trace file" in done.stderr
