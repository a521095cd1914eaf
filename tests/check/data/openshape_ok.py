"""Sizes read from arrays of open rank, and idioms that must stay precise and quiet."""
from typing import List

import pytest
import torch
from jaxtyping import Bool, Float, Shaped
from torch import Tensor, nn


def last_size(x: Float[Tensor, "*bs c"], w: Float[Tensor, "c d"]) -> Float[Tensor, "*bs d"]:
    out = torch.zeros((*x.shape[:-1], w.shape[1]))
    return out


def by_size(x: Float[Tensor, "*bs c"]) -> Float[Tensor, "*bs c"]:
    n = x.size(-1)
    return torch.ones(*x.shape[:-1], n)


def split_last(x: Float[Tensor, "*bs 6"]) -> Float[Tensor, "*bs 3 2"]:
    return x.view(*x.shape[:-1], 3, -1)


def fixed_rank(x: Float[Tensor, "b n 6"], k: int) -> Float[Tensor, "b n 3 2"]:
    y = torch.zeros((*x.shape[:-1], k))
    return x.view(*x.shape[:-1], 3, -1)


def even_split(x: Float[Tensor, "b n"], b: int, n: int) -> None:
    assert n % 2 == 0
    y = x.reshape(b, -1, 2)


def double_split(x: Float[Tensor, "b 2*n"], b: int) -> Float[Tensor, "b n 2"]:
    return x.reshape(b, -1, 2)


def always_even(x: Float[Tensor, "n n+1"]) -> None:
    y = x.reshape(-1, 2)  # n*(n+1) is always even


def new_tail(x: Float[Tensor, "*bs c"], k: int) -> Float[Tensor, "*bs k"]:
    return x.new_zeros(x.shape[:-1] + (k,))


def lag(x: Float[Tensor, "n"], k: int) -> Float[Tensor, "n"]:
    y = torch.zeros_like(x)
    y[k:] = x[k:] - x[:-k]
    return y


def window(x: Float[Tensor, "n"], w: int) -> Float[Tensor, "w"]:
    return x[-w:]


def listed(x: Float[Tensor, "b n"], sizes: List[int]) -> None:
    values = x.tolist()
    first = values[0]
    o = torch.ones(sizes)
    p = o + 1.0


def expanded(u: Float[Tensor, "n"], b: int, n: int) -> Float[Tensor, "b n"]:
    return u.expand(size=(b, n))


def noise(k: int) -> Float[Tensor, "k 3"]:
    return torch.normal(0, 1, size=(k, 3))


def narrowed(x: Float[Tensor, "b c"], m: Shaped[Tensor, "b"]) -> None:
    if x.shape[-1] == 3:
        y = x + torch.zeros(3)
    if m.dtype == torch.bool:
        z = x[m]


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        if dim % heads != 0:
            raise ValueError("dim must be divisible by heads")
        self.heads = heads


def build() -> None:
    a = Attention(32, 4)


@pytest.mark.parametrize("n", [1, 2])
def sized(n: int) -> int:
    return n


def call_marked() -> None:
    sized(2)
