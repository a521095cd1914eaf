"""Backend choice: JAX when importable, else optree, else ours; each tested in a subprocess.

``sys.modules[name] = None`` makes ``import name`` fail as if the library were
not installed, so one environment with JAX and optree covers all three
choices. Each subprocess runs the same script and prints what it saw.
"""

from __future__ import annotations

import json

import pytest

from tensortypes.pytree import backend_name, get_backend, set_backend
from tensortypes.pytree.backends import choose

_SCRIPT = r"""
import json, sys, collections
for name in sys.argv[1].split(",") if sys.argv[1] else []:
    sys.modules[name] = None
from tensortypes.pytree import (backend_name, register_pytree_node, tree_flatten,
                                tree_flatten_with_path, tree_structure, tree_unflatten,
                                format_path, PyTreeDef, GetAttrKey)

class Node:
    def __init__(self, a, b):
        self.a, self.b = a, b

register_pytree_node(Node, lambda n: ((n.a, n.b), "aux"), lambda aux, ch: Node(*ch),
                     lambda n: (((GetAttrKey("a"), n.a), (GetAttrKey("b"), n.b)), "aux"))
tree = {"b": [1, None, Node(2, (3,))], "a": collections.OrderedDict(z=4, y=5)}
leaves, structure = tree_flatten(tree)
rebuilt = tree_unflatten(structure, [x * 10 for x in leaves])
print(json.dumps({
    "backend": backend_name(),
    "leaves": leaves,
    "num_leaves": structure.num_leaves,
    "type": type(structure).__name__,
    "isinstance": isinstance(structure, PyTreeDef),
    "equal": structure == tree_structure(tree),
    "rebuilt": tree_flatten(rebuilt)[0],
    "paths": [format_path("x", p) for p, _ in tree_flatten_with_path(tree)],
    "jax_imported": any(m.split(".")[0] in ("jax", "jaxlib") and sys.modules[m] is not None
                        for m in list(sys.modules)),
}))
"""


def _run(run_python, blocked: str) -> dict:
    proc = run_python(_SCRIPT, blocked)
    return json.loads(proc.stdout.strip().splitlines()[-1])


EXPECTED_LEAVES = [4, 5, 1, 2, 3]
EXPECTED_PATHS = ["x['a']['z']", "x['a']['y']", "x['b'][0]", "x['b'][2].a", "x['b'][2].b[0]"]


def _agrees(result: dict) -> None:
    assert result["leaves"] == EXPECTED_LEAVES
    assert result["num_leaves"] == 5 and result["isinstance"] and result["equal"]
    assert result["rebuilt"] == [10 * x for x in EXPECTED_LEAVES]
    assert result["paths"] == EXPECTED_PATHS


def test_with_jax_the_backend_is_jax(run_python, jax):
    result = _run(run_python, "")
    assert result["backend"] == "jax" and result["type"] == "PyTreeDef"
    _agrees(result)


def test_without_jax_the_backend_is_optree(run_python):
    pytest.importorskip("optree")
    result = _run(run_python, "jax,jaxlib")
    assert result["backend"] == "optree" and result["type"] == "PyTreeSpec"
    assert not result["jax_imported"]
    _agrees(result)


def test_without_jax_or_optree_the_backend_is_ours(run_python):
    result = _run(run_python, "jax,jaxlib,optree")
    assert result["backend"] == "own" and result["type"] == "PyTreeDef"
    assert not result["jax_imported"]
    _agrees(result)


def test_set_backend_switches_and_none_chooses_again():
    before = backend_name()
    try:
        set_backend("own")
        assert backend_name() == "own" and get_backend().name == "own"
    finally:
        set_backend(None)
    assert backend_name() == before == choose().name


def test_set_backend_refuses_unknown_names():
    with pytest.raises(ValueError, match="expected one of jax, optree, own"):
        set_backend("tree")


def test_a_blocked_library_is_an_import_error(run_python):
    proc = run_python("""
        import sys
        sys.modules["optree"] = None
        from tensortypes.pytree import set_backend
        try:
            set_backend("optree")
        except ImportError as error:
            print("ImportError:", error)
    """)
    assert "ImportError: the 'optree' PyTree backend needs optree" in proc.stdout


# -- jaxtyping's examples on each backend ---------------------------------------------------

_EXAMPLES = r"""
import json, runpy, sys
for name in sys.argv[1].split(",") if sys.argv[1] else []:
    sys.modules[name] = None
examples = runpy.run_path("tests/pytree/pytree_spec_examples.py")
from tensortypes.pytree import backend_name
out = examples["run"](examples["scoped"])
print(json.dumps({"backend": backend_name(), "wrong": examples["verify"](out),
                  "jax": any(m.split(".")[0] in ("jax", "jaxlib") and sys.modules[m] is not None
                             for m in list(sys.modules))}))
"""


@pytest.mark.parametrize(
    "blocked, backend", [("", "jax"), ("jax,jaxlib", "optree"), ("jax,jaxlib,optree", "own")]
)
def test_spec_examples_run_on_every_backend(run_python, blocked, backend):
    if backend == "jax":
        pytest.importorskip("jax")
    if backend == "optree":
        pytest.importorskip("optree")
    proc = run_python(_EXAMPLES, blocked)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["backend"] == backend
    assert result["wrong"] == []
    assert result["jax"] == (backend == "jax")
