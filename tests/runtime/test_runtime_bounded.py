"""Generated checkers never compute a huge size (the reliability probe's call-time hang)."""

import numpy as np
import pytest

from tensortypes import Float, TypeCheckError, typechecked


def test_a_checked_call_with_a_huge_power_fails_at_once():
    # The generated code wrote n**100000000 as Python arithmetic: over 20 s for n=3.
    @typechecked
    def f(x: Float[np.ndarray, "n"], y: Float[np.ndarray, "n**100000000"]):
        return None

    with pytest.raises(TypeCheckError, match="too large"):
        f(np.zeros(3), np.zeros(5))
    f(np.zeros(1), np.zeros(1))
    f(np.zeros(0), np.zeros(0))


def test_powers_in_a_return_annotation_are_still_checked():
    @typechecked
    def g(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n**2+1"]:
        return np.zeros(x.shape[0] ** 2 + 1 - (x.shape[0] == 4))

    assert g(np.zeros(3)).shape == (10,)
    with pytest.raises(TypeCheckError):
        g(np.zeros(4))
