"""The tokenizer and parser of dimension expressions (layer 2: core; standard library only).

A dimension expression is the text of one axis size: ``"n"``, ``"2*n+1"``,
``"max(h,w)//2"``. This module turns such text into a small syntax tree of
tuples; :mod:`tensortypes.core.dims` builds the normal form from it. There is
no ``eval``, ``exec`` or ``ast`` here: the language is tiny and every input
must fail with a caret under the bad token, which Python's own parser cannot
give for our restrictions (no floats, no attribute access, two functions).

Grammar, with Python's precedence and associativity::

    expr    := expr ('+' | '-') term | term
    term    := term ('*' | '//' | '%') unary | unary
    unary   := ('+' | '-') unary | power
    power   := primary ['**' unary]          # right associative
    primary := INT | NAME | ('min' | 'max') '(' expr (',' expr)+ ')' | '(' expr ')'

Tree nodes are tuples whose first three items are ``(kind, start, end)``, the
span of the node in the text:

- ``("int", start, end, value)``
- ``("name", start, end, name)``
- ``("neg", start, end, operand)`` and ``("pos", start, end, operand)``
- ``("bin", start, end, op, left, right)`` with ``op`` one of ``+ - * // % **``
- ``("call", start, end, fname, args)`` with ``fname`` ``"min"`` or ``"max"``
"""

from __future__ import annotations

import re

from ..errors import AnnotationError

__all__ = ["parse_tree", "FUNCTIONS"]

FUNCTIONS = frozenset({"min", "max"})

# One token per match; the groups say which kind matched. Identifiers follow
# Python (Unicode letters allowed); a digit run followed by a letter is caught
# afterwards so that "2n" gets its own message.
_TOKEN = re.compile(r"\s*(?:(\d+)|([^\W\d]\w*)|(\*\*|//|[-+*%(),])|(\S))")

# Binding powers of the binary operators: (left power, right power). The right
# power of ** is lower than its left one, which makes it right associative.
_BINARY = {"+": (10, 11), "-": (10, 11), "*": (20, 21), "//": (20, 21), "%": (20, 21),
           "**": (40, 39)}
_UNARY_POWER = 30  # tighter than * but looser than **: -n**2 is -(n**2)

_END = "end"


def _describe(token: tuple) -> str:
    kind, value = token[0], token[1]
    if kind == _END:
        return "the end of the expression"
    return repr(value) if kind != "int" else f"the number {value}"


def _tokenize(text: str) -> list[tuple]:
    """Split ``text`` into ``(kind, value, start, end)`` tokens ending with an end token."""
    tokens: list[tuple] = []
    pos = 0
    size = len(text)
    match = _TOKEN.match
    while True:
        m = match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        digits, name, op, other = m.groups()
        start, end = m.start(m.lastindex), m.end()
        if digits is not None:
            if end < size and (text[end].isalpha() or text[end] == "_"):
                stop = end
                while stop < size and (text[stop].isalnum() or text[stop] == "_"):
                    stop += 1
                raise AnnotationError(
                    f"invalid number {text[start:stop]!r}: write multiplication "
                    f"explicitly, e.g. {digits + '*' + text[end:stop]!r}",
                    text, start, stop)
            if end < size and text[end] == ".":
                stop = end + 1
                while stop < size and text[stop].isdigit():
                    stop += 1
                raise AnnotationError("float literals are not allowed in a dimension "
                                      "expression: sizes are integers", text, start, stop)
            try:
                value = int(digits)
            except ValueError:  # more digits than int() accepts
                raise AnnotationError("integer literal is too long", text, start, end) from None
            tokens.append(("int", value, start, end))
        elif name is not None:
            if not name.isidentifier():
                raise AnnotationError(f"{name!r} is not a valid name", text, start, end)
            tokens.append(("name", name, start, end))
        elif op is not None:
            tokens.append(("op", op, start, end))
        else:
            raise AnnotationError(_unexpected_character(other, text, start), text, start, end)
        pos = end
        if pos >= size:
            break
    tokens.append((_END, None, size, size))
    return tokens


def _unexpected_character(char: str, text: str, start: int) -> str:
    if char == "/":
        return "unexpected '/': dimension sizes are integers, use '//' for floor division"
    if char == ".":
        return "unexpected '.': attribute access and float literals are not allowed"
    if char in "[]{}":
        return f"unexpected {char!r}: only parentheses group a dimension expression"
    return f"unexpected character {char!r} in a dimension expression"


class _Parser:
    """A precedence-climbing parser over the token list of one text."""

    __slots__ = ("text", "tokens", "i")

    def __init__(self, text: str, tokens: list[tuple]):
        self.text = text
        self.tokens = tokens
        self.i = 0

    def fail(self, message: str, token: tuple) -> AnnotationError:
        return AnnotationError(message, self.text, token[2], max(token[3], token[2] + 1))

    def expression(self, min_power: int = 0) -> tuple:
        left = self.unary()
        tokens = self.tokens
        while True:
            token = tokens[self.i]
            if token[0] != "op":
                return left
            powers = _BINARY.get(token[1])
            if powers is None or powers[0] < min_power:
                return left
            self.i += 1
            right = self.expression(powers[1])
            left = ("bin", left[1], right[2], token[1], left, right)

    def unary(self) -> tuple:
        token = self.tokens[self.i]
        if token[0] == "op" and token[1] in ("-", "+"):
            self.i += 1
            operand = self.expression(_UNARY_POWER)
            return ("neg" if token[1] == "-" else "pos", token[2], operand[2], operand)
        return self.primary()

    def primary(self) -> tuple:
        token = self.tokens[self.i]
        kind, value = token[0], token[1]
        if kind == "int":
            self.i += 1
            return ("int", token[2], token[3], value)
        if kind == "name":
            self.i += 1
            following = self.tokens[self.i]
            is_call = following[0] == "op" and following[1] == "("
            if value in FUNCTIONS:
                if not is_call:
                    raise self.fail(f"{value!r} is a function, not a dimension name; "
                                    f"call it as {value}(a, b)", token)
                return self.call(token)
            if is_call:
                raise self.fail(f"unknown function {value!r}: only min(...) and max(...) "
                                f"may be called in a dimension expression", token)
            return ("name", token[2], token[3], value)
        if kind == "op" and value == "(":
            self.i += 1
            inner = self.expression()
            closing = self.tokens[self.i]
            if closing[0] != "op" or closing[1] != ")":
                if closing[0] == _END:
                    raise self.fail("'(' was never closed", token)
                raise self.fail(f"expected ')' or an operator, found {_describe(closing)}",
                                closing)
            self.i += 1
            # The span covers the parentheses so that errors point at the group.
            return (*inner[:1], token[2], closing[3], *inner[3:])
        if kind == _END:
            previous = self.tokens[self.i - 1] if self.i else None
            if previous is None:
                raise self.fail("expected a dimension expression, found nothing", token)
            raise self.fail(f"expected an operand after {previous[1]!r}, "
                            f"found the end of the expression", token)
        if value == ")":
            raise self.fail("unmatched ')'" if self.i == 0 else
                            "expected an operand, found ')'", token)
        raise self.fail(f"expected an operand, found {_describe(token)}", token)

    def call(self, name_token: tuple) -> tuple:
        self.i += 1  # the "(" checked by the caller
        args = []
        while True:
            args.append(self.expression())
            token = self.tokens[self.i]
            if token[0] == "op" and token[1] == ",":
                self.i += 1
                continue
            if token[0] == "op" and token[1] == ")":
                self.i += 1
                break
            if token[0] == _END:
                raise self.fail(f"{name_token[1]}( was never closed", name_token)
            raise self.fail(f"expected ',' or ')' in {name_token[1]}(...), "
                            f"found {_describe(token)}", token)
        if len(args) < 2:
            raise AnnotationError(f"{name_token[1]}() needs at least 2 arguments, "
                                  f"got {len(args)}", self.text, name_token[2], token[3])
        return ("call", name_token[2], token[3], name_token[1], tuple(args))


def parse_tree(text: str) -> tuple:
    """Parse one dimension expression into a tree of tuples (see the module docstring).

    >>> parse_tree("n+1")
    ('bin', 0, 3, '+', ('name', 0, 1, 'n'), ('int', 2, 3, 1))
    """
    if not isinstance(text, str):
        raise TypeError(f"a dimension expression must be a str, got {type(text).__name__}")
    parser = _Parser(text, _tokenize(text))
    tree = parser.expression()
    token = parser.tokens[parser.i]
    if token[0] != _END:
        if token[0] == "op" and token[1] == ")":
            raise parser.fail("unmatched ')'", token)
        if token[0] == "op" and token[1] == ",":
            raise parser.fail("unexpected ',': only min(...) and max(...) take several "
                              "arguments (axes are separated by spaces elsewhere)", token)
        raise parser.fail(f"expected an operator or the end of the expression, "
                          f"found {_describe(token)}", token)
    return tree
