"""What the JUEL translator builds on: a cursor over tokens with error positions (FEEL has its
own lark grammar, see `feel/`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from typing import Any

from bpmn_engine.errors import ExpressionError

Token = tuple[str, str, int]  # (kind, text, position); the last token has kind "end"


def tokenize(body: str, pattern: re.Pattern[str], dialect: str) -> list[Token]:
    """Split `body` by a pattern of named groups (the group name is the token kind)."""
    found: list[Token] = []
    position = 0
    while position < len(body):
        if not body[position:].strip():
            break
        match = pattern.match(body, position)
        if match is None:
            char = body[position:].lstrip()[:1]
            raise ExpressionError(
                f"{dialect}: cannot understand {char!r} at position {position + 1}"
            )
        kind = match.lastgroup or "op"
        found.append((kind, match.group(kind), match.start(kind)))
        position = match.end()
    found.append(("end", "", len(body)))
    return found


CONSTANTS = {"true": True, "false": False, "null": None}  # the same words in JUEL and FEEL
ADDITIVE: dict[str, type[ast.operator]] = {"+": ast.Add, "-": ast.Sub}  # likewise


class TokenParser:
    """Base of a recursive-descent translator: a dialect names itself (for errors) and gives
    its token pattern (named groups, see `tokenize`)."""

    dialect = ""
    pattern: re.Pattern[str]

    @staticmethod
    def unquote(literal: str) -> str:
        """A string token's value: the quotes stripped; dialects add their escapes."""
        return literal[1:-1]

    def __init__(self, body: str) -> None:
        self.tokens = tokenize(body, self.pattern, self.dialect)
        self.index = 0
        self.defaults: dict[str, Any] = {}

    def peek(self) -> Token:
        return self.tokens[self.index]

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def at(self, *values: str) -> bool:
        kind, value, _ = self.peek()
        return kind in ("op", "name") and value in values

    def expect(self, value: str) -> None:
        if not self.at(value):
            self.unexpected(f"expected {value!r}")
        self.take()

    def boolean(
        self, op: type[ast.boolop], words: tuple[str, ...], operand: Callable[[], ast.expr]
    ) -> ast.expr:
        """`operand (word operand)*` as one `and` or `or` (a lone operand as itself)."""
        values = [operand()]
        while self.at(*words):
            self.take()
            values.append(operand())
        return values[0] if len(values) == 1 else ast.BoolOp(op=op(), values=values)

    def binary(
        self, ops: Mapping[str, type[ast.operator]], operand: Callable[[], ast.expr]
    ) -> ast.expr:
        """`operand (op operand)*`, left-associative: one precedence level of arithmetic."""
        left = operand()
        while self.at(*ops):
            op = ops[self.take()[1]]()
            left = ast.BinOp(left=left, op=op, right=operand())
        return left

    def literal(self) -> ast.expr | None:
        """A number, string, true, false or null at the cursor (taken), else None."""
        kind, value, _ = self.peek()
        if kind == "num":
            self.take()
            try:
                number = float(value) if any(c in value for c in ".eE") else int(value)
            except ValueError:  # more digits than Python turns into an int (4,300)
                raise ExpressionError(
                    f"{self.dialect}: the number {value[:20]}... is too long"
                ) from None
            return ast.Constant(value=number)
        if kind == "str":
            self.take()
            return ast.Constant(value=self.unquote(value))
        if kind == "name" and value in CONSTANTS:
            self.take()
            return ast.Constant(value=CONSTANTS[value])
        return None

    def unexpected(self, hint: str = "") -> None:
        kind, value, position = self.peek()
        what = "end of the expression" if kind == "end" else repr(value)
        suffix = f" ({hint})" if hint else ""
        raise ExpressionError(
            f"{self.dialect}: unexpected {what} at position {position + 1}{suffix}"
        )
