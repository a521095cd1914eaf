"""Reshapes that change the number of elements; view after transpose."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def heads(x: Float[Tensor, "b t d"], h: int) -> Float[Tensor, "b t h d"]:
    return x.view(x.shape[0], x.shape[1], h, x.shape[2])  # E: elements


def merge(x: Float[Tensor, "b h t d"]) -> Float[Tensor, "b t h*d"]:
    y = x.transpose(1, 2)
    return y.view(x.shape[0], x.shape[2], -1)  # E: not contiguous [view]


def thirds(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n//2 3"]:
    # n//2 rows of 3 hold n elements only when n is 0 or 3
    return x.reshape(x.shape[0], x.shape[1] // 2, 3)  # E: not provably equal


def fixed() -> None:
    a = np.arange(12)
    b = a.reshape(5, -1)  # E: not a multiple of 5
    c = torch.zeros(2, 3).view(4, 2)  # E: 6 elements vs 8


def channels_last_flat(x: Float[Tensor, "1 c h w"]):
    return x.permute(0, 2, 3, 1).view(1, -1)  # E: not adjacent in memory [view]


def expanded_column(x: Float[Tensor, "n 3"], t: Float[Tensor, "1 1"]):
    column = t.expand(x.shape[0], 1)
    row = column.view(1, -1)  # only unit axes moved: a view needs no contiguity here
    wide = t.expand(x.shape[0], 4)
    flat = wide.view(-1)  # E: not contiguous [view]
    return row, flat
