"""Structure strings of ``PyTree[Leaf, "..."]``, parsed (layer 5, ``pytree``).

jaxtyping's forms, one ``StructureSpec`` each (interned by text):

- ``"T"``: one name; the first tree binds it, later ones must equal it;
- ``"S T"``: a composite; the tree must equal ``S`` with ``T`` at every leaf
  (names composed left to right, outermost first), every name already bound;
- ``"... T"``: the lower levels are ``T`` (every subtree reached before a leaf
  has the structure ``T``; the upper levels are free);
- ``"T ..."``: ``T`` is a prefix of the tree (its leaves may be subtrees).

Names are Python identifiers; ``...`` stands first or last, not both, and
never alone. A malformed string is an ``AnnotationError`` with a caret under
the bad piece.
"""

from __future__ import annotations

import re

from tensortypes.errors import AnnotationError

__all__ = ["StructureSpec", "parse_structure", "binding_key", "MODES"]

MODES = ("name", "compose", "suffix", "prefix")
_PIECES = re.compile(r"\S+")
_SPECS: dict[str, StructureSpec] = {}


def binding_key(name: str) -> str:
    """The key a structure name is bound under in a scope's ``Bindings.sizes``.

    The space keeps it apart from every size name (sizes are identifiers).

    >>> binding_key("T")
    'structure T'
    """
    return "structure " + name


class StructureSpec:
    """A parsed structure string: ``text``, ``names`` (in order), ``mode`` (one of MODES).

    >>> s = parse_structure("... S T")
    >>> s.names, s.mode, s.keys
    (('S', 'T'), 'suffix', ('structure S', 'structure T'))
    """

    __slots__ = ("text", "names", "mode", "keys")

    def __init__(self, text: str, names: tuple[str, ...], mode: str) -> None:
        self.text = text
        self.names = names
        self.mode = mode
        self.keys = tuple(binding_key(n) for n in names)

    def __repr__(self) -> str:
        return f"StructureSpec({self.text!r})"

    def __reduce__(self):
        return (parse_structure, (self.text,))


def parse_structure(text: object) -> StructureSpec:
    """Parse the structure string of ``PyTree[Leaf, text]`` (cached by text).

    >>> parse_structure("T").mode, parse_structure("S T").mode, parse_structure("T ...").mode
    ('name', 'compose', 'prefix')
    >>> parse_structure("T 1")
    Traceback (most recent call last):
    ...
    tensortypes.errors.AnnotationError: a structure name must be a Python identifier, got '1'
        T 1
          ^
    """
    if type(text) is not str:
        raise AnnotationError(
            f"the structure in PyTree[leaf, structure] is a string such as "
            f"'T' or 'S T', got {type(text).__name__} {text!r}"
        )
    found = _SPECS.get(text)
    if found is not None:
        return found
    pieces = [(m.group(), m.start()) for m in _PIECES.finditer(text)]
    if not pieces:
        raise AnnotationError(
            "the structure in PyTree[leaf, structure] cannot be empty; write a name such as 'T'"
        )
    mode = "name"
    if pieces[0][0] == "...":
        mode = "suffix"
        body = pieces[1:]
    elif pieces[-1][0] == "...":
        mode = "prefix"
        body = pieces[:-1]
    else:
        body = pieces
    if not body:
        piece, at = pieces[0]
        raise AnnotationError(
            "'...' needs a structure name beside it ('... T' or 'T ...')", text, at, at + 3
        )
    for piece, at in body:
        if piece == "...":
            raise AnnotationError(
                "'...' may stand only first ('... T': the lower levels) or "
                "last ('T ...': a prefix), not both",
                text,
                at,
                at + 3,
            )
        if not piece.isidentifier():
            raise AnnotationError(
                f"a structure name must be a Python identifier, got {piece!r}",
                text,
                at,
                at + len(piece),
            )
    names = tuple(piece for piece, _ in body)
    if mode == "name" and len(names) > 1:
        mode = "compose"
    spec = StructureSpec(" ".join(p for p, _ in pieces), names, mode)
    if len(_SPECS) < 4096:
        _SPECS[text] = spec
    return spec
