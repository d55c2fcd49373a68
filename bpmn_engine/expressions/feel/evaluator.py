"""A parsed FEEL tree compiled once into a tree of Python closures, so evaluating is cheap.

Each closure takes an `Env` (the variables in scope) and returns a FEEL value. An operation the
spec leaves undefined (`"a" + 1`, a missing variable) yields null and adds a warning to the
evaluation; exceeding the sandbox's bounds (`guards.py`) raises ExpressionError instead.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from typing import Any

from lark import Token, Tree

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel import operators, properties
from bpmn_engine.expressions.feel.functions import BUILTINS, call_function
from bpmn_engine.expressions.feel.types import NOT_CONFORMING, type_check, typed_parameter
from bpmn_engine.expressions.feel.values import (
    D128,
    FeelError,
    Function,
    Range,
    compare,
    equal,
    kind,
    parse_temporal,
    to_feel,
    unquote,
)

Closure = Callable[["Env"], Any]
Test = Callable[["Env", Any], Any]
_MISSING = object()
INPUT = "?"
"""The name the unary tests' input value is bound to."""
SIMPLE = frozenset(
    {"number", "string", "true", "false", "null", "var", "path", "compare", "and_expr"}
    | {"or_expr", "if_expr", "neg", "temporal", "between", "instance_of", "sub", "div"}
)
"""Nodes that loop over nothing and build nothing: an expression of only these runs with no
work budget, like the sandbox's simple conditions."""


class Env:
    """Names in scope: the engine's variables at the root, FEEL values in nested scopes."""

    __slots__ = ("parent", "values", "variables", "warnings")

    def __init__(
        self, values: dict[str, Any], parent: Env | None, variables: Mapping[str, Any] = {}
    ) -> None:
        self.values = values
        self.parent = parent
        self.variables = variables
        self.warnings: list[str] = parent.warnings if parent is not None else []

    def child(self, values: dict[str, Any]) -> Env:
        return Env(values, self)

    def get(self, name: str) -> Any:
        value = self.find(name)
        if value is _MISSING:
            self.warn(f"unknown variable {name!r}")
            return None
        return value

    def find(self, name: str) -> Any:
        """The value of a name, or _MISSING (no warning: `is defined` asks this)."""
        env: Env | None = self
        while env is not None:
            if name in env.values:
                return env.values[name]
            if env.parent is None:
                value = env.variables.get(name, _MISSING)
                if value is not _MISSING:
                    return to_feel(value)
            env = env.parent
        return _MISSING

    def warn(self, message: str) -> None:
        if len(self.warnings) < 20:
            self.warnings.append(message)


def _safely(operation: Callable[..., Any], env: Env, *args: Any) -> Any:
    """Run an operation; the spec's errors become null plus a warning."""
    try:
        return operation(*args)
    except FeelError as error:
        env.warn(str(error))
    except decimal.DivisionByZero:
        env.warn("division by zero")
    except (decimal.Overflow, OverflowError):
        env.warn("the number is out of range (FEEL numbers are decimal128)")
    except decimal.DecimalException:
        env.warn("the arithmetic has no defined result")
    except ValueError as error:
        env.warn(str(error) or "invalid value")
    return None


def _truth(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def iterate(value: Any) -> list[Any]:
    """What `for`, `some`, `every` and filters run over: a list, or one value as a list."""
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def _numbers(low: Any, high: Any) -> Iterator[Decimal]:
    if not (isinstance(low, Decimal) and isinstance(high, Decimal)):
        raise FeelError("a range to iterate over needs two whole numbers")
    if low != low.to_integral_value() or high != high.to_integral_value():
        raise FeelError("a range to iterate over needs two whole numbers")
    if abs(high - low) >= guards.MAX_ITEMS:
        raise guards.too_many_items()
    step = 1 if high >= low else -1
    return (Decimal(i) for i in range(int(low), int(high) + step, step))


class Compiler:
    """Walks the lark tree once; remembers whether any node needs the work budget."""

    def __init__(self) -> None:
        self.budgeted = False
        self.local: list[set[str]] = [set()]

    def build(self, node: Tree | Token) -> Closure:
        if isinstance(node, Token):
            raise ExpressionError(f"FEEL: unexpected {node!s}")
        rule = node.data if isinstance(node.data, str) else node.data.value
        if rule not in SIMPLE:
            self.budgeted = True
        method = getattr(self, f"n_{rule}", None)
        if method is None:
            raise ExpressionError(f"FEEL: {rule} is not supported here")
        return method(*node.children)

    # --- literals and names ------------------------------------------------------------------
    def n_start(self, inner: Tree) -> Closure:
        return self.build(inner)

    def n_number(self, token: Token) -> Closure:
        value = D128.create_decimal(str(token))  # a longer literal rounds to 34 digits
        return lambda env: value

    def n_string(self, token: Token) -> Closure:
        value = unquote(str(token))
        return lambda env: value

    def n_true(self) -> Closure:
        return lambda env: True

    def n_false(self) -> Closure:
        return lambda env: False

    def n_null(self) -> Closure:
        return lambda env: None

    def n_temporal(self, token: Token) -> Closure:
        try:
            value = parse_temporal(unquote(str(token)[1:]))
        except FeelError as error:
            raise ExpressionError(f"FEEL: {error}") from None
        return lambda env: value

    def name(self, node: Tree) -> str:
        text = str(node.children[0])
        if text.startswith("_"):
            raise ExpressionError(f"FEEL: names starting with '_' are not allowed ({text!r})")
        return text

    def bound(self, name: str) -> bool:
        return any(name in names for names in self.local)

    def n_var(self, node: Tree) -> Closure:
        name = self.name(node)
        if name in BUILTINS and not self.bound(name):
            function = BUILTINS[name]
            return lambda env: function
        return lambda env: env.get(name)

    def n_input_value(self) -> Closure:
        return lambda env: env.get(INPUT)

    # --- logic and comparison ----------------------------------------------------------------
    def n_and_expr(self, left: Tree, right: Tree) -> Closure:
        first, second = self.build(left), self.build(right)

        def conjunction(env: Env) -> bool | None:
            a = _truth(first(env))
            if a is False:
                return False
            b = _truth(second(env))
            if b is False:
                return False
            return True if a and b else None

        return conjunction

    def n_or_expr(self, left: Tree, right: Tree) -> Closure:
        first, second = self.build(left), self.build(right)

        def disjunction(env: Env) -> bool | None:
            a = _truth(first(env))
            if a is True:
                return True
            b = _truth(second(env))
            if b is True:
                return True
            return False if a is False and b is False else None

        return disjunction

    def n_compare(self, left: Tree, op: Token, right: Tree) -> Closure:
        first, second = self.build(left), self.build(right)
        return _comparison(first, str(op), second)

    def n_between(self, value: Tree, low: Tree, high: Tree) -> Closure:
        get, lo, hi = self.build(value), self.build(low), self.build(high)

        def between(env: Env) -> bool | None:
            v = get(env)
            a, b = compare(lo(env), v), compare(v, hi(env))
            if a is None or b is None:
                env.warn("between needs values of one ordered kind")
                return None
            return a <= 0 and b <= 0

        return between

    def n_instance_of(self, value: Tree, wanted: Tree) -> Closure:
        get, check = self.build(value), type_check(wanted)
        return lambda env: _safely(check, env, get(env))  # an item type may be unknown

    def n_if_expr(self, test: Tree, then: Tree, otherwise: Tree) -> Closure:
        condition, yes, no = self.build(test), self.build(then), self.build(otherwise)
        return lambda env: yes(env) if condition(env) is True else no(env)

    # --- arithmetic --------------------------------------------------------------------------
    def _binary(self, operation: Callable[[Any, Any], Any], left: Tree, right: Tree) -> Closure:
        first, second = self.build(left), self.build(right)
        return lambda env: _safely(operation, env, first(env), second(env))

    def n_add(self, left: Tree, right: Tree) -> Closure:
        return self._binary(operators.add, left, right)

    def n_sub(self, left: Tree, right: Tree) -> Closure:
        return self._binary(operators.subtract, left, right)

    def n_mul(self, left: Tree, right: Tree) -> Closure:
        return self._binary(operators.multiply, left, right)

    def n_div(self, left: Tree, right: Tree) -> Closure:
        return self._binary(operators.divide, left, right)

    def n_pow(self, left: Tree, right: Tree) -> Closure:
        return self._binary(operators.power, left, right)

    def n_neg(self, operand: Tree) -> Closure:
        get = self.build(operand)
        return lambda env: _safely(operators.negate, env, get(env))

    # --- collections -------------------------------------------------------------------------
    def n_list(self, *items: Tree | None) -> Closure:
        parts = [self.build(item) for item in items if item is not None]

        def make(env: Env) -> list[Any]:
            guards.charge(1 + len(parts) // guards.ITEMS_PER_STEP)
            return [part(env) for part in parts]

        return make

    def n_context(self, *entries: Tree | None) -> Closure:
        built: list[tuple[str, Closure]] = []
        names: set[str] = set()
        self.local.append(names)
        for entry in entries:
            if entry is None:
                continue
            key_node, value_node = entry.children
            key = unquote(str(key_node)) if isinstance(key_node, Token) else self.name(key_node)
            if key in names:
                raise ExpressionError(f"FEEL: the context has two entries named {key!r}")
            built.append((key, self.build(value_node)))
            names.add(key)
        self.local.pop()

        def make(env: Env) -> dict[str, Any]:
            guards.charge(1 + len(built) // guards.ITEMS_PER_STEP)
            values: dict[str, Any] = {}
            inner = env.child(values)
            for key, get in built:
                values[key] = get(inner)
            return dict(values)

        return make

    def _interval(self, low: Tree, high: Tree, closed_low: bool, closed_high: bool) -> Closure:
        lo, hi = self.build(low), self.build(high)

        def make(env: Env) -> Range | None:
            a, b = lo(env), hi(env)
            if a is not None and b is not None and compare(a, b) is None:
                env.warn(f"a range from a {kind(a)} to a {kind(b)}")
                return None
            return Range(a, b, closed_low, closed_high)

        return make

    # the `]` that opens `]1..10]` and the `[` that closes `[1..10[` are tokens of their own
    # (OPEN_START, OPEN_END in the grammar) beside the two ends: only the ends are built
    def n_interval_cc(self, low: Tree, high: Tree) -> Closure:
        return self._interval(low, high, True, True)

    def n_interval_co(self, low: Tree, high: Tree, *_: Token) -> Closure:
        return self._interval(low, high, True, False)

    def n_interval_oc(self, *ends: Tree | Token) -> Closure:
        low, high = [end for end in ends if isinstance(end, Tree)]
        return self._interval(low, high, False, True)

    def n_interval_oo(self, *ends: Tree | Token) -> Closure:
        low, high = [end for end in ends if isinstance(end, Tree)]
        return self._interval(low, high, False, False)

    def n_unary_range(self, op: Token, operand: Tree) -> Closure:
        """`< 10`, `>= 5`, `= 3` where a value is expected (DMN 1.5): the range of what
        passes the comparison; `!= 3` is the TCK's range from 3 to 3 with neither end."""
        get, symbol = self.build(operand), str(op)

        def make(env: Env) -> Range | None:
            point = get(env)
            if point is None or compare(point, point) is None:
                env.warn(f"a unary comparison needs an ordered value, not a {kind(point)}")
                return None
            if symbol in ("=", "!="):
                return Range(point, point, symbol == "=", symbol == "=")
            if symbol in ("<", "<="):
                return Range(None, point, False, symbol == "<=")
            return Range(point, None, symbol == ">=", False)

        return make

    def n_compare_range(self, left: Tree, op: Token, unary: Token, operand: Tree) -> Closure:
        """`x = >= 2`: x compared with the range the unary comparison stands for. Only
        equality, with an ordering comparison: `x == 1` and `x > > 1` stay syntax errors."""
        if str(op) not in ("=", "!=") or str(unary) in ("=", "!="):
            raise ExpressionError(
                f"FEEL syntax error at line {unary.line}, column {unary.column}: "
                f"unexpected {str(unary)!r}"
            )
        return _comparison(self.build(left), str(op), self.n_unary_range(unary, operand))

    def n_path(self, target: Tree, name: Token) -> Closure:
        get, key = self.build(target), str(name)
        if key.startswith("_"):
            raise ExpressionError(f"FEEL: names starting with '_' are not allowed ({key!r})")
        return lambda env: properties.member(env, get(env), key)

    def n_filter(self, target: Tree, condition: Tree) -> Closure:
        get = self.build(target)
        literal = condition.children[0] if condition.data == "neg" else condition
        if literal.data == "number":  # xs[2], xs[-1]: an index, even into an empty list
            position = self.build(condition)

            def index(env: Env) -> Any:
                items = get(env)
                return None if items is None else _index(env, iterate(items), position(env))

            return index
        self.local.append({"item"})
        test = self.build(condition)
        self.local.pop()

        def select(env: Env) -> Any:
            items = get(env)
            if items is None:
                return None
            items = iterate(items)
            kept: list[Any] = []
            for position, item in enumerate(items):
                guards.charge(1)
                # a context's entries are in scope, and shadow `item` (as the DMN TCK
                # reads `[{item: 1}, {item: 2}][item > 1]`)
                scope = {"item": item, **item} if isinstance(item, dict) else {"item": item}
                verdict = test(env.child(scope))
                if position == 0 and isinstance(verdict, Decimal):
                    return _index(env, items, verdict)
                if verdict is True:
                    kept.append(item)
            return kept

        return select

    # --- iteration ---------------------------------------------------------------------------
    def _iterations(self, nodes: tuple[Tree, ...]) -> list[tuple[str, Closure, Closure | None]]:
        steps: list[tuple[str, Closure, Closure | None]] = []
        for node in nodes:
            name_node, start, end = node.children
            name = self.name(name_node)
            first = self.build(start)
            last = self.build(end) if end is not None else None
            steps.append((name, first, last))
            self.local.append({name})
        return steps

    def _bindings(self, env: Env, steps: list[tuple[str, Closure, Closure | None]]) -> Any:
        """Every combination of the iteration variables, as nested scopes (a cartesian product)."""

        def walk(scope: Env, index: int) -> Iterator[Env]:
            if index == len(steps):
                yield scope
                return
            name, first, last = steps[index]
            if last is None:
                values: Any = iterate(first(scope))
            else:
                values = _numbers(first(scope), last(scope))
            for value in values:
                guards.charge(1)
                yield from walk(scope.child({name: value}), index + 1)

        return walk(env, 0)

    def _quantified(self, *children: Tree, every: bool) -> Closure:
        steps = self._iterations(children[:-1])
        test = self.build(children[-1])
        del self.local[-len(steps) :]

        def quantify(env: Env) -> bool | None:
            try:
                for scope in self._bindings(env, steps):
                    if (test(scope) is True) != every:
                        return not every
            except FeelError as error:
                env.warn(str(error))
                return None
            return every

        return quantify

    def n_some_expr(self, *children: Tree) -> Closure:
        return self._quantified(*children, every=False)

    def n_every_expr(self, *children: Tree) -> Closure:
        return self._quantified(*children, every=True)

    def n_for_expr(self, *children: Tree) -> Closure:
        steps = self._iterations(children[:-1])
        self.local.append({"partial"})
        body = self.build(children[-1])
        del self.local[-len(steps) - 1 :]

        def collect(env: Env) -> list[Any] | None:
            results: list[Any] = []
            try:
                for scope in self._bindings(env, steps):
                    results.append(body(scope.child({"partial": results})))
                    if len(results) > guards.MAX_ITEMS:
                        raise guards.too_many_items()
            except FeelError as error:
                env.warn(str(error))
                return None
            return results

        return collect

    # --- functions ---------------------------------------------------------------------------
    def n_function_def(self, parameters: Tree | None, body: Tree) -> Closure:
        declared = parameters.children if parameters else []
        names = tuple(self.name(p.children[0]) for p in declared)
        if len(set(names)) != len(names):
            raise ExpressionError("FEEL: a function has two parameters with the same name")
        typed = [(i, typed_parameter(p.children[1])) for i, p in enumerate(declared)]
        typed = [(i, t) for i, t in typed if t is not None]
        self.local.append(set(names))
        run = self.build(body)
        self.local.pop()

        def define(env: Env) -> Function:
            def call(*args: Any) -> Any:
                guards.charge(1)
                if typed:  # DMN 1.5 10.3.2.13.2: conformed, else the invocation is null
                    given = list(args)
                    for index, conform in typed:
                        given[index] = conform(given[index])
                        if given[index] is NOT_CONFORMING:
                            env.warn(f"argument {names[index]!r} does not conform to its type")
                            return None
                    args = tuple(given)
                return run(env.child(dict(zip(names, args, strict=True))))

            return Function("function", names, call)

        return define

    def n_external_function(self, parameters: Tree | None, body: Tree) -> Closure:
        raise ExpressionError(
            "FEEL: external functions (Java or PMML) are not supported: define the function "
            "in FEEL, or as a business knowledge model"
        )

    def defined(self, node: Tree) -> Closure | None:
        """`is defined(x)` / `is defined(a.b)`: whether the name or entry exists, even if
        null; None for other arguments, which are then just checked for null."""
        if node.data == "var":
            name = self.name(node.children[0])
            return lambda env: env.find(name) is not _MISSING
        if node.data == "path":
            inner = self.defined(node.children[0])
            get, key = self.build(node.children[0]), str(node.children[1])
            if inner is None:
                return None
            return lambda env: inner(env) and isinstance(value := get(env), dict) and key in value
        return None

    def n_call(self, target: Tree, arguments: Tree | None) -> Closure:
        if (
            target.data == "var"
            and str(target.children[0].children[0]) == "is defined"
            and not self.bound("is defined")
            and arguments is not None
            and arguments.data == "positional"
            and len(arguments.children) == 1
        ):
            probe = self.defined(arguments.children[0])
            if probe is not None:
                return probe
        get = self.build(target)
        if arguments is None:
            positional: list[Closure] = []
            named: list[tuple[str, Closure]] = []
        elif arguments.data == "positional":
            positional, named = [self.build(a) for a in arguments.children], []
        else:
            positional = []
            named = [
                (self.name(a.children[0]), self.build(a.children[1])) for a in arguments.children
            ]

        def invoke(env: Env) -> Any:
            function = get(env)
            if not isinstance(function, Function):
                env.warn(f"cannot call a {kind(function)}")
                return None
            guards.charge(1)
            args = [a(env) for a in positional]
            kwargs = {key: a(env) for key, a in named}
            return _safely(call_function, env, function, args, kwargs)

        return invoke

    # --- unary tests and `in` ----------------------------------------------------------------
    def test(self, node: Tree) -> Test:
        """A positive unary test as a predicate on an input value (bound to `?` meanwhile)."""
        rule = node.data
        if rule in ("compare_test", "unary_range"):  # `x in (!= 3)` tests, as a cell does
            op, operand = node.children
            get = self.build(operand)
            compare_to = _comparison(lambda env: env.get(INPUT), str(op), get)
            return lambda env, value: compare_to(env.child({INPUT: value}))
        if rule == "test_list":
            tests = [self.test(child) for child in node.children]
            return lambda env, value: _any(test(env, value) for test in tests)
        if rule == "in_target":
            return self.test(node.children[0])
        if rule == "not_call":
            inner = self.tests(node.children[0])
            return lambda env, value: _not(inner(env, value))
        get = self.build(node)
        return lambda env, value: _matches(env, value, get(env.child({INPUT: value})))

    def tests(self, node: Tree) -> Test:
        tests = [self.test(child) for child in node.children]
        return lambda env, value: _any(test(env, value) for test in tests)

    def n_in_expr(self, value: Tree, target: Tree) -> Closure:
        get, test = self.build(value), self.test(target)
        return lambda env: test(env, get(env))

    def n_not_call(self, tests: Tree) -> Closure:
        if len(tests.children) == 1 and tests.children[0].data not in ("compare_test",):
            operand = self.build(tests.children[0])

            def negation(env: Env) -> bool | None:
                value = operand(env)
                if isinstance(value, bool):
                    return not value
                if isinstance(value, Range) or (value is not None and INPUT in _names(env)):
                    return _not(_matches(env, env.get(INPUT), value))
                return None

            return negation
        inner = self.tests(tests)
        return lambda env: _not(inner(env, env.get(INPUT)))

    def n_any_input(self) -> Closure:
        return lambda env: True

    def n_unary_tests(self, tests: Tree) -> Closure:
        inner = self.tests(tests)
        return lambda env: inner(env, env.get(INPUT))


def _names(env: Env) -> set[str]:
    names: set[str] = set()
    scope: Env | None = env
    while scope is not None:
        names.update(scope.values)
        scope = scope.parent
    return names


def _comparison(first: Closure, op: str, second: Closure) -> Closure:
    if op == "=":
        return lambda env: equal(first(env), second(env))
    if op == "!=":
        return lambda env: _not(equal(first(env), second(env)))
    check = {"<": lambda c: c < 0, "<=": lambda c: c <= 0, ">": lambda c: c > 0}
    check[">="] = lambda c: c >= 0
    holds = check[op]

    def ordered(env: Env) -> bool | None:
        a, b = first(env), second(env)
        order = compare(a, b)
        if order is None:
            if a is not None and b is not None:
                env.warn(f"cannot compare a {kind(a)} with a {kind(b)}")
            return None
        return holds(order)

    return ordered


def _not(value: Any) -> bool | None:
    return (not value) if isinstance(value, bool) else None


def _any(results: Iterator[Any]) -> bool | None:
    unknown = False
    for result in results:
        if result is True:
            return True
        if result is not False:
            unknown = True
    return None if unknown else False


def _matches(env: Env, value: Any, expected: Any) -> bool | None:
    """Whether an input satisfies a test's value: in its range or list, equal, or true."""
    if isinstance(expected, Range):
        return expected.holds(value)
    if isinstance(expected, list):  # each item a test: a range holds it, else equal to it
        return any(
            (item.holds(value) if isinstance(item, Range) else equal(value, item)) is True
            for item in expected
        )
    if isinstance(expected, bool) and not isinstance(value, bool):
        return expected
    return equal(value, expected)


def _index(env: Env, items: list[Any], position: Decimal) -> Any:
    if position != position.to_integral_value():
        env.warn("a list index must be a whole number")
        return None
    index = int(position)
    if 0 < index <= len(items):
        return items[index - 1]
    if index < 0 and -index <= len(items):
        return items[index]
    return None
