"""Rules read from real projects (alphafold3-pytorch, chai-lab, spd), each with the bug
the real code could have; ``realrules_ok.py`` is the correct twin."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from einops import pack, rearrange, unpack
from jaxtyping import Bool, Float, Int, UInt8
from torch import Tensor, nn

LinearNoBias = partial(nn.Linear, bias=False)
Pair = tuple[Float[Tensor, "d_out d_in"], Float[Tensor, "..."]]


def exists(v):
    return v is not None


def default(v, d):
    return v if exists(v) else d


def l2norm(t: Tensor, eps: float = 1e-20, dim: int = -1) -> Tensor:
    """A bare ``-> Tensor`` helper with a literal negative default."""
    return F.normalize(t, p=2, eps=eps, dim=dim)


# -- a count only the data fixes, named by the callee's result ------------------------


def chain_masks(
    asym_id: Int[Tensor, "... n"], mask: Bool[Tensor, "... n"]
) -> tuple[Bool[Tensor, "... c n"], Int[Tensor, " c"]]:
    asyms = torch.unique(asym_id[mask])
    masks = rearrange(asym_id, "... n -> ... 1 n") == rearrange(asyms, "c -> c 1")
    return masks & rearrange(mask, "... n -> ... 1 n"), asyms


def chain_is_polymer(
    asym_id: Int[Tensor, "... n"], mask: Bool[Tensor, "... n"], polymer: Bool[Tensor, "... n"]
) -> list:
    masks, _ = chain_masks(asym_id, mask)
    found = []
    for chain in masks.unbind(dim=-1):  # the token axis, not the chains
        found.append(polymer & chain)  # E: axis -1 has sizes n and c@ [broadcast]
    return found


# -- numbers through one-line helpers; pure helpers keep what __init__ stored --------


class Attend(nn.Module):
    def __init__(self, window_size=None, scale: float | None = None):
        super().__init__()
        self.scale = scale
        self.is_local = exists(window_size)

    def forward(self, q: Float[Tensor, "b h i d"], k: Float[Tensor, "b h j d"]) -> Tensor:
        scale = default(self.scale, q.shape[-1] ** -0.5)
        q = q * scale
        return q @ k  # E: contracted axes differ [matmul]


# -- rank tests narrow a union of arrays ------------------------------------------------


def in_frame(
    coords: Float[Tensor, "b m 3"],
    frame: Float[Tensor, "b m 3 3"] | Float[Tensor, "b 3 3"] | Float[Tensor, "3 3"],
) -> Float[Tensor, "b m 3"]:
    if frame.ndim == 2:
        frame = rearrange(frame, "r c -> 1 1 r c")
    elif frame.ndim == 3:
        frame = rearrange(frame, "b r c -> b 1 r c")
    a, b, c = frame.unbind(dim=-1)
    e1 = l2norm(a - b)
    e2 = l2norm(c - b)
    d = coords - b
    out = torch.stack(((d * e1).sum(-1), (d * e2).sum(-1)), dim=0)
    return out  # E: return value of in_frame() [return]


# -- aliases of tuples of arrays ----------------------------------------------------------


def delta_out(x: Float[Tensor, "... d_in"], delta: Pair | None = None) -> Tensor:
    if delta is not None:
        weight, _ = delta
        return torch.einsum("...i,io->...o", x, weight)  # E: einsum [matmul]
    return x


# -- buffers declared after register_buffer; a slice of a length-1 axis ----------------


class Positions(nn.Module):
    def __init__(self, d_model: int, max_len: int):
        super().__init__()
        self.register_buffer("pe", torch.zeros(max_len, d_model).unsqueeze(0))
        self.pe: Tensor

    def forward(self, x: Float[Tensor, "B S D"]) -> Float[Tensor, "B S D"]:
        pe = self.pe[: x.size(1)]  # cuts the leading 1, not the positions
        return pe[:, :3] + x[:, :5]  # E: axis -2 has sizes 3 and 5 [broadcast]


# -- what a boolean mask selects ----------------------------------------------------------


def contract(x: Float[Tensor, "... 3"]) -> Float[Tensor, "... 3"]:
    mag = x.norm(dim=-1)
    mask = mag > 1
    x[mask] = x[mask] / mag[mask]  # E: sizes 3 and selected_ [broadcast]
    return x


# -- split by a size ------------------------------------------------------------------------


def heads(x: Float[Tensor, "b t (3*c)"], c: int) -> Float[Tensor, "b t c"]:
    q, k, v = x.split(c, dim=-1)
    return q @ k  # E: contracted axes differ [matmul]


# -- einx without an arrow; an activation chosen by a flag; a 1 in an einops pattern ----


def mean_pool(summed: Float[Tensor, "b n d"], lens: Float[Tensor, "b n"]) -> Tensor:
    import einx

    diffs = summed[:, 1:] - summed[:, :-1]
    return einx.divide("b n d, b n", diffs, lens)  # E: axis n is n-1 [broadcast]


def act_plus_resid(batch: Float[Tensor, "b f"], coeffs: Float[Tensor, " f"], relu: bool) -> Tensor:
    weighted = torch.einsum("bf,f->fb", batch, coeffs)
    act = F.relu if relu else F.gelu
    return act(weighted) + batch  # E: cannot broadcast [broadcast]


def include(plddt: Float[Tensor, "b n"], flag: Bool[Tensor, "b 1"]) -> Tensor:
    from einops import repeat

    keep = torch.rand_like(plddt) < 0.5
    return repeat(keep, "b 1 -> b m", m=4)  # E: axis of size n in keep [reshape]


def per_chain(x: Float[Tensor, "b n"], k: int) -> Float[Tensor, "b k n"]:
    results = []
    for _ in range(k):
        results.append(x * 2)
    return torch.stack(results, dim=-1)  # E: return value of per_chain() [return]


def encode(
    x: Float[Tensor, "... d_in"], w: Float[Tensor, "d_in d_sae"], b: Float[Tensor, " d_sae"]
):
    return w @ x + b  # E: cannot broadcast [broadcast]


def interface(coords: Float[Tensor, "... n 3"], cut: float) -> Bool[Tensor, "... n n"]:
    nearest, _ = torch.cdist(coords, coords).min(dim=-1)
    return nearest < cut  # E: works only when '...' ends with (n,) [return]


def bin_centres(logits: Float[Tensor, "b p m"]) -> Float[Tensor, "b m"]:
    logits = logits.transpose(-1, -2)
    width = 1.0 / logits.shape[1]  # the bins are axis -1 now
    centres = torch.arange(0.5 * width, 1.0, width)
    return torch.einsum("bmp,p->bm", logits.softmax(-1), centres)  # E: axis p [matmul]


class TriangleMix(nn.Module):
    def __init__(self, dim: int, hidden=None):
        super().__init__()
        hidden = hidden if hidden is not None else dim
        self.proj = nn.Sequential(nn.Linear(dim, hidden * 4, bias=False), nn.GLU(dim=-1))

    def forward(self, x: Float[Tensor, "b n n d"], mask: Bool[Tensor, "b n n"]) -> Tensor:
        mask = mask[None]  # the new axis in front, not behind
        left, right = self.proj(x).chunk(2, dim=-1)
        return left * mask + right  # E: axis -3 has sizes n and b [broadcast]


def gated(x: Float[Tensor, "b 3"]) -> Tensor:
    return F.glu(x, dim=-1)  # E: odd size 3 [axis]


def firing_rows(x: Float[Tensor, "b n"]) -> Tensor:
    mask = x.sum(-1) > 0
    (rows,) = torch.where(mask)
    return rows + torch.zeros(2)  # E: cannot broadcast [broadcast]


def decode(net, dirs: Float[Tensor, "B H W 3"]) -> Float[Tensor, "B H W 8"]:
    color = net(dirs.view(-1, 3)).view(8, *dirs.shape[:-1])  # a tensor's .view: its shape
    return color  # E: return value of decode() [return]


def condition(emb, t: Float[Tensor, "B 4"]) -> Tensor:
    return torch.cat([emb.repeat(len(t), 1, 1), t], dim=-1)  # E: has rank 3 [concat]


def masked_mean(mask: Bool[Tensor, "..."], value: Float[Tensor, "..."], dim: int) -> Tensor:
    return (mask * value).sum(dim) / mask.sum(dim)


def plddt(
    logits: Float[Tensor, "... a bins"],
    mask: Bool[Tensor, "... a"],
    centers: Float[Tensor, " bins"],
    per_residue: bool = True,
) -> Float[Tensor, "..."] | Float[Tensor, "... a"]:
    e = (logits.softmax(-1) * centers).sum(-1)
    if per_residue:
        return e
    return masked_mean(mask, e, dim=-1)


def chain_plddt(
    logits: Float[Tensor, "... a bins"], masks: Bool[Tensor, "... c a"], centers: Float[Tensor, " bins"]
) -> Tensor:
    from einops import repeat

    logits = repeat(logits, "... a b -> ... c a b", c=masks.shape[-1])  # c: the chains
    return plddt(logits, masks, centers, per_residue=False)  # E: plddt() fails for these arguments [broadcast]


def masked_sum(x: Float[Tensor, "... n d"], mask: Bool[Tensor, "..."] | None = None) -> Tensor:
    if mask is not None:
        x = x * mask[..., None]
    return x.sum(-2)


def pooled(x: Float[Tensor, "b n d"], m: Bool[Tensor, "b n"]) -> Tensor:
    return masked_sum(x, m.T)  # E: masked_sum() fails for these arguments [broadcast]


def blend(a: Float[Tensor, "n 3"], v: Float[Tensor, " n"]) -> Tensor:
    mixed = torch.lerp(a, v, 0.5)  # E: cannot broadcast a [broadcast]
    poses = torch.eye(4)[None, :3, :4].tile(1, v.shape[0], 1)  # the count on the wrong axis
    return mixed + poses @ a  # E: contracted axes differ [matmul]


# -- this round: generic batches, grown lists of batched arrays, fields, bare helpers ---


def unit_inside(x: Float[Tensor, "... 3"]) -> Float[Tensor, "... 3"]:
    mag = x.norm(dim=-1)  # keepdim missing
    mask = mag.squeeze(-1) > 1  # an axis of '...' is not 1: squeeze keeps the shape
    x[mask] = x[mask] / mag[mask]  # E: cannot broadcast x[mask] [broadcast]
    return x


def pairwise(
    scores: Float[Tensor, "... n"], asyms: Int[Tensor, " c"]
) -> tuple[Float[Tensor, "... c c"], Int[Tensor, " c"]]:
    rows = []
    for i in range(asyms.numel()):
        rows.append(scores[..., : asyms.numel()] * i)
    return torch.stack(rows, dim=0), asyms  # E: 1 axis after '...' [return]


def bare_masked_mean(mask: Tensor, value: Tensor, dim: int) -> Tensor:
    mask = mask.expand(*value.shape)
    return (mask * value).sum(dim) / mask.sum(dim).clamp(min=1)


def chain_means(x: Float[Tensor, "b a a"], m: Bool[Tensor, "b c a"]) -> Tensor:
    return bare_masked_mean(m, x, dim=-1)  # E: bare_masked_mean() fails for these arguments [broadcast]


@dataclass
class Grouping:
    group_idxs: Int[Tensor, " n_components"]
    k_groups: int

    @property
    def n_components(self) -> int:
        return int(self.group_idxs.shape[0])

    def to_matrix(self) -> Bool[Tensor, "k_groups n_components"]:
        mat = torch.zeros((self.n_components, self.k_groups), dtype=torch.bool)
        return mat  # E: axis 0 has size n_components, expected k_groups [return]


def encode_sae(x: Float[Tensor, "... d_in"], w: Float[Tensor, "d_in d_sae"]) -> Tensor:
    return x.T @ w  # E: the columns of x.T (d_in, ...) are the last axis of '...' [matmul]


def swiglu(x: Float[Tensor, "... d"]) -> Float[Tensor, "... (d//2)"]:
    x, gates = x.chunk(2)  # dim=-1 missing: the first axis of '...' is split
    return F.silu(gates) * x  # E: axis -1 has size d, expected d//2 [return]


def outer_sum(t: Float[Tensor, "b n ds"], proj: nn.Linear) -> Float[Tensor, "b n n ds"]:
    single_i, single_j = t.chunk(2, dim=1)  # the sequence halved, not the features
    out = single_i[:, :, None, :] + single_j[:, None, :, :]
    return out  # E: axis 1 has size n//2, expected n [return]


def split_qkv(qkv: Float[Tensor, "b t c3"], c: int, h: int):
    q, k, v = qkv.split(c, dim=1)  # the sequence axis, not the 3*c features
    return q.view(qkv.shape[0], qkv.shape[1], h, c // h)  # E: cannot reshape [reshape]


class AdaNorm(nn.Module):
    def __init__(self, dim: int, dim_cond: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim, elementwise_affine=False)
        self.to_gamma = nn.Linear(dim_cond, dim)

    def forward(self, x: Float[Tensor, "b n d"], cond: Float[Tensor, "b n dc"]) -> Tensor:
        normed = self.norm(x)  # here d is the instance's dim
        gamma = self.to_gamma(normed)  # E: axis 2 has size d, expected dim_cond [layer]
        return normed * gamma


class Rotary(nn.Module):
    def __init__(self, rotary_dim: int):
        super().__init__()
        self.rotary_dim = rotary_dim

    def rotate_half(self, x: Tensor) -> Tensor:
        x_rot = x.clone()
        n = x.shape[-1] // 2
        x_rot[..., :n] = -x[..., n:]
        return x_rot

    def forward(self, q: Float[Tensor, "b h s d"], r: int) -> Float[Tensor, "b h s d"]:
        q_rot = q[..., :r]
        q_rotated = self.rotate_half(q_rot)
        return torch.cat((q_rotated, q[..., r:]), dim=1)  # E: differ on axis 3 [concat]


def chain_scatter(x: Float[Tensor, "... a 3"], m: Bool[Tensor, "... a"], k: int) -> Tensor:
    *b, a = m.shape
    counts = x.new_zeros(*b, k, a)  # (..., k, a): chains before atoms
    return counts + x[..., 0, None]  # E: cannot broadcast counts [broadcast]


N_TYPES = 5
PROTEIN = 0


def disorder(plddt: Float[Tensor, "b m"], types: Bool[Tensor, f"b m {N_TYPES}"]) -> Tensor:
    protein = types[:, PROTEIN]  # an atom row, not the protein column
    return plddt * protein  # E: cannot broadcast plddt [broadcast]


def to_windows(pair: Float[Tensor, "... m m dp"], w: int) -> Tensor:
    seq_len = pair.shape[-1]  # the features, not the sequence
    pad = (w - (seq_len % w)) % w
    pair = F.pad(pair, (0, 0, 0, pad, 0, pad), value=0.0)
    return rearrange(pair, "... (i w1) (j w2) d -> ... i j w1 w2 d", w1=w, w2=w)  # E: not a multiple of w [reshape]


class Embed(nn.Module):
    def __init__(self, C: int, vocab: int, dim: int):
        super().__init__()
        self.V = nn.Parameter(torch.randn(vocab, C))
        self.U = nn.Parameter(torch.randn(C, dim))

    def acts(self, x: Int[Tensor, "..."]) -> Float[Tensor, "... C"]:
        return self.V[x]

    def forward(self, x: Int[Tensor, "..."]) -> Tensor:
        from einops import einsum

        a = self.acts(x)
        return einsum(a, self.U, "... C, dim C -> ... dim")  # E: axis C is C [matmul]


def split_heads_all(
    q: Float[Tensor, "b n hd"], k: Float[Tensor, "b m hd"], v: Float[Tensor, "b m hd"], h: int
) -> Tensor:
    q, k, v = tuple(rearrange(t, "b n (h d) -> b h n d", h=h) for t in (q, k, v))
    return q + k  # E: axis -2 has sizes n and m [broadcast]


def corners(x: Float[Tensor, "... 6"], scale: Float[Tensor, " 3"]) -> Tensor:
    lo, hi, rest = x.chunk(4, dim=-1)  # pieces of 2, 2 and 2: not the (3,) halves
    return lo * scale  # E: axis -1 has sizes 2 and 3 [broadcast]


def per_layer_sums(acts: dict[str, Float[Tensor, "... C"]], w: Float[Tensor, "C d"]) -> Tensor:
    out = []
    for name, a in acts.items():
        out.append(a @ w.T)  # E: contracted axes differ [matmul]
    return torch.stack(out)


def lookup(names: list[str], table: list[str], pos: Float[Tensor, "n 3"]) -> Tensor:
    where = {name: i for i, name in enumerate(table)}
    idx = torch.tensor([where.get(name, -1) for name in names])
    return pos[idx].sum(-1, keepdim=True)[None] @ pos  # E: contracted axes differ [matmul]


def backbone(names: list[str], table: list[str]) -> Int[Tensor, "3"]:
    idx = [table.index(n) for n in names]
    return torch.tensor([idx])  # E: has rank 2, expected rank 1 [return]


def constraints(ids: Int[Tensor, " n"], a: int, b: int, d: Float[Tensor, "c1 c2"], m: Float[Tensor, "n n"]) -> Tensor:
    (c1,) = torch.where(ids == a)
    (c2,) = torch.where(ids == b)
    assert len(c1) == d.shape[0] and len(c2) == d.shape[1]
    rows = c1[:, None].expand(-1, len(c2))
    cols = c2[:, None].expand(-1, len(c1))  # (c2, c1), not (c1, c2)
    m[rows, cols] = d  # E: cannot broadcast index 0 of m [broadcast]
    return m


def doubled(x: Float[Tensor, "B 4 H W"], cond: Float[Tensor, "B2 4 H W"]) -> Tensor:
    return torch.cat([torch.cat([x] * 2, dim=1), cond], dim=1)  # E: differ on axis 0 [concat]


def pair_errors(x: Float[Tensor, "b n 3"], y: Float[Tensor, "b n 3"]) -> Float[Tensor, "b n n"]:
    n = x.shape[-1]
    ax = x[:, :, None].expand(-1, -1, n, -1).reshape(x.shape[0], -1, 3)
    ay = y[:, None].expand(-1, n, -1, -1).reshape(x.shape[0], -1, 3)
    d = F.pairwise_distance(ax, ay)
    return rearrange(d, "b (i j) -> b i j", i=n, j=n)  # E: cannot be split into (i j) = 9 [reshape]


def cosine_rows(x: Float[Tensor, "b n d"], y: Float[Tensor, "b m d"]) -> Float[Tensor, "b n"]:
    return F.cosine_similarity(x, y, dim=-1)  # E: axis -2 has sizes n and m [broadcast]


class Subnets:
    def __init__(self, v: Tensor, u: Tensor):
        self.v, self.u = v, u

    def extract(self) -> Float[Tensor, "n_subnets n_features n_hidden"]:
        return torch.einsum("fC,Ch->Cfh", self.v, self.u)

    def best(self) -> tuple[Float[Tensor, "n_subnets n_features"], Float[Tensor, " n_features"]]:
        sims = self.extract().sum(-1)
        return sims, sims.max(dim=1).values  # E: axis 0 has size n_subnets, expected n_features [return]


class Counts:
    def __init__(self, n: int):
        self.counts = torch.zeros(n)

    def merge(self, other: Counts) -> None:
        self.counts += other.counts

    def update(self, x: Float[Tensor, "b n"]) -> None:
        self.counts += x.sum(1)  # E: axis -1 has sizes n and b [broadcast]

    def scaled(self, w: Float[Tensor, "b n"]) -> None:
        self.counts.mul_(w)  # E: in-place update of self.counts (n,) would need shape (b, n) [broadcast]


def columns(q: Float[Tensor, "b n d"], k: Float[Tensor, "b m d"]) -> Tensor:
    q, k = map(lambda t: t.transpose(1, 2), (q, k))
    return q @ k  # E: contracted axes differ [matmul]


def scaled(x: Float[Tensor, "b n"], w: Float[Tensor, " m"]) -> Tensor:
    scale = lambda t: t * w  # E: axis -1 has sizes n and m [broadcast]
    return scale(x)


def per_sample(loss: Float[Tensor, "b c h w"], w: Float[Tensor, " b"]) -> Float[Tensor, " b"]:
    return loss.mean(dim=tuple(range(loss.ndim - 1))) * w  # E: axis -1 has sizes w and b [broadcast]


def reordered(feats: Float[Tensor, "1 depth tokens dim"], mask: Bool[Tensor, "1 depth tokens"]) -> Float[Tensor, "1 depth tokens dim"]:
    keep = mask.sum(-1)[0] > 0
    (kept,) = torch.where(keep)
    (rest,) = torch.where(~keep)
    order = torch.cat([kept, rest])
    return torch.index_select(feats, dim=2, index=order)  # E: axis 2 has size depth, expected tokens [return]


def flags(xs: Float[Tensor, "b m 3"]) -> Bool[Tensor, " b"]:
    found = []
    for i in range(xs.shape[0]):
        found.append((xs[i] > 0).any())
    return torch.cat(found)  # E: the items of found are 0-d arrays [concat]


def rows(t: Int[Tensor, "*dims l"], w: Float[Tensor, "k l"]) -> Tensor:
    flat = rearrange(t, "... l -> (...) l")
    return flat @ w  # E: contracted axes differ [matmul]


def chosen(x: Float[Tensor, "n 8"], code: Float[Tensor, " d"], kind: str | None) -> Tensor:
    match kind:
        case None:
            return x
        case "pad":
            return x == code[:, None]  # E: axis -2 has sizes n and d [broadcast]
        case _:
            return x


class UniformLaplacian:
    def __init__(self, v_pos: Float[Tensor, "Nv 3"], faces: Int[Tensor, "Nf 3"]):
        self.v_pos = v_pos
        self.faces = faces

    def _laplacian(self):
        n = self.v_pos.shape[0]
        idx = self.faces[:, :2].T
        values = torch.ones(idx.shape[1])
        return torch.sparse_coo_tensor(idx, values, (n, n)).coalesce()

    def loss(self) -> Float[Tensor, ""]:
        lap = self._laplacian()
        return lap.mm(self.v_pos.T).norm(dim=1).mean()  # E: contracted axes differ [matmul]


def flat_rays(d: Float[Tensor, "... 3"]) -> Float[Tensor, "n 3"]:
    return d.reshape(3, -1)  # E: axis 1 has size prod(...), expected 3 [return]


@dataclass
class Templates:
    restype: Int[Tensor, "n_templates n_tokens"]
    distances: Float[Tensor, "n_templates n_tokens n_tokens"]


def select_tokens(t: Templates, idxs: Int[Tensor, " k"]) -> Templates:
    return Templates(restype=t.restype[:, idxs], distances=t.distances[idxs][:, :, idxs])  # E: axis 0 has size k, expected n_templates [arg-type]


def alive_pairs(ci: Float[Tensor, "b seq c"], threshold: float) -> Tensor:
    alive = ci > threshold
    seq, c = torch.where(alive)  # E: cannot unpack torch.where(alive) of length 3 into 2 names [rank]
    return seq + c


def off_diagonal(ci: Float[Tensor, "batch c"]) -> Tensor:
    size = min(ci.shape)
    mask = torch.ones(size, size, dtype=torch.bool)
    return ci[mask]  # E: does not match axis 0 of ci [index]


class Hit:
    def __init__(self, idx: Int[Tensor, " n"]):
        self._idx = idx

    @property
    def indices(self) -> Int[Tensor, " n"]:
        return self._idx + 1

    @property
    def valid(self) -> Bool[Tensor, " n"]:
        offset = self.indices[1:] - self.indices[:-1]
        retval = offset > 0
        assert retval.shape == self.indices.shape  # E: fails for every size the annotations allow [assert]
        return retval


def docking_mask(token_dists: Float[Tensor, "n n"], p: float, num_bins: int) -> Tensor:
    geom = torch.distributions.Geometric(torch.tensor([p]))
    return (geom.sample(token_dists.shape) == 1).expand(-1, num_bins)  # E: 2 sizes given for an array of rank 3 [rank]


def pocket_mask(mask: Bool[Tensor, "n n"], p: float) -> Tensor:
    geom = torch.distributions.Geometric(torch.tensor([p]))
    mask[~(geom.sample(mask.shape) == 1)] = False  # E: too many indices for mask [index]
    return mask


def gaussian_nll(mu: Float[Tensor, "b d"], log_sigma: Float[Tensor, "b"], x: Float[Tensor, "b d"]) -> Tensor:
    dist = torch.distributions.Normal(mu, log_sigma.exp())  # E: axis -1 has sizes d and b [broadcast]
    return -dist.log_prob(x).sum(-1)


def split_heads(qkv: Float[Tensor, "b n e"]) -> Tensor:
    q, k = rearrange(qkv, "b n (three d) -> three b n d", three=3)  # E: cannot unpack [rank]
    return q @ k.mT


def frames_of(points: Float[Tensor, "3 ... d"]) -> Tensor:
    packed, _ = pack([points], "three * d")
    return packed @ packed  # E: contracted axes differ [matmul]


def per_head(x: Float[Tensor, "b h n d"], w: Float[Tensor, "d k"]) -> Tensor:
    packed, ps = pack([x], "* n d")
    (out,) = unpack((packed @ w).transpose(0, 1), ps, "* n k")  # E: the '*' axis of [reshape]
    return out


def string_to_code(text: str) -> UInt8[Tensor, " l"]:
    ords = [ord(c) for c in text]
    return torch.tensor([ords], dtype=torch.uint8)  # E: has rank 2, expected rank 1 [return]


def layer_loss_total(sums: dict[str, Float[Tensor, " C"]], n: int) -> Float[Tensor, ""]:
    total = torch.tensor(0.0)
    for layer_sums in sums.values():
        layer_loss = layer_sums / n
        total += layer_loss  # E: in-place update of total () would need shape (C,) [broadcast]
    return total


def pair_loss(x: Float[Tensor, "b n"], y) -> Float[Tensor, "b"]:
    return F.mse_loss(x, y, reduction="none")  # E: has rank 2, expected rank 1 [return]


def tiled(x: Float[Tensor, "h w 3"], n: int) -> Float[Tensor, "n h w 3"]:
    return x[None].repeat(n, 1, 1)  # E: 3 repeat counts for an array of rank 4 [rank]


class GatedAttention(nn.Module):
    def __init__(self, *, dim: int, heads: int = 8, dim_head: int = 64, gate: bool = True, mix: bool = False):
        super().__init__()
        dim_inner = dim_head * heads
        self.heads = heads
        self.to_q = nn.Linear(dim, dim_inner)
        self.to_gates = None
        if gate:
            self.to_gates = nn.Sequential(LinearNoBias(dim, dim_inner), nn.Sigmoid())
        self.mix = None
        if mix:
            self.mix = LinearNoBias(dim, heads)

    def forward(self, seq: Float[Tensor, "b i d"]) -> Float[Tensor, "b i e"]:
        q = rearrange(self.to_q(seq), "b n (h d) -> b h n d", h=self.heads)
        out = rearrange(q, "b h n d -> b n (h d)")
        if exists(self.to_gates):
            out = out * self.to_gates(out)  # E: expected dim (in_features) [layer]
        return out


class Guidance:
    def __init__(self, alphas: Float[Tensor, " T"]):
        self.sigmas: Float[Tensor, " T"] = (1 - alphas) ** 0.5

    @torch.autocast("cuda", enabled=False)
    def forward_unet(
        self, latents: Float[Tensor, "..."], t: Int[Tensor, "..."], velocity: bool = False
    ) -> Float[Tensor, "..."]:
        pred = latents * 2
        if velocity:
            pred = latents * self.sigmas[t].view(-1, 1, 1)
        return pred

    def step(self, latents: Float[Tensor, "B 4 H W"], t: Int[Tensor, " B"], mode: str) -> Tensor:
        return self.forward_unet(torch.cat([latents] * 2), torch.cat([t] * 2), velocity=mode == "v")  # E: fails for these arguments, at line [broadcast]


class Conformer:
    def __init__(self, position: Float[Tensor, "a 3"], atom_names: list[str]):
        self.position = position
        self.atom_names = atom_names

    def gather(self, query: list[str]) -> tuple[Float[Tensor, "n 3"], Bool[Tensor, " n"]]:
        lookup = {name: i for i, name in enumerate(self.atom_names)}
        indices = torch.tensor([lookup.get(name, -1) for name in query])
        mask = indices != -1
        return self.position[indices] * mask.unsqueeze(0), mask  # E: axis -1 has sizes 3 and len(query) [broadcast]


class TinyGPT(nn.Module):
    def __init__(self, vocab: int, block: int, n_embd: int):
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(block, n_embd)

    def forward(self, idx: Float[Tensor, "batch pos"]) -> Tensor:
        t, _b = idx.size()
        pos = torch.arange(0, t)
        tok = self.wte(idx)  # E: indices must be an integer tensor [dtype]
        return tok + self.wpe(pos)  # E: axis -2 has sizes pos and batch [broadcast]


class ZeroGuidance:
    def __init__(self, image: Float[Tensor, "1 3 256 256"]):
        self.image = image
        self.configure()

    def configure(self) -> None:
        self.prepare_embeddings()

    def prepare_embeddings(self) -> None:
        self.c_crossattn, self.c_concat = self.embeds(self.image)

    def embeds(self, img: Float[Tensor, "B 3 256 256"]) -> tuple[Float[Tensor, "B 1 768"], Float[Tensor, "B 4 32 32"]]:
        return img.new_zeros(img.shape[0], 1, 768), img.new_zeros(img.shape[0], 4, 32, 32)

    def get_cond(self, T: Float[Tensor, "B 1 4"]) -> Tensor:
        return torch.cat([self.c_crossattn.repeat(len(T), 1), T], dim=-1)  # E: 2 repeat counts for an array of rank 3 [rank]


def masked_mean_of(mask: Bool[Tensor, "..."], value: Tensor, dim: int) -> Tensor:
    mask = mask.expand(*value.shape)
    return torch.sum(mask * value, dim=dim) / torch.sum(mask, dim=dim).clamp(min=1)


def plddt_of(logits: Float[Tensor, "... a bins"], mask: Bool[Tensor, "... a"]) -> Tensor:
    return masked_mean_of(mask, logits, dim=-1)  # E: expand: axis of size a cannot be expanded to bins [broadcast]


def bond_atoms(left: Bool[Tensor, "... n"]) -> int:
    left_idx = torch.where(left)
    return left_idx.item()  # E: tuple has no attribute 'item' [attr]


def exists_any(v: Any) -> bool:
    return v is not None


def default_any(v: Any, d: Any) -> Any:
    return v if exists_any(v) else d


def pack_one_closure(t: Tensor, pattern: str) -> tuple[Tensor, list[tuple[int, ...]]]:
    packed, ps = pack([t], pattern)

    def unpack_one(to_unpack, unpack_pattern=None):
        (unpacked,) = unpack(to_unpack, ps, default_any(unpack_pattern, pattern))
        return unpacked

    return packed, unpack_one


def rigid_frames(three_points: Float[Tensor, "3 ... 3"]) -> Float[Tensor, "... 3 3"]:
    (x1, x2, x3), unpack_one = pack_one_closure(three_points, "three * d")
    frames = torch.stack((x1, x2, x3))
    return unpack_one(frames, "* r c")  # E: fails for these arguments, at line [reshape]


class Preconditioner(nn.Module):
    def __init__(self, sigma_data=0.5):
        super().__init__()
        self.sigma_data = sigma_data

    def c_in(self, sigma):
        return (sigma**2 + self.sigma_data**2) ** -0.5

    def forward(self, noised: Float[Tensor, "b m 3"], sigma: Float[Tensor, " b"] | Float[Tensor, ""] | float) -> Tensor:
        if isinstance(sigma, float):
            sigma = torch.full((noised.shape[0],), sigma)
        padded_sigma = rearrange(sigma, "b -> b 1")
        return self.c_in(padded_sigma) * noised  # E: axis -2 has sizes b and m [broadcast]


def lddt_inputs(coords: Float[Tensor, "b m 3"]) -> Float[Tensor, "b m"] | Float[Tensor, " m"]:
    return coords.norm(dim=0)  # E: return value of lddt_inputs() [return]


class LowRank(nn.Module):
    def __init__(self, C: int, v_dim: int, u_dim: int):
        super().__init__()
        self.V = nn.Parameter(torch.empty(v_dim, C))
        self.U = nn.Parameter(torch.empty(C, u_dim))


class Decomposed(nn.Module):
    def __init__(self, sizes: dict[str, int]):
        super().__init__()
        self.components = Decomposed.create(sizes)

    @staticmethod
    def create(sizes: dict[str, int]) -> dict[str, LowRank]:
        return {k: LowRank(c, 4, 5) for k, c in sizes.items()}

    def subnets(self) -> dict[str, Tensor]:
        out = {}
        for name, comp in self.components.items():
            out[name] = torch.einsum("f C, C h -> C f h", comp.V, comp.U.T)  # E: axis C is C in comp.V (v_dim, C) but u_dim [matmul]
        return out


def low_rank_test(model: Decomposed) -> Tensor:
    comp = model.components["fc1"]
    batch = torch.randn(1, 3)  # the test built it with v_dim 3, u_dim 2
    out = (batch @ comp.V) @ comp.U
    return F.mse_loss(out, torch.randn(1, 2))


def dgram(
    distance: Float[Tensor, "... dist"], bins: Float[Tensor, " bins"], return_labels: bool = False
) -> Int[Tensor, "... dist"] | Int[Tensor, "... dist bins"]:
    one_hot = (distance[..., None] >= bins).long()
    if return_labels:
        return one_hot.argmax(dim=-1)
    return one_hot


def dist_labels(
    atom_pos: Float[Tensor, "b m 3"], token_pos: Float[Tensor, "b n 3"], pair: Int[Tensor, "b n n"], bins: Float[Tensor, " k"]
) -> Tensor:
    labels = dgram(torch.cdist(atom_pos, atom_pos), bins, return_labels=True)
    return pair + labels  # E: axis -1 has sizes n and m [broadcast]


class GatedUnit(nn.Module):
    def forward(self, x: Float[Tensor, "... d"]) -> Float[Tensor, "... (d//2)"]:
        x, gates = x.chunk(2, dim=-1)
        return F.silu(gates) * x


class FeedForward(nn.Module):
    def __init__(self, *, dim, expansion_factor=2):
        super().__init__()
        dim_inner = int(dim * expansion_factor)
        self.ff = nn.Sequential(LinearNoBias(dim, dim_inner), GatedUnit(), LinearNoBias(dim_inner, dim))

    def forward(self, x: Float[Tensor, "... d"]) -> Float[Tensor, "... d"]:
        return self.ff(x)  # E: expected dim*expansion_factor (in_features) [layer]


def slice_at(t: Tensor, dim_slice: slice, *, dim: int) -> Tensor:
    colons = [slice(None)] * t.ndim
    colons[dim] = dim_slice
    return t[tuple(colons)]


def previous_window(t: Float[Tensor, "b n w d"]) -> Tensor:
    return torch.cat((slice_at(t, slice(None, -1), dim=1), slice_at(t, slice(1, None), dim=1)), dim=-2)


def place_values(batch: Float[Tensor, "b f"], active: Int[Tensor, "b n"], values: Float[Tensor, "b n"], n: int) -> Tensor:
    for i in range(n):
        batch.scatter_(dim=1, index=active[..., i], src=values[..., i : i + 1])  # E: .scatter_: index has rank 1 but the input has rank 2 [rank]
    return batch


def contact_mask(dists: Float[Tensor, "n n"], theta_range: tuple[float, float]) -> Bool[Tensor, "n n"]:
    """A number drawn by Python's ``random`` compared with an array keeps its shape."""
    theta = random.uniform(*theta_range)
    return ((dists > 0.0) & (dists < theta)).any(0)  # E: has rank 1, expected rank 2 [return]


class ImageBase:
    """A mixin without ``__init__``: its subclasses' ``__init__`` call ``self.setup``,
    which builds it; ``update_step`` assigns ``self.directions`` again, of one rank."""

    def setup(self, heights: list[int], widths: list[int]) -> None:
        self.directions_by_size = [torch.zeros(h, w, 3) for h, w in zip(heights, widths)]
        self.directions = self.directions_by_size[0]

    def update_step(self, i: int) -> None:
        self.directions = self.directions_by_size[i]

    def rays(self) -> Float[Tensor, "1 H W 3"]:
        directions: Float[Tensor, "1 H W 3"] = self.directions  # E: has rank 3, expected rank 4 [assign]
        return directions  # E: has rank 3, expected rank 4 [return]


class ImageDataset(ImageBase):
    def __init__(self, heights: list[int], widths: list[int]) -> None:
        self.setup(heights, widths)


class AttnBlock(nn.Module):
    """``b, c, h, w = q.shape`` of a convolution's output of an unannotated input: the
    unpacking gives ``q`` its axes, and the values, reshaped with them, meet its sizes."""

    def __init__(self, in_channels: int) -> None:
        super().__init__()
        self.q = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.k = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.v = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.proj_out = nn.Conv2d(in_channels, in_channels, kernel_size=1)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        b, c, h, w = q.shape
        q = q.reshape(b, c, h * w).permute(0, 2, 1)
        k = k.reshape(b, c, h * w)
        w_ = torch.softmax(torch.bmm(q, k) * int(c) ** (-0.5), dim=2)
        v = v.reshape(b, c, h * w)
        h_ = torch.bmm(w_.permute(0, 2, 1), v)  # E: matmul: contracted axes differ [matmul]
        return x + self.proj_out(h_.reshape(b, c, h, w))


def padded_counts(feats: Float[Tensor, "b n ..."] | Int[Tensor, "b n"], lens: Int[Tensor, "b n"]):
    """``.shape`` of a union of arrays of different ranks: the sizes they share."""
    batch, seq, *_ = feats.shape
    counts = torch.zeros(seq, batch, dtype=torch.long)
    return counts + lens  # E: cannot broadcast [broadcast]


def encode_maybe_batched(x: Float[Tensor, "... d"], w: Float[Tensor, "d k"], batched: bool):
    """The columns of ``y.T`` of a ``(..., d)`` value of no parameter's axes are still
    the last of its ``...``: they meet the ``d`` rows of ``w``."""
    y = x[None] if batched else x
    return y.T @ w  # E: this works only when '...' is empty [matmul]


def lengths_to_mask(lens: Int[Tensor, "b ..."], max_len: int | None = None) -> Bool[Tensor, "... m"]:
    """A body that fills in a parameter left None (``if not exists(max_len):``) still
    tells a call which axes the anonymous ``...`` of its result are."""
    if not exists(max_len):
        max_len = int(lens.amax())
    arange = torch.arange(max_len, device=lens.device)
    return arange < lens[..., None]


def masked_tokens(lens: Int[Tensor, "b n"], feats: Float[Tensor, "b m d"]):
    total = lens.sum(dim=0)
    mask = lengths_to_mask(total)
    return feats * mask[..., None]  # E: cannot broadcast [broadcast]


def tv_loss(x):
    """``b, c, h, w = x.size()`` of an unannotated ``x``: only a torch tensor's ``size``
    is called for its sizes, so ``x`` is a tensor of those four axes."""
    b, c, h, w = x.size()
    dh = x[:, :, 1:, :] - x[:, :, : h - 1, :]
    dw = x[:, :, :, 1:] - x[:, :, : w - 1, :]  # E: axis -1 has sizes w-1 and w [broadcast]
    return (dh.pow(2).sum() + dw.pow(2).sum()) / b


def total_variation(x):
    """An unannotated ``x`` whose body calls ``x.size()`` and reads ``x.size()[3]``: a
    torch tensor of at least four axes, each a size of its own, compared with another
    of them only where they provably differ (``h`` and ``h - 1``)."""
    batch_size = x.size()[0]
    h_x = x.size()[2]
    w_x = x.size()[3]
    h_tv = torch.pow(x[:, :, 1:, :] - x[:, :, :, : h_x - 1], 2).sum()  # E: axis 2 has sizes x.shape[2]-1 and x.shape[2] [broadcast]
    w_tv = torch.pow(x[:, :, :, 1:] - x[:, :, :, : w_x - 1], 2).sum()
    return (h_tv + w_tv) / batch_size


def vertex_normals(
    v_pos: Float[Tensor, "Nv 3"], face_normals: Float[Tensor, "Nf 3"], i0: Int[Tensor, " Nf"]
) -> Float[Tensor, "Nv 3"]:
    """An index may have at most the source's size on every axis (and the input's on
    every axis but ``dim``): ``i0[None, :]`` repeated is ``(1, 3*Nf)``."""
    v_nrm = torch.zeros_like(v_pos)
    v_nrm.scatter_add_(0, i0[None, :].repeat(1, 3), face_normals)  # E: .scatter_add_: index (1, 3*Nf) is larger than src (Nf, 3) at axis 1 (3*Nf > 3) [index]
    return v_nrm


def pick_both(scores: Float[Tensor, "b n"], idx: Int[Tensor, "b k"]) -> Float[Tensor, "2*b k"]:
    return scores.gather(1, torch.cat([idx, idx], 0))  # E: .gather: index (2*b, k) is larger than the input (b, n) at axis 0 (2*b > b) [index]


def guided(latents: Float[Tensor, "B C H W"], k: int) -> Float[Tensor, "B C H W"]:
    """``[x] * k`` is a list of ``k`` items ``x``: joined along the channels, not the
    batch, the ``k`` copies have ``k*C`` channels."""
    x_in = torch.cat([latents] * k, dim=1)
    return x_in + latents  # E: axis -3 has sizes C*k and C [broadcast]


def principal_axes(cov: Float[Tensor, "b 3 3"]) -> Float[Tensor, "b 3"]:
    _, vectors = torch.linalg.eigh(cov)  # (values, vectors): vectors are (b, 3, 3)
    return vectors  # E: return value


def halves(x: Float[np.ndarray, "n 6"]) -> Float[np.ndarray, "n 2"]:
    left, right = np.split(x, 2, axis=1)
    return left  # E: axis 1 has size 3, expected 2 [return]


class Normed(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.RMSNorm(64)

    def forward(self, x: Float[Tensor, "b 16 64"]) -> Tensor:
        return self.norm(x.transpose(1, 2))  # E: RMSNorm: x.transpose(1, 2) (b, 64, 16) axis 2 has size 16, expected 64 [layer]


def trace_of(m: Float[Tensor, "b n n"]) -> Float[Tensor, " b"]:
    # diagonal() takes axes 0 and 1 by default: the batch's and a row's
    return m.diagonal().sum(-1)  # E: [return]


def copy_blocks(out: Float[Tensor, "t m m"], block: Float[Tensor, "t n n"], keep: Bool[Tensor, "m m"]):
    # a mask among index arrays is the index arrays of its true items: the rows of
    # ``rows[:, None]`` broadcast with the mask's count, (t, count), not (t, 1, count)
    rows = torch.arange(block.shape[0])
    out[rows.unsqueeze(1), keep] = block.flatten(0, 1)  # E: axis -2 has sizes t and n*t [broadcast]


class HeadLogits(NamedTuple):
    pde: Float[Tensor, "b pde n n"]
    plddt: Float[Tensor, "b plddt m"]


def plddt_scores(logits: Float[Tensor, "b plddt m"]) -> Float[Tensor, "b m"]:
    return logits.softmax(1).sum(1)


def confidence(heads: HeadLogits) -> Float[Tensor, "b m"]:
    # a named tuple's fields have their declared shapes: the pde logits are 4-d
    return plddt_scores(heads.pde)  # E: has rank 4, expected rank 3 [arg-type]


def confidence_unpacked(heads: HeadLogits) -> Float[Tensor, "b m"]:
    pde, _ = heads  # its items are its fields, in order
    return plddt_scores(pde)  # E: has rank 4, expected rank 3 [arg-type]


def head_logits(pde: Float[Tensor, "b p n n"], plddt: Float[Tensor, "b q m"]) -> HeadLogits:
    return HeadLogits(plddt, pde)  # E: field pde of HeadLogits (b, q, m) has rank 3 [arg-type]


@dataclass
class AliveMasks:
    alive_masks: dict[str, Bool[Tensor, "1 seq C"]]


@dataclass
class CIParams:
    alive_info: AliveMasks

    def expand(self) -> list:
        # the sizes the instance's declared attributes name are chosen by each instance:
        # a loop over C indexes the seq axis, out of range when C > seq
        rows = []
        for mask in self.alive_info.alive_masks.values():
            seq_len = mask.shape[-1]
            for pos in range(seq_len):
                rows.append(mask[0, pos, :])  # E: index pos runs over range(C) [index]
        return rows


def scatter_rows(ci: Float[Tensor, "1 seq C"], values: list[Tensor]) -> Tensor:
    full = torch.zeros_like(ci)
    for pos in range(ci.shape[-1]):
        full[0, pos, :] = values[pos]  # E: index pos runs over range(C) [index]
    return full


def repeat_rows(
    feats: Float[Tensor, "b n ..."] | Bool[Tensor, "b n"], lens: Int[Tensor, "b n"], fill
) -> Float[Tensor, "b m ..."] | Bool[Tensor, "b m"]:
    # every member of the return's union rejects axis 0 (a sum over the batch): the
    # error, whatever the rank of the array (fill's result is of unknown rank)
    import einx

    total = lens.sum(dim=0)
    mask = torch.arange(8) < total[:, None]
    out = einx.where("b n, b n ..., -> b n ...", mask, fill(feats), 0.0)
    return out  # E: axis 0 has size n, expected b [return]


def first_mask_rows(masks: dict[str, Bool[Tensor, "b C"]]) -> Bool[Tensor, "b 1"]:
    # next(iter(d.values())) is one of the dict's values, with its declared shape
    sample = next(iter(masks.values()))
    return sample.any(dim=-1)  # E: has rank 1, expected rank 2 [return]


@dataclass(frozen=True)
class ResidueSpan:
    restype: Int[Tensor, " n_tokens"]
    centre_atom_index: Int[Tensor, " n_tokens"]
    atom_coords: Float[Tensor, "n_atoms 3"]
    atom_token_index: Int[Tensor, " n_atoms"]


def one_residue_span(
    restype: Int[Tensor, " n_tokens"], atom_coords: Float[Tensor, "n_atoms 3"]
) -> ResidueSpan:
    centre = torch.zeros(1, dtype=torch.long)
    token_index = torch.zeros_like(restype)  # made like the tokens, not the atoms
    # after a field that does not fit (the centre index, of one token), the fields that
    # read none of its names are still checked against the others
    return ResidueSpan(restype, centre, atom_coords, token_index)  # E: field centre_atom_index of ResidueSpan (1,) [arg-type] # E: field atom_token_index of ResidueSpan (n_tokens,) axis 0 has size n_tokens, expected n_atoms [arg-type]


def mix(
    x: Float[Tensor, "b n"],
    w: Float[Tensor, " n"],
    v: Float[Tensor, " n"],
    y: Float[Tensor, "c d"],
    z: Float[Tensor, " d"],
) -> Tensor:
    return x


def mix_call(
    x: Float[Tensor, "b n"],
    w: Float[Tensor, " m"],
    y: Float[Tensor, "c d"],
    z: Float[Tensor, " e"],
):
    # the argument that does not fit (w) taints the names it reads: v, which reads n
    # too, is not checked again (no cascade); z, which reads none of them, is
    return mix(x, w, w, y, z)  # E: argument 'w' of mix() (m,) [arg-type] # E: argument 'z' of mix() (e,) [arg-type]


def weighted_latents(
    vae, rgb: Float[Tensor, "B H W 3"], alphas: Float[Tensor, " T"], t: Int[Tensor, " B"]
) -> Tensor:
    # a bare declaration, then a value the checker cannot follow: the name holds
    # what it declares
    latents: Float[Tensor, "B 4 64 64"]
    latents = vae.encode(rgb.permute(0, 3, 1, 2))
    w = 1.0 - alphas[t]  # (B,): the view(-1, 1, 1, 1) is missing
    return w * latents  # E: cannot broadcast w (B,) with latents (B, 4, 64, 64): axis -1 has sizes B and 64 [broadcast]


def predict_noise(
    latents: Float[Tensor, "B 4 H W"], t: Int[Tensor, " B"]
) -> Float[Tensor, "B 4 H W"]:
    return latents


def one_step(x: Float[Tensor, "B C H W"], t: Int[Tensor, " B"], sigmas: Float[Tensor, " T"]):
    # a call whose argument does not fit still gives its declared result, with the
    # sizes that argument reads unknown: (?, 4, ?, ?)
    eps = predict_noise(x, t)  # E: argument 'latents' of predict_noise() (B, C, H, W) axis 1 has size C, expected 4 [arg-type]
    return x - sigmas[t].view(1, -1, 1, 1) * eps  # E: cannot broadcast sigmas[t].view(1, -1, 1, 1) (1, B, 1, 1) with eps (?, 4, ?, ?): axis -3 has sizes B and 4 [broadcast]


def one_step_either(
    x: Float[Tensor, "B C 64 64"], t: Int[Tensor, " B"], w: Float[Tensor, " B"], flag: bool
):
    if flag:
        eps = torch.zeros(x.shape[0], 4, 64, 64)
    else:
        eps = predict_noise(x, t)  # E: argument 'latents' of predict_noise() [arg-type]
    # that result, reported where it was made, leaves the other branch's array as it
    # is where the branches meet (as an unknown value would): (B, 4, 64, 64)
    return w * eps  # E: cannot broadcast w (B,) with eps (B, 4, 64, 64): axis -1 has sizes B and 64 [broadcast]


def summed_loss(
    pred: Float[Tensor, "... vocab"], target: Float[Tensor, "... vocab"], kind: str
) -> Float[Tensor, ""]:
    # each case of a match whose cases leave arrays of two ranks is followed on its
    # own; the sum over the last axis only keeps the parameter's '...', which a
    # scalar result fits only when it is empty
    match kind:
        case "mse":
            loss = ((pred - target) ** 2).sum(dim=-1)
        case _:
            loss = (pred - target).abs().sum()
    return loss  # E: return value of summed_loss() (...,) keeps the '...' of a parameter, expected rank 0 (), so this works only when '...' is empty [return]


def last_token(x: Float[Tensor, "... d"]) -> Float[Tensor, " d"]:
    return x  # E: return value of last_token() (..., d) keeps the '...' of a parameter, expected rank 1 (d,), so this works only when '...' is empty [return]


def total(x: Tensor) -> Float[Tensor, " n"]:
    # a sum over every axis leaves none, whatever the rank of the array
    return x.sum()  # E: return value of total() () has rank 0, expected rank 1 [return]


def flat(x: Tensor, a: np.ndarray) -> tuple[Float[Tensor, "n m"], Float[np.ndarray, "n m"]]:
    # flattened, any array is one axis; from start_dim 1, two
    return x.flatten(), a.ravel()  # E: has rank 1, expected rank 2 [return]


def flat_from_one(x: Tensor) -> Float[Tensor, " n"]:
    return x.flatten(1)  # E: has rank 2, expected rank 1 [return]


def alive_counts(masks: dict[str, Bool[Tensor, "1 seq C"]]) -> dict[str, list[int]]:
    # tolist() nests as deep as the array has axes; an item assigned to a declared
    # dict is held to its value type
    counts: dict[str, list[int]] = {}
    for name, mask in masks.items():
        per_pos = mask.sum(dim=-1)  # (1, seq): the batch row is not taken
        counts[name] = per_pos.tolist()  # E: value assigned to counts[name] is List[List[int]], expected List[int] [assign]
    return counts
