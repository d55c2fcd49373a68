"""FEEL (Camunda 8 `=...`) simple subset, translated to a Python tree for the sandbox.

Covers what conditions and mappings usually hold: comparisons (`=` is equality), `and`/`or`,
`not(...)`, arithmetic, `if c then a else b`, paths (`order.amount`), 1-based list indexes
(`items[1]` is the first item, `items[-1]` the last, out of range is null), list literals and
`true`/`false`/`null`. Anything else is refused at compile time. The tree goes through the same
allow-list and guards as sandboxed Python. Unlike full FEEL, comparing null with a number fails
instead of giving null.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions.tokens import ADDITIVE, TokenParser


def feel_index(items: Any, index: Any) -> Any:
    """FEEL `list[i]`: 1-based, negative from the end, null when out of range."""
    if isinstance(index, float) and index.is_integer():
        index = int(index)
    if isinstance(index, bool) or not isinstance(index, int):
        raise ExpressionError(f"a FEEL list index must be a whole number, not {index!r}")
    if not isinstance(items, (list, tuple)):
        raise ExpressionError(f"cannot index a {type(items).__name__!r} value with [...] in FEEL")
    if 0 < index <= len(items):
        return items[index - 1]
    if index < 0 and -index <= len(items):
        return items[index]
    return None


HELPERS = {"_feel_index": feel_index}

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
      | (?P<str>"(?:[^"\\]|\\.)*")
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op>\*\*|!=|<=|>=|[-+*/<>=().\[\],])
    )""",
    re.VERBOSE | re.DOTALL,
)
_COMPARE = {
    "=": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, ">": ast.Gt, "<=": ast.LtE, ">=": ast.GtE,
}  # fmt: skip
_MULTIPLICATIVE: dict[str, type[ast.operator]] = {"*": ast.Mult, "/": ast.Div}
_POWER: dict[str, type[ast.operator]] = {"**": ast.Pow}
_RESERVED = frozenset(
    {"and", "or", "not", "if", "then", "else", "between", "in", "some", "every", "for"}
    | {"return", "satisfies", "instance", "of", "function", "true", "false", "null"}
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'"}


def _unquote(literal: str) -> str:
    def escape(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u"):
            return chr(int(code[1:], 16))
        if code in _ESCAPES:
            return _ESCAPES[code]
        raise ExpressionError(f"FEEL: unknown escape '\\{code}' in a string")

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", escape, literal[1:-1], flags=re.DOTALL)


class _Parser(TokenParser):
    """Recursive descent: if < or < and < comparison < + - < * / < ** < unary < path/index."""

    dialect = "FEEL"
    pattern = _TOKEN

    @staticmethod
    def unquote(literal: str) -> str:
        return _unquote(literal)

    def parse(self) -> ast.expr:
        if self.peek()[0] == "end":
            raise ExpressionError("FEEL: the expression is empty")
        tree = self.expression()
        if self.peek()[0] != "end":
            self.unexpected("this FEEL construct is not supported")
        return tree

    def expression(self) -> ast.expr:
        if not self.at("if"):
            return self.disjunction()
        self.take()
        test = self.expression()
        self.expect("then")
        body = self.expression()
        self.expect("else")
        return ast.IfExp(test=test, body=body, orelse=self.expression())

    def disjunction(self) -> ast.expr:
        return self.boolean(ast.Or, ("or",), self.conjunction)

    def conjunction(self) -> ast.expr:
        return self.boolean(ast.And, ("and",), self.comparison)

    def comparison(self) -> ast.expr:
        left = self.additive()
        if not self.at(*_COMPARE):
            return left
        symbol = self.take()[1]
        right = self.additive()
        op: ast.cmpop = _COMPARE[symbol]()
        if symbol in ("=", "!=") and (_is_null(left) or _is_null(right)):
            op = ast.Is() if symbol == "=" else ast.IsNot()
            for side in (left, right):  # `x = null` also holds when x is not set at all
                if isinstance(side, ast.Name):
                    self.defaults[side.id] = None
        return ast.Compare(left=left, ops=[op], comparators=[right])

    def additive(self) -> ast.expr:
        return self.binary(ADDITIVE, self.multiplicative)

    def multiplicative(self) -> ast.expr:
        return self.binary(_MULTIPLICATIVE, self.power)

    def power(self) -> ast.expr:
        return self.binary(_POWER, self.unary)

    def unary(self) -> ast.expr:
        if self.at("-"):
            self.take()
            return ast.UnaryOp(op=ast.USub(), operand=self.unary())
        return self.postfix()

    def postfix(self) -> ast.expr:
        node = self.primary()
        while True:
            if self.at("."):
                self.take()
                kind, name, _ = self.peek()
                if kind != "name":
                    self.unexpected("expected a name after '.'")
                self.take()
                node = ast.Attribute(value=node, attr=name, ctx=ast.Load())
            elif self.at("["):
                self.take()
                index = self.expression()
                if isinstance(index, (ast.Compare, ast.BoolOp)):
                    raise ExpressionError(
                        "FEEL: filter expressions like list[x > 1] are not supported"
                    )
                self.expect("]")
                func = ast.Name(id="_feel_index", ctx=ast.Load())
                node = ast.Call(func=func, args=[node, index], keywords=[])
            else:
                return node

    def primary(self) -> ast.expr:
        found = self.literal()
        if found is not None:
            return found
        kind, value, _ = self.peek()
        if self.at("if"):
            return self.expression()
        if self.at("not"):
            self.take()
            self.expect("(")
            operand = self.expression()
            self.expect(")")
            return ast.UnaryOp(op=ast.Not(), operand=operand)
        if kind == "name" and value.startswith("_"):
            raise ExpressionError(f"FEEL: names starting with '_' are not allowed ({value!r})")
        if kind == "name" and value not in _RESERVED:
            self.take()
            if self.at("("):
                raise ExpressionError(f"FEEL: function {value!r} is not supported")
            return ast.Name(id=value, ctx=ast.Load())
        if self.at("("):
            self.take()
            inner = self.expression()
            self.expect(")")
            return inner
        if self.at("["):
            return self.list_literal()
        self.unexpected("this FEEL construct is not supported")
        raise AssertionError  # unreachable: unexpected() raises

    def list_literal(self) -> ast.expr:
        self.take()
        items: list[ast.expr] = []
        while not self.at("]"):
            items.append(self.expression())
            if not self.at("]"):
                self.expect(",")
        self.take()
        return ast.List(elts=items, ctx=ast.Load())


def _is_null(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def translate(text: str) -> tuple[ast.Expression, dict[str, Any]]:
    """`=...` (or a bare FEEL text) to a Python tree, plus null defaults for `x = null` names."""
    body = text.strip()
    body = body[1:] if body.startswith("=") else body  # language="feel" without the "="
    parser = _Parser(body)
    return ast.Expression(body=parser.parse()), parser.defaults
