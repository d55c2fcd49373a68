"""`Decisions`: DMN files loaded together, their references checked, ready to evaluate.

`load(*paths)` reads every file (`reader.py`), resolves imports and references between them
(an href to nothing, an import of a namespace no file has, a decision that requires itself
are load errors), and `evaluate(name_or_id, inputs)` evaluates one decision or decision
service (`evaluate.py`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bpmn_engine.dmn.evaluate import Evaluation, Graph, Ref
from bpmn_engine.dmn.model import (
    Bkm,
    Context,
    Decision,
    DecisionService,
    DecisionTable,
    DmnDefinitions,
    Expr,
    Filter,
    FunctionDef,
    Invocation,
    Iteration,
    ListExpr,
    Relation,
    Requirements,
    TypeRef,
    Unparsed,
    Where,
)
from bpmn_engine.dmn.reader import Source, compile_sources, read_files
from bpmn_engine.dmn.tables import FIRST_MATCH
from bpmn_engine.dmn.types import NonConforming, conform, instance_of, known
from bpmn_engine.errors import ExpressionError, LoadError, NotFound, UsageError
from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel.types import ITEM_TYPES
from bpmn_engine.expressions.feel.values import (
    FeelError,
    Function,
    Range,
    text,
    to_engine,
    to_feel,
)


@dataclass(frozen=True)
class DecisionResult:
    """A decision's value (FEEL values as Python: Decimal, str, bool, None, date, datetime,
    time, timedelta, YearsMonths, list, dict), the warnings of its evaluation, and `error`:
    why it is None when its evaluation failed. `entries` are the matched rules' outputs by
    output name (a decision table), else one entry {decision name: value}: what Camunda's
    `mapDecisionResult` maps."""

    decision: str
    id: str
    value: Any
    warnings: tuple[str, ...] = ()
    error: str | None = None
    entries: tuple[dict[str, Any], ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        """As JSON: numbers integral are ints, others floats; temporal values and durations
        their FEEL text (`"2026-12-01"`, `"P1Y2M"`); ranges and functions their FEEL text."""
        return {
            "decision": self.decision,
            "id": self.id,
            "value": plain(self.value),
            "entries": [plain(entry) for entry in self.entries],
            "warnings": list(self.warnings),
            "error": self.error,
        }


def plain(value: Any) -> Any:
    """A FEEL value as JSON (what a process variable holds, see docs/feel.md)."""
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, Range | Function):
        return text(value)
    try:
        return to_engine(value)
    except ExpressionError:  # a number beyond a float
        return text(value)


@dataclass(frozen=True)
class Found:
    """A decision or decision service `find` returned."""

    ref: Ref
    name: str
    kind: str  # "decision" or "decisionService"
    where: Where


class Decisions:
    """Decisions and decision services of one or more DMN files."""

    def __init__(self, definitions: list[DmnDefinitions], sources: list[Source]) -> None:
        self.definitions = definitions
        self.sources = sources
        graph = Graph({}, {}, {}, {}, {}, {}, {})
        owner: dict[Ref, str] = {}  # which file defines each element: an id defined twice
        for d in definitions:
            ns = d.namespace
            for table in (d.decisions, d.bkms, d.services, d.inputs):
                for element_id, element in table.items():
                    if (ns, element_id) in owner:
                        raise _error(
                            element.where,
                            f"the id is defined in {owner[ns, element_id]} too, in the same "
                            f"namespace {ns!r}: give each DMN file its own namespace",
                        )
                    owner[ns, element_id] = d.path
            graph.decisions.update({(ns, k): v for k, v in d.decisions.items()})
            graph.bkms.update({(ns, k): v for k, v in d.bkms.items()})
            graph.services.update({(ns, k): v for k, v in d.services.items()})
            graph.inputs.update({(ns, k): v for k, v in d.inputs.items()})
            graph.items.update({(ns, k): v for k, v in d.items.items()})
            graph.imports.setdefault(ns, {}).update({i.name: i.namespace for i in d.imports})
            graph.unnamed[ns] = tuple(i.namespace for i in d.imports if not i.name)
            graph.aliases.update(d.aliases)
        self.graph = graph
        if any(graph.unnamed.values()):
            self._resolve_unnamed()
        self._broken: list[Unparsed] = []  # elements whose references or types do not hold
        self._broken_items: set[tuple[str, str]] = set()
        self._check()

    def _resolve_unnamed(self) -> None:
        """Point each requirement into the models one import with no name merges (DMN 1.5)
        at the element of its id the merged namespace has first: the importer's own, then
        its imports' depth first, whichever model the reference is written in and whether
        its href names a namespace or not (the TCK's 1158 tests read it so)."""
        graph = self.graph
        merged: dict[str, list[str]] = {}  # namespace -> the order of the first merge it is in
        for d in self.definitions:
            order = graph.visible(d.namespace)
            for namespace in order:
                merged.setdefault(namespace, order)
        decisions, inputs, knowledge = (
            (graph.decisions,),
            (graph.inputs,),
            (graph.bkms, graph.services),
        )

        def each(
            home: str, refs: tuple[Ref, ...], tables: tuple[Mapping[Ref, Any], ...]
        ) -> tuple[Ref, ...]:
            return tuple(graph.resolved(ref, merged.get(home, [home]), *tables) for ref in refs)

        def requirements(home: str, requires: Requirements) -> Requirements:
            return Requirements(
                each(home, requires.decisions, decisions),
                each(home, requires.inputs, inputs),
                each(home, requires.knowledge, knowledge),
            )

        for ref, decision in graph.decisions.items():
            graph.decisions[ref] = replace(
                decision, requires=requirements(ref[0], decision.requires)
            )
        for ref, bkm in graph.bkms.items():
            graph.bkms[ref] = replace(bkm, requires=requirements(ref[0], bkm.requires))
        for ref, service in graph.services.items():
            home = ref[0]
            graph.services[ref] = replace(
                service,
                outputs=each(home, service.outputs, decisions),
                encapsulated=each(home, service.encapsulated, decisions),
                input_decisions=each(home, service.input_decisions, decisions),
                input_data=each(home, service.input_data, inputs),
            )

    def unparsed(self) -> list[Unparsed]:
        """Every decision and BKM of the files that did not compile: each fails when
        evaluated (and what requires it), the rest evaluate as written."""
        return [u for d in self.definitions for u in d.unparsed()] + self._broken

    def does_not_compile(self, name_or_id: str) -> LoadError | None:
        """Why the decision (or decision service) asked for cannot be evaluated: its logic,
        or that of a decision or BKM it requires, however deep, does not compile (file, line,
        element); None when all of it compiles."""
        graph = self.graph
        found = self.find(name_or_id)
        todo: list[Ref] = [found.ref]
        seen: set[Ref] = set()
        while todo:
            ref = todo.pop()
            if ref in seen:
                continue
            seen.add(ref)
            element = graph.decisions.get(ref) or graph.bkms.get(ref) or graph.services.get(ref)
            if isinstance(element, DecisionService):
                todo += [*element.outputs, *element.encapsulated, *element.input_decisions]
                continue
            if element is None:
                continue
            logic = element.logic
            if isinstance(logic, Unparsed):
                where = logic.where
                return LoadError(
                    logic.problem,
                    file=where.file,
                    line=where.line or None,
                    element_id=where.id or None,
                )
            todo += [*element.requires.decisions, *element.requires.knowledge]
        return None

    @property
    def paths(self) -> list[str]:
        return [d.path for d in self.definitions]

    def bundle(self) -> bytes:
        """The files as one byte string (to keep in a store): `load_bundle` reads it back."""
        files = [
            {"path": path, "source": base64.b64encode(source).decode("ascii")}
            for path, source in self.sources
        ]
        return json.dumps({"dmn": files}, sort_keys=True).encode("utf-8")

    @property
    def version(self) -> str:
        """The SHA-256 of the files' contents, as a BPMN file's version is."""
        return hashlib.sha256(self.bundle()).hexdigest()

    def _instance_of(self, home: str, name: str, value: Any, assigned: bool) -> bool | None:
        """`value instance of name` for an item definition: the one of the evaluated
        decision's own model, else the only one of that name; None when there is none.
        `assigned`: whether the value may be bound to a parameter of that type, which its
        allowed values decide too."""
        namespace = home
        if (home, name) not in self.graph.items:
            named = [ns for ns, n in self.graph.items if n == name]
            if len(named) != 1:
                return None
            [namespace] = named
        type_ref = TypeRef(name, namespace)
        if not instance_of(value, type_ref, self.graph.item):
            return False
        if assigned:
            try:
                conform(value, type_ref, self.graph.item)
            except NonConforming:
                return False
        return True

    # --- checks at load ---------------------------------------------------------------------
    def _check(self) -> None:
        """References and types hold. What one decision or BKM gets wrong (an unknown type, a
        requirement that is not defined) fails that element alone, as an expression that does
        not compile does (`Unparsed`), and what requires it; a missing import, a decision
        service's or an input data's own reference, or a cycle refuses the model."""
        graph = self.graph
        namespaces = {d.namespace for d in self.definitions}
        for d in self.definitions:
            for imported in d.imports:
                if imported.namespace not in namespaces:
                    raise _error(
                        imported.where,
                        f"imports namespace {imported.namespace!r}, which none of the DMN "
                        "files given has (give the imported file too)",
                    )
        self._broken_items = {
            key for key, item in graph.items.items() if self._problem(item.type_ref)
        }
        broken_inputs = {ref for ref, data in graph.inputs.items() if self._problem(data.type_ref)}
        for ref, decision in list(graph.decisions.items()):
            home = decision.namespace
            try:
                self._refs(
                    decision.where, home, decision.requires.decisions, graph.decisions, "decision"
                )
                self._refs(
                    decision.where, home, decision.requires.inputs, graph.inputs, "input data"
                )
                for required in set(decision.requires.inputs) & broken_inputs:
                    data = graph.inputs[required]
                    problem = self._problem(data.type_ref)
                    raise _error(decision.where, f"requires input data {data.name!r}: {problem}")
                self._knowledge(decision.where, home, decision.requires.knowledge)
                self._types(decision.where, decision.type_ref)
                self._expression_types(decision.logic)
            except LoadError as error:
                if not isinstance(decision.logic, Unparsed):  # else listed for that already
                    graph.decisions[ref] = replace(decision, logic=self._fails(decision, error))
        for ref, bkm in list(graph.bkms.items()):
            try:
                self._knowledge(bkm.where, bkm.namespace, bkm.requires.knowledge)
                self._expression_types(bkm.logic)
            except LoadError as error:
                if not isinstance(bkm.logic, Unparsed):
                    graph.bkms[ref] = replace(bkm, logic=self._fails(bkm, error))
        for service in graph.services.values():
            for refs in (service.outputs, service.encapsulated, service.input_decisions):
                self._refs(service.where, service.namespace, refs, graph.decisions, "decision")
            self._refs(
                service.where, service.namespace, service.input_data, graph.inputs, "input data"
            )
            for required in set(service.input_data) & broken_inputs:
                data = graph.inputs[required]
                raise _error(data.where, str(self._problem(data.type_ref)))
        self._no_cycles()

    def _fails(self, element: Decision | Bkm, error: LoadError) -> Unparsed:
        """The element's logic replaced by the reason it cannot be evaluated."""
        where = element.where
        at = Where(error.file or where.file, error.line or where.line, error.element_id or where.id)
        failed = Unparsed(at, error.message)
        self._broken.append(failed)
        return failed

    def _refs(
        self, where: Where, home: str, refs: Iterable[Ref], table: Mapping[Ref, Any], what: str
    ) -> None:
        for ref in refs:
            if ref not in table:
                raise _error(where, f"requires {what} {_href(ref, home)}, which is not defined")

    def _knowledge(self, where: Where, home: str, refs: Iterable[Ref]) -> None:
        for ref in refs:
            if ref not in self.graph.bkms and ref not in self.graph.services:
                raise _error(
                    where,
                    f"requires knowledge {_href(ref, home)}, which is not a BKM or decision "
                    "service",
                )

    def _problem(self, type_ref: TypeRef | None) -> str | None:
        """What is wrong with a type reference, or None when it names a usable type."""
        if type_ref is None:
            return None
        if not known(type_ref, self.graph.item):
            return f"unknown type {type_ref.name!r} (not a FEEL type or item definition)"
        if (type_ref.namespace, type_ref.name) in self._broken_items:
            item = self.graph.items[type_ref.namespace, type_ref.name or ""]
            base = item.type_ref.name if item.type_ref is not None else None
            return f"type {type_ref.name!r} is defined by an unknown type {base!r}"
        return None

    def _types(self, where: Where, type_ref: TypeRef | None) -> None:
        problem = self._problem(type_ref)
        if problem is not None:
            raise _error(where, problem)

    def _expression_types(self, expression: Expr | None) -> None:
        """Every typeRef inside a boxed expression names a known type."""
        if expression is None:
            return
        self._types(expression.where, expression.type_ref)
        if isinstance(expression, Context):
            for entry in expression.entries:
                self._types(expression.where, entry.type_ref)
                self._expression_types(entry.value)
        elif isinstance(expression, ListExpr):
            for item in expression.items:
                self._expression_types(item)
        elif isinstance(expression, Relation):
            for row in expression.rows:
                for cell in row:
                    self._expression_types(cell)
        elif isinstance(expression, Invocation):
            for _, value in expression.bindings:
                self._expression_types(value)
        elif isinstance(expression, Filter):
            self._expression_types(expression.source)
            self._expression_types(expression.match)
        elif isinstance(expression, Iteration):
            self._expression_types(expression.source)
            self._expression_types(expression.body)
        elif isinstance(expression, FunctionDef):
            for _, type_ref in expression.parameters:
                self._types(expression.where, type_ref)
            self._expression_types(expression.body)
        elif isinstance(expression, DecisionTable):
            for clause in expression.inputs:
                self._types(clause.where, clause.type_ref)
            for output in expression.outputs:
                self._types(output.where, output.type_ref)

    def _no_cycles(self) -> None:
        state: dict[Ref, int] = {}
        for start in self.graph.decisions:
            stack: list[tuple[Ref, int]] = [(start, 0)]
            while stack:
                ref, index = stack.pop()
                if index == 0:
                    if state.get(ref) == 2:
                        continue
                    state[ref] = 1
                required = self.graph.decisions[ref].requires.decisions
                if index < len(required):
                    stack.append((ref, index + 1))
                    nxt = required[index]
                    if state.get(nxt) == 1:
                        decision = self.graph.decisions[nxt]
                        raise _error(decision.where, "the decision requires itself (a cycle)")
                    if state.get(nxt) != 2 and nxt in self.graph.decisions:  # else: failed
                        stack.append((nxt, 0))
                else:
                    state[ref] = 2

    # --- finding ----------------------------------------------------------------------------
    def find(self, name_or_id: str) -> Found:
        """The decision (or decision service) with this id, else this name; UsageError if
        there is none, or several by that name."""
        candidates: list[Found] = []
        for table, kind in (
            (self.graph.decisions, "decision"),
            (self.graph.services, "decisionService"),
        ):
            for ref, element in table.items():
                if ref[1] == name_or_id:
                    return Found(ref, element.name, kind, element.where)
                if element.name == name_or_id:
                    candidates.append(Found(ref, element.name, kind, element.where))
        if len(candidates) == 1:
            return candidates[0]
        # the first file's own, before those of the models it imports (DMN 1.5 lets an
        # import with no name bring in elements whose names its importer has too)
        own = [
            c for c in candidates if self.definitions and c.ref[0] == self.definitions[0].namespace
        ]
        if len(own) == 1:
            return own[0]
        if candidates:
            ids = ", ".join(c.ref[1] for c in candidates)
            raise UsageError(
                f"{len(candidates)} decisions are named {name_or_id!r} (ids: {ids}): give the id"
            )
        known_names = ", ".join(sorted(repr(n) for n in self.names())) or "none"
        raise NotFound(
            f"no decision {name_or_id!r} in {', '.join(self.paths)} (decisions: {known_names})"
        )

    def table(self, name_or_id: str) -> DecisionTable | None:
        """The decision table of a decision, if its logic is one (a decision service's, a
        literal expression's: None)."""
        found = self.find(name_or_id)
        decision = self.graph.decisions.get(found.ref) if found.kind == "decision" else None
        logic = decision.logic if decision is not None else None
        return logic if isinstance(logic, DecisionTable) else None

    def has(self, name_or_id: str) -> bool:
        try:
            self.find(name_or_id)
        except UsageError:
            return False
        return True

    def names(self) -> list[str]:
        return [d.name for d in self.graph.decisions.values()] + [
            s.name for s in self.graph.services.values()
        ]

    # --- evaluating -------------------------------------------------------------------------
    def evaluate(
        self, name_or_id: str, inputs: Mapping[str, Any] | None = None, *, first_match: bool = False
    ) -> DecisionResult:
        """Evaluate a decision (its required decisions first) or a decision service over
        `inputs` (by input data name; ints and floats are read as Decimal). `first_match`:
        UNIQUE and ANY tables take the first matching rule, as SpiffWorkflow reads them."""
        found = self.find(name_or_id)
        values = {
            str(k): to_feel(v) if not _feel_value(v) else v for k, v in (inputs or {}).items()
        }
        evaluation = Evaluation(self.graph, values)
        token = guards.CURRENT.set(guards.Budget())
        first = FIRST_MATCH.set(first_match)
        types = ITEM_TYPES.set(
            lambda name, value, assigned: self._instance_of(found.ref[0], name, value, assigned)
        )
        error: str | None = None
        try:
            if found.kind == "decision":
                value = evaluation.decision(found.ref)
                entries = tuple(evaluation.entries.get(found.ref, ()))
            else:
                service: DecisionService = self.graph.services[found.ref]
                function = evaluation.service_function(service)
                args = [values.get(p) for p in function.parameters]
                value = function.call(*args)
                entries = ({found.name: value},)
            # a value may share its parts (`[l, l]` forty times over is small in memory):
            # written out, as JSON or for a process, it is every path through them
            guards.weigh((value, entries))
        except ExpressionError as failure:
            value, entries, error = None, (), f"{found.name!r}: {failure}"
        except RecursionError:
            value, entries, error = None, (), f"{found.name!r}: invocations nested too deeply"
        except FeelError as failure:  # a decision service's failure
            value, entries, error = None, (), f"{found.name!r}: {failure}"
        finally:
            guards.CURRENT.reset(token)
            FIRST_MATCH.reset(first)
            ITEM_TYPES.reset(types)
        if error is None:
            error = evaluation.failures.get(found.ref)
        warnings = list(evaluation.warnings)
        warnings += [why for ref, why in evaluation.failures.items() if ref != found.ref]
        return DecisionResult(found.name, found.ref[1], value, tuple(warnings), error, entries)


def _feel_value(value: Any) -> bool:
    return type(value).__module__.startswith("bpmn_engine.expressions.feel")


def _href(ref: Ref, home: str) -> str:
    """The reference as an href: `#id` in its own file, `namespace#id` across files."""
    return f"#{ref[1]}" if ref[0] == home else f"{ref[0]}#{ref[1]}"


def _error(where: Where, message: str) -> LoadError:
    return LoadError(message, file=where.file, line=where.line or None, element_id=where.id or None)


def load(*paths: str | Path) -> Decisions:
    """Read DMN 1.1-1.5 files (each may import the others); LoadError names the file, the
    line and the element when one cannot be used."""
    if not paths:
        raise UsageError("no DMN file given")
    sources = read_files(paths)
    return Decisions(compile_sources(sources), sources)


def load_bundle(bundle: bytes, where: str = "the store") -> Decisions:
    """Decisions from `Decisions.bundle()`'s bytes (a set of DMN files kept in a store)."""
    try:
        files = json.loads(bundle.decode("utf-8"))["dmn"]
        sources = [(str(f["path"]), base64.b64decode(f["source"])) for f in files]
    except (ValueError, KeyError, TypeError) as error:
        raise LoadError(f"a set of DMN files kept in {where} cannot be read: {error}") from None
    return Decisions(compile_sources(sources), sources)
