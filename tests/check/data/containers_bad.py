"""Values kept through dicts, comprehensions and joins with unknown values."""
import torch
from jaxtyping import Float
from torch import Tensor


def from_dict(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> None:
    outputs = {"features": x, "scale": 2.0}
    y = outputs["features"] @ w  # E: has n columns


def comprehension(xs: Float[Tensor, "t b n"], w: Float[Tensor, "m k"]) -> None:
    rows = [xs[i] for i in range(3)]
    y = rows[0] @ w  # E: has n columns
    z = [r @ w for r in rows]  # E: has n columns


def joined(x: Float[Tensor, "b n"], flag: bool, source) -> None:
    if flag:
        h = x
    else:
        h = source.load()
    y = h + torch.zeros(3)  # E: axis -1 has sizes n and 3


def nested(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> None:
    def project(z: Float[Tensor, "b n"], v: Float[Tensor, "n k"]) -> Float[Tensor, "b k"]:
        return z @ v

    def wrong(z: Float[Tensor, "b n"], v: Float[Tensor, "m k"]) -> Float[Tensor, "b k"]:
        return z @ v  # E: has n columns
    y = project(x, w)  # E: argument 'v' of project()


def nested_body(x: Float[Tensor, "b n"]) -> None:
    def helper(z: Float[Tensor, "b n"]) -> Float[Tensor, "b"]:
        return z.sum(0)  # E: axis 0 has size n, expected b [return]
