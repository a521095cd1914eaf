"""jaxtyping's examples through the runtime checkers: ours, and ours with beartype.

Our checker sees ``PyTree[...]`` parameters through their lattice type
(``PyTreeType``, whose ``check(value, bindings)``/``explain(value, bindings,
label)`` take the call's scope): structure names and sizes bind across the
parameters of one call, and the message names the leaf. Under
``jaxtyped(typechecker=beartype)`` beartype calls ``isinstance`` on the
annotation classes inside the scope ``jaxtyped`` opens.
"""

from __future__ import annotations

import pytest
from pytree_spec_examples import run, verify

runtime = pytest.importorskip("tensortypes.runtime")


def test_spec_examples_with_typechecked():
    out = run(runtime.typechecked)
    assert verify(out) == [], out


def test_spec_examples_with_jaxtyped():
    out = run(runtime.jaxtyped)
    assert verify(out) == [], out


def test_spec_examples_with_jaxtyped_and_beartype():
    beartype = pytest.importorskip("beartype").beartype
    out = run(lambda fn: runtime.jaxtyped(typechecker=beartype)(fn))
    assert verify(out, messages=False) == [], out


def test_spec_examples_with_jaxtyped_and_typeguard():
    typeguard = pytest.importorskip("typeguard")
    if not hasattr(typeguard, "typechecked"):
        pytest.skip("typeguard without typechecked")
    out = run(lambda fn: runtime.jaxtyped(typechecker=typeguard.typechecked)(fn))
    assert verify(out, messages=False) == [], out
