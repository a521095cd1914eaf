"""The runtime checker (layer 6: back ends).

``typechecked`` compiles a function's signature into one generated check
function; ``jaxtyped`` is jaxtyping's decorator in all its forms;
``install_import_hook`` applies either to every function of some packages;
``print_bindings`` shows the sizes bound in the current scope;
``load_ipython_extension`` makes ``%load_ext tensortypes`` check every cell.
The pytest plugin is ``tensortypes.runtime.pytest_plugin``.

The names load on first use, so that the pytest plugin (which every pytest run
imports) costs nothing until a test run asks for checking.

>>> import numpy as np
>>> from tensortypes.runtime import typechecked
>>> @typechecked
... def norm(x: np.ndarray) -> float:
...     return float(np.sqrt((x * x).sum()))
>>> norm(np.array([3.0, 4.0]))
5.0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tensortypes.runtime.decorators import jaxtyped, typechecked
    from tensortypes.runtime.import_hook import install_import_hook, load_ipython_extension
    from tensortypes.runtime.scopes import print_bindings

_WHERE = {
    "typechecked": "decorators",
    "jaxtyped": "decorators",
    "install_import_hook": "import_hook",
    "load_ipython_extension": "import_hook",
    "print_bindings": "scopes",
}

__all__ = [
    "typechecked",
    "jaxtyped",
    "install_import_hook",
    "print_bindings",
    "load_ipython_extension",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
