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
             | '{' expr '}'                   # only with braces=True

With ``braces=True`` (the shape strings of annotations), a primary may also be a
brace ``{...}`` holding an expression whose names may be attribute paths
(``{self.size}``, ``{dim-1}``); braces do not nest, a dunder attribute is refused,
and a brace is a whole operand (``n{k}`` and ``{a}{b}`` are errors: nothing is ever
pasted together as text).

Every input is bounded (:mod:`tensortypes.core.limits`): its length, the numbers and
names in it, the digits of a number and the nesting depth; going over one is an
AnnotationError naming the limit.

Tree nodes are tuples whose first three items are ``(kind, start, end)``, the
span of the node in the text:

- ``("int", start, end, value)``
- ``("name", start, end, name)``
- ``("neg", start, end, operand)`` and ``("pos", start, end, operand)``
- ``("bin", start, end, op, left, right)`` with ``op`` one of ``+ - * // % **``
- ``("call", start, end, fname, args)`` with ``fname`` ``"min"`` or ``"max"``
- ``("brace", start, end, inner)``; inside it ``("name", ...)`` nodes may hold a
  dotted path such as ``"self.size"``
"""

from __future__ import annotations

import re

from ..errors import AnnotationError
from .limits import MAX_DIGITS, MAX_LENGTH, MAX_NESTING, MAX_OPERANDS

__all__ = ["parse_tree", "FUNCTIONS", "over_limit"]

FUNCTIONS = frozenset({"min", "max"})

# One token per match; the groups say which kind matched. Identifiers follow
# Python (Unicode letters allowed); a digit run followed by a letter is caught
# afterwards so that "2n" gets its own message.
_TOKEN = re.compile(r"\s*(?:(\d+)|([^\W\d]\w*)|(\*\*|//|[-+*%(),])|(\S))")
_ATTRIBUTE = re.compile(r"\.([^\W\d]\w*)")

# Binding powers of the binary operators: (left power, right power). The right
# power of ** is lower than its left one, which makes it right associative.
_BINARY = {
    "+": (10, 11),
    "-": (10, 11),
    "*": (20, 21),
    "//": (20, 21),
    "%": (20, 21),
    "**": (40, 39),
}
_UNARY_POWER = 30  # tighter than * but looser than **: -n**2 is -(n**2)

_END = "end"


def _describe(token: tuple) -> str:
    kind, value = token[0], token[1]
    if kind == _END:
        return "the end of the expression"
    return repr(value) if kind != "int" else f"the number {value}"


def over_limit(what: str, name: str, value: int) -> str:
    """The message for an input over one of :mod:`tensortypes.core.limits`.

    >>> over_limit("a number has 2000 digits", "MAX_DIGITS", 1234)
    'a number has 2000 digits; the limit is 1234 (MAX_DIGITS in tensortypes.core.limits)'
    """
    return f"{what}; the limit is {value} ({name} in tensortypes.core.limits)"


def _tokenize(text: str, braces: bool) -> list[tuple]:
    """Split ``text`` into ``(kind, value, start, end)`` tokens ending with an end token."""
    tokens: list[tuple] = []
    pos = 0
    size = len(text)
    match = _TOKEN.match
    operands = 0
    brace = None  # the open brace token while inside one
    while True:
        m = match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        digits, name, op, other = m.groups()
        start, end = m.start(m.lastindex or 0), m.end()
        if digits is not None:
            if end < size and (text[end].isalpha() or text[end] == "_"):
                stop = end
                while stop < size and (text[stop].isalnum() or text[stop] == "_"):
                    stop += 1
                raise AnnotationError(
                    f"invalid number {text[start:stop]!r}: write multiplication "
                    f"explicitly, e.g. {digits + '*' + text[end:stop]!r}",
                    text,
                    start,
                    stop,
                )
            if end < size and text[end] == ".":
                stop = end + 1
                while stop < size and text[stop].isdigit():
                    stop += 1
                raise AnnotationError(
                    "float literals are not allowed in a dimension expression: sizes are integers",
                    text,
                    start,
                    stop,
                )
            if end - start > MAX_DIGITS:
                raise AnnotationError(
                    over_limit(
                        f"an integer literal has {end - start} digits", "MAX_DIGITS", MAX_DIGITS
                    ),
                    text,
                    start,
                    end,
                )
            tokens.append(("int", int(digits), start, end))
        elif name is not None:
            if not name.isidentifier():
                raise AnnotationError(f"{name!r} is not a valid name", text, start, end)
            if brace is not None:
                end = _path_end(text, start, end)
                name = text[start:end]
            tokens.append(("name", name, start, end))
        elif op is not None:
            tokens.append(("op", op, start, end))
        elif braces and other == "{":
            if brace is not None:
                raise AnnotationError(
                    "braces do not nest: a brace holds a dimension expression over arguments",
                    text,
                    start,
                    end,
                )
            brace = ("op", "{", start, end)
            tokens.append(brace)
        elif braces and other == "}":
            if brace is None:
                raise AnnotationError("unbalanced '}'", text, start, end)
            brace = None
            tokens.append(("op", "}", start, end))
        else:
            raise AnnotationError(_unexpected_character(other, text, start), text, start, end)
        if digits is not None or name is not None:
            operands += 1
            if operands > MAX_OPERANDS:
                raise AnnotationError(
                    over_limit(
                        f"the expression has more than {MAX_OPERANDS} numbers and names",
                        "MAX_OPERANDS",
                        MAX_OPERANDS,
                    ),
                    text,
                    start,
                    end,
                )
        pos = end
        if pos >= size:
            break
    if brace is not None:
        raise AnnotationError(
            "unbalanced '{': a brace closes before the end of its axis", text, brace[2], brace[3]
        )
    tokens.append((_END, None, size, size))
    return tokens


def _path_end(text: str, start: int, end: int) -> int:
    """The end of the attribute path starting with the name at ``text[start:end]``.

    Dunder names are refused: a brace reads sizes, not an object's internals.
    """
    while True:
        word = text[start:end]
        if word.startswith("__") and word.endswith("__"):
            raise AnnotationError(
                f"{word!r}: dunder names are not allowed in braces", text, start, end
            )
        m = _ATTRIBUTE.match(text, end)
        if m is None:
            if end < len(text) and text[end] == ".":
                raise AnnotationError("expected an attribute name after '.'", text, end, end + 1)
            return end
        if not m.group(1).isidentifier():
            raise AnnotationError(f"{m.group(1)!r} is not a valid name", text, m.start(1), m.end())
        start, end = m.start(1), m.end()


def _unexpected_character(char: str, text: str, start: int) -> str:
    if char == "/":
        return "unexpected '/': dimension sizes are integers, use '//' for floor division"
    if char == ".":
        return "unexpected '.': attribute access and float literals are not allowed"
    if char in "[]":
        return f"unexpected {char!r}: only parentheses group a dimension expression"
    if char in "{}":
        return (
            f"unexpected {char!r}: braces belong in a shape string, around a size read "
            f"from a checked call's arguments"
        )
    return f"unexpected character {char!r} in a dimension expression"


class _Parser:
    """A precedence-climbing parser over the token list of one text."""

    __slots__ = ("text", "tokens", "i", "depth")

    def __init__(self, text: str, tokens: list[tuple]):
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def fail(self, message: str, token: tuple) -> AnnotationError:
        return AnnotationError(message, self.text, token[2], max(token[3], token[2] + 1))

    def enter(self, token: tuple) -> None:
        """One level deeper (a parenthesis, sign, ``**``, call or brace) at ``token``."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.fail(
                over_limit(
                    f"the expression is nested more than {MAX_NESTING} levels deep",
                    "MAX_NESTING",
                    MAX_NESTING,
                ),
                token,
            )

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
            if token[1] == "**":  # right associative: a chain nests
                self.enter(token)
                right = self.expression(powers[1])
                self.depth -= 1
            else:
                right = self.expression(powers[1])
            left = ("bin", left[1], right[2], token[1], left, right)

    def unary(self) -> tuple:
        token = self.tokens[self.i]
        if token[0] == "op" and token[1] in ("-", "+"):
            self.i += 1
            self.enter(token)
            operand = self.expression(_UNARY_POWER)
            self.depth -= 1
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
                    raise self.fail(
                        f"{value!r} is a function, not a dimension name; call it as {value}(a, b)",
                        token,
                    )
                return self.call(token)
            if is_call:
                raise self.fail(
                    f"unknown function {value!r}: only min(...) and max(...) "
                    f"may be called in a dimension expression",
                    token,
                )
            return ("name", token[2], token[3], value)
        if kind == "op" and value == "(":
            self.i += 1
            self.enter(token)
            inner = self.expression()
            self.depth -= 1
            closing = self.tokens[self.i]
            if closing[0] != "op" or closing[1] != ")":
                if closing[0] == _END:
                    raise self.fail("'(' was never closed", token)
                raise self.fail(f"expected ')' or an operator, found {_describe(closing)}", closing)
            self.i += 1
            # The span covers the parentheses so that errors point at the group.
            return (*inner[:1], token[2], closing[3], *inner[3:])
        if kind == "op" and value == "{":
            self.i += 1
            self.enter(token)
            inner = self.expression()
            self.depth -= 1
            closing = self.tokens[self.i]
            if closing[0] != "op" or closing[1] != "}":  # the tokenizer saw it balanced
                raise self.fail(
                    f"expected '}}' or an operator, found {_describe(closing)}", closing
                )
            self.i += 1
            return ("brace", token[2], closing[3], inner)
        if kind == _END:
            previous = self.tokens[self.i - 1] if self.i else None
            if previous is None:
                raise self.fail("expected a dimension expression, found nothing", token)
            raise self.fail(
                f"expected an operand after {previous[1]!r}, found the end of the expression", token
            )
        if value == ")":
            raise self.fail(
                "unmatched ')'" if self.i == 0 else "expected an operand, found ')'", token
            )
        raise self.fail(f"expected an operand, found {_describe(token)}", token)

    def call(self, name_token: tuple) -> tuple:
        self.i += 1  # the "(" checked by the caller
        self.enter(name_token)
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
            raise self.fail(
                f"expected ',' or ')' in {name_token[1]}(...), found {_describe(token)}", token
            )
        self.depth -= 1
        if len(args) < 2:
            raise AnnotationError(
                f"{name_token[1]}() needs at least 2 arguments, got {len(args)}",
                self.text,
                name_token[2],
                token[3],
            )
        return ("call", name_token[2], token[3], name_token[1], tuple(args))


def parse_tree(text: str, braces: bool = False) -> tuple:
    """Parse one dimension expression into a tree of tuples (see the module docstring).

    >>> parse_tree("n+1")
    ('bin', 0, 3, '+', ('name', 0, 1, 'n'), ('int', 2, 3, 1))
    >>> parse_tree("{self.k}", braces=True)
    ('brace', 0, 8, ('name', 1, 7, 'self.k'))
    """
    if not isinstance(text, str):
        raise TypeError(f"a dimension expression must be a str, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise AnnotationError(
            over_limit(f"the expression has {len(text)} characters", "MAX_LENGTH", MAX_LENGTH),
            text,
            MAX_LENGTH,
            len(text),
        )
    parser = _Parser(text, _tokenize(text, braces))
    tree = parser.expression()
    token = parser.tokens[parser.i]
    if token[0] != _END:
        if token[0] == "op" and token[1] == ")":
            raise parser.fail("unmatched ')'", token)
        previous = parser.tokens[parser.i - 1]
        if (token[0] == "op" and token[1] == "{") or (
            previous[:2] == ("op", "}") and token[0] in ("int", "name")
        ):
            raise parser.fail(
                "a brace is a whole operand: write an operator between it "
                "and what precedes it (nothing is pasted together as text)",
                token,
            )
        if token[0] == "op" and token[1] == ",":
            raise parser.fail(
                "unexpected ',': only min(...) and max(...) take several "
                "arguments (axes are separated by spaces elsewhere)",
                token,
            )
        raise parser.fail(
            f"expected an operator or the end of the expression, found {_describe(token)}", token
        )
    return tree
