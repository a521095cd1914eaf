"""An LSTM part-of-speech tagger (correct)."""
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
        self.out = nn.Linear(2 * hidden, n_tags)

    def forward(self, tokens: Int[Tensor, "b t"]) -> Float[Tensor, "b t n_tags"]:
        states, _ = self.lstm(self.embed(tokens))
        return self.out(states)


def tag_loss(scores: Float[Tensor, "b t c"], tags: Int[Tensor, "b t"]) -> Tensor:
    return F.cross_entropy(scores.transpose(1, 2), tags)


def main() -> None:
    model = Tagger(vocab=5000, n_tags=17)
    tokens = torch.randint(1, 5000, (8, 20))
    tags = torch.randint(0, 17, (8, 20))
    print(tag_loss(model(tokens), tags).item())
