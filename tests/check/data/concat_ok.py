"""Joining arrays along the right axis."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def join(a: Float[Tensor, "b n"], b: Float[Tensor, "b m"]) -> Float[Tensor, "b n+m"]:
    return torch.cat([a, b], dim=1)


def pair(a: Float[Tensor, "n"], b: Float[Tensor, "n"]) -> Float[Tensor, "2 n"]:
    return torch.stack([a, b])


def double(x: Float[Tensor, "t d"]) -> Float[Tensor, "2*t d"]:
    return torch.cat((x, x), dim=0)


def fixed() -> None:
    x = np.zeros((3, 4))
    y = np.zeros((3, 5))
    z = np.concatenate([x, y], axis=1)
    assert z.shape == (3, 9)
    w = np.hstack([np.ones(3), np.ones(4)])
