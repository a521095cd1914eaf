"""``annotate``'s inference: from recorded calls to annotation text (no libcst needed)."""

from __future__ import annotations

import ast

import numpy as np

from tensortypes.annotator.infer import dtype_class, infer_function, open_ranks, unequal_axes
from tensortypes.annotator.trace import describe


def _func(source: str):
    tree = ast.parse(source)
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef)), tree


def _calls(*calls, self_ints=None):
    """(args, ret, self_ints) triples from real values."""
    return [
        ({k: describe(v) for k, v in args.items()}, describe(ret), self_ints or {})
        for args, ret in calls
    ]


def test_equal_sizes_share_a_name_and_varying_ones_differ():
    func, tree = _func("import numpy as np\ndef f(x, w):\n    return x @ w\n")
    calls = _calls(
        ({"x": np.ones((4, 3)), "w": np.ones((3, 5))}, np.ones((4, 5))),
        ({"x": np.ones((2, 7)), "w": np.ones((7, 6))}, np.ones((2, 6))),
    )
    plan = infer_function(calls, func, None, tree)
    x, w, ret = plan.params["x"].text, plan.params["w"].text, plan.returns.text
    assert x == 'Float[np.ndarray, "batch n"]'
    assert w == 'Float[np.ndarray, "n m"]'
    assert ret == 'Float[np.ndarray, "batch m"]'


def test_names_from_shape_unpacking():
    func, tree = _func(
        "import numpy as np\ndef f(x):\n    b, t, c = x.shape\n    n = x.shape[-1]\n    return x\n"
    )
    calls = _calls(
        ({"x": np.ones((2, 5, 8), np.float32)}, np.ones((2, 5, 8), np.float32)),
        ({"x": np.ones((3, 4, 8), np.float32)}, np.ones((3, 4, 8), np.float32)),
    )
    plan = infer_function(calls, func, None, tree)
    assert plan.params["x"].text == 'Float[np.ndarray, "b t c"]'


def test_constructor_ints_name_a_size_when_only_one_matches():
    tree = ast.parse(
        "import torch\nclass Layer:\n"
        "    def __init__(self, d_model, n_heads, hidden=None):\n"
        "        self.hidden = hidden\n"
        "    def forward(self, x):\n        b, t, c = x.shape\n        return x\n"
    )
    cls = tree.body[1]
    func = cls.body[1]
    calls = [
        (
            {"x": {"k": "array", "lib": "torch", "dtype": "float32", "shape": [b, t, d]}},
            {"k": "array", "lib": "torch", "dtype": "float32", "shape": [b, t, d]},
            {"d_model": d, "n_heads": 4, "cache_len": t},
        )
        for b, t, d in ((2, 5, 16), (3, 7, 24))
    ]
    plan = infer_function(calls, func, cls, tree)
    # c is d_model: the constructor's int ties the axis to the layers built from it;
    # t is no cache_len, an attribute the constructor never reads (a call's state).
    assert plan.params["x"].text == 'Float[torch.Tensor, "b t d_model"]'
    # Two ints with the same value: ambiguous, the code's own name stays.
    for c in calls:
        c[2]["hidden"] = c[2]["d_model"]
    plan = infer_function(calls, func, cls, tree)
    assert plan.params["x"].text == 'Float[torch.Tensor, "b t c"]'
    # A size that never varies is tied to a constructor's int only when it is no
    # leading axis and more than 2: a test's batch of 4 is no n_heads = 4.
    calls = [
        (
            {"x": {"k": "array", "lib": "torch", "dtype": "float32", "shape": [4, t, 16]}},
            None,
            {"d_model": 16, "n_heads": 4},
        )
        for t in (5, 7)
    ]
    assert (
        infer_function(calls, func, cls, tree).params["x"].text
        == 'Float[torch.Tensor, "b t d_model"]'
    )


def test_a_size_two_int_parameters_fit_is_left_alone():
    func, tree = _func(
        "import torch\ndef causal_mask(i, j):\n    return torch.ones(i, j).triu(1)\n"
    )
    calls = [({"i": describe(n), "j": describe(n)}, _torch("bool", n, n), {}) for n in (3, 5)]
    plan = infer_function(calls, func, None, tree)
    assert plan.returns is None and plan.params["i"].text == "int"
    assert any("two int parameters" in n for n in plan.notes)


def test_optional_arrays_join_a_size_only_when_it_varies():
    # mask (b, 1, 1, j), given only in the calls whose batch was 1: its 1s are no batch.
    func, tree = _func("import torch\ndef attend(q, mask=None):\n    return q\n")
    calls = [
        (
            {
                "q": _torch("float32", b, 4, n, 8),
                "mask": _torch("bool", b, 1, 1, n) if b == 1 else describe(None),
            },
            _torch("float32", b, 4, n, 8),
            {},
        )
        for b, n in ((2, 3), (1, 5), (1, 6))
    ]
    plan = infer_function(calls, func, None, tree)
    assert plan.params["q"].text == 'Float[torch.Tensor, "batch n m k"]'
    assert plan.params["mask"].text == 'Bool[torch.Tensor, "p 1 1 m"] | None'


def test_varying_rank_gives_a_variadic_prefix():
    func, tree = _func("import numpy as np\ndef f(x):\n    return x / 2\n")
    calls = _calls(
        ({"x": np.ones((4, 3))}, np.ones((4, 3))), ({"x": np.ones((2, 5, 3))}, np.ones((2, 5, 3)))
    )
    plan = infer_function(calls, func, None, tree)
    assert plan.params["x"].text == plan.returns.text
    # Its trailing axes have nothing to say: one variadic group for the whole shape.
    assert plan.params["x"].text == 'Float[np.ndarray, "*batch"]'
    # Trailing axes that mean something (the number the code writes) stay.
    func, tree = _func("import numpy as np\ndef f(x):\n    return x.reshape(-1, 3)\n")
    calls = _calls(
        ({"x": np.ones((4, 3))}, np.ones((4, 3))), ({"x": np.ones((2, 5, 3))}, np.ones((10, 3)))
    )
    assert (
        infer_function(calls, func, None, tree).params["x"].text
        == 'Float[np.ndarray, "*batch2 n 3"]'
    )


def test_constants_stay_numbers_only_when_the_code_writes_them():
    func, tree = _func("import numpy as np\ndef f(x):\n    return x.reshape(-1, 3)\n")
    calls = _calls(
        ({"x": np.ones((4, 3))}, np.ones((4, 3))), ({"x": np.ones((6, 3))}, np.ones((6, 3)))
    )
    assert (
        infer_function(calls, func, None, tree).params["x"].text == 'Float[np.ndarray, "batch 3"]'
    )
    # No number the code writes as a size, nothing else shares the axes: a free
    # function's rank is the tests', one variadic group.
    func, tree = _func("import numpy as np\ndef f(x):\n    assert x.ndim == 2\n    return x[3]\n")
    assert infer_function(calls, func, None, tree).params["x"].text == 'Float[np.ndarray, "*batch"]'


def test_dtypes_are_the_codes_only_where_the_code_builds_them():
    # An argument's one dtype is the tests' (model.half() runs the same code on
    # float16): its kind. A result keeps the one dtype of its calls when the code builds
    # it with that dtype and reads no dtype to pass on.
    def plan(source, arg, ret):
        func, tree = _func("import numpy as np\nimport torch\n" + source)
        calls = _calls(({"x": np.ones((2, 3), arg)}, np.ones((2, 3), ret)))
        calls += _calls(({"x": np.ones((4, 5), arg)}, np.ones((4, 5), ret)))
        found = infer_function(calls, func, None, tree)
        return found.params["x"].text.split("[")[0], found.returns.text.split("[")[0]

    assert plan("def f(x):\n    return x * 2\n", np.float32, np.float32) == ("Float", "Float")
    assert plan("def f(x):\n    return x.astype(np.int64)\n", np.float32, np.int64) == (
        "Float",
        "Int64",
    )
    assert plan("def f(x):\n    return x.float()\n", np.float16, np.float32) == (
        "Float",
        "Float32",
    )
    # apply_polar_pos_emb: computes in float32, returns the input's dtype (t.dtype).
    source = "def f(x):\n    d = x.dtype\n    return x.float().type(d)\n"
    assert plan(source, np.float32, np.float32) == ("Float", "Float")
    # max_neg_value(t) reads t.dtype only: any float.
    assert plan(
        "def f(x):\n    return -np.finfo(x.dtype).max + 0 * x\n", np.float32, np.float32
    ) == (
        "Float",
        "Float",
    )


def test_a_parameter_whose_dtype_the_code_tests_is_left_alone():
    # TransformerWrapper.forward: ``pos.dtype != torch.long`` means pos may also be a
    # float embedding, whatever the tests passed.
    func, tree = _func(
        "import torch\ndef f(x, pos):\n    if pos.dtype != torch.long:\n        return x + pos\n"
        "    return x\n"
    )
    calls = _calls(
        ({"x": np.ones((2, 3)), "pos": np.ones((2, 3), np.int64)}, np.ones((2, 3))),
        ({"x": np.ones((4, 5)), "pos": np.ones((4, 5), np.int64)}, np.ones((4, 5))),
    )
    found = infer_function(calls, func, None, tree)
    assert "pos" not in found.params and "x" in found.params
    assert any("tests its dtype" in note for note in found.notes)


def test_dtype_classes_as_narrow_as_the_calls_allow():
    assert dtype_class({"float32"}) == "Float32"
    assert dtype_class({"float32", "float64"}) == "Float"
    assert dtype_class({"int32", "int64"}) == "Int"
    assert dtype_class({"bool"}) == "Bool"
    assert dtype_class({"int64", "float32"}) == "Real"
    assert dtype_class({"bool", "float32"}) == "Shaped"


def test_other_values_get_builtin_types_and_mixed_libraries_are_left_alone():
    func, tree = _func("def f(x, n, scale, name, flag=None):\n    use(x, n, scale, name, flag)\n")
    calls = [
        (
            {
                "x": {"k": "array", "lib": "numpy", "dtype": "float64", "shape": [2]},
                "n": describe(3),
                "scale": describe(1),
                "name": describe("a"),
                "flag": describe(None),
            },
            describe(None),
            {},
        ),
        (
            {
                "x": {"k": "array", "lib": "torch", "dtype": "float64", "shape": [2]},
                "n": describe(4),
                "scale": describe(0.5),
                "name": describe("b"),
                "flag": describe(True),
            },
            describe(None),
            {},
        ),
    ]
    plan = infer_function(calls, func, None, tree)
    assert "x" not in plan.params and any("several libraries" in n for n in plan.notes)
    assert plan.params["n"].text == "int"
    assert plan.params["scale"].text == "float"
    assert plan.params["name"].text == "str"
    assert plan.params["flag"].text == "bool | None"
    assert plan.returns.text == "None"


def test_library_spelling_follows_the_module_imports():
    for imports, expected in (
        ("import torch\n", "torch.Tensor"),
        ("from torch import Tensor\n", "Tensor"),
        ("import torch as th\n", "th.Tensor"),
    ):
        func, tree = _func("def f(x):\n    return x\n")
        tree.body.insert(0, ast.parse(imports).body[0])
        calls = [
            (
                {"x": {"k": "array", "lib": "torch", "dtype": "int64", "shape": [2]}},
                {"k": "array", "lib": "torch", "dtype": "int64", "shape": [2]},
                {},
            )
        ]
        assert (
            infer_function(calls, func, None, tree).params["x"].text == f'Int[{expected}, "*batch"]'
        )


def _torch(dtype: str, *shape: int) -> dict:
    return {"k": "array", "lib": "torch", "dtype": dtype, "shape": list(shape)}


def test_tuple_returns_annotate_each_item():
    func, tree = _func(
        "import torch\ndef forward(self, idx, targets=None):\n    return idx, None\n"
    )
    calls = []
    for b, t in ((2, 5), (3, 7)):
        for targets in (None, _torch("int64", b, t)):
            loss = describe(None) if targets is None else _torch("float32")
            calls.append(
                (
                    {"idx": _torch("int64", b, t), "targets": targets or describe(None)},
                    {"k": "tuple", "items": [_torch("float32", b, t, 11), loss]},
                    {},
                )
            )
    plan = infer_function(calls, func, None, tree)
    assert plan.params["targets"].text == 'Int[torch.Tensor, "batch n"] | None'
    assert plan.returns.text == (
        'tuple[Float[torch.Tensor, "batch n m"], Float[torch.Tensor, ""] | None]'
    )
    assert ("tensortypes", "Float") in plan.returns.imports
    # An item that is no array nor a simple value: the return is left alone.
    for c in calls:
        c[1]["items"][1] = {"k": "type", "name": "builtins.list"}
    plan = infer_function(calls, func, None, tree)
    assert plan.returns is None and any("tuple" in n for n in plan.notes)
    # A tuple traced through describe(): the same form.
    assert describe((np.zeros(2), 3))["items"][1] == {"k": "int", "v": 3}


def test_sizes_that_are_sums_or_multiples_become_expressions():
    func, tree = _func(
        "import torch\ndef generate(self, idx, max_new_tokens):\n"
        "    b, t = idx.shape\n    return idx\n"
    )
    calls = [
        (
            {"idx": _torch("int64", b, t), "max_new_tokens": describe(m)},
            _torch("int64", b, t + m),
            {},
        )
        for b, t, m in ((2, 5, 3), (1, 4, 6), (3, 2, 3))
    ]
    plan = infer_function(calls, func, None, tree)
    assert plan.params["idx"].text == 'Int[torch.Tensor, "b t"]'
    assert plan.returns.text == 'Int[torch.Tensor, "b t+{max_new_tokens}"]'
    # A multiple the code writes (4 * d_model), of a size named by the constructor.
    tree = ast.parse(
        "import torch\nclass Up:\n    def __init__(self, d_model):\n"
        "        self.fc = Linear(d_model, 4 * d_model)\n"
        "    def forward(self, x):\n        return self.fc(x)\n"
    )
    cls = tree.body[1]
    func = cls.body[1]
    calls = [
        ({"x": _torch("float32", 2, d)}, _torch("float32", 2, 4 * d), {"d_model": d})
        for d in (8, 16)
    ]
    plan = infer_function(calls, func, cls, tree)
    assert plan.returns.text == 'Float[torch.Tensor, "n 4*d_model"]'
    # A size that never varies is not an expression: too many would fit. (The input
    # width is d_model all the same: the one int the layer is built from.)
    calls = [({"x": _torch("float32", 2, 8)}, _torch("float32", 2, 32), {"d_model": 8})]
    plan = infer_function(calls, func, cls, tree)
    assert (plan.params["x"].text, plan.returns.text) == (
        'Float[torch.Tensor, "n d_model"]',
        'Float[torch.Tensor, "n m"]',
    )


def test_an_argument_size_is_no_expression_of_an_int_argument():
    # The test ties the batch to max_new_tokens by chance (max_new_tokens = b + 1).
    func, tree = _func("import torch\ndef generate(self, idx, max_new_tokens):\n    return idx\n")
    calls = [
        (
            {"idx": _torch("int64", b, t), "max_new_tokens": describe(b + 1)},
            _torch("int64", b, t + b + 1),
            {},
        )
        for b, t in ((2, 5), (1, 4), (3, 2))
    ]
    plan = infer_function(calls, func, None, tree)
    assert plan.params["idx"].text == 'Int[torch.Tensor, "batch n"]'
    assert plan.returns.text == 'Int[torch.Tensor, "batch n+{max_new_tokens}"]'


def test_the_tracer_records_distinct_calls_up_to_its_cap():
    from tensortypes.annotator.trace import Tracer

    def f(x):
        return x

    tracer = Tracer([__file__], cap=3)
    with tracer:
        for n in (2, 2, 2, 3, 3, 4, 5, 6):
            f(np.zeros(n))
    # Three distinct calls fill the cap; past it the first call (5) is sampled, the
    # next (6) is not.
    assert [row[4]["x"]["shape"] for row in tracer.rows] == [[2], [3], [4], [5]]
    # A function called over and over alike is looked at cap * 4 times, then sampled at
    # gaps that double up to cap * 4 = 12 calls: 12 calls, then calls 1, 3, 7, 15, 27,
    # 39, 51, 63 and 75 past them.
    tracer = Tracer([__file__], cap=3)
    with tracer:
        for _ in range(12 + 80):
            f(np.zeros(2))
    code = f.__code__
    assert len(tracer.rows) == 1 and tracer.examined[code] == 12 + 9


def test_the_tracer_looks_at_a_late_call_of_new_argument_types():
    # maybe(fn)'s inner(x) called with arrays many times, then once with a module: the
    # module call is looked at although the function is past its cap.
    from tensortypes.annotator.trace import Tracer

    def inner(x, *args):
        return x

    class Module:
        pass

    tracer = Tracer([__file__], cap=2)
    with tracer:
        for n in range(41):
            inner(np.zeros(2 + n % 2))
        # Past the cap of 2, calls 1, 3, 7, 15, 23, 31, 39 and 47 are sampled: the
        # module (40) is looked at for its type, the float16 array (41) is not.
        inner(Module())
        inner(np.zeros(1, np.float16))
    kinds = [row[4]["x"].get("shape", row[4]["x"].get("name")) for row in tracer.rows]
    assert kinds == [[2], [3], f"{__name__}.{Module.__qualname__}"]


def test_the_tracer_records_late_variety_up_to_four_times_its_cap():
    from tensortypes.annotator.trace import Tracer

    def f(x):
        return x

    tracer = Tracer([__file__], cap=2)
    with tracer:
        for n in range(200):
            f(n * 1.0 if n % 2 else str(n))  # two argument types only
        for n in range(200, 400):
            f(np.zeros(n))  # a new type: looked at once, then sampled
    # Two rows fill the cap; then the first array (a new type) and sampled arrays of
    # new shapes, until 4 * cap rows: then the function is left alone.
    assert [row[4]["x"]["k"] for row in tracer.rows[:3]] == ["str", "float", "array"]
    assert len(tracer.rows) == 8 and tracer.wanted[f.__code__] is False


def _method(source: str, name: str):
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    return next(n for n in cls.body if n.name == name), cls, tree


def test_sizes_two_constructor_ints_fit_are_no_one_size():
    # LoRALinear(dim_in, dim_out) tested with dim_in == dim_out: the output width is
    # not the input's.
    func, cls, tree = _method(
        "import torch\nclass L:\n    def __init__(self, dim_in, dim_out):\n"
        "        self.dim_in, self.dim_out = dim_in, dim_out\n"
        "    def forward(self, x):\n        return x @ self.w\n",
        "forward",
    )
    calls = [
        (
            {"x": _torch("float32", b, n, 16)},
            _torch("float32", b, n, 16),
            {"dim_in": 16, "dim_out": 16},
        )
        for b, n in ((2, 5), (3, 7))
    ]
    plan = infer_function(calls, func, cls, tree)
    assert plan.params["x"].text == 'Float[torch.Tensor, "batch n m"]'
    assert plan.returns.text == 'Float[torch.Tensor, "batch n k"]'


def test_a_square_of_a_size_that_never_varied_is_not_taken_for_the_codes():
    func, tree = _func("import torch\ndef bias(x, w):\n    return x @ w\n")
    calls = [
        (
            {"x": _torch("float32", b, 4, 8), "w": _torch("float32", 8, 8)},
            _torch("float32", b, 4, 8),
            {},
        )
        for b in (2, 3)
    ]
    plan = infer_function(calls, func, None, tree)
    # Which of w's 8s is x's is unknown: nobody shares the 8, and w names none of its
    # axes (it would be left alone if a name of the code were among them).
    assert plan.params["w"].text == 'Float[torch.Tensor, "*batch2"]'
    assert plan.params["x"].text == 'Float[torch.Tensor, "batch n m"]'
    assert plan.returns.text == 'Float[torch.Tensor, "batch n q"]'


def test_axes_another_method_saw_unequal_get_two_names():
    source = (
        "import torch\nclass A:\n    def __init__(self):\n        pass\n"
        "    def forward(self, q, k):\n        return self.inner(q, k)\n"
        "    def inner(self, q, k):\n        return q @ k.transpose(-1, -2)\n"
    )
    inner, cls, tree = _method(source, "inner")
    # The tests called inner with keys as long as the queries only; forward saw both.
    calls = [
        (
            {"q": _torch("float32", b, n, 8), "k": _torch("float32", b, n, 8)},
            _torch("float32", b, n, n),
            {},
        )
        for b, n in ((2, 5), (3, 6))
    ]
    plan = infer_function(calls, inner, cls, tree)
    assert plan.params["k"].text == 'Float[torch.Tensor, "batch n m"]'
    seen = unequal_axes(
        [({"q": _torch("float32", 2, 5, 8), "k": _torch("float32", 2, 9, 8)}, None, {})]
    )
    plan = infer_function(calls, inner, cls, tree, unequal=seen)
    assert plan.params["q"].text == 'Float[torch.Tensor, "batch n m"]'
    assert plan.params["k"].text == 'Float[torch.Tensor, "batch k2 m"]'


def test_ranks_the_code_tests_or_expands_are_open():
    func, tree = _func(
        "import torch\ndef attend(q, k, bias):\n"
        "    if k.ndim == 3:\n        k = k[:, None]\n"
        "    bias = bias.expand(q.shape[0], q.shape[1], -1, -1)\n"
        "    return (q @ k.transpose(-1, -2) + bias).softmax(-1)\n"
    )
    calls = [
        (
            {
                "q": _torch("float32", b, 4, n, 8),
                "k": _torch("float32", b, 4, n, 8),
                "bias": _torch("float32", b, 4, n, n),
            },
            _torch("float32", b, 4, n, n),
            {},
        )
        for b, n in ((2, 5), (3, 9))
    ]
    assert open_ranks(func) == {"k": {3}, "bias": {3}}
    plan = infer_function(calls, func, None, tree)
    # k of rank 3 or 4: only its last axis is named, and that one says nothing here.
    assert plan.params["k"].text == 'Float[torch.Tensor, "*batch2"]'
    assert plan.params["bias"].text.startswith('Float[torch.Tensor, "*')
    assert plan.params["q"].text == 'Float[torch.Tensor, "batch n m k2"]'


def test_a_return_of_two_forms_is_left_alone():
    func, tree = _func(
        "import torch\ndef loss(x, return_outputs=False):\n"
        "    l = x.mean()\n    if not return_outputs:\n        return l\n    return l, x\n"
    )
    calls = [
        ({"x": _torch("float32", b, 3), "return_outputs": describe(False)}, _torch("float32"), {})
        for b in (2, 4)
    ]
    plan = infer_function(calls, func, None, tree)
    assert plan.returns is None
    assert any("returns a tuple in some places" in n for n in plan.notes)


def test_a_results_1_is_the_codes_only_where_the_code_makes_one():
    func, tree = _func(
        "import torch\ndef or_reduce(masks):\n    head, *body = masks\n"
        "    for rest in body:\n        head = head | rest\n    return head\n"
    )
    calls = [
        ({"masks": {"k": "list"}}, _torch("bool", b, 1, 1, n), {}) for b, n in ((2, 5), (1, 9))
    ]
    assert infer_function(calls, func, None, tree).returns.text == 'Bool[torch.Tensor, "*batch"]'
    func, tree = _func("import torch\ndef pool(x):\n    return x.mean(-1, keepdim=True)\n")
    calls = [
        ({"x": _torch("float32", b, n)}, _torch("float32", b, 1), {}) for b, n in ((2, 5), (3, 9))
    ]
    assert infer_function(calls, func, None, tree).returns.text == 'Float[torch.Tensor, "batch 1"]'


def test_a_helper_whose_tests_shared_no_varying_size_is_of_any_shape():
    # pad_at_dim(t, pad, dim): every axis generic, no size that varied in two arrays.
    func, tree = _func(
        "import torch\nimport torch.nn.functional as F\n"
        "def pad_at_dim(t, pad, dim=-1):\n    return F.pad(t, pad)\n"
    )
    calls = [
        ({"t": _torch("float32", 1, n, 9), "dim": describe(1)}, _torch("float32", 1, 4, 9), {})
        for n in (4, 3)
    ]
    plan = infer_function(calls, func, None, tree)
    assert plan.params["t"].text == 'Float[torch.Tensor, "*batch"]'
    assert plan.returns.text == 'Float[torch.Tensor, "*batch2"]'


def test_a_shape_preserving_layer_takes_any_leading_axes():
    func, cls, tree = _method(
        "import torch\nclass Norm:\n    def __init__(self, dim):\n        self.dim = dim\n"
        "    def forward(self, x):\n        return x / x.norm(dim=-1, keepdim=True)\n",
        "forward",
    )
    calls = [
        ({"x": _torch("float32", b, h, n, d)}, _torch("float32", b, h, n, d), {"dim": d})
        for b, h, n, d in ((2, 8, 4, 64), (1, 8, 3, 32))
    ]
    plan = infer_function(calls, func, cls, tree)
    assert plan.params["x"].text == 'Float[torch.Tensor, "*batch dim"]'
    assert plan.returns.text == 'Float[torch.Tensor, "*batch dim"]'
    # A block handing x to a layer of its own takes that layer's ranks: no *batch.
    func, cls, tree = _method(
        "import torch\nclass Block:\n    def __init__(self, dim):\n        self.dim = dim\n"
        "    def forward(self, x):\n        return x + self.attn(x)\n",
        "forward",
    )
    plan = infer_function(calls, func, cls, tree)
    assert plan.params["x"].text == 'Float[torch.Tensor, "batch n m dim"]'


def test_a_size_that_is_1_or_another_is_a_broadcast():
    # Rotary frequencies shared by all heads (1) or given per head.
    func, tree = _func("import torch\ndef rotate(t, freqs):\n    return t * freqs\n")
    calls = [
        (
            {"t": _torch("float32", b, h, n, 8), "freqs": _torch("float32", f, n, 8)},
            _torch("float32", b, h, n, 8),
            {},
        )
        for b, h, n, f in ((2, 4, 6, 1), (2, 4, 6, 4), (1, 8, 3, 8), (1, 8, 3, 1))
    ]
    plan = infer_function(calls, func, None, tree)
    assert plan.params["t"].text == 'Float[torch.Tensor, "batch n m k"]'
    assert plan.params["freqs"].text == 'Float[torch.Tensor, "#n m k"]'


def test_a_constant_width_is_the_int_a_layer_is_built_from():
    func, cls, tree = _method(
        "import torch\nclass GLU:\n    def __init__(self, dim_in, dim_out):\n"
        "        self.proj = nn.Linear(dim_in, dim_out * 2)\n"
        "    def forward(self, x):\n        a, b = self.proj(x).chunk(2, dim=-1)\n"
        "        return a * b\n",
        "forward",
    )
    calls = [
        (
            {"x": _torch("float32", 1, 10, 512)},
            _torch("float32", 1, 10, 2048),
            {"dim_in": 512, "dim_out": 2048},
        )
    ]
    plan = infer_function(calls, func, cls, tree)
    # One call, one width: tied all the same, since nn.Linear is built from dim_in.
    assert plan.params["x"].text == 'Float[torch.Tensor, "n m dim_in"]'


def test_a_returned_state_gets_no_scalar_type_from_some_calls():
    func, cls, tree = _method(
        "class always:\n    def __init__(self, val):\n        self.val = val\n"
        "    def __call__(self, *args):\n        return self.val\n",
        "__call__",
    )
    calls = [({}, describe(0), {}), ({}, describe(1), {})]
    assert infer_function(calls, func, cls, tree).returns is None


def test_a_decorators_wrapper_is_left_alone():
    import pytest

    pytest.importorskip("libcst")
    from tensortypes.annotator.apply import plans_for_source

    source = (
        "def maybe(fn):\n    def inner(x, *args):\n"
        "        return x if x is None else fn(x, *args)\n    return inner\n"
    )
    calls = _calls(({"x": np.ones((2, 3), np.float32)}, np.ones((2, 3), np.float32)))
    plan = plans_for_source(source, {"maybe.<locals>.inner": calls})["maybe.<locals>.inner"]
    assert not plan.params and plan.returns is None
    assert "decorator's wrapper" in plan.notes[0]


def test_a_result_passed_on_from_a_held_callable_or_a_container_is_left_alone():
    func, cls, tree = _method(
        "class Fold:\n    def __init__(self, fn):\n        self.fn = fn\n"
        "    def forward(self, x, *args, **kwargs):\n        return self.fn(x, *args, **kwargs)\n",
        "forward",
    )
    calls = [({"x": _torch("float32", b, 4, 8)}, _torch("float32", b, 4, 16), {}) for b in (1, 2)]
    plan = infer_function(calls, func, cls, tree)
    assert plan.returns is None and "x" in plan.params
    assert any("what a callable it holds returns" in n for n in plan.notes)
    func, tree = _func("def first(it, default=None):\n    return it[0] if len(it) else default\n")
    calls = [
        ({"it": {"k": "list"}, "default": describe(None)}, _torch("float32", b), {}) for b in (2, 3)
    ]
    plan = infer_function(calls, func, None, tree)
    assert plan.returns is None
    assert any("an item of a container argument" in n for n in plan.notes)


def test_a_results_leading_1_is_no_1_when_the_code_takes_other_ranks():
    # PolarEmbedding: t of rank 1 becomes (1, n); of rank 2 it stays (b, n).
    func, cls, tree = _method(
        "import torch\nclass Polar:\n    def __init__(self, dim, heads):\n"
        "        self.bias = torch.zeros(heads, 1, dim)\n"
        "    def forward(self, t):\n        if t.ndim == 1:\n"
        "            t = rearrange(t, 'n -> 1 n')\n"
        "        return t[..., None] * self.freq, self.bias\n",
        "forward",
    )
    calls = [
        (
            {"t": _torch("int64", n)},
            {"k": "tuple", "items": [_torch("float32", 1, n, 64), _torch("float32", h, 1, 64)]},
            {"dim": 64, "heads": h},
        )
        for n, h in ((10, 8), (15, 4))
    ]
    plan = infer_function(calls, func, cls, tree)
    assert plan.returns.text == (
        'tuple[Float[torch.Tensor, "n m dim"], Float[torch.Tensor, "heads 1 dim"]]'
    )


def test_an_array_parameter_defaulting_to_none_is_optional():
    func, tree = _func("import torch\ndef f(x, mask=None):\n    return x\n")
    calls = [
        ({"x": _torch("float32", b, 4), "mask": _torch("bool", b, 4)}, _torch("float32", b, 4), {})
        for b in (2, 3)
    ]
    assert infer_function(calls, func, None, tree).params["mask"].text.endswith("| None")


def test_the_tracer_keeps_constructor_ints_past_the_cap_and_not_a_dead_objects():
    from tensortypes.annotator.trace import Tracer

    class Layer:
        def __init__(self, dim):
            self.w = np.zeros(dim)

        def forward(self, x):
            return x + self.w

    tracer = Tracer([__file__], cap=1)
    with tracer:
        layers = [Layer(d) for d in range(2, 30)]  # __init__ past its cap of 1 (4 looks)
        last = layers[-1]
        for layer in layers[:3]:
            layer.forward(np.zeros(len(layer.w)))
        # forward's first row fills its cap; past it, calls 1 and 3 are sampled.
        last.forward(np.zeros(29))
    rows = [row for row in tracer.rows if row[1].endswith("forward")]
    assert rows[-1][4]["x"]["shape"] == [29] and rows[-1][6] == {"dim": 29}
    # An object at the address of a dead one does not inherit its constructor's ints.
    other = Layer.__new__(Layer)
    tracer.init_ints[id(other)] = tracer.init_ints[id(last)]
    assert tracer._init_ints_of(other) == {} and tracer._init_ints_of(last) == {"dim": 29}


_POSITIONS = """\
def exists(v):
    return v is not None

class Rotary:
    def __init__(self, dim):
        self.dim = dim
    def forward(self, t):
        if t.ndim == 1:
            t = t[None]
        return t

class Layers:
    def __init__(self, dim, rotary=True):
        self.rotary = Rotary(dim) if rotary else None
    def forward(self, x, context_pos=None, mask=None):
        if exists(mask):
            x = x * mask
        if exists(context_pos):
            x = x + self.rotary(context_pos)
        return x
"""


def test_a_parameter_passed_to_a_callee_that_takes_several_ranks_takes_them_too():
    # AttentionLayers.forward(context_pos) hands it to a RotaryEmbedding whose forward
    # tests t.ndim == 1 and was called with (n,) and (b, n): the tests' (n,) context
    # positions are no rank of the code. A parameter handed to exists(v), which takes
    # anything and tests no rank, keeps the rank its calls had.
    import pytest

    pytest.importorskip("libcst")
    from tensortypes.annotator.apply import plans_for_source

    def layers_call(n, pos):
        return (
            {"x": np.ones((2, n, 4)), "context_pos": pos, "mask": np.ones((2, n, 1))},
            np.ones((2, n, 4)),
        )

    traced = {
        "Rotary.forward": _calls(
            ({"t": np.arange(5)}, np.ones((1, 5))), ({"t": np.ones((2, 6))}, np.ones((2, 6)))
        ),
        "Layers.forward": _calls(layers_call(5, np.arange(5)), layers_call(7, np.arange(7))),
    }
    plans = plans_for_source(_POSITIONS, traced)["Layers.forward"].params
    assert plans["context_pos"].text == 'Int[np.ndarray, "*batch"] | None'
    assert plans["mask"].text == 'Float[np.ndarray, "n m 1"] | None'
    # Without the rank test in the callee, the tests' rank stands.
    plain = _POSITIONS.replace("        if t.ndim == 1:\n            t = t[None]\n", "")
    plans = plans_for_source(plain, traced)
    assert plans["Layers.forward"].params["context_pos"].text == ('Int[np.ndarray, "m"] | None')


def test_a_parameter_the_body_replaces_when_absent_by_another_rank_is_open():
    # AbsolutePositionalEmbedding.forward(x, pos=None) builds arange(n) when no
    # positions are given and returns (n, d); the one call with positions passed
    # (b, n) and got (b, n, d): the code's own positions have rank 1, so pos takes any.
    source = (
        "import torch\nclass Pos:\n    def __init__(self, dim):\n        self.dim = dim\n"
        "    def forward(self, x, pos=None):\n        if not exists(pos):\n"
        "            pos = torch.arange(x.shape[1])\n        return self.emb(pos)\n"
    )
    func, cls, tree = _method(source, "forward")

    def call(x, pos, ret):
        return {"x": _torch("int64", *x), "pos": pos}, _torch("float32", *ret), {"dim": 8}

    calls = [
        call((2, 5), describe(None), (5, 8)),
        call((3, 7), describe(None), (7, 8)),
        call((2, 4), _torch("int64", 2, 4), (2, 4, 8)),
    ]
    plan = infer_function(calls, func, cls, tree)
    assert plan.params["pos"].text == 'Int[torch.Tensor, "*batch2"] | None'
    # The same calls with results of one rank: the positions keep the rank they had.
    calls[2] = call((2, 4), _torch("int64", 4), (4, 8))
    calls[0] = call((2, 5), _torch("int64", 5), (5, 8))
    plan = infer_function(calls, func, cls, tree)
    assert plan.params["pos"].text == 'Int[torch.Tensor, "n"] | None'


def test_a_parameter_in_the_role_of_another_shares_what_that_one_broke():
    # Attention.forward: the key mask comes as context_mask or as mask (input_mask =
    # context_mask; if it is None, input_mask = mask). context_mask was longer than the
    # cached step's queries; no test cached with a mask, which was always as long as the
    # queries: that equality is the tests', not the code's.
    source = (
        "class Attention:\n    def forward(self, x, mask=None, context_mask=None):\n"
        "        input_mask = context_mask\n"
        "        if input_mask is None:\n            input_mask = mask\n"
        "        return self.out(x)\n"
    )
    func, cls, tree = _method(source, "forward")

    def call(b, n, mask, context_mask):
        return (
            {"x": _torch("float32", b, n, 8), "mask": mask, "context_mask": context_mask},
            _torch("float32", b, n, 8),
            {},
        )

    none = describe(None)
    calls = [
        call(2, 5, _torch("bool", 2, 5), none),
        call(3, 7, _torch("bool", 3, 7), none),
        call(2, 1, none, _torch("bool", 2, 3)),
        call(3, 1, none, _torch("bool", 3, 4)),
    ]
    plan = infer_function(calls, func, cls, tree)
    x, mask = plan.params["x"].text, plan.params["mask"].text
    assert (
        x == 'Float[torch.Tensor, "batch n m"]' and mask == 'Bool[torch.Tensor, "batch k"] | None'
    )
    # Without the shared role the mask's length is the queries'.
    plain = source.replace("        if input_mask is None:\n            input_mask = mask\n", "")
    func, cls, tree = _method(plain, "forward")
    assert infer_function(calls, func, cls, tree).params["mask"].text == (
        'Bool[torch.Tensor, "batch n"] | None'
    )


def test_a_function_returning_an_argument_as_it_is_gets_no_simple_types_from_the_calls():
    # default(val, d) and default(*args) return an argument as it is: the tests' ints
    # are no type of theirs; an ordinary int parameter keeps its type.
    func, tree = _func("def default(val, d):\n    return val if val is not None else d\n")
    calls = _calls(({"val": None, "d": 3}, 3), ({"val": 2, "d": 5}, 2))
    plan = infer_function(calls, func, None, tree)
    assert plan.params == {} and plan.returns is None
    func, tree = _func(
        "def default(*args):\n    for arg in args:\n        if arg is not None:\n"
        "            return arg\n"
    )
    calls = _calls(({"args": (None, 1.5)}, 1.5))
    assert infer_function(calls, func, None, tree).returns is None
    func, tree = _func("def twice(n):\n    return 2 * n\n")
    plan = infer_function(_calls(({"n": 3}, 6)), func, None, tree)
    assert plan.params["n"].text == "int" and plan.returns.text == "int"
