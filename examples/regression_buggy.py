"""A regression training loop with silent-broadcast and dtype bugs."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


class Regressor(nn.Module):
    def __init__(self, n_features: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_features, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x: Float[Tensor, "b n_features"]) -> Float[Tensor, "b 1"]:
        return self.body(x)


def step(model: Regressor, x: Float[Tensor, "b f"], y: Float[Tensor, "b"]) -> Tensor:
    pred = model(x)
    return F.mse_loss(pred, y)  # BUG: (b, 1) against (b,) broadcasts to (b, b)


def fit() -> None:
    model = Regressor(13)
    x = torch.from_numpy(np.random.randn(100, 13))
    y = torch.randn(100)
    pred = model.body(x)  # BUG: float64 data into float32 weights
    loss = F.mse_loss(model(x.float()).squeeze(-1), y)
