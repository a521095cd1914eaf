"""The errors next to pylevel_ok.py's idioms that must still be reported."""
from dataclasses import dataclass
from typing import List, Literal, Optional, Tuple, Union

import torch
from jaxtyping import Float
from torch import Tensor, nn


class Net(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.fc = nn.Linear(n, 4)

    def forward(self, x):
        return self.head(self.fc(x))  # E: Net has no attribute 'head' [attr]


class Frozen:
    __slots__ = ("a", "b")

    def __init__(self, a: int, b: int):
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def total(self) -> int:
        return self.a + self.c  # E: Frozen has no attribute 'c' [attr]


def g(t: Tensor) -> Tensor:
    return t


def grad_without_a_call() -> Tensor:
    a = torch.zeros(3, requires_grad=True)
    a.grad = None
    return g(a.grad)  # E: is None [arg-type]


class A:
    def m(self) -> int:
        return 1


class B:
    def m(self) -> int:
        return 2


def pick(x: Union[A, B, None]) -> int:
    if isinstance(x, A) or x is None:
        return x.m()  # E: x may be None [optional]
    return 0


def first(lst: List[Optional[int]]) -> int:
    return lst[0] + 1  # E: lst[0] may be None [optional]


def first_then_reassigned(lst: List[Optional[int]], other: List[Optional[int]]) -> int:
    if lst[0] is not None:
        lst = other
        return lst[0] + 1  # E: lst[0] may be None [optional]
    return 0


def nothing():
    return None


def use_nothing() -> int:
    return nothing()  # E: return value of use_nothing() is None [return]


class Pair(tuple):
    pass


def as_str() -> str:
    return Pair((1,))  # E: return value of as_str() is Pair, expected str [return]


def declared_then_assigned(x: Float[Tensor, "b n"], flag: bool) -> Float[Tensor, "b"]:
    y: Float[Tensor, "b n"]
    if flag:
        y = x * 2
    else:
        y = x.sum(-1)  # E: value assigned to y (b,) has rank 1 [assign]
    return y.sum(-1)


def reassigned_with_none(x: Float[Tensor, "b n"]) -> None:
    y: Float[Tensor, "b n"] = x * 2
    y = None  # E: value assigned to y is None [assign]


def local_size_provably_different(x: Float[Tensor, "b 3"]) -> None:
    y: Float[Tensor, "m 3"] = torch.zeros(5, 3)
    z: Float[Tensor, "m 3"] = torch.zeros(4, 3)  # E: axis 0 has size 4, expected 5 [assign]


def member_of_a_tuple_with_none(kind: Optional[str]) -> bool:
    if kind in (None, "numpy"):
        return kind.startswith("n")  # E: kind may be None [optional]
    return False


def flag_not_the_one(flag: bool, other: bool, x: Tensor):
    h = x if flag else None
    flag = other  # flag re-assigned: h no longer follows it
    return h.abs()  # E: h may be None here [optional]


def flag_is_another(flag: bool, other: bool, x: Tensor):
    h = x if flag else None
    if other:
        return h.abs()  # a condition on another flag: not reported (--strict says why)
    return x


class BiasUnderNoFlag(nn.Module):
    def __init__(self, use_bias: bool = True):
        super().__init__()
        self.bias = torch.zeros(3) if use_bias else None
        self.use_bias = use_bias

    def forward(self, x: Float[Tensor, "3"]):
        return x + self.bias  # E: may be None [optional]

    def other(self, x: Float[Tensor, "3"], scale: bool):
        if scale:  # a condition on another flag: not reported (--strict says why)
            return x + self.bias
        return x


def takes_ints(shape: Tuple[int, ...]) -> int:
    return len(shape)


def literal_not_narrowed(features: Union[int, Literal["scalar"]]) -> int:
    return takes_ints((features,))  # E: expected Tuple[int, ...] [arg-type]


def mode_changed(mode: str, x: Tensor) -> Tensor:
    if mode == "lidar":
        coeffs = x
    else:
        coeffs = None
    mode = "other"
    return coeffs.abs()  # E: coeffs may be None here [optional]


@dataclass
class TrainerConfig:
    path: Optional[str] = None
    other: Optional[str] = None


class Trainer:
    def __init__(self, config: TrainerConfig):
        self.config = config
        if self.config.path is None:
            self.config.path = "snapshot.pt"

    def remote(self) -> bool:
        return self.config.other.startswith("s3://")  # E: self.config.other may be None [optional]


class Grid(nn.Module):
    def __init__(self, resolution: int = 128) -> None:
        super().__init__()
        self.resolution = resolution

    def sample(self, x: Float[Tensor, "n resolution"]) -> Float[Tensor, "n"]:
        return x.sum(-1)

    def resample(self, resolution: int, x: Float[Tensor, "n resolution"]) -> Float[Tensor, "n"]:
        return x.sum(-1)


def sample_grid() -> None:
    grid = Grid(resolution=32)
    grid.sample(torch.zeros(5, 64))  # E: expected 32 (resolution) [arg-type]
    grid.resample(16, torch.zeros(5, 32))  # E: makes resolution = 32 [arg-type]
