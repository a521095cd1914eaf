"""Reshapes that keep the number of elements."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def heads(x: Float[Tensor, "b t h*d"], h: int, d: int) -> Float[Tensor, "b h t d"]:
    b, t, _ = x.shape
    return x.view(b, t, h, d).transpose(1, 2)


def merge(x: Float[Tensor, "b h t d"]) -> Float[Tensor, "b t h*d"]:
    b, h, t, d = x.shape
    return x.transpose(1, 2).contiguous().view(b, t, h * d)


def flat(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c*h*w"]:
    return x.reshape(x.shape[0], -1)


def halves(x: Float[Tensor, "b 2*n"]) -> Float[Tensor, "b n 2"]:
    return x.reshape(x.shape[0], -1, 2)


def fixed() -> None:
    a = np.arange(12)
    b = a.reshape(3, -1)
    assert b.shape == (3, 4)
    c = torch.zeros(2, 3).view(3, 2)


def channels_last_tokens(x: Float[Tensor, "1 c h w"]) -> Float[Tensor, "1 h*w c"]:
    # After permute(0, 2, 3, 1), h and w are still adjacent in memory: the view works.
    return x.permute(0, 2, 3, 1).view(1, -1, x.shape[1])


def swapped_back(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b*n*c"]:
    return x.transpose(1, 2).transpose(1, 2).view(-1)


def face_pairs(distances: Float[Tensor, "n m"]) -> Tensor:
    # how many pairs the data holds: it may well be a multiple of 3 (faces)
    pairs = torch.argwhere(distances == 2)
    return torch.reshape(pairs[:, 1], [3, -1]).T
