"""Run code that imports ``jaxtyping`` on tensortypes, without editing its imports.

The facade (like ``cli``): ``install()`` makes ``import jaxtyping`` give the
``tensortypes`` module itself, and the few jaxtyping submodules that code and
tools import by name give their tensortypes counterparts:

==============================  ==================================================
``jaxtyping._pytest_plugin``    the ``--jaxtyping-packages`` pytest plugin
``jaxtyping._import_hook``      ``install_import_hook``
``jaxtyping._decorator``        ``jaxtyped``
``jaxtyping._ipython_extension`` ``load_ipython_extension``
``jaxtyping._typeguard``        the installed ``typeguard`` 2.x (jaxtyping vendors it)
==============================  ==================================================

It takes precedence over an installed jaxtyping, whose pytest plugin entry point
then loads ours. From the command line, ``python -m tensortypes.jaxtyping_shim``
runs a module (``-m pytest ...``), a script (``path.py ...``) or a command
(``-c CODE``) with the shim installed, so libraries such as equinox, which
import ``jaxtyping`` themselves, run on tensortypes unchanged::

    python -m tensortypes.jaxtyping_shim -m pytest tests/

Child Python processes started by that command (pytest-xdist workers, tests
that run ``python -c "import jaxtyping"``) get the shim too: the command puts a
directory holding a one-line ``jaxtyping`` package that installs it in front of
``PYTHONPATH`` for as long as it runs.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys
import tempfile
import types
from typing import Any

__all__ = ["install", "uninstall", "installed", "main"]

# jaxtyping submodule -> tensortypes module providing its public names.
SUBMODULES = {
    "jaxtyping._pytest_plugin": "tensortypes.runtime.jaxtyping_plugin",
    "jaxtyping._import_hook": "tensortypes.runtime.import_hook",
    "jaxtyping._decorator": "tensortypes.runtime.decorators",
    "jaxtyping._ipython_extension": "tensortypes.runtime.import_hook",
    "jaxtyping._config": "tensortypes._config",
    "jaxtyping._errors": "tensortypes.errors",
    "jaxtyping._typeguard": "typeguard",
}
_MARK = "__tensortypes_shim__"
_PACKAGE = (
    f"{_MARK} = True\n"
    "import sys, tensortypes, tensortypes.jaxtyping_shim\n"
    "tensortypes.jaxtyping_shim.install()\n"
    "sys.modules[__name__] = tensortypes\n"
)


class _CopyLoader(importlib.abc.Loader):
    """A fresh module holding the target module's names (the target keeps its own
    identity and ``__spec__``; pytest registers the plugin under jaxtyping's name)."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        target = importlib.import_module(self.target)
        for name, value in vars(target).items():
            if name not in (
                "__name__",
                "__spec__",
                "__loader__",
                "__package__",
                "__path__",
                "__file__",
                "__cached__",
                "__builtins__",
            ):
                module.__dict__[name] = value


class _RootLoader(importlib.abc.Loader):
    """``import jaxtyping`` gives the ``tensortypes`` module itself (should the
    entry ``install`` puts in ``sys.modules`` have been removed)."""

    def create_module(self, spec: Any) -> Any:
        import tensortypes

        self.saved = tensortypes.__spec__
        return tensortypes

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.saved  # importlib set jaxtyping's; tensortypes keeps its own


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == "jaxtyping":
            return importlib.machinery.ModuleSpec(fullname, _RootLoader())
        if not fullname.startswith("jaxtyping."):
            return None
        mapped = SUBMODULES.get(fullname)
        if mapped is None:
            return None  # an import error, as for any missing module
        return importlib.machinery.ModuleSpec(fullname, _CopyLoader(mapped))


_FINDER = _Finder()


def install() -> None:
    """Make ``import jaxtyping`` (and its named submodules) give tensortypes.

    >>> install(); import jaxtyping, tensortypes; jaxtyping is tensortypes
    True
    >>> uninstall()
    """
    previous = sys.modules.get("jaxtyping")
    if (
        previous is not None
        and previous is not sys.modules.get("tensortypes")
        and not getattr(previous, _MARK, False)
    ):
        raise RuntimeError(
            "jaxtyping is already imported, so tensortypes cannot stand in "
            "for it: install the shim before anything imports jaxtyping"
        )
    import tensortypes

    # Now, not when jaxtyping is first imported: by then pytest's assertion-rewriting
    # hook may stand before ours and load the installed jaxtyping.
    sys.modules["jaxtyping"] = tensortypes
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    """Undo ``install`` (modules already imported keep what they imported)."""
    if sys.modules.get("jaxtyping") is sys.modules.get("tensortypes"):
        del sys.modules["jaxtyping"]
    for name in SUBMODULES:
        sys.modules.pop(name, None)
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)


def installed() -> bool:
    """Whether ``import jaxtyping`` gives tensortypes now."""
    return _FINDER in sys.meta_path


_USAGE = (
    "usage: python -m tensortypes.jaxtyping_shim (-m MODULE | -c CODE | SCRIPT) "
    "[ARGS...]\n  runs it with `import jaxtyping` giving tensortypes"
)


def main(argv: list[str] | None = None) -> int:
    """The command line: run a module, command or script with the shim installed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] in ("-m", "-c") and len(argv) < 2:
        print(_USAGE, file=sys.stderr if argv[:1] not in (["-h"], ["--help"]) else sys.stdout)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    with tempfile.TemporaryDirectory(prefix="tensortypes-shim-") as directory:
        package = os.path.join(directory, "jaxtyping")
        os.mkdir(package)
        with open(os.path.join(package, "__init__.py"), "w", encoding="utf-8") as out:
            out.write(_PACKAGE)
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = directory if not old else directory + os.pathsep + old
        install()
        try:
            _run(argv)
        finally:
            if old is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = old
    return 0


def _run(argv: list[str]) -> None:
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        sys.path.insert(0, "")
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
    else:
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    sys.exit(main())
