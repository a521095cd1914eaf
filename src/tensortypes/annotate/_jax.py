"""JAX's own names of jaxtyping, loaded on first use (layer 5: ``annotate``).

``Array`` (``jax.Array``), ``ArrayLike`` and ``DTypeLike`` (from ``jax.typing``),
``Scalar`` (``Shaped[jax.Array, ""]``), ``ScalarLike`` (``Shaped[ArrayLike, ""]``) and
``PRNGKeyArray`` (``Key[jax.Array, ""] | UInt32[jax.Array, "2"]``: new-style typed keys
or old-style ``uint32[2]`` keys). JAX is imported only when one of these is asked for;
without JAX, asking raises ``AttributeError`` saying so.
"""

from __future__ import annotations

from typing import Any

from tensortypes.annotate._array import union_of
from tensortypes.annotate._dtypes import DTYPE_CLASSES

__all__ = ["JAX_NAMES", "jax_name"]

JAX_NAMES = ("Array", "ArrayLike", "DTypeLike", "Scalar", "ScalarLike", "PRNGKeyArray")
_LOADED: dict[str, Any] = {}


def jax_name(name: str) -> Any:
    """The value of one of ``JAX_NAMES``; AttributeError if JAX is not installed.

    >>> jax_name("Scalar")  # doctest: +SKIP
    Shaped[Array, '']
    """
    found = _LOADED.get(name)
    if found is not None:
        return found
    if name not in JAX_NAMES:
        raise AttributeError(f"{name!r} is not one of JAX's names: {', '.join(JAX_NAMES)}")
    try:
        import jax
        import jax.typing
    except ImportError as error:
        raise AttributeError(
            f"tensortypes.{name} needs JAX, which cannot be imported ({error})"
        ) from None
    shaped, key, uint32 = (DTYPE_CLASSES[n] for n in ("Shaped", "Key", "UInt32"))
    values = {
        "Array": jax.Array,
        "ArrayLike": jax.typing.ArrayLike,
        "DTypeLike": jax.typing.DTypeLike,
        "Scalar": shaped[jax.Array, ""],
        "ScalarLike": shaped[jax.typing.ArrayLike, ""],
        "PRNGKeyArray": union_of([key[jax.Array, ""], uint32[jax.Array, "2"]], typing_form=True),
    }
    _LOADED.update(values)
    return values[name]
