"""Variadic prefixes used consistently: the same *b lines up with itself."""
import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def scaled(x: Float[Tensor, "*b n 3"], s: Float[Tensor, "*b n 1"]) -> Float[Tensor, "*b n 3"]:
    return x * s


def per_point(x: Float[Tensor, "*b n 3"], v: Float[Tensor, "*b 3"]) -> Float[Tensor, "*b n 3"]:
    return x * v[..., None, :]


def anonymous(x: Float[Tensor, "... n 3"], v: Float[Tensor, "... 3"]) -> None:
    y = x * v[..., None, :]  # each "..." a batch of its own: they broadcast together


def batch_free(x: Float[Tensor, "... n"], w: Float[Tensor, "n"], s: Float[Tensor, "..."]):
    a = x * w  # fixed axes after the "..."
    b = x / s[..., None]  # the last axis of s meets 1
    c = s * 2.0
    return a, b, c


def attribute_rest(x: Float[Tensor, "*bs 1"], d: Float[Tensor, "*batch s 1"]) -> None:
    # Named variadics of different names may be one inside the other (*bs = (*batch, s)).
    y = x * d


def unknown_lead(x: Tensor, w: Float[Tensor, "n"]) -> None:
    y = x.sum(-1)  # of unknown rank: nothing says where its axes end
    z = y * w


def expectation(logits: Float[Tensor, "... bins"], w: Float[Tensor, "... bins"]) -> Float[Tensor, "..."]:
    return (logits.softmax(-1) * w).sum(-1)


def expected(logits: Float[Tensor, "... n bins"], w: Float[Tensor, "... bins"]) -> None:
    e = expectation(logits, w[..., None, :])  # the helper's body works for these


def branching(x: Float[Tensor, "... d"], w: Float[Tensor, "... d"], flag: bool) -> Float[Tensor, "..."]:
    if flag:
        return (x * w).sum(-1)
    return x.sum(-1)


def only_when(logits: Float[Tensor, "... n bins"], w: Float[Tensor, "... bins"]) -> None:
    e = branching(logits, w, False)  # a body with branches is not relayed to its calls


def summed(x: Float[Tensor, "*b n"]) -> Float[Tensor, "*b"]:
    return x.sum(-1)


def kept(x: Float[Tensor, "*b n"]) -> Float[Tensor, "*b 1"]:
    return x.sum(dim=-1, keepdim=True)


def helper(x: Float[Tensor, "*b k"]) -> Float[Tensor, "*b"]:
    return x.mean(-1)


def through_call(x: Float[Tensor, "*bs k"]) -> Float[Tensor, "*bs"]:
    return helper(x)


def linear(x: Float[Tensor, "*b k"], w: Float[Tensor, "m k"]) -> Float[Tensor, "*b m"]:
    return F.linear(x, w)


def empty_prefix(x: Float[Tensor, "n 3"], v: Float[Tensor, "3"]) -> Float[Tensor, "n 3"]:
    return x * v


def sliced(x: Float[Tensor, "*b n"], k: int) -> Float[Tensor, "*b k"]:
    return x[..., :k]


def unsqueezed(x: Float[Tensor, "*b n"], w: Float[Tensor, "*b 1"]) -> Float[Tensor, "*b n 1"]:
    return x.unsqueeze(-1) * w.squeeze(-1)[..., None, None]


def leading(x: Float[Tensor, "t *b n"]) -> Float[Tensor, "*b n"]:
    return x.sum(0)


def centred(x: Float[Tensor, "*bs n"]) -> Float[Tensor, "*bs n"]:
    return x - x.mean(-1, keepdim=True)


def shade(normals: Float[Tensor, "*bs 3"], light: Float[Tensor, "*bs 3"]) -> Tensor:
    # (*bs, 3) @ (*bs, 3): a dot product for an empty *bs, a batch of matrices
    # otherwise; the result's shape depends on *bs, so it is unknown (no report).
    lam = normals @ light
    return normals * lam.unsqueeze(-1)


def project_points(y: Float[Tensor, "*b n d"], v: Float[Tensor, "d"]) -> Float[Tensor, "*b n"]:
    return y @ v


class Scorer:
    def expectation(
        self, logits: Float[Tensor, "... bins"], w: Float[Tensor, "... bins"]
    ) -> Float[Tensor, "..."]:
        return (logits.softmax(-1) * w).sum(-1)

    def score(self, logits: Float[Tensor, "b n bins"], w: Float[Tensor, "b bins"]) -> Tensor:
        return self.expectation(logits, w[:, None, :])
