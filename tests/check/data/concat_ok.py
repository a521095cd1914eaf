"""Joining arrays along the right axis."""
import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
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


def padded(a: Float[Tensor, "n 3"], b: Float[Tensor, "m 3"]) -> Float[Tensor, "2 l 3"]:
    both = pad_sequence([a, b])  # (longest, 2, 3)
    return pad_sequence([a, b], batch_first=True) + both.transpose(0, 1)


def batch_of_rows(rows: Float[Tensor, "b n d"]) -> Float[Tensor, "l b d"]:
    return pad_sequence([r for r in rows])
