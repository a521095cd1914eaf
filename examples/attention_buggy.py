"""Multi-head self-attention with the reshaping bugs that are hard to see."""
import math
from typing import Optional

import torch
import torch.nn as nn
from jaxtyping import Bool, Float
from torch import Tensor


class SelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        assert dim % heads == 0, "dim must be a multiple of heads"
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Float[Tensor, "b t dim"],
                mask: Optional[Bool[Tensor, "b t"]] = None) -> Float[Tensor, "b t dim"]:
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        scores = q @ k / math.sqrt(self.head_dim)  # BUG: k must be transposed
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(mask[:, None, None, :], float("-inf"))  # BUG: mask may be None
        weights = scores.softmax(dim=-1)
        out = (weights @ v).transpose(1, 2)
        out = out.view(b, t, d)  # BUG: view after transpose needs .contiguous()
        return self.proj(out)


def merge_heads(x: Float[Tensor, "b h t e"]) -> Float[Tensor, "b t h*e"]:
    b, h, t, e = x.shape
    return x.permute(0, 2, 1, 3).reshape(b, t, h * t)  # BUG: h*t is not h*e elements
