"""A vision transformer's tensor plumbing with slips: patch counts, tokens, positions."""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


def patchify(x: Float[Tensor, "b c h w"], p: int) -> Tensor:
    b, c, h, w = x.shape
    x = x.reshape(b, c, h // p, p, w // p)  # E: cannot reshape [reshape]
    return x


def patchify_checked(x: Float[Tensor, "b c h w"], p: int) -> Float[Tensor, "b h//p*(w//p) p*p*c"]:
    b, c, h, w = x.shape
    assert h % p == 0 and w % p == 0
    x = x.reshape(b, c, h // p, p, w // p, p)
    x = x.permute(0, 2, 4, 3, 5, 1)
    return x.view(b, (h // p) * (w // p), p * p * c)  # E: not contiguous [view]


class ViTHead(nn.Module):
    def __init__(self, dim: int, num_patches: int, classes: int):
        super().__init__()
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.zeros(1, num_patches, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens: Float[Tensor, "b num_patches dim"]) -> Float[Tensor, "b classes"]:
        cls = self.cls.expand(tokens.shape[0], -1, -1)
        x = torch.cat([cls, tokens], dim=1) + self.pos  # E: cannot broadcast [broadcast]
        return self.head(x[:, 0])


def token_grid(x: Float[Tensor, "b n d"], side: int) -> Tensor:
    return x.transpose(1, 2).reshape(x.shape[0], -1, side, side)  # E: cannot reshape [reshape]


def mean_pool(x: Float[Tensor, "b n d"]) -> Float[Tensor, "b d"]:
    return x[:, 1:].mean(dim=2)  # E: return value [return]


def shuffle(x: Float[Tensor, "b c h w"]) -> Tensor:
    return nn.PixelShuffle(2)(x)  # E: PixelShuffle [layer]
