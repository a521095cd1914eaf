"""cat/stack of arrays that disagree off the joined axis."""
import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
from jaxtyping import Float
from torch import Tensor


def join(a: Float[Tensor, "b n"], b: Float[Tensor, "c m"]) -> Float[Tensor, "b n+m"]:
    return torch.cat([a, b], dim=1)  # E: differ on axis 0


def pair(a: Float[Tensor, "n"], b: Float[Tensor, "m"]) -> Float[Tensor, "2 n"]:
    return torch.stack([a, b])  # E: same shape


def fixed() -> None:
    x = np.zeros((3, 4))
    y = np.zeros((3, 5))
    z = np.concatenate([x, y], axis=0)  # E: differ on axis 1
    w = np.concatenate([x, y], axis=2)  # E: out of range


def with_unknown(a: Float[Tensor, "b n"], rows: Float[Tensor, "b"], other) -> None:
    # An item of unknown shape leaves the joined axis unknown, not the others.
    joined = torch.cat((a, other), dim=1)
    joined + a.T  # E: cannot broadcast
    torch.multinomial(torch.softmax(a, dim=-1), 2) + rows  # E: cannot broadcast


def padded(a: Float[Tensor, "n 3"], b: Float[Tensor, "m 4"]) -> Tensor:
    return pad_sequence([a, b], batch_first=True)  # E: only the first axis, the length, may differ [concat]


def batch_of_rows(rows: Float[Tensor, "b n d"]) -> Float[Tensor, "n b d"]:
    return pad_sequence([r for r in rows], batch_first=True)  # E: [return]
