"""TorchScript's type system rules: Optional without a check, missing attributes, calls, returns."""
from typing import Optional

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


def masked(x: Float[Tensor, "b n"], mask: Optional[Float[Tensor, "b n"]] = None) -> Tensor:
    return x * mask  # E: may be None [optional]


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Float[Tensor, "b dim"]) -> Float[Tensor, "b dim"]:
        return self.proj(self.nrom(x))  # E: Block has no attribute 'nrom' [attr]


def scale(x: Float[Tensor, "n"], factor: float) -> Float[Tensor, "n"]:
    return x * factor


def use() -> None:
    v = torch.ones(3)
    scale(v)  # E: missing argument 'factor' [call]
    scale(v, 2.0, 3)  # E: takes 2 positional arguments


def first_row(x: Float[Tensor, "n m"]) -> Float[Tensor, "n"]:
    return x[0]  # E: return value


def pair(a: Float[Tensor, "n"], b: Float[Tensor, "n"]) -> Float[Tensor, "n"]:
    return a + b


def call_pair() -> None:
    pair(torch.ones(3), torch.ones(4))  # E: axis 0 has size 4, expected 3
