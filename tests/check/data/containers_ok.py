"""Values kept through dicts, comprehensions and joins, used correctly."""
from typing import Dict

import torch
from jaxtyping import Float
from torch import Tensor


def from_dict(x: Float[Tensor, "b n"], w: Float[Tensor, "n k"]) -> Float[Tensor, "b k"]:
    outputs = {"features": x, "scale": 2.0}
    return outputs["features"] @ w


def overwritten(x: Float[Tensor, "b n"], w: Float[Tensor, "k n"]) -> None:
    outputs = {"features": x}
    outputs["features"] = x @ w.T
    y = outputs["features"] + torch.zeros(w.shape[0])


def filled(x: Float[Tensor, "b n"], update) -> None:
    outputs: Dict[str, Tensor] = {"features": x}
    update(outputs)
    y = outputs["features"] + torch.zeros(3)  # the callee may have replaced it
    outputs.update(features=torch.zeros(3))
    z = outputs["features"] + torch.zeros(3)


def comprehension(xs: Float[Tensor, "t b n"], w: Float[Tensor, "n k"]) -> Float[Tensor, "b k"]:
    rows = [xs[i] for i in range(3)]
    outs = [r @ w for r in rows if r is not None]
    return outs[0]


def generator(xs: Float[Tensor, "t n"]) -> None:
    total = sum(x.sum() for x in xs)
    pairs = {i: x for i, x in enumerate(xs)}


def joined(x: Float[Tensor, "b n"], flag: bool, source) -> Float[Tensor, "b n"]:
    if flag:
        h = x
    else:
        h = source.load()
    return h * 2.0


def nested(x: Float[Tensor, "b n"], w: Float[Tensor, "n k"]) -> Float[Tensor, "b k"]:
    scale = 2.0

    def project(z: Float[Tensor, "b n"]) -> Float[Tensor, "b k"]:
        return z @ w * scale  # w and scale come from the enclosing function

    def untyped(z):
        return z.sum(-1)

    s = untyped(x) + torch.zeros(x.shape[0])
    return project(x)


def closure_changes(x: Float[Tensor, "b n"]) -> None:
    h = None

    def use():
        return h.sum()  # h is set before use() runs

    h = x
    use()


def defensive(tensor: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    if tensor is None:  # cannot hold for an array: the branch is not walked
        print("missing")
    return tensor


def same_view(x: Float[Tensor, "b n"], k: int) -> None:
    t = torch.zeros((1, 1)).expand(x.shape[0], 1)
    u = t.view(-1, 1)  # keeps every axis: no contiguity needed
