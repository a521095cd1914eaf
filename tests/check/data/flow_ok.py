"""Refinement by None checks, isinstance, assert and early return; joins; calls."""
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
from jaxtyping import Float, Int64
from torch import Tensor


def masked(x: Float[Tensor, "b n"], mask: Optional[Float[Tensor, "b n"]] = None) -> Tensor:
    if mask is not None:
        x = x * mask
    return x


def early(x: Float[Tensor, "b n"], mask: Optional[Float[Tensor, "b n"]] = None) -> Tensor:
    if mask is None:
        return x
    return x * mask


def asserted(x: Float[Tensor, "b n"], mask: Optional[Float[Tensor, "b n"]]) -> Tensor:
    assert mask is not None
    return x * mask


class Cache(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.state: Optional[Tensor] = None

    def forward(self, x: Float[Tensor, "b dim"]) -> Float[Tensor, "b dim"]:
        if self.state is None:
            self.state = torch.zeros_like(x)
        y = self.proj(x) + self.state
        return y


def checked(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> Tensor:
    if x.shape[1] != w.shape[0]:
        raise ValueError("sizes differ")
    return x @ w


def asserted_sizes(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> Tensor:
    assert x.shape[-1] == w.shape[0]
    return x @ w


@dataclass
class Batch:
    images: Float[Tensor, "b 3 h w"]
    labels: Tensor


def pick(flag: bool, a: Float[Tensor, "n"], b: Float[Tensor, "n"]) -> Float[Tensor, "n"]:
    if flag:
        out = a
    else:
        out = b * 2
    return out + a


def loops(xs: Float[Tensor, "t d"]) -> Float[Tensor, "d"]:
    total = torch.zeros(xs.shape[1])
    for i in range(xs.shape[0]):
        total = total + xs[i]
    return total


def sampled_tokens(idx: Int64[Tensor, "batch n"], k: int) -> Int64[Tensor, "batch n+{k}"]:
    # The loop grows idx by a sample at each pass: after it, idx's length is not the
    # one before it (the joined axis of a cat with a sample is a size of its own).
    for _ in range(k):
        probs = torch.softmax(torch.randn(idx.shape[0], 5), dim=-1)
        idx_next = torch.multinomial(probs, num_samples=1)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def grown_by_unknown(idx: Int64[Tensor, "batch n"], k: int, sampler) -> Int64[Tensor, "batch n+{k}"]:
    for _ in range(k):
        idx = torch.cat((idx, sampler(idx)), dim=1)
    return idx


def pair(a: Float[Tensor, "n"], b: Float[Tensor, "n"]) -> Float[Tensor, "n"]:
    return a + b


def call_pair() -> None:
    out = pair(torch.ones(3), torch.ones(3))
    batch = Batch(torch.zeros(2, 3, 8, 8), torch.zeros(2))
