"""Generative models with the usual slips: upsampling arithmetic, flattened sizes, latents."""
from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


class VAE(nn.Module):
    def __init__(self, d_in: int = 784, hidden: int = 400, latent: int = 20):
        super().__init__()
        self.enc = nn.Linear(d_in, hidden)
        self.mu = nn.Linear(hidden, latent)
        self.dec = nn.Linear(hidden, d_in)

    def forward(self, x: Float[Tensor, "b d_in"]) -> Float[Tensor, "b d_in"]:
        z = self.mu(F.relu(self.enc(x)))
        return torch.sigmoid(self.dec(z))  # E: expected hidden (in_features) [layer]


def vae_loss(recon: Float[Tensor, "b 784"], x: Float[Tensor, "b 1 28 28"]) -> Tensor:
    return F.binary_cross_entropy(recon, x)  # E: must have the input's shape [loss]


class Generator(nn.Module):
    def __init__(self, z_dim: int = 100):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(z_dim, 128, 7, 1, 0), nn.ReLU(True),
            nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.ReLU(True),
            nn.ConvTranspose2d(64, 1, 4, 2, 1), nn.Tanh(),
        )

    def forward(self, z: Float[Tensor, "b z_dim"]) -> Float[Tensor, "b 1 32 32"]:
        return self.net(z.view(z.shape[0], -1, 1, 1))  # E: return value [return]


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 64, 4, 2, 1), nn.LeakyReLU(0.2),
                                      nn.Conv2d(64, 128, 4, 2, 1), nn.LeakyReLU(0.2))
        self.head = nn.Linear(128 * 8 * 8, 1)

    def forward(self, x: Float[Tensor, "b 1 28 28"]) -> Float[Tensor, "b 1"]:
        h = self.features(x).flatten(1)
        return self.head(h)  # E: has size 6272, expected 8192 [layer]


def noise_level(x0: Float[Tensor, "b c h w"], alphas: Float[Tensor, "T"],
                t: Int[Tensor, "b"]) -> Tensor:
    a = alphas[t]
    return a.sqrt() * x0  # E: cannot broadcast [broadcast]


def gan_loss(d_fake: Float[Tensor, "b 1"]) -> Tensor:
    target = torch.ones(d_fake.shape[0])
    return F.binary_cross_entropy_with_logits(d_fake, target)  # E: must have the input's shape [loss]
