"""Reductions used with the right axes and keepdim."""
import numpy as np
import torch
from jaxtyping import Float, Int
from torch import Tensor


def center(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return x - x.mean(dim=1, keepdim=True)


def softmax(x: Float[np.ndarray, "b n"]) -> Float[np.ndarray, "b n"]:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def pooled(x: Float[Tensor, "b t d"]) -> Float[Tensor, "b d"]:
    return x.sum(dim=1)


def best(x: Float[Tensor, "b c"]) -> Int[Tensor, "b"]:
    values, indices = x.max(dim=1)
    return indices


def total(x: Float[Tensor, "b t d"]) -> Float[Tensor, ""]:
    return x.sum()
