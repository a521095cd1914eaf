"""NumPy data processing as people write it: statistics, distances, one-hot, masks."""
from typing import List, Tuple

import numpy as np
from jaxtyping import Bool, Float, Int


def standardize(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-8
    return (x - mean) / std


def normalize_rows(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def covariance(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "d d"]:
    centered = x - x.mean(axis=0, keepdims=True)
    return centered.T @ centered / (x.shape[0] - 1)


def pairwise_sq_dists(a: Float[np.ndarray, "n d"],
                      b: Float[np.ndarray, "m d"]) -> Float[np.ndarray, "n m"]:
    aa = (a ** 2).sum(axis=1)[:, None]
    bb = (b ** 2).sum(axis=1)[None, :]
    return aa + bb - 2 * a @ b.T


def one_hot(labels: Int[np.ndarray, "n"], classes: int) -> Float[np.ndarray, "n classes"]:
    return np.eye(classes)[labels]


def softmax(logits: Float[np.ndarray, "n k"]) -> Float[np.ndarray, "n k"]:
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=1, keepdims=True)


def accuracy(probs: Float[np.ndarray, "n k"], labels: Int[np.ndarray, "n"]) -> float:
    return float((probs.argmax(axis=1) == labels).mean())


def linear_regression(x: Float[np.ndarray, "n d"], y: Float[np.ndarray, "n"]) -> Float[np.ndarray, "d"]:
    xtx = x.T @ x + 1e-3 * np.eye(x.shape[1])
    return np.linalg.solve(xtx, x.T @ y)


def add_bias(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d+1"]:
    ones = np.ones((x.shape[0], 1))
    return np.concatenate([x, ones], axis=1)


def split_train_test(x: Float[np.ndarray, "n d"], frac: float = 0.8) -> Tuple[np.ndarray, np.ndarray]:
    cut = int(len(x) * frac)
    return x[:cut], x[cut:]


def filter_outliers(x: Float[np.ndarray, "n"], limit: float = 3.0) -> np.ndarray:
    z = (x - x.mean()) / x.std()
    keep: Bool[np.ndarray, "n"] = np.abs(z) < limit
    return x[keep]


def moving_average(x: Float[np.ndarray, "n"], k: int) -> np.ndarray:
    kernel = np.ones(k) / k
    return np.convolve(x, kernel, mode="valid")


def batch_images(images: List[Float[np.ndarray, "h w 3"]]) -> Float[np.ndarray, "b h w 3"]:
    return np.stack(images)


def to_channels_first(x: Float[np.ndarray, "b h w c"]) -> Float[np.ndarray, "b c h w"]:
    return np.transpose(x, (0, 3, 1, 2))


def histogram_features(x: Float[np.ndarray, "n t"]) -> Float[np.ndarray, "n 4"]:
    return np.stack([x.mean(axis=1), x.std(axis=1), x.min(axis=1), x.max(axis=1)], axis=1)


def polynomial(x: Float[np.ndarray, "n"], degree: int) -> np.ndarray:
    return np.vstack([x ** i for i in range(degree + 1)]).T


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 5))
    w = np.zeros(5)
    y = x @ w + 0.1
    data = np.random.randn(100, 5)
    stats = standardize(data)
    table = np.arange(12).reshape(3, 4)
    col = table[:, 1]
    flat = table.ravel()
    grid = np.zeros((3, 4), dtype=np.int64)
    grid += table
