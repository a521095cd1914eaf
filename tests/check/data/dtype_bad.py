"""Dtype errors: float indices, in-place float into int, mixed precision, int means."""
import numpy as np
import torch
import torch.nn as nn
from jaxtyping import Float, Int
from torch import Tensor


def gather(table: Float[Tensor, "n d"], idx: Float[Tensor, "k"]) -> Float[Tensor, "k d"]:
    return table[idx]  # E: must be integers or bools


def accumulate(counts: Int[np.ndarray, "n"], w: Float[np.ndarray, "n"]) -> None:
    counts += w  # E: cannot be cast back


def mixed(a: Float[Tensor, "n k"], b: Float[Tensor, "k m"]) -> Tensor:
    return a.half() @ b.float()  # E: different dtypes


def average(x: Int[Tensor, "n"]) -> Tensor:
    return x.mean()  # E: needs a floating-point input


def numpy_input() -> None:
    layer = nn.Linear(3, 2)
    data = np.random.randn(8, 3)
    out = layer(torch.from_numpy(data))  # E: the layer's weights are float32
