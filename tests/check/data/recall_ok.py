"""The correct twins of recall_bad.py: nothing is reported."""
import dataclasses
from enum import Enum
from typing import List, Optional, Tuple, TypeVar, Union, overload

import einx
import numpy as np
import torch
from einops import rearrange, repeat
from jaxtyping import Bool, Float, Int
from torch import Tensor

T = TypeVar("T")


def default(x: T | None, y: T) -> T:
    return x if x is not None else y


def first(x: Optional[T], y: T) -> T:
    return y if x is None else x


def centres(
    coords: Float[Tensor, "... n_atoms 3"], index: Int[Tensor, "... n_tokens"]
) -> Float[Tensor, "... n_tokens 3"]:
    indices = repeat(index.long(), "... n -> ... n c", c=3)
    return torch.gather(coords, dim=-2, index=indices)


def centre_mask(
    exists: Bool[Tensor, "... n_atoms"], index: Int[Tensor, "... n_tokens"],
    keep: Bool[Tensor, "... n_tokens"],
) -> Bool[Tensor, "... n_tokens"]:
    found = exists.gather(-1, index)
    return found & keep


def pick(x: Float[Tensor, "... n d"], i: Int[Tensor, "k"]) -> Float[Tensor, "... k d"]:
    return torch.index_select(x, -2, i)


def pick_lead(x: Float[Tensor, "b *rest"], i: Int[Tensor, "k"]) -> Float[Tensor, "k *rest"]:
    return x.index_select(0, i)


def distances(
    x: Float[Tensor, "... p m"], y: Float[Tensor, "... r m"] | None = None
) -> Float[Tensor, "... p r"]:
    y = default(y, x)
    diff = x.unsqueeze(-2) - y.unsqueeze(-3)
    return diff.pow_(2).sum(dim=-1).add_(1e-10).sqrt_()


def chosen(x: Float[Tensor, "b n"], y: Optional[Float[Tensor, "b n"]]) -> Float[Tensor, "b n"]:
    return first(y, x)


def count(n: Optional[int], k: int) -> int:
    return default(n, k) + first(None, 3)


def rays(
    directions: Float[Tensor, "... 3"], c2w: Float[Tensor, "... 4 4"]
) -> tuple[Float[Tensor, "... 3"], Float[Tensor, "... 3"]]:
    if directions.ndim == 2:
        if c2w.ndim == 2:
            c2w = c2w[None, :, :]
        assert c2w.ndim == 3
        d = (directions[:, None, :] * c2w[:, :3, :3]).sum(-1)
        o = c2w[:, :3, 3].expand(d.shape)
    elif len(directions.shape) == 3 and c2w.dim() == 2:
        d = (directions[:, :, None, :] * c2w[None, None, :3, :3]).sum(-1)
        o = c2w[None, None, :3, 3].expand(d.shape)
    else:
        d, o = directions, directions
    return o.reshape(-1, 3), d.reshape(-1, 3)


def batched(points: Float[Tensor, "*b n 3"], grid: Float[Tensor, "*b 3 c h"]) -> None:
    if points.ndim == 2:
        points, grid = points[None], grid[None]
    assert points.ndim == 3 and grid.ndim == 4
    where: Float[Tensor, "b n 3"] = points * 2
    where + grid[:, 0, :1, :1]


def named(x: Float[Tensor, "... 3"], w: Float[Tensor, "n 3"]) -> None:
    if x.ndim == 2:
        torch.cat([x, w], dim=0)


def leading(t: Int[Tensor, "n ..."]) -> None:
    same = t[1:] == t[:-1]
    if same.ndim == 2:
        same = torch.nn.functional.pad(same.all(dim=-1), (1, 0), value=False)
        einx.where("n, n ..., -> n ...", same, t, -1)


def pair_mask(mask: Tensor, coords: Float[Tensor, "... a 3"]) -> Bool[Tensor, "... a a"]:
    valid = mask & ~torch.eye(coords.shape[-2], dtype=torch.bool)
    return valid & (coords[..., :1] > 0)


def centroid(
    coords: Float[Tensor, "b a 3"], mask: Bool[Tensor, "#b a"], weights: Float[Tensor, "b a"] | None
) -> Float[Tensor, "b a"]:
    w = weights * mask if weights is not None else mask.to(coords.dtype)
    w /= w.sum(-1, keepdim=True)
    x = coords[:1] if weights is None else coords
    return w * x.sum(-1)


def fill(target: Float[Tensor, "n 3"], values: Tensor) -> None:
    target[:, :2] = values


@overload
def both(t1: Tensor, pattern: str) -> Tensor: ...


@overload
def both(t1: Tensor, t2: Tensor, pattern: str) -> Tensor: ...


def both(*args):
    return args[0]


def pair_blocks(
    q: Bool[Tensor, "b bl q"], kv: Bool[Tensor, "b bl kv"], wrapped: Bool[Tensor, "bl kv"]
) -> Bool[Tensor, "b bl q kv"]:
    mask = both(q, kv, "b bl q, b bl kv -> b bl q kv")
    mask &= rearrange(wrapped, "bl kv -> 1 bl 1 kv")
    return mask


def pair_blocks_ones(
    q: Bool[Tensor, "b bl q"], one: Bool[Tensor, "1 bl kv"], w: Bool[Tensor, "bl kv"]
) -> Bool[Tensor, "b 1 bl q kv"]:
    # an axis of size 1 broadcasts; ``1`` on the right is an axis of size 1
    mask = both(q, one, "b bl q, b bl kv -> b 1 bl q kv")
    return mask & rearrange(w, "bl kv -> 1 1 bl 1 kv")


def both_self(mask: Tensor, pattern: str) -> Tensor:
    return both(mask, mask, pattern)


def first_of(mask: Tensor, pattern: str = "x", *rest) -> Tensor:
    return both(mask, mask, pattern)


def scaled(mask: Tensor, size: int = len("ab")) -> Tensor:
    return mask[:size]


def clashes(coords: Float[Tensor, "... a 3"], mask: Bool[Tensor, "... a"]) -> Bool[Tensor, "... a a"]:
    valid = both_self(mask, "... i, ... j -> ... i j")
    # a wrapper with *rest or a default that is not a literal is not evaluated
    first_of(mask, "... i, ... j -> ... i j") + torch.zeros(7)
    scaled(mask) + torch.zeros(7)
    return valid & ~torch.eye(coords.shape[-2], dtype=torch.bool)


def helper_patterns(q: Bool[Tensor, "b n"], k: Bool[Tensor, "b n"], h: int) -> None:
    # a new axis, a group, or another number of arrays than of groups: not read
    new = both(q, k, "b i, b j -> b i j c")
    new + torch.zeros(7)
    grouped = both(q, k, "b (i j), b j -> b i j")
    grouped + torch.zeros(7)
    one = both(q, "b i, b j -> b i j")
    one + torch.zeros(7)


def open_return(x: Float[Tensor, "... n"], y: Float[Tensor, "n"]) -> Float[Tensor, "... n"]:
    return x


class Kind(Enum):
    PROTEIN = 0
    RNA = 1
    DNA = 2


def polymer(kinds: Int[Tensor, "... n"]) -> Bool[Tensor, "... n"]:
    types = torch.tensor([Kind.PROTEIN.value, Kind.RNA.value, Kind.DNA.value])
    return torch.any(kinds.unsqueeze(-1) == types, dim=-1)


def chain_masks(
    ids: Int[Tensor, "... n"], mask: Bool[Tensor, "... n"]
) -> tuple[Bool[Tensor, "... c n"], Int[Tensor, "c"]]:
    chains = torch.unique(ids[mask])
    found = rearrange(ids, "... n -> ... 1 n") == rearrange(chains, "c -> c 1")
    values, inverse, counts = torch.unique(ids, return_inverse=True, return_counts=True)
    total = counts.sum() + inverse.sum() + values.sum()
    return found & rearrange(mask, "... n -> ... 1 n"), chains


def per_chain(masks: Bool[Tensor, "... c n"], flags: Bool[Tensor, "... n"]) -> Bool[Tensor, "... c"]:
    found = []
    for mask in masks.unbind(dim=-2):
        found.append(torch.any(flags & mask, dim=-1))
    x, y, z = torch.zeros(3, 5).unbind(0)
    parts = torch.unbind(torch.zeros(5, 2), 1)
    return torch.stack(found, dim=-1) | (x + y + z + parts[0]).sum() > 0


def pieces(x: Float[Tensor, "n k"], flag: bool) -> Tuple[Tensor, ...]:
    return x.unbind(int(flag))


def listed(x: Float[Tensor, "n k"]) -> List[Tensor]:
    return list(x.unbind())


def waves(n: int) -> None:
    x = np.empty((100, 1000), "int64")
    x[:] = np.array(range(1000)) + np.random.randint(-80, 80, 100).reshape(100, 1)


# A short helper with no return annotation is evaluated at each call with the caller's
# values: the tuple given for a Union[tuple, Tensor] parameter makes the isinstance
# branch dead, and an unknown radius is a float as the annotation says.
ScaleBounds = Union[Tuple[float, float], Float[Tensor, "2 D"]]


def scale_to(dat: Float[Tensor, "... D"], inp: ScaleBounds, tgt: ScaleBounds):
    if tgt is None:
        tgt = (0, 1)
    if isinstance(tgt, Tensor):
        assert dat.shape[-1] == tgt.shape[-1]
    dat = (dat - inp[0]) / (inp[1] - inp[0])
    return dat * (tgt[1] - tgt[0]) + tgt[0]


def chains_of(ids: Int[Tensor, "... n"]) -> Bool[Tensor, "... c n"]:
    # A helper's "..." result: some leading axes, then the named ones.
    return rearrange(ids, "... n -> ... 1 n") == rearrange(torch.unique(ids), "c -> c 1")


def stacked_planes(p: Float[Tensor, "b n 3"], radius: float) -> Float[Tensor, "b 3 n 2"]:
    q = scale_to(p, (-radius, radius), (-1, 1))
    return torch.stack((q[..., [0, 1]], q[..., [0, 2]], q[..., [1, 2]]), dim=-3)


def scaled_to_box(p: Float[Tensor, "b n 3"], box: Float[Tensor, "2 3"]) -> Float[Tensor, "b n 3"]:
    return scale_to(p, box, (0, 1))


def polymer_of_chains(ids: Int[Tensor, "... n"], kinds: Int[Tensor, "... n"]) -> None:
    masks = chains_of(ids)
    is_polymer = torch.any(kinds.unsqueeze(-1) == torch.tensor([0, 1, 2, 3]), dim=-1)
    for m in masks.unbind(dim=-2):
        is_polymer & m


def frames_tv(x: Tensor, mask: Tensor) -> Tensor:
    # Returns of two shapes ((1,) or (b-1,)): the call's result is not taken from them.
    if x.shape[0] <= 1:
        return torch.zeros(1)
    return x.diff(dim=0).square().mean(dim=(1, 2)) * mask


def use_tv() -> None:
    tv = frames_tv(torch.rand(3, 2, 2), torch.tensor([0.0, 1.0]))
    tv[1]


# A helper annotated with jaxtyping's anonymous "..." result and a short body: the
# body, evaluated with the caller's arrays, tells the axes "..." stands for.
def centre_of(
    coords: Float[Tensor, "... n_atoms 3"], index: Int[Tensor, "... n_tokens"]
) -> Tuple[Float[Tensor, "... n_tokens 3"], Int[Tensor, "... n_tokens"]]:
    indices = repeat(index.long(), "... n -> ... n c", c=3)
    return torch.gather(coords, dim=-2, index=indices), index


def frame_mask(coords: Float[Tensor, "b a 3"], index: Int[Tensor, "b n"]) -> Bool[Tensor, "b n"]:
    centre, _ = centre_of(coords, index)
    return (centre > 0).all(dim=-1)


def flat_centres(coords: Float[Tensor, "a 3"], index: Int[Tensor, "n"]) -> Float[Tensor, "n 3"]:
    return centre_of(coords, index)[0]


def ranked(x: Float[Tensor, "... n"]) -> Float[Tensor, "... k"]:
    # The body's result does not name the annotation's "k": the annotation is kept.
    return x.sort(dim=-1).values


def take_ranked(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return x * ranked(x)


def nearest_two(d: Float[Tensor, "b n n"]) -> Int[Tensor, "b n 2"]:
    _, idx = torch.topk(d, 2, dim=-1, largest=False)
    top = torch.topk(d, 2).values
    return idx + top.long()


def pair_dists(x: Float[Tensor, "b p 3"], y: Float[Tensor, "b r 3"]) -> Float[Tensor, "b p r"]:
    return torch.cdist(x, y)


def picked(m: Bool[Tensor, "b n"], a: Int[Tensor, "b n"]) -> Bool[Tensor, "b n"]:
    rows = torch.arange(m.shape[0])[:, None]
    k = torch.arange(m.shape[1]).unsqueeze(0)
    return torch.stack([m[rows, i] for i in [a, k]], dim=-1).all(dim=-1)


def sums(a: Float[Tensor, "b n"], c: Float[Tensor, "n"]) -> Float[Tensor, "b n"]:
    x, y = [t.sum(-1, keepdim=True) for t in (a, c)]
    return a * x + y


# The "..." of one parameter is the same axes in every value made from it; the "..."
# of two parameters are not (nothing lines them up).
def contract(x: Float[Tensor, "... 3"]) -> Float[Tensor, "... 3"]:
    mag = x.norm(dim=-1, keepdim=True)
    mask = mag.squeeze(-1) > 1
    x[mask] = (2 - 1 / mag[mask]) * (x[mask] / mag[mask])
    return x


def normalised(w: Float[Tensor, "... n"], v: Float[Tensor, "... n"]) -> Float[Tensor, "... n"]:
    return w / w.sum(-1, keepdim=True) + v[w.sum(-1) > 0].sum()


def same_array(x: Float[Tensor, "... k"]):
    return x


class Holder:
    def __init__(self, x: Float[Tensor, "... 3"]):
        self.x = x

    def masked(self, x: Float[Tensor, "... 1"]) -> Tensor:
        # Another method's x: the attribute's "..." is not this parameter's.
        return self.x[x > 0]


def twice(a: Float[Tensor, "... 3"], b: Float[Tensor, "... 1"]) -> Tensor:
    # Two calls of one unannotated helper: their results are not the same axes.
    return same_array(a)[same_array(b) > 0]


def batched_dists(x: Float[Tensor, "1 p 3"], y: Float[Tensor, "b r 3"]) -> Float[Tensor, "b p r"]:
    return torch.cdist(x, y)


def top_k(d: Float[Tensor, "b n"], k: int) -> Float[Tensor, "b k"]:
    return d.topk(k, dim=1).values


def positive_rows(x: Optional[Float[Tensor, "... n"]] = None) -> Tensor:
    # An Optional parameter's "..." is its own too.
    assert x is not None
    return x[x.sum(-1) > 0]


# A body's result with leading axes of unknown number tells the axes after them, but a
# count only the data fixes stays unknown where the annotation leaves the size free.
def row_sums(x: Float[Tensor, "... n k"]) -> Float[Tensor, "... c"]:
    return x.sum(-1)


def row_totals(x: Float[Tensor, "... n k"]) -> Float[Tensor, "... n"]:
    return row_sums(x)


def chain_ids(ids: Int[Tensor, "... n"]) -> Tuple[Bool[Tensor, "... c n"], Int[Tensor, "c"]]:
    chains = torch.unique(ids)
    return rearrange(ids, "... n -> ... 1 n") == rearrange(chains, "c -> c 1"), chains


def per_pair(ids: Int[Tensor, "... n"], pairs: Float[Tensor, "... m m"]) -> Tensor:
    # The caller's m is the number of chains: the helper's count is not another size.
    masks, _ = chain_ids(ids)
    return pairs / masks.sum(-1, keepdim=True)


class Lit:
    def configure(self) -> None:
        self.colour: Float[Tensor, "3"]
        self.register_buffer("colour", torch.ones(3))

    def forward(self, n: Float[Tensor, "... 3"], l: Float[Tensor, "... 3"]) -> Tensor:
        return torch.sum(n * l, -1, keepdim=True) * self.colour

    def biased(
        self, points: Float[Tensor, "*N 3"], sdf: Float[Tensor, "*N 1"]
    ) -> Float[Tensor, "*N 1"]:
        bias: Union[float, Float[Tensor, "*N 1"]]
        if isinstance(self.cfg.radius, float):
            bias = (points**2).sum(dim=-1, keepdim=True).sqrt() - self.cfg.radius
        else:
            bias = 0.0
        return sdf + bias


class Configured(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.configure()

    def configure(self) -> None:
        pass


class Adapter(Configured):
    def configure(self) -> None:
        adapter = torch.nn.Parameter(torch.zeros(4, 3))
        self.register_parameter("adapter", adapter)

    def forward(self, features: Float[Tensor, "B ... 4"]) -> Float[Tensor, "B ... 3"]:
        return features @ self.adapter


class Reconfigured(Configured):
    # An attribute configure() sets and another method changes is not held to one shape.
    def configure(self) -> None:
        self.scale = torch.ones(3)

    def grow(self, n: int) -> None:
        self.scale = torch.ones(n)

    def forward(self, x: Float[Tensor, "b k"]) -> Tensor:
        return x * self.scale


class Volume(Configured):
    @dataclasses.dataclass
    class Config:
        blob_scale: float = 10.0
        blob_std: float = 0.5

    cfg: Config

    def density(
        self, points: Float[Tensor, "*N 3"], raw: Float[Tensor, "*N 1"]
    ) -> Float[Tensor, "*N 1"]:
        bias = self.cfg.blob_scale * torch.exp(-(points**2).sum(-1) / self.cfg.blob_std**2)
        return raw + bias[..., None]


def to_uv(u: Float[Tensor, "*B"], v: Float[Tensor, "*B"]) -> Float[Tensor, "*B 2"]:
    return torch.stack([u, v], -1)


def to_vu(u: Float[Tensor, "*B"], v: Float[Tensor, "*B"]) -> Float[Tensor, "2 *B"]:
    return torch.stack([v, u])


def profile(
    tokens: Int[Tensor, "batch depth n"], mask: Bool[Tensor, "batch depth n"]
) -> Tensor:
    counts = torch.zeros(tokens.shape[0], tokens.shape[2], 32).scatter_add(
        dim=2, index=tokens.transpose(1, 2).long(), src=mask.transpose(1, 2).float()
    )
    return counts / counts.sum(dim=-1, keepdim=True)


def camera(elevation: Float[Tensor, "B"], azimuth: Float[Tensor, "B"]) -> Float[Tensor, "B 1 4"]:
    a = torch.deg2rad(azimuth)
    t = torch.stack([torch.deg2rad(elevation), a.sin(), a.cos(), torch.hypot(elevation, a)], -1)
    return t[:, None, :]


def expect(logits: Float[Tensor, "... bins"], w: Float[Tensor, "bins"]) -> Float[Tensor, "..."]:
    return (logits.softmax(-1) * w).sum(-1)


def weighted(logits: Float[Tensor, "b n bins"], w: Float[Tensor, "bins"], m: Float[Tensor, "b"]):
    return expect(logits, w) * m[:, None]


def normals(a: Float[Tensor, "b n 3"], c: Float[Tensor, "b n 3"], w: Float[Tensor, "b n"]):
    n = torch.linalg.cross(a, c)
    length = torch.linalg.vector_norm(n, dim=-1, keepdim=True)
    order = w.argsort(dim=-1)
    values, _ = torch.sort(w, dim=-1)
    assert torch.allclose(values, torch.gather(w, -1, order))
    return n / length


def sampled(x: Float[Tensor, "b n 3"], grid: Float[Tensor, "k"], q: Float[Tensor, "b r"]):
    perm = torch.randperm(x.shape[1])
    bins = torch.searchsorted(grid, q)
    first = x.narrow(1, 0, 2)
    return first + bins[:, :1, None], x[:, perm], torch.masked_select(x, x > 0)


def box_scaled(
    dat: Float[Tensor, "... D"], box: Union[Tuple[float, float], Float[Tensor, "2 D"]]
) -> Float[Tensor, "... D"]:
    return dat * (box[1] - box[0]) + box[0]


def shifted_by(dat: Float[Tensor, "... D"], by: Union[float, Float[Tensor, "D"]]):
    return dat - by


def attend(
    q: Float[Tensor, "b h t d"], k: Float[Tensor, "b h s d"], v: Float[Tensor, "b h s e"]
) -> Float[Tensor, "b h t e"]:
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def attend_grouped(
    q: Float[Tensor, "b h t d"], k: Float[Tensor, "b g s d"], v: Float[Tensor, "b g s e"]
) -> Tensor:
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def thresholds_minus(t: Float[Tensor, " k"], d: Float[Tensor, "b n n"]) -> Float[Tensor, "b n n k"]:
    import einx

    return einx.subtract("k, ... -> ... k", t, d)


def masked_scores(mask: Bool[Tensor, "b j"], sim: Float[Tensor, "b h i j"]) -> Float[Tensor, "b h i j"]:
    import einx

    return einx.where("b j, b h i j, -> b h i j", mask, sim, -1e9)


def packed_features(
    rel: Float[Tensor, "i j 3"], dist: Float[Tensor, "i j"], same: Bool[Tensor, "i j"]
) -> Float[Tensor, "i j 5"]:
    from einops import pack

    out, _ = pack((rel, dist, same.float()), "i j *")
    return out


class PairToHeads(torch.nn.Module):
    """``partial`` of a layer class, and einops's ``Rearrange`` layer in a ``Sequential``."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        from functools import partial

        from einops.layers.torch import Rearrange

        linear_no_bias = partial(torch.nn.Linear, bias=False)
        self.to_attn = torch.nn.Sequential(linear_no_bias(dim, heads), Rearrange("b i j h -> b h i j"))

    def forward(self, pair: Float[Tensor, "b n n dim"], mask: Bool[Tensor, "b n"]) -> Float[Tensor, "b heads n n"]:
        bias = self.to_attn(pair)
        return bias.masked_fill(~mask[:, None, None, :], -1e9)


def cast_and_grad(x: Float[Tensor, "b n"], y) -> Float[Tensor, "b n"]:
    from typing import cast

    z = cast(Float[Tensor, "b n"], y)
    (g,) = torch.autograd.grad(x.sum(), [x])
    return x + z * g
