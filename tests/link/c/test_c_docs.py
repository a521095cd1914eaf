"""The examples in the C back end's docstrings run and say what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

from c_toys import needs_cc

MODULES = [
    "cnames",
    "compiler",
    "cache",
    "types_c",
    "enum_types",
    "cdata",
    "ops",
    "plan",
    "codegen",
    pytest.param("linker", marks=needs_cc),
    "loops",
    "trust",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"tensortypes.link.c.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
