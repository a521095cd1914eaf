"""Where a shape rule cannot tell, it says nothing, and ``--strict`` says why."""

from __future__ import annotations

from tensortypes.check import check_source

SRC = """
import torch
from einops import rearrange
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "*b n 3"], y: Float[Tensor, "*c 3"], z: Float[Tensor, "... 3"], h: int):
    a = x * y
    b = torch.add(x, z)
    c = rearrange(x, "... n (k d) -> ... k n d", k=h)
"""


def test_silent_without_strict():
    assert check_source(SRC) == []


def test_strict_says_why():
    notes = {d.line: d for d in check_source(SRC, strict=True)}
    assert {d.code for d in notes.values()} == {"unchecked"}
    assert all(d.severity == "note" for d in notes.values())
    assert "variadic axes that cannot be lined up" in notes[9].message
    assert notes[10].message.startswith("torch.add:")
    assert "not provably a multiple of h" in notes[11].message


def test_the_same_rest_is_an_error_not_a_note():
    src = SRC.replace('y: Float[Tensor, "*c 3"]', 'y: Float[Tensor, "*b 3"]')
    found = [d for d in check_source(src, strict=True) if d.severity == "error"]
    assert [d.code for d in found] == ["broadcast"] and found[0].line == 9


def test_a_dropped_result_of_an_unknown_call_is_no_note():
    src = (
        "import torch\nimport os\n"
        "def f(w: torch.Tensor):\n"
        "    with torch.no_grad():\n"
        "        torch.nn.init.trunc_normal_(w)\n"
        "        w.frobnicate_()\n"
        "    os.makedirs('x')\n"
        "    with torch.autocast('cuda') as ctx:\n"
        "        pass\n"
        "    return torch.nn.init.trunc_normal_(w), os.path.join('a', 'b')\n"
    )
    notes = [(d.line, d.message.split(":")[0]) for d in check_source(src, strict=True)]
    assert notes == [
        (8, "no rule for torch.autocast"),
        (10, "no rule for torch.nn.init.trunc_normal_"),
        (10, "call of os.path.join, a function or class the checker has no rule or signature for"),
    ]
