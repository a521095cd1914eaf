"""The symbolic graph of PyTensor and Theano (layer 3): Types, Variables, Ops and their tools.

- ``Type`` (the contract of PyTensor's Type documentation with its defaults), ``SingletonType``,
  ``Generic``/``generic`` (any Python object);
- ``Variable``, ``Constant``, ``Apply``, ``Op``: the graph itself;
- ``FunctionGraph``: a subgraph with client bookkeeping and ``replace``;
- ``compile_graph``: the evaluator behind ``Variable.eval``;
- ``dprint``: PyTensor's text picture of a graph;
- ``CLinkerType``/``CLinkerOp``: the C interface of Theano's type interface, and
  ``CRegistered``/``register_c_implementation`` for the built-in types' C code.

Imports only ``errors``, the standard library and NumPy.
"""

from tensortypes.graph.basic import Apply, Constant, MissingInputError, Scratchpad, Variable
from tensortypes.graph.clinker import (
    CLinkerObject,
    CLinkerOp,
    CLinkerType,
    CRegistered,
    c_implementation,
    register_c_implementation,
)
from tensortypes.graph.evaluate import CompiledGraph, compile_graph
from tensortypes.graph.fg import FunctionGraph, clone_get_equiv
from tensortypes.graph.op import Op
from tensortypes.graph.printing import dprint
from tensortypes.graph.type import Generic, SingletonType, Type, generic
from tensortypes.graph.walk import ancestors, graph_inputs, io_toposort, variables

__all__ = [
    "Apply",
    "CLinkerObject",
    "CLinkerOp",
    "CLinkerType",
    "CRegistered",
    "CompiledGraph",
    "Constant",
    "FunctionGraph",
    "Generic",
    "MissingInputError",
    "Op",
    "Scratchpad",
    "SingletonType",
    "Type",
    "Variable",
    "ancestors",
    "c_implementation",
    "clone_get_equiv",
    "compile_graph",
    "dprint",
    "generic",
    "graph_inputs",
    "io_toposort",
    "register_c_implementation",
    "variables",
]
