"""Rank and axis errors: too many indices, bad permutations, bad unpacking."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def last(x: Float[Tensor, "b n"]) -> Float[Tensor, "b"]:
    return x[:, :, -1]  # E: too many indices [index]


def channels_last(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b h w c"]:
    return x.permute(0, 2, 3)  # E: 3 dims given for an array of rank 4


def unpack(x: Float[Tensor, "b t d"]) -> int:
    b, c, h, w = x.shape  # E: cannot unpack
    return b


def grow(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n 1"]:
    return np.expand_dims(x, axis=2)  # E: out of range


def squeeze(x: Float[np.ndarray, "n 3"]) -> Float[np.ndarray, "n"]:
    return np.squeeze(x, axis=1)  # E: has size 3, not 1


def pick() -> None:
    a = torch.zeros(3, 4)
    b = a[5]  # E: index 5 is out of bounds
