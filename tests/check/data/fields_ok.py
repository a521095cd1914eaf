"""The correct twins of ``fields_bad.py``, and what the sizes of a configuration never
meet: a constant (the configuration's value is not known here), a size an annotation
names otherwise (``Nc`` may well be ``n_output_dims``), the sizes of a configuration
the code constructs itself, and a method of an abstract base called with arguments
only a subclass's method takes."""
from dataclasses import dataclass
from typing import Generic, Optional, Tuple, TypeVar

import torch
from jaxtyping import Float
from torch import Tensor, nn
from transformer_lens.hook_points import HookPoint


@dataclass
class Config:
    d_in: int
    d_sae: int
    n_output_dims: int = 3
    d_mlp: Optional[int] = None
    eval_color: Tuple[float, float, float] = (1.0, 1.0, 1.0)


C = TypeVar("C", bound=Config)


class Plain(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        self.W = nn.Parameter(torch.empty(cfg.d_in, cfg.d_sae))
        self.b = nn.Parameter(torch.zeros(cfg.d_sae))
        self.colour: Float[Tensor, "Nc"] = torch.ones(cfg.n_output_dims)

    def encode(self, x: Float[Tensor, "... d_in"]) -> Float[Tensor, "... d_sae"]:
        return x @ self.W + self.b

    def decode(self, h: Float[Tensor, "... d_sae"]) -> Float[Tensor, "... d_in"]:
        return h @ self.W.T

    def background(self, dirs: Float[Tensor, "B H W 3"]) -> Float[Tensor, "B H W Nc"]:
        fixed = torch.ones(*dirs.shape[:-1], self.cfg.n_output_dims)
        fixed * torch.as_tensor(self.cfg.eval_color)
        return fixed * self.colour

    def hidden(self) -> Float[Tensor, "d_mlp"]:
        assert self.cfg.d_mlp is not None
        return torch.zeros(self.cfg.d_mlp)


def _init_bias(sae: "Base") -> None:
    sae.b_enc = nn.Parameter(torch.zeros(sae.cfg.d_sae))


class Base(nn.Module, Generic[C]):
    cfg: C
    W_enc: nn.Parameter
    b_enc: nn.Parameter

    def __init__(self, cfg: C):
        super().__init__()
        self.cfg = cfg
        self.hook_pre = HookPoint()
        self.initialize_weights()

    def initialize_weights(self) -> None:
        self.W_enc = nn.Parameter(torch.empty(self.cfg.d_in, self.cfg.d_sae))
        _init_bias(self)

    def encode(self, x: Float[Tensor, "... d_in"]) -> Float[Tensor, "... d_sae"]:
        hidden = self.hook_pre(x @ self.W_enc + self.b_enc)
        return hidden * self.W_enc.norm(dim=0)

    def scaled(self) -> Float[Tensor, "d_in d_sae"]:
        return self.W_enc * self.b_enc


def made_here(x: Float[Tensor, "b 4"]) -> Float[Tensor, "b 8"]:
    model = Plain(Config(d_in=4, d_sae=8))
    return x @ model.W + model.b


class Encoding(nn.Module):
    def forward(self, x: Float[Tensor, "*bs d"]) -> Float[Tensor, "*bs e"]:
        raise NotImplementedError


class Field(nn.Module):
    def __init__(self, encoding: Encoding):
        super().__init__()
        self.encoding = encoding

    def density(self, x: Float[Tensor, "n 3"], covs: Float[Tensor, "n 3 3"]):
        return self.encoding(x, covs=covs)


def masked(scores: Float[Tensor, "b h q k"], mask: Tensor) -> Float[Tensor, "b h q k"]:
    return scores.masked_fill(mask, float("-inf"))


class Tokens(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg

    def checked(self, tokens: Float[Tensor, "B Ct"]) -> Float[Tensor, "B Ct"]:
        batch, ct = tokens.shape
        assert ct == self.cfg.d_in
        return tokens + torch.zeros(self.cfg.d_in)


@dataclass
class CameraConfig:
    batch_size: int
    n_views: int


class Cameras:
    def __init__(self, cfg: CameraConfig):
        self.cfg = cfg

    def up(self) -> Float[Tensor, "B 3"]:
        row = torch.as_tensor([0.0, 0.0, 1.0])[None, :]
        up: Float[Tensor, "B 3"] = row.repeat(self.cfg.batch_size, 1)
        return up

    def views(self) -> Tensor:
        # a field against a constant: the configuration may well give n_views = 3
        return torch.zeros(self.cfg.n_views) + torch.zeros(3)
