"""Evaluating decisions: the decisions they require first, the boxed expressions, BKMs and
decision services as FEEL functions, and the type checks on every named value.

One `Evaluation` per call of `Decisions.evaluate`: it holds the inputs, the results of the
decisions evaluated so far (each decision is evaluated once), the warnings, and the work
budget of the FEEL sandbox, shared by every expression of the evaluation so that a recursive
BKM cannot run for ever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bpmn_engine.dmn.model import (
    Bkm,
    Conditional,
    Context,
    Decision,
    DecisionService,
    DecisionTable,
    Expr,
    Filter,
    FunctionDef,
    InputData,
    Invocation,
    ItemDefinition,
    Iteration,
    ListExpr,
    Literal,
    Relation,
    TypeRef,
    Unparsed,
)
from bpmn_engine.dmn.tables import DecisionFailed, evaluate_table
from bpmn_engine.dmn.types import NonConforming, conform
from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel.functions import BUILTINS
from bpmn_engine.expressions.feel.values import FeelError, Function, kind

MAX_CALL_DEPTH = 64
"""BKMs and decision services invoked inside one another at most this deep."""

Ref = tuple[str, str]  # (namespace, element id)


@dataclass
class Graph:
    """What an evaluation looks things up in: every loaded element by (namespace, id)."""

    decisions: dict[Ref, Decision]
    bkms: dict[Ref, Bkm]
    services: dict[Ref, DecisionService]
    inputs: dict[Ref, InputData]
    items: dict[tuple[str, str], ItemDefinition]
    imports: dict[str, dict[str, str]]  # namespace -> import name -> imported namespace
    aliases: dict[str, str]
    # namespace -> the namespaces it imports with no name (DMN 1.5), in document order
    unnamed: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def visible(self, namespace: str) -> list[str]:
        """Where a name or an `href="#id"` of `namespace` is looked for: its own elements,
        then those of the models it imports with no name, depth first in document order
        (so the first import that has it wins, however deep)."""
        order: list[str] = []
        todo = [namespace]
        while todo:
            current = todo.pop()
            if current not in order:
                order.append(current)
                todo += reversed(self.unnamed.get(current, ()))
        return order

    def resolved(self, ref: Ref, order: list[str], *tables: Mapping[Ref, Any]) -> Ref:
        """The element of `ref`'s id found first along `order` (the namespaces one import
        with no name merges, the importer's first) in one of `tables`; `ref` unchanged when
        its namespace is not among them or no table has it (the check says so)."""
        if ref[0] not in order:
            return ref
        for namespace in order:
            if any((namespace, ref[1]) in table for table in tables):
                return (namespace, ref[1])
        return ref

    def item(self, type_ref: TypeRef) -> ItemDefinition | None:
        if type_ref.name is None:
            return None
        own = self.items.get((type_ref.namespace, type_ref.name))
        if own is not None or not self.unnamed.get(type_ref.namespace):
            return own  # every type check asks: no walk when nothing is imported unnamed
        for namespace in self.visible(type_ref.namespace)[1:]:
            found = self.items.get((namespace, type_ref.name))
            if found is not None:
                return found
        return None

    def import_name(self, home: str, namespace: str) -> str | None:
        """Under which name the definitions `home` know the imported `namespace`."""
        for name, imported in self.imports.get(home, {}).items():
            if imported == namespace:
                return name
        return None


@dataclass
class Evaluation:
    graph: Graph
    inputs: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    results: dict[Ref, Any] = field(default_factory=dict)
    failures: dict[Ref, str] = field(default_factory=dict)
    entries: dict[Ref, list[dict[str, Any]]] = field(default_factory=dict)
    running: set[Ref] = field(default_factory=set)
    depth: int = 0

    # --- names in scope ---------------------------------------------------------------------
    def bind(self, scope: dict[str, Any], name: str, value: Any) -> None:
        scope[name] = value
        alias = self.graph.aliases.get(name)
        if alias:
            scope[alias] = value

    def bind_in(self, scope: dict[str, Any], home: str, ns: str, name: str, value: Any) -> None:
        """A required element's value: by its name, or under its import's name if imported."""
        if ns == home:
            self.bind(scope, name, value)
            return
        prefix = self.graph.import_name(home, ns)
        if not prefix:  # imported with no name (DMN 1.5), or not imported at all: by its name
            self.bind(scope, name, value)
            return
        holder = scope.get(prefix)
        holder = dict(holder) if isinstance(holder, dict) else {}
        holder[name] = value
        alias = self.graph.aliases.get(name)
        if alias:
            holder[alias] = value
        self.bind(scope, prefix, holder)

    def checked(self, value: Any, type_ref: TypeRef | None, what: str) -> Any:
        try:
            return conform(value, type_ref, self.graph.item)
        except NonConforming as error:
            self.warnings.append(f"{what}: {error} (type {type_ref.name}); it is null")
            return None

    # --- decisions --------------------------------------------------------------------------
    def decision(self, ref: Ref) -> Any:
        if ref in self.results:
            return self.results[ref]
        decision = self.graph.decisions[ref]
        self.running.add(ref)
        try:
            # a decision that cannot be evaluated says why before it looks at what it
            # requires (which may be what is missing)
            scope = {} if isinstance(decision.logic, Unparsed) else self.scope_of(decision)
            value, entries = self.logic(decision, scope)
            value = self.checked(value, self.declared(decision), f"decision {decision.name!r}")
        except DecisionFailed as error:
            value, entries = None, []
            self.failures[ref] = f"decision {decision.name!r} ({decision.where}): {error}"
        finally:
            self.running.discard(ref)
        self.results[ref] = value
        self.entries[ref] = entries
        return value

    def declared(self, decision: Decision) -> TypeRef | None:
        """The type the decision's value is checked against. DMN 1.1 modellers wrote the
        first output's FEEL type on a decision whose table has several outputs (the TCK's
        0010-multi-output-U): no context is of such a type, and each output clause is
        checked on its own, so that typeRef is left aside."""
        logic, type_ref = decision.logic, decision.type_ref
        if (
            isinstance(logic, DecisionTable)
            and len(logic.outputs) > 1
            and type_ref is not None
            and self.graph.item(type_ref) is None
            and type_ref.name not in ("context", "Any")
        ):
            return None
        return type_ref

    def logic(self, decision: Decision, scope: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
        logic = decision.logic
        if logic is None:
            raise DecisionFailed("the decision has no decision logic")
        if isinstance(logic, Unparsed):
            raise DecisionFailed(f"it does not compile: {logic.where}: {logic.problem}")
        if isinstance(logic, DecisionTable):
            value, rows = evaluate_table(logic, scope, self.warnings, self.conform)
            entries = [{(k or decision.name): v for k, v in row.items()} for row in rows]
            # the table's own typeRef, as any boxed expression's (`expression`)
            return self.checked(value, logic.type_ref, str(logic.where)), entries
        value = self.expression(logic, scope)
        return value, [{decision.name: value}]

    def conform(self, value: Any, type_ref: TypeRef | None, what: str) -> Any:
        return self.checked(value, type_ref, what)

    def scope_of(self, decision: Decision) -> dict[str, Any]:
        """The inputs (every one given, as Camunda does), the required input data (type
        checked), the required decisions' results and the required knowledge as functions."""
        scope: dict[str, Any] = {}
        for name, value in self.inputs.items():
            self.bind(scope, name, value)
        home = decision.namespace
        for ref in decision.requires.inputs:
            data = self.graph.inputs[ref]
            self.bind_in(scope, home, ref[0], data.name, self.input_value(data))
        for ref in decision.requires.decisions:
            required = self.graph.decisions[ref]
            self.bind_in(scope, home, ref[0], required.name, self.decision(ref))
        self.knowledge(scope, home, decision.requires.knowledge)
        return scope

    def input_value(self, data: InputData) -> Any:
        if data.name not in self.inputs:
            self.warnings.append(f"input {data.name!r} is not given; it is null")
            return None
        return self.checked(self.inputs[data.name], data.type_ref, f"input {data.name!r}")

    def knowledge(self, scope: dict[str, Any], home: str, refs: tuple[Ref, ...]) -> None:
        for ref in refs:
            if ref in self.graph.bkms:
                bkm = self.graph.bkms[ref]
                self.bind_in(scope, home, ref[0], bkm.name, self.bkm_function(bkm))
            else:
                service = self.graph.services[ref]
                self.bind_in(scope, home, ref[0], service.name, self.service_function(service))

    # --- functions: BKMs and decision services ----------------------------------------------
    def bkm_function(self, bkm: Bkm) -> Function:
        """The BKM as a FEEL function; what it requires is bound when it is called (a BKM
        may require itself: recursion)."""
        logic = bkm.logic
        if logic is None:
            return Function(bkm.name, (), lambda *args: None)
        if isinstance(logic, Unparsed):
            problem = f"{bkm.name!r} does not compile: {logic.where}: {logic.problem}"

            def fail(*args: Any) -> Any:
                raise DecisionFailed(problem)

            return Function(bkm.name, (), fail)

        def call(*args: Any) -> Any:
            closure: dict[str, Any] = {}
            self.knowledge(closure, bkm.namespace, bkm.requires.knowledge)
            return self.function(logic, closure, bkm.name).call(*args)

        return Function(bkm.name, tuple(p for p, _ in logic.parameters), call)

    def function(self, definition: FunctionDef, closure: dict[str, Any], name: str) -> Function:
        names = tuple(p for p, _ in definition.parameters)

        def call(*args: Any) -> Any:
            if len(args) > len(names):
                raise FeelError(f"{name} takes {len(names)} arguments, not {len(args)}")
            args = (*args, *[None] * (len(names) - len(args)))
            scope = dict(closure)
            for (parameter, type_ref), value in zip(definition.parameters, args, strict=True):
                self.bind(scope, parameter, self.checked(value, type_ref, f"{name}({parameter})"))
            return self.nested(name, lambda: self.expression(definition.body, scope))

        return Function(name, names, call)

    def nested(self, name: str, run: Any) -> Any:
        """Run an invoked function's body: its failure is the invocation's null."""
        if self.depth >= MAX_CALL_DEPTH:
            raise ExpressionError(f"{name}: invocations nested deeper than {MAX_CALL_DEPTH}")
        self.depth += 1
        try:
            return run()
        except DecisionFailed as error:
            raise FeelError(f"{name}: {error}") from None
        finally:
            self.depth -= 1

    def service_function(self, service: DecisionService) -> Function:
        parameters = [self.graph.decisions[r].name for r in service.input_decisions]
        parameters += [self.graph.inputs[r].name for r in service.input_data]

        def call(*args: Any) -> Any:
            if len(args) > len(parameters):
                raise FeelError(f"{service.name} takes {len(parameters)} arguments")
            args = (*args, *[None] * (len(parameters) - len(args)))
            return self.nested(service.name, lambda: self.service(service, args))

        return Function(service.name, tuple(parameters), call)

    def service(self, service: DecisionService, args: tuple[Any, ...]) -> Any:
        """The service's outputs over its parameters alone, in an evaluation of its own."""
        inner = Evaluation(self.graph, {}, self.warnings, depth=self.depth)
        for ref, value in zip(service.input_decisions, args, strict=False):
            decision = self.graph.decisions[ref]
            inner.results[ref] = inner.checked(value, decision.type_ref, decision.name)
        for ref, value in zip(
            service.input_data, args[len(service.input_decisions) :], strict=False
        ):
            inner.inputs[self.graph.inputs[ref].name] = value
        values = {self.graph.decisions[r].name: inner.decision(r) for r in service.outputs}
        for why in inner.failures.values():
            self.warnings.append(why)
        result = next(iter(values.values())) if len(values) == 1 else values
        # typed as a function item (DMN 1.5), the service returns what its output type allows
        item = self.graph.item(service.type_ref) if service.type_ref is not None else None
        if item is not None and item.output is not None:
            result = self.checked(result, item.output, f"decision service {service.name!r}")
        return result

    # --- boxed expressions ------------------------------------------------------------------
    def expression(self, expression: Expr | None, scope: dict[str, Any]) -> Any:
        if expression is None:
            return None
        if isinstance(expression, Literal):
            value = expression.feel.value(scope, self.warnings) if expression.feel else None
        elif isinstance(expression, DecisionTable):
            value, _ = evaluate_table(expression, scope, self.warnings, self.conform)
        elif isinstance(expression, Context):
            value = self.context(expression, scope)
        elif isinstance(expression, ListExpr):
            value = [self.expression(item, scope) for item in expression.items]
        elif isinstance(expression, Relation):
            types = expression.column_types or (None,) * len(expression.columns)
            value = [
                {
                    c: self.checked(self.expression(cell, scope), t, f"column {c!r}")
                    for c, t, cell in zip(expression.columns, types, row, strict=True)
                }
                for row in expression.rows
            ]
        elif isinstance(expression, Invocation):
            value = self.invocation(expression, scope)
        elif isinstance(expression, FunctionDef):
            value = self.function(expression, scope, "function")
        elif isinstance(expression, Filter):
            value = self.filtered(expression, scope)
        elif isinstance(expression, Iteration):
            value = self.iterated(expression, scope)
        elif isinstance(expression, Unparsed):
            raise DecisionFailed(f"it does not compile: {expression.where}: {expression.problem}")
        elif isinstance(expression, Conditional):
            test = self.expression(expression.test, scope)
            value = self.expression(
                expression.then if test is True else expression.otherwise, scope
            )
        else:  # pragma: no cover - the reader builds only the kinds above
            raise DecisionFailed(f"cannot evaluate a {type(expression).__name__}")
        return self.checked(value, expression.type_ref, str(expression.where))

    def context(self, expression: Context, scope: dict[str, Any]) -> Any:
        inner = dict(scope)
        result: dict[str, Any] = {}
        for entry in expression.entries:
            value = self.expression(entry.value, inner)
            if entry.name is None:
                return value
            value = self.checked(value, entry.type_ref, f"context entry {entry.name!r}")
            self.bind(inner, entry.name, value)
            result[entry.name] = value
        return result

    def items(self, source: Expr, scope: dict[str, Any], where: Any) -> list[Any] | None:
        items = self.expression(source, scope)
        if items is None:
            return None
        if not isinstance(items, list):
            items = [items]  # a single value is a list of one, as FEEL iterates it
        guards.charge(1 + len(items) // guards.ITEMS_PER_STEP)
        return items

    def filtered(self, expression: Filter, scope: dict[str, Any]) -> Any:
        items = self.items(expression.source, scope, expression.where)
        if items is None:
            return None
        kept = []
        for item in items:
            guards.charge(1)
            inner = dict(scope)
            if isinstance(item, dict):
                for key, value in item.items():
                    self.bind(inner, key, value)
            inner["item"] = item
            if self.expression(expression.match, inner) is True:
                kept.append(item)
        return kept

    def iterated(self, expression: Iteration, scope: dict[str, Any]) -> Any:
        items = self.items(expression.source, scope, expression.where)
        if items is None:
            return None
        results = []
        for item in items:
            guards.charge(1)
            inner = dict(scope)
            self.bind(inner, expression.iterator, item)
            results.append(self.expression(expression.body, inner))
        if expression.kind == "for":
            return results
        if expression.kind == "some":
            return (
                True
                if any(r is True for r in results)
                else (False if all(r is False for r in results) else None)
            )
        return (
            False
            if any(r is False for r in results)
            else (True if all(r is True for r in results) else None)
        )

    def invocation(self, expression: Invocation, scope: dict[str, Any]) -> Any:
        target = self.expression(expression.target, scope)
        if not isinstance(target, Function):
            self.warnings.append(
                f"{expression.where}: the invocation calls a {kind(target)}, not a function; "
                "the result is null"
            )
            return None
        types = expression.parameter_types or (None,) * len(expression.bindings)
        named = {
            name: self.checked(self.expression(value, scope), t, f"parameter {name!r}")
            for (name, value), t in zip(expression.bindings, types, strict=True)
        }
        # by name; a built-in's parameter may go by a second name (`position|match`)
        names = [p.split("|") for p in target.parameters]
        unknown = [n for n in named if not any(n in alternatives for alternatives in names)]
        if unknown:
            self.warnings.append(
                f"{expression.where}: {target.name} has no parameter {unknown[0]!r}; "
                "the result is null"
            )
            return None
        given = [next((n for n in alts if n in named), None) for alts in names]
        args = [named[n] if n is not None else None for n in given]
        if BUILTINS.get(target.name) is target:  # a built-in's optional parameters left out
            while args and given[len(args) - 1] is None:
                args.pop()
        try:
            return target.call(*args)
        except FeelError as error:
            self.warnings.append(f"{expression.where}: {error}; the result is null")
            return None
