"""A two-layer MLP in JAX with explicit parameters (correct)."""
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float


def init(key, d_in: int, d_hidden: int, d_out: int):
    k1, k2 = jax.random.split(key)
    w1 = jax.random.normal(k1, (d_in, d_hidden)) / jnp.sqrt(d_in)
    w2 = jax.random.normal(k2, (d_hidden, d_out)) / jnp.sqrt(d_hidden)
    return w1, w2


def mlp(x: Float[Array, "b d_in"], w1: Float[Array, "d_in h"],
        w2: Float[Array, "h d_out"]) -> Float[Array, "b d_out"]:
    h = jax.nn.relu(x @ w1)
    return h @ w2


def loss(x: Float[Array, "b d_in"], y: Float[Array, "b d_out"], w1: Float[Array, "d_in h"],
         w2: Float[Array, "h d_out"]) -> Float[Array, ""]:
    return jnp.mean((mlp(x, w1, w2) - y) ** 2)
