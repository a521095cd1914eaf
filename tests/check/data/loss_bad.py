"""Loss targets of the wrong shape or dtype."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


def classify(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b 1"]) -> Tensor:
    return F.cross_entropy(logits, labels)  # E: class probabilities, which must be floating


def onehot(logits: Float[Tensor, "b c"], target: Int[Tensor, "b c"]) -> Tensor:
    return F.cross_entropy(logits, target)  # E: must be floating


def regress(pred: Float[Tensor, "b 1"], y: Float[Tensor, "b"]) -> Tensor:
    return F.mse_loss(pred, y)  # E: broadcast to (b, b)


def binary(logits: Float[Tensor, "b"], y: Int[Tensor, "b"]) -> Tensor:
    return F.binary_cross_entropy_with_logits(logits, y)  # E: the target must be floating


class Trainer:
    def __init__(self):
        self.loss = nn.CrossEntropyLoss()

    def step(self, logits: Float[Tensor, "b c"], labels: Float[Tensor, "b"]) -> Tensor:
        return self.loss(logits, labels)  # E: class indices must be integers
