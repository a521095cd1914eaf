"""Everyday PyTorch idioms that must not raise false alarms."""
import math
import random
from collections import OrderedDict
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor

HIDDEN = 64
NUM_CLASSES = 5
Image = Float[Tensor, "3 h w"]


class Residual(nn.Module):
    def __init__(self, fn: nn.Module):
        super().__init__()
        self.fn = fn

    def forward(self, x: Tensor, **kwargs: Any) -> Tensor:
        return self.fn(x, **kwargs) + x


class Base(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: Float[Tensor, "b dim"]) -> Float[Tensor, "b dim"]:
        return self.norm(x)


class Child(Base):
    def __init__(self, dim: int, p: float = 0.1):
        super().__init__(dim)
        self.drop = nn.Dropout(p)
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(3)])
        self.gates = nn.ModuleDict({"a": nn.Linear(dim, dim), "b": nn.Linear(dim, dim)})
        self.cache: Dict[str, Tensor] = {}
        self._steps = 0

    @property
    def steps(self) -> int:
        return self._steps

    @classmethod
    def small(cls) -> "Child":
        return cls(16)

    def forward(self, x: Float[Tensor, "b dim"]) -> Float[Tensor, "b dim"]:
        x = super().forward(x)
        for i, layer in enumerate(self.layers):
            x = x + self.drop(F.relu(layer(x)))
        x = self.gates["a"](x) * torch.sigmoid(self.gates["b"](x))
        self._steps += 1
        self.cache["last"] = x.detach()
        return x


def make_mlp(sizes: List[int], act: Callable[[], nn.Module] = nn.ReLU) -> nn.Sequential:
    layers: List[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


def named() -> nn.Sequential:
    return nn.Sequential(OrderedDict([("fc", nn.Linear(4, 4)), ("act", nn.ReLU())]))


def collate(batch: List[Tuple[Image, int]]) -> Tuple[Tensor, Tensor]:
    images = torch.stack([img for img, _ in batch])
    labels = torch.tensor([label for _, label in batch], dtype=torch.long)
    return images, labels


def batches(x: Float[Tensor, "n d"], size: int) -> Iterator[Tensor]:
    for start in range(0, x.shape[0], size):
        yield x[start:start + size]


def running_mean(values: List[float]) -> List[float]:
    out = []
    total = 0.0
    for i, v in enumerate(values, start=1):
        total += v
        out.append(total / i)
    return out


def seed_everything(seed: int = 0) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def cosine_lr(step: int, total: int, base: float = 1e-3) -> float:
    return 0.5 * base * (1 + math.cos(math.pi * step / total))


def topk_accuracy(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b"], k: int = 5) -> float:
    top = logits.topk(k, dim=1).indices
    hits = (top == labels.unsqueeze(1)).any(dim=1)
    return hits.float().mean().item()


def masked_mean(x: Float[Tensor, "b t d"], mask: Float[Tensor, "b t"]) -> Float[Tensor, "b d"]:
    mask = mask.unsqueeze(-1)
    return (x * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


def gather_last(x: Float[Tensor, "b t d"], lengths: Int[Tensor, "b"]) -> Float[Tensor, "b d"]:
    idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, x.size(2))
    return x.gather(1, idx).squeeze(1)


def expand_tokens(cls_token: Float[Tensor, "1 1 d"], x: Float[Tensor, "b t d"]) -> Tensor:
    tokens = cls_token.expand(x.shape[0], -1, -1)
    return torch.cat([tokens, x], dim=1)


def grad_norm(model: nn.Module) -> float:
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.norm().item() ** 2
    return math.sqrt(total)


def safe_div(a: Tensor, b: Tensor, eps: float = 1e-8) -> Tensor:
    try:
        return a / (b + eps)
    except RuntimeError:
        return torch.zeros_like(a)


def sample(probs: Float[Tensor, "b v"], temperature: float = 1.0,
           top_k: Optional[int] = None) -> Tensor:
    logits = torch.log(probs) / temperature
    if top_k is not None:
        v, _ = torch.topk(logits, top_k)
        logits[logits < v[:, [-1]]] = -float("inf")
    return torch.multinomial(F.softmax(logits, dim=-1), 1)


def to_numpy(x: Tensor) -> np.ndarray:
    return x.detach().cpu().numpy()


def scores_table(names: List[str], scores: List[float]) -> Dict[str, float]:
    return {name: round(score, 3) for name, score in zip(names, scores)}


def image_stats(images: Float[Tensor, "b 3 h w"]) -> Tuple[Tensor, Tensor]:
    mean = images.mean(dim=(0, 2, 3), keepdim=True)
    std = images.std(dim=(0, 2, 3), keepdim=True)
    return (images - mean) / std, mean.view(3)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = make_mlp([HIDDEN, HIDDEN, NUM_CLASSES])
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x: Float[Tensor, "b 64"]) -> Tensor:
        return self.body(x) * self.scale

    def predict(self, x: Float[Tensor, "b 64"]) -> Int[Tensor, "b"]:
        with torch.no_grad():
            return self(x).argmax(dim=-1)


def gather_rows(pos: Float[Tensor, "b a d"], idx: Int[Tensor, "b n"]) -> Float[Tensor, "b n d"]:
    # Index arrays broadcast together: (b, 1) with (b, n) picks (b, n) rows.
    rows = torch.arange(0, pos.shape[0])[:, None]
    return pos[rows, idx]


def apart_index_arrays(pos: Float[Tensor, "b a d"], idx: Int[Tensor, "n"]) -> Float[Tensor, "n a"]:
    # Index arrays apart (a slice between them): their axes go first.
    return pos[idx, :, idx]


class LinearHolder(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.fc = nn.Linear(dim, 4)


def layer_of_a_built_instance() -> Float[Tensor, "3 4"]:
    # Block(8).fc is nn.Linear(8, 4): the construction's sizes reach its layers.
    return LinearHolder(8).fc(torch.zeros(3, 8))
