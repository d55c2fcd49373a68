"""JUEL (Camunda 7 `${...}` / `#{...}`) subset, translated to a Python tree for the sandbox.

The text is tokenized properly (so `!=` and a `!` inside a string stay what they are) and
parsed by recursive descent with EL precedence; the resulting `ast` tree then goes through the
same allow-list and guards as sandboxed Python, so JUEL adds no way out of the sandbox.
Semantics are Python's where EL would coerce types (`'5' == 5` is false here).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions.java_text import java_text
from bpmn_engine.expressions.juel_methods import juel_call, juel_set
from bpmn_engine.expressions.tokens import ADDITIVE, TokenParser


def juel_empty(value: Any) -> bool:
    """EL `empty`: true for null, "" and empty collections (and false for 0)."""
    if value is None:
        return True
    if isinstance(value, (str, list, tuple, dict, set, frozenset)):
        return len(value) == 0
    return False


VARIABLES = "_juel_variables"
"""The name `execution.getVariables()` reads: all variables, bound at evaluation."""
HELPERS: dict[str, Any] = {
    "_juel_empty": juel_empty,
    "_juel_call": juel_call,
    "_juel_set": juel_set,
    VARIABLES: None,
}
# a task listener's `task` has the variable methods of `execution` (a `task` variable keeps
# its own methods otherwise: `task.get('id')` of a map)
TASK_METHODS = frozenset({"getVariable", "getVariableLocal", "getVariables", "setVariable"})

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
      | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op>==|!=|<=|>=|&&|\|\||[-+*/%<>!?:().\[\],])
    )""",
    re.VERBOSE | re.DOTALL,
)
_COMPARE = {
    "==": ast.Eq, "eq": ast.Eq, "!=": ast.NotEq, "ne": ast.NotEq,
    "<": ast.Lt, "lt": ast.Lt, ">": ast.Gt, "gt": ast.Gt,
    "<=": ast.LtE, "le": ast.LtE, ">=": ast.GtE, "ge": ast.GtE,
}  # fmt: skip
_EQUALITY = frozenset({"==", "eq", "!=", "ne"})
_MULTIPLICATIVE: dict[str, type[ast.operator]] = {"*": ast.Mult, "/": ast.Div, "div": ast.Div}
_MULTIPLICATIVE |= {"%": ast.Mod, "mod": ast.Mod}
_RESERVED = frozenset(
    {"and", "or", "not", "eq", "ne", "lt", "gt", "le", "ge", "div", "mod", "empty"}
    | {"instanceof", "true", "false", "null"}
)


class _Parser(TokenParser):
    """Recursive descent over EL precedence: ?: < or < and < equality < relational < ..."""

    dialect = "JUEL"
    pattern = _TOKEN
    uses_variables = False

    @staticmethod
    def unquote(literal: str) -> str:
        return _unquote(literal)

    def parse(self) -> ast.expr:
        tree = self.conditional()
        if self.peek()[0] != "end":
            self.unexpected()
        return tree

    def conditional(self) -> ast.expr:
        test = self.disjunction()
        if not self.at("?"):
            return test
        self.take()
        body = self.conditional()
        self.expect(":")
        return ast.IfExp(test=test, body=body, orelse=self.conditional())

    def disjunction(self) -> ast.expr:
        return self.boolean(ast.Or, ("||", "or"), self.conjunction)

    def conjunction(self) -> ast.expr:
        return self.boolean(ast.And, ("&&", "and"), self.equality)

    def equality(self) -> ast.expr:
        left = self.relational()
        while self.at(*_EQUALITY):
            op = _COMPARE[self.take()[1]]()
            left = ast.Compare(left=left, ops=[op], comparators=[self.relational()])
        return left

    def relational(self) -> ast.expr:
        left = self.additive()
        while self.at(*(set(_COMPARE) - _EQUALITY)):
            op = _COMPARE[self.take()[1]]()
            left = ast.Compare(left=left, ops=[op], comparators=[self.additive()])
        return left

    def additive(self) -> ast.expr:
        return self.binary(ADDITIVE, self.multiplicative)

    def multiplicative(self) -> ast.expr:
        return self.binary(_MULTIPLICATIVE, self.unary)

    def unary(self) -> ast.expr:
        if self.at("-"):
            self.take()
            return ast.UnaryOp(op=ast.USub(), operand=self.unary())
        if self.at("!", "not"):
            self.take()
            return ast.UnaryOp(op=ast.Not(), operand=self.unary())
        if self.at("empty"):
            self.take()
            func = ast.Name(id="_juel_empty", ctx=ast.Load())
            return ast.Call(func=func, args=[self.unary()], keywords=[])
        return self.postfix()

    def postfix(self) -> ast.expr:
        node = self.primary()
        while True:
            if self.at("."):
                self.take()
                kind, name, _ = self.peek()
                if kind != "name":
                    self.unexpected("expected a property name")
                self.take()
                if self.at("("):
                    node = self.method(node, name)
                else:
                    node = ast.Attribute(value=node, attr=name, ctx=ast.Load())
            elif self.at("["):
                self.take()
                index = self.conditional()
                self.expect("]")
                node = ast.Subscript(value=node, slice=index, ctx=ast.Load())
            elif self.at("("):
                self.unexpected("function calls are not supported")
            else:
                return node

    def method(self, target: ast.expr, name: str) -> ast.expr:
        """`execution.getVariable(...)` / `getVariables()` / `setVariable(...)` (also on a task
        listener's `task`), or a Java method on a value."""
        self.take()
        args: list[ast.expr] = []
        while not self.at(")"):
            args.append(self.conditional())
            if not self.at(")"):
                self.expect(",")
        self.take()
        if isinstance(target, ast.Name) and (
            target.id == "execution" or (target.id == "task" and name in TASK_METHODS)
        ):
            return self.execution(target.id, name, args)
        func = ast.Name(id="_juel_call", ctx=ast.Load())
        return ast.Call(func=func, args=[target, ast.Constant(name), *args], keywords=[])

    def execution(self, target: str, name: str, args: list[ast.expr]) -> ast.expr:
        if name == "getVariables" and not args:
            self.uses_variables = True
            return ast.Name(id=VARIABLES, ctx=ast.Load())
        if name == "setVariable" and len(args) == 2:
            func = ast.Name(id="_juel_set", ctx=ast.Load())
            return ast.Call(func=func, args=args, keywords=[])
        if name not in ("getVariable", "getVariableLocal") or len(args) != 1:
            self.unexpected(f"{target}.{name}() with {len(args)} argument(s) is not supported")
        literal = args[0]
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
            variable = literal.value
            if not variable or variable.startswith("_"):
                raise ExpressionError(f"JUEL: variable name {variable!r} is not allowed")
            self.defaults[variable] = None
            return ast.Name(id=variable, ctx=ast.Load())
        self.uses_variables = True  # a computed name: look it up among all variables
        func = ast.Name(id="_juel_call", ctx=ast.Load())
        all_variables = ast.Name(id=VARIABLES, ctx=ast.Load())
        return ast.Call(func=func, args=[all_variables, ast.Constant("get"), literal], keywords=[])

    def primary(self) -> ast.expr:
        found = self.literal()
        if found is not None:
            return found
        kind, value, _ = self.peek()
        if kind == "name" and value.startswith("_"):
            raise ExpressionError(f"JUEL: names starting with '_' are not allowed ({value!r})")
        if kind == "name" and value == "environment" and self._environment_ahead():
            return self.environment()
        if kind == "name" and value == "variables" and self._property_ahead():
            return self.bare_variables()
        if kind == "name" and value not in _RESERVED:
            self.take()
            return ast.Name(id=value, ctx=ast.Load())
        if self.at("("):
            self.take()
            inner = self.conditional()
            self.expect(")")
            return inner
        self.unexpected()
        raise AssertionError  # unreachable: unexpected() raises

    def _environment_ahead(self) -> bool:
        """`environment.variables`, `.output` or `.services`: bpmn-engine's (paed01)."""
        tokens = self.tokens[self.index + 1 : self.index + 3]
        return len(tokens) == 2 and tokens[0][1] == "." and tokens[1][1] in _ENVIRONMENT

    def environment(self) -> ast.expr:
        """bpmn-engine's `environment.variables.x` (also `.output.x`, the same variables here)
        is the variable x, null when not set; `environment.variables` alone is all of them."""
        self.take()
        self.take()
        part = self.take()[1]
        if part == "services":
            raise ExpressionError(
                "environment.services in an expression: bpmn-engine's services are JavaScript "
                "functions, which only a service task can call here "
                '(implementation="${environment.services.NAME}", served by a --handlers '
                "function NAME)"
            )
        if self.at(".") and self.tokens[self.index + 1][0] == "name":
            self.take()
            return self._variable(self.take()[1])
        if self.at("["):
            self.take()
            index = self.conditional()
            self.expect("]")
            if isinstance(index, ast.Constant) and str(index.value).isidentifier():
                return self._variable(str(index.value))
            self.uses_variables = True
            func = ast.Name(id="_juel_call", ctx=ast.Load())
            all_variables = ast.Name(id=VARIABLES, ctx=ast.Load())
            return ast.Call(
                func=func, args=[all_variables, ast.Constant("get"), index], keywords=[]
            )
        self.uses_variables = True
        return ast.Name(id=VARIABLES, ctx=ast.Load())

    def _property_ahead(self) -> bool:
        tokens = self.tokens[self.index + 1 : self.index + 4]
        return (
            len(tokens) >= 2
            and tokens[0][1] == "."
            and tokens[1][0] == "name"
            and (len(tokens) == 2 or tokens[2][1] != "(")
        )

    def bare_variables(self) -> ast.expr:
        """`variables.x`: a process variable `variables` if there is one (Camunda reads no
        other), else bpmn-engine's before v5, the variable x (null when not set)."""
        self.take()
        self.take()
        name = self.take()[1]
        self.uses_variables = True
        declared = ast.Compare(
            left=ast.Constant("variables"),
            ops=[ast.In()],
            comparators=[ast.Name(id=VARIABLES, ctx=ast.Load())],
        )
        own = ast.Attribute(
            value=ast.Name(id="variables", ctx=ast.Load()), attr=name, ctx=ast.Load()
        )
        return ast.IfExp(test=declared, body=own, orelse=self._variable(name))

    def _variable(self, name: str) -> ast.expr:
        """A variable read as `execution.getVariable` reads it: null when not set."""
        if not name or name.startswith("_") or not name.isidentifier():
            raise ExpressionError(f"JUEL: variable name {name!r} is not allowed")
        self.defaults[name] = None
        return ast.Name(id=name, ctx=ast.Load())


_ENVIRONMENT = frozenset({"variables", "output", "services"})


def _unquote(literal: str) -> str:
    return re.sub(r"\\(.)", r"\1", literal[1:-1], flags=re.DOTALL)


def juel_text(value: Any) -> str:
    """A value in a text with expressions in it, coerced to a String as EL does (null is the
    empty string, other values as Java's `toString` writes them)."""
    return java_text(value, "a value written into a ${...} text", "JUEL")


def juel_concat(*values: Any) -> str:
    """The text of a composite expression: its literal parts and its values, in order."""
    return "".join(juel_text(value) for value in values)


HELPERS["_juel_concat"] = juel_concat


_OPEN = re.compile(r"[$#]\{")


def segments(text: str) -> list[tuple[bool, str]]:
    """A text cut into its literal parts and its `${...}` / `#{...}` expressions' bodies,
    as (is an expression, text); `\\${` is a literal `${`, as in EL."""
    found: list[tuple[bool, str]] = []
    literal, at = "", 0
    while at < len(text):
        found_open = _OPEN.search(text, at)
        if found_open is None:
            literal += text[at:]
            break
        start = found_open.start()
        if start and text[start - 1] == "\\":
            literal += text[at : start - 1] + text[start : start + 2]
            at = start + 2
            continue
        end = _closing(text, start + 2)
        if literal + text[at:start]:
            found.append((False, literal + text[at:start]))
        literal = ""
        found.append((True, text[start + 2 : end]))
        at = end + 1
    if literal:
        found.append((False, literal))
    return found


def _closing(text: str, at: int) -> int:
    """Where the `}` that ends the expression starting at `at` is (quotes and braces skipped)."""
    depth, quote, escaped = 1, "", False
    for index in range(at, len(text)):
        char = text[index]
        if escaped:
            escaped = False
        elif quote:
            escaped = char == "\\"
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if not depth:
                return index
    raise ExpressionError(f"JUEL: {text[at - 2 : at + 30]!r}... has no closing '}}'")


def translate(text: str) -> tuple[ast.Expression, dict[str, Any], bool]:
    """`${...}` to a Python expression tree, plus defaults for `execution.getVariable` names,
    and whether it reads all variables (`execution.getVariables()`). A text with expressions
    in it (`invoice-${id}`, `${first} ${last}`) is EL's composite expression: the text, each
    expression's value written into it."""
    stripped = text.strip()
    parts = segments(stripped)
    if not any(is_expression for is_expression, _ in parts):
        parts = [(True, stripped)]  # language="juel" without ${}
    defaults: dict[str, Any] = {}
    uses_variables = False
    pieces: list[ast.expr] = []
    for is_expression, part in parts:
        if not is_expression:
            pieces.append(ast.Constant(part))
            continue
        parser = _Parser(part)
        pieces.append(parser.parse())
        defaults.update(parser.defaults)
        uses_variables = uses_variables or parser.uses_variables
    if len(pieces) == 1:
        return ast.Expression(body=pieces[0]), defaults, uses_variables
    body = ast.Call(_name("_juel_concat"), pieces, [])  # flat: no depth however many parts
    return ast.Expression(body=body), defaults, uses_variables


def _name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())
