"""A training configuration with the type slips that surface mid-run, beside a shape bug."""
from dataclasses import dataclass
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


@dataclass
class TrainConfig:
    hidden: int = 128
    lr: float = 1e-3
    epochs: int = 10
    checkpoint: Optional[str] = None


def lr_at(config: TrainConfig, epoch: int) -> float:
    return config.lr * 0.1 ** (epoch // 30)


def checkpoint_path(config: TrainConfig, epoch: int) -> str:
    return config.checkpoint.format(epoch=epoch)  # BUG: checkpoint may be None


def best_epoch(losses: List[float]) -> int:
    best = None
    for i, loss in enumerate(losses):
        if best is None or loss < losses[best]:
            best = i
    return best  # BUG: None when there were no epochs


def step(model: nn.Module, x: Float[Tensor, "b d"], y: Int[Tensor, "b"]) -> Tensor:
    return F.cross_entropy(model(x), y)


def main() -> None:
    config = TrainConfig(hidden="64", epochs=3)  # BUG: a str where an int size is expected
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    losses: List[float] = []
    for epoch in range(config.epochs):
        x, y = torch.randn(32, 20), torch.randint(0, 5, (32, 1))
        losses.append(step(model, x, y).item() * lr_at(config, epoch))  # BUG: labels (32, 1)
    print(checkpoint_path(config, best_epoch(losses)))
