"""Sizes a configuration gives: ``cfg.d_in`` of a configuration that comes in is the
size ``d_in``, the same as an annotation's ``d_in``, and different from the other int
fields of its class (``d_sae``). Weights built from them (in ``__init__``, in a method
``__init__`` calls, or in a function given ``self`` there) keep those sizes."""
from dataclasses import dataclass
from typing import Generic, TypeVar

import torch
from jaxtyping import Float
from torch import Tensor, nn
from transformer_lens.hook_points import HookPoint


@dataclass
class Config:
    d_in: int
    d_sae: int
    scale: float = 1.0


C = TypeVar("C", bound=Config)


class Plain(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        self.W = nn.Parameter(torch.empty(cfg.d_in, cfg.d_sae))
        self.b = nn.Parameter(torch.zeros(cfg.d_sae))

    def encode(self, x: Float[Tensor, "... d_in"]) -> Float[Tensor, "... d_sae"]:
        return x @ self.W.T + self.b  # E: x (..., d_in) has d_in columns, self.W.T (d_sae, d_in) has d_sae rows [matmul]

    def decode(self, h: Float[Tensor, "... d_sae"]) -> Float[Tensor, "... d_in"]:
        return h @ self.W  # E: h (..., d_sae) has d_sae columns, self.W (d_in, d_sae) has d_in rows [matmul]

    def shifted(self, x: Float[Tensor, "d_in"]) -> Float[Tensor, "d_in"]:
        return x + torch.zeros(self.cfg.d_sae)  # E: axis -1 has sizes d_in and d_sae [broadcast]


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
        return hidden * self.W_enc.norm(dim=-1)  # E: axis -1 has sizes d_sae and d_in [broadcast]

    def scaled(self) -> Float[Tensor, "d_in d_sae"]:
        return self.W_enc * self.b_enc[:, None]  # E: axis -2 has sizes d_in and d_sae [broadcast]


@dataclass
class CameraConfig:
    batch_size: int
    n_views: int


class Cameras:
    def __init__(self, cfg: CameraConfig):
        self.cfg = cfg

    def up(self) -> Float[Tensor, "B 3"]:
        """``repeat(1, B)`` of a ``(1, 3)`` row is ``(1, 3*batch_size)``: larger than 3
        for every batch of 2 or more, whatever the configuration gives."""
        row = torch.as_tensor([0.0, 0.0, 1.0])[None, :]
        return row.repeat(1, self.cfg.batch_size)  # E: axis 1 has size 3*batch_size, expected 3 [return]
