"""Annotations read from source into lattice types (layer 6: ``check``).

``types.ann_to_type`` converts live annotation objects; the checker imports
nothing from the code it checks, so :func:`read_annotation` is its static
counterpart: it reads the annotation's syntax tree, resolving names through
the module's imports (``from jaxtyping import Float`` makes ``Float`` the path
``jaxtyping.Float``), and builds the same lattice types with the classes of
``tensortypes.types``:

- jaxtyping-style array annotations, ``Float32[torch.Tensor, "b c"]``,
  ``Int[np.ndarray, "n"]``, ``Shaped[jax.Array, "..."]`` from ``jaxtyping`` or
  ``tensortypes``, module-level aliases of them (``Image = Float[Tensor, "c h
  w"]``) and nestings (``Float[Image, "b"]``): an ``ArrayType`` whose shape is
  the shape string read by :func:`~.shapetext.shape_pattern`;
- bare array classes (``torch.Tensor``, ``np.ndarray``, ``jax.Array``,
  ``npt.NDArray[np.float32]``): arrays of any shape;
- ``int``/``float``/``bool``/``str``/``complex``/``None``, ``Optional[X]``,
  ``X | None``, ``Union``, ``Tuple[...]`` (and ``Tuple[X, ...]``),
  ``List``/``list``, ``Dict``/``dict``, ``Set``, ``Sequence``/``Iterable``
  and the other ``collections.abc`` generics, ``Literal``, ``Any``,
  ``Annotated``/``Final``/``ClassVar``, ``torch.dtype``, string annotations
  (forward references), and the checked module's own classes
  (``check.typelang.class_type``);
- names another module of the checked project defines or re-exports
  (``from threestudio.utils.typing import *``, ``from .types import Image``):
  the module's ``path_of`` follows them (``check.project``), and an annotation
  alias of another module is read in that module.

Anything else is ``Any``: an annotation the checker cannot read never makes an
error, only a ``--strict`` note. A malformed shape string raises
``AnnotationError`` (with the caret of ``tensortypes.annotate``).
"""

from __future__ import annotations

import ast
import collections.abc as abc

from tensortypes.annotate import DTYPE_CLASSES
from tensortypes.core.dtypes import CATEGORIES, DType, dtype_from_name
from tensortypes.core.shapes import ShapePattern
from tensortypes.types import (
    ANY,
    DEVICE,
    DTYPE,
    NONE,
    AbcType,
    ArrayType,
    DictType,
    FrozenSetType,
    ListType,
    LiteralType,
    OptionalType,
    SetType,
    TupleType,
    UnionType,
    VarTupleType,
)
from tensortypes.types import BOOL as BOOL_T
from tensortypes.types import COMPLEX as COMPLEX_T
from tensortypes.types import FLOAT as FLOAT_T
from tensortypes.types import INT as INT_T
from tensortypes.types import STR as STR_T

from .shapetext import shape_pattern
from .typelang import class_type

__all__ = ["DTYPE_NAMES", "ARRAY_KINDS", "JAXTYPING_MODULES", "read_annotation", "dtype_class"]

JAXTYPING_MODULES = ("jaxtyping", "tensortypes", "tensortypes.annotate")


def _dtype_set(names) -> frozenset | None:
    # Categories come back as core's own frozensets, so ``Float`` is ``FLOATING``.
    if names is None:
        return None
    found = frozenset(dtype_from_name(n) for n in names)
    return _CATEGORY_SETS.get(found, found)


_CATEGORY_SETS: dict[frozenset, frozenset] = {members: members for members in CATEGORIES.values()}

# jaxtyping's dtype classes (as in jaxtyping) as dtype sets (None: any dtype), read off the
# runtime's own table so the checker knows exactly the classes ``tensortypes.annotate`` has.
DTYPE_NAMES: dict[str, frozenset[DType] | None] = {
    name: _dtype_set(cls.dtypes) for name, cls in DTYPE_CLASSES.items()
}

ARRAY_KINDS = {
    "torch.Tensor": "torch",
    "torch.FloatTensor": "torch",
    "torch.LongTensor": "torch",
    "numpy.ndarray": "numpy",
    "numpy.typing.NDArray": "numpy",
    "jax.Array": "jax",
    "jax.numpy.ndarray": "jax",
    "jaxtyping.Array": "jax",
    # jaxtyping's names as a migrated code base imports them (docs/migrating.md)
    "tensortypes.Array": "jax",
    "tensortypes.annotate.Array": "jax",
    "torch.nn.Parameter": "torch",
}
_FIXED_TENSORS = {"torch.FloatTensor": "float32", "torch.LongTensor": "int64"}
_NAMED = {
    "builtins.int": INT_T,
    "builtins.float": FLOAT_T,
    "builtins.bool": BOOL_T,
    "builtins.str": STR_T,
    "builtins.complex": COMPLEX_T,
    "types.NoneType": NONE,
    "builtins.list": ListType(ANY),
    "builtins.dict": DictType(ANY, ANY),
    "builtins.tuple": VarTupleType(ANY),
    "typing.List": ListType(ANY),
    "typing.Dict": DictType(ANY, ANY),
    "torch.dtype": DTYPE,
    "torch.device": DEVICE,
    # pydantic's constrained numbers are ints and floats to the code that reads them
    **{
        f"pydantic{where}.{name}": INT_T
        for where in ("", ".types")
        for name in ("PositiveInt", "NonNegativeInt", "NegativeInt", "NonPositiveInt", "StrictInt")
    },
    **{
        f"pydantic{where}.{name}": FLOAT_T
        for where in ("", ".types")
        for name in ("PositiveFloat", "NonNegativeFloat", "NegativeFloat", "NonPositiveFloat")
    },
}
_ABC = {
    name: getattr(abc, name)
    for name in (
        "Iterable",
        "Iterator",
        "Collection",
        "Sequence",
        "MutableSequence",
        "Mapping",
        "MutableMapping",
        "Reversible",
        "Container",
        "Sized",
    )
}
_OPTIONALS = frozenset({"typing.Optional", "typing_extensions.Optional"})
_UNPACK = frozenset({"typing.Unpack", "typing_extensions.Unpack"})
_WRAPPERS = frozenset(
    {
        "typing.Annotated",
        "typing.Final",
        "typing.ClassVar",
        "typing_extensions.Annotated",
        "typing.Required",
        "typing.NotRequired",
    }
)


def dtype_class(path: str):
    """``(True, dtypes)`` when ``path`` names a jaxtyping dtype class, else ``(False, None)``.

    >>> dtype_class("jaxtyping.Float32")[0], dtype_class("torch.Tensor")
    (True, (False, None))
    """
    module, _, name = path.rpartition(".")
    if module in JAXTYPING_MODULES and name in DTYPE_NAMES:
        return True, DTYPE_NAMES[name]
    return False, None


def _elements(node: ast.expr) -> list:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def read_annotation(node, module, depth: int = 0):
    """The lattice type an annotation node denotes (see the module docstring).

    ``module`` resolves names: ``module.path_of(node)`` gives a dotted path or
    None, ``module.alias_annotation(name)`` a module-level alias's node,
    ``module.classes`` the module's own classes.

    >>> import ast
    >>> from tensortypes.check.modinfo import ModuleInfo
    >>> m = ModuleInfo(ast.parse("from typing import List, Optional"))
    >>> read_annotation(ast.parse("Optional[List[int]]", mode="eval").body, m)
    Optional[List[int]]
    """
    if node is None or depth > 20:
        return ANY
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE
        if isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value.strip(), mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                # Not an expression Python can compile: unencodable text (a lone
                # surrogate), NUL bytes, nesting beyond the parser's limits.
                return ANY
            return read_annotation(parsed, module, depth + 1)
        return ANY
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(
            [
                read_annotation(node.left, module, depth + 1),
                read_annotation(node.right, module, depth + 1),
            ]
        )
    if isinstance(node, ast.Subscript):
        return _subscript(node, module, depth)
    if isinstance(node, ast.Name):
        alias = module.alias_annotation(node.id)
        if alias is not None:
            return read_annotation(alias, module, depth + 1)
        if node.id in module.classes:
            return class_type(module.classes[node.id], module)
    path = module.path_of(node)
    if path is None:
        return ANY
    foreign = _foreign_alias(path, module)
    if foreign is not None:
        return read_annotation(foreign[0], foreign[1], depth + 1)
    project = getattr(module, "project", None)
    cls = project.foreign_class(path, module.local) if project is not None else None
    if cls is not None:  # a class of another module of the project
        found = class_type(cls, cls.walker.module)
        if found is not ANY:
            module.by_type[found] = cls
        return found
    if path in ARRAY_KINDS:
        fixed = _FIXED_TENSORS.get(path)
        return ArrayType(ARRAY_KINDS[path], fixed)
    return _NAMED.get(path, ANY)


def _union(members: list):
    """``Union[members]``, where arrays of one rank that differ in their names stay apart.

    The lattice absorbs ``Float[Tensor, "b n"] | Float[Tensor, "b d"]`` into one
    member (as patterns each matches every array the other does), which would
    leave a parameter with the names of one of them. Such arrays are joined axis
    by axis instead: an axis named alike in all of them keeps its name, any other
    is ``_``, any size (the code decides which member it has, by a flag the
    checker cannot follow).
    """
    found = UnionType(members)
    arrays = [m for m in members if type(m) is ArrayType and m.shape is not None]
    kept = found.members if type(found) in (UnionType, OptionalType) else (found,)
    if len(arrays) < 2 or sum(type(m) is ArrayType for m in kept) >= len(set(arrays)):
        return found
    first = arrays[0]
    specs = first.shape.specs
    if not all(
        len(a.shape.specs) == len(specs) and a.kind == first.kind and a.dtypes == first.dtypes
        for a in arrays
    ):
        return found
    joined = tuple(
        spec if all(a.shape.specs[i] == spec for a in arrays) else _ANY_AXIS
        for i, spec in enumerate(specs)
    )
    if any(
        getattr(a.shape.specs[i], "variadic", False)
        for a in arrays
        for i, spec in enumerate(joined)
        if spec is _ANY_AXIS
    ):
        return found  # "*b n" | "*c n": how many axes each stands for differs
    merged = ArrayType(first.kind, first.dtypes, ShapePattern(joined))
    return UnionType([m for m in members if m not in arrays] + [merged])


_ANY_AXIS = shape_pattern("_").specs[0]


def _foreign_alias(path: str, module):
    """``(node, ModuleInfo)`` of an annotation alias defined in another project module."""
    project = getattr(module, "project", None)
    if project is None:
        return None
    return project.annotation_alias(path, module.local)


def _subscript(node: ast.Subscript, module, depth: int):
    if isinstance(node.value, ast.Name) and node.value.id in module.classes:
        return class_type(module.classes[node.value.id], module)  # a generic class: Box[int]
    factory = _factory(node.value, module)
    if factory is not None:  # ``Float["b n"]`` of ``Float = TorchTyping(Float)``
        return _array([None, node.slice], dtype_class(factory[0])[1], module, depth, factory[1])
    path = module.path_of(node.value)
    if path is None:
        return ANY
    args = _elements(node.slice)
    is_dtype, dtypes = dtype_class(path)
    if is_dtype:
        return _array(args, dtypes, module, depth)

    def read(i):
        return read_annotation(args[i], module, depth + 1) if i < len(args) else ANY

    name = path.rpartition(".")[2]
    if path in _OPTIONALS:
        return OptionalType(read(0))
    if path in ("typing.Union", "typing_extensions.Union"):
        return _union([read(i) for i in range(len(args))])
    if path in ("typing.Tuple", "builtins.tuple"):
        if any(
            isinstance(a, ast.Starred)
            or (isinstance(a, ast.Subscript) and module.path_of(a.value) in _UNPACK)
            for a in args
        ):
            return ANY  # tuple[*Ts]: a variadic generic's length is not known here
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            return VarTupleType(read(0))
        if len(args) == 1 and isinstance(args[0], ast.Tuple) and not args[0].elts:
            return TupleType([])
        return TupleType([read(i) for i in range(len(args))])
    if path in ("typing.List", "builtins.list"):
        return ListType(read(0))
    if path in ("typing.Dict", "builtins.dict"):
        return DictType(read(0), read(1))
    if path in ("typing.Set", "builtins.set"):
        return SetType(read(0))
    if path in ("typing.FrozenSet", "builtins.frozenset"):
        return FrozenSetType(read(0))
    if (
        path.partition(".")[0] in ("typing", "collections")
        and name in _ABC
        and path in (f"typing.{name}", f"collections.abc.{name}")
    ):
        return AbcType(_ABC[name], [read(i) for i in range(len(args))])
    if path in _WRAPPERS:
        return read(0)
    if path in ("typing.Literal", "typing_extensions.Literal"):
        values = [a.value for a in args if isinstance(a, ast.Constant)]
        if (
            len(values) != len(args)
            or not values
            or not all(type(v) in (int, str, bool) for v in values)
        ):
            return ANY
        return LiteralType(values)
    if path == "numpy.typing.NDArray":
        found = dtype_from_name((module.path_of(args[0]) or "").rpartition(".")[2])
        return ArrayType("numpy", found.name if found is not None else None)
    return ANY


def _factory(node, module):
    """``(dtype class path, array class path)`` when ``node`` names an annotation factory
    of this module or of another module of the project, else None."""
    if isinstance(node, ast.Name):
        found = getattr(module, "annotation_factories", {}).get(node.id)
        if found is not None:
            return found
    project = getattr(module, "project", None)
    if project is None:
        return None
    path = module.path_of(node)
    return project.annotation_factory(path, module.local) if path is not None else None


def _formatted_shape(node: ast.JoinedStr, module) -> str | None:
    """The text of an f-string shape (``f"b n {IS_MOLECULE_TYPES}"``) whose fields are
    int constants of the module or of the project (``IS_MOLECULE_TYPES = 5`` imported
    from another module), or None when one is not such a constant."""
    parts = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            parts.append(part.value)
            continue
        if (
            not isinstance(part, ast.FormattedValue)
            or part.conversion != -1
            or part.format_spec is not None
            or not isinstance(part.value, ast.Name)
        ):
            return None
        value = getattr(module, "constants", {}).get(part.value.id)
        if value is None and getattr(module, "project", None) is not None:
            path = module.path_of(part.value)
            value = module.project.constant(path, module.local) if path is not None else None
        if type(value) is not int:
            return None
        parts.append(str(value))
    return "".join(parts)


def _array(args: list, dtypes, module, depth: int, base_path=None):
    if len(args) != 2:
        return ANY
    base, shape_node = args
    kind = "any"
    if base_path is None:
        base_path = module.path_of(base)
    inner = None
    if base_path in ARRAY_KINDS:
        kind = ARRAY_KINDS[base_path]
    elif isinstance(base, ast.Name) and module.alias_annotation(base.id) is not None:
        inner = read_annotation(module.alias_annotation(base.id), module, depth + 1)
    elif isinstance(base, ast.Subscript):
        inner = read_annotation(base, module, depth + 1)
    elif base_path is not None and _foreign_alias(base_path, module) is not None:
        inner = read_annotation(base, module, depth + 1)
    if type(inner) is ArrayType:
        kind = inner.kind
        if inner.dtypes is not None:
            mine = ArrayType(kind, dtypes).dtypes if dtypes is not None else None
            dtypes = inner.dtypes if mine is None else (mine & inner.dtypes)
    shape = None
    if isinstance(shape_node, ast.JoinedStr):
        text = _formatted_shape(shape_node, module)
        if text is not None:
            shape_node = ast.copy_location(ast.Constant(text), shape_node)
    if isinstance(shape_node, ast.Constant) and isinstance(shape_node.value, str):
        shape = shape_pattern(shape_node.value)
        if type(inner) is ArrayType and inner.shape is not None:
            # jaxtyping nests: Float[Image, "b"] is "b c h w"
            shape = ShapePattern(shape.specs + inner.shape.specs)
    return ArrayType(kind, dtypes, shape)
