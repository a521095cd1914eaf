"""An LSTM tagger with layout bugs."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


class Tagger(nn.Module):
    def __init__(self, vocab: int, n_tags: int, dim: int = 64, hidden: int = 128):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(hidden, n_tags)

    def forward(self, tokens: Int[Tensor, "b t"]) -> Float[Tensor, "b t n_tags"]:
        states, _ = self.lstm(self.embed(tokens))
        return self.out(states)  # BUG: a bidirectional LSTM gives 2*hidden features


def tag_loss(scores: Float[Tensor, "b t c"], tags: Int[Tensor, "b t"]) -> Tensor:
    return F.cross_entropy(scores, tags)  # BUG: classes must be axis 1: (b, c, t)


def main() -> None:
    model = Tagger(vocab=5000, n_tags=17)
    tokens = torch.randn(8, 20)
    scores = model(tokens)  # BUG: token ids must be integers
