"""Disabling at import, and the checker on torch tensors and JAX arrays (with their
compilers)."""

from __future__ import annotations

import numpy as np
import pytest

from tensortypes.annotate import Float, Float32
from tensortypes.errors import TypeCheckError
from tensortypes.runtime import typechecked


@pytest.mark.parametrize("variable", ["TENSORTYPES_DISABLE", "JAXTYPING_DISABLE"])
def test_disable_at_import_returns_the_function_itself(run_python, variable):
    result = run_python(
        """
        import dataclasses
        import numpy as np
        from tensortypes.annotate import Float
        from tensortypes.runtime import jaxtyped, typechecked

        def f(x: Float[np.ndarray, "n"]) -> int:
            return 1

        @dataclasses.dataclass
        class D:
            x: int

        init = D.__init__
        assert typechecked(f) is f
        assert jaxtyped(f) is f
        assert jaxtyped(typechecker=None)(f) is f
        assert typechecked(D) is D and D.__init__ is init
        assert f("not checked") == 1
        print("disabled")
    """,
        env={variable: "1"},
    )
    assert "disabled" in result.stdout


def test_checked_torch_function(torch):
    @typechecked
    def matmul(
        x: Float[torch.Tensor, "b c"], y: Float[torch.Tensor, "c d"]
    ) -> Float[torch.Tensor, "b d"]:
        return x @ y

    assert matmul(torch.ones(2, 3), torch.ones(3, 4)).shape == (2, 4)
    with pytest.raises(TypeCheckError, match=r"i64\[3,4\]\(torch\)"):
        matmul(torch.ones(2, 3), torch.ones(3, 4, dtype=torch.int64))
    with pytest.raises(TypeCheckError, match="c=3 was bound by axis 1 of x"):
        matmul(torch.ones(2, 3), torch.ones(4, 4))
    with pytest.raises(TypeCheckError):
        matmul(np.ones((2, 3)), torch.ones(3, 4))


def test_checked_function_inside_torch_compile(torch):
    @typechecked
    def scale(x: Float[torch.Tensor, "n"], y: Float[torch.Tensor, "n"]) -> Float[torch.Tensor, "n"]:
        return x * y

    compiled = torch.compile(lambda a, b: scale(a, b) + 1, backend="eager")
    assert torch.equal(compiled(torch.ones(3), torch.ones(3)), torch.full((3,), 2.0))
    with pytest.raises(TypeCheckError, match="n=3"):
        compiled(torch.ones(3), torch.ones(4))


def test_checked_function_under_jax_jit_and_vmap(jax):
    jnp = jax.numpy

    @typechecked
    def matmul(
        x: Float32[jax.Array, "b c"], y: Float32[jax.Array, "c d"]
    ) -> Float32[jax.Array, "b d"]:
        return x @ y

    assert matmul(jnp.ones((2, 3)), jnp.ones((3, 4))).shape == (2, 4)
    jitted = jax.jit(matmul)
    assert jitted(jnp.ones((2, 3)), jnp.ones((3, 4))).shape == (2, 4)
    with pytest.raises(TypeCheckError, match="c=3 was bound by axis 1 of x"):
        jitted(jnp.ones((2, 3)), jnp.ones((4, 4)))
    assert jax.vmap(matmul)(jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4))).shape == (5, 2, 4)


def test_checker_works_with_torch_and_jax_blocked(run_python):
    result = run_python("""
        import sys
        for name in ("torch", "jax", "jaxlib", "tensorflow", "mlx"):
            sys.modules[name] = None
        import numpy as np
        from tensortypes.annotate import Float
        from tensortypes.errors import TypeCheckError
        from tensortypes.runtime import typechecked

        @typechecked
        def f(x: Float[np.ndarray, "n"], y: Float[np.ndarray, "n"]) -> int:
            return 1

        assert f(np.zeros(2), np.zeros(2)) == 1
        try:
            f(np.zeros(2), np.zeros(3))
        except TypeCheckError as error:
            assert "n=2 was bound by axis 0 of x" in str(error)
        else:
            raise AssertionError("not checked")
        print("numpy alone")
    """)
    assert "numpy alone" in result.stdout
