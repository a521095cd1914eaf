"""The dtype table and the promotion lattice, as data (layer 2: standard library only).

This module knows dtypes only by their canonical names; ``tensortypes.core.dtypes``
builds the interned ``DType`` objects from ``DTYPE_FACTS`` and precomputes its
lookup tables from the functions here, once, at import.

The lattice is ``EDGES``: each dtype maps to the dtypes it widens to *directly*
without losing a value (a "safe" cast). Everything else is derived:

- ``upper_bounds(EDGES)`` is the reflexive, transitive closure: the set of
  dtypes each dtype casts to safely.
- ``least_upper_bound(names)`` intersects the inputs' upper-bound sets and takes
  the minimal elements (those no other candidate casts to). NumPy's promotion is
  not a lattice: ``int8`` and ``uint8`` have two minimal common upper bounds,
  ``int16`` and ``float16``. Ties are broken by kind: among the minimal
  elements, keep those whose kind rank (bool 0 < integer 1 < floating 2 <
  complex 3) is the highest rank among the inputs; if there are none, try the
  next rank up. Exactly one must remain, or the table is ambiguous and
  ``PromotionTableError`` is raised (the full pair table is built at import,
  so a bad edge fails loudly there).
- ``castable(a, b, casting)`` answers NumPy's five casting modes from the same
  closure and the kind ranks.

With these edges the pair results and safe casts agree with NumPy 2 for every
pair of its 14 dtypes (the golden tests check the whole table).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = [
    "CASTINGS",
    "DTYPE_FACTS",
    "EDGES",
    "FLOAT8_NAMES",
    "KINDS",
    "KIND_RANK",
    "PromotionTableError",
    "castable",
    "choose",
    "least_upper_bound",
    "upper_bounds",
]

FLOAT8_NAMES = (
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
)

# (name, kind, bits, itemsize in bytes or None, NumPy has it natively), in the
# order of ``ALL_DTYPES``. ``bits`` is the storage width (bool is stored in a
# byte); the key dtype has no fixed width (it depends on the PRNG
# implementation), recorded as 0.
DTYPE_FACTS: tuple[tuple[str, str, int, int | None, bool], ...] = (
    ("bool", "b", 8, 1, True),
    ("int2", "i", 2, None, False),
    ("int4", "i", 4, None, False),
    ("int8", "i", 8, 1, True),
    ("int16", "i", 16, 2, True),
    ("int32", "i", 32, 4, True),
    ("int64", "i", 64, 8, True),
    ("uint2", "u", 2, None, False),
    ("uint4", "u", 4, None, False),
    ("uint8", "u", 8, 1, True),
    ("uint16", "u", 16, 2, True),
    ("uint32", "u", 32, 4, True),
    ("uint64", "u", 64, 8, True),
    ("bfloat16", "f", 16, 2, False),
    ("float16", "f", 16, 2, True),
    ("float32", "f", 32, 4, True),
    ("float64", "f", 64, 8, True),
    *((name, "f", 8, 1, False) for name in FLOAT8_NAMES),
    ("complex64", "c", 64, 8, True),
    ("complex128", "c", 128, 16, True),
    ("key", "key", 0, None, False),
)

# Direct, value-preserving widenings. The NumPy part is NumPy 2's safe-cast
# graph reduced to its immediate edges (uint16 -> float32 and int16 -> float32
# are there because float32's 24-bit significand holds every 16-bit integer).
# The extension follows JAX's lattice where JAX has one and NumPy's pattern
# where it does not:
# - int2 -> int4 -> int8 and uint2 -> uint4 -> uint8, plus uint2 -> int4 and
#   uint4 -> int8 (NumPy's uintN -> int2N pattern), so int4 + uint4 is int8.
# - bfloat16 -> float32 as in JAX; int8 and uint8 -> bfloat16 as NumPy does for
#   float16 (an 8-bit significand holds every 8-bit integer), so int8 + bfloat16
#   is bfloat16 (as in JAX) but int16 + bfloat16 is float32 (JAX says bfloat16,
#   which loses values).
# - each float8 -> float32. Every float8 value fits float16 and bfloat16 too,
#   but neither is the natural choice (JAX refuses implicit float8 promotion
#   altogether), so two float8 formats, or a float8 and a 16-bit float, meet
#   at float32. Only bool widens into a float8.
# - key widens to nothing and nothing widens to key: it promotes only with itself.
EDGES: dict[str, tuple[str, ...]] = {
    "bool": ("int2", "uint2", *FLOAT8_NAMES),
    "int2": ("int4",),
    "int4": ("int8",),
    "int8": ("int16", "float16", "bfloat16"),
    "int16": ("int32", "float32"),
    "int32": ("int64", "float64"),
    "int64": ("float64",),
    "uint2": ("uint4", "int4"),
    "uint4": ("uint8", "int8"),
    "uint8": ("uint16", "int16", "float16", "bfloat16"),
    "uint16": ("uint32", "int32", "float32"),
    "uint32": ("uint64", "int64", "float64"),
    "uint64": ("float64",),
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    **{name: ("float32",) for name in FLOAT8_NAMES},
    "complex64": ("complex128",),
    "complex128": (),
    "key": (),
}

KINDS: dict[str, str] = {name: kind for name, kind, *_ in DTYPE_FACTS}

# Tie-break order of kinds; signed and unsigned integers share a rank.
KIND_RANK: dict[str, int] = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3, "key": 4}

CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")

# NumPy's "same_kind" lets a cast go down in size within a kind, and from
# unsigned to signed (but not back), so it uses a finer order than KIND_RANK.
_SAME_KIND_RANK: dict[str, int] = {"b": 0, "u": 1, "i": 2, "f": 3, "c": 4}


class PromotionTableError(RuntimeError):
    """The edge table is malformed: a cycle, an unknown name, or an ambiguous join."""


def upper_bounds(edges: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """Return, for each node, every node it reaches (itself included).

    Raises ``PromotionTableError`` on a cycle or an edge to an unknown node.

    >>> upper_bounds({"a": ("b",), "b": ("c",), "c": ()})["a"] == {"a", "b", "c"}
    True
    """
    for node, targets in edges.items():
        unknown = [t for t in targets if t not in edges]
        if unknown:
            raise PromotionTableError(f"edge from {node!r} to unknown dtype(s) {unknown}")
    result: dict[str, frozenset[str]] = {}
    for node in edges:
        reached = {node}
        frontier = list(edges[node])
        while frontier:
            nxt = frontier.pop()
            if nxt == node:
                raise PromotionTableError(f"cycle in the promotion table through {node!r}")
            if nxt not in reached:
                reached.add(nxt)
                frontier.extend(edges[nxt])
        result[node] = frozenset(reached)
    return result


def least_upper_bound(
    names: Iterable[str], ubs: Mapping[str, frozenset[str]], kinds: Mapping[str, str]
) -> str | None:
    """Return the promoted name of ``names``, or None when they have no common bound.

    The inputs' upper-bound sets are intersected; of the minimal elements, those of
    the highest input kind win (the next kind up when that kind has none). Raises
    ``PromotionTableError`` if more than one candidate is left.

    >>> least_upper_bound(["int8", "uint8"], upper_bounds(EDGES), KINDS)
    'int16'
    """
    names = list(names)
    if not names:
        raise ValueError("least_upper_bound needs at least one dtype name")
    common = frozenset.intersection(*(ubs[n] for n in names))
    rank = max(KIND_RANK[kinds[n]] for n in names)
    try:
        return choose(common, rank, ubs, kinds)
    except PromotionTableError as error:
        raise PromotionTableError(f"promoting {sorted(names)}: {error}") from None


def choose(
    common: frozenset[str], rank: int, ubs: Mapping[str, frozenset[str]], kinds: Mapping[str, str]
) -> str | None:
    """The one element of ``common`` a join returns, given the inputs' highest kind rank.

    This is the second half of ``least_upper_bound``: the result depends only on
    the intersection of the inputs' upper bounds and on their highest kind, which
    is what lets a test check every possible input list at once.

    >>> ubs = upper_bounds(EDGES)
    >>> choose(ubs["int8"] & ubs["uint8"], KIND_RANK["i"], ubs, KINDS)
    'int16'
    """
    if not common:
        return None
    # A candidate is minimal when no other candidate casts to it.
    minimal = [c for c in common if not any(c in ubs[o] and o != c for o in common)]
    if len(minimal) == 1:
        return minimal[0]
    top = max(KIND_RANK.values())
    while rank <= top:
        chosen = [c for c in minimal if KIND_RANK[kinds[c]] == rank]
        if len(chosen) == 1:
            return chosen[0]
        if chosen:
            raise PromotionTableError(f"ambiguous: {sorted(chosen)} are all minimal")
        rank += 1
    raise PromotionTableError(
        f"no minimal candidate of the inputs' kind or above: {sorted(minimal)}"
    )


def castable(
    src: str, dst: str, casting: str, ubs: Mapping[str, frozenset[str]], kinds: Mapping[str, str]
) -> bool:
    """Whether ``src`` casts to ``dst`` under NumPy's ``casting`` mode.

    ``"no"`` and ``"equiv"`` allow only the same dtype (interned dtypes carry no
    byte order); ``"safe"`` is reachability in the edge graph; ``"same_kind"``
    adds casts down to a dtype of the same or a higher kind (bool < unsigned <
    signed < floating < complex); ``"unsafe"`` allows any numeric pair. The key
    dtype only ever casts to itself. Raises ``ValueError`` for another mode.

    >>> castable("uint16", "float32", "safe", upper_bounds(EDGES), KINDS)
    True
    """
    if casting not in CASTINGS:
        raise ValueError(
            f"casting must be one of {', '.join(map(repr, CASTINGS))}, got {casting!r}"
        )
    if src == dst:
        return True
    if kinds[src] == "key" or kinds[dst] == "key" or casting in ("no", "equiv"):
        return False
    if casting == "unsafe" or dst in ubs[src]:
        return True
    return casting == "same_kind" and _SAME_KIND_RANK[kinds[src]] <= _SAME_KIND_RANK[kinds[dst]]
