"""jaxtyping's examples as written (NumPy stands in for ``jnp`` when JAX is absent).

``run(checked)`` decorates each example function with ``checked`` (a runtime
checker: ours, or the scope-and-isinstance stand-in below), calls it with the
spec's good and bad arguments, and returns ``{example: outcome}`` where the
outcome is "ok" or the ``TypeCheckError`` (``AnnotationError`` for an annotation that
cannot be checked there) message. Used in this process and in
subprocesses that block JAX and optree.
"""

# No ``from __future__ import annotations``: the examples are written as users write
# them, with the annotations evaluated where the functions are defined.
import inspect
import typing

try:
    import jax.numpy as jnp
    from jax import Array
except ImportError:
    import numpy as jnp
    from numpy import ndarray as Array

from tensortypes.annotate import Shaped
from tensortypes.annotate._scope import scope
from tensortypes.errors import AnnotationError, TypeCheckError
from tensortypes.pytree import PyTree


def scoped(fn):
    """Check each annotated parameter with ``isinstance``, in order, in one scope."""
    hints = typing.get_type_hints(fn, include_extras=True)
    signature = inspect.signature(fn)

    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        with scope() as bindings:
            for name, value in bound.arguments.items():
                ann = hints.get(name)
                bindings.label = name
                if ann is not None and not isinstance(value, ann):
                    raise TypeCheckError(f"parameter {name}: {ann.__instancecheck_str__(value)}")
            return fn(*args, **kwargs)

    return wrapper


def _outcome(call) -> str:
    try:
        call()
    except (TypeCheckError, AnnotationError) as error:
        return f"{type(error).__name__}: {error}"
    return "ok"


def run(checked) -> dict[str, str]:
    out = {}

    @checked
    def same(x: PyTree[int, "T"], y: PyTree[int, "T"]):
        pass

    out["c same structure"] = _outcome(lambda: same((1, 2), (3, 4)))
    out["c other structure"] = _outcome(lambda: same((1, 2), [3, 4]))

    @checked
    def composite(x: PyTree[int, "T"], y: PyTree[int, "S"], z: PyTree[int, "S T"]):
        pass

    x = (1, 2)
    y = {"key": 3}
    z = {"key": (4, 5)}  # structure is the composition of the structures of `y` and `z`
    out["d composite"] = _outcome(lambda: composite(x, y, z))
    out["d not the composite"] = _outcome(lambda: composite(x, y, {"key": 4}))

    @checked
    def unbound(z: PyTree[int, "S T"]):
        pass

    out["d unbound piece"] = _outcome(lambda: unbound(z))

    @checked
    def lower(t: PyTree[int, "T"], u: PyTree[int, "... T"]):
        pass

    out["e lower levels"] = _outcome(lambda: lower((1, 2), {"a": (3, 4), "b": [(5, 6)]}))
    out["e not the lower levels"] = _outcome(lambda: lower((1, 2), {"a": (3, 4), "b": 5}))

    @checked
    def prefix(t: PyTree[int, "T"], u: PyTree[int, "T ..."]):
        pass

    out["f prefix"] = _outcome(lambda: prefix((1, 2), ((3, 4), [5])))
    out["f not a prefix"] = _outcome(lambda: prefix((1, 2), [3, 4]))

    @checked
    def f(
        x: PyTree[Shaped[Array, "?foo"], "T"],
        y: PyTree[Shaped[Array, "?foo"], "T"],
    ):
        pass

    x0 = jnp.arange(3)
    x1 = jnp.arange(5)

    y0 = jnp.arange(3) + 1
    y1 = jnp.arange(5) + 1

    out["path-dependent ok"] = _outcome(lambda: f((x0, x1), (y0, y1)))
    out["path-dependent bad"] = _outcome(lambda: f((x1, x1), (y0, y1)))
    return out


EXPECTED_OK = {"c same structure", "d composite", "e lower levels", "f prefix", "path-dependent ok"}


def verify(out: dict[str, str], messages: bool = True) -> list[str]:
    """The examples whose outcome is wrong (empty when all is as jaxtyping's PyTree annotations says);
    with ``messages``, also those whose message lacks what it must name."""
    wrong = [k for k, v in out.items() if (v == "ok") != (k in EXPECTED_OK)]
    if not messages:
        return wrong
    if (
        "structure name S is not bound" not in out["d unbound piece"]
        and "names S, T are not bound" not in out["d unbound piece"]
    ):
        wrong.append("d unbound piece (message)")
    if "y[0]" not in out["path-dependent bad"]:
        wrong.append("path-dependent bad (leaf path)")
    return wrong


if __name__ == "__main__":
    import json
    import sys
    from tensortypes.pytree import backend_name

    result = run(scoped)
    print(
        json.dumps(
            {
                "backend": backend_name(),
                "wrong": verify(result),
                "out": result,
                "jax": "jax" in sys.modules and sys.modules["jax"] is not None,
            }
        )
    )
