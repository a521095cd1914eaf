"""The twins of remainders_ok.py with a constant changed: different for every size."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def rotate_every_two(x: Float[Tensor, "... rotary_dim"]) -> Float[Tensor, "... rotary_dim"]:
    rot_x = x.clone()
    rot_x[..., ::2] = -x[..., 1::3]  # E: cannot broadcast [broadcast]
    return rot_x


def pairs(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d//2"]:
    return x[:, ::2] * x[:, 1::2] + x[:, : x.shape[1] // 2 + 2]  # E: cannot broadcast


def grouped_qkv(n_heads: int, n_kv_heads: int, head_dim: int, d_model: int) -> Tensor:
    groups = n_heads // n_kv_heads
    w = torch.zeros(n_kv_heads, groups + 1, head_dim, d_model)
    return w.reshape((n_heads + 2 * n_kv_heads) * head_dim, d_model)  # E: cannot reshape


def dilate(t: Float[Tensor, "bs 1 H W"], kernel_size=3) -> Float[Tensor, "bs 1 H W"]:
    return F.max_pool2d(t, kernel_size=kernel_size, stride=1, padding=kernel_size - 1)  # E: return


def sh_channels(sh: Float[Tensor, "*batch num_samples coeffs"]) -> Tensor:
    return sh.view(*sh.shape[:-1], 4, sh.shape[-1] // 3)  # E: cannot reshape


class Up(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(c, c // 3, 2, stride=2)

    def forward(
        self, x: Float[Tensor, "b c h w"], skip: Float[Tensor, "b c//2 2*h 2*w"]
    ) -> Float[Tensor, "b c 2*h 2*w"]:
        return torch.cat([skip, self.up(x)], dim=1)  # E: return


def halves(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n//2 2"]:
    return x.reshape(x.shape[0], x.shape[1] // 2, 3)  # E: not provably equal
