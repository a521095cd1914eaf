"""``Op``: an operation that builds Apply nodes and computes their values (layer 3, ``graph``).

An Op is immutable and identified by its class and its ``__props__`` (the
names of the attributes that parametrise it), so two equal Ops can be merged
by graph rewrites. ``make_node`` checks the inputs and builds an ``Apply``
with output Variables of the right types; ``perform`` computes the output
values in Python (PyTensor's storage convention: ``output_storage[i][0]``).
"""

from __future__ import annotations

from tensortypes.errors import MethodNotDefined
from tensortypes.graph.basic import Apply

__all__ = ["Op"]


class Op:
    """Base class of operations (PyTensor style).

    >>> from tensortypes.graph import Apply, generic
    >>> class Identity(Op):
    ...     def make_node(self, x):
    ...         return Apply(self, [x], [x.type()])
    ...     def perform(self, node, inputs, output_storage):
    ...         output_storage[0][0] = inputs[0]
    >>> x = generic("x")
    >>> y = Identity()(x)
    >>> str(y), y.eval({x: 5})
    ('Identity.0', 5)
    """

    __slots__ = ()

    __props__: tuple[str, ...] = ()
    """Names of the attributes that parametrise the Op (its identity)."""

    default_output: int | None = None
    """Index of the output that ``__call__`` returns for a multi-output Op."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        props = cls.__dict__.get("__props__", None)
        if props is None:
            return
        if not isinstance(props, tuple) or not all(isinstance(p, str) for p in props):
            raise TypeError(
                f"{cls.__name__}.__props__ must be a tuple of attribute names (str), got {props!r}"
            )
        if len(set(props)) != len(props):
            raise TypeError(f"{cls.__name__}.__props__ names an attribute twice: {props!r}")

    def _props(self) -> tuple:
        try:
            return tuple(getattr(self, p) for p in self.__props__)
        except AttributeError as exc:
            raise AttributeError(
                f"{type(self).__name__} lists {exc.name!r} in __props__ but has no such attribute"
            ) from None

    def __eq__(self, other):
        if self is other:
            return True
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self):
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        if not self.__props__:
            return type(self).__name__
        inner = ", ".join(f"{p}={v!r}" for p, v in zip(self.__props__, self._props()))
        return f"{type(self).__name__}{{{inner}}}"

    __repr__ = __str__

    # -- the graph --------------------------------------------------------------------
    def make_node(self, *inputs) -> Apply:
        """Required: check ``inputs`` and return an Apply of this Op with new outputs."""
        raise MethodNotDefined(f"{type(self).__name__} does not define make_node()")

    def __call__(self, *inputs, **kwargs):
        """Apply the Op: the output Variable, or the list of outputs.

        A multi-output Op with ``default_output`` set returns that output only.
        """
        node = self.make_node(*inputs, **kwargs)
        if not isinstance(node, Apply):
            raise TypeError(
                f"{self}.make_node must return an Apply, got {type(node).__name__} {node!r}"
            )
        outputs = node.outputs
        if self.default_output is not None:
            return node.default_output()
        if len(outputs) == 1:
            return outputs[0]
        return list(outputs)

    # -- values -----------------------------------------------------------------------
    def perform(self, node, inputs, output_storage) -> None:
        """Compute the outputs of ``node`` from the input values.

        ``output_storage`` holds one single-element list per output; store each
        output value in ``output_storage[i][0]``.
        """
        raise MethodNotDefined(f"{type(self).__name__} does not define perform()")

    def infer_shape(self, fgraph, node, input_shapes):
        """Optional: the output shapes, symbolically, from the input shapes."""
        raise MethodNotDefined(f"{type(self).__name__} does not define infer_shape()")

    def do_constant_folding(self, node) -> bool:
        """Whether rewrites may replace ``node`` by its value when its inputs are constant."""
        return True
