"""Correct contractions, including batch broadcasting and transposes."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def project(x: Float[Tensor, "b d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "b k"]:
    return x @ w


def scores(q: Float[Tensor, "b t d"], k: Float[Tensor, "b t d"]) -> Float[Tensor, "b t t"]:
    return torch.bmm(q, k.transpose(1, 2)) / q.shape[-1] ** 0.5


def batched(x: Float[Tensor, "*batch n k"], w: Float[Tensor, "k m"]) -> Float[Tensor, "*batch n m"]:
    return torch.matmul(x, w)


def gram(a: Float[np.ndarray, "n 3"]) -> Float[np.ndarray, "n n"]:
    return np.dot(a, a.T)


def vector(a: Float[np.ndarray, "n m"], v: Float[np.ndarray, "m"]) -> Float[np.ndarray, "n"]:
    return a @ v


def fixed() -> None:
    a = torch.randn(8, 16)
    b = torch.randn(16, 4)
    c = torch.mm(a, b)
    assert c.shape == (8, 4)
