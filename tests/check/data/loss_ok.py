"""Loss functions with the targets they take."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


def classify(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b 1"]) -> Tensor:
    return F.cross_entropy(logits, labels.squeeze(1))


def soft(logits: Float[Tensor, "b c"], target: Float[Tensor, "b c"]) -> Tensor:
    return F.cross_entropy(logits, target)


def regress(pred: Float[Tensor, "b 1"], y: Float[Tensor, "b"]) -> Tensor:
    return F.mse_loss(pred.squeeze(-1), y)


def binary(logits: Float[Tensor, "b"], y: Int[Tensor, "b"]) -> Tensor:
    return F.binary_cross_entropy_with_logits(logits, y.float())


def per_token(logits: Float[Tensor, "b c t"], labels: Int[Tensor, "b t"]) -> Float[Tensor, "b t"]:
    return F.cross_entropy(logits, labels, reduction="none")


class Trainer:
    def __init__(self):
        self.loss = nn.CrossEntropyLoss()

    def step(self, logits: Float[Tensor, "b c"], labels: Float[Tensor, "b"]) -> Tensor:
        return self.loss(logits, labels.long())
