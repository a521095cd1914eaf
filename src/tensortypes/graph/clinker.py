"""The C interface of Types and Ops, and the registry of built-in C code (layer 3, ``graph``).

``CLinkerType`` and ``CLinkerOp`` are the interfaces of Theano's type interface: the method
names, signatures and defaults that the C linker calls. There is no C code in
this module. A user's Type or Op implements the methods itself and is used as is.

The built-in types keep their C code in ``tensortypes.link.c``, registered per
type class with ``register_c_implementation``. A ``CRegistered`` type answers
every C method by delegating to the implementation registered for its class
(or the nearest registered base class). The first lookup that finds nothing
imports ``tensortypes.link.c`` once, in ``_load_c_backend``: the one upward
import of the layer rule (docs/architecture.md, "C interface").
"""

from __future__ import annotations

import functools
import threading

from tensortypes.errors import MethodNotDefined

__all__ = [
    "CLinkerObject",
    "CLinkerType",
    "CLinkerOp",
    "CRegistered",
    "register_c_implementation",
    "c_implementation",
]


def _undefined(obj, method: str):
    return MethodNotDefined(
        f"{type(obj).__name__} does not define {method}(); "
        "a C implementation must provide it (as in Theano)"
    )


class CLinkerObject:
    """What the C linker asks of anything that contributes C code: build settings.

    Every method has an empty default, so a subclass overrides only what it needs.
    """

    __slots__ = ()

    def c_headers(self, **kwargs) -> list[str]:
        """Header files to ``#include`` (``"<math.h>"`` or ``"my.h"``). Default: none."""
        return []

    def c_header_dirs(self, **kwargs) -> list[str]:
        """Directories to search for headers (``-I``). Default: none."""
        return []

    def c_libraries(self, **kwargs) -> list[str]:
        """Libraries to link against (``-l``). Default: none."""
        return []

    def c_lib_dirs(self, **kwargs) -> list[str]:
        """Directories to search for libraries (``-L``). Default: none."""
        return []

    def c_compile_args(self, **kwargs) -> list[str]:
        """Extra compiler arguments. Default: none."""
        return []

    def c_no_compile_args(self, **kwargs) -> list[str]:
        """Compiler arguments that must be removed from the command line. Default: none."""
        return []

    def c_init_code(self, **kwargs) -> list[str]:
        """Code run once when the compiled module is imported. Default: none."""
        return []

    def c_support_code(self, **kwargs) -> str:
        """Global C code (support functions, structs) emitted once per module. Default: ``""``."""
        return ""

    def c_code_cache_version(self) -> tuple:
        """A tuple of integers naming the version of the C code.

        An empty tuple marks unversioned code, which is never cached between
        processes. A cache may drop modules superseded by a newer version.
        """
        return ()


class CLinkerType(CLinkerObject):
    """Interface of Types that can be arguments to a ``CLinkerOp`` (as in Theano).

    A CLinkerType provides the C code that moves a Python object (``py_<name>``)
    into C variables and back. The required methods raise ``MethodNotDefined``.
    """

    __slots__ = ()

    def c_declare(self, name, sub, check_input=True) -> str:
        """Required: C code declaring the variables that ``c_extract`` fills.

        ``name`` is the name of the ``PyObject *`` holding the value; include it
        in every declared name so that names never collide. ``sub`` maps special
        codes (most importantly ``sub["fail"]``) to their C text.
        """
        raise _undefined(self, "c_declare")

    def c_init(self, name, sub) -> str:
        """Required: C code initialising the variables declared by ``c_declare``."""
        raise _undefined(self, "c_init")

    def c_extract(self, name, sub, check_input=True) -> str:
        """Required: C code extracting ``py_%(name)s`` into the declared variables.

        On improper data the code sets a Python exception and runs ``%(fail)s``.
        """
        raise _undefined(self, "c_extract")

    def c_extract_out(self, name, sub, check_input=True) -> str:
        """Optional: like ``c_extract`` but accepts ``Py_None`` (left uninitialised).

        The default runs ``c_init`` for ``Py_None`` and ``c_extract`` otherwise.
        """
        return (
            f"\nif (py_{name} == Py_None)\n{{\n{self.c_init(name, sub)}\n}}\n"
            f"else\n{{\n{self.c_extract(name, sub, check_input)}\n}}\n"
        )

    def c_sync(self, name, sub) -> str:
        """Required: C code packing the C variables back into ``py_%(name)s``.

        The code may set ``py_%(name)s`` to a new ``PyObject *``, adjusting
        reference counts.
        """
        raise _undefined(self, "c_sync")

    def c_cleanup(self, name, sub) -> str:
        """Required: C code releasing what ``c_extract`` allocated or referenced.

        It must not decrease the reference count of ``py_%(name)s``.
        """
        raise _undefined(self, "c_cleanup")

    def c_element_type(self) -> str:
        """Optional: the C name of the element type (``"npy_float64"`` for float64 tensors)."""
        raise _undefined(self, "c_element_type")

    def c_literal(self, data) -> str:
        """Optional: a C literal for the value ``data`` of this type."""
        raise _undefined(self, "c_literal")

    def c_is_simple(self) -> bool:
        """Optional: True for builtin C types and small structs that may live on the stack."""
        return False


class CLinkerOp(CLinkerObject):
    """Interface of Ops with a C implementation (as in Theano)."""

    __slots__ = ()

    def c_code(self, node, name, inputs, outputs, sub) -> str:
        """Required: C code computing ``outputs`` (C variable names) from ``inputs``."""
        raise _undefined(self, "c_code")

    def c_code_cleanup(self, node, name, inputs, outputs, sub) -> str:
        """C code run after ``c_code`` to release what it allocated. Default: ``""``."""
        return ""

    def c_support_code_apply(self, node, name) -> str:
        """Support code specific to one Apply node (names must include ``name``)."""
        return ""

    def c_init_code_apply(self, node, name) -> str:
        """Module initialisation code specific to one Apply node. Default: ``""``."""
        return ""

    def c_support_code_struct(self, node, name) -> str:
        """Members of the per-node struct. Default: ``""``."""
        return ""

    def c_init_code_struct(self, node, name, sub) -> str:
        """Code initialising the per-node struct members. Default: ``""``."""
        return ""

    def c_cleanup_code_struct(self, node, name) -> str:
        """Code releasing the per-node struct members. Default: ``""``."""
        return ""

    def c_code_cache_version_apply(self, node) -> tuple:
        """The cache version of this Op applied to ``node``'s types.

        Combines ``c_code_cache_version()`` of the op and of every distinct
        input and output type. Empty (unversioned) as soon as one of them is.
        """
        op_version = self.c_code_cache_version()
        if not op_version:
            return ()
        parts = [op_version]
        seen: list = []
        for var in (*node.inputs, *node.outputs):
            t = var.type
            if any(t == s for s in seen):
                continue
            seen.append(t)
            version_of = getattr(t, "c_code_cache_version", None)
            try:
                version = version_of() if version_of is not None else ()
            except MethodNotDefined:
                version = ()
            if not version:
                return ()
            parts.append((type(t).__name__, tuple(version)))
        return tuple(parts)


# -- the registry of built-in C implementations ------------------------------------

_registry: dict[type, object] = {}
_resolved: dict[type, object] = {}
_backend_tried = False
_UNRESOLVED = object()
# Reentrant: importing link.c registers its implementations from inside the lookup.
_lock = threading.RLock()

_C_METHODS = tuple(
    name for name in (*vars(CLinkerObject), *vars(CLinkerType)) if name.startswith("c_")
)


def register_c_implementation(type_class: type, impl):
    """Register ``impl`` as the C code of ``type_class`` and its subclasses.

    ``impl`` is a class (typically a ``CLinkerType`` subclass whose methods are
    written as if they were the type's own) or a namespace such as a module:
    each C method is looked up on it and called with the Type instance as its
    first argument. Methods it lacks fall back to ``CLinkerType``'s defaults.
    Registering again replaces the previous entry. Returns ``impl``.

    >>> class Impl(CLinkerType):
    ...     def c_element_type(self):
    ...         return "PyObject*"
    >>> class Boxed(CRegistered):
    ...     pass
    >>> _ = register_c_implementation(Boxed, Impl)
    >>> Boxed().c_element_type()
    'PyObject*'
    """
    if not isinstance(type_class, type):
        raise TypeError(f"register_c_implementation needs a class, got {type_class!r}")
    if isinstance(impl, type) and issubclass(impl, CRegistered):
        raise TypeError(
            f"the C implementation of {type_class.__name__} cannot itself be a "
            f"CRegistered class ({impl.__name__}): its methods would delegate back"
        )
    if impl is None or not any(callable(getattr(impl, m, None)) for m in _C_METHODS):
        raise TypeError(
            f"the C implementation of {type_class.__name__} must define at least "
            f"one of {', '.join(_C_METHODS)}; got {impl!r}"
        )
    with _lock:
        _registry[type_class] = impl
        _resolved.clear()
    return impl


def c_implementation(type_class: type):
    """The implementation registered for ``type_class`` or its nearest base, or None.

    Loads ``tensortypes.link.c`` the first time nothing is found.

    >>> c_implementation(int) is None
    True
    """
    impl = _resolved.get(type_class, _UNRESOLVED)
    if impl is not _UNRESOLVED:
        return impl
    with _lock:
        impl = _lookup(type_class)
        if impl is None and not _backend_tried:
            _load_c_backend()
            impl = _lookup(type_class)
        _resolved[type_class] = impl
    return impl


def _lookup(type_class: type):
    for klass in type_class.__mro__:
        impl = _registry.get(klass)
        if impl is not None:
            return impl
    return None


def _load_c_backend() -> None:
    """Import ``tensortypes.link.c``, which registers the built-in types' C code.

    Tried once per process. A missing module (the C back end is optional)
    leaves the registry empty; any other import failure is a real error and
    propagates.
    """
    global _backend_tried
    with _lock:
        if _backend_tried:
            return
        _backend_tried = True
        try:
            import tensortypes.link.c  # noqa: F401  (registers on import)
        except ModuleNotFoundError as exc:
            if exc.name not in ("tensortypes.link", "tensortypes.link.c"):
                _backend_tried = False  # a broken back end fails again, loudly, next time
                raise
        except BaseException:
            _backend_tried = False
            raise
        _resolved.clear()


def _delegating(method: str):
    default = getattr(CLinkerType, method)

    @functools.wraps(default)
    def delegate(self, *args, **kwargs):
        impl = c_implementation(type(self))
        if impl is None:
            raise MethodNotDefined(
                f"no C implementation is registered for "
                f"{type(self).__name__}, so {method}() is not available "
                "(tensortypes.link.c registers the built-in types)"
            )
        func = getattr(impl, method, None)
        if func is None:
            # The implementation leaves this method to the interface's default.
            return default(self, *args, **kwargs)
        return func(self, *args, **kwargs)

    return delegate


class CRegistered(CLinkerType):
    """A CLinkerType whose C methods come from the registry (built-in types).

    Each method looks up the implementation registered for ``type(self)``,
    walking the MRO, and calls it with this type instance as ``self``. With no
    implementation registered, every method raises ``MethodNotDefined`` naming
    the type and the method. A subclass that defines a method itself wins.
    """

    __slots__ = ()


for _name in _C_METHODS:
    setattr(CRegistered, _name, _delegating(_name))
del _name
