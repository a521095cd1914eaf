"""A decoder-only transformer written the usual way: heads, masks, residuals."""
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
        self.dropout = nn.Dropout(0.1)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)))

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t dim"]:
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(self.mask[:t, :t] == 0, float("-inf"))
        weights = self.dropout(F.softmax(scores, dim=-1))
        out = weights @ v
        out = out.transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(out)


class MLP(nn.Module):
    def __init__(self, dim: int, expansion: int = 4):
        super().__init__()
        self.fc = nn.Linear(dim, expansion * dim)
        self.out = nn.Linear(expansion * dim, dim)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t dim"]:
        return self.out(F.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t dim"]:
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x


class GPT(nn.Module):
    def __init__(self, vocab: int, dim: int, depth: int, heads: int, max_len: int = 256):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx: Int[Tensor, "b t"],
                targets: Optional[Int[Tensor, "b t"]] = None):
        b, t = idx.shape
        pos = torch.arange(t, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(b * t, -1), targets.view(b * t))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx: Int[Tensor, "b t"], steps: int) -> Tensor:
        for _ in range(steps):
            logits, _ = self(idx)
            probs = F.softmax(logits[:, -1, :], dim=-1)
            nxt = torch.multinomial(probs, num_samples=1)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


def padding_mask(lengths: Int[Tensor, "b"], t: int) -> Bool[Tensor, "b t"]:
    steps = torch.arange(t)
    return steps[None, :] < lengths[:, None]


def attention(q: Float[Tensor, "b h t d"], k: Float[Tensor, "b h s d"],
              v: Float[Tensor, "b h s e"],
              mask: Optional[Bool[Tensor, "b 1 1 s"]] = None) -> Float[Tensor, "b h t e"]:
    scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    return torch.softmax(scores, dim=-1) @ v


def mha(x: Float[Tensor, "t b 64"]) -> Float[Tensor, "t b 64"]:
    layer = nn.MultiheadAttention(64, 8)
    out, weights = layer(x, x, x)
    return out
