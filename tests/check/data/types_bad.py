"""TorchScript's rules on the type language: binding, returns, Optional, joins, attributes."""
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

import torch.nn as nn


def repeat(text: str, times: int) -> str:
    return text * times


def pad(items: List[int], size: int, fill: int = 0) -> List[int]:
    return items + [fill] * (size - len(items))


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def calls() -> None:
    repeat("ab", "3")  # E: argument 'times' of repeat() is str, expected int [arg-type]
    repeat(3, 2)  # E: argument 'text' of repeat() is int, expected str [arg-type]
    pad(["a", "b"], 4)  # E: is List[str], expected List[int] [arg-type]
    pad([1, 2], 4, fill=0.5)  # E: argument 'fill' of pad() is float, expected int [arg-type]
    mean("1.5")  # E: is str, expected Sequence[float] [arg-type]


def parse_port(text: str) -> int:
    if not text.isdigit():
        return None  # E: return value of parse_port() is None, expected int [return]
    return int(text)


def describe(count: int) -> str:
    return count  # E: return value of describe() is int, expected str [return]


def first_word(text: Optional[str]) -> str:
    return text.split()[0]  # E: text may be None here [optional]


def total(n: Optional[int], step: int) -> int:
    return n * step  # E: n may be None here [optional]


def last_positive(values: List[int], default: Optional[int] = None) -> int:
    found = default
    for v in values:
        if v > 0:
            found = v
    return found  # E: return value of last_positive() may be None [optional]


def choose(flag: bool) -> int:
    if flag:
        result = 1
    else:
        result = None
    return result  # E: return value of choose() may be None [optional]


def mixed(flag: bool) -> int:
    value = 3 if flag else "three"
    return value  # E: return value of mixed() is Union[int, str], expected int [return]


@dataclass
class TrainConfig:
    name: str
    lr: float = 1e-3
    layers: List[int] = field(default_factory=list)
    resume: Optional[str] = None


def configs() -> None:
    TrainConfig("run", lr="fast")  # E: field lr of TrainConfig is str, expected float [arg-type]
    TrainConfig(name=None)  # E: field name of TrainConfig is None, expected str [arg-type]
    good = TrainConfig("run", layers=[64, 32])
    good.lr = "slow"  # E: value assigned to good.lr is str, expected float [assign]


class Counter:
    def __init__(self, start: int = 0):
        self.count: int = start
        self.label: Optional[str] = None

    def bump(self, by: int = 1) -> int:
        self.count = self.count + by
        return self.count

    def rename(self, label: str) -> None:
        self.count = label  # E: value assigned to self.count is str, expected int [assign]

    def shout(self) -> str:
        return self.label.upper()  # E: self.label may be None here [optional]


class Model(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.width = width
        self.proj = nn.Linear(width, width)


class Head(Model):
    pass


class Other:
    pass


def widths(model: Model) -> int:
    return model.width


def models() -> None:
    widths(Head(8))
    widths(Other())  # E: argument 'model' of widths() is Other, expected Model [arg-type]
    widths(8)  # E: argument 'model' of widths() is int, expected Model [arg-type]


def shapes(size: Tuple[int, int]) -> int:
    return size[0] * size[1]


def tuples() -> None:
    shapes((3, 4))
    shapes((3, "4"))  # E: item 1 of argument 'size' of shapes() is str, expected int [arg-type]
    shapes([3, 4])  # E: is List[int], expected Tuple[int, int] [arg-type]


def scale(x: Union[int, float], factor: float = 2.0) -> float:
    return x * factor


def unions() -> None:
    scale(3)
    scale(2.5, 1)
    scale("3")  # E: argument 'x' of scale() is str, expected Union[float, int] [arg-type]


def counting() -> None:
    steps: int = 0
    steps = steps + 1
    steps = "done"  # E: value assigned to steps is str, expected int [assign]
    names: List[str] = []
    names = [1, 2]  # E: value assigned to names is List[int], expected List[str] [assign]
