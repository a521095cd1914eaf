"""Dtype slips: mixed precision products, float labels, integer inputs, float indices."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Bool, Float, Float16, Float32, Int
from torch import Tensor


def half_matmul(a: Float16[Tensor, "n k"], b: Float32[Tensor, "k m"]) -> Tensor:
    return a @ b  # E: operands have different dtypes [dtype]


def bmm_mixed(a: Float32[Tensor, "b n k"], b: Float[Tensor, "b k m"]) -> Tensor:
    return torch.bmm(a, b.double())  # E: operands have different dtypes [dtype]


def embed_floats(x: Float[Tensor, "b t"]) -> Tensor:
    table = nn.Embedding(100, 8)
    return table(x)  # E: indices must be an integer tensor [dtype]


def take(x: Float[Tensor, "n d"], idx: Float[Tensor, "k"]) -> Tensor:
    return x.index_select(0, idx)  # E: the index must be an integer tensor [dtype]


def accumulate(counts: Int[np.ndarray, "n"], w: Float[np.ndarray, "n"]) -> None:
    counts *= w  # E: cannot be cast back [dtype]


def mean_of_ints(x: Int[Tensor, "n"]) -> Tensor:
    return x.mean()  # E: needs a floating-point input [dtype]


def softmax_ints(x: Int[Tensor, "b c"]) -> Tensor:
    return F.softmax(x, dim=-1)  # E: needs a floating-point input [dtype]


def one_hot_floats(labels: Float[Tensor, "b"]) -> Tensor:
    return F.one_hot(labels, 10)  # E: class values must be an integer tensor [dtype]


def int_model(x: Int[np.ndarray, "b 4"]) -> Tensor:
    layer = nn.Linear(4, 2)
    return layer(torch.from_numpy(x))  # E: the layer's weights are float32 [dtype]


def half_layer(x: Float32[Tensor, "b 4"]) -> Tensor:
    layer = nn.Linear(4, 2).half()
    return layer(x)  # E: the layer's weights are float16 [dtype]


def float_mask(x: Float[Tensor, "n"], weights: Float[Tensor, "n"]) -> Tensor:
    return x.masked_fill(weights, 0.0)  # E: the mask must be a bool tensor [dtype]


def bce_int(logits: Float[Tensor, "b"], y: Int[Tensor, "b"]) -> Tensor:
    return F.binary_cross_entropy_with_logits(logits, y)  # E: the target must be floating [loss]
