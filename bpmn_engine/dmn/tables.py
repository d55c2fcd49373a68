"""Decision tables: which rules match, and what the hit policy makes of them (DMN 8.2.11).

Single hit: UNIQUE (more than one match is an error), ANY (matches must agree), FIRST (rule
order), PRIORITY (by the order of the output values). Multiple hits: COLLECT (rule order; with
SUM, MIN, MAX or COUNT one value), RULE ORDER, OUTPUT ORDER (by the output values' order).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from bpmn_engine.dmn.model import DecisionTable, OutputClause, Rule
from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel.functions import lists
from bpmn_engine.expressions.feel.values import FeelError, equal, text

Conform = Callable[[Any, Any, str], Any]

FIRST_MATCH: ContextVar[bool] = ContextVar("FIRST_MATCH", default=False)
"""SpiffWorkflow's reading of a single-hit table (`Decisions.evaluate(first_match=True)`):
UNIQUE and ANY take the first matching rule in rule order, where DMN fails the decision."""


class DecisionFailed(ExpressionError):
    """The decision has no value (a hit policy violated, a value not allowed, its logic
    does not compile): why. An `ExpressionError`, so that raised inside a FEEL evaluation
    (a BKM that does not compile, invoked) it reaches the decision as it is."""


def _shown(value: Any) -> str:
    shown = f'"{value}"' if isinstance(value, str) else text(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _rule_name(table: DecisionTable, rule: Rule) -> str:
    return (
        f"rule {table.rules.index(rule) + 1} ({rule.where.id})"
        if rule.where.id
        else (f"rule {table.rules.index(rule) + 1}")
    )


def evaluate_table(
    table: DecisionTable,
    scope: dict[str, Any],
    warnings: list[str],
    conform: Conform,
) -> tuple[Any, list[dict[str, Any]]]:
    """(the table's value, the matched rules' outputs by name) over the variables `scope`."""
    tests_scope = dict(scope)
    values = []
    for clause in table.inputs:
        value = conform(clause.expression.value(scope, warnings), clause.type_ref, clause.label)
        if (
            clause.allowed is not None
            and value is not None
            and not clause.allowed.test(value, scope, warnings)
        ):
            # DMN 1.5 (and the TCK's 1157 tests): the input is null, the table goes on
            warnings.append(
                f"input {clause.label!r} is {_shown(value)}, not one of its input values "
                f"({clause.allowed.source}): it is null"
            )
            value = None
        values.append(value)
    matched: list[Rule] = []
    for rule in table.rules:
        guards.charge(1)  # the work budget bounds a table of any size
        ok = True
        for clause, test, value in zip(table.inputs, rule.inputs, values, strict=True):
            tests_scope[clause.variable] = value
            if not test.test(value, tests_scope, warnings):
                ok = False
                break
        if ok:
            matched.append(rule)
    hits = [(rule, _outputs(table, rule, scope, warnings, conform)) for rule in matched]
    return _apply_policy(table, hits, scope, warnings, conform)


def _outputs(
    table: DecisionTable,
    rule: Rule,
    scope: dict[str, Any],
    warnings: list[str],
    conform: Conform,
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    types = rule.output_types or (None,) * len(rule.outputs)
    for clause, entry, own in zip(table.outputs, rule.outputs, types, strict=True):
        value = entry.value(scope, warnings) if entry is not None else None
        if own is not None:  # the entry's own typeRef, then its clause's
            value = conform(value, own, clause.name or "output")
        results[clause.name] = _checked(clause, value, scope, warnings, conform, rule, table)
    return results


def _checked(
    clause: OutputClause,
    value: Any,
    scope: dict[str, Any],
    warnings: list[str],
    conform: Conform,
    rule: Rule | None,
    table: DecisionTable,
) -> Any:
    value = conform(value, clause.type_ref, clause.name or "output")
    if (
        clause.allowed is not None
        and value is not None
        and not clause.allowed.test(value, scope, warnings)
    ):
        where = _rule_name(table, rule) if rule is not None else "the default output"
        warnings.append(  # DMN 1.5: that output is null, the others stand
            f"{where} gives {clause.name or 'the output'} {_shown(value)}, not one of its "
            f"output values ({clause.allowed.source}): it is null"
        )
        return None
    return value


def _shape(table: DecisionTable, outputs: dict[str, Any]) -> Any:
    """One rule's result: the value of a single output, else a context of all of them."""
    if len(table.outputs) == 1:
        return next(iter(outputs.values()))
    return dict(outputs)


def _priority(table: DecisionTable, outputs: dict[str, Any]) -> tuple[int, ...]:
    """Lower is first: each output's value's position among its output values."""
    key = []
    for clause in table.outputs:
        if not clause.priorities:
            continue
        value = outputs[clause.name]
        position = len(clause.priorities)
        for index, test in enumerate(clause.priorities):
            if value is not None and test.test(value, {}, []):
                position = index
                break
        key.append(position)
    return tuple(key)


def _apply_policy(
    table: DecisionTable,
    hits: list[tuple[Rule, dict[str, Any]]],
    scope: dict[str, Any],
    warnings: list[str],
    conform: Conform,
) -> tuple[Any, list[dict[str, Any]]]:
    policy = table.hit_policy
    if policy in ("UNIQUE", "ANY", "FIRST", "PRIORITY"):
        if not hits:
            return _defaults(table, scope, warnings, conform)
        if FIRST_MATCH.get() and policy in ("UNIQUE", "ANY"):
            return _shape(table, hits[0][1]), [hits[0][1]]
        if policy == "UNIQUE" and len(hits) > 1:
            names = ", ".join(_rule_name(table, rule) for rule, _ in hits)
            raise DecisionFailed(f"hit policy UNIQUE, but {len(hits)} rules match: {names}")
        if policy == "ANY":
            first = hits[0][1]
            for rule, outputs in hits[1:]:
                if not all(equal(first[k], outputs[k]) is True for k in first):
                    raise DecisionFailed(
                        f"hit policy ANY, but {_rule_name(table, hits[0][0])} and "
                        f"{_rule_name(table, rule)} match with different outputs"
                    )
        chosen = hits[0][1]
        if policy == "PRIORITY":
            chosen = min(hits, key=lambda hit: _priority(table, hit[1]))[1]
        return _shape(table, chosen), [chosen]
    if policy == "OUTPUT ORDER":
        hits = sorted(hits, key=lambda hit: _priority(table, hit[1]))
    results = [outputs for _, outputs in hits]
    if table.aggregation is None:
        return [_shape(table, outputs) for outputs in results], results
    name = table.outputs[0].name
    values = [outputs[name] for outputs in results if outputs[name] is not None]
    value = _aggregate(table.aggregation, values)
    return value, [{name: value}]


def _aggregate(aggregation: str, values: list[Any]) -> Any:
    """C+, C<, C> and C# are FEEL's sum, min, max and count over the outputs (DMN 8.2.11)."""
    function = {"SUM": lists.total, "MIN": lists.minimum, "MAX": lists.maximum}.get(aggregation)
    if function is None:
        return lists.count(values)
    try:
        return function(values)
    except FeelError as error:
        raise DecisionFailed(f"COLLECT {aggregation} over these outputs: {error}") from None


def _defaults(
    table: DecisionTable,
    scope: dict[str, Any],
    warnings: list[str],
    conform: Conform,
) -> tuple[Any, list[dict[str, Any]]]:
    """No rule matched: the default output entries, if the table has any, else null."""
    if not any(clause.default is not None for clause in table.outputs):
        return None, []
    outputs = {
        clause.name: _checked(
            clause,
            clause.default.value(scope, warnings) if clause.default is not None else None,
            scope,
            warnings,
            conform,
            None,
            table,
        )
        for clause in table.outputs
    }
    return _shape(table, outputs), [outputs]
