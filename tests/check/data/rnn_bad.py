"""Recurrent models with layout slips: batch_first, bidirectional sizes, index dtypes."""
import torch
import torch.nn as nn
from jaxtyping import Float, Int
from torch import Tensor


class SentimentLSTM(nn.Module):
    def __init__(self, vocab: int, embed: int, hidden: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, tokens: Int[Tensor, "b t"]) -> Tensor:
        out, (h, c) = self.lstm(self.embedding(tokens))
        return self.fc(out[:, -1, :])  # E: expected hidden (in_features) [layer]


class TimeMajor(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.rnn = nn.GRU(dim, hidden)
        self.head = nn.Linear(hidden, 3)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b 3"]:
        out, h = self.rnn(x)
        return self.head(h[-1])  # E: axis 0 has size t, expected b [return]


class WrongInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=32, hidden_size=64, batch_first=True)

    def forward(self, x: Float[Tensor, "b t 64"]) -> Tensor:
        out, _ = self.lstm(x)  # E: expected 32 (input_size) [layer]
        return out


def float_tokens(tokens: Float[Tensor, "b t"]) -> Tensor:
    embed = nn.Embedding(1000, 16)
    return embed(tokens)  # E: indices must be an integer tensor [dtype]


def flat_sequence(x: Float[Tensor, "b t d"]) -> Tensor:
    lstm = nn.LSTM(8, 16, batch_first=True)
    out, _ = lstm(x.reshape(-1, 8))  # E: cannot reshape [reshape]
    return out


def missing_time(x: Float[Tensor, "8"]) -> Tensor:
    gru = nn.GRU(8, 16)
    out, _ = gru(x)  # E: GRU expects an input of layout [layer]
    return out
