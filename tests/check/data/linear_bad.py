"""Linear layers fed the wrong feature size."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


class MLP(nn.Module):
    def __init__(self, d_in: int, d_hidden: int, n_classes: int):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_in, n_classes)

    def forward(self, x: Float[Tensor, "b d_in"]) -> Float[Tensor, "b n_classes"]:
        h = F.relu(self.fc1(x))
        return self.fc2(h)  # E: expected d_in (in_features) [layer]


class Fixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x: Float[Tensor, "b 784"]) -> Float[Tensor, "b 10"]:
        return self.net(x)  # E: has size 256, expected 128


def main() -> None:
    model = MLP(784, 128, 10)
    x = torch.randn(32, 100)
    y = model(x)  # E: expected 784 (d_in) [arg-type]
