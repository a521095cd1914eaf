"""Recurrent models used with the right layouts: batch_first, bidirectional, states."""
from typing import Optional, Tuple

import torch
import torch.nn as nn
from jaxtyping import Float, Int
from torch import Tensor


class SentimentLSTM(nn.Module):
    def __init__(self, vocab: int, embed: int, hidden: int, layers: int = 2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed, padding_idx=0)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True,
                            bidirectional=True, dropout=0.2)
        self.fc = nn.Linear(2 * hidden, 1)

    def forward(self, tokens: Int[Tensor, "b t"]) -> Float[Tensor, "b"]:
        x = self.embedding(tokens)
        out, (h, c) = self.lstm(x)
        last = torch.cat([h[-2], h[-1]], dim=1)
        return self.fc(last).squeeze(1)


class Seq2SeqEncoder(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.rnn = nn.GRU(dim, hidden)

    def forward(self, src: Float[Tensor, "t b dim"],
                h0: Optional[Float[Tensor, "1 b hidden"]] = None) -> Float[Tensor, "t b hidden"]:
        out, h = self.rnn(src, h0)
        return out


class Tagger(nn.Module):
    def __init__(self, vocab: int, tags: int, dim: int = 64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.proj = nn.Linear(dim, tags)

    def forward(self, tokens: Int[Tensor, "b t"]) -> Float[Tensor, "b t tags"]:
        out, _ = self.lstm(self.embed(tokens))
        return self.proj(out)


class CharRNN(nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.hidden = hidden
        self.cell = nn.LSTM(vocab, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def init_state(self, batch: int) -> Tuple[Tensor, Tensor]:
        return torch.zeros(1, batch, self.hidden), torch.zeros(1, batch, self.hidden)

    def forward(self, x: Float[Tensor, "b t vocab"],
                state: Tuple[Tensor, Tensor]) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
        out, state = self.cell(x, state)
        return self.out(out), state


def last_step(model: Tagger, tokens: Int[Tensor, "b t"]) -> Tensor:
    scores = model(tokens)
    return scores[:, -1, :].argmax(dim=-1)


def unbatched() -> Tensor:
    rnn = nn.RNN(10, 20)
    out, h = rnn(torch.randn(5, 10))
    return out
