"""A training configuration and the loop that reads it: the type rules beside the shapes."""
from dataclasses import dataclass, field
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
    milestones: List[int] = field(default_factory=list)
    checkpoint: Optional[str] = None


def lr_at(config: TrainConfig, epoch: int) -> float:
    drops = sum(1 for m in config.milestones if epoch >= m)
    return config.lr * 0.1 ** drops


def checkpoint_path(config: TrainConfig, epoch: int) -> str:
    if config.checkpoint is None:
        return f"epoch{epoch}.pt"
    return config.checkpoint.format(epoch=epoch)


def best_epoch(losses: List[float]) -> Optional[int]:
    best = None
    for i, loss in enumerate(losses):
        if best is None or loss < losses[best]:
            best = i
    return best


def step(model: nn.Module, x: Float[Tensor, "b d"], y: Int[Tensor, "b"]) -> Tensor:
    return F.cross_entropy(model(x), y)


def main() -> None:
    config = TrainConfig(hidden=64, epochs=3)
    model = nn.Sequential(nn.Linear(20, config.hidden), nn.ReLU(), nn.Linear(config.hidden, 5))
    losses: List[float] = []
    for epoch in range(config.epochs):
        x, y = torch.randn(32, 20), torch.randint(0, 5, (32,))
        losses.append(step(model, x, y).item() * lr_at(config, epoch))
    print(checkpoint_path(config, best_epoch(losses) or 0))
