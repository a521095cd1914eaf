"""The walker's behaviour on small programs: schemas, constructions, bindings, facts."""

from __future__ import annotations

import pytest

from tensortypes.check import check_source
from tensortypes.check.binding import Binder
from tensortypes.check.shapetext import parse_shape
from tensortypes.check.sizes import equal_under_facts, same_size
from tensortypes.core import dims

HEADER = (
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "from jaxtyping import Float, Int\nfrom torch import Tensor\n"
)


def _check(body: str, strict: bool = False):
    return check_source(HEADER + body, "m.py", strict=strict)


def _errors(body: str):
    return [(d.line - HEADER.count("\n"), d.code) for d in _check(body) if d.severity == "error"]


def _revealed(body: str) -> list:
    return [d.message.partition(" is ")[2] for d in _check(body) if d.code == "reveal"]


def test_reveal_type_says_what_the_checker_knows():
    found = _revealed(
        "def f(x: Float[Tensor, 'b n']):\n"
        "    reveal_type(x.sum(1, keepdim=True))\n"
        "    reveal_type(x.shape[1])\n"
    )
    assert found == ["float[b,1](torch)", "int n"]


def test_the_schema_is_the_value_where_init_ends():
    body = (
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = None\n"
        "        self.fc = nn.Linear(3, 4)\n"
        "        self.register_buffer('scale', torch.ones(4))\n"
        "    def forward(self, x: Float[Tensor, 'b 3']) -> Float[Tensor, 'b 4']:\n"
        "        reveal_type(self.scale)\n"
        "        return self.fc.weight.sum() * self.fc(x) * self.scale\n"
    )
    assert _errors(body) == []
    assert _revealed(body) == ["f32[4](torch)"]


def test_a_construction_checks_the_layers_init_built_with_its_sizes():
    body = (
        "class Block(nn.Module):\n"
        "    def __init__(self, dim: int, heads: int):\n"
        "        super().__init__()\n"
        "        self.attn = nn.MultiheadAttention(dim, heads)\n"
        "        self.norm = nn.GroupNorm(heads, dim)\n"
        "ok = Block(64, 8)\n"
        "bad = Block(100, 8)\n"
    )
    found = _check(body)
    assert [(d.line - HEADER.count("\n"), d.code) for d in found] == [(7, "layer")]
    assert "embed_dim=100 is not divisible by num_heads=8" in found[0].message
    assert "dim=100" in found[0].notes[0]


def test_one_error_per_call_not_a_cascade():
    body = (
        "def dense(x: Float[Tensor, 'b i'], w: Float[Tensor, 'i o'],\n"
        "          b: Float[Tensor, 'o']) -> Float[Tensor, 'b o']:\n"
        "    return x @ w + b\n"
        "def use(x: Float[Tensor, 'b d'], w: Float[Tensor, 'h d'], b: Float[Tensor, 'h']):\n"
        "    return dense(x, w, b)\n"
    )
    assert _errors(body) == [(5, "arg-type")]


def test_divisibility_facts_reach_bindings_and_reshapes():
    body = (
        "class Up(nn.Module):\n"
        "    def __init__(self, c: int):\n"
        "        super().__init__()\n"
        "        {check}\n"
        "        self.up = nn.ConvTranspose2d(c, c // 2, 2, stride=2)\n"
        "    def forward(self, x: Float[Tensor, 'b c h w'],\n"
        "                skip: Float[Tensor, 'b c//2 2*h 2*w'],\n"
        "                ) -> Float[Tensor, 'b c 2*h 2*w']:\n"
        "        return torch.cat([skip, self.up(x)], dim=1)\n"
    )
    # c//2 + c//2 is c only for an even c: without the assert that is "cannot
    # tell" (a --strict note), with it the sizes are proven equal (no note).
    assert _errors(body.format(check="pass")) == []
    notes = [d for d in _check(body.format(check="pass"), strict=True) if "exact" in d.message]
    assert [(d.line - HEADER.count("\n"), d.code) for d in notes] == [(9, "unchecked")]
    assert "equal only when the divisions in them are exact" in notes[0].message
    proven = _check(body.format(check="assert c % 2 == 0"), strict=True)
    assert not [d for d in proven if "exact" in d.message]
    assert _errors(body.format(check="pass").replace("c // 2, 2", "c // 3, 2")) == [(9, "return")]


def test_sizes_compare_under_facts():
    n, k = dims.symbol("n"), dims.symbol("k")
    assert same_size(n, n) and not same_size(n, k)
    assert same_size(k * (n // k), n)  # equal when k divides n: cannot tell
    assert not same_size(k * (n // k), n, remainders=False)
    assert not same_size(k * (n // k), n + 1)
    assert same_size(k * (n // k), n, (("n", k),), remainders=False)
    assert equal_under_facts(n // 2 + n // 2, n, (("n", dims.const(2)),))
    assert not equal_under_facts(n // 2, n, (("n", dims.const(2)),))


def test_a_binder_refuses_a_size_that_is_not_a_multiple():
    binder = Binder()
    (problem,) = binder.match(parse_shape("4*c"), (dims.symbol("m"),), "x")
    assert "a multiple of 4" in problem.message
    assert Binder().match(parse_shape("4*c"), (dims.parse("4*m"),), "x") == []
    facts = Binder(facts=(("m", dims.const(4)),))
    assert facts.match(parse_shape("4*c"), (dims.symbol("m"),), "x") == []


def test_a_slice_by_a_size_is_taken_to_be_in_range():
    body = (
        "def f(mask: Float[Tensor, 'n n'], x: Float[Tensor, 'b t t']):\n"
        "    reveal_type(mask[:x.shape[1], :x.shape[1]])\n"
        "    reveal_type(mask[: mask.shape[0] + 1])\n"
    )
    assert _revealed(body) == ["float[t,t](torch)", "float[n,n](torch)"]


@pytest.mark.parametrize(
    "call, shape",
    [
        ("F.max_pool2d(x, 2)", "b,8,16,16"),
        ("F.avg_pool2d(x, kernel_size=4, stride=4)", "b,8,8,8"),
        ("F.adaptive_avg_pool2d(x, (1, 1))", "b,8,1,1"),
        ("F.interpolate(x, scale_factor=2)", "b,8,64,64"),
        ("F.interpolate(x, size=(7, 9))", "b,8,7,9"),
        ("nn.PixelShuffle(2)(x)", "b,2,64,64"),
    ],
)
def test_functional_forms_share_the_layer_rules(call, shape):
    found = _revealed(f"def f(x: Float[Tensor, 'b 8 32 32']):\n    reveal_type({call})\n")
    assert found == [f"float[{shape}](torch)"]


def test_masked_fill_needs_a_bool_mask_that_broadcasts():
    body = (
        "def f(x: Float[Tensor, 'b t t'], m: Float[Tensor, 't t'], k: Int[Tensor, 'b t']):\n"
        "    x.masked_fill(m == 0, 0.0)\n"
        "    x.masked_fill(m, 0.0)\n"
        "    x.masked_fill(k == 0, 0.0)\n"
    )
    assert _errors(body) == [(3, "dtype"), (4, "broadcast")]


def test_declared_attributes_are_checked_in_every_method():
    body = (
        "class Counter:\n"
        "    total: int = 0\n"
        "    def __init__(self):\n"
        "        self.name: str = 'c'\n"
        "    def step(self) -> None:\n"
        "        self.total = self.total + 1\n"
        "        self.name = 3\n"
        "        self.total = 'many'\n"
    )
    assert _errors(body) == [(7, "assign"), (8, "assign")]


def test_ignore_comments_silence_lines_and_files():
    body = (
        "def f(x: Float[Tensor, 'n']):\n"
        "    x @ torch.ones(3, 4)  # type: ignore[operator]\n"
        "    x @ torch.ones(3, 4)  # tensortypes: ignore[broadcast]\n"
        "    x @ torch.ones(3, 4)  # tensortypes: ignore[matmul]\n"
        "    # pyrefly: ignore [bad-argument-type]\n"
        "    x @ torch.ones(3, 4)\n"
    )
    assert _errors(body) == [(3, "matmul")]
    assert check_source("# mypy: ignore-errors\n" + HEADER + body) == []


def test_isinstance_and_type_tests_narrow_checked_classes():
    body = (
        "class Node:\n"
        "    def __init__(self):\n"
        "        self.name = 'n'\n"
        "class Leaf(Node):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.value = 1\n"
        "def value(node: Node) -> str:\n"
        "    if isinstance(node, Leaf):\n"
        "        return node.value\n"
        "    if type(node) is Leaf:\n"
        "        return node.value\n"
        "    return node.name\n"
    )
    assert _errors(body) == [(10, "return"), (12, "return")]


def test_decorated_and_overloaded_functions_are_not_bound():
    body = (
        "from typing import overload\n"
        "import functools\n"
        "def register(fn):\n"
        "    return fn\n"
        "@register\n"
        "def f(n: int) -> int:\n"
        "    return n\n"
        "@torch.no_grad()\n"
        "def g(n: int) -> int:\n"
        "    return n\n"
        "@overload\n"
        "def h(n: int) -> int: ...\n"
        "@overload\n"
        "def h(n: str) -> str: ...\n"
        "def h(n):\n"
        "    return n\n"
        "def use() -> str:\n"
        "    f('a')\n"
        "    g('a')\n"
        "    return h('a')\n"
    )
    assert _errors(body) == [(19, "arg-type")]


def test_lists_that_may_have_changed_forget_their_items():
    body = (
        "def fill(xs: list) -> None:\n"
        "    pass\n"
        "def f() -> int:\n"
        "    stack = []\n"
        "    stack.append(3)\n"
        "    top: int = stack[-1]\n"
        "    box = [None]\n"
        "    fill(box)\n"
        "    value: int = box[0]\n"
        "    return top + value\n"
    )
    assert _errors(body) == []


def test_dataclass_fields_bind_in_the_generated_init_order():
    body = (
        "from dataclasses import dataclass, field\n"
        "@dataclass\n"
        "class Base:\n"
        "    name: str\n"
        "@dataclass\n"
        "class Change(Base):\n"
        "    name: str = field(init=False)\n"
        "    key: str\n"
        "    value: bool\n"
        "ok = Change('lr', True)\n"
        "bad = Change(True, 'lr')\n"
    )
    assert [code for _, code in _errors(body)] == ["arg-type"]


def test_code_expected_to_raise_is_not_checked():
    body = (
        "import pytest\n"
        "def test_mismatch():\n"
        "    with pytest.raises(RuntimeError):\n"
        "        torch.ones(2, 3) @ torch.ones(4, 5)\n"
        "    torch.ones(2, 3) @ torch.ones(4, 5)\n"
    )
    assert _errors(body) == [(5, "matmul")]


def _noted_lines(body: str) -> list:
    """``(line, code, [lines named by its notes])`` of each error (lines of ``body``)."""
    from tensortypes.check.notes import note_lines

    skip = HEADER.count("\n")
    return [
        (d.line - skip, d.code, [n - skip for note in d.notes for n in note_lines(note)])
        for d in _check(body)
        if d.severity == "error"
    ]


def test_a_note_names_the_line_that_made_a_wrong_shape():
    # The error is where the value is used; a note names the statement that made its
    # shape, through the operations that keep a shape (clamp, a product).
    found = _noted_lines(
        "def f(a: Float[Tensor, 'b n 3']) -> Float[Tensor, 'b n']:\n"
        "    s = torch.sum(a * a, dim=-2)\n"
        "    s = torch.clamp(s, -1.0, 1.0)\n"
        "    t = s * 2.0\n"
        "    return t\n"
    )
    assert found == [(5, "return", [4, 2, 1])]
    note = _check(
        "def f(a: Float[Tensor, 'b n 3']) -> Float[Tensor, 'b n']:\n"
        "    s = torch.sum(a * a, dim=-2)\n"
        "    t = s * 2.0\n"
        "    return t\n"
    )[0].notes[0]
    assert note == "t: float[b,3](torch), assigned at line 8, its shape from line 7"


def test_a_note_names_the_variable_an_expression_is_computed_from():
    found = _noted_lines(
        "def f(x: Float[Tensor, '... p d'], y: Float[Tensor, '... r d']) -> Float[Tensor, '... p r']:\n"
        "    diff = x.unsqueeze(-3) - y.unsqueeze(-2)\n"
        "    return diff.pow(2).sum(dim=-1).sqrt()\n"
    )
    assert found == [(3, "return", [2, 1])]


def test_a_shape_kept_from_an_input_keeps_its_line():
    # gather's result has its index's shape: the note names where the index was made
    found = _noted_lines(
        "def f(x: Float[Tensor, 'b a 3'], i: Int[Tensor, 'b n']) -> Float[Tensor, 'b n 3']:\n"
        "    index = i[..., None, :].expand(-1, 3, -1)\n"
        "    out = torch.gather(x, 1, index)\n"
        "    return out\n"
    )
    assert found == [(4, "return", [3, 2, 1])]


def test_index_arrays_are_operands_with_notes():
    found = _noted_lines(
        "def f(x: Float[Tensor, 'b a'], i: Int[Tensor, 'b n']):\n"
        "    rows = torch.arange(0, x.shape[0])[None, :]\n"
        "    return x[rows, i]\n"
    )
    assert found == [(3, "broadcast", [1, 2, 1, 1])]


def test_parameters_and_values_made_on_the_line_add_no_shape_note():
    found = _noted_lines(
        "def f(a: Float[Tensor, 'b n']) -> Float[Tensor, 'n b']:\n"
        "    return a\n"
        "def g(a: Float[Tensor, 'b n']) -> Float[Tensor, 'n']:\n"
        "    return a.sum(0, keepdim=True)\n"
    )
    assert found == [(2, "return", [1]), (4, "return", [3])]


def test_a_one_line_predicate_of_the_module_narrows_like_its_test():
    body = (
        "def exists(v):\n"
        "    return v is not None\n"
        "def both(a, b):\n"
        "    return exists(a) and exists(b)\n"
        "def noisy(v):\n"
        "    print(v)\n"
        "    return v is not None\n"
        "def f(x: Float[Tensor, 'n'], m: Float[Tensor, 'n'] | None = None,\n"
        "      c: float | None = None) -> Float[Tensor, 'n']:\n"
        "    if exists(m):\n"
        "        x = x * m\n"
        "    if both(m, c):\n"
        "        x = x * m * c\n"
        "    if noisy(m):\n"
        "        x = x * m\n"
        "    if not exists(m):\n"
        "        return x\n"
        "    return x + m\n"
    )
    # Only the call of a predicate with more than a return proves nothing.
    assert _errors(body) == [(15, "optional")]


def test_searchsorted_sort_and_narrow_give_shapes_and_dtypes():
    found = _revealed(
        "def f(grid: Float[Tensor, 'k'], q: Float[Tensor, 'b r'], x: Float[Tensor, 'b n 3']):\n"
        "    reveal_type(torch.searchsorted(grid, q))\n"
        "    reveal_type(torch.searchsorted(grid, q, out_int32=True))\n"
        "    reveal_type(torch.sort(q, dim=-1))\n"
        "    reveal_type(x.narrow(1, 0, 2))\n"
        "    reveal_type(torch.stack([q, q]))\n"
    )
    assert found == [
        "i64[b,r](torch)",
        "i32[b,r](torch)",
        "tuple[float[b,r](torch), i64[b,r](torch)]",
        "float[b,2,3](torch)",
        "float[2,b,r](torch)",
    ]


def test_nonzero_and_diff_give_shapes():
    found = _revealed(
        "def f(x: Float[Tensor, 'b n 3'], t: Float[Tensor, '... k']):\n"
        "    reveal_type(torch.nonzero(x > 0))\n"
        "    reveal_type((x > 0).nonzero(as_tuple=True))\n"
        "    reveal_type(torch.diff(x, dim=1))\n"
        "    reveal_type(t.diff(n=2))\n"
    )
    # a mask made in the call: the count it selects is named by the call's line
    assert found == [
        "i64[selected_7,3](torch)",
        "tuple[i64[selected_8](torch), i64[selected_8](torch), i64[selected_8](torch)]",
        "float[b,n-1,3](torch)",
        "float[...,k-2](torch)",
    ]


def test_a_module_that_never_reads_size_implies_no_axes_without_walking_its_functions():
    import ast

    from tensortypes.check.defs import implied_axes
    from tensortypes.check.modinfo import ModuleInfo

    plain = ast.parse("def f(x):\n    return x[:, 1:]\n")
    ModuleInfo(plain)
    assert plain.body[0]._tt_implied == {}  # recorded by the module's one pass
    sized = ast.parse("def f(x):\n    n = x.size(0)\n    return x[:, 1:] * n\n")
    ModuleInfo(sized)
    assert not hasattr(sized.body[0], "_tt_implied")
    assert implied_axes(sized.body[0], "x") == 2
