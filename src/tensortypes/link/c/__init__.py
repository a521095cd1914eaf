"""The C back end of Theano's type interface: C code for types, the C linker and the module cache (layer 6).

Importing this package registers the C implementations of the built-in types
(``TensorType``, ``Generic``, the Python scalar types ``int``/``float``/
``bool``) with ``graph.register_c_implementation`` and the lowerings of the
built-in ops, so ``TensorType("int64", ()).c_element_type() == "npy_int64"``.

Public names:

- ``CLinkerType`` (Theano's interface, re-exported from ``graph``);
- ``CDataType``, ``EnumType``, ``EnumList``, ``CEnumType`` (Theano's types);
- ``CLinker`` (``make_function(fgraph)``), ``CompiledGraph``;
- ``ModuleCache`` (compiled modules on disk, per user);
- ``register_lowering`` (C code for an op class, as data) and ``default_compiler``.
"""

from tensortypes.graph import CLinkerOp, CLinkerType, Generic, register_c_implementation
from tensortypes.link.c import ops as _ops
from tensortypes.link.c.cache import ModuleCache
from tensortypes.link.c.cdata import CDataType
from tensortypes.link.c.compiler import default_compiler
from tensortypes.link.c.enum_types import CEnumType, EnumList, EnumType
from tensortypes.link.c.linker import CLinker, CompiledGraph
from tensortypes.link.c.ops import register_lowering
from tensortypes.link.c.types_c import BoolC, FloatC, GenericC, IntC, TensorTypeC
from tensortypes.tensor import TensorType
from tensortypes.types.primitives import BoolType, FloatType, IntType

__all__ = [
    "CLinkerType",
    "CLinkerOp",
    "CDataType",
    "EnumType",
    "EnumList",
    "CEnumType",
    "CLinker",
    "CompiledGraph",
    "ModuleCache",
    "register_lowering",
    "default_compiler",
]

register_c_implementation(TensorType, TensorTypeC)
register_c_implementation(Generic, GenericC)
register_c_implementation(IntType, IntC)
register_c_implementation(FloatType, FloatC)
register_c_implementation(BoolType, BoolC)
_ops._register_builtin()
