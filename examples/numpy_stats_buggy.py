"""Feature standardisation and a histogram in NumPy, with classic broadcasting bugs."""
import numpy as np
from jaxtyping import Float, Int


def standardize(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    mean = x.mean(axis=1)
    std = x.std(axis=0)
    return (x - mean) / std  # BUG: the row means need keepdims=True


def histogram(values: Float[np.ndarray, "n"], bins: int) -> Int[np.ndarray, "bins"]:
    counts = np.zeros(bins, dtype=np.int64)
    weights = np.ones(bins) / bins
    counts += weights  # BUG: float into an int array in place
    return counts


def stack_features(a: Float[np.ndarray, "n 3"], b: Float[np.ndarray, "n 4"]) -> Float[np.ndarray, "n 7"]:
    return np.concatenate([a, b], axis=0)  # BUG: join along axis 1


def pairwise(x: Float[np.ndarray, "n d"], y: Float[np.ndarray, "m d"]) -> Float[np.ndarray, "n m"]:
    return x @ y  # BUG: y must be transposed
