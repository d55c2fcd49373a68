"""The FEEL grammar (`feel.lark`, shipped as package data) and its LALR parser, built once."""

from __future__ import annotations

import functools
from importlib import resources

from lark import Lark, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from bpmn_engine.errors import ExpressionError


@functools.cache
def _parser() -> Lark:
    grammar = resources.files(__package__).joinpath("feel.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        start=["start", "unary_tests"],
        maybe_placeholders=True,
        cache=True,  # the LALR tables, built once per grammar version into the temp dir
    )


def parse(text: str, start: str = "start") -> Tree:
    """Parse FEEL text; a syntax error is an ExpressionError saying where."""
    if not text.strip():
        raise ExpressionError("FEEL: the expression is empty")
    try:
        return _parser().parse(text, start=start)
    except UnexpectedEOF:
        raise ExpressionError("FEEL syntax error: the expression ends too early") from None
    except UnexpectedToken as error:
        found = "the end" if error.token.type == "$END" else repr(str(error.token))
        raise ExpressionError(
            f"FEEL syntax error at line {error.line}, column {error.column}: unexpected {found}"
        ) from None
    except UnexpectedCharacters as error:
        raise ExpressionError(
            f"FEEL syntax error at line {error.line}, column {error.column}: "
            f"unexpected {text[error.pos_in_stream]!r}"
        ) from None
    except LarkError as error:
        raise ExpressionError(f"FEEL syntax error: {error}") from None
