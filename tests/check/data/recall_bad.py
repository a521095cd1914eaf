"""Shape bugs of real code that a rule must see through: gathers of open-rank arrays,
generic helpers (``T | None`` to ``T``), in-place methods, branches on ``x.ndim``,
arrays of unknown rank meeting known axes, branches giving ``b`` or 1, ``@overload``ed
helpers returning ``Tensor``, enum values, ``unique`` (a size of its own), ``unbind``."""
import dataclasses
from enum import Enum
from typing import Optional, Tuple, TypeVar, Union, overload

import einx
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
    indices = repeat(index.long(), "... n -> ... c n", c=3)
    return torch.gather(coords, dim=-2, index=indices)  # E: axis -2 has size 3, expected n_tokens [return]


def centre_mask(
    exists: Bool[Tensor, "... n_atoms"], index: Int[Tensor, "... n_tokens"],
    keep: Bool[Tensor, "... n_tokens"],
) -> None:
    indices = repeat(index, "... n -> ... n c", c=3)
    found = exists.gather(-1, indices)
    found & keep  # E: axis -1 has sizes 3 and n_tokens [broadcast]


def pick(x: Float[Tensor, "... n d"], i: Int[Tensor, "k"]) -> Float[Tensor, "... n d"]:
    return torch.index_select(x, -2, i)  # E: axis -2 has size k, expected n [return]


def distances(
    x: Float[Tensor, "... p m"], y: Float[Tensor, "... r m"] | None = None
) -> Float[Tensor, "... p r"]:
    y = default(y, x)
    diff = x.unsqueeze(-2) - y.unsqueeze(-3)
    return diff.pow_(2).sum(dim=-2).sqrt_()  # E: axis -1 has size m, expected r [return]


def chosen(x: Float[Tensor, "b n"], y: Optional[Float[Tensor, "b n"]]) -> Float[Tensor, "b"]:
    return first(y, x)  # E: has rank 2 [return]


def rays(directions: Float[Tensor, "... 3"], c2w: Float[Tensor, "... 4 4"]) -> None:
    if directions.ndim == 2:
        if c2w.ndim == 2:
            c2w = c2w[None, :, :]
        assert c2w.ndim == 3
        d = (directions[None, :, :] * c2w[:, :3, :3]).sum(-1)  # E: axis -2 has sizes directions_0 and 3 [broadcast]
    if directions.ndim == 2 and c2w.ndim == 3:
        d = (directions[:, None, :] * c2w[:, :3, :3]).sum(-1)
        o = c2w[:, :3, 3:].expand(d.shape)  # E: 2 sizes given for an array of rank 3 [rank]
    elif len(directions.shape) == 3 and c2w.dim() == 2:
        d = (directions[:, None, :, :] * c2w[None, None, :3, :3]).sum(-1)  # E: axis -2 has sizes directions_1 and 3 [broadcast]


def pair_mask(mask: Tensor, coords: Float[Tensor, "... a 3"]) -> Bool[Tensor, "... a a"]:
    valid = mask & ~torch.eye(coords.shape[-1], dtype=torch.bool)
    return valid & (coords[..., :1] > 0)  # E: axis -2 has sizes 3 and a [broadcast]


def centroid(
    coords: Float[Tensor, "b a 3"], mask: Bool[Tensor, "#b a"], weights: Float[Tensor, "b a"] | None
) -> None:
    w = weights * mask if weights is not None else mask.to(coords.dtype)
    w /= w.sum(-1)  # E: axis -1 has sizes a and #b [broadcast]


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
    mask &= rearrange(wrapped, "bl kv -> 1 bl kv 1")  # E: axis -2 has sizes q and kv [broadcast]
    return mask


def pair_blocks_unknown(
    q: Bool[Tensor, "b bl q"], kv: Bool[Tensor, "b bl kv"], wrapped: Bool[Tensor, "bl kv"]
) -> Bool[Tensor, "b bl q kv"]:
    # a helper without annotations, in einops notation: the pattern gives the result
    mask = both_any(q, kv, "b bl q, b bl kv -> b bl q kv")
    return mask & rearrange(wrapped, "bl kv -> bl kv 1")  # E: axis -2 has sizes q and kv [broadcast]


def both_any(*args):
    return args[0]


def both_self(mask: Tensor, pattern: str) -> Tensor:
    """A one-statement wrapper: evaluated with the caller's arguments."""
    return both(mask, mask, pattern)


def clashes(coords: Float[Tensor, "... a 3"], mask: Bool[Tensor, "... a"]) -> Bool[Tensor, "... a a"]:
    valid = both_self(mask, "... i, ... j -> ... i j")
    return valid & ~torch.eye(coords.shape[-1], dtype=torch.bool)  # E: axis -1 has sizes a and 3 [broadcast]


def pair_blocks_swapped(q: Bool[Tensor, "bl q a"], kv: Bool[Tensor, "b bl kv"]) -> None:
    both(q, kv, "b bl q, b bl kv -> b bl q kv")  # E: axis b is bl in q (bl, q, a) but b in kv [broadcast]
    both(q[0], kv, "b bl q, b bl kv -> b bl q kv")  # E: q[0] has rank 2 (q, a) but the pattern names 3 axes [rank]


def open_return(x: Float[Tensor, "... n"], y: Float[Tensor, "m"]) -> Float[Tensor, "m"]:
    return x  # E: axis -1 has size n, expected m [return]


def open_rank(x: Float[Tensor, "... n k"]) -> Float[Tensor, "n"]:
    return x  # E: has rank at least 2 [return]


class Kind(Enum):
    PROTEIN = 0
    RNA = 1
    DNA = 2


def polymer(kinds: Int[Tensor, "... n"]) -> None:
    types = torch.tensor([Kind.PROTEIN.value, Kind.RNA.value, Kind.DNA.value])
    torch.any(kinds == types, dim=-1)  # E: axis -1 has sizes n and 3 [broadcast]


def chain_masks(ids: Int[Tensor, "... n"], mask: Bool[Tensor, "... n"]) -> None:
    chains = torch.unique(ids[mask])
    rearrange(ids, "... n -> ... 1 n") == rearrange(chains, "c -> 1 c")  # E: axis -1 has sizes n and unique_ [broadcast]
    values, counts = ids.unique(return_counts=True)
    counts + ids  # E: axis -1 has sizes unique_ [broadcast]


def per_chain(masks: Bool[Tensor, "... c n"], flags: Bool[Tensor, "... n"]) -> None:
    for mask in masks.unbind(dim=-2):
        flags & mask
    for mask in masks.unbind(dim=-1):
        flags & mask  # E: axis -1 has sizes n and c [broadcast]
    x, y, z = torch.zeros(3, 5).unbind(0)
    x + torch.zeros(4)  # E: axis -1 has sizes 5 and 4 [broadcast]


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
    return torch.stack((q[..., [0, 1]], q[..., [0, 2]], q[..., [1, 2]]), dim=-2)  # E: axis 2 has size 3, expected n [return]


def polymer_of_chains(ids: Int[Tensor, "... n"], kinds: Int[Tensor, "... n"]) -> None:
    masks = chains_of(ids)
    is_polymer = torch.any(kinds.unsqueeze(-1) == torch.tensor([0, 1, 2, 3]), dim=-2)
    for m in masks.unbind(dim=-2):
        is_polymer & m  # E: axis -1 has sizes 4 and n [broadcast]


# A helper annotated with jaxtyping's anonymous "..." result and a short body: the
# body, evaluated with the caller's arrays, tells the axes "..." stands for.
def centre_of(
    coords: Float[Tensor, "... n_atoms 3"], index: Int[Tensor, "... n_tokens"]
) -> Tuple[Float[Tensor, "... n_tokens 3"], Int[Tensor, "... n_tokens"]]:
    indices = repeat(index.long(), "... n -> ... n c", c=3)
    return torch.gather(coords, dim=-2, index=indices), index


def frame_mask(coords: Float[Tensor, "b a 3"], index: Int[Tensor, "b n"]) -> Bool[Tensor, "b n"]:
    centre, _ = centre_of(coords, index)
    return (centre > 0).all(dim=1)  # E: axis 1 has size 3, expected n [return]


def nearest_two(d: Float[Tensor, "b n n"]) -> Int[Tensor, "b n 2"]:
    _, idx = torch.topk(d, 2, dim=1, largest=False)
    return idx  # E: axis 1 has size 2, expected n [return]


def pair_dists(x: Float[Tensor, "b p 3"], y: Float[Tensor, "b r 3"]) -> Float[Tensor, "b p r"]:
    return torch.cdist(y, x)  # E: axis 1 has size r, expected p [return]


# A comprehension over a literal list is evaluated for each item.
def picked(m: Bool[Tensor, "b n"], a: Int[Tensor, "b n"]) -> Bool[Tensor, "b n"]:
    rows = torch.arange(m.shape[0])[:, None]
    k = torch.arange(m.shape[1]).unsqueeze(1)
    return torch.stack([m[rows, i] for i in [a, k]], dim=-1).all(dim=-1)  # E: sizes b and n [broadcast]


def picked_all(m: Bool[Tensor, "b n"], a: Int[Tensor, "b n"]) -> Bool[Tensor, "b n"]:
    rows = torch.arange(m.shape[0])[:, None]
    return torch.stack([m[rows, i] for i in [a, a, a]], dim=-1).all(dim=1)  # E: axis 1 has size 3, expected n [return]


# The "..." of one parameter is the same axes in every value made from it: a mask
# made from x lines up with x, and a reduction without keepdim does not.
def contract(x: Float[Tensor, "... 3"]) -> Float[Tensor, "... 3"]:
    mag = x.norm(dim=-1, keepdim=True)
    mask = mag > 1
    x[mask] = x[mask] / 2  # E: boolean mask of shape (..., 1) does not match axis -1 of x (..., 3) [index]
    return x


def normalised(w: Float[Tensor, "... n"]) -> Float[Tensor, "... n"]:
    return w / w.sum(-1)  # E: the axes of '...' do not line up [broadcast]


def batched_dists(x: Float[Tensor, "1 p 3"], y: Float[Tensor, "b r 3"]) -> Float[Tensor, "b p"]:
    return torch.cdist(x, y)  # E: return value of batched_dists() (b, p, r) [return]


def top_k(d: Float[Tensor, "b n"], k: int) -> Float[Tensor, "b k"]:
    return d.topk(k, dim=0).values  # E: axis 0 has size k, expected b [return]


def positive_rows(x: Optional[Float[Tensor, "... n"]] = None) -> Tensor:
    # An Optional parameter's "..." is its own too.
    assert x is not None
    return x[x.sum(-1, keepdim=True) > 0]  # E: boolean mask of shape (..., 1) does not match axis -1 of x (..., n) [index]


# A body's result with leading axes of unknown number tells the axes after them.
def row_sums(x: Float[Tensor, "... n k"]) -> Float[Tensor, "... c"]:
    return x.sum(-1)


def col_totals(x: Float[Tensor, "... n k"]) -> Float[Tensor, "... k"]:
    return row_sums(x)  # E: axis -1 has size n, expected k [return]


class Lit:
    def configure(self) -> None:
        # Declared in a method that __init__ (of a base) calls, then registered by name.
        self.colour: Float[Tensor, "3"]
        self.register_buffer("colour", torch.ones(3))

    def forward(self, n: Float[Tensor, "... 3"], l: Float[Tensor, "... 3"]) -> Tensor:
        return torch.sum(n * l, -1) * self.colour  # E: the last axis of '...' [broadcast]

    def biased(
        self, points: Float[Tensor, "*N 3"], sdf: Float[Tensor, "*N 1"]
    ) -> Float[Tensor, "*N 1"]:
        bias: Union[float, Float[Tensor, "*N 1"]]
        assert isinstance(self.cfg.radius, float)
        bias = (points**2).sum(dim=-1).sqrt() - self.cfg.radius  # E: 0 axes after *N [assign]
        return sdf + bias  # E: the axes of *N do not line up [broadcast]


class Configured(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.configure()

    def configure(self) -> None:
        pass


class Adapter(Configured):
    # Built in configure(), which the base's __init__ calls.
    def configure(self) -> None:
        adapter = torch.nn.Parameter(torch.zeros(4, 3))
        self.register_parameter("adapter", adapter)

    def forward(self, features: Float[Tensor, "B ... 4"]) -> Float[Tensor, "B ... 3"]:
        return features @ self.adapter.T  # E: has 4 columns [matmul]


class Volume(Configured):
    @dataclasses.dataclass
    class Config:
        blob_scale: float = 10.0
        blob_std: float = 0.5

    cfg: Config  # the class nested above: its fields are floats

    def density(
        self, points: Float[Tensor, "*N 3"], raw: Float[Tensor, "*N 1"]
    ) -> Float[Tensor, "*N 1"]:
        bias = self.cfg.blob_scale * torch.exp(-(points**2).sum(-1) / self.cfg.blob_std**2)
        return raw + bias  # E: the axes of *N do not line up [broadcast]


def to_uv(u: Float[Tensor, "*B"], v: Float[Tensor, "*B"]) -> Float[Tensor, "*B 2"]:
    uv = torch.stack([u, v])  # (2, *B): the new axis in front
    return uv  # E: 0 axes after *B, expected 1 [return]


def profile(
    tokens: Int[Tensor, "batch depth n"], mask: Bool[Tensor, "batch depth n"]
) -> Tensor:
    counts = torch.zeros(tokens.shape[0], tokens.shape[2], 32).scatter_add(
        dim=2, index=tokens.transpose(1, 2).long(), src=mask.transpose(1, 2).float()
    )
    return counts / counts.sum(dim=-1)  # E: axis -1 has sizes 32 and n [broadcast]


def camera(elevation: Float[Tensor, "B"], azimuth: Float[Tensor, "B"]) -> Float[Tensor, "B 1 4"]:
    a = torch.deg2rad(azimuth)  # and hypot, logaddexp, erfc, ...: elementwise
    t = torch.stack([torch.deg2rad(elevation), a.sin(), a.cos(), torch.hypot(elevation, a)], -1)
    return t  # E: has rank 2, expected rank 3 [return]


def expect(logits: Float[Tensor, "... bins"], w: Float[Tensor, "bins"]) -> Float[Tensor, "..."]:
    return (logits.softmax(-1) * w).sum(-1)  # "...": any shape; the body tells it


def weighted(logits: Float[Tensor, "b n bins"], w: Float[Tensor, "bins"], m: Float[Tensor, "b"]):
    return expect(logits, w) * m  # E: axis -1 has sizes n and b [broadcast]


def normals(a: Float[Tensor, "b n 3"], c: Float[Tensor, "b n 3"], w: Float[Tensor, "b n"]):
    n = torch.linalg.cross(a, c)
    length = torch.linalg.vector_norm(n, dim=-1)
    order = w.argsort(dim=-1)
    values, _ = torch.sort(w, dim=-1)
    return n / length  # E: axis -1 has sizes 3 and n [broadcast]


def sampled(x: Float[Tensor, "b n 3"], grid: Float[Tensor, "k"], q: Float[Tensor, "b r"]):
    perm = torch.randperm(x.shape[1])  # (n,)
    bins = torch.searchsorted(grid, q)  # (b, r)
    first = x.narrow(1, 0, 2)  # (b, 2, 3)
    return first + bins  # E: axis -1 has sizes 3 and r [broadcast]


def box_scaled(dat: Float[Tensor, "... D"], box: ScaleBounds) -> Float[Tensor, "... D"]:
    # A tuple takes no tuple of indices: ``box[:, 1]`` is the (2, D) box's column.
    return dat * (box[:, 1] - box[:, 0])  # E: axis -1 has sizes D and 2 [broadcast]


def shifted_by(dat: Float[Tensor, "... D"], by: Union[float, Float[Tensor, "E"]]):
    return dat - by  # E: axis -1 has sizes D and E [broadcast]


def attend(
    q: Float[Tensor, "b h t d"], k: Float[Tensor, "b h s d"], v: Float[Tensor, "b h s e"]
) -> Float[Tensor, "b h t e"]:
    keys = k.transpose(1, 2)  # heads and positions swapped
    return torch.nn.functional.scaled_dot_product_attention(q, keys, v)  # E: cannot broadcast [broadcast]


def attend_values(
    q: Float[Tensor, "b h t d"], k: Float[Tensor, "b h s d"], v: Float[Tensor, "b h t e"]
) -> Tensor:
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)  # E: contracted axes differ [matmul]


def thresholds_minus(t: Float[Tensor, " k"], d: Float[Tensor, "b n n"]) -> Float[Tensor, "b n n k"]:
    import einx

    return einx.subtract("k, ... -> k ...", t, d)  # E: return value of thresholds_minus() [return]


def masked_scores(mask: Bool[Tensor, "b j"], sim: Float[Tensor, "b h i j"]) -> Float[Tensor, "b h i j"]:
    import einx

    return einx.where("b i, b h i j, -> b h i j", mask, sim, -1e9)  # E: einx.where [broadcast]


def packed_features(
    rel: Float[Tensor, "i j 3"], dist: Float[Tensor, "i 3"], same: Bool[Tensor, "i j"]
) -> Tensor:
    from einops import pack

    out, _ = pack((rel, dist, same.float()), "i j *")  # E: einops.pack 'i j *': axis j [concat]
    return out


class PairToHeads(torch.nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        from functools import partial

        from einops.layers.torch import Rearrange

        linear_no_bias = partial(torch.nn.Linear, bias=False)
        self.to_attn = torch.nn.Sequential(linear_no_bias(dim, heads), Rearrange("b i j h -> b h i j"))

    def forward(self, pair: Float[Tensor, "b n n dim"], mask: Bool[Tensor, "b n"]) -> Float[Tensor, "b heads n n"]:
        bias = self.to_attn(pair)
        return bias.masked_fill(~mask[:, None, :], -1e9)  # E: cannot broadcast bias [broadcast]


def cast_and_grad(x: Float[Tensor, "b n"], y) -> Float[Tensor, "b n"]:
    from typing import cast

    z = cast(Float[Tensor, "b n 3"], y)
    (g,) = torch.autograd.grad(x.sum(), [x])
    return x + z * g  # E: cannot broadcast [broadcast]


def named(x: Float[Tensor, "... 3"], w: Float[Tensor, "n 3"]) -> None:
    if x.ndim == 2:
        x * w  # E: axis -2 has sizes x_0 and n [broadcast]


def leading(t: Int[Tensor, "n ..."]) -> None:
    same = t[1:] == t[:-1]
    if same.ndim == 2:
        same = torch.nn.functional.pad(same.all(dim=0), (1, 0), value=False)
        einx.where("n, n ..., -> n ...", same, t, -1)  # E: axis n is same_1+1 in same [broadcast]
