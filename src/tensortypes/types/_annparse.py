"""Evaluate a string annotation without ``eval`` (layer 3, ``types``).

String annotations and forward references (``"List[Node]"``, ``"int | None"``)
are parsed with ``ast`` and evaluated by a small interpreter that allows only
what an annotation is made of: names, attribute access, subscripts, tuples and
lists, constants, ``|`` and unary minus (for ``Literal[-1]``). Names are looked
up in the local namespace, then the global one, then builtins, then the names of
``typing`` (so ``"Optional[Node]"`` needs only ``Node`` in the namespace) and the
printed names ``NoneType`` and ``number`` (so printed types read back). Anything else -- a call, a
lambda, an unknown name -- is an ``AnnotationError`` with a caret under it.
"""

from __future__ import annotations

import ast
import builtins
import typing
from collections.abc import Mapping
from typing import Any

from tensortypes.errors import AnnotationError

__all__ = ["evaluate"]

_DEFAULT_NAMES: dict[str, Any] = {
    name: getattr(typing, name) for name in typing.__all__ if hasattr(typing, name)
}
# The printed names of ``None``'s type and of TorchScript's ``number``, so that
# printed types read back.
_DEFAULT_NAMES["NoneType"] = type(None)
_DEFAULT_NAMES["number"] = typing.Union[int, float, complex]  # noqa: UP007 (its printed form)
_MISSING = object()


class _Evaluator:
    __slots__ = ("text", "namespaces")

    def __init__(self, text: str, namespaces: tuple[Mapping[str, Any], ...]):
        self.text = text
        self.namespaces = namespaces

    def fail(self, message: str, node: ast.AST) -> AnnotationError:
        start = getattr(node, "col_offset", 0)
        end = getattr(node, "end_col_offset", None)
        return AnnotationError(message, text=self.text, position=start, end=end)

    def lookup(self, node: ast.Name) -> Any:
        for namespace in self.namespaces:
            found = namespace.get(node.id, _MISSING)
            if found is not _MISSING:
                return found
        error = self.fail(f"name {node.id!r} is not defined in the annotation's namespace", node)
        error.unresolved = node.id  # a checker may try again later (a name defined later)
        raise error

    def eval(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Name):
            return self.lookup(node)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Attribute):
            value = self.eval(node.value)
            try:
                return getattr(value, node.attr)
            except AttributeError:
                raise self.fail(f"{value!r} has no attribute {node.attr!r}", node) from None
        if isinstance(node, ast.Subscript):
            value = self.eval(node.value)
            index = self.eval(node.slice)
            try:
                return value[index]
            except Exception as error:  # noqa: BLE001 (typing raises TypeError, others anything)
                raise self.fail(
                    f"cannot subscript {value!r} with {index!r}: {error}", node
                ) from None
        if isinstance(node, ast.Tuple):
            return tuple(self.eval(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.eval(e) for e in node.elts]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = self.eval(node.left), self.eval(node.right)
            try:
                return left | right
            except TypeError as error:
                raise self.fail(
                    f"cannot form the union {left!r} | {right!r}: {error}", node
                ) from None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = self.eval(node.operand)
            if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
                return -value
        raise self.fail(
            f"not an annotation expression: {type(node).__name__} is not allowed "
            "(annotations are names, subscripts, attributes, constants and |)",
            node,
        )


def evaluate(
    text: str, globalns: Mapping[str, Any] | None = None, localns: Mapping[str, Any] | None = None
) -> Any:
    """The object a string annotation denotes in the given namespaces.

    >>> evaluate("List[int]")
    typing.List[int]
    >>> evaluate("Node | None", {"Node": int})
    int | None
    """
    stripped = text.strip()
    offset = len(text) - len(text.lstrip())
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as error:
        column = (error.offset or 1) - 1 + offset
        raise AnnotationError(
            f"invalid annotation syntax: {error.msg}", text=text, position=column
        ) from None
    namespaces: list[Mapping[str, Any]] = []
    if localns is not None:
        namespaces.append(localns)
    if globalns is not None:
        namespaces.append(globalns)
    namespaces.append(vars(builtins))
    namespaces.append(_DEFAULT_NAMES)
    if offset:
        # Columns are relative to the stripped text; keep carets aligned to ``text``.
        for node in ast.walk(tree):
            if hasattr(node, "col_offset"):
                node.col_offset += offset
                end = getattr(node, "end_col_offset", None)
                if end is not None:
                    setattr(node, "end_col_offset", end + offset)  # noqa: B010 (not every AST node has it)
    return _Evaluator(text, tuple(namespaces)).eval(tree.body)
