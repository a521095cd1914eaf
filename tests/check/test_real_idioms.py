"""Idioms of real projects the checker reads: newer syntax, annotation factories,
decorators chosen at import time, ``beartype.typing``."""

from __future__ import annotations

import ast
import sys

import pytest

from tensortypes.check import check_paths, check_source
from tensortypes.check.cache import ResultCache
from tensortypes.check.sources import older_syntax, parse_module

NEWER = """\
import torch
from jaxtyping import Float
from torch import Tensor

type Pair[T] = tuple[T, T]


class Box[T]:
    def __init__(self, item: T):
        self.item = item


def first[T: Tensor](x: Float[T, "n 3"], y: Float[Tensor, "m 3"]) -> Float[Tensor, "n 3"]:
    label = f"{'\\n'.join(['a', 'b'])}"
    return x + y
"""


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="this Python parses 3.12 syntax itself")
def test_python_312_syntax_is_read_with_its_newer_parts_written_out():
    with pytest.raises(SyntaxError):
        ast.parse(NEWER)
    tree, newer = parse_module(NEWER)
    assert newer
    older = older_syntax(NEWER)
    assert older is not None
    # every line keeps its number, and the function keeps its columns
    assert len(older.splitlines()) == len(NEWER.splitlines())
    assert older.splitlines()[12].index("(x:") == NEWER.splitlines()[12].index("(x:")
    found = check_source(NEWER, "newer.py", strict=True)
    errors = [(d.line, d.code) for d in found if d.severity == "error"]
    assert errors == [(15, "broadcast")]  # n against m, as in any module
    notes = [d.message for d in found if d.code == "unchecked"]
    assert any("syntax of Python 3.12" in m for m in notes)


def test_syntax_errors_are_still_errors():
    for text in ("def f(:\n    pass\n", "x = f'{'\n", "class A[:\n    pass\n"):
        found = check_source(text, "broken.py")
        assert [d.code for d in found if d.severity == "error"] == ["syntax"], text


def test_older_syntax_leaves_plain_code_alone():
    assert older_syntax("x = [1, 2]\ndef f(a): return a[0]\n") is None
    assert older_syntax("s = '''\n") is None  # not even tokenizable


TYPING = """\
from beartype import beartype
from jaxtyping import Float, Int, jaxtyped
from torch import Tensor

class TorchTyping:
    def __init__(self, abstract_dtype):
        self.abstract_dtype = abstract_dtype

    def __getitem__(self, shapes: str):
        return self.abstract_dtype[Tensor, shapes]

Float = TorchTyping(Float)
Int = TorchTyping(Int)
Points = Float["n 3"]

def identity(t):
    return t

should_typecheck = False
typecheck = jaxtyped(typechecker=beartype) if should_typecheck else identity
"""

MODEL = """\
import torch
from beartype.typing import List, Optional
from pkg.tensor_typing import Float, Int, Points, typecheck

@typecheck
def centre(x: Float["b n 3"], mask: Float["b n"]) -> Float["b 3"]:
    return (x * mask[..., None]).sum(dim=1) / mask.sum(dim=1, keepdim=True)

@typecheck
def shift(p: Points, names: List[str]) -> Points:
    return p

def use(x: Float["b n 3"], m: Float["b n"], k: Int["b"]) -> None:
    c = centre(x, m)
    reveal_type(c)
    reveal_type(shift(x[0], ["a"]))
    bad = x - c  # (b, n, 3) against (b, 3)
"""


def _tree(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "tensor_typing.py").write_text(TYPING)
    (pkg / "model.py").write_text(MODEL)
    return pkg


def test_an_annotation_factory_of_another_module_gives_array_types(tmp_path):
    """``Float = TorchTyping(Float)``: ``Float["b n"]`` is ``Float[Tensor, "b n"]``, and
    ``@typecheck`` chosen by a flag keeps the signature."""
    pkg = _tree(tmp_path)
    found = check_paths([str(pkg)], cache=False, jobs=1)
    model = [d for d in found if d.path.endswith("model.py")]
    revealed = [d.message for d in model if d.code == "reveal"]
    assert revealed == [
        "revealed: c is float[b,3](torch)",
        "revealed: shift(x[0], ['a']) is float[n,3](torch)",
    ], revealed
    errors = [(d.line, d.code) for d in model if d.severity == "error"]
    assert errors == [(17, "broadcast")]


def test_the_factory_is_part_of_the_interface(tmp_path):
    """Changing what the factory forwards to re-checks its importers from the cache."""
    pkg = _tree(tmp_path)
    cache = ResultCache(tmp_path / "cache")
    first = check_paths([str(pkg)], cache=cache, jobs=1)
    assert any(d.code == "broadcast" for d in first)
    typing = pkg / "tensor_typing.py"
    typing.write_text(typing.read_text().replace("self.abstract_dtype[Tensor, shapes]", "shapes"))
    second = check_paths([str(pkg)], cache=cache, jobs=1)
    assert not any(d.code == "broadcast" for d in second)


NOTES = """\
import torch
from jaxtyping import Bool, Float
from torch import Tensor


def center(coords: Float[Tensor, "b n 3"], mask: Bool[Tensor, "b n"] | None) -> Tensor:
    if mask is not None:
        mean = (coords * mask[..., None]).sum(1, keepdim=True)
    else:
        mean = coords.mean(dim=1)
    return coords - mean


def thresholds(t: Float[Tensor, " k"], d: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    eps = t[:, None, None] - d
    eps = eps.mean(dim=-1)
    return eps


def pick(x: Float[Tensor, "b n"], w: Float[Tensor, "n"]) -> Tensor:
    y = x.T
    return torch.einsum("bn,n->b", y, w)
"""


def test_notes_name_each_branch_and_the_value_a_shape_came_from():
    found = check_source(NOTES, "notes.py")
    errors = {d.line: d for d in found if d.severity == "error"}
    assert sorted(errors) == [11, 17, 22]
    # each branch followed to the end: the one whose shape fails, at its line
    at = {(line, text) for line, _col, text in errors[11].related}
    assert at == {(10, "mean gets its shape (b, 3) here (used at line 11)")}
    # the variable's previous value, where a statement made the new one from it
    at = {line for line, _col, _text in errors[17].related}
    assert {15, 16} <= at


BOUND = """\
from jaxtyping import Float
from torch import Tensor


def f(a: Float[Tensor, "n k"], b: Float[Tensor, " n"]) -> Tensor:
    return a * b[:, None]


def g(x: Float[Tensor, "p q"], y: Float[Tensor, " p"]) -> Tensor:
    z = x.T
    return f(z, y)
"""


BRANCHES = """\
import torch
from jaxtyping import Float
from torch import Tensor


def center(coords: Float[Tensor, "b n 3"], flag: bool) -> Tensor:
    for _ in range(2):
        if flag:
            mean = coords.mean(dim=1, keepdim=True)
        else:
            mean = coords.mean(dim=1)
        coords = coords - mean
        if flag:
            coords = coords * 2
    return coords
"""


def test_a_join_in_a_loop_names_the_shape_of_each_branch():
    # a later test of the flag keeps the branches joined (each is not followed on its
    # own): the note names the line of each
    found = [d for d in check_source(BRANCHES, "branches.py") if d.severity == "error"]
    assert [d.line for d in found] == [12]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (9, "mean is (b, 1, 3) here (used at line 12)") in at
    assert (11, "mean is (b, 3) here (used at line 12)") in at


def test_each_branch_in_a_loop_is_followed_and_the_failing_one_named():
    # without the later test, each branch is followed to the end of the loop's body:
    # the error is the else branch's, and its note names that branch's line
    text = BRANCHES.replace("        if flag:\n            coords = coords * 2\n", "")
    found = [d for d in check_source(text, "branches.py") if d.severity == "error"]
    assert [d.line for d in found] == [12]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (11, "mean gets its shape (b, 3) here (used at line 12)") in at


UPDATED = """\
import torch
from jaxtyping import Float
from torch import Tensor


def weighted(x: Float[Tensor, " b"], average: bool) -> Float[Tensor, " b"]:
    w = torch.zeros(x.shape[0], 1)
    if average:
        w = (w + x) / 2
    return w
"""


def test_a_join_names_the_line_that_made_a_branch_shape_from_the_previous_value():
    # the branch's w is made from the w before it: both lines are named, the first
    # one being where the wrong shape came from
    found = [d for d in check_source(UPDATED, "updated.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(10, "return")]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (7, "w is (b, 1) here (used at line 10)") in at
    assert (9, "w is (b, b) here (used at line 10)") in at


PACKED = """\
from jaxtyping import Float
from torch import Tensor


def normalise(images: Float[Tensor, "B *N C H W"], mean: Float[Tensor, "1 1 3 1 1"]):
    if images.ndim == 4:
        images = images.unsqueeze(0)
    return images - mean
"""


def test_a_join_with_a_parameter_names_the_line_of_the_branch_that_made_its_shape():
    # one branch keeps the parameter's shape (made nowhere), the other made its own:
    # that line is named
    found = [d for d in check_source(PACKED, "packed.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(8, "broadcast")]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (7, "images is (1, B, C, H, W) here (used at line 8)") in at


CHUNKED = """\
import torch
from jaxtyping import Float
from torch import Tensor


def unet(x: Float[Tensor, "N 4 H W"]) -> Float[Tensor, "N C H W"]: ...


def guide(latents: Float[Tensor, "B 4 H W"]) -> Float[Tensor, "B 4 H W"]:
    noise_pred = unet(torch.cat([latents] * 2, dim=0))
    text, uncond = noise_pred.chunk(2, dim=1)
    noise_pred = text + 7.5 * (text - uncond)
    return latents - noise_pred
"""


def test_pieces_of_a_chunk_get_their_shape_at_the_chunk_also_of_an_unknown_axis():
    # unet's output has unknown channels: chunk along them leaves the printed shape
    # as it was, yet the pieces are made at the chunk (the wrong axis was cut there)
    found = [d for d in check_source(CHUNKED, "chunked.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(13, "broadcast")]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (11, "noise_pred gets its shape (2*B, ?, H, W) here (used at line 13)") in at
    assert 12 in {line for line, _text in at}


NESTED = """\
import torch
from jaxtyping import Bool, Float, Int
from torch import Tensor


def add(
    m: Float[Tensor, "n n"], mask: Bool[Tensor, "n n"]
) -> tuple[Float[Tensor, "n n"], Bool[Tensor, "n n"]]:
    return m, mask


def generate(ids: Int[Tensor, "1 n"], groups: list):
    n = ids.shape[1]
    m = torch.zeros(n, n)
    mask = torch.zeros(n, dtype=torch.bool)
    for group in groups:
        for i in range(3):
            m, mask = add(m=m, mask=mask)
    return m
"""


def test_a_value_no_pass_of_nested_loops_changed_keeps_the_line_that_made_it():
    # both passes of each loop hold mask as line 15 made it: the joins keep that line
    found = [d for d in check_source(NESTED, "nested.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(18, "arg-type")]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (15, "mask gets its shape (n,) here (used at line 18)") in at


ONE_ROW = """\
import torch
from jaxtyping import Float, Int
from torch import Tensor


def restrain(m: Float[Tensor, "n n"], ids: Int[Tensor, "n"]) -> Float[Tensor, "n n"]:
    return m


def generate(ids: Int[Tensor, "1 n"], fill: float) -> Float[Tensor, "n n"]:
    n, device = ids.shape[0], ids.device
    m = torch.full((n, n), fill_value=fill, device=device)
    return restrain(m, ids[0])
"""


def test_a_constant_size_given_by_an_int_variable_names_where_the_variable_was_set():
    # n read from the batch axis is 1: the note names that line, not only the constructor
    found = [d for d in check_source(ONE_ROW, "one_row.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(13, "arg-type")]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (12, "m gets its shape (1, 1) here (used at line 13)") in at
    assert (11, "n is 1 here, a size of m (1, 1) (used at line 13)") in at
    assert not any("fill" in text for _line, text in at)  # a fill value is not a size


SURFACE = """\
import torch
from jaxtyping import Float
from torch import Tensor, nn
from math import pi


class Surface(nn.Module):
    def __init__(self, n: int = 200):
        super().__init__()
        self.register_buffer("dots", torch.zeros(2 * n + 1, 3))
        self.weight = 4.0 * pi / (2 * n + 1)

    def score(self, r: Float[Tensor, "m"]) -> Float[Tensor, "m"]:
        near = r[:, None] * self.dots[None, :, 0]
        return near.sum(0) * self.weight * r

    def right(self, r: Float[Tensor, "m"]) -> Float[Tensor, "m"]:
        near = r[:, None] * self.dots[None, :, 0]
        return near.sum(1) * self.weight * r

    def apart(self, r: Float[Tensor, "m"]) -> Float[Tensor, "m"]:
        return self.dots[:, 0] * r
"""


def test_sizes_a_method_laid_out_in_one_array_are_compared_later_in_it():
    # m (the method's) and 2*n+1 (the instance's) are never compared by themselves, but
    # near holds both as its axes: summed over the wrong one, the two then meet. The
    # weight is a float (``from math import pi``), so the product keeps its shape.
    found = [d for d in check_source(SURFACE, "surface.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(15, "broadcast")]
    assert "2*n+1 and m" in found[0].message


ITEMS = """\
from dataclasses import dataclass

import torch
from jaxtyping import Float, Int
from torch import Tensor


def node_values(cis: dict[str, Float[Tensor, "1 seq n"]], pos: int, c: int) -> dict:
    found = {}
    for name, ci in cis.items():
        found[f"{name}:{pos}:{c}"] = float(ci[pos, c].item())
        found[f"{name}:{pos}"] = float(ci[0, pos, c].item())
    return found


def total(x: Float[Tensor, "b n"]) -> float:
    return x.sum().item() + x[:1, :1].item()


@dataclass
class Atoms:
    element: Int[Tensor, "n_atoms"]


def first(atoms: Atoms) -> int:
    return atoms.element.item()
"""


def test_item_of_an_array_whose_count_the_signature_leaves_free_is_an_error():
    # ci[pos, c] drops the batch index: a row of n values; a size an instance's class
    # names (atoms.element) may be 1 as used, and is not compared
    found = [d for d in check_source(ITEMS, "items.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(11, "reshape")]
    assert found[0].message == (".item: needs an array of one element, ci[pos, c] (n,) has n")


FOLDED = """\
from einops import rearrange
from torch import nn


def zero_module(module):
    for p in module.parameters():
        p.detach().zero_()
    return module


class Spatial(nn.Module):
    def __init__(self, channels: int, inner: int):
        super().__init__()
        self.proj_in = nn.Conv2d(channels, inner, kernel_size=1)
        self.proj_out = zero_module(nn.Conv2d(inner, channels, kernel_size=1))

    def forward(self, x):
        b, c, h, w = x.shape
        x_in = x
        x = rearrange(self.proj_in(x), "b c h w -> b (h w) c")
        x = rearrange(x, "b (h w) c -> b c w h", h=h, w=w)
        return self.proj_out(x) + x_in

    def right(self, x):
        b, c, h, w = x.shape
        x_in = x
        x = rearrange(self.proj_in(x), "b c h w -> b (h w) c")
        x = rearrange(x, "b (h w) c -> b c h w", h=h, w=w)
        return self.proj_out(x) + x_in
"""


def test_a_shape_unpacked_from_an_unannotated_input_and_a_helper_giving_back_its_argument():
    # ``b, c, h, w = x.shape`` makes x an array of four axes (of some library); the
    # helper returns the layer it was given, so proj_out is known: the tokens folded
    # back as (w, h) meet x_in's (h, w)
    found = [d for d in check_source(FOLDED, "folded.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(22, "broadcast")]
    assert "h and w are different sizes" in found[0].message


def test_returned_parameter():
    from tensortypes.check.defs import returned_parameter

    def first(text):
        return returned_parameter(ast.parse(text).body[0])

    assert first("def f(m):\n    for p in m.ps():\n        p.zero_()\n    return m") == "m"
    assert first("def f(m, k):\n    if k:\n        return k\n    return m") is None
    assert first("def f(m):\n    m = g(m)\n    return m") is None
    assert first("def f(m):\n    yield m\n    return m") is None
    assert first("def f(m):\n    def g(x):\n        return x\n    return m") == "m"
    assert first("def f(m):\n    pass") is None


IN_A_LOOP = """\
from jaxtyping import Float
from torch import Tensor


def edges(xs: list[Float[Tensor, "s C"]], sources: list, n: int) -> list:
    out = []
    for source, x in zip(sources, xs):
        weighted: Float[Tensor, "s C"] = x * 2
        if source == "wte":
            weighted = weighted.sum(dim=1)
        for i in range(n):
            out.append(weighted[i, 1].item())
    return out
"""


def test_a_loop_body_is_followed_on_each_branch_of_an_if_that_changes_a_layout():
    # the summed branch leaves a (s,) array, which the rest of the loop's body
    # indexes twice; the join of the two would hide it (also for an annotated local)
    found = [d for d in check_source(IN_A_LOOP, "in_a_loop.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(12, "index")]
    assert 10 in {line for line, _col, _text in found[0].related}


LOOPED = """\
from jaxtyping import Bool, Float
from torch import Tensor


def f(ci: Float[Tensor, "1 seq C"], x: Float[Tensor, "n n"]) -> list:
    out = []
    n_components = ci.shape[-1]
    for c in range(n_components):
        out.append(ci[0, c])
        out.append(ci[0, :, c])
    for s in range(ci.shape[1]):
        out.append(ci[s, 0])
        out.append(ci[0, s])
    for i in range(x.shape[0]):
        out.append(x[i, i])
    for j in range(ci.shape[1] - 1):
        out.append(ci[0, j + 1])
        out.append(ci[0, j])
    return out


def g(alive: Bool[Tensor, "s C"], n_seq: int) -> list:
    # n_seq is an int the annotations do not tie to s: the code may know they agree
    out = []
    for i in range(n_seq):
        out.append(alive[i, 0])
    return out


def h(x: Float[Tensor, "b n"]) -> list:
    out = []
    for i in range(min(x.shape[0], x.shape[1])):
        out.append(x[i, i])
        i = i + 1
    for j in range(x.shape[1]):
        out.append(x[0, ..., j])
        out.append(x[None, j])
    return out
"""


def test_an_index_that_runs_over_one_size_on_an_axis_of_another_is_an_error():
    # c runs over the components on the positions' axis; s over the positions on the
    # batch axis of size 1. Not: the same size, n - 1 with j + 1, min(b, n), an int
    # parameter the annotations do not name, an index rebound in the body, an axis
    # after ``...``, or one shifted by a new axis counted right
    found = [d for d in check_source(LOOPED, "looped.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(9, "index"), (12, "index"), (37, "index")]
    assert found[0].message == (
        "index c runs over range(C) (line 8), but axis 1 of ci (1, seq, C) has size seq: "
        "out of range when C > seq"
    )
    assert "axis 0 of x (b, n) has size b" in found[2].message  # x[None, j]
    # the bound's variable is named where it was set (n_components at line 7)
    assert (7, 5, "n_components is C here, the bound of index c (used at line 9)") in found[
        0
    ].related


DECLARED_LOOP = """\
from dataclasses import dataclass

import torch
from jaxtyping import Bool, Float, Int
from torch import Tensor


@dataclass
class Alive:
    masks: dict[str, Bool[Tensor, "1 seq C"]]


def per_position(info: Alive) -> list:
    out = []
    for name, mask in info.masks.items():
        seq_len = mask.shape[-1]
        for pos in range(seq_len):
            out.append(mask[0, pos, :])
        for pos in range(mask.shape[1]):
            out.append(mask[0, pos, :])
    return out


def keyed(counts: Float[Tensor, "n vocab"], totals: Float[Tensor, " vocab"], keys: list[str]):
    index = {k: i for i, k in enumerate(keys)}
    return ratio(counts[:, where(index, keys[0])], totals), ratio(counts[0], totals)


def where(index: dict[str, int], key: str) -> int:
    return index[key]


def lookup(index: dict[str, int], counts: Float[Tensor, "n vocab"]):
    return counts[:, index["a"]], counts[index["a"]]


def ratio(a: Float[Tensor, " vocab"], b: Float[Tensor, " vocab"]) -> Float[Tensor, " vocab"]:
    return a / b
"""


def test_sizes_a_parameter_class_declares_bound_a_loop_index_and_dict_values_are_typed():
    # an instance's declared sizes come with each call, as an array parameter's do:
    # the positions' loop runs over C (set at line 16); an int from a dict[str, int]
    # drops the axis it indexes (a (n,) column is no (vocab,) row)
    found = check_source(DECLARED_LOOP, "declared_loop.py")
    errors = [d for d in found if d.severity == "error"]
    assert [(d.line, d.code) for d in errors] == [(18, "index"), (26, "arg-type")]
    assert any(line == 16 for line, _col, _text in errors[0].related)
    shown = check_source(
        DECLARED_LOOP.replace(
            'return counts[:, index["a"]], counts[index["a"]]',
            'reveal_type(counts[:, index["a"]])\n    return counts[index["a"]]',
        ),
        "declared_loop.py",
    )
    assert any("is float[n](torch)" in d.message for d in shown if d.code == "reveal")


LOOP_NAMES = """\
from jaxtyping import Float
from torch import Tensor


def pick(x, i):
    return x[i, 0]


def f(ci: Float[Tensor, "1 seq C"]) -> list:
    g = lambda i: ci[0, i]
    out = []
    for i in range(ci.shape[2]):
        out.append(pick(ci[0], 0))
        out.append(g(0))
    return out
"""


def test_a_callee_or_lambda_parameter_named_like_a_loop_variable_is_its_own():
    # pick's and g's i are their parameters (given 0), not the caller's loop variable
    assert [d for d in check_source(LOOP_NAMES, "loop_names.py") if d.severity == "error"] == []


KEPT = """\
import einx
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def contact(
    logits: Float[Tensor, "b dist n"], breaks: Float[Tensor, "dist_break"]
) -> Float[Tensor, "b n"]:
    probs = F.softmax(logits, dim=1)
    breaks = breaks.float()
    near = breaks < 8.0
    return einx.where("dist, b dist n, -> b dist n", near, probs, 0.0).sum(dim=1)
"""


def test_a_shape_kept_from_a_parameter_names_where_the_array_it_was_made_from_was_assigned():
    # near keeps the shape of breaks, a parameter's; the line that re-assigned breaks
    # (where its pad to the bin count was left out) is named too
    found = [d for d in check_source(KEPT, "kept.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(13, "broadcast")]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (
        11,
        "breaks is (dist_break,) here, and near (dist_break,) is made from it (used at line 13)",
    ) in at


ORDERED = """\
import torch
from jaxtyping import Int
from torch import Tensor


def groups(n: int, k: int, nonempty: bool = False) -> Int[Tensor, " n"]:
    if nonempty and n < k:
        raise ValueError("n must be >= k")
    idx: Int[Tensor, " n"]
    if nonempty:
        base: Int[Tensor, " k"] = torch.arange(k)
        if n > k:
            idx = torch.cat((base, torch.randint(0, k, (n - k,))))
        else:
            idx = base
    else:
        idx = torch.randint(0, k, (n,))
    return idx


def wrong(n: int, k: int, nonempty: bool = False) -> Int[Tensor, " n"]:
    if n < k:
        raise ValueError("n must be >= k")
    if nonempty:
        return torch.arange(k)
    return torch.arange(n)
"""


def test_sizes_ordered_both_ways_on_a_path_are_one():
    # the failed test leaves n >= k where the flag holds; the else of n > k leaves
    # n <= k: base of k is an idx of n there. Without the flag's branch, only n >= k.
    found = [d for d in check_source(ORDERED, "ordered.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(25, "return")]


def test_a_binding_error_also_shows_where_the_argument_that_bound_the_size_was_made():
    found = [d for d in check_source(BOUND, "bound.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(11, "arg-type")]
    assert 10 in {line for line, _col, _text in found[0].related}  # z = x.T


HOPS = """\
import torch
from jaxtyping import Float
from torch import Tensor


def plddt(logits: Float[Tensor, "b m p"]) -> Tensor:
    num_bins = logits.shape[1]
    bin_width = 1.0 / num_bins
    centres = torch.arange(0.5 * bin_width, 1.0, bin_width)
    return logits @ centres
"""


def test_notes_follow_the_numbers_that_set_a_size():
    found = [d for d in check_source(HOPS, "hops.py") if d.severity == "error"]
    assert [d.line for d in found] == [10]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (9, "centres gets its shape (m,) here (used at line 10)") in at
    assert (8, "bin_width is a number over m here, a size of centres (m,) (used at line 10)") in at
    assert (7, "num_bins is m here, a size of centres (m,) (used at line 10)") in at


NUMBERS = """\
from functools import partial

import torch
import torch.nn.functional as F
from einops import rearrange
from jaxtyping import Float
from torch import Tensor


def pairs(x: Float[Tensor, "b n 3"], y: Float[Tensor, "b n 3"]) -> Tensor:
    seq = x.shape[-1]
    to_pairs = partial(rearrange, pattern="b (i j) -> b i j", i=seq, j=seq)
    d = F.pairwise_distance(x, y)
    return to_pairs(d)
"""


def test_notes_follow_the_int_variables_a_failed_operation_was_given():
    # ``seq`` is 3 (the xyz axis), so ``(i j)`` is 9, which the n distances of each
    # row need not be: the note points at the line that read the wrong axis, also
    # through the keywords of a ``partial``.
    found = [d for d in check_source(NUMBERS, "numbers.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(14, "reshape")]
    assert "axis of size n in d (b, n) cannot be split into (i j) = 9" in found[0].message
    at = {(line, text) for line, _col, text in found[0].related}
    assert (11, "seq is 3 here (used at line 14)") in at


TERMS = """\
import torch
from einops import pack
from jaxtyping import Int
from torch import Tensor, nn


class RelativePosition(nn.Module):
    def __init__(self, r_max: int, s_max: int, dim_out: int):
        super().__init__()
        self.r_max, self.s_max = r_max, s_max
        self.out = nn.Linear(2 * r_max + 2 * s_max + 4, dim_out)

    def forward(self, d_res: Int[Tensor, "b n n"], d_chain: Int[Tensor, "b n n"]):
        r_bins = torch.arange(2 * self.r_max + 2)
        s_bins = torch.arange(2 * self.s_max + 1)
        rel_pos = d_res[..., None] == r_bins
        rel_chain = d_chain[..., None] == s_bins
        feats, _ = pack((rel_pos, rel_chain), "b i j *")
        return self.out(feats.float())
"""


def test_notes_follow_the_arrays_that_made_a_term_of_a_size():
    # The packed features have 2*r_max+2 + 2*s_max+1 channels, one short: the notes
    # follow the piece of each term back to the bins that made it.
    found = [d for d in check_source(TERMS, "terms.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(19, "layer")]
    at = {line for line, _col, _text in found[0].related}
    assert {18, 16, 17, 14, 15} <= at


CHAINED = """\
import torch
from jaxtyping import Float
from torch import Tensor


class Grid:
    grid: Float[Tensor, "N 3"]

    def build(self, n: int) -> None:
        r = torch.linspace(0, 1, n)
        x, y, z = torch.meshgrid(r, r, r, indexing="ij")
        verts = torch.stack(
            [x.reshape(-1), y.reshape(-1), z.reshape(-1)], dim=-1
        ).reshape(3, -1)
        self.grid = verts
"""


def test_an_assignment_that_does_not_fit_points_at_the_call_that_made_the_value():
    # The vertices are reshaped to (3, n**3) by the call that ends the chain, on the
    # statement's last line: the note is there, not at the statement's first line.
    found = [d for d in check_source(CHAINED, "chained.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(15, "assign")]
    at = {(line, text) for line, _col, text in found[0].related}
    assert (14, "verts gets its shape (3, n**3) here (used at line 15)") in at


PATHS = """\
import torch
from jaxtyping import Float
from torch import Tensor


def embeddings(e: Float[Tensor, "n f"], b: int, per_view: bool) -> Tensor:
    if per_view:
        t = e.expand(b, -1, -1)
    else:
        t = e.repeat(b, 1)
    u = e.expand(b, -1, -1)
    return torch.cat([t, u], dim=0)


def heads(q: Float[Tensor, "b h t d"], kv: Float[Tensor, "b g t d"], gqa: bool) -> Tensor:
    if gqa:
        k = kv
    else:
        k = q
    if gqa:
        k = k.repeat_interleave(q.shape[1] // kv.shape[1], dim=1)
    return q @ k.transpose(-1, -2)
"""


def test_each_branch_is_followed_unless_a_later_test_reads_its_flag():
    found = [d for d in check_source(PATHS, "paths.py") if d.severity == "error"]
    # the branch that repeats instead of expanding fails the cat after it
    assert [(d.line, d.code) for d in found] == [(12, "concat")]
    assert 10 in {line for line, _col, _text in found[0].related}
    # gqa is tested again: the first if's branches meet (no path pairs k[:, :1]
    # with the branch that would not expand it)
    assert not any(d.line == 22 for d in found)


GROUPED = """\
from einops import rearrange
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "a b l"], t: Float[Tensor, "*dims l"]):
    reveal_type(rearrange(x, "... l -> (...) l"))
    reveal_type(rearrange(x, "a ... -> a (...)"))
    reveal_type(rearrange(t, "... l -> (...) l"))
"""


def test_a_grouped_ellipsis_merges_its_axes_into_one():
    # ``(...)`` on the right of an einops pattern is one axis, the product of the
    # ellipsis's sizes (a size of its own, ``prod(*dims)``, when their number is
    # unknown), not the ellipsis itself.
    found = [d.message for d in check_source(GROUPED, "grouped.py") if d.code == "reveal"]
    assert [m.rpartition(" is ")[2] for m in found] == [
        "float[a*b,l](torch)",
        "float[a,b*l](torch)",
        "float[prod(*dims),l](torch)",
    ]


UNPACKED = """\
import torch
from jaxtyping import Float
from torch import Tensor


def alive_pairs(ci: Float[Tensor, "b seq c"], threshold: float) -> Tensor:
    alive = ci > threshold
    seq, c = torch.where(alive)
    return seq + c
"""


def test_notes_of_an_unpacked_call_name_where_its_arrays_got_their_rank():
    # ``torch.where`` gives one index array per axis: the note points at the line that
    # made the mask, where a dropped ``[0]`` left it of rank 3.
    found = [d for d in check_source(UNPACKED, "unpacked.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(8, "rank")]
    at = {line for line, _col, _text in found[0].related}
    assert 7 in at


ASSERTED = """\
import torch
from jaxtyping import Float, Int
from torch import Tensor


def lagged(x: Float[Tensor, " n"], counter: list) -> Tensor:
    y = x[1:] - x[:-1]
    assert y.shape == x.shape
    calls = 0
    assert calls == 1
    assert x.shape[0] == x.shape[0]
    return y
"""


def test_an_assert_on_shapes_that_always_fails_is_reported_and_nothing_else():
    # sizes that differ for every size (n-1 and n) are an error; a counter whose value
    # the checker sees only at its start, and a comparison that holds, are not
    found = [d for d in check_source(ASSERTED, "asserted.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(8, "assert")]
    assert "y.shape is (n-1,), x.shape is (n,)" in found[0].message
    assert 7 in {line for line, _col, _text in found[0].related}


RAISING = """\
from dataclasses import dataclass

import numpy as np
import pytest
from jaxtyping import Float


@dataclass
class Pair:
    a: Float[np.ndarray, "n"]
    b: Float[np.ndarray, "n"]


def test_restored():
    pair = Pair(np.zeros(2), np.zeros(2))
    with pytest.raises(TypeError):
        pair.b = np.zeros(3)
    assert pair.b.shape == (2,)
"""


def test_an_attribute_set_where_an_error_is_expected_is_read_afresh_after_it():
    # the assignment in ``pytest.raises`` fails, so ``pair.b`` keeps its value: the
    # assert after it may hold and is not reported
    found = [d for d in check_source(RAISING, "test_raising.py") if d.severity == "error"]
    assert found == []


RANKED = """\
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "n 3"], y: Float[Tensor, "... 3"]):
    assert x.ndim == 3
    assert x.dim() == 2
    assert len(x.shape) == 1
    assert y.ndim == 2
"""


def test_an_assert_on_a_rank_that_always_fails_is_reported():
    # ``x.ndim``, ``x.dim()`` and ``len(x.shape)`` of a known rank; the rank of a
    # ``...`` array may be anything, so its assert narrows and is not reported
    found = [d for d in check_source(RANKED, "ranked.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(6, "assert"), (8, "assert")]
    assert "x.ndim is 2" in found[0].message


LEADING = """
from jaxtyping import Float
from torch import Tensor


def f(t: Float[Tensor, "B ... 3"], p: Float[Tensor, "*B 1"]):
    reveal_type(t * p)
"""


def test_batches_that_cannot_be_lined_up_keep_the_broadcast_last_axes():
    found = [d.message for d in check_source(LEADING, "leading.py") if d.code == "reveal"]
    assert found == ["revealed: t * p is float[...,3](torch)"]
    notes = [d.message for d in check_source(LEADING, "leading.py", strict=True)]
    assert any("cannot be lined up" in m for m in notes)


PARTLY_KNOWN = """
import einx
import torch
from einops import einsum, rearrange
from jaxtyping import Bool, Float
from torch import Tensor


def f(m, x: Float[Tensor, "b n 3"], c: Float[Tensor, "b 1 3"], ids: Float[Tensor, "b n"],
      cond: Bool[Tensor, "b n"], t: Float[Tensor, "... Cc"]):
    reveal_type(einx.where("b n, b n d, -> b n d", m, x, 0.0))
    reveal_type(einsum(m, x, "b i j, b n j -> b n i"))
    reveal_type(einsum(m, c, "b i j, b ... j -> b ... i"))
    reveal_type(torch.where(cond, m, ids))
    reveal_type(rearrange(t, "B N Cc -> (B N) Cc"))
"""


def test_an_operand_nothing_is_known_about_lets_the_others_give_the_result():
    found = [d.message for d in check_source(PARTLY_KNOWN, "partly.py") if d.code == "reveal"]
    assert [m.split(" is ", 1)[1] for m in found] == [
        "float[b,n,3](torch)",
        "?[b,n,?](torch)",
        "?[b,1,?](torch)",
        "?[...,b,n](torch)",
        "float[?,Cc](torch)",
    ]


OPAQUE = """
import torch
from jaxtyping import Float
from torch import Tensor
import somelib


def f(x: Float[Tensor, "a b"], u, names: list[str]):
    reveal_type(x == somelib.PAD)
    reveal_type(x + u)
    reveal_type(somelib.rot * x)
    first, second = (x == u).chunk(2)
    reveal_type(first)
    reveal_type(torch.tensor([len(n) for n in names]))
    reveal_type(len(names))
"""


def test_a_comparison_with_an_unknown_value_is_a_mask_and_arithmetic_stays_unknown():
    # the value compared may be a number or an array: some leading axes, then the
    # array's own; arithmetic with an unknown value (an object may define ``*``) and
    # an axis of those leading axes stay unknown; a list parameter has a length
    found = [d.message for d in check_source(OPAQUE, "opaque.py") if d.code == "reveal"]
    assert [m.split(" is ", 1)[1] for m in found] == [
        "bool[...,a,b](torch)",
        "unknown",
        "unknown",
        "bool[...,?,b](torch)",
        "i64[len(names)](torch)",
        "int len(names)",
    ]


HALF_KNOWN = """
import torch
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "b p h r"], u, y: Float[Tensor, "... d"], batch_dims, C: int):
    reveal_type(torch.cat([x, u], dim=-1))
    reveal_type(torch.cat([y, u], dim=-1))
    reveal_type(batch_dims + (C, 2))
    reveal_type(torch.eye(4).expand(batch_dims + (C, -1, -1)))
"""


def test_a_join_with_an_unknown_part_and_sizes_after_unknown_ones():
    found = [d.message for d in check_source(HALF_KNOWN, "half.py") if d.code == "reveal"]
    assert [m.split(" is ", 1)[1] for m in found] == [
        "?[b,p,h,?](torch)",
        "?[...,?](torch)",
        "shape (..., C, 2)",
        "f32[...,C,4,4](torch)",
    ]


SEVERAL = """
import torch
from einops import rearrange
from jaxtyping import Float, Int
from torch import Tensor


def f(
    x: Float[Tensor, "b n"] | Float[Tensor, " n"],
    s: Float[Tensor, " b"] | float,
    k: Int[Tensor, "b n"] | Float[Tensor, "b n"],
):
    reveal_type(x.sum(-1))
    reveal_type(x[..., 0])
    reveal_type(rearrange(x, "b n -> n b"))
    if isinstance(s, float):
        s = torch.zeros(3, 4)
    reveal_type(s)
    rearrange(x, "a b c -> c b a")
    return k.sum(-3)
"""


def test_each_array_a_union_may_be_is_followed_and_fails_only_where_all_do():
    # a method, an index, a pattern: each member it fits, kept apart by rank (and by
    # dtypes that do not overlap); a pattern no member fits is not an error when
    # their ranks differ, an axis that no member of one rank has is
    found = check_source(SEVERAL, "several.py")
    reveals = [d.message.split(" is ", 1)[1] for d in found if d.code == "reveal"]
    assert reveals == [
        "float[b](torch) | float[](torch)",
        "float[b](torch) | float[](torch)",
        "float[n,b](torch)",
        "f32[3,4](torch)",  # each path of the branch, walked apart
        "float[b](torch)",
    ]
    errors = [(d.line, d.code) for d in found if d.severity == "error"]
    assert errors == [(20, "axis")]


def test_a_closure_returned_by_a_helper_unpacks_what_the_helper_packed():
    text = """
from typing import Any

from einops import pack, unpack
from jaxtyping import Float
from torch import Tensor


def default(v: Any, d: Any) -> Any:
    return v if v is not None else d


def pack_one(t: Tensor, pattern: str) -> tuple[Tensor, list[tuple[int, ...]]]:
    packed, ps = pack([t], pattern)

    def unpack_one(to_unpack, unpack_pattern=None):
        (unpacked,) = unpack(to_unpack, ps, default(unpack_pattern, pattern))
        return unpacked

    return packed, unpack_one


def f(x: Float[Tensor, "b i j d"]):
    packed, unpack_one = pack_one(x, "* n d")
    reveal_type(packed)
    reveal_type(unpack_one(packed * 2))
    reveal_type(unpack_one(packed.sum(-1), "* n"))
"""
    found = check_source(text, "closure.py")
    reveals = [d.message.split(" is ", 1)[1] for d in found if d.code == "reveal"]
    assert reveals == [
        "float[b*i,j,d](torch)",
        "float[b,i,j,d](torch)",
        "float[b,i,j](torch)",
    ]
    assert not [d for d in found if d.severity == "error"]


def test_an_instance_known_only_by_a_declared_base_may_be_the_subclass_asked_for():
    text = """
from typing import Optional


class Base:
    pass


class Block(Base):
    pass


class Adapter:
    def __init__(self):
        self.mapping: Optional[dict[str, Base]] = None


def blocks(mapping: dict[str, Base]) -> Block:
    return mapping["blocks"]


def built() -> Block:
    return Base()


def items(a: Adapter):
    return a.mapping.items()
"""
    found = [(d.line, d.code) for d in check_source(text, "bases.py") if d.severity == "error"]
    # a dict's value may be any subclass; one built here is what it is; an Optional
    # dict of instances stays unknown (what makes it None is out of sight)
    assert found == [(23, "return")]


def test_a_sequential_that_fails_names_the_layers_before_the_failing_one():
    text = """
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor, nn


class Gate(nn.Module):
    def forward(self, x: Float[Tensor, "... d"]) -> Float[Tensor, "... (d//2)"]:
        x, gates = x.chunk(2, dim=-1)
        return F.silu(gates) * x


class FeedForward(nn.Module):
    def __init__(self, *, dim, factor=2):
        super().__init__()
        inner = dim * factor
        self.ff = nn.Sequential(
            nn.Linear(dim, inner),
            Gate(),
            nn.Linear(inner, dim),
        )

    def forward(self, x: Float[Tensor, "... d"]) -> Float[Tensor, "... d"]:
        return self.ff(x)
"""
    # ``dim`` has no annotation, but the body gives it to nn.Linear: a size
    found = check_source(text, "ff.py")
    errors = [d for d in found if d.severity == "error"]
    assert [(d.line, d.code) for d in errors] == [(24, "layer")]
    assert any(
        line == 18 and "nn.Linear(dim, inner) gives" in m for line, _c, m in errors[0].related
    )


def test_a_tuple_value_indexes_as_its_items():
    text = """
import torch
from jaxtyping import Bool, Float
from torch import Tensor


def f(x: Float[Tensor, "a b"], m: Bool[Tensor, "a b"]):
    reveal_type(x[torch.where(m)])
    t = (0, 1)
    reveal_type(x[t])
    colons = [slice(None)] * x.ndim
    reveal_type(x[tuple(colons)])
"""
    found = [d.message for d in check_source(text, "tuples.py") if d.code == "reveal"]
    assert [m.split(" is ", 1)[1] for m in found] == [
        "float[?](torch)",
        "float[](torch)",
        "float[...](torch)",
    ]


def test_a_short_body_with_a_match_and_assert_never_is_walked_for_a_call():
    text = """
from enum import Enum
from typing import assert_never

from jaxtyping import Float
from torch import Tensor


class Enc(Enum):
    A = "a"
    B = "b"


def cast_feature(feature: Tensor, enc: Enc):
    match enc:
        case Enc.A:
            return feature.float()
        case Enc.B:
            return feature
    assert_never(enc)


def f(x: Float[Tensor, "b n"], enc: Enc):
    reveal_type(cast_feature(x, enc))
"""
    found = [d.message for d in check_source(text, "cast.py") if d.code == "reveal"]
    assert [m.split(" is ", 1)[1] for m in found] == ["float[b,n](torch)"]


def test_a_gather_with_an_index_not_known_keeps_the_input_rank():
    text = """
import torch
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "b n d"], idx):
    reveal_type(x.gather(1, idx))
    return x.gather(1, idx).sum(-1) @ x  # (?, ?) @ (b, n, d): rank known, sizes not
"""
    found = check_source(text, "gather.py")
    assert [d.message.split(" is ", 1)[1] for d in found if d.code == "reveal"] == [
        "float[?,?,?](torch)"
    ]
    assert not [d for d in found if d.severity == "error"]


def test_an_einx_operand_not_known_for_a_group_with_dots_keeps_its_named_axes():
    text = """
import einx
from jaxtyping import Bool
from torch import Tensor


def f(mask: Bool[Tensor, "b t"], feats, den: Bool[Tensor, " t"]):
    out = einx.where("b t, b t ..., -> b t ...", mask, feats, 0.0)
    reveal_type(out)
    return einx.divide("b t ..., b -> b t ...", out, den)
"""
    found = check_source(text, "einx_unknown.py")
    assert [d.message.split(" is ", 1)[1] for d in found if d.code == "reveal"] == [
        "?[b,t,...](torch)"
    ]
    assert [(d.line, d.code) for d in found if d.severity == "error"] == [(10, "broadcast")]


def test_a_longer_body_annotated_bare_tensor_gives_its_shape_and_a_relayed_failure_names_its_lines():
    text = """
from typing import Any

import torch
from torch import Tensor


def random_quaternions(n: int, device: Any = None) -> Tensor:
    if isinstance(device, str):
        device = torch.device(device)
    o = torch.randn((n, 4), device=device)
    return o / o.norm(dim=-1, keepdim=True)


def quaternion_scale(q: Tensor) -> Tensor:
    two_s = 2.0 / (q * q).sum(0)
    r, i, j, k = torch.unbind(q, -1)
    return two_s * (j * j + k * k)


def random_scales(n: int) -> Tensor:
    q = random_quaternions(n)
    reveal_type(q)
    return quaternion_scale(q)
"""
    # ``-> Tensor`` says no shape: the body, walked as a function without annotation
    # is, gives ``(n, 4)`` for the call's ``n``; the helper's failure for it is relayed
    # with the line where the failing operand got its shape (``two_s``, line 16)
    found = check_source(text, "quat.py")
    assert any(d.line == 23 and "q is f32[n,4]" in d.message for d in found)
    errors = [d for d in found if d.severity == "error"]
    assert [(d.line, d.code) for d in errors] == [(24, "broadcast")]
    assert "quaternion_scale() fails for these arguments" in errors[0].message
    assert any(line == 16 and "two_s gets its shape (4,)" in m for line, _c, m in errors[0].related)


def test_an_item_stored_into_a_list_changes_it():
    text = """
import torch
from jaxtyping import Float, Int
from torch import Tensor


def f(v: Float[Tensor, "V 3"], t: Int[Tensor, "F 3"]):
    pair = [v, v]
    pair[1] = t
    reveal_type(pair[1])
    pos = [None] * 3
    for i in range(0, 3):
        pos[i] = v[t[:, i]]
    reveal_type(pos[0])
    return pos[1] - pos[0]
"""
    # a known position is replaced; the None placeholders a loop fills are unknown
    # afterwards (not None, and not "may be None")
    found = check_source(text, "store.py")
    reveals = {d.line: d.message for d in found if d.severity == "note"}
    assert "pair[1] is int" in reveals[10]
    assert "pos[0] is unknown" in reveals[14]
    assert [d for d in found if d.severity == "error"] == []


REDUCED = """\
import numpy as np
import torch


def normalize_tensor(x, eps=1e-10):
    norm_factor = torch.sqrt(torch.sum(x**2, dim=1))
    return x / (norm_factor + eps)


def fine(x, eps=1e-10):
    norm_factor = torch.sqrt(torch.sum(x**2, dim=1, keepdim=True))
    a = x / (norm_factor + eps)
    b = x - x.mean(0)
    c = x / torch.sum(x, -1)
    d = x / torch.linalg.norm(x, dim=1)[:, None]
    e = x - x.sum(1)
    f = x / torch.sum(x * x.T, dim=1)
    return a, b, c, d, e, f


class Mesh:
    def __init__(self, v: np.ndarray):
        self.v = v

    def normalize(self):
        verts = self.v
        center = verts.mean(axis=1)
        verts = verts - center
        return verts

    def moved(self):
        verts = self.v
        center = verts.mean(axis=1)
        verts = verts[:, :2]
        return verts - center


def maxima(x: torch.Tensor, y: np.ndarray):
    kept = x - x.max(dim=1, keepdim=True).values, x - x.max(0)[0], y - np.max(y, axis=0)
    kept += (x - x.sum(1)[0],)  # a row of the sum, not a pair's values
    return x - x.max(dim=1).values, y - np.max(y, axis=1), kept


def new_axes(x: torch.Tensor, state: Mesh):
    # put back in place (keepdim by hand), or counted from the other end (right for
    # some rank): nothing said
    kept = x / x.sum(1)[:, None], x / x.norm(dim=-1).unsqueeze(-1), x / x.sum(-1)[:, None]
    state.v -= state.v.min(axis=1)[:, np.newaxis]
    state.v -= state.v.min(axis=0)[:, np.newaxis]
    return x / x.sum(0).unsqueeze(1), x / x.sum(-2)[..., None], kept
"""


def test_an_array_against_its_reduction_over_an_inner_axis_is_an_error_at_any_rank():
    # x / sum(x, dim=1) lines axis 0 of the sum up with axis 1 of x, whatever x's rank:
    # the line that reduced is named. Not: keepdim, axis 0, a negative axis (a one-axis
    # x is fine), an axis put back by indexing, any object's .sum(1) (x is not known
    # to be an array), an operand made with another array, x reassigned between
    found = [d for d in check_source(REDUCED, "reduced.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [
        (7, "broadcast"),
        (28, "broadcast"),
        (41, "broadcast"),
        (41, "broadcast"),
        (49, "broadcast"),
        (50, "broadcast"),
        (50, "broadcast"),
    ]
    assert "lines axis 0 of state.v up with its axis 1" in found[-3].message
    assert "lines axis -2 of x up with its axis -1" in found[-1].message
    assert "lines axis 0 of x up with its axis 1, whatever the rank" in found[0].message
    assert (6, 5, "x is reduced over axis 1 without keepdim here (used at line 7)") in found[
        0
    ].related
    assert any(line == 27 for line, _col, _text in found[1].related)


def test_the_reduction_rule_reads_a_bounded_part_of_long_chains():
    # 40 assignments of 150-term sums: the chain back from each operand is read 48
    # nodes deep at most, and the two operands here are one variable all the same
    lines = ["import torch", "", "def f(x):", "    a0 = x"]
    lines += [f"    a{i} = a{i - 1}" + " + 1" * 150 for i in range(1, 40)]
    lines.append("    return a39 / torch.sum(a39 * 2, dim=1)")
    found = [d for d in check_source("\n".join(lines) + "\n", "deep.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(44, "broadcast")]


CARRIED = """\
import einx
import torch
from jaxtyping import Float, Int
from torch import Tensor


def repeat_rows(feats: Float[Tensor, "b n d"], lens: Int[Tensor, "b n"]) -> Float[Tensor, "b m d"]:
    total = lens.sum(dim=0)
    mask = torch.arange(8) < total[:, None]
    out = einx.where("b m, b m d, -> b m d", mask, feats, 0.0)
    return out
"""


def test_a_parameter_size_out_of_place_names_the_arrays_that_carried_it_there():
    # n stands where the batch b is expected: the notes go back through mask to the
    # sum that left n on the first axis, not only to where out was made
    found = [d for d in check_source(CARRIED, "carried.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(10, "broadcast")]
    at = {line for line, _col, _text in found[0].related}
    assert {8, 9} <= at, found[0].related


LISTED = """\
from einops import reduce
from jaxtyping import Int
from torch import Tensor


def use(keys: Int[Tensor, " depth"], d: Int[Tensor, " depth"]) -> None:
    pass


def pair(toks: list[Int[Tensor, "seq tok"]]) -> None:
    dists = [reduce(t[0, :] != t, "seq tok -> tok", "sum") for t in toks]
    for t, dist in zip(toks, dists):
        use(t[:, 0], dist)
"""


def test_an_element_a_loop_takes_from_a_list_names_the_line_that_made_the_list():
    # dist's shape was made where dists was (the reduce that kept the wrong axis), not
    # by the loop that takes it out
    found = [d for d in check_source(LISTED, "listed.py") if d.severity == "error"]
    assert [(d.line, d.code) for d in found] == [(13, "arg-type")]
    at = {line for line, _col, _text in found[0].related}
    assert 11 in at, found[0].related
