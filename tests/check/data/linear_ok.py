"""Linear layers used with the sizes they were built for."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


class MLP(nn.Module):
    def __init__(self, d_in: int, d_hidden: int, n_classes: int):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, n_classes)
        self.drop = nn.Dropout(0.1)

    def forward(self, x: Float[Tensor, "b d_in"]) -> Float[Tensor, "b n_classes"]:
        h = self.drop(F.relu(self.fc1(x)))
        return self.fc2(h)


class Fixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x: Float[Tensor, "b 784"]) -> Float[Tensor, "b 10"]:
        return self.net(x)


class Tokens(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, 4 * dim)
        self.back = nn.Linear(4 * dim, dim)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t dim"]:
        return x + self.back(F.gelu(self.proj(x)))


def main() -> None:
    model = MLP(784, 128, 10)
    x = torch.randn(32, 784)
    y = model(x)
    print(y.shape)
