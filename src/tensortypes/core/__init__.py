"""tensortypes.core: the pure lattice (layer 2: standard library and NumPy only).

- ``dtypes``: interned dtypes, the categories of jaxtyping's array annotations, promotion and casting
  as a table of edges.
- ``dims``: symbolic dimensions (constants, symbols, expressions) with a normal
  form, evaluation and tri-state comparison; ``_dimparse`` is their parser.
- ``limits``: the limits on work done for text and sizes read from outside (length,
  operands, nesting, bits, digits, terms), in one place.
- ``shapes``: static shapes (ints, None, rigid dims), shape patterns
  (``DimSpec``/``ShapePattern``), merging, broadcasting and ``is_super``.
- ``arrays``: recognisers that read a value's array kind, dtype and shape by
  its module name, without importing any array library.
"""
