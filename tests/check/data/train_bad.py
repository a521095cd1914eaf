"""A training script with the bugs that reach the first batch: targets, dtypes, shapes."""
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


@dataclass
class Config:
    lr: float = 1e-3
    epochs: int = 10
    hidden: int = 128
    checkpoint: Optional[str] = None


class MLP(nn.Module):
    def __init__(self, d_in: int, hidden: int, num_classes: int):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, x: Float[Tensor, "b d_in"]) -> Float[Tensor, "b num_classes"]:
        return self.fc2(F.relu(self.fc1(x)))


def accuracy(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b"]) -> Tensor:
    preds = logits.argmax(dim=0)
    return (preds == labels).float().mean()  # E: cannot broadcast [broadcast]


def binary_step(scores: Float[Tensor, "b 1"], targets: Float[Tensor, "b"]) -> Tensor:
    return F.binary_cross_entropy_with_logits(scores, targets)  # E: must have the input's shape [loss]


def regression_step(pred: Float[Tensor, "b 1"], y: Float[Tensor, "b"]) -> Tensor:
    return F.mse_loss(pred, y)  # E: almost surely not intended [loss]


def sequence_loss(logits: Float[Tensor, "b t v"], targets: Int[Tensor, "b t"]) -> Tensor:
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets)  # E: target targets (b, t) [loss]


def float_labels(logits: Float[Tensor, "b c"], labels: Float[Tensor, "b"]) -> Tensor:
    return F.nll_loss(F.log_softmax(logits, dim=1), labels)  # E: class indices must be integers [loss]


def int_inputs(tokens: Int[Tensor, "b d"]) -> Tensor:
    layer = nn.Linear(16, 4)
    return layer(tokens)  # E: the layer's weights are float32 [dtype]


def double_data() -> Tensor:
    head = nn.Linear(20, 1)
    data = torch.tensor(np.random.rand(32, 20))
    return head(data)  # E: input data has dtype float64 but the layer's weights are float32 [dtype]


def wrong_width() -> Tensor:
    model = MLP(20, 64, 10)
    x = torch.randn(32, 30)
    return model(x)  # E: expected 20 (d_in) [arg-type]


def summary(history: List[float]) -> Tuple[float, float]:
    best = min(history)
    return best  # E: return value of summary() is float, expected Tuple[float, float] [return]


def run(config: Config) -> None:
    model = MLP(20, config.hidden, "10")  # E: argument 'num_classes' of MLP.__init__() is str, expected int [arg-type]
    path: str = config.checkpoint  # E: may be None [optional]
    steps: int = config.epochs * 2.5  # E: value assigned to steps is float, expected int [assign]
