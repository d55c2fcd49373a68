"""The sandboxed Python subset: safe by construction, for conditions and scripts from strangers.

How it works: the text is parsed with `ast`; every node type must be on an allow-list, every
name and attribute starting with "_" is refused (a bare `_` throwaway excepted), and so are the
names of dangerous builtins. The `Rewriter` then turns each operation whose cost or reach
depends on the data into a call of a guard (`guards.py`, `calls.py`): `a.b` reads a dict key,
`f(x)` may only call allow-listed builtins, `s.m(x)` only allow-listed str/list/dict/set
methods, loops and comprehensions charge a step budget, `*`, `**`, `<<`, `+` and slices check
result sizes, and every list, tuple, set and dict that a display, comprehension or call builds
is weighed (`guards.weigh`: items counted through sharing, depth, hash collisions) so that no
single C operation on it can be slow. `compiled.py` compiles the result once and runs it with
`eval`/`exec` against a builtins dict holding only the allow-listed functions, so nothing else
(`__import__`, `open`, `type`, frames, dunders) is reachable. Operations that are constant time
whatever the data (`n < 100000`, `x + 1`, `d["k"]`) stay native, so simple conditions cost what
plain `eval` does.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import calls
from bpmn_engine.expressions.guards import MAX_INT_BITS

_ALLOWED = frozenset(
    {
        *(ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Store, ast.BinOp, ast.UnaryOp),
        *(ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword, ast.Attribute),
        *(ast.Subscript, ast.Slice, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp),
        *(ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.JoinedStr),
        *(ast.FormattedValue, ast.Starred, ast.And, ast.Or, ast.Add, ast.Sub, ast.Mult),
        *(ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.BitOr),
        *(ast.BitXor, ast.BitAnd, ast.Not, ast.UAdd, ast.USub, ast.Invert, ast.Eq, ast.NotEq),
        *(ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn),
    }
)
_STATEMENTS = frozenset(
    {ast.Module, ast.Assign, ast.AugAssign, ast.If, ast.For, ast.While}
    | {ast.Break, ast.Continue, ast.Pass, ast.Expr}
)
FORBIDDEN = {
    ast.Import: "imports",
    ast.ImportFrom: "imports",
    ast.Lambda: "lambda functions",
    ast.FunctionDef: "function definitions",
    ast.AsyncFunctionDef: "function definitions",
    ast.ClassDef: "class definitions",
    ast.With: "'with' statements",
    ast.AsyncWith: "'with' statements",
    ast.Try: "'try' statements",
    ast.TryStar: "'try' statements",
    ast.Raise: "'raise' statements",
    ast.Global: "'global' declarations",
    ast.Nonlocal: "'nonlocal' declarations",
    ast.Yield: "'yield' expressions",
    ast.YieldFrom: "'yield' expressions",
    ast.Await: "'await' expressions",
    ast.AsyncFor: "async loops",
    ast.NamedExpr: "assignment expressions (:=)",
    ast.Delete: "'del' statements",
    ast.Assert: "'assert' statements",
    ast.Match: "'match' statements",
    ast.AnnAssign: "annotated assignments",
}
_DANGEROUS = frozenset(
    {"eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "hasattr", "globals"}
    | {"locals", "vars", "breakpoint", "memoryview", "__import__", "__builtins__"}
)
"""Names refused anywhere. Other builtins that are not allow-listed (type, id, input...) may
still be process variable names, but cannot be called."""
_UNCALLABLE = frozenset(dir(builtins)) - set(calls.SAFE_BUILTINS)
_CHEAP_OPS = (ast.Add, ast.Sub, ast.Div, ast.FloorDiv, ast.BitAnd, ast.BitOr, ast.BitXor)
"""With a numeric constant on one side these are constant-time (or a TypeError)."""
_BIN_GUARDS = {ast.Add: "_add", ast.Mult: "_mul", ast.Pow: "_pow", ast.LShift: "_lshift"}
_SYMBOLS = {
    ast.Sub: "-", ast.Div: "/", ast.FloorDiv: "//", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^", ast.RShift: ">>",
}  # fmt: skip
"""The other operators, run by `guards.guard_binop`."""
_LITERAL_PARTS = (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Load)


def _is_literal(node: ast.AST) -> bool:
    """A display of constants only: as small as its source text, so it needs no weighing."""
    if isinstance(node, ast.Dict) and None in node.keys:
        return False
    return all(isinstance(part, _LITERAL_PARTS) for part in ast.walk(node))


def _is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, bool)


def _is_small_constant(node: ast.AST) -> bool:
    """A constant whose comparison with anything costs O(1)."""
    if isinstance(node, ast.Constant):
        value = node.value
        return (
            value is None
            or type(value) in (int, float, bool)
            or (isinstance(value, str) and len(value) <= 100)
        )
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return len(node.elts) <= 100 and all(_is_small_constant(e) for e in node.elts)
    return False


def _helper(name: str, *args: ast.expr, keywords: list[ast.keyword] | None = None) -> ast.Call:
    return ast.Call(
        func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=keywords or []
    )


def _text(value: str) -> ast.Constant:
    return ast.Constant(value=value)


class Rewriter(ast.NodeTransformer):
    """Validate against the allow-list and route risky operations through the guards."""

    def __init__(self, kind: str, internal: frozenset[str]) -> None:
        self.kind = kind  # "expression" or "script"
        self.internal = internal
        self.helpers: set[str] = set()
        self.names: dict[str, None] = {}  # ordered: scripts report changes in source order
        self.scoped = False  # comprehensions need the variables as globals
        self.temps = 0

    def fail(self, what: str) -> ExpressionError:
        return ExpressionError(f"{what} not allowed in a sandboxed {self.kind}")

    def use(
        self, name: str, *args: ast.expr, keywords: list[ast.keyword] | None = None
    ) -> ast.Call:
        self.helpers.add(name)
        return _helper(name, *args, keywords=keywords)

    def visit(self, node: ast.AST) -> Any:
        kind = type(node)
        if kind in FORBIDDEN:
            raise self.fail(f"{FORBIDDEN[kind]} are")
        if kind not in _ALLOWED and not (self.kind == "script" and kind in _STATEMENTS):
            raise self.fail(f"{kind.__name__} is")
        return super().visit(node)

    # --- names and attributes ---------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> ast.AST:
        name = node.id
        if name in self.internal:
            return node
        if (name.startswith("_") and name != "_") or name in _DANGEROUS:
            raise self.fail(f"{name!r} is")
        self.names[name] = None
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.check_attribute(node.attr)
        if not isinstance(node.ctx, ast.Load):
            raise self.fail("assigning to an attribute inside a target list is")
        return self.use("_attr", self.visit(node.value), _text(node.attr))

    def check_attribute(self, name: str) -> None:
        if name.startswith("_"):
            raise self.fail(f"attribute {name!r} is")
        if name in ("format", "format_map"):
            raise ExpressionError(
                f"str.{name}() is not allowed in a sandboxed {self.kind}; use an f-string"
            )

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if node.value is Ellipsis:
            raise self.fail("'...' is")
        if type(node.value) is int and node.value.bit_length() > MAX_INT_BITS:
            bits = node.value.bit_length()
            raise ExpressionError(
                f"an integer constant of {bits:,} bits is too big in a sandboxed {self.kind} "
                f"(limit {MAX_INT_BITS:,})"
            )
        return node

    # --- displays and comprehensions: weighed when built -----------------------------------
    def built(self, node: ast.expr) -> ast.expr:
        return self.use("_built", node)

    def display(self, node: ast.List | ast.Tuple | ast.Set | ast.Dict) -> ast.AST:
        if isinstance(getattr(node, "ctx", None), ast.Store):  # `a, b = ...`
            return self.generic_visit(node)
        if _is_literal(node):
            for part in ast.walk(node):
                if isinstance(part, ast.Constant):
                    self.visit_Constant(part)
            return node
        return self.built(self.generic_visit(node))

    def visit_List(self, node: ast.List) -> ast.AST:
        return self.display(node)

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        return self.display(node)

    def visit_Set(self, node: ast.Set) -> ast.AST:
        """`{*items}` is hashed in one C call: its items are checked for collisions first."""
        if _is_literal(node):
            return self.display(node)
        elts: list[ast.expr] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                unpacked = self.use("_unpack_hashed", self.visit(elt.value))
                elts.append(ast.Starred(value=unpacked, ctx=ast.Load()))
            else:
                elts.append(self.visit(elt))
        return self.built(ast.Set(elts=elts))

    def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
        return self.built(self.generic_visit(node))

    def visit_SetComp(self, node: ast.SetComp) -> ast.AST:
        return self.built(self.generic_visit(node))

    def visit_DictComp(self, node: ast.DictComp) -> ast.AST:
        return self.built(self.generic_visit(node))

    # --- calls ------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.internal:
            return self.generic_visit(node)
        if isinstance(func, ast.Name) and func.id in _UNCALLABLE:
            raise self.fail(f"{func.id!r} is")
        args = [self.visit(arg) for arg in node.args]
        keywords = [self.visit(keyword) for keyword in node.keywords]
        if isinstance(func, ast.Attribute):
            self.check_attribute(func.attr)
            method = "_method_w" if self.kind == "script" else "_method"
            target = self.visit(func.value)
            return self.use(method, target, _text(func.attr), *args, keywords=keywords)
        return self.use("_call", self.visit(func), *args, keywords=keywords)

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        if node.arg is None:  # **mapping
            return ast.keyword(arg=None, value=self.use("_unpack", self.visit(node.value)))
        if node.arg.startswith("_"):
            raise self.fail(f"keyword {node.arg!r} is")
        return self.generic_visit(node)

    def visit_Starred(self, node: ast.Starred) -> ast.AST:
        if not isinstance(node.ctx, ast.Load):
            raise self.fail("starred assignment targets are")
        return ast.Starred(value=self.use("_unpack", self.visit(node.value)), ctx=node.ctx)

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        if _is_literal(node):
            return self.display(node)
        keys = [None if k is None else self.visit(k) for k in node.keys]
        values = [
            self.use("_unpack", self.visit(v)) if k is None else self.visit(v)
            for k, v in zip(node.keys, node.values, strict=True)
        ]
        return self.built(ast.Dict(keys=keys, values=values))

    # --- operators --------------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        left, right = self.visit(node.left), self.visit(node.right)
        return self.combine(node.op, node.left, node.right, left, right)

    def combine(
        self, op: ast.operator, left_raw: ast.expr, right_raw: ast.expr, left: Any, right: Any
    ) -> ast.expr:
        """`left op right` on rewritten operands; the raw ones tell which are constants."""
        kind = type(op)
        if kind is ast.MatMult:
            raise self.fail("'@' is")
        numeric = _is_number(left_raw) or _is_number(right_raw)
        if (kind in _CHEAP_OPS and numeric) or (kind is ast.Mod and _is_number(left_raw)):
            return ast.BinOp(left=left, op=op, right=right)
        if kind in _BIN_GUARDS:
            return self.use(_BIN_GUARDS[kind], left, right)
        if kind is ast.Mod:
            return self.use("_mod", left, right)
        if kind not in _SYMBOLS:
            raise self.fail(f"{kind.__name__} is")
        return self.use("_binop", _text(_SYMBOLS[kind]), left, right)

    def touch(self, node: ast.expr) -> ast.expr:
        return node if isinstance(node, ast.Constant) else self.use("_touch", node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        operands = [node.left, *node.comparators]
        cheap = True
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            if isinstance(op, (ast.Is, ast.IsNot)):
                continue
            if isinstance(op, (ast.In, ast.NotIn)):
                cheap = cheap and _is_small_constant(right)
            else:
                cheap = cheap and (_is_small_constant(left) or _is_small_constant(right))
        visited = [self.visit(operand) for operand in operands]
        if not cheap:
            visited = [self.touch(operand) for operand in visited]
        return ast.Compare(left=visited[0], ops=node.ops, comparators=visited[1:])

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        value = self.visit(node.value)
        index = node.slice
        if isinstance(index, ast.Slice):
            if not isinstance(node.ctx, ast.Load):
                raise self.fail("assigning to a slice is")
            bounds = [
                ast.Constant(value=None) if part is None else self.visit(part)
                for part in (index.lower, index.upper, index.step)
            ]
            return self.use("_slice", value, *bounds)
        index = self.visit(index)
        if isinstance(node.ctx, ast.Load):
            index = self.touch(index)
        else:  # `x[k] = v` changes x in place: see guards.guard_touch
            value = self.use("_dirty", value)
        return ast.Subscript(value=value, slice=index, ctx=node.ctx)

    # --- f-strings --------------------------------------------------------------------------
    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        parts: list[ast.expr] = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                spec = _text("") if part.format_spec is None else self.visit(part.format_spec)
                conversion = ast.Constant(value=part.conversion)
                parts.append(self.use("_fmt", self.visit(part.value), conversion, spec))
            else:
                parts.append(self.visit(part))
        return self.use("_fstr", *parts)

    # --- loops ------------------------------------------------------------------------------
    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        if node.is_async:
            raise self.fail("async comprehensions are")
        self.scoped = True
        return ast.comprehension(
            target=self.visit(node.target),
            iter=self.use("_iter", self.visit(node.iter)),
            ifs=[self.visit(test) for test in node.ifs],
            is_async=0,
        )

    def visit_For(self, node: ast.For) -> ast.AST:
        node.target = self.visit(node.target)
        node.iter = self.use("_iter", self.visit(node.iter))
        node.body = self.statements(node.body)
        node.orelse = self.statements(node.orelse)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        node.test = self.use("_while", self.visit(node.test))
        node.body = self.statements(node.body)
        node.orelse = self.statements(node.orelse)
        return node

    def statements(self, body: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        for statement in body:
            done = self.visit(statement)
            result.extend(done if isinstance(done, list) else [done])
        return result

    # --- assignments ------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        value = self.visit(node.value)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            target = node.targets[0]
            self.check_attribute(target.attr)
            call = self.use("_setattr", self.visit(target.value), _text(target.attr), value)
            return ast.Expr(value=call)
        targets = [self.visit(target) for target in node.targets]
        return ast.Assign(targets=targets, value=value)

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        """`t op= v` becomes `t = t op v`, with the container and key evaluated once."""
        target = node.target
        prelude: list[ast.stmt] = []
        if isinstance(target, ast.Name):
            self.visit(target)
            load: ast.expr = ast.Name(id=target.id, ctx=ast.Load())
        else:
            self.temps += 1
            holder = f"_aug_{self.temps}"
            container = self.visit(target.value)
            prelude.append(_assign(holder, container))
            if isinstance(target, ast.Attribute):
                self.check_attribute(target.attr)
                key: ast.expr = _text(target.attr)
                load = self.use("_attr", _load(holder), key)
            elif isinstance(target.slice, ast.Slice):
                raise self.fail("assigning to a slice is")
            else:
                prelude.append(_assign(f"{holder}_key", self.visit(target.slice)))
                key = _load(f"{holder}_key")
                load = ast.Subscript(value=_load(holder), slice=key, ctx=ast.Load())
        combined = self.combine(node.op, load, node.value, load, self.visit(node.value))
        if isinstance(target, ast.Name):
            store: ast.stmt = ast.Assign(
                targets=[ast.Name(id=target.id, ctx=ast.Store())], value=combined
            )
        elif isinstance(target, ast.Attribute):
            store = ast.Expr(value=self.use("_setattr", _load(holder), key, combined))
        else:
            container = self.use("_dirty", _load(holder))
            subscript = ast.Subscript(value=container, slice=key, ctx=ast.Store())
            store = ast.Assign(targets=[subscript], value=combined)
        return [*prelude, store]


def _load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)
