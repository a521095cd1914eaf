"""Variables, Constants and Apply nodes: the symbolic graph of Theano's type interface (layer 3, ``graph``).

A ``Variable`` is a node of data with a ``type``; its ``owner`` is the
``Apply`` node that computes it (None for a root) and ``index`` its position
among that node's outputs. A ``Constant`` is a root whose value is fixed when
it is built. An ``Apply`` is one application of an ``Op`` to input Variables.

Variables and Apply nodes hash and compare by identity: two Variables are the
same node of a graph only when they are the same object. ``Constant.equals``
and ``Constant.signature`` say when two constants hold equal values.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from copy import copy

import numpy as np

from tensortypes.graph.evaluate import MissingInputError, compile_graph

__all__ = ["Scratchpad", "Variable", "Constant", "Apply", "MissingInputError"]


class Scratchpad:
    """A free-form namespace for annotations (``Variable.tag``, ``Apply.tag``).

    >>> tag = Scratchpad(trace="x = a + b")
    >>> tag.trace
    'x = a + b'
    """

    def __init__(self, **attributes):
        self.__dict__.update(attributes)

    def update(self, other: Scratchpad) -> Scratchpad:
        """Copy every attribute of ``other`` onto this scratchpad; return self."""
        self.__dict__.update(other.__dict__)
        return self

    def __copy__(self) -> Scratchpad:
        return Scratchpad(**self.__dict__)

    def __repr__(self) -> str:
        return "Scratchpad(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class Variable:
    """A node of data in a graph: ``type``, ``owner``, ``index`` and ``name`` (as in Theano).

    >>> from tensortypes.graph import generic
    >>> x = Variable(generic, name="x")
    >>> x.owner is None, str(x)
    (True, 'x')
    """

    __slots__ = ("type", "owner", "index", "name", "tag", "_fn_cache", "__weakref__")

    def __init__(self, type, owner=None, index=None, name=None):
        if isinstance(type, builtins.type):
            raise TypeError(
                f"Variable type must be a Type instance, got the class "
                f"{type.__name__}; did you mean {type.__name__}()?"
            )
        if not callable(getattr(type, "filter", None)):
            raise TypeError(
                f"Variable type must be a Type (an object with a filter method), got {type!r}"
            )
        if owner is not None and not isinstance(owner, Apply):
            raise TypeError(f"Variable owner must be an Apply node or None, got {owner!r}")
        if index is not None and not _is_int(index):
            raise TypeError(f"Variable index must be an int or None, got {index!r}")
        if owner is not None and index is None:
            raise TypeError(
                "a Variable with an owner needs the int index of its position "
                "among the owner's outputs"
            )
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Variable name must be a str or None, got {name!r}")
        self.type = type
        self.owner = owner
        self.index = None if index is None else int(index)
        self.name = name
        self.tag = Scratchpad()
        self._fn_cache = None

    def clone(self) -> Variable:
        """Return a new Variable like this one, with no owner or index (as in Theano).

        The type and name are kept; the tag is copied.

        >>> from tensortypes.graph import generic
        >>> x = Variable(generic, name="x")
        >>> y = x.clone()
        >>> y is not x and y.type is x.type and y.name == "x"
        True
        """
        cp = self.__class__(self.type, None, None, self.name)
        cp.tag = copy(self.tag)
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        owner = self.owner
        if owner is not None:
            op = owner.op
            if self.index == getattr(op, "default_output", None):
                return f"{op}.out"
            return f"{op}.{self.index}"
        return f"<{self.type}>"

    __repr__ = __str__

    def eval(self, inputs_to_values=None):
        """Evaluate this Variable, given values for the roots it depends on.

        The graph is compiled the first time for each set of input Variables
        and the compiled function is cached on this Variable, so later calls
        are fast (as in Theano). Values are filtered through each input's type.

        >>> from tensortypes.graph import generic
        >>> x = Variable(generic, name="x")
        >>> x.eval({x: "hello"})
        'hello'
        """
        if inputs_to_values is None:
            inputs_to_values = {}
        elif not isinstance(inputs_to_values, Mapping):
            raise TypeError(
                f"eval takes a mapping from Variables to values, "
                f"got {type(inputs_to_values).__name__}"
            )
        for key in inputs_to_values:
            if not isinstance(key, Variable):
                raise TypeError(
                    f"eval: every key must be a Variable, got {type(key).__name__} {key!r}"
                )
        # Sorted by id, so the same Variables given in another order reuse the compilation.
        inputs = tuple(sorted(inputs_to_values, key=id))
        cache = self._fn_cache
        if cache is None:
            cache = self._fn_cache = {}
        fn = cache.get(inputs)
        if fn is None:
            fn = cache[inputs] = compile_graph(inputs, [self])
        return fn(*[inputs_to_values[v] for v in inputs])[0]


class _ConstantSignature(tuple):
    """``(type, data)`` of a Constant, compared with the type's ``values_eq``."""

    __slots__ = ()

    def __eq__(self, other):
        if type(other) is not _ConstantSignature:
            return False
        if self is other:
            return True
        (t0, d0), (t1, d1) = self, other
        if t0 != t1:
            return False
        if d0 is d1:
            return True
        try:
            return bool(t0.values_eq(d0, d1))
        except (TypeError, ValueError):
            return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        t, data = self
        # Values equal under values_eq must hash alike: hash only what they share.
        if isinstance(data, np.ndarray):
            return hash((t, data.shape, data.dtype.str))
        try:
            return hash((t, data))
        except TypeError:
            return hash((t, type(data)))


class Constant(Variable):
    """A root Variable with a fixed value: ``Constant(type, data, name=None)`` (as in Theano).

    ``data`` is ``type.filter(data)``; it cannot be changed afterwards, and a
    Constant never has an owner.

    >>> from tensortypes.graph import generic
    >>> c = Constant(generic, 2)
    >>> str(c), c.data, c.value
    ('Constant{2}', 2, 2)
    """

    __slots__ = ("_data",)

    def __init__(self, type, data, name=None):
        super().__init__(type, None, None, name)
        self._data = type.filter(data)

    @property
    def owner(self):
        """Always None: a Constant is a root of every graph it is in."""
        return None

    @owner.setter
    def owner(self, value):
        if value is not None:
            raise ValueError(f"Constant {self} cannot have an owner; it is a root of the graph")

    @property
    def data(self):
        """The constant's value (read-only)."""
        return self._data

    @data.setter
    def data(self, value):
        raise AttributeError(
            f"the data of Constant {self} is read-only; make a new Constant instead"
        )

    value = property(
        lambda self: self._data, doc="The constant's value (read-only, Theano's type interface)."
    )

    def signature(self) -> tuple:
        """Return ``(type, data)``, equal to another signature when types and values are.

        >>> from tensortypes.graph import generic
        >>> Constant(generic, 3).signature() == Constant(generic, 3).signature()
        True
        """
        return _ConstantSignature((self.type, self._data))

    def equals(self, other) -> bool:
        """True iff ``other`` is a Constant of an equal type and an equal value.

        >>> from tensortypes.graph import generic
        >>> Constant(generic, 3).equals(Constant(generic, 4))
        False
        """
        return isinstance(other, Constant) and self.signature() == other.signature()

    def clone(self) -> Constant:
        """Return a new Constant sharing this one's data (Theano's type interface: data is never copied)."""
        cp = self.__class__(self.type, self._data, self.name)
        cp._data = self._data
        cp.tag = copy(self.tag)
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        text = str(self._data)
        if len(text) > 20:
            text = text[:10].strip() + " ... " + text[-5:].strip()
        return f"{type(self).__name__}{{{text}}}"

    __repr__ = __str__


class Apply:
    """One application of ``op`` to ``inputs``, producing ``outputs``.

    Building an Apply sets each output's ``owner`` and ``index``.

    >>> from tensortypes.graph import generic
    >>> x, y = Variable(generic, name="x"), Variable(generic)
    >>> node = Apply("identity", [x], [y])
    >>> y.owner is node, y.index, node.nin, node.nout
    (True, 0, 1, 1)
    """

    __slots__ = ("op", "inputs", "outputs", "tag", "__weakref__")

    def __init__(self, op, inputs, outputs):
        inputs = list(inputs)
        outputs = list(outputs)
        for i, var in enumerate(inputs):
            if not isinstance(var, Variable):
                raise TypeError(
                    f"input {i} of {op} must be a Variable, got {type(var).__name__} {var!r}"
                )
        for i, var in enumerate(outputs):
            if not isinstance(var, Variable):
                raise TypeError(
                    f"output {i} of {op} must be a Variable, got {type(var).__name__} {var!r}"
                )
            if isinstance(var, Constant):
                raise ValueError(
                    f"output {i} of {op} is the Constant {var}, which cannot have an owner"
                )
            if var.owner is not None and not (var.owner is self and var.index == i):
                raise ValueError(
                    f"output {i} of {op}, {var}, is already the output of "
                    f"another node ({var.owner})"
                )
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self.tag = Scratchpad()
        for i, var in enumerate(outputs):
            var.owner = self
            var.index = i

    @property
    def nin(self) -> int:
        """The number of inputs."""
        return len(self.inputs)

    @property
    def nout(self) -> int:
        """The number of outputs."""
        return len(self.outputs)

    def default_output(self) -> Variable:
        """The output that stands for this node: ``op.default_output``, or the only one.

        Raises ValueError for a node with several outputs and no default.
        """
        do = getattr(self.op, "default_output", None)
        if do is None:
            if len(self.outputs) == 1:
                return self.outputs[0]
            raise ValueError(
                f"{self.op} has {len(self.outputs)} outputs and no "
                "default_output; pick one from node.outputs"
            )
        if not _is_int(do) or not -len(self.outputs) <= do < len(self.outputs):
            raise ValueError(
                f"{self.op}.default_output is {do!r}, not the index of one of "
                f"its {len(self.outputs)} outputs"
            )
        return self.outputs[do]

    out = property(default_output, doc="Alias of ``default_output()``.")

    def clone(self) -> Apply:
        """Return a new Apply with the same op and inputs and cloned outputs."""
        cp = self.__class__(self.op, self.inputs, [o.clone() for o in self.outputs])
        cp.tag = copy(self.tag)
        return cp

    def clone_with_new_inputs(self, inputs, strict=True) -> Apply:
        """Return a copy of this node applied to ``inputs``.

        With ``strict``, each new input goes through ``old.type.filter_variable``
        (which may convert it or raise TypeError). When an input's type changed,
        the node is rebuilt with ``op.make_node`` so output types follow.
        """
        inputs = list(inputs)
        if len(inputs) != len(self.inputs):
            raise ValueError(f"{self} takes {len(self.inputs)} inputs, got {len(inputs)}")
        remake = False
        for i, (old, new) in enumerate(zip(self.inputs, inputs)):
            convert = getattr(old.type, "filter_variable", None) if strict else None
            if convert is not None:
                new = inputs[i] = convert(new)
            elif not isinstance(new, Variable):
                raise TypeError(
                    f"new input {i} must be a Variable, got {type(new).__name__} {new!r}"
                )
            if old.type != new.type:
                remake = True
        if remake:
            node = self.op.make_node(*inputs)
            node.tag = copy(self.tag).update(node.tag)
            return node
        node = self.clone()
        node.inputs = inputs
        return node

    def __str__(self) -> str:
        return f"{self.op}({', '.join(map(str, self.inputs))})"

    __repr__ = __str__
