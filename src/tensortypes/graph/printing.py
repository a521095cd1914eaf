"""``dprint``: the text picture of a graph, in PyTensor's debugprint format (layer 3, ``graph``).

Each line shows one Variable: the Op that computes it (with ``.i`` for an
output of a multi-output Op), or the Variable itself for a root; then its id
``[id A]``; then ``<type>`` when asked; then ``'name'`` for a named computed
Variable (a root's line already shows its name). The inputs of a node follow,
indented by ``" |"`` per level::

    SpecifyShape [id A] <TensorType(float64, (2, 1))>
     |<TensorType(float64, (2, ?))> [id B] <TensorType(float64, (2, ?))>
     |TensorConstant{2} [id C] <TensorType(int8, ())>

Ids are letters (A..Z, BA, BB, ...) given in first-visit order; the outputs
of one node share its id. A node shown once is shown again as its line only.
"""

from __future__ import annotations

import sys

from tensortypes.graph.basic import Apply, Variable
from tensortypes.graph.fg import FunctionGraph

__all__ = ["dprint", "char_from_number"]


def char_from_number(number: int) -> str:
    """The id letters of ``number``: base 26 with A as 0 (so 26 is ``"BA"``).

    >>> char_from_number(0), char_from_number(25), char_from_number(26)
    ('A', 'Z', 'BA')
    """
    if number < 0:
        raise ValueError(f"id numbers are non-negative, got {number}")
    letters = ""
    while True:
        number, remainder = divmod(number, 26)
        letters = chr(ord("A") + remainder) + letters
        if number == 0:
            return letters


def _targets(obj) -> tuple[list, frozenset]:
    """The Variables to print for ``obj`` and the Variables to stop at."""
    if isinstance(obj, Variable):
        return [obj], frozenset()
    if isinstance(obj, Apply):
        return list(obj.outputs), frozenset()
    if isinstance(obj, FunctionGraph):
        return list(obj.outputs), frozenset(obj.inputs)
    if isinstance(obj, (list, tuple)):
        found: list = []
        stop: set = set()
        for item in obj:
            if isinstance(item, (list, tuple)):
                raise TypeError(
                    "dprint takes a list of Variables, Apply nodes or "
                    "FunctionGraphs, not nested lists"
                )
            more, more_stop = _targets(item)
            found.extend(more)
            stop |= more_stop
        return found, frozenset(stop)
    raise TypeError(
        f"dprint cannot print {type(obj).__name__} {obj!r}: give a Variable, "
        "an Apply, a FunctionGraph or a list of them"
    )


def dprint(obj, print_type=False, file=None, depth=-1) -> str:
    """Print the graph of ``obj`` and return the text.

    ``obj`` is a Variable, an Apply, a FunctionGraph or a list of them.
    ``depth`` limits the number of levels shown (-1: all). ``file`` is where to
    write (default ``sys.stdout``); ``file="str"`` only returns the text.

    >>> from tensortypes.graph import generic
    >>> _ = dprint(generic("x"), print_type=True)
    x [id A] <Generic>
    """
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < -1 or depth == 0:
        raise ValueError(f"dprint depth must be -1 (everything) or a positive int, got {depth!r}")
    targets, stop = _targets(obj)
    ids: dict = {}
    done: set = set()
    lines: list[str] = []
    # (variable, prefix, levels left); the stack holds the lines still to print.
    stack = [(var, "", depth) for var in reversed(targets)]
    while stack:
        var, prefix, left = stack.pop()
        node = var.owner
        computed = node is not None and var not in stop
        if computed:
            key = node
            label = str(node.op) + (f".{var.index}" if len(node.outputs) > 1 else "")
        else:
            key = var
            label = str(var)
        id_str = ids.get(key)
        if id_str is None:
            id_str = ids[key] = f"[id {char_from_number(len(ids))}]"
        line = f"{prefix}{label} {id_str}"
        if print_type:
            line += f" <{var.type}>"
        if computed and var.name is not None:
            line += f" '{var.name}'"
        lines.append(line)
        if not computed or node in done or left == 1:
            continue
        done.add(node)
        child_prefix = prefix + " |"
        stack.extend((inp, child_prefix, left - 1) for inp in reversed(node.inputs))
    text = "\n".join(lines) + ("\n" if lines else "")
    if file == "str":
        return text
    out = sys.stdout if file is None else file
    if not callable(getattr(out, "write", None)):
        raise TypeError(f"dprint file must have a write method or be 'str', got {file!r}")
    out.write(text)
    return text
