"""The correct twins of types_bad: binding, returns, refinement, joins, attributes."""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

import torch.nn as nn


def repeat(text: str, times: int) -> str:
    return text * times


def pad(items: List[int], size: int, fill: int = 0) -> List[int]:
    return items + [fill] * (size - len(items))


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def calls() -> None:
    repeat("ab", 3)
    repeat(text="ab", times=True)
    pad([1, 2], 4)
    pad([], 4, fill=-1)
    mean([1, 2, 3])
    mean((0.5, 1.5))


def parse_port(text: str) -> Optional[int]:
    if not text.isdigit():
        return None
    return int(text)


def port_or_default(text: str) -> int:
    port = parse_port(text)
    if port is None:
        return 8080
    return port


def describe(count: int) -> str:
    return str(count)


def first_word(text: Optional[str]) -> str:
    if not text:
        return ""
    return text.split()[0]


def total(n: Optional[int], step: int) -> int:
    n = n or 1
    return n * step


def total_checked(n: Optional[int], step: int) -> int:
    assert n is not None, "n is required"
    return n * step


def lookup(table: Dict[str, int], key: str, default: Optional[int] = None) -> int:
    value = default
    if key in table:
        value = table[key]
    if value is None:
        raise KeyError(key)
    return value


def last_positive(values: List[int], default: int = 0) -> int:
    found = default
    for v in values:
        if v > 0:
            found = v
    return found


def choose(flag: bool) -> int:
    if flag:
        result = 1
    else:
        result = 2
    return result


def choose_optional(flag: bool) -> Optional[int]:
    result = None
    if flag:
        result = 1
    return result


def mixed(flag: bool) -> Union[int, str]:
    value = 3 if flag else "three"
    return value


def widen(flag: bool) -> float:
    value = 1 if flag else 0.5
    return value


@dataclass
class TrainConfig:
    name: str
    lr: float = 1e-3
    layers: List[int] = field(default_factory=list)
    resume: Optional[str] = None


def configs() -> None:
    TrainConfig("run", lr=1)
    good = TrainConfig(name="run", layers=[64, 32])
    good.lr = 0.01
    good.resume = "ckpt.pt"
    good.resume = None
    if good.resume is not None:
        print(good.resume.upper())


class Counter:
    def __init__(self, start: int = 0):
        self.count: int = start
        self.label: Optional[str] = None

    def bump(self, by: int = 1) -> int:
        self.count = self.count + by
        self.count += 1
        return self.count

    def rename(self, label: str) -> None:
        self.label = label

    def shout(self) -> str:
        if self.label is None:
            return ""
        return self.label.upper()


class Model(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.width = width
        self.proj = nn.Linear(width, width)


class Head(Model):
    pass


def widths(model: Model) -> int:
    return model.width


def models() -> None:
    widths(Head(8))
    widths(Model(4))


def shapes(size: Tuple[int, int]) -> int:
    return size[0] * size[1]


def tuples() -> None:
    shapes((3, 4))
    pair = (5, 6)
    shapes(pair)


def scale(x: Union[int, float], factor: float = 2.0) -> float:
    return x * factor


def unions() -> None:
    scale(3)
    scale(2.5, 1)
    scale(True)


def counting() -> None:
    steps: int = 0
    steps = steps + 1
    names: List[str] = []
    names = ["a", "b"]
    ratio: float = 1
    ratio = steps / 2
