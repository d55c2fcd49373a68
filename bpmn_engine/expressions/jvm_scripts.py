"""The JVM scripts that need no JVM: statements that only print and read or set variables.

jBPM's Java and MVEL scripts, and the Groovy scripts of Camunda 7, Activiti and Flowable, are
mostly of this kind in the diagrams people bring (`System.out.println("Order " + id);`,
`kcontext.setVariable("approved", true);`, `def v = "x"; execution.setVariable("v", v)`).
Their meaning is fixed by the language, so they are run here exactly as the JVM would run
them, and any script with anything else in it is refused before the first step, naming what
it uses (`UnsupportedScript`): a method call, arithmetic, a control statement, a cast...

What runs, per statement (`;` ends one; in Groovy a line break too):

- `System.out.println(x)` and `System.out.print(x)`; Groovy's `println x` and `print x`.
  The text is a `script.printed` event, as a Python script's `print` is.
- `kcontext.setVariable("name", x)` (Java, MVEL: jBPM's `kcontext`) and
  `execution.setVariable("name", x)` (Groovy: Camunda's, Activiti's, Flowable's
  `execution`); `....getVariable("name")` reads one (null when there is none).
- A local: `String s = x;` (Java, MVEL), `def s = x` (Groovy).
- In Groovy, as its last statement, `throw new org.camunda.bpm.engine.delegate.BpmnError(
  "code"[, "message"])` (or Operaton's, Activiti's, Flowable's `BpmnError`): a BPMN error
  thrown at the script task, as those engines throw it. Only locals may come before it:
  what a script printed or set before throwing is kept there, and is not imitated.

An expression is a string literal, a whole number, `true`, `false`, `null`, a variable (a
process variable by name, as these engines bind them, or a local), `getVariable`, `x.toString()`
and `+` where one side is text: Java's, MVEL's and Groovy's string concatenation, the other side
written as Java's `toString` writes it (`java_text`; null as "null"). `+` of two numbers is
arithmetic, which is not imitated (Java's int overflows, Groovy's decimals are BigDecimal): an
incident says so when it happens.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bpmn_engine.errors import BpmnError, ExpressionError
from bpmn_engine.expressions.calls import keep_printed
from bpmn_engine.expressions.guards import MAX_SIZE
from bpmn_engine.expressions.java_text import java_text

JAVA, MVEL, GROOVY = "Java", "MVEL", "Groovy"
_DIALECTS = {
    "java": JAVA,
    "http://www.java.com/java": JAVA,
    "mvel": MVEL,
    "http://www.mvel.org/2.0": MVEL,
    "groovy": GROOVY,
}
_CONTEXT = {JAVA: "kcontext", MVEL: "kcontext", GROOVY: "execution"}
_LOCAL_TYPE = {JAVA: "String", MVEL: "String", GROOVY: "def"}

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\f\r]+|//[^\n]*|/\*.*?\*/)
    |(?P<newline>\n)
    |(?P<text>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<number>\d+(?:\.\d+)?[lLdDfF]?(?![\w.]))
    |(?P<name>[A-Za-z_$][\w$]*)
    |(?P<symbol>[.(),;+=])
    |(?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r"\\(u+[0-9a-fA-F]{4}|.)", re.DOTALL)
_KEYWORDS = frozenset({"true", "false", "null"})
_BPMN_ERRORS = frozenset(
    f"{package}.BpmnError"
    for package in (
        "org.camunda.bpm.engine.delegate",
        "org.operaton.bpm.engine.delegate",
        "org.activiti.engine.delegate",
        "org.flowable.engine.delegate",
    )
)
"""The BPMN error classes of the engines whose Groovy scripts may throw one."""
_CONTROL = frozenset(
    {"if", "else", "for", "while", "do", "switch", "return", "throw", "try", "new", "import"}
    | {"synchronized", "assert", "break", "continue", "class", "final", "static", "var"}
)


class UnsupportedScript(ExpressionError):
    """The script has something in it beyond printing and variables: it needs a JVM."""


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class _Literal:
    value: Any


@dataclass(frozen=True)
class _Variable:
    name: str


@dataclass(frozen=True)
class _GetVariable:
    name: Any  # an expression giving the name


@dataclass(frozen=True)
class _ToString:
    operand: Any


@dataclass(frozen=True)
class _Concat:
    parts: tuple[Any, ...]


@dataclass(frozen=True)
class _Print:
    value: Any  # None: println() with nothing
    newline: bool


@dataclass(frozen=True)
class _SetVariable:
    name: Any
    value: Any


@dataclass(frozen=True)
class _Local:
    name: str
    value: Any


@dataclass(frozen=True)
class _Throw:
    code: Any
    message: Any  # None: no message


class _Parser:
    def __init__(self, text: str, dialect: str) -> None:
        self.dialect = dialect
        self.context = _CONTEXT[dialect]
        self.tokens = _tokens(text, dialect)
        self.at = 0

    # --- tokens -------------------------------------------------------------------------

    def peek(self, offset: int = 0) -> _Token | None:
        index = self.at + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def is_(self, text: str, offset: int = 0) -> bool:
        token = self.peek(offset)
        return token is not None and token.kind != "text" and token.text == text

    def take(self, text: str | None = None, kind: str | None = None) -> _Token:
        token = self.peek()
        if (
            token is None
            or (text is not None and token.text != text)
            or (kind is not None and token.kind != kind)
        ):
            wanted = repr(text) if text else (kind or "more")
            raise self.unsupported(token, f"expected {wanted}")
        self.at += 1
        return token

    def unsupported(self, token: _Token | None, what: str | None = None) -> UnsupportedScript:
        if token is None:
            return UnsupportedScript(f"{what or 'more'} at the end of the script")
        said = what or f"uses {token.text!r}"
        return UnsupportedScript(f"{said} (line {token.line}, column {token.column})")

    # --- statements ---------------------------------------------------------------------

    def script(self) -> tuple[Any, ...]:
        statements: list[Any] = []
        while self.peek() is not None:
            if self.is_(";") or self.is_("\n"):
                self.at += 1
                continue
            token = self.peek()
            if statements and isinstance(statements[-1], _Throw):
                raise self.unsupported(token, "has a statement after its throw")
            statement = self.statement()
            if isinstance(statement, _Throw) and not all(isinstance(s, _Local) for s in statements):
                raise self.unsupported(
                    token,
                    "prints or sets variables before it throws a BPMN error (the engine "
                    "it was written for keeps those effects; they are not imitated)",
                )
            statements.append(statement)
            self.end_of_statement()
        return tuple(statements)

    def end_of_statement(self) -> None:
        token = self.peek()
        if token is None:  # MVEL and Groovy need no ';' after the last statement
            if self.dialect == JAVA:
                raise self.unsupported(None, "a Java statement must end with ';'")
            return
        if token.text in (";", "\n"):  # a line break is one only in Groovy (`_tokens`)
            self.at += 1
            return
        raise self.unsupported(token)

    def statement(self) -> Any:
        token = self.peek()
        assert token is not None
        if token.kind != "name":
            raise self.unsupported(token)
        if token.text == "throw" and self.dialect == GROOVY:
            return self.throw()
        if token.text in _CONTROL:
            raise self.unsupported(token)
        words = self.dotted()
        if words in (["System", "out", "println"], ["System", "out", "print"]):
            newline = words[-1] == "println"
            return _Print(self.arguments(0 if newline else 1, 1), newline)
        if self.dialect == GROOVY and words in (["println"], ["print"]):
            if self.is_("("):
                return _Print(self.arguments(0, 1), words[0] == "println")
            ended = self.peek() is None or self.is_(";") or self.is_("\n")
            return _Print(None if ended else self.expression(), words[0] == "println")
        if words == [self.context, "setVariable"]:
            name, value = self.arguments(2, 2)
            return _SetVariable(name, value)
        if len(words) == 1 and words[0] == _LOCAL_TYPE[self.dialect]:
            name = self.take(kind="name")
            if name.text in _KEYWORDS or name.text == self.context:
                raise self.unsupported(name)
            self.take("=")
            return _Local(name.text, self.expression())
        raise self.unsupported(token, self._naming(words))

    def throw(self) -> _Throw:
        """`throw new ...BpmnError("code"[, "message"])`; any other throw is refused."""
        token = self.take("throw")
        if not self.is_("new"):
            raise self.unsupported(token)
        self.at += 1
        words = self.dotted()
        if ".".join(words) not in _BPMN_ERRORS or not self.is_("("):
            raise self.unsupported(token, f"throws {'.'.join(words)}")
        arguments = self.arguments(1, 2)
        return _Throw(arguments[0], arguments[1] if len(arguments) > 1 else None)

    def _naming(self, words: list[str]) -> str:
        said = ".".join(words)
        if self.is_("("):
            return f"calls {said}(...)"
        if self.is_("="):
            return f"assigns {said}"
        return f"uses {said!r}"

    def dotted(self) -> list[str]:
        words = [self.take(kind="name").text]
        while self.is_(".") and (following := self.peek(1)) is not None:
            if following.kind != "name":
                break
            self.at += 1
            words.append(self.take(kind="name").text)
        return words

    def arguments(self, least: int, most: int) -> Any:
        self.take("(")
        found: list[Any] = []
        if not self.is_(")"):
            found.append(self.expression())
            while self.is_(","):
                self.at += 1
                found.append(self.expression())
        closing = self.take(")")
        if not least <= len(found) <= most:
            raise self.unsupported(closing, f"gives {len(found)} arguments")
        if most == 1:
            return found[0] if found else None
        return tuple(found)  # `least` to `most` of them

    # --- expressions --------------------------------------------------------------------

    def expression(self) -> Any:
        parts = [self.term()]
        while self.is_("+"):
            self.at += 1
            while self.is_("\n"):  # Groovy goes on after a line that ends with +
                self.at += 1
            parts.append(self.term())
        return parts[0] if len(parts) == 1 else _Concat(tuple(parts))

    def term(self) -> Any:
        token = self.peek()
        if token is None:
            raise self.unsupported(None, "an expression missing")
        if token.kind == "text":
            self.at += 1
            value: Any = _Literal(_string(token, self.dialect))
        elif token.kind == "number":
            self.at += 1
            value = _Literal(_number(token, self.dialect))
        elif self.is_("("):
            self.at += 1
            value = self.expression()
            self.take(")")
        elif token.kind == "name":
            value = self.named(token)
        else:
            raise self.unsupported(token)
        while self.is_(".") and self.is_("toString", 1) and self.is_("(", 2):
            self.at += 3
            self.take(")")
            value = _ToString(value)
        return value

    def named(self, token: _Token) -> Any:
        if token.text in _KEYWORDS:
            self.at += 1
            return _Literal({"true": True, "false": False, "null": None}[token.text])
        words = self.dotted()
        if words == [self.context, "getVariable"]:
            return _GetVariable(self.arguments(1, 1))
        if len(words) == 1 and not self.is_("("):
            return _Variable(words[0])
        if words[-1] == "toString" and self.is_("(") and self.is_(")", 1):
            self.at -= 2  # `x.toString()`: read by `term`
            return _Variable(words[0]) if len(words) == 2 else self._refuse(token, words)
        return self._refuse(token, words)

    def _refuse(self, token: _Token, words: list[str]) -> Any:
        raise self.unsupported(token, self._naming(words))


def _tokens(text: str, dialect: str) -> list[_Token]:
    found: list[_Token] = []
    line, line_start, at = 1, 0, 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        assert match is not None  # `other` matches any character: refused where it is read
        column = at - line_start + 1
        kind = match.lastgroup or ""
        lexeme = match.group()
        if kind == "newline" and dialect == GROOVY:
            found.append(_Token("symbol", "\n", line, column))
        elif kind not in ("space", "newline"):
            found.append(_Token(kind, lexeme, line, column))
        newlines = lexeme.count("\n")
        if newlines:
            line += newlines
            line_start = at + lexeme.rindex("\n") + 1
        at = match.end()
    return found


def _string(token: _Token, dialect: str) -> str:
    quote, body = token.text[0], token.text[1:-1]
    if quote == "'" and dialect != GROOVY:
        raise UnsupportedScript(
            f"uses a char literal {token.text} (line {token.line}, column {token.column})"
        )
    if quote == '"' and dialect == GROOVY and "$" in body:
        raise UnsupportedScript(
            f"uses a GString with $ in it (line {token.line}, column {token.column}): "
            "write the parts with +"
        )

    def unescape(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] == "u":
            return chr(int(escape.lstrip("u"), 16))
        if escape in _ESCAPES:
            return _ESCAPES[escape]
        raise UnsupportedScript(
            f"uses the escape \\{escape} (line {token.line}, column {token.column})"
        )

    text = _ESCAPE.sub(unescape, body)
    if any("\ud800" <= c <= "\udfff" for c in text):  # Java's text is UTF-16: a pair of
        pairs = text.encode("utf-16-le", "surrogatepass")  # surrogates is one character
        text = pairs.decode("utf-16-le", "surrogatepass")
    return text


def _number(token: _Token, dialect: str) -> int | float:
    text = token.text.rstrip("lLdDfF")
    if "." in text:
        if dialect == GROOVY or token.text[-1] in "fF":
            kind = "BigDecimal" if dialect == GROOVY else "float"
            raise UnsupportedScript(
                f"uses the {kind} {token.text} (line {token.line}, column {token.column}), "
                "which Java writes otherwise than Python"
            )
        return float(text)
    if token.text[-1] in "dDfF":
        raise UnsupportedScript(f"uses the number {token.text} (line {token.line})")
    if len(text) > 1 and text[0] == "0":
        raise UnsupportedScript(f"uses the octal number {token.text} (line {token.line})")
    value = int(text)
    limit = 2**63 if token.text[-1] in "lL" else 2**31
    if value >= limit:
        raise UnsupportedScript(f"uses the number {token.text}, too large (line {token.line})")
    return value


@dataclass(frozen=True)
class JvmScript:
    """A JVM script of prints and variables, parsed once; `run` returns what it set."""

    source: str
    language: str
    dialect: str
    statements: tuple[Any, ...] = field(repr=False, compare=False)
    trusted: bool = False  # nothing in it reaches beyond its variables

    @property
    def sets_variables(self) -> bool:
        return any(isinstance(s, _SetVariable) for s in self.statements)

    @property
    def throws(self) -> bool:
        """Whether it ends by throwing a BPMN error (`BpmnError` from `run`)."""
        return bool(self.statements) and isinstance(self.statements[-1], _Throw)

    def run(self, variables: Mapping[str, Any], printed: list[str] | None = None) -> dict[str, Any]:
        """The variables it set; what it prints goes to `printed` (else nowhere). A script
        that throws a BPMN error raises it (`BpmnError`), having done nothing else."""
        run = _Run(self.dialect, variables)
        for statement in self.statements:
            if isinstance(statement, _Print):
                text = "" if statement.value is None else run.text(run.value(statement.value))
                text += "\n" if statement.newline else ""
                if printed is not None:
                    keep_printed(printed, text)
            elif isinstance(statement, _Throw):
                raise run.bpmn_error(statement)
            elif isinstance(statement, _SetVariable):
                name = run.value(statement.name)
                if not isinstance(name, str):
                    raise ExpressionError(f"setVariable needs a name, not {name!r}")
                run.changes[name] = copy.deepcopy(run.value(statement.value))
            else:
                run.locals[statement.name] = run.local(statement)
        return run.changes


class _Run:
    def __init__(self, dialect: str, variables: Mapping[str, Any]) -> None:
        self.dialect = dialect
        self.variables = variables
        self.locals: dict[str, Any] = {}
        self.changes: dict[str, Any] = {}

    def read(self, name: str) -> Any:
        """A variable by its name, as the script sees it: its locals, then the process's.
        Groovy's binding reads a process variable when asked (what the script set is
        seen); whether jBPM's Java and MVEL see it or the value from before is not
        imitated: such a read is refused."""
        if name in self.locals:
            return self.locals[name]
        if name in self.changes:
            if self.dialect != GROOVY:
                raise ExpressionError(
                    f"reads {name!r} after setting it with setVariable, which is not imitated "
                    f"for {self.dialect}: use kcontext.getVariable({name!r})"
                )
            return self.changes[name]
        return self.variables.get(name, _MISSING)

    def local(self, statement: _Local) -> Any:
        """A local's value; a `String` local (Java, MVEL) must be given text or null."""
        value = self.value(statement.value)
        if self.dialect != GROOVY and value is not None and not isinstance(value, str):
            raise ExpressionError(
                f"String {statement.name} is given {type(value).__name__} {value!r}: "
                f"{self.dialect} does not take it as a String, and what it would do is not "
                "imitated"
            )
        return value

    def get_variable(self, name: Any) -> Any:
        """`getVariable`: the process's variable (what the script set is seen), or null."""
        if not isinstance(name, str):
            raise ExpressionError(f"getVariable needs a name, not {name!r}")
        if name in self.changes:
            return self.changes[name]
        return self.variables.get(name)

    def value(self, node: Any) -> Any:
        if isinstance(node, _Literal):
            return node.value
        if isinstance(node, _Variable):
            found = self.read(node.name)
            if found is _MISSING:
                raise ExpressionError(f"unknown variable {node.name!r}")
            return found
        if isinstance(node, _GetVariable):
            return self.get_variable(self.value(node.name))
        if isinstance(node, _ToString):
            operand = self.value(node.operand)
            if operand is None:
                raise ExpressionError("NullPointerException: toString() of null")
            return self.text(operand)
        assert isinstance(node, _Concat)
        total = self.value(node.parts[0])
        for part in node.parts[1:]:
            right = self.value(part)
            if not isinstance(total, str) and not isinstance(right, str):
                raise ExpressionError(
                    f"{self.dialect} arithmetic ({total!r} + {right!r}) is not imitated here: "
                    "rewrite the script in Python or JavaScript"
                )
            total = self.text(total) + self.text(right)
            if len(total) > MAX_SIZE:
                raise ExpressionError(f"a text longer than {MAX_SIZE:,} characters")
        return total

    def bpmn_error(self, statement: _Throw) -> BpmnError:
        code = self.value(statement.code)
        message = "" if statement.message is None else self.value(statement.message)
        if not isinstance(code, str) or not isinstance(message, str):
            raise ExpressionError(f"BpmnError needs text, not {code!r}, {message!r}")
        return BpmnError(code, message)

    def text(self, value: Any) -> str:
        """`value` as string concatenation and println write it (null as "null")."""
        if value is None:
            if self.dialect == MVEL:
                raise ExpressionError(
                    "MVEL's text of null is not imitated here: give the variable a value"
                )
            return "null"
        return java_text(value, "a value in the script", self.dialect)


_MISSING = object()


def jvm_dialect(script_format: str | None) -> str | None:
    """Java, MVEL or Groovy for a script format naming one, else None."""
    return _DIALECTS.get((script_format or "").strip().lower())


def compile_jvm_script(text: str, script_format: str) -> JvmScript:
    """Parse a Java, MVEL or Groovy script of prints and variables; any other is refused
    (`UnsupportedScript`, naming what it uses)."""
    dialect = jvm_dialect(script_format)
    if dialect is None:
        raise UnsupportedScript(f"script format {script_format!r} is not Java, MVEL or Groovy")
    statements = _Parser(text, dialect).script()
    return JvmScript(text, script_format, dialect, statements)
