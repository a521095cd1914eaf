"""NumPy data processing with the classic slips: keepdims, transposes, axes, dtypes."""
import numpy as np
from jaxtyping import Float, Int


def normalize_rows(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    return x / np.linalg.norm(x, axis=1)  # E: cannot broadcast [broadcast]


def center_rows(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    return x - x.mean(axis=1)  # E: cannot broadcast [broadcast]


def covariance(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "d d"]:
    centered = x - x.mean(axis=0)
    return centered @ centered.T / (x.shape[0] - 1)  # E: return value [return]


def pairwise_sq_dists(a: Float[np.ndarray, "n d"],
                      b: Float[np.ndarray, "m d"]) -> Float[np.ndarray, "n m"]:
    aa = (a ** 2).sum(axis=1)[:, None]
    bb = (b ** 2).sum(axis=1)[:, None]
    return aa + bb - 2 * a @ b.T  # E: cannot broadcast [broadcast]


def projection(x: Float[np.ndarray, "n d"], w: Float[np.ndarray, "k d"]) -> np.ndarray:
    return np.dot(x, w)  # E: contracted axes differ [matmul]


def add_bias(x: Float[np.ndarray, "n d"]) -> np.ndarray:
    ones = np.ones(x.shape[0])
    return np.concatenate([x, ones], axis=1)  # E: has rank 2 [concat]


def features(x: Float[np.ndarray, "n t"]) -> np.ndarray:
    return np.stack([x.mean(axis=1), x.std(axis=0)], axis=1)  # E: need the same shape [concat]


def channels(x: Float[np.ndarray, "b h w c"]) -> np.ndarray:
    return np.transpose(x, (0, 3, 1))  # E: 3 dims given for an array of rank 4 [axis]


def last_column(table: Float[np.ndarray, "n 3"]) -> np.ndarray:
    return table[:, 3]  # E: index 3 is out of bounds [index]


def flatten_pairs(x: Float[np.ndarray, "n 3"]) -> np.ndarray:
    return x.reshape(-1, 2)  # E: cannot reshape [reshape]


def counts(labels: Int[np.ndarray, "n"], weights: Float[np.ndarray, "n"]) -> np.ndarray:
    totals = np.zeros(10, dtype=np.int64)
    totals += weights.sum()  # E: cannot be cast back [dtype]
    return totals


def select(x: Float[np.ndarray, "n"], scores: Float[np.ndarray, "n"]) -> np.ndarray:
    order = scores / scores.sum()
    return x[order]  # E: must be integers or bools [dtype]


def mask_rows(x: Float[np.ndarray, "n d"], keep: Float[np.ndarray, "m"]) -> np.ndarray:
    return x[keep > 0]  # E: boolean mask of shape (m,) does not match axis 0 [index]


def squeeze_wrong(x: Float[np.ndarray, "n 1 d"]) -> np.ndarray:
    return x.squeeze(axis=2)  # E: has size d, not 1 [axis]
