"""The bugs of scopes_ok.py: each names a size in one scope where another is meant."""

import torch
from jaxtyping import Bool, Float, Int
from torch import Tensor, nn


class MLP(nn.Module):
    """Two sizes of the instance are compared as any two sizes are."""

    def __init__(self, d_in: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden * 2, 10)

    def forward(self, x: Float[Tensor, "b d_in"]) -> Float[Tensor, "b 10"]:
        return self.fc2(torch.relu(self.fc1(x)))  # E: expected 2*hidden [layer]


class Heads(nn.Module):
    """The transpose is missing: ``head_dim`` and ``t`` are axes of both operands."""

    def __init__(self, dim: int, head_dim: int):
        super().__init__()
        self.q = nn.Linear(dim, head_dim)
        self.k = nn.Linear(dim, head_dim)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t t"]:
        q, k = self.q(x), self.k(x)
        return q @ k  # E: contracted axes differ [matmul]


def loss_function(
    out: Float[Tensor, "batch n_features"] | Float[Tensor, "batch d_embed"],
    labels: Float[Tensor, "batch n_features 1"],
) -> Float[Tensor, "batch n_features"]:
    return (out - labels) ** 2  # E: cannot broadcast [broadcast]


def keep_some(group_ids: Int[Tensor, " N"]) -> Bool[Tensor, " N"]:
    if len(group_ids) == 1:
        return torch.zeros(0, dtype=torch.bool)  # E: return value of keep_some() [return]
    return group_ids > 0


def resolve(path: str) -> str:
    return path


def sweep_file(sweep: str | bool) -> str | None:
    name = "sweep.yaml" if sweep is True else sweep
    return resolve(name)  # E: argument 'path' of resolve() [arg-type]


def total(lens: Int[Tensor, "b n"] | None, mask: Bool[Tensor, "b m"] | None) -> Int[Tensor, " b"]:
    assert lens is not None or mask is not None
    return lens.sum(dim=-1)  # E: lens may be None here [optional]


def gather_rows(
    make: Float[Tensor, "k n_features"], batch_size: int
) -> Float[Tensor, "batch n_features"]:
    batch = torch.empty(0)
    while True:
        rows = make[make.sum(dim=-1) != 0]
        batch = torch.cat((batch, rows[:batch_size].sum(dim=0)))
        if len(batch) == batch_size:
            break
    return batch  # E: has rank 1, expected rank 2 [return]
