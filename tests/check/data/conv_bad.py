"""Convolutions and recurrent layers fed the wrong layout."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(32, 64, kernel_size=3)
        self.fc = nn.Linear(64 * 6 * 6, 10)

    def forward(self, x: Float[Tensor, "b 3 32 32"]) -> Float[Tensor, "b 10"]:
        x = self.pool(self.conv1(x))
        x = self.conv2(x)  # E: axis 1 has size 16, expected 32
        return self.fc(x.flatten(1))


class Flat(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3)

    def forward(self, x: Float[Tensor, "b 784"]) -> Float[Tensor, "b 8 26 26"]:
        return self.conv(x)  # E: Conv2d expects an input of layout


class Tagger(nn.Module):
    def __init__(self, vocab: int, dim: int, hidden: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden)
        self.out = nn.Linear(hidden, 5)

    def forward(self, tokens: Float[Tensor, "b t"]) -> Float[Tensor, "b 5"]:
        x = self.embed(tokens)  # E: indices must be an integer tensor
        return self.out(x)  # E: expected hidden (in_features) [layer]


class Encoder(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b 2"]:
        out, (h, c) = self.lstm(x)
        return self.head(h)  # E: return value


def mismatch() -> None:
    rnn = nn.GRU(input_size=8, hidden_size=16, batch_first=True)
    seq = torch.randn(4, 10, 12)
    out, h = rnn(seq)  # E: axis 2 has size 12, expected 8


def blur(x: Float[Tensor, "b 3 h w"], kernel: Float[Tensor, "3 3 5 5"]) -> Tensor:
    # the functional form: the weight is (out_channels, in_channels / groups, *kernel)
    return F.conv2d(x, kernel, padding=2, groups=3)  # E: Conv2d: x (b, 3, h, w) axis 1 has size 3, expected 9 [layer]
