"""Point-cloud helpers in NumPy, unannotated: the annotate command's end-to-end sample."""
import numpy as np


def centre(points):
    return points - points.mean(axis=0, keepdims=True)


def transform(points, rotation, offset):
    return points @ rotation.T + offset


def pairwise_sq_dist(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return (diff ** 2).sum(-1)


def normalise(vectors):
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / norms


def voxel_index(points, size):
    return np.floor(points / size).astype(np.int64)


class Grid:
    def __init__(self, n_cells):
        self.n_cells = n_cells

    def histogram(self, index):
        counts = np.zeros((self.n_cells, self.n_cells, self.n_cells), dtype=np.int64)
        np.add.at(counts, tuple(index.T), 1)
        return counts
