"""An MNIST classifier with the bugs people write on their first day."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


class MLP(nn.Module):
    def __init__(self, hidden: int = 256, n_classes: int = 10):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(28 * 28, hidden)
        self.fc2 = nn.Linear(hidden, hidden // 2)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, images: Float[Tensor, "b 1 28 28"]) -> Float[Tensor, "b n_classes"]:
        x = self.flatten(images)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.out(x)  # BUG: fc2 gives hidden//2 features, out expects hidden


def loss_fn(logits: Float[Tensor, "b 10"], labels: Int[Tensor, "b 1"]) -> Tensor:
    return F.cross_entropy(logits, labels)  # BUG: labels need shape (b,), not (b, 1)


def accuracy(logits: Float[Tensor, "b 10"], labels: Int[Tensor, "b"]) -> Tensor:
    predictions = logits.argmax(dim=1)
    return (predictions == labels).float().mean()


def main() -> None:
    model = MLP()
    images = np.random.rand(64, 1, 28, 28)
    batch = torch.from_numpy(images)
    logits = model.fc1(batch.reshape(64, -1))  # BUG: float64 input, float32 weights
    labels = torch.randint(0, 10, (64,))
    print(accuracy(model(batch.float()), labels))
