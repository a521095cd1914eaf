"""A JAX MLP with the slips of functional code: parameter shapes, axes, keepdims."""
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int


def dense(x: Float[Array, "b d_in"], w: Float[Array, "d_in d_out"],
          b: Float[Array, "d_out"]) -> Float[Array, "b d_out"]:
    return x @ w + b


def transposed(x: Float[Array, "b d"], w: Float[Array, "h d"], b: Float[Array, "h"]) -> Array:
    return dense(x, w, b)  # E: axis 0 has size h, expected d [arg-type]


def layer_norm(x: Float[Array, "b d"], eps: float = 1e-5) -> Float[Array, "b d"]:
    mean = jnp.mean(x, axis=-1)
    return (x - mean) / jnp.sqrt(jnp.var(x, axis=-1, keepdims=True) + eps)  # E: cannot broadcast [broadcast]


def cross_entropy(logits: Float[Array, "b k"], labels: Int[Array, "b"]) -> Float[Array, ""]:
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    targets = jax.nn.one_hot(labels, 10)
    return -jnp.mean(jnp.sum(targets * log_probs, axis=-1))  # E: axis -1 has sizes 10 and k [broadcast]


def attention(q: Float[Array, "t d"], k: Float[Array, "s d"],
              v: Float[Array, "s e"]) -> Float[Array, "t e"]:
    scores = q @ k.T
    return jax.nn.softmax(scores, axis=0) @ v.T  # E: contracted axes differ [matmul]


def patches(images: Float[Array, "b 32 32 3"]) -> Array:
    return images.reshape(images.shape[0], 8, 4, 8, 5, 3)  # E: cannot reshape [reshape]


def pooled(x: Float[Array, "b t d"]) -> Float[Array, "b d"]:
    return x.mean(axis=2)  # E: return value [return]


def init() -> None:
    key = jax.random.PRNGKey(0)
    w = jax.random.normal(key, (784, 128))
    b = jnp.zeros(128)
    x = jax.random.normal(key, (32, 748))
    h = dense(x, w, b)  # E: axis 0 has size 784, expected 748 [arg-type]
