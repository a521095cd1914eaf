"""``tensortypes check``: shape and dtype errors found without running the code (layer 6).

The static checker reads NumPy, PyTorch and JAX modules with ``ast`` (nothing
is imported or run) and reports what no size its annotations allow can make
work: contracted axes that differ, arrays that do not broadcast, reshapes that
change the element count, axes out of range, layer inputs of the wrong size
or layout, loss targets of the wrong shape or dtype, mixed-precision matrix
products, values that may be None. Names in shape annotations are universally
quantified: ``n`` and ``m`` are different sizes unless proven equal.

- :func:`check_source` / :func:`check_paths`: the Python API;
- ``tensortypes check PATH...``: the command (``runner.main``);
- :class:`Diagnostic`: one finding; ``CODES`` lists the codes.

Modules: ``symbolic`` (abstract values), ``joins`` (their control-flow joins),
``typelang`` (their lattice types: TorchScript's rules on values that are not
arrays), ``shapetext``, ``annotations`` and ``annvalues`` (annotations read
from source into lattice types, and the values those types give), ``sizes`` and ``binding`` (sizes compared and bound under the
universal contract), ``rules`` (operations as data), the walker (``modinfo``
and ``defs``: the first pass; ``infer``, ``frame``, ``statements``, ``refine``,
``expr``, ``indexing``, ``calls``, ``signatures``, ``schema``), ``suppress``
(ignore comments), ``diagnostics``, ``config``, ``cache``, ``runner``.
"""

from tensortypes.check.diagnostics import CODES, Diagnostic
from tensortypes.check.runner import check_paths, check_source

__all__ = ["check_source", "check_paths", "Diagnostic", "CODES"]
