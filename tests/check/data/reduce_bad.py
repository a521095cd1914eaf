"""Reductions: dropped axes, keepdim forgotten, axes out of range."""
import numpy as np
import torch
from jaxtyping import Float
from torch import Tensor


def center(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return x - x.mean(dim=1)  # E: cannot broadcast


def softmax(x: Float[np.ndarray, "b n"]) -> Float[np.ndarray, "b n"]:
    e = np.exp(x - x.max(axis=-1))  # E: cannot broadcast
    return e


def pooled(x: Float[Tensor, "b t d"]) -> Float[Tensor, "b d"]:
    return x.sum(dim=3)  # E: dim 3 is out of range [axis]


def summary(x: Float[Tensor, "b t d"]) -> Float[Tensor, "b d"]:
    return x.mean(dim=2)  # E: return value


def mode_ids(ids: Float[Tensor, "b n n"]) -> Float[Tensor, "b n"]:
    values, _ = ids.mode(dim=-1, keepdim=True)
    return values  # E: return value


def robust_scale(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    return x / np.percentile(x, 95, axis=1)  # E: cannot broadcast


def centered(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return x - x.median(dim=1).values  # E: cannot broadcast


def spread(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    var, mean = torch.var_mean(x, dim=1)
    return (x - mean) / var  # E: cannot broadcast
