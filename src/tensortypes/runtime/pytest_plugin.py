"""The pytest plugin: ``--tensortypes-packages=pkg1,pkg2[,checker]`` (layer 6: runtime).

Installs the import hook for the packages named before pytest imports any
``conftest.py`` (in ``pytest_load_initial_conftests``, as jaxtyping does), so a
conftest that imports the package under test gets it checked. The last element
is a checker (``beartype.beartype``, ``typeguard.typechecked``,
``beartype.beartype(conf=beartype.BeartypeConf(...))``, ``None``) unless it
names a module; without one, this package's checker is used. Checker strings are
read with ``ast`` (dotted names, calls, literals), never evaluated, and the
option is cut only at commas outside brackets.

jaxtyping's spelling ``--jaxtyping-packages=pkg1,pkg2,checker`` (the last element
always the checker) is accepted too (``jaxtyping_plugin``), unless jaxtyping's
own plugin is installed and claims it.

Registered through the ``pytest11`` entry point ``tensortypes``, or with
``pytest -p tensortypes.runtime.pytest_plugin``.
"""

from __future__ import annotations

import importlib.machinery
import sys
from importlib.metadata import entry_points
from typing import Any

import pytest

from tensortypes.runtime._checkerspec import split_top_level

__all__ = [
    "pytest_addoption",
    "pytest_load_initial_conftests",
    "split_packages",
    "install_for",
    "add_jaxtyping_option",
]


def _jaxtyping_plugin_installed() -> bool:
    try:
        found = entry_points(group="pytest11")
    except Exception:  # noqa: BLE001 (broken metadata must not break the test run)
        return False
    return any(ep.name == "jaxtyping" or ep.value.startswith("jaxtyping") for ep in found)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("tensortypes")
    group.addoption(
        "--tensortypes-packages",
        action="store",
        default=None,
        help="comma-separated packages and modules to check with tensortypes, "
        "optionally followed by a checker, e.g. pkg1,pkg2,beartype.beartype",
    )
    if not _jaxtyping_plugin_installed():
        add_jaxtyping_option(parser)


def add_jaxtyping_option(parser: Any) -> None:
    """Add jaxtyping's ``--jaxtyping-packages`` to pytest's options."""
    parser.getgroup("jaxtyping").addoption(
        "--jaxtyping-packages",
        action="store",
        default=None,
        help="jaxtyping's spelling: packages, then the checker to use (None for "
        "tensortypes' own), e.g. pkg,beartype.beartype",
    )


def _names_module(name: str) -> bool:
    """Whether ``name`` is an importable module, found without importing anything."""
    if not all(p.isidentifier() for p in name.split(".")):
        return False
    if name in sys.modules or name in sys.builtin_module_names:
        return True
    path = None
    parts = name.split(".")
    for i in range(len(parts)):
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: i + 1]), path)
        if spec is None:
            return False
        path = spec.submodule_search_locations
        if path is None and i + 1 < len(parts):
            return False
    return True


def split_packages(value: str, last_is_checker: bool) -> tuple[list[str], Any]:
    """``(packages, checker)`` from the option's value (checker None: ours). Commas
    inside a checker's brackets do not cut it.

    >>> split_packages("pkg_a,pkg_b,beartype.beartype", True)
    (['pkg_a', 'pkg_b'], 'beartype.beartype')
    >>> split_packages("pkg,b.b(conf=C(x=1, y=2))", True)
    (['pkg'], 'b.b(conf=C(x=1, y=2))')
    """
    parts = [p.strip() for p in split_top_level(value) if p.strip()]
    if not parts:
        raise pytest.UsageError("--tensortypes-packages needs at least one package name")
    checker = None
    if last_is_checker or (
        len(parts) > 1 and (parts[-1] in ("None", "none") or not _names_module(parts[-1]))
    ):
        checker = parts.pop()
        if checker in ("None", "none"):
            checker = None
    if not parts:
        raise pytest.UsageError("no package to check: the option's last element is the checker")
    bad = [p for p in parts if not all(q.isidentifier() for q in p.split("."))]
    if bad:
        raise pytest.UsageError(f"not a package or module name: {', '.join(bad)}")
    return parts, checker


def install_for(value: str | None, last_is_checker: bool) -> None:
    """Install the import hook an option's value asks for (nothing for no value)."""
    if not value:
        return
    packages, checker = split_packages(value, last_is_checker)
    imported = sorted(p for p in packages if p in sys.modules)
    if imported:
        raise pytest.UsageError(
            f"tensortypes cannot check these packages because they "
            f"are already imported: {', '.join(imported)}"
        )
    if isinstance(checker, str):
        # A checker that cannot be resolved is a usage error now, not at each import.
        from tensortypes.runtime._checkerspec import resolve_checker_text

        try:
            resolve_checker_text(checker)
        except (ValueError, ImportError, AttributeError, TypeError) as error:
            raise pytest.UsageError(f"bad typechecker {checker!r}: {error}") from None
    # Imported only when asked for: every pytest run loads this plugin.
    from tensortypes.runtime.import_hook import install_import_hook

    install_import_hook(packages, checker)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: list) -> None:
    options = parser.parse_known_args(args)
    install_for(getattr(options, "tensortypes_packages", None), False)
    if not _jaxtyping_plugin_installed():
        install_for(getattr(options, "jaxtyping_packages", None), True)
