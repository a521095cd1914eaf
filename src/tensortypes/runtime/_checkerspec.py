"""Typechecker strings: ``"beartype.beartype(conf=beartype.BeartypeConf(...))"``
(layer 6: runtime).

The pytest plugin, the import hook, the IPython magic and ``jaxtyped`` take a
checker as text. It is read with ``ast``, never evaluated: dotted names
(resolved by importing the longest importable module prefix, then attributes),
calls of those with positional and keyword arguments, and literals (numbers,
strings, bytes, ``True``/``False``/``None``, tuples, lists, sets and dicts of
these). Anything else is a ``ValueError`` naming the piece refused.

``split_top_level`` cuts a comma-separated option at the commas outside
brackets and quotes, so a checker with several arguments stays whole.
"""

from __future__ import annotations

import ast
import builtins
import importlib
from typing import Any

__all__ = ["resolve_checker_text", "split_top_level"]

_MAX_TEXT = 2000  # a checker spelled in an option or a decorator, not a program
_MAX_DEPTH = 20


def split_top_level(text: str) -> list[str]:
    """Cut ``text`` at commas outside brackets and string quotes.

    >>> split_top_level("pkg, beartype.beartype(conf=C(a=1, b=2))")
    ['pkg', ' beartype.beartype(conf=C(a=1, b=2))']
    """
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote is not None:
            if ch == quote and text[i - 1] != "\\":
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _dotted(node: ast.expr) -> str | None:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    names.append(node.id)
    return ".".join(reversed(names))


def _resolve_name(dotted: str, text: str) -> Any:
    parts = dotted.split(".")
    module = None
    for end in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:end]))
        except ModuleNotFoundError as error:
            # Only "this prefix is no module" means try a shorter one; a module that
            # exists and fails to import is the user's problem, reported as is.
            if error.name is not None and ".".join(parts[:end]).startswith(error.name):
                continue
            raise
        value = module
        for i, attr in enumerate(parts[end:], end):
            try:
                value = getattr(value, attr)
            except AttributeError:
                raise AttributeError(
                    f"typechecker {text!r}: {'.'.join(parts[:i])!r} has no attribute {attr!r}"
                ) from None
        return value
    builtin = getattr(builtins, dotted, None) if len(parts) == 1 else None
    if isinstance(builtin, type):  # int, dict, ... (never eval, exec or __import__)
        return builtin
    raise ModuleNotFoundError(f"typechecker {text!r}: no module named {parts[0]!r}", name=parts[0])


def _value(node: ast.expr, text: str, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise ValueError(f"typechecker {text!r} nests more than {_MAX_DEPTH} deep")
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float, complex))
        and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_value(e, text, depth + 1) for e in node.elts]
        return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {
            _value(k, text, depth + 1): _value(v, text, depth + 1)
            for k, v in zip(node.keys, node.values)
        }
    dotted = _dotted(node)
    if dotted is not None:
        return _resolve_name(dotted, text)
    if isinstance(node, ast.Call):
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise ValueError(f"typechecker {text!r}: * and ** arguments are not read")
        function = _value(node.func, text, depth + 1)
        args = [_value(a, text, depth + 1) for a in node.args]
        kwargs = {k.arg: _value(k.value, text, depth + 1) for k in node.keywords}
        return function(*args, **kwargs)
    piece = ast.get_source_segment(text, node) or type(node).__name__
    raise ValueError(
        f"typechecker {text!r}: {piece!r} is not a dotted name, a call or a "
        f"literal (checker strings are read, never evaluated)"
    )


def resolve_checker_text(text: str) -> Any:
    """The object a checker string names: ``"beartype.beartype"`` or a call such as
    ``"beartype.beartype(conf=beartype.BeartypeConf(strategy=...))"``.

    >>> resolve_checker_text("functools.partial(int, base=2)")("101")
    5
    """
    stripped = text.strip()
    if not stripped:
        raise ValueError("typechecker string is empty")
    if len(stripped) > _MAX_TEXT:
        raise ValueError(f"typechecker string is longer than {_MAX_TEXT} characters")
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as error:
        raise ValueError(
            f"typechecker {text!r} is not a dotted name or a call: {error.msg}"
        ) from None
    return _value(tree.body, stripped, 0)
