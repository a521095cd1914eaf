"""Names that Python normalises alike (NFKC) never share a variable in generated code.

Python reads identifiers in source in NFKC form: ``ﬁ`` is ``fi`` and ``𝐧`` is ``n``.
The shape parser keeps them apart (they are different sizes), so the generated
checker must too: it gives non-ASCII size names numbered locals, and refuses
parameter names that would change in source.
"""

import inspect

import numpy as np
import pytest

from tensortypes import AnnotationError, Float, TypeCheckError, typechecked


def test_a_wrong_return_is_not_accepted():
    # 'ﬁ' is bound to 2 by x, 'fi' to 3 by y; the result must have size 2.
    @typechecked
    def f(x: Float[np.ndarray, "ﬁ"], y: Float[np.ndarray, "fi"]) -> Float[np.ndarray, "ﬁ"]:
        return np.zeros(3)  # tensortypes: ignore[return] (the bug under test)

    with pytest.raises(TypeCheckError, match="size 3, but ﬁ=2"):
        f(np.zeros(2), np.zeros(3))


def test_a_right_return_is_not_rejected():
    @typechecked
    def g(x: Float[np.ndarray, "ﬁ"], y: Float[np.ndarray, "fi"]) -> Float[np.ndarray, "ﬁ"]:
        return x

    assert g(np.zeros(2), np.zeros(3)).shape == (2,)

    # Same with a mathematical bold n beside n, several axes and a variadic 𝐧.
    @typechecked
    def h(
        x: Float[np.ndarray, "𝐧 n"], y: Float[np.ndarray, "𝐧"], z: Float[np.ndarray, "*𝐧"]
    ) -> Float[np.ndarray, "n"]:
        return x[0]

    assert h(np.zeros((2, 3)), np.zeros(2), np.zeros((4, 5))).shape == (3,)
    with pytest.raises(TypeCheckError, match="𝐧=2"):
        h(np.zeros((2, 3)), np.zeros(3), np.zeros(4))
    assert "_tt_d_n" in h.__tensortypes_checker__.source  # ASCII names stay readable


def test_expressions_over_unicode_names_keep_them_apart():
    @typechecked
    def f(x: Float[np.ndarray, "ﬁ"], y: Float[np.ndarray, "fi"]) -> Float[np.ndarray, "ﬁ+fi"]:
        return np.zeros(x.shape[0] + y.shape[0])

    assert f(np.zeros(2), np.zeros(3)).shape == (5,)


def test_a_parameter_name_that_source_would_change_is_refused():
    def f(x, y):
        return x

    # A signature made by hand can hold a name Python would never produce from source.
    params = [
        inspect.Parameter(
            "ﬁ", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Float[np.ndarray, "n"]
        ),
        inspect.Parameter(
            "fi", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Float[np.ndarray, "n"]
        ),
    ]
    f.__signature__ = inspect.Signature(params)
    f.__annotations__ = {"ﬁ": Float[np.ndarray, "n"], "fi": Float[np.ndarray, "n"]}
    with pytest.raises(AnnotationError, match="reads as 'fi'"):
        typechecked(f)(np.zeros(2), np.zeros(2))
