"""A JAX MLP written the functional way: parameters as arrays, pure functions."""
from typing import List, Tuple

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int


def init_layer(key, d_in: int, d_out: int) -> Tuple[Float[Array, "d_in d_out"], Float[Array, "d_out"]]:
    w = jax.random.normal(key, (d_in, d_out)) * jnp.sqrt(2.0 / d_in)
    b = jnp.zeros(d_out)
    return w, b


def dense(x: Float[Array, "b d_in"], w: Float[Array, "d_in d_out"],
          b: Float[Array, "d_out"]) -> Float[Array, "b d_out"]:
    return x @ w + b


def mlp(x: Float[Array, "b d"], w1: Float[Array, "d h"], b1: Float[Array, "h"],
        w2: Float[Array, "h k"], b2: Float[Array, "k"]) -> Float[Array, "b k"]:
    hidden = jax.nn.relu(dense(x, w1, b1))
    return dense(hidden, w2, b2)


def cross_entropy(logits: Float[Array, "b k"], labels: Int[Array, "b"]) -> Float[Array, ""]:
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    targets = jax.nn.one_hot(labels, logits.shape[-1])
    return -jnp.mean(jnp.sum(targets * log_probs, axis=-1))


def accuracy(logits: Float[Array, "b k"], labels: Int[Array, "b"]) -> Float[Array, ""]:
    return jnp.mean(jnp.argmax(logits, axis=-1) == labels)


def layer_norm(x: Float[Array, "b d"], eps: float = 1e-5) -> Float[Array, "b d"]:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps)


def attention(q: Float[Array, "t d"], k: Float[Array, "s d"],
              v: Float[Array, "s e"]) -> Float[Array, "t e"]:
    scores = q @ k.T / jnp.sqrt(q.shape[-1])
    return jax.nn.softmax(scores, axis=-1) @ v


def batch_norm_stats(x: Float[Array, "b c h w"]) -> Tuple[Array, Array]:
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    return mean, var


def patches(images: Float[Array, "b 32 32 3"]) -> Float[Array, "b 64 48"]:
    x = images.reshape(images.shape[0], 8, 4, 8, 4, 3)
    x = x.transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(images.shape[0], 64, 48)


def sizes(widths: List[int]) -> List[Tuple[int, int]]:
    return list(zip(widths[:-1], widths[1:]))


def main() -> None:
    key = jax.random.PRNGKey(0)
    w1, b1 = init_layer(key, 784, 128)
    w2, b2 = init_layer(key, 128, 10)
    x = jax.random.normal(key, (32, 784))
    logits = mlp(x, w1, b1, w2, b2)
    labels = jax.random.randint(key, (32,), 0, 10)
    loss = cross_entropy(logits, labels)
