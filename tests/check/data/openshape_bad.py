"""Sizes read from arrays of open rank, and the rules that take them."""
import pytest
import torch
from jaxtyping import Float
from torch import Tensor, nn


def last_size(x: Float[Tensor, "*bs c"], w: Float[Tensor, "d e"]) -> Float[Tensor, "*bs d"]:
    out = torch.zeros((*x.shape[:-1], w.shape[1]))
    return out  # E: axis -1 has size e, expected d [return]


def by_size(x: Float[Tensor, "*bs c"]) -> Float[Tensor, "*bs"]:
    n = x.size(-1)
    return torch.ones(*x.shape[:-1], n)  # E: 1 axis after *bs, expected 0 [return]


def split_last(x: Float[Tensor, "*bs 6"]) -> Float[Tensor, "*bs 3 3"]:
    return x.view(*x.shape[:-1], 3, -1)  # E: axis -1 has size 2, expected 3 [return]


def odd_split(x: Float[Tensor, "b n"], b: int) -> None:
    y = x.reshape(b, -1, 2)  # E: it fails for b=1, n=1 [reshape]


def half_index(x: Float[Tensor, "b n"]) -> None:
    y = x[:, 0.5]  # E: must be integers [dtype]


def new_tail(x: Float[Tensor, "*bs c"], k: int) -> Float[Tensor, "*bs c"]:
    return x.new_zeros(x.shape[:-1] + (k,))  # E: axis -1 has size k, expected c [return]


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        assert dim % heads == 0
        self.heads = heads
        self.proj = nn.Linear(dim, dim)


def build() -> None:
    a = Attention(30, 4)  # E: 30 is not a multiple of 4 [layer]


@pytest.mark.parametrize("n", [1, 2])
def sized(n: int) -> int:
    return n


def call_marked() -> None:
    sized("two")  # E: argument 'n' of sized() is str [arg-type]
