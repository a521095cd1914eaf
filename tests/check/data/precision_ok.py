"""Dtypes handled correctly: casts before matmuls, integer labels, masks, in-place updates."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Bool, Float, Float16, Float32, Int, Int64
from torch import Tensor


def half_matmul(a: Float16[Tensor, "n k"], b: Float32[Tensor, "k m"]) -> Float16[Tensor, "n m"]:
    return a @ b.half()


def mixed_add(a: Float16[Tensor, "n"], b: Float32[Tensor, "n"]) -> Tensor:
    return a + b


def positions(t: int) -> Float[Tensor, "t"]:
    return torch.arange(t) / t


def embed_ids(ids: Int64[Tensor, "b t"], table: nn.Embedding) -> Tensor:
    return table(ids)


def labels_from_probs(probs: Float[Tensor, "b c"]) -> Int[Tensor, "b"]:
    return probs.argmax(dim=-1)


def accumulate(counts: Int[np.ndarray, "n"], w: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
    totals = counts.astype(np.float64)
    totals += w
    return totals


def int_accumulate(counts: Int[np.ndarray, "n"], extra: Int[np.ndarray, "n"]) -> None:
    counts += extra
    counts *= 2


def select(x: Float[Tensor, "n d"], keep: Bool[Tensor, "n"]) -> Tensor:
    return x[keep]


def take(x: Float[Tensor, "n d"], idx: Int[Tensor, "k"]) -> Float[Tensor, "k d"]:
    return x[idx]


def float_model(x: Float[np.ndarray, "b 4"]) -> Tensor:
    layer = nn.Linear(4, 2)
    return layer(torch.from_numpy(x).float())


def double_model(x: Float[np.ndarray, "b 4"]) -> Tensor:
    layer = nn.Linear(4, 2).double()
    return layer(torch.from_numpy(x))


def mean_of_ints(x: Int[Tensor, "n"]) -> Tensor:
    return x.float().mean()


def one_hot_float(labels: Int[Tensor, "b"], c: int) -> Float[Tensor, "b c"]:
    return F.one_hot(labels, c).float()


def where_mix(cond: Bool[Tensor, "n"], a: Float[Tensor, "n"]) -> Float[Tensor, "n"]:
    return torch.where(cond, a, torch.zeros_like(a))


def scores(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b"]) -> Tensor:
    return F.cross_entropy(logits, labels.long())
