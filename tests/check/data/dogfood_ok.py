"""Idioms of this repository's own code that the checker once reported: none may be.

`tensortypes check src tests` runs in CI; each false alarm it gave is here.
"""
from typing import Dict, Optional

import numpy as np
from jaxtyping import Float32

_ROOTS = {"numpy": ("numpy",), "torch": ("torch",)}


def positional_dtype(n: int) -> Float32[np.ndarray, "n 3"]:
    return np.zeros((n, 3), np.float32)


def positional_dtype_full(n: int) -> Float32[np.ndarray, "n"]:
    return np.full((n,), 1.0, np.float32)


def takes_str(kind: str) -> bool:
    return kind.startswith("t")


def member(kind: Optional[str]) -> bool:
    if kind in _ROOTS:
        return takes_str(kind)
    return False


def member_literal(kind: Optional[str], table: Dict[str, int]) -> bool:
    if kind in ("numpy", "torch") and kind in table:
        return takes_str(kind)
    return False


def not_member(kind: Optional[str]) -> bool:
    if kind not in _ROOTS:
        return False
    return takes_str(kind)
