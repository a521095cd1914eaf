"""JAX code: jax.numpy follows NumPy's rules."""
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float


def attention(q: Float[Array, "t d"], k: Float[Array, "s e"]) -> Float[Array, "t s"]:
    scores = q @ k.T  # E: contracted axes differ
    return jax.nn.softmax(scores, axis=-1)


def layer(x: Float[Array, "b n"], w: Float[Array, "n m"], b: Float[Array, "n"]) -> Float[Array, "b m"]:
    return jnp.dot(x, w) + b  # E: cannot broadcast


def stack(xs: Float[Array, "b n"]) -> Float[Array, "b n"]:
    return jnp.concatenate([xs, xs.T], axis=0)  # E: differ on axis 1
