"""JAX code with consistent shapes."""
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float


def attention(q: Float[Array, "t d"], k: Float[Array, "s d"]) -> Float[Array, "t s"]:
    scores = q @ k.T / jnp.sqrt(q.shape[-1])
    return jax.nn.softmax(scores, axis=-1)


def layer(x: Float[Array, "b n"], w: Float[Array, "n m"], b: Float[Array, "m"]) -> Float[Array, "b m"]:
    return jnp.dot(x, w) + b


def stack(xs: Float[Array, "b n"]) -> Float[Array, "2*b n"]:
    return jnp.concatenate([xs, xs], axis=0)
