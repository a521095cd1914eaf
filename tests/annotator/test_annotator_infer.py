"""``annotate``'s inference: from recorded calls to annotation text (no libcst needed)."""

from __future__ import annotations

import ast

import numpy as np

from tensortypes.annotator.infer import dtype_class, infer_function
from tensortypes.annotator.trace import describe


def _func(source: str):
    tree = ast.parse(source)
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef)), tree


def _calls(*calls, self_ints=None):
    """(args, ret, self_ints) triples from real values."""
    return [({k: describe(v) for k, v in args.items()}, describe(ret), self_ints or {})
            for args, ret in calls]


def test_equal_sizes_share_a_name_and_varying_ones_differ():
    func, tree = _func("import numpy as np\ndef f(x, w):\n    return x @ w\n")
    calls = _calls(({"x": np.ones((4, 3)), "w": np.ones((3, 5))}, np.ones((4, 5))),
                   ({"x": np.ones((2, 7)), "w": np.ones((7, 6))}, np.ones((2, 6))))
    plan = infer_function(calls, func, None, tree)
    x, w, ret = plan.params["x"].text, plan.params["w"].text, plan.returns.text
    assert x == 'Float64[np.ndarray, "batch n"]'
    assert w == 'Float64[np.ndarray, "n m"]'
    assert ret == 'Float64[np.ndarray, "batch m"]'


def test_names_from_shape_unpacking():
    func, tree = _func("import numpy as np\ndef f(x):\n    b, t, c = x.shape\n"
                       "    n = x.shape[-1]\n    return x\n")
    calls = _calls(({"x": np.ones((2, 5, 8), np.float32)}, np.ones((2, 5, 8), np.float32)),
                   ({"x": np.ones((3, 4, 8), np.float32)}, np.ones((3, 4, 8), np.float32)))
    plan = infer_function(calls, func, None, tree)
    assert plan.params["x"].text == 'Float32[np.ndarray, "b t c"]'


def test_constructor_ints_name_a_size_when_only_one_matches():
    func, tree = _func("import torch\ndef forward(self, x):\n    b, t, c = x.shape\n"
                       "    return x\n")
    calls = [({"x": {"k": "array", "lib": "torch", "dtype": "float32", "shape": [b, t, 16]}},
              {"k": "array", "lib": "torch", "dtype": "float32", "shape": [b, t, 16]},
              {"d_model": 16, "n_heads": 4}) for b, t in ((2, 5), (3, 7))]
    plan = infer_function(calls, func, None, tree)
    # c is d_model: the constructor's int ties the axis to the layers built from it.
    assert plan.params["x"].text == 'Float32[torch.Tensor, "b t d_model"]'
    # Two ints with the same value: ambiguous, the code's own name stays.
    for c in calls:
        c[2]["hidden"] = 16
    plan = infer_function(calls, func, None, tree)
    assert plan.params["x"].text == 'Float32[torch.Tensor, "b t c"]'


def test_varying_rank_gives_a_variadic_prefix():
    func, tree = _func("import numpy as np\ndef f(x):\n    return x / 2\n")
    calls = _calls(({"x": np.ones((4, 3))}, np.ones((4, 3))),
                   ({"x": np.ones((2, 5, 3))}, np.ones((2, 5, 3))))
    plan = infer_function(calls, func, None, tree)
    assert plan.params["x"].text == plan.returns.text
    assert plan.params["x"].text.startswith('Float64[np.ndarray, "*batch ')


def test_constants_stay_numbers_only_when_the_code_writes_them():
    func, tree = _func("import numpy as np\ndef f(x):\n    return x.reshape(-1, 3)\n")
    calls = _calls(({"x": np.ones((4, 3))}, np.ones((4, 3))),
                   ({"x": np.ones((6, 3))}, np.ones((6, 3))))
    assert infer_function(calls, func, None, tree).params["x"].text == \
        'Float64[np.ndarray, "batch 3"]'
    func, tree = _func("import numpy as np\ndef f(x):\n    return x.sum(0)\n")
    assert infer_function(calls, func, None, tree).params["x"].text == \
        'Float64[np.ndarray, "batch n"]'


def test_dtype_classes_as_narrow_as_the_calls_allow():
    assert dtype_class({"float32"}) == "Float32"
    assert dtype_class({"float32", "float64"}) == "Float"
    assert dtype_class({"int32", "int64"}) == "Int"
    assert dtype_class({"bool"}) == "Bool"
    assert dtype_class({"int64", "float32"}) == "Real"
    assert dtype_class({"bool", "float32"}) == "Shaped"


def test_other_values_get_builtin_types_and_mixed_libraries_are_left_alone():
    func, tree = _func("def f(x, n, scale, name, flag=None):\n    return x\n")
    calls = [({"x": {"k": "array", "lib": "numpy", "dtype": "float64", "shape": [2]},
               "n": describe(3), "scale": describe(1), "name": describe("a"),
               "flag": describe(None)}, describe(None), {}),
             ({"x": {"k": "array", "lib": "torch", "dtype": "float64", "shape": [2]},
               "n": describe(4), "scale": describe(0.5), "name": describe("b"),
               "flag": describe(True)}, describe(None), {})]
    plan = infer_function(calls, func, None, tree)
    assert "x" not in plan.params and any("several libraries" in n for n in plan.notes)
    assert plan.params["n"].text == "int"
    assert plan.params["scale"].text == "float"
    assert plan.params["name"].text == "str"
    assert plan.params["flag"].text == "bool | None"
    assert plan.returns.text == "None"


def test_library_spelling_follows_the_module_imports():
    for imports, expected in (("import torch\n", "torch.Tensor"),
                              ("from torch import Tensor\n", "Tensor"),
                              ("import torch as th\n", "th.Tensor")):
        func, tree = _func("def f(x):\n    return x\n")
        tree.body.insert(0, ast.parse(imports).body[0])
        calls = [({"x": {"k": "array", "lib": "torch", "dtype": "int64", "shape": [2]}},
                  {"k": "array", "lib": "torch", "dtype": "int64", "shape": [2]}, {})]
        assert infer_function(calls, func, None, tree).params["x"].text == \
            f'Int64[{expected}, "n"]'
