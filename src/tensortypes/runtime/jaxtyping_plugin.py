"""jaxtyping's pytest option, ``--jaxtyping-packages=pkg1,pkg2,checker`` (layer 6: runtime).

The last element is always the checker (``None`` for tensortypes' own). The
main plugin (``pytest_plugin``) adds this option itself when jaxtyping is not
installed; when it is, and ``python -m tensortypes.jaxtyping_shim`` stands
tensortypes in for it, jaxtyping's entry point loads this module under the name
``jaxtyping._pytest_plugin``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tensortypes.runtime.pytest_plugin import add_jaxtyping_option, install_for

__all__ = ["pytest_addoption", "pytest_load_initial_conftests"]


def pytest_addoption(parser: Any) -> None:
    add_jaxtyping_option(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: list) -> None:
    install_for(parser.parse_known_args(args).jaxtyping_packages, True)
