"""A variadic prefix is one sequence of axes: it must line up wherever it appears."""
import torch
import torch.nn.functional as F
from jaxtyping import Bool, Float
from torch import Tensor


def shifted(x: Float[Tensor, "*b n 3"], v: Float[Tensor, "*b 3"]) -> None:
    r = x * v  # E: *b is followed by 2 axes in x but by 1 in v [broadcast]


def shifted_where(x: Float[Tensor, "*b n"], m: Float[Tensor, "*b"]) -> None:
    y = torch.where(m > 0, x, 0.0)  # E: the axes of *b do not line up [broadcast]


def summed(x: Float[Tensor, "*b n"]) -> Float[Tensor, "*b n"]:
    return x.sum(-1)  # E: 0 axes after *b, expected 1 [return]


def kept(x: Float[Tensor, "*b n"]) -> Float[Tensor, "*b"]:
    return x.sum(-1, keepdim=True)  # E: 1 axis after *b, expected 0 [return]


def last_axis(x: Float[Tensor, "*bs c"], w: Float[Tensor, "d e"]) -> None:
    y = x @ w  # E: has c columns
    z = x + torch.zeros(3)  # E: axis -1 has sizes c and 3


def helper(x: Float[Tensor, "*b k"]) -> Float[Tensor, "*b"]:
    return x.mean(-1)


def through_call(x: Float[Tensor, "*b k"]) -> Float[Tensor, "*b k"]:
    return helper(x)  # E: 0 axes after *b, expected 1 [return]


def linear(x: Float[Tensor, "*b k"], w: Float[Tensor, "m k"]) -> Float[Tensor, "*b k"]:
    return F.linear(x, w)  # E: axis -1 has size m, expected k [return]


def unsqueezed(x: Float[Tensor, "*b n"]) -> Float[Tensor, "*b n"]:
    return x.unsqueeze(-1)  # E: 2 axes after *b, expected 1 [return]


def leading(x: Float[Tensor, "t *b n"]) -> Float[Tensor, "t *b"]:
    return x.sum(0)  # E: 1 axis after *b, expected 0 as in (t, *b) [return]


def missing_keepdim(x: Float[Tensor, "*bs n"]) -> Float[Tensor, "*bs n"]:
    return x - x.mean(-1)  # E: *bs is followed by 1 axis in x but by 0 [broadcast]


def project_points(y: Float[Tensor, "*b n d"], v: Float[Tensor, "e"]) -> Float[Tensor, "*b n"]:
    return y @ v  # E: contracted axes differ [matmul]


def project_rows(y: Float[Tensor, "*b n d"], v: Float[Tensor, "d"]) -> Float[Tensor, "*b d"]:
    return y @ v  # E: return


def anonymous(x: Float[Tensor, "... n 3"], v: Float[Tensor, "... 3"]) -> None:
    y = x * v  # E: axis -2 is the last axis of '...' in v but n in x [broadcast]


def fixed_axis(key_mask: Bool[Tensor, "... n"], centers: Float[Tensor, "bins"]) -> None:
    count = key_mask.sum(-1).float()
    w = centers / count  # E: axis -1 is the last axis of '...' in count but bins [broadcast]


def named_rest(x: Float[Tensor, "*b n"], y: Float[Tensor, "n"]) -> None:
    s = x.sum(-1) + y  # E: last axis of *b in x.sum(-1) but n in y [broadcast]


def joint(q: Bool[Tensor, "... n"], k: Bool[Tensor, "... n"]) -> None:
    pairs = q[..., :, None] & k[..., None, :]  # (..., n, n), the "..." of q and of k
    count = k.sum(-1, keepdim=True)  # (..., 1), the "..." of k
    w = pairs / count  # E: axis -2 is the last axis of '...' in count but n in pairs [broadcast]


def expectation(logits: Float[Tensor, "... bins"], w: Float[Tensor, "... bins"]) -> Float[Tensor, "..."]:
    return (logits.softmax(-1) * w).sum(-1)


def expected(logits: Float[Tensor, "... n bins"], w: Float[Tensor, "... bins"]) -> None:
    e = expectation(logits, w)  # E: expectation() fails for these arguments, at line 81: cannot broadcast w [broadcast]


class Scorer:
    def expectation(
        self, logits: Float[Tensor, "... bins"], w: Float[Tensor, "... bins"]
    ) -> Float[Tensor, "..."]:
        return (logits.softmax(-1) * w).sum(-1)

    def score(self, logits: Float[Tensor, "b n bins"], w: Float[Tensor, "b bins"]) -> Tensor:
        return self.expectation(logits, w)  # E: Scorer.expectation() fails for these arguments [broadcast]
