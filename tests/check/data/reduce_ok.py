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


def mode_ids(ids: Float[Tensor, "b n n"]) -> Float[Tensor, "b n"]:
    values, _ = ids.mode(dim=-1)
    last, _ = ids.mode()
    kth, _ = torch.kthvalue(ids, 2)
    return values + last + kth


def robust_scale(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    bands = np.percentile(x, np.array([5.0, 95.0]), axis=1)  # a leading axis per q
    return x / np.percentile(x, 95, axis=1, keepdims=True) + bands.mean()


def centered(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    low, high = torch.aminmax(x, dim=1, keepdim=True)
    return (x - x.median(dim=1, keepdim=True).values) / (high - low) * x.median()


def spread(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    var, mean = torch.var_mean(x, dim=1, keepdim=True)
    running, where = x.cummax(dim=1)
    return (x - mean) / var + running * torch.quantile(x, 0.5, dim=1, keepdim=True)
