"""Generative models as people write them: a VAE, a GAN pair, timestep embeddings."""
import math
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
        self.logvar = nn.Linear(hidden, latent)
        self.dec1 = nn.Linear(latent, hidden)
        self.dec2 = nn.Linear(hidden, d_in)

    def encode(self, x: Float[Tensor, "b d_in"]) -> Tuple[Tensor, Tensor]:
        h = F.relu(self.enc(x))
        return self.mu(h), self.logvar(h)

    def reparameterize(self, mu: Float[Tensor, "b latent"],
                       logvar: Float[Tensor, "b latent"]) -> Float[Tensor, "b latent"]:
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z: Float[Tensor, "b latent"]) -> Float[Tensor, "b d_in"]:
        return torch.sigmoid(self.dec2(F.relu(self.dec1(z))))

    def forward(self, x: Float[Tensor, "b 1 28 28"]) -> Tuple[Tensor, Tensor, Tensor]:
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def vae_loss(recon: Float[Tensor, "b d"], x: Float[Tensor, "b d"],
             mu: Float[Tensor, "b z"], logvar: Float[Tensor, "b z"]) -> Tensor:
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


class Generator(nn.Module):
    def __init__(self, z_dim: int = 100, channels: int = 1):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(z_dim, 128, 7, 1, 0), nn.BatchNorm2d(128), nn.ReLU(True),
            nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.BatchNorm2d(64), nn.ReLU(True),
            nn.ConvTranspose2d(64, channels, 4, 2, 1), nn.Tanh(),
        )

    def forward(self, z: Float[Tensor, "b z_dim"]) -> Float[Tensor, "b channels 28 28"]:
        return self.net(z.view(z.shape[0], -1, 1, 1))


class Discriminator(nn.Module):
    def __init__(self, channels: int = 1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels, 64, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(64, 128, 4, 2, 1), nn.BatchNorm2d(128), nn.LeakyReLU(0.2),
            nn.Flatten(), nn.Linear(128 * 7 * 7, 1),
        )

    def forward(self, x: Float[Tensor, "b channels 28 28"]) -> Float[Tensor, "b 1"]:
        return self.net(x)


def gan_losses(d_real: Float[Tensor, "b 1"], d_fake: Float[Tensor, "b 1"]) -> Tuple[Tensor, Tensor]:
    ones = torch.ones_like(d_real)
    zeros = torch.zeros_like(d_fake)
    d_loss = F.binary_cross_entropy_with_logits(d_real, ones) + \
        F.binary_cross_entropy_with_logits(d_fake, zeros)
    g_loss = F.binary_cross_entropy_with_logits(d_fake, ones)
    return d_loss, g_loss


def timestep_embedding(t: Int[Tensor, "b"], dim: int, max_period: int = 10000) -> Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        emb = torch.cat([emb, torch.zeros_like(emb[:, :1])], dim=-1)
    return emb


def add_noise(x0: Float[Tensor, "b c h w"], noise: Float[Tensor, "b c h w"],
              alphas: Float[Tensor, "T"], t: Int[Tensor, "b"]) -> Float[Tensor, "b c h w"]:
    a = alphas[t].view(-1, 1, 1, 1)
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def sample_pairs() -> None:
    gen, disc = Generator(), Discriminator()
    z = torch.randn(16, 100)
    fake = gen(z)
    score = disc(fake)
    model = VAE()
    recon, mu, logvar = model(torch.rand(8, 1, 28, 28))
