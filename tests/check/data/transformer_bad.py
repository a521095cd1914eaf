"""A transformer with the bugs people write: transposes, masks, heads, losses."""
import math
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Bool, Float, Int
from torch import Tensor


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int, max_len: int = 256):
        super().__init__()
        assert dim % heads == 0
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)))

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t dim"]:
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        scores = q @ k / math.sqrt(self.head_dim)  # E: contracted axes differ [matmul]
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        masked = scores.masked_fill(self.mask[:t, :t], float("-inf"))  # E: must be a bool tensor [dtype]
        out = F.softmax(scores, dim=-1) @ v
        out = out.transpose(1, 2).view(b, t, c)  # E: not contiguous [view]
        return self.proj(out)


class MLP(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t dim"]:
        return self.out(F.gelu(self.fc(x)))  # E: expected dim (in_features) [layer]


class Heads(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 6)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: Float[Tensor, "t b dim"]) -> Float[Tensor, "t b dim"]:
        out, _ = self.attn(x, x, x)
        return self.norm(out)


def build() -> None:
    Heads(512)  # E: embed_dim=512 is not divisible by num_heads=6 [layer]
    layer = nn.MultiheadAttention(100, 8)  # E: not divisible by num_heads [layer]


def lm_loss(logits: Float[Tensor, "b t v"], targets: Int[Tensor, "b t"]) -> Tensor:
    return F.cross_entropy(logits, targets)  # E: reads axis 1 of the input as the classes [loss]


def padded_scores(scores: Float[Tensor, "b h t t"], keep: Bool[Tensor, "b t"]) -> Tensor:
    return scores.masked_fill(~keep, -1e9)  # E: cannot broadcast [broadcast]


def additive(scores: Float[Tensor, "b h t s"], bias: Float[Tensor, "b s"]) -> Tensor:
    return scores + bias  # E: cannot broadcast [broadcast]


def attention(q: Float[Tensor, "b h t d"], k: Float[Tensor, "b h s d"],
              v: Float[Tensor, "b h s e"]) -> Float[Tensor, "b h t e"]:
    weights = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
    return weights @ v.transpose(-1, -2)  # E: contracted axes differ [matmul]


def positions(x: Float[Tensor, "b t d"], table: Float[Tensor, "n d"]) -> Tensor:
    idx = torch.arange(x.shape[1]).float()
    return x + table[idx]  # E: must be integers or bools [dtype]
