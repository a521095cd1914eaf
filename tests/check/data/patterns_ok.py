"""Shape patterns that must stay silent: *batch, ..., #, loops, rank-changing branches."""
import einops
import numpy as np
import torch
import torch.nn as nn
from jaxtyping import Float, Int
from torch import Tensor


def maybe_batch(x: Tensor) -> Tensor:
    if x.dim() == 3:
        x = x.unsqueeze(0)
    return x.flatten(1)


def variadic(x: Float[Tensor, "*batch d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "*batch k"]:
    y = x @ w
    return y


def ell(x: Float[Tensor, "... d"]) -> Float[Tensor, "..."]:
    return x.sum(-1)


def linear_any(x: Float[Tensor, "*b 16"]) -> Float[Tensor, "*b 4"]:
    layer = nn.Linear(16, 4)
    return layer(x)


def newaxis(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n 1"]:
    return x[:, np.newaxis]


def hashed(x: Float[Tensor, "#b n"], y: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return x + y


def loop_shapes(xs: Float[Tensor, "t b d"]) -> Tensor:
    h = torch.zeros(xs.shape[1], xs.shape[2])
    outs = []
    for x in xs:
        h = torch.tanh(h + x)
        outs.append(h)
    return torch.stack(outs)


def cond_shape(x: Float[Tensor, "b d"], flag: bool) -> Tensor:
    if flag:
        y = x.sum(0)
    else:
        y = x.mean(0)
    return y + x


def while_loop(n: int) -> int:
    i = 0
    while i < n:
        i += 1
    return i


def tuple_ret(x: Float[Tensor, "b d"]) -> tuple:
    return x.shape


def int_size(x: Float[Tensor, "b d"]) -> int:
    return x.shape[0] * x.size(1)


def size_arith(x: Float[Tensor, "b 2*d"]) -> Float[Tensor, "b d"]:
    d = x.shape[1] // 2
    return x[:, :d] + x[:, d:]


def chunked(x: Float[Tensor, "b 2*d"]) -> Float[Tensor, "b d"]:
    a, b = x.chunk(2, dim=-1)
    return a * torch.sigmoid(b)


def split_eq(x: Float[Tensor, "b 3*d"]) -> Float[Tensor, "b d"]:
    q, k, v = torch.split(x, x.shape[1] // 3, dim=1)
    return q + k + v


def permuted(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b h w c"]:
    return x.permute(0, 2, 3, 1).contiguous()


def numpy_T(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "d d"]:
    return x.T.dot(x)


def zeros_like_shape(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
    out = torch.zeros(x.shape)
    out[:, 0] = x[:, 0]
    return out


def new_full(x: Float[Tensor, "b d"]) -> Tensor:
    return x.new_zeros(x.shape[0], 1)


def expand_as(x: Float[Tensor, "b 1"], y: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
    return x.expand_as(y) + y


def count_edits(tokens: Int[Tensor, "seq tok"]) -> Int[Tensor, "seq"]:
    # A sum of bools is an int array.
    return einops.reduce(tokens[0, :] != tokens, "seq tok -> seq", "sum")


def first_rows(x: Float[Tensor, "n 3"], k: int) -> Float[Tensor, "1 3"]:
    for i in range(k):
        return x[i:i + 1]  # i unknown: the size is not taken as n
    return x[:1]
