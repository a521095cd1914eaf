"""The pytest plugin: ``--tensortypes-packages=pkg1,pkg2[,checker]`` (layer 6: runtime).

Installs the import hook for the packages named before pytest imports them, so
the test run checks every annotated function of those packages. The last
element is a checker (``beartype.beartype``, ``typeguard.typechecked``, ``None``)
unless it names a module; without one, this package's checker is used.

jaxtyping's spelling ``--jaxtyping-packages=pkg1,pkg2,checker`` (the last element
always the checker) is accepted too, unless jaxtyping's own plugin is installed
and claims it.

Registered through the ``pytest11`` entry point ``tensortypes``, or with
``pytest -p tensortypes.runtime.pytest_plugin``.
"""

from __future__ import annotations

import importlib.machinery
import sys
from importlib.metadata import entry_points
from typing import Any

import pytest

__all__ = ["pytest_addoption", "pytest_configure", "split_packages"]


def _jaxtyping_plugin_installed() -> bool:
    try:
        found = entry_points(group="pytest11")
    except Exception:  # noqa: BLE001 (broken metadata must not break the test run)
        return False
    return any(ep.name == "jaxtyping" or ep.value.startswith("jaxtyping") for ep in found)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("tensortypes")
    group.addoption("--tensortypes-packages", action="store", default=None,
                    help="comma-separated packages and modules to check with tensortypes, "
                         "optionally followed by a checker, e.g. pkg1,pkg2,beartype.beartype")
    if not _jaxtyping_plugin_installed():
        group.addoption("--jaxtyping-packages", action="store", default=None,
                        help="jaxtyping's spelling: packages, then the checker to use "
                             "(None for tensortypes' own)")


def _names_module(name: str) -> bool:
    """Whether ``name`` is an importable module, found without importing anything."""
    if name in sys.modules or name in sys.builtin_module_names:
        return True
    path = None
    parts = name.split(".")
    for i in range(len(parts)):
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:i + 1]), path)
        if spec is None:
            return False
        path = spec.submodule_search_locations
        if path is None and i + 1 < len(parts):
            return False
    return True


def split_packages(value: str, last_is_checker: bool) -> tuple[list[str], Any]:
    """``(packages, checker)`` from the option's value (checker None: ours).

    >>> split_packages("pkg_a,pkg_b,beartype.beartype", True)
    (['pkg_a', 'pkg_b'], 'beartype.beartype')
    """
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts:
        raise pytest.UsageError("--tensortypes-packages needs at least one package name")
    checker = None
    if last_is_checker or (len(parts) > 1 and (parts[-1] in ("None", "none") or
                                               not _names_module(parts[-1]))):
        checker = parts.pop()
        if checker in ("None", "none"):
            checker = None
    if not parts:
        raise pytest.UsageError("no package to check: the option's last element is the "
                                "checker")
    return parts, checker


def pytest_configure(config: Any) -> None:
    for option, last_is_checker in (("tensortypes_packages", False),
                                    ("jaxtyping_packages", True)):
        try:
            value = config.getoption(option)
        except ValueError:  # the jaxtyping spelling belongs to jaxtyping's own plugin
            continue
        if not value:
            continue
        packages, checker = split_packages(value, last_is_checker)
        imported = sorted(p for p in packages if p in sys.modules)
        if imported:
            raise pytest.UsageError(f"tensortypes cannot check these packages because they "
                                    f"are already imported: {', '.join(imported)}")
        # Imported only when asked for: every pytest run loads this plugin.
        from tensortypes.runtime.import_hook import install_import_hook
        install_import_hook(packages, checker)
