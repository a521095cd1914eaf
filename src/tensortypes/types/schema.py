"""Reading the static schema of a class, and the schema of an instance (layer 3, ``types``).

``class_schema(cls)`` builds what ``ClassType`` and ``ModuleType`` know about a
class without running any of it:

- attributes: the class annotations (bases first), then the first assignment
  of each attribute in ``__init__``, read with ``ast`` from the source (an
  annotated assignment gives its annotation; a literal its inferred type; a
  parameter its annotation; ``torch.jit.annotate(T, v)``/``typing.cast(T, v)``
  gives ``T``); class-level values give their inferred type, properties their
  return annotation. Without source (a REPL) only annotations count. An
  attribute whose type cannot be read is *unresolved*, with the reason.
- methods: each one's signature from its annotations (missing ones are
  ``Any``), marked checkable or not (an annotation that does not resolve).
- dataclass fields.

Following TorchScript's proposal, nothing here fails: a failure is recorded and
only raised when the attribute or method is used (``attribute(name)``).
``instance_schema(obj)`` infers each attribute's type from its value (for a
``torch.nn.Module``: parameters, buffers, submodules and public attributes).
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from typing import Any

from tensortypes.errors import AnnotationError
from tensortypes.types.annotations import convert
from tensortypes.types.base import hooks
from tensortypes.types.extras import CallableType
from tensortypes.types.infer import infer_type
from tensortypes.types.nominal import ClassSchema, MethodInfo, is_module_class
from tensortypes.types.primitives import ANY

__all__ = ["class_schema", "instance_schema"]

_SCHEMAS: dict[tuple[type, bool], ClassSchema] = {}
_ACTIVE: set[tuple[type, bool]] = set()
_FRAMEWORK = frozenset(
    {
        "typing",
        "abc",
        "enum",
        "collections",
        "torch",
        "numpy",
        "jax",
        "jaxlib",
        "tensorflow",
        "_collections_abc",
        "dataclasses",
        "typing_extensions",
    }
)
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement
_CASTS = frozenset({"torch.jit.annotate", "jit.annotate", "annotate", "typing.cast", "cast"})
_FAILURES = (AnnotationError, TypeError, NameError, AttributeError)


def _user_bases(cls: type) -> list[type]:
    """The classes of the MRO that belong to the user, most derived first."""
    return [
        b
        for b in cls.__mro__
        if b.__flags__ & _HEAPTYPE and (b.__module__ or "").partition(".")[0] not in _FRAMEWORK
    ]


def class_schema(cls: type, torchscript: bool = False) -> ClassSchema:
    """The static schema of ``cls`` (cached per class and mode).

    >>> class Point:
    ...     def __init__(self, x: int):
    ...         self.x = x
    ...         self.label = "p"
    >>> s = class_schema(Point)
    >>> sorted(s.attributes.items())
    [('label', str), ('x', int)]
    """
    key = (cls, bool(torchscript))
    found = _SCHEMAS.get(key)
    if found is not None:
        return found
    if key in _ACTIVE:
        raise TypeError(f"the schema of {cls.__qualname__} refers to itself while it is read")
    _ACTIVE.add(key)
    try:
        found = _Reader(cls, bool(torchscript)).read()
    finally:
        _ACTIVE.discard(key)
    _SCHEMAS[key] = found
    return found


class _Reader:
    __slots__ = (
        "cls",
        "torchscript",
        "globalns",
        "localns",
        "attributes",
        "unresolved",
        "methods",
        "module_attribute",
    )

    def __init__(self, cls: type, torchscript: bool):
        self.cls = cls
        self.torchscript = torchscript
        module = sys.modules.get(cls.__module__)
        self.globalns = dict(vars(module)) if module is not None else {}
        self.localns = {cls.__name__: cls, **vars(cls)}
        self.attributes: dict[str, Any] = {}
        self.unresolved: dict[str, str] = {}
        self.methods: dict[str, MethodInfo] = {}
        self.module_attribute = is_module_class(cls)

    def resolve(self, ann: Any, globalns: Any = None) -> Any:
        return convert(
            ann,
            self.globalns if globalns is None else globalns,
            self.localns,
            self.torchscript,
            self.module_attribute,
        )

    def known(self, name: str) -> bool:
        return name in self.attributes or name in self.unresolved

    def read(self) -> ClassSchema:
        bases = _user_bases(self.cls)
        for base in reversed(bases):
            for name, ann in base.__dict__.get("__annotations__", {}).items():
                self.annotated(name, ann)
        for base in bases:
            for name, value in vars(base).items():
                self.member(name, value)
        for base in bases:
            init = base.__dict__.get("__init__")
            if inspect.isfunction(init):
                self.init_assignments(init)
        fields = tuple(getattr(self.cls, "__dataclass_fields__", {}))
        return ClassSchema(self.attributes, self.unresolved, self.methods, fields)

    def annotated(self, name: str, ann: Any) -> None:
        try:
            self.attributes[name] = self.resolve(ann)
            self.unresolved.pop(name, None)
        except _FAILURES as error:
            self.attributes.pop(name, None)
            self.unresolved[name] = f"its annotation {ann!r} does not resolve ({error})"

    def member(self, name: str, value: Any) -> None:
        if name.startswith("__") and name != "__call__":
            return
        if name in self.methods or self.known(name):
            return
        if isinstance(value, property):
            ret = getattr(value.fget, "__annotations__", {}).get("return", inspect.Parameter.empty)
            if ret is inspect.Parameter.empty:
                self.attributes[name] = ANY
            else:
                self.annotated(name, ret)
            return
        if isinstance(value, (staticmethod, classmethod)) or inspect.isfunction(value):
            self.methods[name] = self.method(name, value)
            return
        if isinstance(value, type) or callable(value) or hasattr(value, "__get__"):
            return  # nested classes and descriptors are not data attributes
        try:
            self.attributes[name] = infer_type(value)
        except TypeError as error:
            self.unresolved[name] = str(error)

    def method(self, name: str, value: Any) -> MethodInfo:
        binding = (
            "static"
            if isinstance(value, staticmethod)
            else ("class" if isinstance(value, classmethod) else "instance")
        )
        func = value.__func__ if binding != "instance" else value
        try:
            signature = inspect.signature(func)
        except (TypeError, ValueError) as error:
            return MethodInfo(name, None, f"no signature ({error})", binding)
        params = list(signature.parameters.values())
        if binding != "static" and params:
            params = params[1:]
        globalns = getattr(func, "__globals__", None)
        try:

            def resolve(ann):
                return ANY if ann is inspect.Parameter.empty else self.resolve(ann, globalns)

            result = resolve(signature.return_annotation)
            if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
                for p in params:
                    resolve(p.annotation)
                return MethodInfo(name, CallableType(None, result), None, binding)
            return MethodInfo(
                name, CallableType([resolve(p.annotation) for p in params], result), None, binding
            )
        except _FAILURES as error:
            return MethodInfo(name, None, f"an annotation does not resolve ({error})", binding)

    # -- __init__, read with ast ---------------------------------------------------------
    def init_assignments(self, init: Any) -> None:
        try:
            source = textwrap.dedent(inspect.getsource(init))
            tree = ast.parse(source)
        except (OSError, TypeError, SyntaxError):
            return  # no source (a REPL, a C extension): annotations alone
        fn = tree.body[0] if tree.body else None
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.args.args:
            return
        self_name = fn.args.args[0].arg
        arguments = fn.args
        names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
        params = {
            name: getattr(init, "__annotations__", {}).get(name, inspect.Parameter.empty)
            for name in names
        }
        for stmt in _statements(fn.body):
            target, annotation, value = _assignment(stmt, self_name)
            if target is None or self.known(target):
                continue
            if annotation is not None:
                self.annotated(target, ast.unparse(annotation))
            elif value is not None:
                self.assigned(target, value, params, init.__globals__)

    def assigned(self, name: str, value: ast.AST, params: dict, globalns: Any) -> None:
        try:
            literal = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        else:
            try:
                self.attributes[name] = infer_type(literal)
            except TypeError as error:
                self.unresolved[name] = str(error)
            return
        if isinstance(value, ast.Name) and value.id in params:
            if params[value.id] is inspect.Parameter.empty:
                self.unresolved[name] = (
                    f"parameter {value.id!r} of __init__ has no annotation; annotate it, or "
                    f"declare `{name}: T` in the class body"
                )
                return
            try:
                self.attributes[name] = self.resolve(params[value.id], globalns)
            except _FAILURES as error:
                self.unresolved[name] = (
                    f"parameter {value.id!r}'s annotation does not resolve ({error})"
                )
            return
        if isinstance(value, ast.Call) and ast.unparse(value.func) in _CASTS and value.args:
            self.annotated(name, ast.unparse(value.args[0]))
            return
        self.unresolved[name] = (
            f"it is assigned `{ast.unparse(value)}` in __init__, whose type is not known "
            f"without running it; declare it in the class body (`{name}: T`)"
        )


def _statements(body: list) -> Any:
    """The statements of a function body in source order, entering blocks but not
    nested functions or classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for handler in getattr(stmt, "handlers", ()) or ():
            yield from _statements(handler.body)
        for case in getattr(stmt, "cases", ()) or ():
            yield from _statements(case.body)


def _self_attribute(node: ast.AST, self_name: str) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    ):
        return node.attr
    return None


def _assignment(stmt: ast.AST, self_name: str) -> tuple[str | None, Any, Any]:
    """``(attribute, annotation node, value node)`` of a ``self.x = ...`` statement."""
    if isinstance(stmt, ast.AnnAssign):
        return (_self_attribute(stmt.target, self_name), stmt.annotation, stmt.value)
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            name = _self_attribute(target, self_name)
            if name is not None:
                return (name, None, stmt.value)
    return (None, None, None)


def instance_schema(obj: Any) -> tuple[dict, dict]:
    """``(attributes, unresolved)`` inferred from the attribute values of ``obj``.

    >>> class Box:
    ...     def __init__(self):
    ...         self.size = 3
    >>> instance_schema(Box())
    ({'size': int}, {})
    """
    values: dict[str, Any] = {}
    own = getattr(obj, "__dict__", None)
    if own is None:
        for slot in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, slot):
                values[slot] = getattr(obj, slot)
    elif is_module_class(type(obj)):
        for group in ("_parameters", "_buffers", "_modules"):
            values.update(own.get(group) or {})
        values.update({k: v for k, v in own.items() if not k.startswith("_")})
    else:
        values.update({k: v for k, v in own.items() if not k.startswith("__")})
    attributes, unresolved = {}, {}
    for name, value in values.items():
        try:
            attributes[name] = infer_type(value)
        except TypeError as error:
            unresolved[name] = str(error)
    return attributes, unresolved


hooks.class_schema = class_schema
hooks.instance_schema = instance_schema
