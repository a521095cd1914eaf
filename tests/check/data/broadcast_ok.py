"""Broadcasting that works for every size the annotations allow."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def add_bias(x: Float[Tensor, "b n"], bias: Float[Tensor, "n"]) -> Float[Tensor, "b n"]:
    return x + bias


def scale(x: Float[Tensor, "b n"], s: Float[Tensor, "#b 1"]) -> Float[Tensor, "b n"]:
    return x * s


def normalize(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    mean = x.mean(axis=1, keepdims=True)
    std = x.std(axis=1, keepdims=True)
    return (x - mean) / (std + 1e-6)


def outer(a: Float[Tensor, "n"], b: Float[Tensor, "m"]) -> Float[Tensor, "n m"]:
    return a[:, None] * b[None, :]


def masks() -> None:
    a = torch.zeros(4, 3)
    b = torch.ones(3)
    c = a * b + 1.0
    d = np.ones((2, 1)) == np.zeros((1, 5))
