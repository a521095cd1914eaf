"""Python-level idioms that are correct: none of them may be reported.

Attributes set by name (add_module, register_module, setattr, object.__setattr__
in a __slots__ class), attributes an opaque call may set (.grad after backward),
narrowing through `or` and of constant subscripts, unannotated helpers whose
returns disagree, subclasses of builtins, an annotated local re-assigned with
the declared shape.
"""
from dataclasses import dataclass
from typing import List, Literal, Optional, Sequence, Tuple, Union

import torch
from jaxtyping import Float
from torch import Tensor, nn


class Net(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.fc = nn.Linear(n, 4)

    def forward(self, x):
        return self.head(self.fc(x)) + self.extra.weight.sum()


def build(n: int) -> Net:
    net = Net(n)
    net.add_module("head", nn.Linear(4, 2))
    net.register_module("extra", nn.Linear(2, 2))
    return net


class Frozen:
    __slots__ = ("a", "b")

    def __init__(self, a: int, b: int):
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def total(self) -> int:
        return self.a + self.b


class Settings:
    def __init__(self):
        setattr(self, "lr", 0.1)

    def rate(self) -> float:
        return self.lr


def g(t: Tensor) -> Tensor:
    return t


def grad_after_backward(loss: Tensor) -> Tensor:
    a = torch.zeros(3, requires_grad=True)
    a.grad = None
    loss.backward()
    return g(a.grad)


class Box:
    def __init__(self):
        self.grad: Optional[Tensor] = None


def refresh(box):
    box.grad = torch.zeros(3)


def grad_after_a_helper(box: Box) -> Tensor:
    box.grad = None
    refresh(box)
    return g(box.grad)


class A:
    def m(self) -> int:
        return 1


class B:
    def m(self) -> int:
        return 2


def pick(x: Union[A, B, None]) -> int:
    if isinstance(x, A) or isinstance(x, B):
        return x.m()
    return 0


def pick_not(x: Union[A, B, None]) -> int:
    if not (isinstance(x, A) or isinstance(x, B)):
        return 0
    return x.m()


def first(lst: List[Optional[int]]) -> int:
    if lst[0] is not None:
        return lst[0] + 1
    return 0


def first_truthy(lst: List[Optional[Tensor]]) -> Tensor:
    if lst[0]:
        return g(lst[0])
    return torch.zeros(1)


class Holder:
    def __init__(self, p):
        self.p = p

    def run(self) -> Tensor:
        if self.p is not None:
            self.p.close()
        return g(self.p)


def helper(flag):
    if flag:
        return None
    return 3


def use_helper(flag) -> int:
    return helper(flag)


class Pair(tuple):
    pass


class Names(list):
    pass


class Size(int):
    pass


def as_tuple() -> tuple:
    return Pair((1, 2))


def as_fixed_tuple() -> Tuple[int, int]:
    return Pair((1, 2))


def as_list() -> List[str]:
    return Names()


def as_float() -> float:
    return Size(3)


def as_sequence() -> Sequence[int]:
    return Pair((1,))


def reassigned(x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
    y: Float[Tensor, "b n"] = x * 2
    y = y + 1
    for _ in range(3):
        y = y * 2
    return y


def reassigned_with_another_shape(x: Float[Tensor, "b n"]) -> Float[Tensor, "b"]:
    # The annotation describes the value assigned with it (as jaxtyping checks it).
    y: Float[Tensor, "b n"] = x * 2
    y = y.sum(-1)
    return y


def local_size_names(rays: Float[Tensor, "B H W 3"], render) -> Float[Tensor, "B H W 1"]:
    # ``Nr`` is introduced by a local annotation: it is B*H*W from then on, and
    # values of unknown shape annotated with it (``render``'s) have that size.
    B, H, W = rays.shape[:3]
    flat: Float[Tensor, "Nr 3"] = rays.reshape(-1, 3)
    weights: Float[Tensor, "Nr 1"]
    weights = render(flat)
    opacity: Float[Tensor, "Nr 1"] = render(weights)
    return (opacity + weights).view(B, H, W, 1)


def flag_correlated(x: Tensor, layers: list, output_hidden_states: bool = False):
    # None exactly when the flag is false, extended only when it is true.
    all_hidden = () if output_hidden_states else None
    for layer in layers:
        if output_hidden_states:
            all_hidden = all_hidden + (x,)
        x = layer(x)
    if output_hidden_states:
        all_hidden = all_hidden + (x,)
    return x, all_hidden


def named_condition(state: Tuple[Optional[Tensor], int], v: Tensor) -> Tensor:
    diag, _ = state
    unit = diag is None
    if unit:
        return v
    return v / diag.abs()


class FlagAttention(nn.Module):
    def __init__(self, full_attention: bool = False, use_bias: bool = True):
        super().__init__()
        self.full_attention = full_attention
        self.mask = torch.zeros(3, 3) if not full_attention else None
        if use_bias:
            self.bias = torch.zeros(3)
        else:
            self.bias = None
        self.use_bias = use_bias

    def forward(self, x: Float[Tensor, "3 3"]):
        m = self.mask.to(x) if not self.full_attention else None
        if self.use_bias:
            x = x + self.bias
        return x, m


def takes_ints(shape: Tuple[int, ...]) -> int:
    return len(shape)


def literal_narrowed(features: Union[int, Literal["scalar"]]) -> int:
    size = 1 if features == "scalar" else features
    if features != "scalar":
        takes_ints((features,))
    return takes_ints((size,))


def mode_correlated(mode: str, x: Tensor) -> Tensor:
    if mode == "lidar":
        coeffs = x
    else:
        coeffs = None
    if mode == "lidar":
        return coeffs.abs()
    return x


def needs_sizes(a: int, b: int, facts: tuple) -> bool:
    return a == b and not facts


def after_a_star(parts: list) -> bool:
    # The tuple after *parts (of unknown length) is not bound to a.
    return needs_sizes(*parts, ())


@dataclass
class TrainerConfig:
    path: Optional[str] = None


class Trainer:
    def __init__(self, config: TrainerConfig):
        self.config = config
        if self.config.path is None:
            self.config.path = "snapshot.pt"  # not None in every method from here on

    def remote(self) -> bool:
        return self.config.path.startswith("s3://")


def consume(tokens: Tensor) -> Tuple[Tensor, int]:
    return tokens[:4], 4


def rest_after_offset() -> Tensor:
    tokens = torch.arange(10)
    _, offset = consume(tokens)
    rest = tokens[offset:]  # offset unknown: the size is unknown, not 10
    return rest == tokens[4:]


def keep_valid(data: Optional[Tensor], valid: Optional[Tensor]) -> Optional[Tensor]:
    if data is None or valid is None:
        return data
    return data[valid]


def passed_through(points: Tensor, valid: Tensor) -> Tensor:
    # None in, None out: a tensor given for ``data`` gives a tensor back.
    return keep_valid(points, valid)


def flagged_parts(x: Tensor, covar: bool = True) -> Tuple[Optional[Tensor], Optional[Tensor]]:
    return (x if covar else None), None


def flags_decide(x: Tensor) -> Tensor:
    # The flags (given or defaulted) decide which parts are None: not reported.
    covars, _ = flagged_parts(x, covar=True)
    return covars.abs()


class Grid(nn.Module):
    # A method's int parameter is its own value, not the size the construction bound.
    def __init__(self, resolution: int = 128, channels: int = 8) -> None:
        super().__init__()
        self.resolution = resolution
        self.coef = nn.Parameter(torch.randn(channels, resolution, resolution))

    def upsample_grid(self, resolution: int) -> None:
        self.coef = nn.Parameter(torch.randn(self.coef.shape[0], resolution, resolution))
        self.resolution = resolution

    def sample(self, x: Float[Tensor, "n resolution"]) -> Float[Tensor, "n"]:
        return x.sum(-1)


def grow_grid() -> None:
    grid = Grid(resolution=32)
    grid.upsample_grid(resolution=64)
    grid.upsample_grid(128)
    grid.sample(torch.zeros(5, 32))
