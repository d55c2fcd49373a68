"""Data associations, `ioSpecification` and properties of an activity, as variables.

Reading (when the activity starts): its properties start as None, each data input must have
a value (from an association or a visible variable of its name), and each data input
association copies its source (or its transformation's value, or its assignments) into the
activity's locals, next to its Camunda/Zeebe input mappings. Writing (when the work is done):
with data outputs only they come back, and each data output association copies its source
from the activity's values to its target, which Camunda write semantics place in the scope
that declares it (a data object of a subprocess stays in the subprocess).

A data store (docs/data-stores.md) is read like a data object whose value is the store's,
visible under the store's variable name; what an output association carries to one is
written to the store with the step, and a variable of the store's name the activity left
does not stay in the instance (as SpiffWorkflow takes it out of the task's data).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpmn_engine.expressions.scripts import DELETED
from bpmn_engine.model import Activity, DataAssociation
from bpmn_engine.runtime.step.context import Incident, StepContext


def read(ctx: StepContext, node: Activity, mapped: Mapping[str, Any]) -> dict[str, Any]:
    """The locals an activity's data gives it when it starts (over `mapped` inputs)."""
    data = node.data
    if data is None:
        return {}
    values: dict[str, Any] = dict.fromkeys(data.properties)
    associated = {a.target for a in data.reads} | {t for a in data.reads for _, t in a.assignments}
    visible = ctx.variables(mapped)
    for name in data.inputs:
        if name in associated:
            continue
        if name not in visible:
            raise Incident(
                f"data input {name!r} of {node.label} has no value: no data input association "
                "fills it and no variable of that name is visible",
                node.id,
            )
        values[name] = visible[name]
    for association in data.reads:
        values.update(_carry(ctx, association, {**mapped, **values}))
    return values


def write(ctx: StepContext, node: Activity, values: Mapping[str, Any]) -> dict[str, Any]:
    """What an activity's data outputs and output associations send back, from `values`
    (its inputs and what its work produced)."""
    data = node.data
    if data is None:
        return {}
    out: dict[str, Any] = {}
    if data.outputs is not None:
        missing = [name for name in data.outputs if name not in values]
        if missing:
            raise Incident(
                f"data output {missing[0]!r} of {node.label} was not produced by the activity",
                node.id,
            )
        carried = {a.source for a in data.writes}
        out.update({name: values[name] for name in data.outputs if name not in carried})
    for association in data.writes:
        out.update(_carry(ctx, association, values))
    return out


def carry(
    ctx: StepContext, association: DataAssociation, values: Mapping[str, Any]
) -> dict[str, Any]:
    """What one association writes, read from `values` over the visible variables (message
    events use it for the data their messages carry)."""
    return _carry(ctx, association, values)


def _carry(
    ctx: StepContext, association: DataAssociation, values: Mapping[str, Any]
) -> dict[str, Any]:
    if association.source_store is not None:
        value = ctx.read_store(association.source_store)
        values = {**values, association.source or "": value}
    out = _carried(ctx, association, values)
    if association.target_store is None:
        return out
    ctx.write_store(association.target_store, out[association.target])
    return {association.target: DELETED}  # the store's variable: the store keeps it


def _carried(
    ctx: StepContext, association: DataAssociation, values: Mapping[str, Any]
) -> dict[str, Any]:
    what = f"data association {association.id!r}"
    if association.assignments:
        out: dict[str, Any] = {}
        for source, target in association.assignments:
            out[target] = ctx.evaluate(
                source, {**values, **out}, f"{what}, assignment to {target!r}"
            )
        return out
    if association.transformation is not None:
        value = ctx.evaluate(association.transformation, values, f"the transformation of {what}")
        return {association.target: value}
    visible = ctx.variables(values)
    source = association.source or ""
    if source not in visible:
        raise Incident(f"{what} reads {source!r}, which has no value", ctx.node.id)
    return {association.target: visible[source]}
