"""Bounded work for the walker: expressions nested too deep are not walked (layer 6: ``check``).

The walker is recursive (an expression's value is computed from its
operands'), so valid Python such as a sum of 500 terms, ``x.T.T...`` or a
chain of 300 method calls would exhaust Python's recursion limit. Python's
parser accepts left-nested chains far deeper than the 200 parentheses it
allows, so the depth is bounded here, before the walk: :func:`prune_deep`
replaces every expression deeper than :data:`MAX_DEPTH` (counted from the
module, statements included) by a name the walker knows nothing about, which
is unknown (never an error), and returns where it did so, for ``--strict``.
"""

from __future__ import annotations

import ast
import re

__all__ = ["MAX_DEPTH", "TOO_DEEP", "prune_deep"]

# Depth in AST nodes from the module. Python allows at most 100 nested blocks;
# the walker spends about three frames per expression level, so 160 levels stay
# well inside the default recursion limit of 1000 with room for the caller's own.
MAX_DEPTH = 160

# The name that stands for a pruned expression (no source can define it usefully:
# the walker gives it no value).
TOO_DEEP = "__tensortypes_too_deep__"


def prune_deep(tree: ast.AST, limit: int = MAX_DEPTH, source: str | None = None) -> list:
    """Replace the expressions of ``tree`` deeper than ``limit`` by :data:`TOO_DEEP`; in place.

    Returns the pruned nodes' positions ``(line, col)``, outermost cut first. The
    walk is iterative, so it works on trees of any depth. With the module's
    ``source``, a node whose text is too short to hold anything that deep is not
    walked into: a node of ``c`` characters is at most ``c + 2`` levels deep
    (each level of an expression takes a character or more of its text; a name's
    context and a call's keyword add a level without one), which leaves only the
    rare long statements to walk.

    >>> tree = ast.parse("y = " + " + ".join(["x"] * 400))
    >>> cut = prune_deep(tree)
    >>> sorted({line for line, _ in cut}), ast.unparse(tree).count("+") < 400
    ([1], True)
    >>> text = "def f(x): return x + 1"
    >>> prune_deep(ast.parse(text), source=text)
    []
    """
    starts = _line_starts(source) if source is not None else None
    cut: list = []
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        for field, old in ast.iter_fields(node):
            if isinstance(old, list):
                for index, child in enumerate(old):
                    if isinstance(child, ast.AST):
                        if starts is not None and _shallow(child, depth + 1, limit, starts):
                            continue
                        replaced = _visit(child, depth + 1, limit, cut, stack)
                        if replaced is not child:
                            old[index] = replaced
            elif isinstance(old, ast.AST):
                if starts is not None and _shallow(old, depth + 1, limit, starts):
                    continue
                replaced = _visit(old, depth + 1, limit, cut, stack)
                if replaced is not old:
                    setattr(node, field, replaced)
    return cut


def _line_starts(source: str) -> list:
    """The offset where each line starts, in UTF-8 bytes as ``ast`` counts columns
    (1-based lines: ``starts[n]`` is line n's), and one past the end.

    >>> _line_starts("a\\r\\nbé\\rc")
    [0, 0, 3, 7, 8]
    """
    data = source.encode("utf-8", "surrogatepass")
    starts = [0, 0]
    starts.extend(m.end() for m in _NEWLINE.finditer(data))  # as Python counts lines
    if data and starts[-1] != len(data):  # a last line with no newline
        starts.append(len(data))
    return starts


_NEWLINE = re.compile(rb"\r\n|\r|\n")


def _shallow(node: ast.AST, depth: int, limit: int, starts: list) -> bool:
    """Whether ``node`` at ``depth`` is too short for anything in it to pass ``limit``."""
    first = getattr(node, "lineno", None)
    last = getattr(node, "end_lineno", None)
    if first is None or last is None or not 1 <= first <= last < len(starts):
        return False  # no position (a context, the arguments of a def): look inside
    if first == last:
        size = (getattr(node, "end_col_offset", 0) or 0) - (getattr(node, "col_offset", 0) or 0)
    else:
        size = starts[last + 1] - starts[first]
    return depth + size + 2 <= limit


def _visit(child: ast.AST, depth: int, limit: int, cut: list, stack: list):
    if depth > limit and isinstance(child, ast.expr):
        cut.append((getattr(child, "lineno", 1), getattr(child, "col_offset", 0)))
        ctx = getattr(child, "ctx", None)
        stand_in = ast.Name(id=TOO_DEEP, ctx=ctx if ctx is not None else ast.Load())
        return ast.copy_location(stand_in, child)
    stack.append((child, depth))
    return child
