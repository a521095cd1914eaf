"""The checked project: its modules by name, and names followed across them (layer 6: ``check``).

A module of the checked project can take its names from another one:
``from threestudio.utils.typing import *`` brings ``Float`` and ``Tensor``,
``from .geometry import rotate`` a function, ``Image = Float[Tensor, "c h w"]``
in ``types.py`` an annotation alias. :class:`Project` finds those modules on
disk and reads each one's first pass (``check.modinfo.ModuleInfo``, nothing is
imported or run), so that:

- :meth:`Project.canonical` turns a dotted path through the project into the
  path of what it names at its origin (``threestudio.utils.typing.Float`` is
  ``jaxtyping.Float``), following ``from x import y as z``, module-level
  aliases (``Tensor = torch.Tensor``), re-exports and star imports (which honour
  ``__all__``);
- :meth:`Project.function`, :meth:`Project.annotation_alias` and
  :meth:`Project.constant` give another module's function (its signature, read
  in its own module), annotation alias or int constant.

Modules are found the way Python would find them: from the package roots of
the checked files (the first folder up without an ``__init__.py``), the
checked folders, and, for a module outside any package (a script), its own
folder; ``import a.b`` from a file somewhere under a folder ``a`` without an
``__init__.py`` (a namespace package) is found from the folder above that one. An import the project cannot resolve stays unknown, never an error;
``--strict`` names it. A class of another module is read by a checker of its
own module (``Checker.foreign_class``): its ``__init__`` is walked there, so
its instances have the attributes it sets; its methods' signatures are read
there; an unannotated method's result is unknown (its body is not part of the
module's interface, :func:`interface_hash`). A one-statement function whose
result is not known is evaluated at each call by that checker too
(:meth:`Project.walker_of`, ``check.signatures``), so its body is part of the
interface (``check.defs.inlinable``).
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

from .modinfo import ModuleInfo
from .sources import parse_module
from .symbolic import UNKNOWN

__all__ = ["Project", "module_name", "interface_hash", "MAX_DEPTH"]

MAX_DEPTH = 16  # alias chains followed at most this deep (a cycle ends there too)
_MAX_MODULE_BYTES = 4 << 20


def module_name(file: Path) -> tuple:
    """``(dotted name, root folder)`` of a module file, from its ``__init__.py`` parents.

    >>> module_name(Path("/nonexistent/pkg/mod.py"))
    ('mod', PosixPath('/nonexistent/pkg'))
    """
    file = Path(file)
    parts = [] if file.name == "__init__.py" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def interface_hash(source: str, bodies, extra=()) -> str:
    r"""A hash of what other modules can see of a module: its text less the function bodies.

    ``bodies``: the ``(first, last)`` lines of every function body but
    ``__init__``'s and one-statement wrappers' (``ModuleInfo.bodies``). Editing a function's body leaves the
    hash as it was, so the modules that import it are not checked again;
    anything else (a signature, an alias, an import, the attributes a class
    sets in ``__init__``) changes it. ``extra``: strings that bodies show to
    importers too (the attribute names set by name on other objects,
    ``ModuleInfo.set_by_name``).

    >>> a, b = "def f(x):\n    return 1\n", "def f(x):\n    return 2\n"
    >>> interface_hash(a, [(2, 2)]) == interface_hash(b, [(2, 2)])
    True
    """
    lines = source.splitlines()
    hidden = bytearray(len(lines) + 2)
    for first, last in bodies:
        hidden[first : last + 1] = b"\1" * (min(last, len(lines) + 1) + 1 - first)
    h = hashlib.sha1(usedforsecurity=False)
    for number, line in enumerate(lines, 1):
        if not hidden[number]:
            h.update(line.encode("utf-8", "surrogatepass"))
            h.update(b"\n")
    for item in extra:
        h.update(b"\0" + item.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class Project:
    """The modules of a checked project, found from the checked files (see the module doc).

    >>> p = Project([])
    >>> p.canonical("torch.Tensor", None)
    'torch.Tensor'
    """

    def __init__(self, files=(), folders=()):
        self.roots: list = []
        self.names: dict = {}  # resolved file -> its dotted module name
        self._files: dict = {}  # (module name, local folder) -> file or None
        self._infos: dict = {}  # file -> ModuleInfo (or None: unreadable)
        self._trees: dict = {}  # checked file -> (text, tree, newer) its first pass parsed
        self._taken: set = set()  # checked files whose check has asked for its tree
        self._heads: dict = {}  # (head, local folder) -> whether the project has it
        self._canon: dict = {}  # (path, local folder) -> canonical path
        self._splits: dict = {}  # (path, local folder) -> what split gives, once settled
        self._reading = 0  # modules whose first pass is under way (their info is None)
        self._active: set = set()  # star exports being followed (a cycle guard)
        self.class_names: dict = {}  # file -> the names of its classes
        self.walkers: dict = {}  # file -> the checker that reads its classes (or None)
        self._file_of: dict = {}  # id of a ModuleInfo read here -> its file
        self._classes: dict = {}  # file -> (its ModuleInfo, the classes taken out of it)
        self.owners: dict = {}  # id of an annotation node of a module read here -> module
        self.reader = None  # file -> a quiet checker of it (set by check.infer)
        # Folders inside a package, each a root of last resort: a repository whose top
        # folder has an ``__init__.py`` of its own (SAELens) names its package
        # ``sae_lens``, not ``SAELens.sae_lens``, in its imports.
        self.inner: list = []
        self._inner_set: set = set()
        self._inner_heads: dict = {}  # package name -> the inner folders that hold it
        for folder in folders:
            self._add_root(Path(folder).resolve())
        for f in files:
            f = Path(f).resolve()
            name, root = module_name(f)
            self.names[f] = name
            self._add_root(root, f)

    def _add_root(self, root: Path, file: Path | None = None) -> None:
        if root not in self.roots:
            self.roots.append(root)
            self._inner_heads.clear()
        if file is not None:
            folder = file.parent
            while folder != root and folder.parent != folder and len(self.inner) < 256:
                if folder not in self._inner_set:
                    self._inner_set.add(folder)
                    self.inner.append(folder)
                    self._inner_heads.clear()
                folder = folder.parent

    # -- modules ------------------------------------------------------------------------
    def locate(self, file) -> tuple:
        """``(module name, package, local folder)`` of a checked file, for its imports."""
        f = Path(file).resolve()
        name = self.names.get(f)
        if name is None:
            name, root = module_name(f)
            self.names[f] = name
            self._add_root(root, f)
        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
        local = f.parent if not (f.parent / "__init__.py").is_file() else None
        return name, package, local

    def find(self, name: str, local) -> Path | None:
        """The file of module ``name`` (``a.b`` -> ``a/b.py`` or ``a/b/__init__.py``)."""
        key = (name, local)
        if key in self._files:
            return self._files[key]
        found = None
        rel = Path(*name.split("."))
        head = rel.parts[0] if rel.parts else ""
        for root in ([local] if local is not None else []) + self.roots + self._inner_for(head):
            for candidate in (
                root / rel.with_suffix(".py") if rel.name else None,
                root / rel / "__init__.py",
            ):
                if candidate is not None and candidate.is_file():
                    found = candidate.resolve()
                    break
            if found is not None:
                break
        if found is None and local is not None:
            found = self._namespace_find(rel, local)
        self._files[key] = found
        return found

    def _inner_for(self, head: str) -> list:
        """The roots of last resort (``self.inner``) holding a package ``head``: never a
        plain module (``lib/rules/torch.py`` is not ``torch``), nor a checked root."""
        found = self._inner_heads.get(head)
        if found is None:
            roots = set(self.roots)
            found = [
                r for r in self.inner if r not in roots and (r / head / "__init__.py").is_file()
            ]
            self._inner_heads[head] = found
        return found

    def _namespace_find(self, rel: Path, local: Path) -> Path | None:
        """``a/b.py`` for ``import a.b`` from a file under a folder ``a`` that has no
        ``__init__.py`` (a namespace package, PEP 420): found from the folder above
        it, as Python finds it when that folder is on its path (the project's root)."""
        head = rel.parts[0]
        for folder in (local, *local.parents):
            if folder.name != head:
                continue
            for candidate in (
                folder.parent / rel.with_suffix(".py") if rel.name else None,
                folder.parent / rel / "__init__.py",
            ):
                if candidate is not None and candidate.is_file():
                    return candidate.resolve()
        return None

    def has_head(self, head: str, local) -> bool:
        """Whether a top-level name could be a module of the project (cheap, cached)."""
        key = (head, local)
        found = self._heads.get(key)
        if found is None:
            found = (
                bool(head)
                and head.isidentifier()
                and (
                    self.find(head, local) is not None
                    or (local is not None and any(f.name == head for f in (local, *local.parents)))
                )
            )
            self._heads[key] = found
        return found

    def info(self, name: str, local) -> ModuleInfo | None:
        """The first pass of module ``name``, read once per process, or None."""
        file = self.find(name, local)
        if file is None:
            return None
        if file in self._infos:
            return self._infos[file]
        self._infos[file] = None  # an import cycle meets None while the module is read
        try:
            if file.stat().st_size > _MAX_MODULE_BYTES:
                return None
            text = file.read_text(encoding="utf-8")
            with warnings.catch_warnings():  # the module's own invalid escapes are its business
                warnings.simplefilter("ignore")
                tree, newer = parse_module(text, filename=str(file))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
            return None
        if file in self.names and file not in self._taken:  # for its check (take_tree)
            self._trees[file] = (text, tree, newer)
        self._reading += 1
        try:
            info = ModuleInfo(tree, self, file)
        except Exception:  # noqa: BLE001 (its own check reports what is wrong with it)
            return None
        finally:
            self._reading -= 1
        for function in info.functions.values():
            if function.returns is None:
                function.inferred = UNKNOWN  # its body is walked in its own module only
        self.class_names[file] = frozenset(info.classes)
        self._file_of[id(info)] = file
        if info.classes:
            self._classes[file] = (info, info.classes)
        info.classes = {}  # read by a checker of that module: Checker.foreign_class
        self._infos[file] = info
        return info

    def take_tree(self, path, text: str):
        """``(tree, newer)`` of a checked file that :meth:`info` parsed first, when
        ``text`` is still its text, or None: each file is parsed once per run. The
        entry is dropped; the first pass keeps its own nodes."""
        try:
            file = Path(path).resolve()
        except (OSError, RuntimeError, ValueError):
            return None
        self._taken.add(file)
        found = self._trees.pop(file, None)
        if found is None or found[0] != text:
            return None
        return found[1], found[2]

    # -- names -----------------------------------------------------------------------------
    def split(self, path: str, local):
        """``(ModuleInfo, name, rest)`` for a path into a project module, or None.

        Kept once no first pass is under way: until then a module of an import cycle
        has no ModuleInfo yet (``info`` gives None while it is read)."""
        key = (path, local)
        found = self._splits.get(key, self)
        if found is not self:
            return found
        found = self._split(path, local)
        if not self._reading:
            self._splits[key] = found
        return found

    def _split(self, path: str, local):
        parts = path.split(".")
        if not self.has_head(parts[0], local):
            return None
        for i in range(len(parts) - 1, 0, -1):
            info = self.info(".".join(parts[:i]), local)
            if info is not None:
                return info, parts[i], tuple(parts[i + 1 :])
        return None

    def canonical(self, path: str, local, depth: int = 0) -> str:
        """The path of what ``path`` names at its origin (see the module docstring)."""
        key = (path, local)
        found = self._canon.get(key)
        if found is not None:
            return found
        found = path
        if depth < MAX_DEPTH:
            where = self.split(path, local)
            if where is not None:
                info, name, rest = where
                target = info.imported_path(name, depth + 1)
                if target is not None:
                    found = ".".join([target, *rest])
        if depth == 0:
            self._canon[key] = found
        return found

    def star_export(self, module: str, name: str, local, depth: int) -> str | None:
        """The canonical path of ``name`` as ``from module import *`` gives it, or None."""
        if depth >= MAX_DEPTH:
            return None
        info = self.info(module, local)
        guard = (module, name)
        if info is None or guard in self._active:
            return None
        self._active.add(guard)
        try:
            if not info.exports(name, depth + 1):
                return None
            target = info.imported_path(name, depth + 1)
        finally:
            self._active.discard(guard)
        return target if target is not None else f"{module}.{name}"

    def _own(self, path: str, local):
        where = self.split(path, local)
        if where is None or where[2]:
            return None, None
        return where[0], where[1]

    def _entry(self, path: str, local, table: str):
        """The entry for ``path``'s name in a table of the module that defines it
        (``constants``, ``partials``...), or None."""
        info, name = self._own(path, local)
        return getattr(info, table).get(name) if info is not None else None

    def function(self, path: str, local):
        """``(FunctionInfo, its ModuleInfo)`` of another module's function, or None."""
        info, name = self._own(path, local)
        if info is None:
            return None
        found = info.functions.get(name)
        return (found, info) if found is not None else None

    def class_file(self, path: str, local):
        """``(file, class name)`` of another module's class named by a canonical path."""
        info, name = self._own(path, local)
        file = self._file_of.get(id(info)) if info is not None else None
        if file is None:
            return None
        return (file, name) if name in self.class_names.get(file, ()) else None

    def foreign_class(self, path: str, local):
        """The ``ClassInfo`` of another module's class named by a canonical ``path``.

        A quiet checker of its module (one per module, made by ``self.reader``)
        holds it; the annotations of its methods and attributes are read in that
        module (``self.owners``). None when not a class of the project.
        """
        where = self.class_file(path, local)
        if where is None or self.reader is None:
            return None
        file, name = where
        walker = self.walkers.get(file, False)
        if walker is False:
            module, classes = self._classes[file]
            walker = self.walker_of(module)
        return walker.module.classes.get(name) if walker is not None else None

    def walker_of(self, module):
        """The quiet checker of a module read here (``module``: its ``ModuleInfo``), made
        once (the one :meth:`foreign_class` uses), or None."""
        file = self._file_of.get(id(module))
        if file is None or self.reader is None:
            return None
        walker = self.walkers.get(file, False)
        if walker is False:
            info, classes = self._classes.get(file, (module, {}))
            walker = self.reader(file, self, info, classes)
            self.walkers[file] = walker
            if walker is not None:
                for cls in walker.module.classes.values():
                    self._own_annotations(cls, walker.module)
        return walker

    def _own_annotations(self, info, module) -> None:
        for method in info.methods.values():
            for _, ann, _, _ in method.params:
                if ann is not None:
                    self.owners[id(ann)] = module
            if method.returns is not None:
                self.owners[id(method.returns)] = module
        for node in info.declared.values():
            self.owners[id(node)] = module
        for field in info.fields:
            self.owners[id(field.annotation)] = module

    def annotation_alias(self, path: str, local):
        """``(annotation node, its ModuleInfo)`` of another module's alias, or None."""
        info, name = self._own(path, local)
        if info is None:
            return None
        node = info.annotation_aliases.get(name)
        return (node, info) if node is not None else None

    def annotation_factory(self, path: str, local):
        """``(dtype class path, array class path)`` of another module's annotation factory
        (``Float = TorchTyping(Float)``, ``modinfo.ModuleInfo._factory``), or None."""
        return self._entry(path, local, "annotation_factories")

    def partial(self, path: str, local):
        """``(path, keyword nodes)`` of another module's ``partial`` of a library callable."""
        return self._entry(path, local, "partials")

    def keeps_signature(self, path: str, local) -> bool:
        """Whether another module's top-level name is a decorator chosen at import time
        that keeps a signature (``modinfo.ModuleInfo.keeping``)."""
        info, name = self._own(path, local)
        return info is not None and name in info.keeping

    def enum_value(self, path: str, local):
        """The literal value of another module's enum member ``pkg.mod.Color.RED``, or None."""
        where = self.split(path, local)
        if where is None or len(where[2]) != 1:
            return None
        return where[0].enum_values.get(f"{where[1]}.{where[2][0]}")

    def constant(self, path: str, local):
        """Another module's int constant named by a canonical ``path``, or None."""
        return self._entry(path, local, "constants")

    def sequence(self, path: str, local):
        """Another module's list or tuple of literals named by a canonical ``path``
        (``rc.residue_types``): ``(length, "list" or "tuple", items' type name)``,
        or None."""
        return self._entry(path, local, "sequences")

    def dependencies(self, info: ModuleInfo) -> list:
        """The project files a module's imports resolve to (for the cache's keys)."""
        out = []
        for module in info.imported_modules:
            f = self.find(module, info.local)
            if f is not None:
                out.append(f)
        return sorted(set(out))
