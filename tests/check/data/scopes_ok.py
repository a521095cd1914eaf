"""Names of sizes in scopes of their own, unions of arrays, paths a check or a loop decides.

Each function is correct; its twin in scopes_bad.py has the bug people write.
"""

import einops
import torch
from jaxtyping import Bool, Float, Int
from torch import Tensor, nn


class ParallelLinear(nn.Module):
    """The instance is built with input_dim; forward names the same axis d_in."""

    def __init__(self, C: int, input_dim: int, output_dim: int):
        super().__init__()
        self.W = nn.Parameter(torch.empty(C, input_dim, output_dim))
        self.b = nn.Parameter(torch.zeros(C, output_dim))

    def forward(self, x: Float[Tensor, "... C d_in"]) -> Float[Tensor, "... C d_out"]:
        return einops.einsum(x, self.W, "... C d_in, C d_in d_out -> ... C d_out") + self.b


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x: Float[Tensor, "... dim"]) -> Float[Tensor, "... dim"]:
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


class Components(nn.Module):
    def __init__(self, C: int, v_dim: int, u_dim: int):
        super().__init__()
        self.V = nn.Parameter(torch.empty(v_dim, C))
        self.U = nn.Parameter(torch.empty(C, u_dim))


class LinearComponents(Components):
    bias: Float[Tensor, "... d_out"] | None

    def __init__(self, C: int, d_in: int, d_out: int, bias: Tensor | None = None):
        super().__init__(C, v_dim=d_in, u_dim=d_out)
        self.register_buffer("bias", bias)

    def forward(self, x: Float[Tensor, "... d_in"]) -> Float[Tensor, "... d_out"]:
        out = x @ self.V @ self.U
        if self.bias is not None:
            out = out + self.bias
        return out


class Heads(nn.Module):
    def __init__(self, dim: int, head_dim: int):
        super().__init__()
        self.head_dim = head_dim
        self.q = nn.Linear(dim, head_dim)
        self.k = nn.Linear(dim, head_dim)

    def forward(self, x: Float[Tensor, "b t dim"]) -> Float[Tensor, "b t t"]:
        q, k = self.q(x), self.k(x)
        return q @ k.transpose(-2, -1)


def loss_function(
    out: Float[Tensor, "batch n_features"] | Float[Tensor, "batch d_embed"],
    labels: Float[Tensor, "batch n_features"],
    readoff: bool,
) -> Float[Tensor, "batch n_features"] | Float[Tensor, "batch d_embed"]:
    if readoff:
        return (out - labels) ** 2
    return out


def keep_some(group_ids: Int[Tensor, " N"]) -> Bool[Tensor, " N"]:
    if len(group_ids) == 0:
        return torch.zeros(0, dtype=torch.bool)
    return group_ids > 0


def first_columns(x: Float[Tensor, "n m"]) -> Float[Tensor, "n 3"]:
    if x.shape[1] == 3:
        return x
    return x[:, :3]


def resolve(path: str) -> str:
    return path


def sweep_file(sweep: str | bool) -> str | None:
    if sweep is False:
        return None
    name = "sweep.yaml" if sweep is True else sweep
    return resolve(name)


def exists(v) -> bool:
    return v is not None


def total(lens: Int[Tensor, "b n"], mask: Bool[Tensor, "b m"] | None = None) -> Int[Tensor, " b"]:
    assert exists(lens) or exists(mask)
    return lens.sum(dim=-1)


def gather_rows(
    make: Float[Tensor, "k n_features"], batch_size: int
) -> Float[Tensor, "batch n_features"]:
    batch = torch.empty(0)
    while True:
        rows = make[make.sum(dim=-1) != 0]
        batch = torch.cat((batch, rows[:batch_size]))
        if len(batch) == batch_size:
            break
    return batch


def pair_score(a: Float[Tensor, "b m"] | Float[Tensor, " m"]) -> Float[Tensor, " b"]:
    return a.mean(dim=-1)


def scores(weights: Float[Tensor, " b"], coords: Float[Tensor, "b m"]) -> Float[Tensor, " b"]:
    for i in range(weights.shape[0]):
        weights[i] = pair_score(coords[i])  # one sample: b of the result is not bound
    return weights


def repeat_tokens(
    feats: Float[Tensor, "b n ..."] | Int[Tensor, "b n"], lens: Int[Tensor, "b n"]
) -> Float[Tensor, "b m ..."] | Int[Tensor, "b m"]:
    keep = lens > 0
    return feats[keep]


def add_atom_features(
    single: Float[Tensor, "b n d"], lens: Int[Tensor, "b n"], atoms: Float[Tensor, "b m d"]
) -> Tensor:
    # one of two layouts, a float one or an int one: the int one fails, the float one may not
    return repeat_tokens(single, lens) + atoms
