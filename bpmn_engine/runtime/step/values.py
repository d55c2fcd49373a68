"""A step's values: variables where they are defined, data stores, and the expressions,
conditions, scripts and I/O mappings that read and write them (`StepContext`'s part)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import (
    JavaScriptExpression,
    JavaScriptScript,
    compile_expression,
    compile_script,
)
from bpmn_engine.expressions.scripts import DELETED
from bpmn_engine.model import Expression, IoParameter
from bpmn_engine.runtime.step.parts import NO_OUTPUT, Incident, StepParts
from bpmn_engine.runtime.step.variables import copied, storable, storable_all


class Values(StepParts):
    """Variables, data stores, expressions and scripts, as one track at one node sees them."""

    # --- variables ----------------------------------------------------------------------------
    def variables(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        values = self.data.variables.visible(self.track.scope)
        if extra:
            values.update(extra)
        return values

    def set_variables(self, values: Mapping[str, Any], scope: int | None = None) -> None:
        """Write variables where they are defined (or in the process scope); one event. A
        value `DELETED` (a trusted script's `del x`) deletes the variable where it is."""
        if not values:
            return
        target = self.track.scope if scope is None else scope
        deleted = [name for name, value in values.items() if value is DELETED]
        if deleted:
            values = {name: value for name, value in values.items() if value is not DELETED}
        try:
            values = storable_all(values)
        except ValueError as error:
            raise Incident(str(error), self.node.id) from None
        for name, value in values.items():
            self.step.set_value(self.data.variables.owner(target, name), name, value)
        unset = []
        for name in deleted:
            owner = self.data.variables.owner(target, name)
            if name in self.data.values.get(owner, {}):
                self.step.delete_value(owner, name)
                unset.append(name)
        if unset:
            self.emit("variables.updated", variables=copied(values), unset=unset)
        elif values:
            self.emit("variables.updated", variables=copied(values))

    def set_local(self, scope: int, values: Mapping[str, Any]) -> None:
        try:
            values = storable_all(values)
        except ValueError as error:
            raise Incident(str(error), self.node.id) from None
        for name, value in values.items():
            self.step.set_value(scope, name, value)

    # --- data stores (docs/data-stores.md) ----------------------------------------------------
    def read_store(self, name: str) -> Any:
        """A data store's value: this step's own write, else the last one committed; null,
        warned about, when it was never written (as a data object no one set is null)."""
        self.emit("data_store.read", store=name)
        if name in self.step.stores:
            return self.step.stores[name][0]
        found = self.engine.store.data_store(name)
        if found is None:
            self.warn(f"data store {name!r} was never written: it reads as null")
            return None
        return found.value

    def write_store(self, name: str, value: Any) -> None:
        """Write a data store with this step (in its transaction: rolled back with it)."""
        try:
            value = storable(name, value)
        except ValueError as error:
            message = f"data store {name!r} cannot hold the value: {error}"
            raise Incident(message, self.node.id) from None
        self.step.write_store(name, value, self.node.id)
        self.emit("data_store.written", store=name, value=copied({name: value})[name])

    def facts(
        self, inputs: Mapping[str, Any] | None = None, event: str | None = None
    ) -> dict[str, Any]:
        """What JavaScript's `execution` getters and bpmn-engine's `content` tell about this
        node (`inputs`: its input-mapped locals; `event`: a listener's)."""
        node, head, track = self.node, self.data.head, self.track
        kind = node.kind
        content: dict[str, Any] = {
            "id": node.id,
            "type": f"bpmn:{kind[:1].upper()}{kind[1:]}",
            "name": node.name,
            "executionId": f"{node.id}_{track.id}",
        }
        if inputs:
            content["input"] = dict(inputs)
        if self.output is not NO_OUTPUT:
            content["output"] = self.output
        return {
            "instance": head.id,
            "process": head.process,
            "definition": f"{head.process}:{head.definition}",
            "element": node.id,
            "name": node.name,
            "execution": str(track.id),
            "activityInstance": f"{node.id}:{track.id}",
            "event": event,
            "locals": sorted(inputs or ()),
            "content": content,
        }

    def _with_content(self, text: str, values: dict[str, Any]) -> dict[str, Any]:
        """bpmn-engine's `${content.*}` in a JUEL or Python expression: the node's content,
        unless a variable has that name."""
        if "content" in text and "content" not in values:
            values["content"] = self.facts()["content"]
        return values

    def evaluate(
        self, expression: Expression, extra: Mapping[str, Any] | None = None, what: str = ""
    ) -> Any:
        try:
            compiled = compile_expression(
                expression.text, expression.language, trusted=self.engine.trust_scripts
            )
            if isinstance(compiled, JavaScriptExpression):
                return compiled.evaluate(self.variables(extra), self.warn, self.facts())
            values = self._with_content(expression.text, self.variables(extra))
            return compiled.evaluate(values, self.warn)
        except ExpressionError as error:
            where = f" in {what}" if what else ""
            raise Incident(
                f"expression {expression.text!r}{where}: {error}", self.node.id
            ) from None

    def holds(self, expression: Expression, extra: Mapping[str, Any] | None, what: str) -> bool:
        """A condition that must be a boolean (null, warned about, is false); anything else
        is an incident naming it."""
        value = self.evaluate(expression, extra, what)
        if value is not None and not isinstance(value, bool):
            raise Incident(
                f"{what} {expression.text!r} must be a boolean, not {value!r}", self.node.id
            )
        return bool(value)

    def run_script(
        self,
        text: str,
        script_format: str | None,
        extra: Mapping[str, Any],
        result_variable: str | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the variables a script set, the locals it set with `setVariableLocal`); its
        value as `result_variable`, if named (only a JavaScript script has one: others with a
        result variable are expressions): what it gave bpmn-engine's `next(null, value)`,
        else its completion value. That `next` value is the node's output too."""
        try:
            script = compile_script(text, script_format, trusted=self.engine.trust_scripts)
            if not isinstance(script, JavaScriptScript):
                printed: list[str] = []
                changes = script.run(self.variables(extra), printed)
                if printed:  # SpiffWorkflow's scripts print as they please
                    self.emit("script.printed", text="".join(printed))
                return changes, {}
            outcome = script.execute(
                self.variables(extra), self.facts(extra), result=bool(result_variable)
            )
        except ExpressionError as error:
            raise Incident(f"script failed: {error}", self.node.id) from None
        changes = {**outcome.changes, **dict.fromkeys(outcome.removed, DELETED)}
        if outcome.called_next:
            self.output = outcome.output
        if result_variable:
            value = outcome.output if outcome.called_next else outcome.result
            changes[result_variable] = value
        return changes, outcome.locals

    def mapped(self, parameters: tuple[IoParameter, ...], extra: Mapping[str, Any]) -> dict:
        """Evaluate I/O mapping parameters over the variables plus `extra`."""
        values: dict[str, Any] = {}
        for parameter in parameters:
            if parameter.expression is None:
                values[parameter.name] = parameter.value
            else:
                scope = {**extra, **values}
                values[parameter.name] = self.evaluate(
                    parameter.expression, scope, f"mapping {parameter.name!r}"
                )
        return values
