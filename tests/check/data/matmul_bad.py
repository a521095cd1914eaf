"""Contractions whose inner sizes differ."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def project(x: Float[Tensor, "b d"], w: Float[Tensor, "e k"]) -> Float[Tensor, "b k"]:
    return x @ w  # E: contracted axes differ [matmul]


def scores(q: Float[Tensor, "b t d"], k: Float[Tensor, "b t d"]) -> Float[Tensor, "b t t"]:
    return torch.bmm(q, k)  # E: contracted axes differ


def gram(a: Float[np.ndarray, "n 3"]) -> Float[np.ndarray, "n n"]:
    return np.dot(a, a)  # E: 3 columns


def fixed() -> None:
    a = torch.randn(8, 16)
    b = torch.randn(32, 4)
    c = torch.mm(a, b)  # E: has 16 columns
    v = torch.ones(5)
    d = torch.dot(v, torch.ones(6))  # E: axis 0 has size 6, expected 5
