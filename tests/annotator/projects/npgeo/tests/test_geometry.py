import numpy as np

from npgeo.geometry import Grid, centre, normalise, pairwise_sq_dist, transform, voxel_index


def test_geometry():
    rng = np.random.default_rng(0)
    for n, m in ((5, 7), (9, 4), (6, 6)):
        p = rng.normal(size=(n, 3))
        q = rng.normal(size=(m, 3))
        c = centre(p)
        assert np.allclose(c.mean(0), 0)
        t = transform(p, np.eye(3), np.ones(3))
        assert t.shape == (n, 3)
        assert pairwise_sq_dist(p, q).shape == (n, m)
    for shape in ((4, 3), (2, 5, 3)):
        assert normalise(rng.normal(size=shape)).shape == shape


def test_grid():
    for k in (4, 6):
        grid = Grid(8)
        idx = voxel_index(np.random.default_rng(k).uniform(0, 8, size=(k * 5, 3)), 1.0)
        assert grid.histogram(idx).sum() == k * 5
