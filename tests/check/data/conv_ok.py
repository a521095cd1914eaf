"""Convolutions, pooling and recurrent layers used with the right layout."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3)
        self.bn = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32 * 14 * 14, 10)

    def forward(self, x: Float[Tensor, "b 3 32 32"]) -> Float[Tensor, "b 10"]:
        x = self.pool(self.conv1(x))
        x = self.bn(self.conv2(x))
        return self.fc(x.flatten(1))


class Up(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 4, kernel_size=2, stride=2)

    def forward(self, x: Float[Tensor, "b 8 h w"]) -> Float[Tensor, "b 4 2*h 2*w"]:
        return self.up(x)


class Tagger(nn.Module):
    def __init__(self, vocab: int, dim: int, hidden: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 5)

    def forward(self, tokens: Int[Tensor, "b t"]) -> Float[Tensor, "b t 5"]:
        x = self.embed(tokens)
        out, _ = self.lstm(x)
        return self.out(out)


class Encoder(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b 2"]:
        out, (h, c) = self.lstm(x)
        return self.head(h[-1])


class Audio(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 4, kernel_size=5, stride=2)

    def forward(self, x: Float[Tensor, "b 1 101"]) -> Float[Tensor, "b 4 49"]:
        return self.conv(x)


def fine() -> None:
    rnn = nn.GRU(input_size=8, hidden_size=16, batch_first=True)
    seq = torch.randn(4, 10, 8)
    out, h = rnn(seq)


def blur(x: Float[Tensor, "b 3 h w"], kernel: Float[Tensor, "3 1 5 5"]) -> Float[Tensor, "b 3 h w"]:
    same = F.conv2d(x, kernel, padding="same", groups=3)
    return F.conv2d(x, kernel, padding=2, groups=3) + same
