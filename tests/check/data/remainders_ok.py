"""Sizes equal exactly when a division is exact: "cannot tell", so no error.

The code relies on an evenness or a divisibility it does not state (an even
rotary dimension, heads that divide evenly, an odd kernel): ``--strict``
notes each comparison, and a changed constant is still an error
(remainders_bad.py).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def rotate_every_two(x: Float[Tensor, "... rotary_dim"]) -> Float[Tensor, "... rotary_dim"]:
    rot_x = x.clone()
    rot_x[..., ::2] = -x[..., 1::2]
    rot_x[..., 1::2] = x[..., ::2]
    return rot_x


def rotate_half(x: Float[Tensor, "... rotary_dim"]) -> Float[Tensor, "... rotary_dim"]:
    rot_x = x.clone()
    n = x.size(-1) // 2
    rot_x[..., :n] = -x[..., n:]
    rot_x[..., n:] = x[..., :n]
    return rot_x


def pairs(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d//2"]:
    return x[:, ::2] * x[:, 1::2] + x[:, : x.shape[1] // 2]


def grouped_qkv(n_heads: int, n_kv_heads: int, head_dim: int, d_model: int) -> Tensor:
    groups = n_heads // n_kv_heads
    w = torch.zeros(n_kv_heads, groups + 2, head_dim, d_model)
    return w.reshape((n_heads + 2 * n_kv_heads) * head_dim, d_model)


def dilate(t: Float[Tensor, "bs 1 H W"], kernel_size=3) -> Float[Tensor, "bs 1 H W"]:
    return F.max_pool2d(t, kernel_size=kernel_size, stride=1, padding=(kernel_size - 1) // 2)


def sh_channels(sh: Float[Tensor, "*batch num_samples coeffs"]) -> Tensor:
    return sh.view(*sh.shape[:-1], 3, sh.shape[-1] // 3)


class Up(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(c, c // 2, 2, stride=2)

    def forward(
        self, x: Float[Tensor, "b c h w"], skip: Float[Tensor, "b c//2 2*h 2*w"]
    ) -> Float[Tensor, "b c 2*h 2*w"]:
        return torch.cat([skip, self.up(x)], dim=1)


def patchify(x: Float[Tensor, "b c h w"], p: int) -> Tensor:
    b, c, h, w = x.shape
    return x.reshape(b, c, h // p, p, w // p, p)


def halves(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n//2 2"]:
    return x.reshape(x.shape[0], x.shape[1] // 2, 2)
