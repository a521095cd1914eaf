"""Cross-module following (``check.project``) and the incremental cache keyed by interfaces."""

from __future__ import annotations

import subprocess
import sys

from tensortypes.check import check_paths
from tensortypes.check.cache import ResultCache
from tensortypes.check.summary import unchecked_summary

TYPING = """\
from jaxtyping import Float, Int
from torch import Tensor
import torch
Arr = torch.Tensor
Image = Float[Tensor, "c h w"]
Hidden = Float[Tensor, "_"]
__all__ = ["Float", "Tensor", "Image", "Arr"]
"""

GEOM = """\
from pkg.typing import *
SIZE = 16
def rotate(x: Float[Tensor, "n 3"], m: Float[Tensor, "3 3"]) -> Float[Tensor, "n 3"]:
    return x @ m
"""


def _project(tmp_path, use: str, init: str = "from .geom import rotate\n"):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(init)
    (pkg / "typing.py").write_text(TYPING)
    (pkg / "geom.py").write_text(GEOM)
    (pkg / "use.py").write_text(use)
    return pkg


def _codes(found, name="use.py"):
    return [(d.line, d.code) for d in found if d.path.endswith(name) and d.severity == "error"]


def test_star_import_gives_annotations(tmp_path):
    pkg = _project(
        tmp_path,
        """\
from pkg.typing import *
def f(x: Float[Tensor, "b c"]) -> Float[Tensor, "b"]:
    return x.sum(-1, keepdim=True)
""",
    )
    assert _codes(check_paths([pkg], cache=False, jobs=1)) == [(3, "return")]


def test_star_import_honours_all(tmp_path):
    # Hidden is not in __all__: the annotation is not understood, so nothing is reported
    pkg = _project(
        tmp_path,
        """\
from pkg.typing import *
def f(x: Hidden) -> Float[Tensor, "b"]:
    return x
""",
    )
    assert _codes(check_paths([pkg], cache=False, jobs=1)) == []


def test_relative_alias_and_foreign_annotation_alias(tmp_path):
    pkg = _project(
        tmp_path,
        """\
from .typing import Image, Arr as A
from .typing import Float
def f(im: Image) -> Float[A, "c h"]:
    return im
""",
    )
    assert _codes(check_paths([pkg], cache=False, jobs=1)) == [(4, "return")]


def test_function_of_another_module_and_reexport(tmp_path):
    pkg = _project(
        tmp_path,
        """\
import torch
import pkg
from . import geom
from .geom import rotate as turn, SIZE
def g(p: torch.Tensor):
    a = geom.rotate(torch.zeros(5, 3), torch.zeros(4, 4))
    b = pkg.rotate(torch.zeros(5, 3), torch.zeros(3, 3)) + torch.zeros(6, 3)
    c = turn(torch.zeros(5, 3), torch.zeros(3, 3))
    d = torch.zeros(SIZE) + torch.zeros(15)
""",
    )
    found = _codes(check_paths([pkg], cache=False, jobs=1))
    assert found == [(6, "arg-type"), (7, "broadcast"), (9, "broadcast")]


def test_script_imports_its_sibling(tmp_path):
    (tmp_path / "model.py").write_text(
        GEOM.replace(
            "from pkg.typing import *", "from torch import Tensor\nfrom jaxtyping import Float"
        )
    )
    (tmp_path / "train.py").write_text("""\
import torch
from model import rotate
rotate(torch.zeros(2, 3), torch.zeros(3, 2))
""")
    assert _codes(check_paths([tmp_path / "train.py"], cache=False, jobs=1), "train.py") == [
        (3, "arg-type")
    ]


def test_star_import_cycle_and_unknown_names_stay_unknown(tmp_path):
    (tmp_path / "a.py").write_text(
        "from b import *\nimport torch\ndef f(x: Nothing[Tensor, 'n']):\n    return x\n"
    )
    (tmp_path / "b.py").write_text("from a import *\n")
    assert check_paths([tmp_path], cache=False, jobs=1) == []


def test_without_following_names_are_unknown(tmp_path):
    pkg = _project(
        tmp_path,
        """\
from pkg.typing import *
def f(x: Float[Tensor, "b c"]) -> Float[Tensor, "b"]:
    return x.sum(-1, keepdim=True)
""",
    )
    assert _codes(check_paths([pkg], cache=False, jobs=1, follow=False)) == []


def test_strict_names_unresolved_imports_and_summarises(tmp_path):
    pkg = _project(tmp_path, "from .missing import thing\nimport pkg.gone\n")
    found = check_paths([pkg], strict=True, cache=False, jobs=1)
    notes = [d for d in found if d.path.endswith("use.py") and d.code == "unchecked"]
    assert [d.line for d in notes] == [1, 2]
    assert "pkg.missing" in notes[0].message and "pkg.gone" in notes[1].message
    assert not [d for d in found if d.severity == "error"]
    assert unchecked_summary(found).startswith("not checked: 2 unresolved imports (1 module)")


def test_strict_summary_line_on_the_command_line(tmp_path):
    pkg = _project(tmp_path, "from .missing import thing\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tensortypes",
            "check",
            "--strict",
            "--no-cache",
            "-j",
            "1",
            str(pkg),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "not checked: 1 unresolved import (1 module)"


def test_cache_rechecks_dependents_only_when_an_interface_changes(tmp_path):
    pkg = _project(
        tmp_path,
        """\
import torch
from .geom import rotate
rotate(torch.zeros(5, 3), torch.zeros(4, 4))
""",
    )
    cache = ResultCache(tmp_path / "cache")
    first = check_paths([pkg], cache=cache, jobs=1)
    assert _codes(first) == [(3, "arg-type")] and cache.misses == 4
    check_paths([pkg], cache=cache, jobs=1)
    assert cache.hits == 4 and cache.misses == 4
    geom = pkg / "geom.py"
    geom.write_text(GEOM.replace("return x @ m", "return (x @ m)"))  # a body: only geom
    check_paths([pkg], cache=cache, jobs=1)
    assert cache.hits == 7 and cache.misses == 5
    geom.write_text(
        GEOM.replace('m: Float[Tensor, "3 3"]', 'm: Float[Tensor, "4 4"]').replace(
            "x @ m", "x @ m[:3, :3]"
        )
    )  # the interface: its dependents too
    found = check_paths([pkg], cache=cache, jobs=1)
    assert _codes(found) == [] and cache.misses == 8  # geom, use and __init__ again
    assert cache.hits == 8  # typing.py


def test_a_project_decorator_that_returns_its_argument_keeps_the_signature(tmp_path):
    (tmp_path / "deco.py").write_text("""\
import typing
from jaxtyping import jaxtyped
T = typing.TypeVar("T")
def typecheck(f: T) -> T:
    return jaxtyped(typechecker=None)(f)
def other(f):
    return lambda *a: f(*a)
""")
    (tmp_path / "use.py").write_text("""\
import torch
from jaxtyping import Float
from deco import typecheck, other
@typecheck
def f(x: Float[torch.Tensor, "n"]) -> Float[torch.Tensor, "n"]:
    return x
@other
def g(x: Float[torch.Tensor, "n"]) -> Float[torch.Tensor, "n"]:
    return x
a = f(torch.zeros(3)) + torch.zeros(4)
b = g(torch.zeros(3)) + torch.zeros(4)
""")
    assert _codes(check_paths([tmp_path], cache=False, jobs=1)) == [(10, "broadcast")]


def test_einops_size_given_as_an_unknown_value_is_no_error(tmp_path):
    # c=other.shape[-2] of an unannotated value: the size is given, just not known
    (tmp_path / "m.py").write_text("""\
import torch
from einops import repeat
from jaxtyping import Float
def f(logits: Float[torch.Tensor, "... a b"], other):
    return repeat(logits, "... a b -> ... c a b", c=other.shape[-2])
def g(x: Float[torch.Tensor, "n"]):
    return repeat(x, "n -> m n")
""")
    found = check_paths([tmp_path], cache=False, jobs=1)
    assert [(d.line, d.code) for d in found if d.severity == "error"] == [(7, "axis")]


def test_strict_summary_names_unresolved_annotation_names_and_unknown_calls(tmp_path):
    (tmp_path / "m.py").write_text("""\
import torch
import somewhere_else as se
from somewhere_else import *
from jaxtyping import Float
def f(x: Floaty[torch.Tensor, "n"], y: Float[torch.Tensor, "n"]):
    return se.build_thing(y)
""")
    found = check_paths([tmp_path], strict=True, cache=False, jobs=1)
    line = unchecked_summary(found)
    assert "1 annotation with an unresolved name (1 module)" in line
    assert "1 call of an unknown function (1 module)" in line


LAYERS = """\
import torch
from torch import Tensor, nn
from pkg.typing import Float


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.fc = nn.Linear(dim, 4)
        self.scale = torch.ones(4)

    def forward(self, x: Float[Tensor, "b dim"]) -> Float[Tensor, "b 4"]:
        return self.fc(x) * self.scale

    def helper(self, x):
        return x.sum()

    def proj(self, x: Float[Tensor, "b n"]) -> Float[Tensor, "b 2"]:
        return x[:, :2]
"""


def test_class_of_another_module_is_usable(tmp_path):
    # constructor signature, methods' signatures and results, attributes set in __init__
    pkg = _project(
        tmp_path,
        """\
import torch
from .layers import Block
def run(b2: Block):
    b = Block(8)
    y = b(torch.zeros(3, 8)) + torch.zeros(3, 5)
    z = b.fc(torch.zeros(3, 8)) + b.scale + b.helper(torch.zeros(2))
    b.proj(torch.zeros(3))
    b2.proj(torch.zeros(4))
    Block(8, 9)
    return z
""",
    )
    (pkg / "layers.py").write_text(LAYERS)
    assert _codes(check_paths([pkg], cache=False, jobs=1)) == [
        (5, "broadcast"),
        (7, "arg-type"),
        (8, "arg-type"),
        (9, "call"),
    ]  # no (6, "layer")


def test_cache_rechecks_users_of_a_class_when_its_init_changes(tmp_path):
    pkg = _project(
        tmp_path,
        """\
import torch
from .layers import Block
y = Block(8).scale + torch.zeros(4)
""",
    )
    (pkg / "layers.py").write_text(LAYERS)
    cache = ResultCache(tmp_path / "cache")
    assert _codes(check_paths([pkg], cache=cache, jobs=1)) == []
    # A method body is not the interface: only layers.py is checked again.
    (pkg / "layers.py").write_text(LAYERS.replace("return x.sum()", "return x.mean()"))
    misses = cache.misses
    assert _codes(check_paths([pkg], cache=cache, jobs=1)) == []
    assert cache.misses == misses + 1
    # __init__ is: its users are checked again and see the new attribute.
    (pkg / "layers.py").write_text(LAYERS.replace("torch.ones(4)", "torch.ones(5)"))
    assert _codes(check_paths([pkg], cache=cache, jobs=1)) == [(3, "broadcast")]


MASKS = """\
from typing import overload
from einops import rearrange
from torch import Tensor


@overload
def und(t1: Tensor, t2: Tensor, pattern: str) -> Tensor: ...


def und(*args):
    *tensors, pattern = args
    return tensors[0]


def und_self(mask: Tensor, pattern: str) -> Tensor:
    return und(mask, mask, pattern)
"""


def test_a_wrapper_of_another_module_is_evaluated_with_the_callers_arguments(tmp_path):
    pkg = _project(
        tmp_path,
        """\
import torch
from pkg.typing import *
from .masks import und_self
def clashes(mask: Bool[Tensor, "b a"]):
    valid = und_self(mask, "b i, b j -> b i j")
    return valid & torch.zeros(7, dtype=torch.bool)
""",
    )
    typing = TYPING.replace("Float, Int", "Bool, Float, Int")
    (pkg / "typing.py").write_text(
        typing.replace('__all__ = ["Float"', '__all__ = ["Bool", "Float"')
    )
    (pkg / "masks.py").write_text(MASKS)
    cache = ResultCache(tmp_path / "cache")
    assert _codes(check_paths([pkg], cache=cache, jobs=1)) == [(6, "broadcast")]
    # The wrapper's body is part of its module's interface: its users are checked again.
    (pkg / "masks.py").write_text(MASKS.replace("und(mask, mask, pattern)", "und(mask, pattern)"))
    misses = cache.misses
    assert _codes(check_paths([pkg], cache=cache, jobs=1)) == []
    assert cache.misses > misses + 1


def test_a_predicate_of_another_module_narrows_like_its_test(tmp_path):
    pkg = _project(
        tmp_path,
        """\
from jaxtyping import Float
from torch import Tensor
from .helpers import exists
def g(x: Float[Tensor, "n"], m: Float[Tensor, "n"] | None = None) -> Float[Tensor, "n"]:
    if exists(m):
        x = x * m
    return x * m
""",
    )
    (pkg / "helpers.py").write_text("def exists(v):\n    return v is not None\n")
    assert _codes(check_paths([pkg], cache=False, jobs=1)) == [(7, "optional")]


MLPS = """\
import torch.nn as nn
class Plain(nn.Module):
    def __init__(self):
        super().__init__()
class Gated(nn.Module):
    def __init__(self):
        super().__init__()
class Block(nn.Module):
    def __init__(self, gated: bool):
        super().__init__()
        self.mlp = Gated() if gated else Plain()
"""


def test_isinstance_narrows_to_a_class_of_another_module(tmp_path):
    # the else branch of isinstance(block.mlp, Gated) holds the other member only
    pkg = _project(
        tmp_path,
        """\
from .mlps import Block, Gated, Plain
def init_plain(m: Plain) -> None: ...
def init_gated(m: Gated) -> None: ...
def init(block: Block) -> None:
    if isinstance(block.mlp, Gated):
        init_gated(block.mlp)
    else:
        init_plain(block.mlp)
def wrong(block: Block) -> None:
    if isinstance(block.mlp, Gated):
        init_plain(block.mlp)
""",
    )
    (pkg / "mlps.py").write_text(MLPS)
    assert _codes(check_paths([pkg], cache=False, jobs=1)) == [(11, "arg-type")]


HOOKS = """\
def add_hooks(bridge, comp) -> None:
    bridge.add_module("hook_q", bridge)
    object.__setattr__(comp, "alias", comp)
"""


def test_attributes_an_imported_module_sets_by_name(tmp_path):
    # add_module / object.__setattr__ with a literal name in an imported module: an
    # instance here may have that attribute; a name set nowhere is still an error.
    pkg = _project(
        tmp_path,
        """\
import torch.nn as nn
from .hooks import add_hooks
class Bridge(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(2, 2)
def use() -> None:
    b = Bridge()
    add_hooks(b, b)
    b.hook_q
    b.alias
    b.hook_k
""",
    )
    (pkg / "hooks.py").write_text(HOOKS)
    cache = ResultCache(tmp_path / "cache")
    assert _codes(check_paths([pkg], cache=cache, jobs=1)) == [(12, "attr")]
    # The names a body sets by name are part of the module's interface: an edit of
    # that body checks the importer again.
    (pkg / "hooks.py").write_text(HOOKS.replace('"hook_q"', '"hook_k"'))
    assert _codes(check_paths([pkg], cache=cache, jobs=1)) == [(10, "attr")]


def test_namespace_package_modules_are_followed(tmp_path):
    # ns/ has no __init__.py (PEP 420): `from ns.util import scale` in ns/model.py is
    # found from the folder above ns/, and the short unannotated helper is evaluated at
    # the call with the caller's values (a tuple: its isinstance(Tensor) branch is dead).
    ns = tmp_path / "ns"
    ns.mkdir()
    (ns / "util.py").write_text(
        "from typing import Tuple, Union\n"
        "from jaxtyping import Float\n"
        "from torch import Tensor\n"
        "def scale(x: Float[Tensor, '... d'], s: Union[Tuple[float, float], Tensor]):\n"
        "    if isinstance(s, Tensor):\n"
        "        s = (s[0], s[1])\n"
        "    return (x - s[0]) / (s[1] - s[0])\n"
    )
    (ns / "model.py").write_text(
        "from jaxtyping import Float\n"
        "from torch import Tensor\n"
        "from ns.util import scale\n"
        "def f(x: Float[Tensor, 'n 3'], r: float) -> Float[Tensor, '3 n']:\n"
        "    return scale(x, (-r, r))\n"
    )
    found = check_paths([ns / "model.py"], cache=False, jobs=1)
    assert _codes(found, "model.py") == [(5, "return")]
    assert "(n, 3)" in found[0].message


def test_a_setup_method_builds_instances_across_modules_and_is_interface(tmp_path):
    # Base.__init__ calls self.configure(); Adapter's configure registers the weight
    # that another module uses. Its body is part of the module's interface.
    (tmp_path / "model.py").write_text("""\
import torch
class Base(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.configure()
    def configure(self):
        pass
class Adapter(Base):
    def configure(self):
        self.register_buffer("w", torch.zeros(4, 3))
""")
    (tmp_path / "use.py").write_text("""\
import torch
from model import Adapter
a = Adapter()
y = torch.zeros(5, 4) @ a.w
z = torch.zeros(5, 3) @ a.w
""")
    cache = ResultCache(tmp_path / "cache")
    assert _codes(check_paths([tmp_path], cache=cache, jobs=1)) == [(5, "matmul")]
    model = tmp_path / "model.py"
    model.write_text(model.read_text().replace("zeros(4, 3)", "zeros(3, 3)"))
    assert _codes(check_paths([tmp_path], cache=cache, jobs=1)) == [(4, "matmul")]


def test_a_method_walked_at_calls_is_interface(tmp_path):
    # A short method with a "..." result is walked at each call: its body is what
    # the callers see, so changing it checks them again.
    (tmp_path / "a.py").write_text("""\
import torch
from jaxtyping import Float
from torch import Tensor
class A:
    def f(self, x: Float[Tensor, "... n"]) -> Float[Tensor, "..."]:
        return x.sum(-1)
""")
    (tmp_path / "b.py").write_text("""\
import torch
from a import A
y = A().f(torch.zeros(2, 3)) + torch.zeros(5)
""")
    cache = ResultCache(tmp_path / "cache")
    assert _codes(check_paths([tmp_path], cache=cache, jobs=1), "b.py") == [(3, "broadcast")]
    a = tmp_path / "a.py"
    a.write_text(a.read_text().replace("return x.sum(-1)", "return x.sum(-1).sum(-1)"))
    assert _codes(check_paths([tmp_path], cache=cache, jobs=1), "b.py") == []


def test_a_factory_of_lambdas_is_followed_and_is_interface(tmp_path):
    # ``get_activation(name)`` returns a lambda per name (or a function found by
    # name, unknown): a call of its result keeps the shape each lambda gives, so a
    # view with its axes swapped fails at the annotated return; the factory's body
    # is what the callers see, so changing it checks them again.
    (tmp_path / "ops.py").write_text("""\
from typing import Callable
import torch
import torch.nn.functional as F
def get_activation(name) -> Callable:
    if name is None:
        return lambda x: x
    if name == "exp":
        return lambda x: torch.exp(x)
    return getattr(F, name)
""")
    (tmp_path / "use.py").write_text("""\
from jaxtyping import Float
from torch import Tensor
from ops import get_activation
def colours(out: Tensor, d: Float[Tensor, "B H W 3"], name: str) -> Float[Tensor, "B H W 3"]:
    color = out.view(3, *d.shape[:-1])
    return get_activation(name)(color)
""")
    cache = ResultCache(tmp_path / "cache")
    assert _codes(check_paths([tmp_path], cache=cache, jobs=1)) == [(6, "return")]
    ops = tmp_path / "ops.py"
    ops.write_text(
        ops.read_text()
        .replace("(x)", "(x).permute(1, 2, 3, 0)")
        .replace("lambda x: x\n", "lambda x: x.permute(1, 2, 3, 0)\n")
    )
    assert _codes(check_paths([tmp_path], cache=cache, jobs=1)) == []


def _repo_with_own_init(tmp_path):
    """A repository whose top folder has an ``__init__.py`` of its own (as SAELens's
    does): its package is imported by the package's name, and a class derives from
    one of another module, built through a setup method and a helper given ``self``."""
    repo = tmp_path / "Repo"
    pkg = repo / "lib"
    (pkg / "rules").mkdir(parents=True)
    (repo / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "rules" / "__init__.py").write_text("")
    (pkg / "rules" / "torch.py").write_text("def zeros(*sizes):\n    return None\n")
    (pkg / "base.py").write_text("""\
from dataclasses import dataclass
from typing import Generic, TypeVar
import torch
from jaxtyping import Float
from torch import Tensor, nn
@dataclass
class Config:
    d_in: int
    d_sae: int
C = TypeVar("C", bound=Config)
class Base(nn.Module, Generic[C]):
    cfg: C
    W_enc: nn.Parameter
    def __init__(self, cfg: C):
        super().__init__()
        self.cfg = cfg
        self.initialize_weights()
    def initialize_weights(self) -> None:
        self.W_enc = nn.Parameter(torch.empty(self.cfg.d_in, self.cfg.d_sae))
    def prepare(self, x: Float[Tensor, "... d_in"]) -> Float[Tensor, "... d_in"]:
        return x
""")
    (pkg / "standard.py").write_text("""\
import torch
from jaxtyping import Float
from torch import Tensor, nn
from lib.base import Base, Config
def _init_bias(sae: Base) -> None:
    sae.b_enc = nn.Parameter(torch.zeros(sae.cfg.d_sae))
class Standard(Base[Config]):
    b_enc: nn.Parameter
    def initialize_weights(self) -> None:
        super().initialize_weights()
        _init_bias(self)
    def encode(self, x: Float[Tensor, "... d_in"]) -> Float[Tensor, "... d_sae"]:
        x = self.prepare(x)
        return x @ self.W_enc + self.b_enc
""")
    return repo


def test_a_base_of_another_module_and_a_configuration_give_the_weights(tmp_path):
    repo = _repo_with_own_init(tmp_path)
    standard = repo / "lib" / "standard.py"
    assert _codes(check_paths([repo], cache=False, jobs=1), "standard.py") == []
    # The transpose on the wrong operand: W_enc is (d_in, d_sae), b_enc (d_sae,).
    standard.write_text(standard.read_text().replace("x @ self.W_enc", "x @ self.W_enc.T"))
    found = check_paths([repo], cache=False, jobs=1)
    assert _codes(found, "standard.py") == [(14, "matmul")]
    assert "(d_sae, d_in)" in next(d for d in found if d.path.endswith("standard.py")).message
    # The helper's body builds the instance: it is part of its module's interface.
    cache = ResultCache(tmp_path / "cache")
    standard.write_text(standard.read_text().replace("x @ self.W_enc.T", "x @ self.W_enc"))
    assert _codes(check_paths([repo], cache=cache, jobs=1), "standard.py") == []
    standard.write_text(standard.read_text().replace("zeros(sae.cfg.d_sae)", "zeros(sae.cfg.d_in)"))
    assert _codes(check_paths([repo], cache=cache, jobs=1), "standard.py") == [(14, "broadcast")]


def test_a_folder_inside_a_package_gives_packages_not_modules(tmp_path):
    # lib/rules/torch.py must not stand for the library ``torch`` (it would if every
    # folder inside the package were a root); ``lib`` is found from ``Repo``.
    repo = _repo_with_own_init(tmp_path)
    (repo / "lib" / "rules" / "use.py").write_text("""\
import torch
from jaxtyping import Float
from torch import Tensor
from lib.base import Config
def f(x: Float[Tensor, "n"]) -> Float[Tensor, "n 2"]:
    return torch.zeros(3)
""")
    found = check_paths([repo], cache=False, jobs=1)
    assert _codes(found, "use.py") == [(6, "return")]


def test_the_method_resolution_order_is_pythons(tmp_path):
    # Const(Var, Constant): Python finds Constant.__init__ before Node.__init__, which
    # takes no ``data``. A depth-first search would not.
    (tmp_path / "graph.py").write_text("""\
class Node:
    def __init__(self, kind, name=None):
        self.kind = kind
class Constant(Node):
    def __init__(self, kind, data, name=None):
        super().__init__(kind, name)
        self.data = data
""")
    (tmp_path / "tensor.py").write_text("""\
from graph import Constant, Node
class Var(Node):
    pass
class Const(Var, Constant):
    pass
c = Const(kind=1, data=2)
d = Const(kind=1, size=2)
""")
    found = check_paths([tmp_path], cache=False, jobs=1)
    assert _codes(found, "tensor.py") == [(7, "call"), (7, "call")]
    assert all(d.message.startswith("Constant.__init__()") for d in found)


def test_a_class_method_of_another_module_gives_its_annotated_result(tmp_path):
    # ``self.cfg = Config.unwrap(cfg)``: the class method's annotation says what the
    # configuration is, so the weight built from it has the size ``n``: ``other``
    # names it ``k``, another field of the configuration. (A name of no field, ``m``,
    # would be one of the method's own, never compared with a field's.)
    (tmp_path / "config.py").write_text("""\
from dataclasses import dataclass
from typing import Dict, Union
@dataclass
class Config:
    n: int
    k: int
    @classmethod
    def unwrap(cls, config: Union[Dict, "Config"]) -> "Config":
        return Config(**config) if isinstance(config, dict) else config
""")
    (tmp_path / "model.py").write_text("""\
import torch
from jaxtyping import Float
from torch import Tensor, nn
from config import Config
class M(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = Config.unwrap(cfg)
        self.w = nn.Parameter(torch.zeros(self.cfg.n))
    def forward(self, x: Float[Tensor, "b n"]) -> Float[Tensor, "b n"]:
        return x * self.w
    def other(self, x: Float[Tensor, "b k"]) -> Float[Tensor, "b k"]:
        return x * self.w
    def own(self, x: Float[Tensor, "b m"]) -> Float[Tensor, "b m"]:
        return x * self.w
""")
    found = check_paths([tmp_path], cache=False, jobs=1)
    assert _codes(found, "model.py") == [(13, "broadcast")]


def test_an_int_constant_read_through_the_module_it_is_in(tmp_path):
    # ``from pkg import geom as g; g.SIZE``: the constant, as ``from pkg.geom import SIZE``
    pkg = _project(
        tmp_path,
        """\
from pkg import geom as g
from pkg.typing import *
def f(x: Float[Tensor, "b 16"]) -> Float[Tensor, "b 4"]:
    return x[:, : g.SIZE]
""",
    )
    found = [d for d in check_paths([pkg], cache=False, jobs=1) if d.path.endswith("use.py")]
    assert [(d.line, d.code) for d in found if d.severity == "error"] == [(4, "return")]
    assert "16" in next(d.message for d in found if d.severity == "error")


def test_a_list_of_literals_of_another_module_has_its_length(tmp_path):
    # ``rc.residue_types.index(mask)`` is an int, so ``tokens == idx`` keeps the
    # tokens' shape; a list the module grows (or an empty registry) has no length;
    # a tuple of strings is one, for a ``tuple[str, ...]`` parameter
    pkg = _project(
        tmp_path,
        """\
import torch
from pkg import names as rc
from pkg.typing import *
def trim(msa: Float[Tensor, "depth n"], tokens: Float[Tensor, "n"]):
    idx = rc.RESIDUES.index(":")
    pad = torch.all(msa == idx, dim=1)
    keep = torch.zeros(len(rc.RESIDUES), len(rc.GROWN), len(rc.REGISTRY))
    reveal_type(keep)
    blocked(rc.HEAVY)
    return msa[:, ~pad]
def blocked(names: tuple[str, ...]) -> None:
    pass
""",
    )
    (pkg / "names.py").write_text(
        'BASE = ["A", "C"]\nRESIDUES = (BASE + ["X"] + [":"])\n'
        'GROWN = ["a"]\nGROWN.append("b")\nREGISTRY = []\nHEAVY = ("torch", "jax")\n'
    )
    found = [d for d in check_paths([pkg], cache=False, jobs=1) if d.path.endswith("use.py")]
    assert [d.message.split(" is ", 1)[1] for d in found if d.code == "reveal"] == [
        "f32[4,?,?](torch)"
    ]
    assert [(d.line, d.code) for d in found if d.severity == "error"] == [(10, "index")]


def test_a_module_imported_before_its_check_is_parsed_once(tmp_path, monkeypatch):
    # ``a`` is checked first and reads ``b``'s first pass; ``b``'s own check takes
    # that tree (Project.take_tree): three parses, not four.
    from tensortypes.check import infer, project

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import use, make\nuse(make(1))\n")
    (pkg / "b.py").write_text(
        "class Box:\n"
        "    def __init__(self, n: int):\n"
        "        self.n = n\n"
        "def make(n: int) -> Box:\n"
        "    return Box(n)\n"
        "def use(box: Box) -> int:\n"
        "    return box.missing\n"
    )
    parsed = []
    for module in (infer, project):
        real = module.parse_module
        monkeypatch.setattr(
            module,
            "parse_module",
            lambda text, filename="", real=real: (
                parsed.append(filename) or real(text, filename=filename)
            ),
        )
    found = check_paths([pkg], cache=False, jobs=1)
    assert sorted(p.rpartition("/")[2] for p in parsed) == ["__init__.py", "a.py", "b.py"]
    # the shared tree's annotations are read in b's own check, with b's classes: the
    # missing attribute of a Box is still found
    assert _codes(found, "b.py") == [(7, "attr")]


def test_a_run_leaves_the_garbage_collector_as_it_found_it():
    import gc

    assert gc.isenabled()
    check_paths([], cache=False)
    assert gc.isenabled()
    gc.disable()
    try:
        check_paths([], cache=False)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_path_into_a_module_being_read_is_resolved_again_later(tmp_path):
    # Reading ``a`` reads ``b`` (a's decorator comes from b), and b's decorator comes from
    # ``a``, which has no first pass yet: that lookup finds nothing. Project.split keeps
    # its answers only once no first pass is under way, so ``a.typecheck`` is found after.
    from tensortypes.check.project import Project

    (tmp_path / "a.py").write_text(
        "import b\ndef typecheck(f):\n    return f\n@b.deco\ndef k(x):\n    return x\n"
    )
    (tmp_path / "b.py").write_text(
        "from a import typecheck\ndef deco(f):\n    return f\n@typecheck\ndef h(x):\n    return x\n"
    )
    project = Project([tmp_path / "a.py", tmp_path / "b.py"])
    local = project.locate(tmp_path / "a.py")[2]
    a = project.info("a", local)
    assert a is not None and "k" in a.functions
    assert a.functions["k"].decorators == ["typechecked"]  # b.deco returns its argument
    where = project.split("a.typecheck", local)
    assert where is not None and where[0] is a and where[1:] == ("typecheck", ())
    assert project.keeps_signature("a.typecheck", local) is False
    assert project.function("a.typecheck", local)[1] is a
