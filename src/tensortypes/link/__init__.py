"""tensortypes.link: turning typed graphs into callables (layer 6, back ends).

- ``function(inputs, outputs, mode="c")`` and the ``Function`` it returns;
- ``PyLinker``: the Python linker (every op through Python, ``mode="py"``);
- ``tensortypes.link.c``: the C linker and its module cache (``mode="c"``),
  imported only when used.
"""

from tensortypes.link.function import MODES, Function, function
from tensortypes.link.py import PyFunction, PyLinker

__all__ = ["function", "Function", "MODES", "PyLinker", "PyFunction"]
