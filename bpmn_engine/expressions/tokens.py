"""What the JUEL and FEEL translators share: a cursor over tokens with error positions."""

from __future__ import annotations

from typing import Any

from bpmn_engine.errors import ExpressionError

Token = tuple[str, str, int]  # (kind, text, position); the last token has kind "end"


class TokenParser:
    """Base of a recursive-descent translator; `dialect` names the language in errors."""

    dialect = ""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
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

    def unexpected(self, hint: str = "") -> None:
        kind, value, position = self.peek()
        what = "the end" if kind == "end" else repr(value)
        suffix = f" ({hint})" if hint else ""
        raise ExpressionError(
            f"{self.dialect}: unexpected {what} at position {position + 1}{suffix}"
        )
