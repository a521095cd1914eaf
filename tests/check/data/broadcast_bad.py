"""Elementwise operations on arrays that do not broadcast."""
import numpy as np
import torch
from jaxtyping import Float, Int
from torch import Tensor


def add_bias(x: Float[Tensor, "b n"], bias: Float[Tensor, "m"]) -> Float[Tensor, "b n"]:
    return x + bias  # E: cannot broadcast


def normalize(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    mean = x.mean(axis=1)
    return x - mean  # E: axis -1 has sizes d and n


def masks() -> None:
    a = torch.zeros(4, 3)
    b = torch.ones(4)
    c = a * b  # E: axis -1 has sizes 3 and 4
    d = np.ones((2, 5)) == np.zeros((5, 2))  # E: cannot broadcast


def pick(pos: Float[Tensor, "b a d"], i: Int[Tensor, "k"], j: Int[Tensor, "m"]):
    return pos[i, j]  # E: cannot broadcast index 0 of pos (k,) with index 1 of pos (m,) [broadcast]
