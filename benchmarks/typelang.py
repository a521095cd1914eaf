"""The type language of tensortypes next to TorchScript's, side by side in one process.

Prints one table: nanoseconds per operation for ``tensortypes.types`` and for
TorchScript's equivalents called from Python (the C++ ``isSubtypeOf``,
``torch._C.unify_type_list``, ``torch.jit.annotations.ann_to_type``,
``torch._C._jit_try_infer_type``): ``is_subtype``, ``unify``, ``ann_to_type`` of
an annotation seen before, and ``infer_type`` of ``[1, 2, 3]`` and of
``{"a": 1.0, "b": 2.0}``. Each timing is the best of several repeats of a loop
long enough to dwarf the clock (``timeit``).

Targets (docs/typelang.md): each operation at most 2 us, and no slower than
TorchScript's (a ratio within 10% counts as noise).

    python benchmarks/typelang.py            # torch 2.13 CPU in the environment
    python benchmarks/typelang.py --json

Without torch installed, TorchScript's column reads ``n/a``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_ns, markdown_table  # noqa: E402 (shared helpers beside this script)

LIMIT_NS = 2_000.0
RATIO = 1.10


@dataclass
class Row:
    name: str
    ours: float
    theirs: float | None

    @property
    def ratio(self) -> float | None:
        return None if not self.theirs else self.ours / self.theirs

    @property
    def verdict(self) -> str:
        misses = []
        if self.ours > LIMIT_NS:
            misses.append(f"> {LIMIT_NS:g} ns")
        if self.ratio is not None and self.ratio > RATIO:
            misses.append(f"{self.ratio:.2f}x TorchScript")
        if misses:
            return "MISSED " + ", ".join(misses)
        return "ok" if self.ratio is not None else "ok (no ratio)"


def _namespaces() -> tuple[dict, dict | None]:
    from typing import Dict, List

    import tensortypes.types as T

    ours = {
        "is_subtype": T.is_subtype,
        "unify": T.unify,
        "ann_to_type": T.ann_to_type,
        "infer_type": T.infer_type,
        "I": T.INT,
        "N": T.NONE,
        "O": T.OptionalType(T.INT),
        "TS": T.TupleType([T.INT, T.STR]),
        "TOS": T.TupleType([T.OptionalType(T.INT), T.STR]),
        "LI": List[int],
        "small_list": [1, 2, 3],
        "small_dict": {"a": 1.0, "b": 2.0},
    }
    try:
        import torch
        from torch._sources import fake_range
        from torch.jit.annotations import ann_to_type
    except ImportError:
        return ours, None
    ours["DST"] = Dict[str, torch.Tensor]
    C = torch._C
    theirs = {
        "ann_to_type": ann_to_type,
        "loc": fake_range(),
        "unify_type_list": C.unify_type_list,
        "infer": C._jit_try_infer_type,
        "I": C.IntType.get(),
        "N": C.NoneType.get(),
        "O": C.OptionalType(C.IntType.get()),
        "TS": C.TupleType([C.IntType.get(), C.StringType.get()]),
        "TOS": C.TupleType([C.OptionalType(C.IntType.get()), C.StringType.get()]),
        "LI": List[int],
        "DST": Dict[str, torch.Tensor],
        "small_list": [1, 2, 3],
        "small_dict": {"a": 1.0, "b": 2.0},
    }
    return ours, theirs


# (name, our statement, TorchScript's statement)
CASES = [
    ("is_subtype(int, Optional[int])", "is_subtype(I, O)", "I.isSubtypeOf(O)"),
    (
        "is_subtype(Tuple[int, str], Tuple[Optional[int], str])",
        "is_subtype(TS, TOS)",
        "TS.isSubtypeOf(TOS)",
    ),
    ("unify(int, None)", "unify(I, N)", "unify_type_list([I, N])"),
    ("unify(int, Optional[int])", "unify(I, O)", "unify_type_list([I, O])"),
    ("ann_to_type(List[int]) again", "ann_to_type(LI)", "ann_to_type(LI, loc)"),
    ("ann_to_type(Dict[str, Tensor]) again", "ann_to_type(DST)", "ann_to_type(DST, loc)"),
    ("infer_type([1, 2, 3])", "infer_type(small_list)", "infer(small_list)"),
    ('infer_type({"a": 1.0, "b": 2.0})', "infer_type(small_dict)", "infer(small_dict)"),
]


def measure(repeat: int, min_time: float) -> list[Row]:
    ours, theirs = _namespaces()
    rows = []
    for name, our_stmt, their_stmt in CASES:
        if "DST" in our_stmt and theirs is None:
            continue  # Dict[str, torch.Tensor] needs torch
        rows.append(
            Row(
                name,
                best_ns(our_stmt, ours, repeat, min_time),
                None if theirs is None else best_ns(their_stmt, theirs, repeat, min_time),
            )
        )
    return rows


def render(rows: list[Row]) -> str:
    header = ("operation", "tensortypes", "TorchScript", "ratio", "target")
    body = [
        (
            r.name,
            f"{r.ours:,.0f} ns",
            "n/a" if r.theirs is None else f"{r.theirs:,.0f} ns",
            "n/a" if r.ratio is None else f"{r.ratio:.2f}",
            r.verdict,
        )
        for r in rows
    ]
    return markdown_table(header, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timing repeats (best is kept)")
    parser.add_argument(
        "--min-time", type=float, default=0.05, help="seconds each repeat's loop runs at least"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = measure(args.repeat, args.min_time)
    if args.json:
        print(
            json.dumps(
                [{**vars(r), "ratio": r.ratio, "verdict": r.verdict} for r in rows], indent=2
            )
        )
    else:
        print(
            f"Python {sys.version.split()[0]}; ratio = tensortypes / TorchScript; "
            f"ns per operation, best of {args.repeat}"
        )
        print(render(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
