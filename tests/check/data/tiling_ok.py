"""Library idioms with a rule each, used correctly: their shapes flow on."""
import einops
import numpy as np
import torch
import torch.nn.functional as F
from einops import rearrange, reduce, repeat
from jaxtyping import Float, Int
from torch import Tensor


def scores(q: Float[Tensor, "b n d"], k: Float[Tensor, "b m d"]) -> Float[Tensor, "b n m"]:
    return torch.einsum("bnd,bmd->bnm", q, k)


def implicit(a: Float[np.ndarray, "i j"], b: Float[np.ndarray, "j k"]) -> Float[np.ndarray, "i k"]:
    return np.einsum("ij,jk", a, b)


def batched(x: Float[Tensor, "... d"], y: Float[Tensor, "... d"]) -> None:
    dots = torch.einsum("...d,...d->...", x, y)


def words(x: Float[Tensor, "b n c"], y: Float[Tensor, "b m c"]) -> Float[Tensor, "b n m"]:
    return einops.einsum(x, y, "b n c, b m c -> b n m")


def heads(x: Float[Tensor, "b n 64"]) -> Float[Tensor, "b 8 n 8"]:
    return rearrange(x, "b n (h d) -> b h n d", h=8)


def unknown_split(x: Float[Tensor, "b n c"], heads: int) -> None:
    y = rearrange(x, "b n (h d) -> b h n d", h=heads)  # c // heads: einops checks it


def merge(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b*n c"]:
    return rearrange(x, "b n c -> (b n) c")


def tiled(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b n c 3"]:
    return repeat(x, "b n c -> b n c k", k=3)


def pooled(x: Float[Tensor, "b n c"]) -> Float[Tensor, "b c"]:
    return reduce(x, "b n c -> b c", "mean")


def ellipsis(x: Float[Tensor, "*b c"]) -> None:
    y = rearrange(x, "... c -> c ...")


def repeated(x: Float[Tensor, "b n"]) -> Float[Tensor, "2 b 3*n"]:
    return x.repeat(2, 1, 3)


def interleaved(x: Float[Tensor, "b n"]) -> Float[Tensor, "b 2*n"]:
    return x.repeat_interleave(2, dim=1)


def np_repeat(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "3*n"]:
    return np.repeat(x, 3)


def moved(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b h w c"]:
    return torch.moveaxis(x, 1, -1)


def padded(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c h+4 w+2"]:
    return F.pad(x, (1, 1, 2, 2))


def sampled(im: Float[Tensor, "b c h w"], grid: Float[Tensor, "b p q 2"]) -> Float[Tensor, "b c p q"]:
    return F.grid_sample(im, grid, align_corners=False)


def grid(u: Float[Tensor, "n"], v: Float[Tensor, "m"]) -> Float[Tensor, "n m"]:
    a, b = torch.meshgrid(u, v, indexing="ij")
    return a + b


def np_grid(u: Float[np.ndarray, "n"], v: Float[np.ndarray, "m"]) -> Float[np.ndarray, "m n"]:
    a, b = np.meshgrid(u, v)
    return a


def broadcast(v: Float[Tensor, "n"], m: int, n: int) -> Float[Tensor, "m n"]:
    return torch.broadcast_to(v, (m, n))


def sized(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    shape = torch.Size([x.shape[0], x.shape[1]])
    return torch.zeros(shape)


def legacy() -> Float[Tensor, "3 4"]:
    return torch.Tensor(3, 4)


def scaled(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    return torch.pi * x


def eroded(x: Float[Tensor, "b 1 h w"], kernel_size: int = 3) -> Float[Tensor, "b 1 h w"]:
    p = (kernel_size - 1) // 2
    return F.pad(x[:, :, p:-p, p:-p], pad=(p, p, p, p), mode="constant", value=0)


def floor_div(x: Int[Tensor, "n"], y: Int[Tensor, "m"]) -> Float[Tensor, "n"]:
    i = torch.div(x, 4, rounding_mode="floor")
    return y.float()[i]


def varargs(c2w: Float[Tensor, "3 4"], n: int) -> Float[Tensor, "n 3 4"]:
    return c2w[None].broadcast_to(n, 3, 4)


def given_later(x: Float[Tensor, "n d"], batch) -> None:
    y = repeat(x, "n d -> b n d", b=batch)
    z = repeat(torch.tensor([1.0]), "1 -> b", b=batch)


def legacy_sizes(h, w) -> None:
    out = torch.FloatTensor(h, w, 3)
    out[0, :, 1] = 0.0
