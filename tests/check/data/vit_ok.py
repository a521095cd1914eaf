"""A vision transformer's tensor plumbing: patches, class token, positions, pooling."""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class PatchEmbed(nn.Module):
    def __init__(self, image: int, patch: int, dim: int, channels: int = 3):
        super().__init__()
        assert image % patch == 0
        self.patch = patch
        self.grid = image // patch
        self.proj = nn.Conv2d(channels, dim, kernel_size=patch, stride=patch)

    def forward(self, x: Float[Tensor, "b channels h w"]) -> Tensor:
        x = self.proj(x)
        return x.flatten(2).transpose(1, 2)


def patchify(x: Float[Tensor, "b c h w"], p: int) -> Float[Tensor, "b h//p*(w//p) p*p*c"]:
    b, c, h, w = x.shape
    assert h % p == 0 and w % p == 0
    x = x.reshape(b, c, h // p, p, w // p, p)
    x = x.permute(0, 2, 4, 3, 5, 1)
    return x.reshape(b, (h // p) * (w // p), p * p * c)


def unpatchify(x: Float[Tensor, "b gh*gw p*p*c"], p: int, c: int, gh: int, gw: int) -> Tensor:
    b = x.shape[0]
    x = x.reshape(b, gh, gw, p, p, c)
    x = x.permute(0, 5, 1, 3, 2, 4)
    return x.reshape(b, c, gh * p, gw * p)


class ViTHead(nn.Module):
    def __init__(self, dim: int, num_patches: int, classes: int):
        super().__init__()
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.zeros(1, num_patches + 1, dim))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens: Float[Tensor, "b num_patches dim"]) -> Float[Tensor, "b classes"]:
        cls = self.cls.expand(tokens.shape[0], -1, -1)
        x = torch.cat([cls, tokens], dim=1) + self.pos
        x = self.norm(x)
        return self.head(x[:, 0])


def mean_pool(x: Float[Tensor, "b n d"]) -> Float[Tensor, "b d"]:
    return x[:, 1:].mean(dim=1)


def windows(x: Float[Tensor, "b h w c"], ws: int) -> Tensor:
    b, h, w, c = x.shape
    assert h % ws == 0 and w % ws == 0
    x = x.view(b, h // ws, ws, w // ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws * ws, c)


def pixel_shuffle(x: Float[Tensor, "b c*4 h w"]) -> Float[Tensor, "b c 2*h 2*w"]:
    return nn.PixelShuffle(2)(x)
