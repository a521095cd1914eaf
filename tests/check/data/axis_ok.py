"""Indexing, permutes and unpacking that match the ranks."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def last(x: Float[Tensor, "b n"]) -> Float[Tensor, "b"]:
    return x[:, -1]


def channels_last(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b h w c"]:
    return x.permute(0, 2, 3, 1)


def unpack(x: Float[Tensor, "b t d"]) -> int:
    b, t, d = x.shape
    return b * t


def grow(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n 1"]:
    return np.expand_dims(x, axis=1)


def crop(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n-1"]:
    return x[:, 1:]


def pick() -> None:
    a = torch.zeros(3, 4)
    b = a[2]
    c = a[..., None]
    assert c.shape == (3, 4, 1)
