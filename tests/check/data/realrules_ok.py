"""The correct twin of ``realrules_bad.py``: the same rules on code that runs."""

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
from pydantic import BaseModel
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
    masks, asyms = chain_masks(asym_id, mask)
    found = []
    for chain in masks.unbind(dim=-2):
        found.append(polymer & chain)
    return found


def clashes_per_chain(
    asym_id: Int[Tensor, "... a"],
    mask: Bool[Tensor, "... a"],
    pair_clashes: Int[Tensor, "... n_chains n_chains"],
) -> Tensor:
    # The number of chains counted here is the caller's n_chains: not compared.
    masks, _ = chain_masks(asym_id, mask)
    atoms = masks.sum(-1)
    return pair_clashes / rearrange(atoms, "... c -> ... c 1").clamp(min=1)


# -- numbers through one-line helpers; pure helpers keep what __init__ stored --------


class Attend(nn.Module):
    def __init__(self, window_size=None, scale: float | None = None):
        super().__init__()
        self.scale = scale
        self.is_local = exists(window_size)

    def forward(self, q: Float[Tensor, "b h i d"], k: Float[Tensor, "b h j d"]) -> Tensor:
        scale = default(self.scale, q.shape[-1] ** -0.5)
        q = q * scale
        return q @ k.transpose(-1, -2)


# -- rank tests narrow a union of arrays ------------------------------------------------


def in_frame(
    coords: Float[Tensor, "b m 3"],
    frame: Float[Tensor, "b m 3 3"] | Float[Tensor, "b 3 3"] | Float[Tensor, "3 3"],
) -> Float[Tensor, "b m 2"]:
    if frame.ndim == 2:
        frame = rearrange(frame, "r c -> 1 1 r c")
    elif frame.ndim == 3:
        frame = rearrange(frame, "b r c -> b 1 r c")
    a, b, c = frame.unbind(dim=-1)
    e1 = l2norm(a - b)
    e2 = l2norm(c - b)
    d = coords - b
    return torch.stack(((d * e1).sum(-1), (d * e2).sum(-1)), dim=-1)


# -- aliases of tuples of arrays ----------------------------------------------------------


def delta_out(x: Float[Tensor, "... d_in"], delta: Pair | None = None) -> Tensor:
    if delta is not None:
        weight, _ = delta
        return torch.einsum("...i,oi->...o", x, weight)
    return x


# -- buffers declared after register_buffer; a slice of a length-1 axis ----------------


class Positions(nn.Module):
    def __init__(self, d_model: int, max_len: int):
        super().__init__()
        self.register_buffer("pe", torch.zeros(max_len, d_model).unsqueeze(0))
        self.pe: Tensor

    def forward(self, x: Float[Tensor, "B S D"]) -> Float[Tensor, "B S D"]:
        return x + self.pe[:, : x.size(1)]


def first_rows(x: Float[Tensor, "1 n"], z: Float[Tensor, "b n"], t: int) -> Tensor:
    return x[:t] + z  # x[:t] of one row is that row


class RotaryConfig(BaseModel):
    n_head: int = 12
    n_embd: int = 768
    rotary_dim: int = 64


class Rotary(nn.Module):
    """A layer that renames a configuration's size for itself."""

    def __init__(self, config: RotaryConfig):
        super().__init__()
        self.head_dim = config.n_embd // config.n_head
        self.rotary_dim = self.head_dim

    def forward(
        self, q: Float[Tensor, "b h t head_dim"], cos: Float[Tensor, "b t rotary_dim"]
    ) -> Tensor:
        return q[..., : self.rotary_dim] * cos.unsqueeze(1)


# -- what a boolean mask selects ----------------------------------------------------------


def contract(x: Float[Tensor, "... 3"]) -> Float[Tensor, "... 3"]:
    mag = x.norm(dim=-1, keepdim=True)
    mask = (mag > 1).squeeze(-1)
    x[mask] = x[mask] / mag[mask]
    return x


def significant(subnets: Float[Tensor, "n_subnets f h"], cut: float) -> Float[Tensor, "k f h"]:
    norms = subnets.norm(dim=-1).sum(-1)
    mask = norms > cut
    return subnets[mask]  # the annotation names the count


# -- split by a size; configurations of pydantic ----------------------------------------


def heads(x: Float[Tensor, "b t (3*c)"], c: int) -> Float[Tensor, "b t t"]:
    q, k, v = x.split(c, dim=-1)
    return q @ k.transpose(-1, -2)


class GPTConfig(BaseModel):
    n_head: int = 12
    n_embd: int = 768


class SelfAttention(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)

    def forward(self, x: Float[Tensor, "batch pos d_model"]) -> Tensor:
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        return (q @ k.transpose(-2, -1)).view(B, self.n_head, T, T)


# -- einx without an arrow; an activation chosen by a flag; a 1 in an einops pattern ----


def mean_pool(summed: Float[Tensor, "b n d"], lens: Float[Tensor, "b n"]) -> Tensor:
    import einx

    return einx.divide("b n d, b n", summed, lens)


def act_plus_resid(batch: Float[Tensor, "b f"], coeffs: Float[Tensor, " f"], relu: bool) -> Tensor:
    weighted = torch.einsum("bf,f->bf", batch, coeffs)
    act = F.relu if relu else F.gelu
    return act(weighted) + batch


def include(plddt: Float[Tensor, "b n"], flag: Bool[Tensor, "b 1"]) -> Tensor:
    from einops import repeat

    keep = torch.rand_like(flag, dtype=torch.float) < 0.5
    return repeat(keep, "b 1 -> b m", m=4)


def per_chain(x: Float[Tensor, "b n"], k: int) -> Float[Tensor, "b k n"]:
    results = []
    for _ in range(k):
        results.append(x * 2)
    return torch.stack(results, dim=1)


def encode(
    x: Float[Tensor, "... d_in"], w: Float[Tensor, "d_in d_sae"], b: Float[Tensor, " d_sae"]
):
    return x @ w + b


def project(v: Float[Tensor, "... d"], w: Float[Tensor, "k d"]) -> Tensor:
    return w @ v  # a matrix times a vector: the vector's d meets the matrix's


def interface(coords: Float[Tensor, "... n 3"], cut: float) -> Bool[Tensor, "... n"]:
    nearest, _ = torch.cdist(coords, coords).min(dim=-1)
    return nearest < cut


def bin_centres(logits: Float[Tensor, "b p m"]) -> Float[Tensor, "b m"]:
    logits = logits.transpose(-1, -2)
    width = 1.0 / logits.shape[-1]
    centres = torch.arange(0.5 * width, 1.0, width)
    edges = torch.arange(0, 1.0, width)  # n or n + 1 by rounding: not known
    return torch.einsum("bmp,p->bm", logits.softmax(-1), centres) + edges.sum()


class TriangleMix(nn.Module):
    def __init__(self, dim: int, hidden=None):
        super().__init__()
        hidden = hidden if hidden is not None else dim
        self.proj = nn.Sequential(nn.Linear(dim, hidden * 4, bias=False), nn.GLU(dim=-1))

    def forward(self, x: Float[Tensor, "b n n d"], mask: Bool[Tensor, "b n n"]) -> Tensor:
        mask = mask[..., None]
        left, right = self.proj(x).chunk(2, dim=-1)
        first, *rest = x.chunk(3, dim=-1)
        return left * mask + right + first.sum() + len(rest)


def gated(x: Float[Tensor, "b 4"]) -> Float[Tensor, "b 2"]:
    return F.glu(x, dim=-1)


def firing_rows(x: Float[Tensor, "b n"], w: int) -> Tensor:
    mask = x.sum(-1) > 0
    (rows,) = torch.where(mask)
    first = x[mask][:, 0]
    window = rows.unsqueeze(1).expand(-1, w)  # a count meets only itself and constants
    return (rows + first).sum() + window.sum() + torch.nonzero(mask).sum()


def halvings(k: int) -> Tensor:
    w = 1.0
    for _ in range(k):
        w = w / 2  # a float of another value each time round: unknown after the loop
    t = torch.arange(0.25 * w, 1.0, w)  # 2**k items
    return t.reshape(2, -1)


def decode(net, dirs: Float[Tensor, "B H W 3"]) -> Float[Tensor, "B H W 8"]:
    return net(dirs.view(-1, 3)).view(*dirs.shape[:-1], 8)


def condition(emb, t: Float[Tensor, "B 4"], series) -> tuple:
    counts = series.repeat(3), series.view("int64")  # NumPy's and pandas' forms: unknown
    return torch.cat([emb.repeat(len(t), 1, 1), t[:, None, :]], dim=-1), counts


def colour(image: Float[Tensor, "*bs 1"]) -> Float[Tensor, "*bs 3"]:
    return image.repeat(1, 1, 3)  # rank 3: '*bs' of two axes, which the input may have


@dataclass
class HeadsConfig:
    d_model: int
    n_heads: int
    d_head: int


def split_heads(bias, cfg: HeadsConfig) -> Tensor:
    qkv = bias.view(3, cfg.d_model)
    return qkv.view(3, cfg.n_heads, cfg.d_head)  # the configuration ties the three


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

    logits = repeat(logits, "... a b -> ... c a b", c=masks.shape[-2])
    return plddt(logits, masks, centers, per_residue=False) + plddt(logits, masks, centers).sum()


def shifted_centres(n: int) -> Tensor:
    w = 1.0 / n
    inner = torch.arange(w / 2, 1.0 - w / 4, w)  # n
    later = torch.arange(w + w / 2, 1.0, w)  # n - 1
    return inner[1:] + later


def masked_sum(x: Float[Tensor, "... n d"], mask: Bool[Tensor, "..."] | None = None) -> Tensor:
    if mask is not None:
        x = x * mask[..., None]
    return x.sum(-2)


def pooled(x: Float[Tensor, "b n d"], m: Bool[Tensor, "b n"]) -> Tensor:
    return masked_sum(x, m) + masked_sum(x)


def blend(a: Float[Tensor, "n 3"], v: Float[Tensor, " n"], m: Float[Tensor, "n n"]) -> Tensor:
    import numpy as np

    mixed = torch.lerp(a, v[:, None], 0.5) + torch.addcmul(a, a, v[:, None])
    poses = torch.eye(4)[None, :3, :4].tile(v.shape[0], 1, 1)  # (n, 3, 4)
    counts = torch.bincount(v.long()).sum() + len(np.unique(np.zeros(3)))
    grid = np.tile(np.zeros((4, 3)), (2, 1, 1)).reshape(2, 12)
    return mixed * torch.diag(m)[:, None] + poses[:, :, :3].sum(-1) + counts + grid.sum()


# -- this round: generic batches, grown lists of batched arrays, fields, bare helpers ---


def unit_inside(x: Float[Tensor, "... 3"]) -> Float[Tensor, "... 3"]:
    mag = x.norm(dim=-1, keepdim=True)
    mask = mag.squeeze(-1) > 1
    x[mask] = x[mask] / mag[mask]
    return x


def pairwise(
    scores: Float[Tensor, "... n"], asyms: Int[Tensor, " c"]
) -> tuple[Float[Tensor, "... c c"], Int[Tensor, " c"]]:
    rows = []
    for i in range(asyms.numel()):
        rows.append(scores[..., : asyms.numel()] * i)
    return torch.stack(rows, dim=-2), asyms


def bare_masked_mean(mask: Tensor, value: Tensor, dim: int) -> Tensor:
    mask = mask.expand(*value.shape)
    return (mask * value).sum(dim) / mask.sum(dim).clamp(min=1)


def chain_means(x: Float[Tensor, "b c a"], m: Bool[Tensor, "b a"]) -> Tensor:
    return bare_masked_mean(m[:, None, :], x, dim=-1)


@dataclass
class Grouping:
    group_idxs: Int[Tensor, " n_components"]
    k_groups: int

    @property
    def n_components(self) -> int:
        return int(self.group_idxs.shape[0])

    def to_matrix(self) -> Bool[Tensor, "k_groups n_components"]:
        mat = torch.zeros((self.k_groups, self.n_components), dtype=torch.bool)
        return mat


def encode_sae(x: Float[Tensor, "... d_in"], w: Float[Tensor, "d_in d_sae"]) -> Tensor:
    return x @ w


def encode_rows(x: Float[Tensor, "d_in n"], w: Float[Tensor, "d_in d_sae"]) -> Tensor:
    return x.T @ w


def swiglu(x: Float[Tensor, "... d"]) -> Float[Tensor, "... (d//2)"]:
    x, gates = x.chunk(2, dim=-1)
    return F.silu(gates) * x


def split_view(pts: Float[Tensor, "*bs 3"], c2w: Float[Tensor, "*c 3 4"]) -> Tensor:
    r = c2w[0, 0:3, 0:3].T
    flat = (r @ pts.view(-1, 3).T).T  # a layout not known
    return flat.view(*pts.shape)  # splits an axis: a view of any layout does


def outer_sum(t: Float[Tensor, "b n ds"], proj: nn.Linear) -> Float[Tensor, "b n n dh"]:
    single_i, single_j = t.chunk(2, dim=-1)
    out = single_i[:, :, None, :] + single_j[:, None, :, :]
    return out


def split_qkv(qkv: Float[Tensor, "b t c3"], c: int, h: int):
    q, k, v = qkv.split(c, dim=2)
    return q.view(qkv.shape[0], qkv.shape[1], h, c // h)


class AdaNorm(nn.Module):
    def __init__(self, dim: int, dim_cond: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim, elementwise_affine=False)
        self.norm_cond = nn.LayerNorm(dim_cond)
        self.to_gamma = nn.Linear(dim_cond, dim)

    def forward(self, x: Float[Tensor, "b n d"], cond: Float[Tensor, "b n dc"]) -> Tensor:
        normed = self.norm(x)
        gamma = self.to_gamma(self.norm_cond(cond))
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
        return torch.cat((q_rotated, q[..., r:]), dim=-1)


def chain_scatter(x: Float[Tensor, "... a 3"], m: Bool[Tensor, "... a"], k: int) -> Tensor:
    *b, a = m.shape
    counts = x.new_zeros(*b, a, k)
    return counts + x[..., 0, None]


N_TYPES = 5
PROTEIN = 0


def disorder(plddt: Float[Tensor, "b m"], types: Bool[Tensor, f"b m {N_TYPES}"]) -> Tensor:
    protein = types[..., PROTEIN]
    return plddt * protein


def to_windows(pair: Float[Tensor, "... m m dp"], w: int) -> Tensor:
    seq_len = pair.shape[-2]
    pad = (w - (seq_len % w)) % w
    pair = F.pad(pair, (0, 0, 0, pad, 0, pad), value=0.0)
    return rearrange(pair, "... (i w1) (j w2) d -> ... i j w1 w2 d", w1=w, w2=w)


def molecule_type(ids: Int[Tensor, " n"], one_hot: bool = False) -> int | Bool[Tensor, f" {N_TYPES}"]:
    if one_hot:
        return torch.zeros(N_TYPES, dtype=torch.bool)
    return int(ids[0])


def weight(kind: int) -> int:
    return kind + 1


def weight_of(ids: Int[Tensor, " n"]) -> int:
    return weight(molecule_type(ids, one_hot=False))  # the flag picks the int


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
        return einsum(a, self.U, "... C, C dim -> ... dim")


def split_heads_all(
    q: Float[Tensor, "b n hd"], k: Float[Tensor, "b m hd"], v: Float[Tensor, "b m hd"], h: int
) -> Tensor:
    q, k, v = tuple(rearrange(t, "b n (h d) -> b h n d", h=h) for t in (q, k, v))
    return (q @ k.transpose(-1, -2)).softmax(-1) @ v


class ValueMix(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.to_v = nn.Linear(dim, dim)
        self.to_mix = nn.Linear(dim, heads)

    def forward(self, x: Float[Tensor, "b n d"], residual: Float[Tensor, "b h n dh"]) -> Tensor:
        v = rearrange(self.to_v(x), "b n (h d) -> b h n d", h=self.heads)
        mix = rearrange(self.to_mix(x), "b n h -> b h n 1").sigmoid()
        return v.lerp(residual, mix)  # heads of the instance, h of the method: not compared


def corners(x: Float[Tensor, "... 6"], scale: Float[Tensor, " 3"], e: Float[Tensor, "... 0"]) -> Tensor:
    lo, hi = x.chunk(2, dim=-1)
    nothing = e.chunk(2, dim=-1)  # an empty axis: torch gives one empty piece
    return lo * scale + hi


def per_layer_sums(acts: dict[str, Float[Tensor, "... C"]], w: Float[Tensor, "C d"]) -> Tensor:
    out = []
    for name, a in acts.items():
        out.append(a @ w)
    return torch.stack(out)


def lookup(names: list[str], table: list[str], pos: Float[Tensor, "n 3"]) -> Tensor:
    where = {name: i for i, name in enumerate(table)}
    idx = torch.tensor([where.get(name, -1) for name in names])
    return pos[idx] * (idx != -1).unsqueeze(-1)


def masked_rows(batch: dict[str, Tensor], x: Float[Tensor, "b n"], k: int) -> Tensor:
    mask = batch["asym_id"] == k  # a mask of unknown rank: x[mask] is not known
    return rearrange(x[mask], "(b a) -> b a", b=x.shape[0])


def backbone(names: list[str], table: list[str]) -> Int[Tensor, "3"]:
    idx = [table.index(n) for n in names]
    return torch.tensor(idx)


def constraints(ids: Int[Tensor, " n"], a: int, b: int, d: Float[Tensor, "c1 c2"], m: Float[Tensor, "n n"]) -> Tensor:
    (c1,) = torch.where(ids == a)
    (c2,) = torch.where(ids == b)
    assert len(c1) == d.shape[0] and len(c2) == d.shape[1]
    rows = c1[:, None].expand(-1, len(c2))
    cols = c2[None, :].expand(len(c1), -1)
    m[rows, cols] = d
    return m


def doubled(x: Float[Tensor, "B 4 H W"], cond: Float[Tensor, "B2 4 H W"]) -> Tensor:
    return torch.cat([torch.cat([x] * 2, dim=0), cond], dim=0)


def pair_errors(x: Float[Tensor, "b n 3"], y: Float[Tensor, "b n 3"]) -> Float[Tensor, "b n n"]:
    n = x.shape[1]
    ax = x[:, :, None].expand(-1, -1, n, -1).reshape(x.shape[0], -1, 3)
    ay = y[:, None].expand(-1, n, -1, -1).reshape(x.shape[0], -1, 3)
    d = F.pairwise_distance(ax, ay)
    return rearrange(d, "b (i j) -> b i j", i=n, j=n)


def cosine_rows(x: Float[Tensor, "b n d"], y: Float[Tensor, "b n d"]) -> Float[Tensor, "b n"]:
    return F.cosine_similarity(x, y, dim=-1)


class Subnets:
    def __init__(self, v: Tensor, u: Tensor):
        self.v, self.u = v, u

    def extract(self) -> Float[Tensor, "n_subnets n_features n_hidden"]:
        return torch.einsum("fC,Ch->Cfh", self.v, self.u)

    def best(self) -> tuple[Float[Tensor, "n_subnets n_features"], Float[Tensor, " n_features"]]:
        sims = self.extract().sum(-1)
        return sims, sims.max(dim=0).values

    def rows(self, x: Float[Tensor, "b n_features"]) -> Float[Tensor, " b"]:
        return x.sum(-1)

    def pooled(self, x: Float[Tensor, " n_features"]) -> Float[Tensor, " b"]:
        return self.rows(x[None])


class Counts:
    def __init__(self, n: int):
        self.counts = torch.zeros(n)

    def merge(self, other: Counts) -> None:
        self.counts += other.counts

    def update(self, x: Float[Tensor, "b n"]) -> None:
        self.counts += x.sum(0)

    def scaled(self, w: Float[Tensor, "b n"]) -> None:
        self.counts.mul_(w.mean(0))


def columns(q: Float[Tensor, "b n d"], k: Float[Tensor, "b m d"]) -> Tensor:
    q, k = map(lambda t: t.transpose(1, 2), (q, k))
    return q.transpose(1, 2) @ k


def scaled(x: Float[Tensor, "b n"], w: Float[Tensor, " n"]) -> Tensor:
    scale = lambda t: t * w
    return scale(x)


def unused_lambda(x: Float[Tensor, "b n"], w: Float[Tensor, " m"]) -> Tensor:
    pick = sorted([x, x], key=lambda t: t.shape[0])
    return pick[0]


def per_sample(loss: Float[Tensor, "b c h w"], w: Float[Tensor, " b"]) -> Float[Tensor, " b"]:
    return loss.mean(dim=tuple(range(1, loss.ndim))) * w


def reordered(feats: Float[Tensor, "1 depth tokens dim"], mask: Bool[Tensor, "1 depth tokens"]) -> Float[Tensor, "1 depth tokens dim"]:
    keep = mask.sum(-1)[0] > 0
    (kept,) = torch.where(keep)
    (rest,) = torch.where(~keep)
    order = torch.cat([kept, rest])
    return torch.index_select(feats, dim=1, index=order)


def flags(xs: Float[Tensor, "b m 3"]) -> Bool[Tensor, " b"]:
    found = []
    for i in range(xs.shape[0]):
        found.append((xs[i] > 0).any())
    return torch.stack(found)


def rows(t: Int[Tensor, "*dims l"], w: Float[Tensor, "l k"]) -> Tensor:
    flat = rearrange(t, "... l -> (...) l")
    return flat @ w


def flat_rows(t: Int[Tensor, "*dims l"]) -> Int[Tensor, "n l"]:
    return rearrange(t, "... l -> (...) l")


def chosen(x: Float[Tensor, "n 8"], code: Float[Tensor, " d"], kind: str | None) -> Tensor:
    match kind:
        case None:
            return x
        case "pad":
            return x == code[None, :8]
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
        return lap.mm(self.v_pos).norm(dim=1).mean()


def flat_rays(d: Float[Tensor, "... 3"]) -> Float[Tensor, "n 3"]:
    return d.reshape(-1, 3)


def rays_back(d: Float[Tensor, "... 3"], w: Float[Tensor, "3 k"]) -> Float[Tensor, "... k"]:
    flat = d.reshape(-1, d.shape[-1]) @ w
    return flat.reshape(*d.shape[:-1], -1)


@dataclass
class Templates:
    restype: Int[Tensor, "n_templates n_tokens"]
    distances: Float[Tensor, "n_templates n_tokens n_tokens"]


def select_tokens(t: Templates, idxs: Int[Tensor, " k"]) -> Templates:
    return Templates(restype=t.restype[:, idxs], distances=t.distances[:, idxs][:, :, idxs])


def alive_pairs(ci: Float[Tensor, "b seq c"], threshold: float) -> Tensor:
    alive = ci[0] > threshold
    seq, c = torch.where(alive)
    return seq + c


def off_diagonal(ci: Float[Tensor, "batch c"]) -> Tensor:
    size = min(ci.shape)
    mask = torch.ones_like(ci, dtype=torch.bool)
    mask[:size, :size].fill_diagonal_(False)
    return ci[mask]


class Hit:
    def __init__(self, idx: Int[Tensor, " n"]):
        self._idx = idx

    @property
    def indices(self) -> Int[Tensor, " n"]:
        return self._idx + 1

    @property
    def valid(self) -> Bool[Tensor, " n"]:
        offset = self.indices[1:] - self.indices[:-1]
        retval = torch.cat((torch.tensor([True]), offset > 0))
        assert retval.shape == self.indices.shape
        return retval


@dataclass
class GeoConfig:
    geo_feat_dim: int = 256


class GeoFeatures:
    def __init__(self, config: GeoConfig):
        self.config = config

    def flat(self, geo: Float[Tensor, "*batch geo_feat_dim"]) -> Tensor:
        return geo.view(-1, self.config.geo_feat_dim)


def docking_mask(token_dists: Float[Tensor, "n n"], p: float, num_bins: int) -> Tensor:
    geom = torch.distributions.Geometric(torch.tensor([p]))
    return (geom.sample(token_dists.shape) == 1).expand(-1, -1, num_bins)


def pocket_mask(mask: Bool[Tensor, "n n"], p: float) -> Tensor:
    geom = torch.distributions.Geometric(torch.tensor([p]))
    mask[~(geom.sample(mask.shape) == 1).squeeze(-1)] = False
    return mask


def gaussian_nll(mu: Float[Tensor, "b d"], log_sigma: Float[Tensor, "b"], x: Float[Tensor, "b d"]) -> Float[Tensor, " b"]:
    dist = torch.distributions.Normal(mu, log_sigma.exp()[:, None])
    return -dist.log_prob(x).sum(-1)


def categorical_pick(logits: Float[Tensor, "b k"], values: Float[Tensor, "b k"]) -> Float[Tensor, " b"]:
    idx = torch.distributions.Categorical(logits=logits).sample()
    return values.gather(1, idx[:, None])[:, 0]


def split_heads(qkv: Float[Tensor, "b n e"]) -> Tensor:
    q, k, v = rearrange(qkv, "b n (three d) -> three b n d", three=3)
    return (q @ k.mT).softmax(-1) @ v


def frames_of(points: Float[Tensor, "3 ... d"]) -> Tensor:
    packed, _ = pack([points], "three * d")
    return packed @ packed.mT


def per_head(x: Float[Tensor, "b h n d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "b h n k"]:
    packed, ps = pack([x], "* n d")
    (out,) = unpack(packed @ w, ps, "* n k")
    return out


def string_to_code(text: str) -> UInt8[Tensor, " l"]:
    ords = [ord(c) for c in text]
    return torch.tensor(ords, dtype=torch.uint8)


def layer_loss_total(sums: dict[str, Float[Tensor, " C"]], n: int) -> Float[Tensor, ""]:
    total = torch.tensor(0.0)
    for layer_sums in sums.values():
        layer_loss = (layer_sums / n).sum()
        total += layer_loss
    return total


def pair_loss(x: Float[Tensor, "b n"], y) -> Float[Tensor, "b"]:
    return F.mse_loss(x, y, reduction="none").mean(-1)


def tiled(x: Float[Tensor, "h w 3"], n: int) -> Float[Tensor, "n h w 3"]:
    return x[None].repeat(n, 1, 1, 1)


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
            out = out * self.to_gates(seq)
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
            pred = latents * self.sigmas[t].view(-1, 1, 1, 1)
        return pred

    def step(self, latents: Float[Tensor, "B 4 H W"], t: Int[Tensor, " B"], mode: str) -> Tensor:
        return self.forward_unet(torch.cat([latents] * 2), torch.cat([t] * 2), velocity=mode == "v")


class Conformer:
    def __init__(self, position: Float[Tensor, "a 3"], atom_names: list[str]):
        self.position = position
        self.atom_names = atom_names

    def gather(self, query: list[str]) -> tuple[Float[Tensor, "n 3"], Bool[Tensor, " n"]]:
        lookup = {name: i for i, name in enumerate(self.atom_names)}
        indices = torch.tensor([lookup.get(name, -1) for name in query])
        mask = indices != -1
        return self.position[indices] * mask.unsqueeze(-1), mask


class TinyGPT(nn.Module):
    def __init__(self, vocab: int, block: int, n_embd: int):
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(block, n_embd)

    def forward(self, idx: Int[Tensor, "batch pos"]) -> Tensor:
        _b, t = idx.size()
        pos = torch.arange(0, t)
        tok = self.wte(idx)
        return tok + self.wpe(pos)


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
        return torch.cat([self.c_crossattn.repeat(len(T), 1, 1), T], dim=-1)


def masked_mean_of(mask: Bool[Tensor, "..."], value: Tensor, dim: int) -> Tensor:
    mask = mask.expand(*value.shape)
    return torch.sum(mask * value, dim=dim) / torch.sum(mask, dim=dim).clamp(min=1)


def plddt_of(logits: Float[Tensor, "... a bins"], mask: Bool[Tensor, "... a"]) -> Tensor:
    expectations = logits.softmax(-1).sum(-1)
    return masked_mean_of(mask, expectations, dim=-1)


def bond_atoms(left: Bool[Tensor, "... n"]) -> int:
    left_idx, *_ = torch.where(left)
    return left_idx.item()


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
    frames = torch.stack((x1, x2, x3), dim=-1)
    return unpack_one(frames, "* r c")


class Preconditioner(nn.Module):
    def __init__(self, sigma_data=0.5):
        super().__init__()
        self.sigma_data = sigma_data

    def c_in(self, sigma):
        return (sigma**2 + self.sigma_data**2) ** -0.5

    def forward(self, noised: Float[Tensor, "b m 3"], sigma: Float[Tensor, " b"] | Float[Tensor, ""] | float) -> Tensor:
        if isinstance(sigma, float):
            sigma = torch.full((noised.shape[0],), sigma)
        padded_sigma = rearrange(sigma, "b -> b 1 1")
        return self.c_in(padded_sigma) * noised


def lddt_inputs(coords: Float[Tensor, "b m 3"]) -> Float[Tensor, "b m"] | Float[Tensor, " m"]:
    return coords.norm(dim=-1)


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
            out[name] = torch.einsum("f C, C h -> C f h", comp.V, comp.U)
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
    labels = dgram(torch.cdist(token_pos, token_pos), bins, return_labels=True)
    return pair + labels


class GatedUnit(nn.Module):
    def forward(self, x: Float[Tensor, "... d"]) -> Float[Tensor, "... (d//2)"]:
        x, gates = x.chunk(2, dim=-1)
        return F.silu(gates) * x


class FeedForward(nn.Module):
    def __init__(self, *, dim, expansion_factor=2):
        super().__init__()
        dim_inner = int(dim * expansion_factor)
        self.ff = nn.Sequential(LinearNoBias(dim, dim_inner * 2), GatedUnit(), LinearNoBias(dim_inner, dim))

    def forward(self, x: Float[Tensor, "... d"]) -> Float[Tensor, "... d"]:
        return self.ff(x)


def slice_at(t: Tensor, dim_slice: slice, *, dim: int) -> Tensor:
    colons = [slice(None)] * t.ndim
    colons[dim] = dim_slice
    return t[tuple(colons)]


def previous_window(t: Float[Tensor, "b n w d"]) -> Tensor:
    return torch.cat((slice_at(t, slice(None, -1), dim=1), slice_at(t, slice(1, None), dim=1)), dim=-2)


def place_values(batch: Float[Tensor, "b f"], active: Int[Tensor, "b n"], values: Float[Tensor, "b n"], n: int) -> Tensor:
    for i in range(n):
        batch.scatter_(dim=1, index=active[..., i : i + 1], src=values[..., i : i + 1])
    return batch


def contact_mask(dists: Float[Tensor, "n n"], theta_range: tuple[float, float]) -> Bool[Tensor, "n n"]:
    """A number drawn by Python's ``random`` compared with an array keeps its shape."""
    theta = random.uniform(*theta_range)
    return ((dists > 0.0) & (dists < theta))


class ImageBase:
    """A mixin without ``__init__``: its subclasses' ``__init__`` call ``self.setup``,
    which builds it; ``update_step`` assigns ``self.directions`` again, of one rank."""

    def setup(self, heights: list[int], widths: list[int]) -> None:
        self.directions_by_size = [torch.zeros(h, w, 3) for h, w in zip(heights, widths)]
        self.directions = self.directions_by_size[0]

    def update_step(self, i: int) -> None:
        self.directions = self.directions_by_size[i]

    def rays(self) -> Float[Tensor, "1 H W 3"]:
        directions: Float[Tensor, "1 H W 3"] = self.directions[None]
        return directions


class ImageDataset(ImageBase):
    def __init__(self, heights: list[int], widths: list[int]) -> None:
        self.setup(heights, widths)


class AttnBlock(nn.Module):
    """``b, c, h, w = q.shape`` of a convolution's output of an unannotated input: the
    unpacking gives ``q`` its axes, and the values, reshaped with them, meet its sizes.
    Its sizes are not compared with the instance's channels nor with a constant."""

    def __init__(self, in_channels: int) -> None:
        super().__init__()
        self.q = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.k = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.v = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.proj_out = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.rgb = nn.Conv2d(3, in_channels, kernel_size=1)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        b, c, h, w = q.shape
        q = q.reshape(b, c, h * w).permute(0, 2, 1)
        k = k.reshape(b, c, h * w)
        w_ = torch.softmax(torch.bmm(q, k) * int(c) ** (-0.5), dim=2)
        v = v.reshape(b, c, h * w)
        h_ = torch.bmm(v, w_.permute(0, 2, 1))
        return x + self.proj_out(h_.reshape(b, c, h, w)) + self.rgb(h_.reshape(b, c, h, w))


def padded_counts(feats: Float[Tensor, "b n ..."] | Int[Tensor, "b n"], lens: Int[Tensor, "b n"]):
    """``.shape`` of a union of arrays of different ranks: the sizes they share."""
    batch, seq, *_ = feats.shape
    counts = torch.zeros(batch, seq, dtype=torch.long)
    return counts + lens


def encode_maybe_batched(x: Float[Tensor, "... d"], w: Float[Tensor, "d k"], batched: bool):
    """The columns of ``y.T`` of a ``(..., d)`` value of no parameter's axes are still
    the last of its ``...``: they meet the ``d`` rows of ``w``."""
    y = x[None] if batched else x
    return y @ w


def lengths_to_mask(lens: Int[Tensor, "b ..."], max_len: int | None = None) -> Bool[Tensor, "... m"]:
    """A body that fills in a parameter left None (``if not exists(max_len):``) still
    tells a call which axes the anonymous ``...`` of its result are."""
    if not exists(max_len):
        max_len = int(lens.amax())
    arange = torch.arange(max_len, device=lens.device)
    return arange < lens[..., None]


def masked_tokens(lens: Int[Tensor, "b n"], feats: Float[Tensor, "b m d"]):
    total = lens.sum(dim=-1)
    mask = lengths_to_mask(total)
    return feats * mask[..., None]


def tv_loss(x):
    """``b, c, h, w = x.size()`` of an unannotated ``x``: only a torch tensor's ``size``
    is called for its sizes, so ``x`` is a tensor of those four axes."""
    b, c, h, w = x.size()
    dh = x[:, :, 1:, :] - x[:, :, : h - 1, :]
    dw = x[:, :, :, 1:] - x[:, :, :, : w - 1]
    return (dh.pow(2).sum() + dw.pow(2).sum()) / b


def total_variation(x):
    """An unannotated ``x`` whose body calls ``x.size()`` and reads ``x.size()[3]``: a
    torch tensor of at least four axes, each a size of its own, compared with another
    of them only where they provably differ (``h`` and ``h - 1``)."""
    batch_size = x.size()[0]
    h_x = x.size()[2]
    w_x = x.size()[3]
    corner = x[:, :, 0] + x[:, :, :, 0]  # square images: sizes of one tensor not compared
    flat = x.reshape(batch_size, -1) @ torch.ones(h_x * w_x, 2)
    h_tv = torch.pow(x[:, :, 1:, :] - x[:, :, : h_x - 1, :], 2).sum()
    w_tv = torch.pow(x[:, :, :, 1:] - x[:, :, :, : w_x - 1], 2).sum()
    return (h_tv + w_tv) / batch_size


def vertex_normals(
    v_pos: Float[Tensor, "Nv 3"], face_normals: Float[Tensor, "Nf 3"], i0: Int[Tensor, " Nf"]
) -> Float[Tensor, "Nv 3"]:
    v_nrm = torch.zeros_like(v_pos)
    v_nrm.scatter_add_(0, i0[:, None].repeat(1, 3), face_normals)
    v_nrm.scatter_add_(0, i0[:, None].expand(-1, 3), face_normals)
    return v_nrm


def pick_first(scores: Float[Tensor, "b n"], idx: Int[Tensor, "b k"], m: int) -> Tensor:
    # other sizes than the input's are not compared unless provably larger
    picked = scores.gather(1, idx[:, :1].expand(-1, m))
    return picked + scores.gather(1, idx)[:, :1]


def guided(latents: Float[Tensor, "B C H W"], k: int) -> Float[Tensor, "B C H W"]:
    x_in = torch.cat([latents] * k, dim=0)
    copies = torch.stack([latents] * k, dim=1)
    return x_in.reshape(k, -1, *latents.shape[1:]).mean(0) + copies.mean(1)


def principal_axes(cov: Float[Tensor, "b 3 3"]) -> Float[Tensor, "b 3"]:
    values, vectors = torch.linalg.eigh(cov)
    inverse, info = torch.linalg.inv_ex(cov)
    return values + vectors[:, :, 0] + inverse[:, 0] * (info == 0)[:, None]


def halves(x: Float[np.ndarray, "n 6"]) -> Float[np.ndarray, "n 2"]:
    a, b, c = np.split(x, 3, axis=1)
    return a + b + c


class Normed(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.norm = nn.RMSNorm(d)

    def forward(self, x: Float[Tensor, "b n d"]) -> Float[Tensor, "b n d"]:
        return self.norm(x)


def trace_of(m: Float[Tensor, "b n n"], w: Float[Tensor, "b n"]) -> Float[Tensor, " b"]:
    scaled = m * torch.diag_embed(w)
    return scaled.diagonal(dim1=-2, dim2=-1).sum(-1) + torch.diagonal(m, 0, 1, 2).sum(-1)


def copy_blocks(out: Float[Tensor, "t m m"], block: Float[Tensor, "t n n"], keep: Bool[Tensor, "m m"]):
    rows = torch.arange(block.shape[0])
    out[rows.unsqueeze(1), keep] = block.flatten(1, 2)
    picked = out[rows, keep]  # the rows broadcast with the mask's count: one axis
    return picked.sum(0)


class HeadLogits(NamedTuple):
    pde: Float[Tensor, "b pde n n"]
    plddt: Float[Tensor, "b plddt m"]
    scale: float = 1.0

    def total(self) -> Tensor:
        return self.pde.sum() + self.plddt.sum()


def plddt_scores(logits: Float[Tensor, "b plddt m"]) -> Float[Tensor, "b m"]:
    return logits.softmax(1).sum(1)


def confidence(pde: Float[Tensor, "b p n n"], plddt: Float[Tensor, "b q m"]) -> tuple:
    heads = HeadLogits(pde, plddt)
    first, second, scale = heads
    again = heads._replace(scale=2.0)
    return plddt_scores(heads.plddt) * scale, plddt_scores(heads[1]), second, again.total(), first


class Embedded(NamedTuple):
    single: Float[Tensor, "b n ds"]
    pairwise: Float[Tensor, "b n n dp"]


def embed(x: Float[Tensor, "b n d"], w: Float[Tensor, "d e"]) -> Embedded:
    s = x @ w
    return Embedded(s, s[:, :, None] + s[:, None])


def use_embedded(x: Float[Tensor, "b n d"], w: Float[Tensor, "d e"], bias: Float[Tensor, "b n n e"]):
    # the sizes a returned instance's fields name and the call does not bind (``dp``)
    # are not known to the caller; those the instance was built with here are its own
    single, pairwise = embed(x, w)
    made = Embedded(x @ w, bias)
    return pairwise + bias, made.pairwise + bias, single


def composite(
    opacity: Float[Tensor, "Nr 1"], rgb: Float[Tensor, "Nr 3"], b: int, h: int, w: int, bg: Tensor | None = None
):
    # an argument of unknown shape reshaped only when its shape is one the code tests
    # keeps any other shape: the branches' join is not the reshaped array
    if bg is None:
        bg = rgb
    else:
        if bg.shape[:-1] == (b,):
            bg = bg[:, None, None].expand(-1, h, w, -1)
    if bg.shape[:-1] == (b, h, w):
        bg = bg.reshape(b * h * w, -1)
    return rgb + bg * (1.0 - opacity)


@dataclass
class PositionMasks:
    masks: dict[str, Bool[Tensor, "1 seq C"]]

    def rows(self) -> list:
        # the positions of each mask's own sequence axis
        return [m[0, pos, :] for m in self.masks.values() for pos in range(m.shape[1])]


def scatter_rows(ci: Float[Tensor, "1 seq C"], values: list[Tensor]) -> Tensor:
    full = torch.zeros_like(ci)
    for pos in range(ci.shape[1]):
        full[0, pos, :] = values[pos]
    return full


def alive_counts(masks: dict[str, Bool[Tensor, "1 seq C"]]) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {}
    rows: dict[str, list[list[int]]] = {}
    for name, mask in masks.items():
        counts[name] = mask[0].sum(dim=-1).tolist()  # (seq,): a list of ints
        rows[name] = mask.sum(dim=-1).tolist()  # (1, seq): a list of lists
    return counts
