"""Library idioms with a rule each: einsum, einops, repeat, padding, sampling."""
import einops
import numpy as np
import torch
import torch.nn.functional as F
from einops import rearrange, reduce, repeat
from jaxtyping import Float
from torch import Tensor


def scores(q: Float[Tensor, "b n d"], k: Float[Tensor, "b m e"]) -> None:
    s = torch.einsum("bnd,bmd->bnm", q, k)  # E: axis d is d in q (b, n, d) but e [matmul]


def scores_shape(q: Float[Tensor, "b n d"], k: Float[Tensor, "b m d"]) -> Float[Tensor, "b m n"]:
    return torch.einsum("bnd,bmd->bnm", q, k)  # E: axis 1 has size n, expected m [return]


def einsum_rank(q: Float[Tensor, "b n d"]) -> None:
    s = np.einsum("ij,jk->ik", q, q)  # E: has rank 3 (b, n, d) but the pattern names 2 [rank]


def einsum_output(q: Float[Tensor, "b n d"]) -> None:
    s = torch.einsum("bnd->bnx", q)  # E: output axis x [axis]


def heads(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b 8 c n"]:
    return rearrange(x, "b n (h d) -> b h n d", h=8)  # E: axis 2 has size n, expected c [return]


def merge(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b n"]:
    return rearrange(x, "b n c -> (b n) c")  # E: axis 0 has size b*n, expected b [return]


def too_few(x: Float[Tensor, "b n c"]) -> None:
    y = einops.rearrange(x, "b c -> c b")  # E: the pattern names 2 axes [rank]


def tiled(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b n c"]:
    return repeat(x, "b n c -> b n c k", k=3)  # E: has rank 4


def pooled(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b n"]:
    return reduce(x, "b n c -> b c", "mean")  # E: axis 1 has size c, expected n [return]


def repeated(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return x.repeat(1, 2)  # E: axis 1 has size 2*n, expected n [return]


def too_few_counts(x: Float[Tensor, "b n c"]) -> None:
    y = x.repeat(2, 2)  # E: 2 repeat counts for an array of rank 3 [rank]


def interleaved(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return x.repeat_interleave(2, dim=0)  # E: axis 0 has size 2*b, expected b [return]


def moved(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c h w"]:
    return torch.moveaxis(x, 1, -1)  # E: axis 1 has size h, expected c [return]


def padded(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c h w"]:
    return F.pad(x, (1, 1))  # E: axis 3 has size w+2, expected w [return]


def pad_rank(v: Float[Tensor, "n"]) -> None:
    y = F.pad(v, (1, 1, 1, 1))  # E: 4 padding values pad 2 axes [rank]


def sampled(im: Float[Tensor, "b c h w"], grid: Float[Tensor, "b k 3"]) -> None:
    y = F.grid_sample(im, grid)  # E: needs a 4-d or 5-d input and a grid of the same rank [rank]


def sample_coords(im: Float[Tensor, "b c h w"], grid: Float[Tensor, "b p q 3"]) -> None:
    y = F.grid_sample(im, grid)  # E: holds 3 coordinates, expected 2 [layer]


def grid(u: Float[Tensor, "n"], v: Float[Tensor, "m"]) -> Float[Tensor, "n m"]:
    a, b = np.meshgrid(u, v)
    return a  # E: axis 0 has size m, expected n [return]


def broadcast(v: Float[Tensor, "n"], m: int) -> None:
    y = torch.broadcast_to(v, (m, 3))  # E: expand: axis of size n cannot be expanded to 3


def scaled(x: Float[Tensor, "b n"]) -> None:
    y = torch.pi * x + torch.zeros(3)  # E: axis -1 has sizes n and 3
