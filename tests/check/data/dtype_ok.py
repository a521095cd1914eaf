"""Dtypes used as each operation needs them."""
import numpy as np
import torch
import torch.nn as nn
from jaxtyping import Float, Int
from torch import Tensor


def gather(table: Float[Tensor, "n d"], idx: Int[Tensor, "k"]) -> Float[Tensor, "k d"]:
    return table[idx]


def accumulate(counts: Float[np.ndarray, "n"], w: Float[np.ndarray, "n"]) -> None:
    counts += w


def mixed(a: Float[Tensor, "n k"], b: Float[Tensor, "k m"]) -> Tensor:
    return a.float() @ b.float()


def average(x: Int[Tensor, "n"]) -> Tensor:
    return x.float().mean()


def promote(x: Int[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
    return x / 2


def numpy_input() -> None:
    layer = nn.Linear(3, 2)
    data = np.random.randn(8, 3)
    out = layer(torch.from_numpy(data).float())
