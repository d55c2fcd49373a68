"""Call activity: the track waits while another process runs as a child instance.

Entering sends a `call` row (`runtime/calls/protocol.py`); the child's completion comes back as a
step of this instance (`finish`), its uncaught errors and escalations are thrown at the call
activity, and ending the call activity from outside sends `cancel` down.

Variables (docs/call-activities.md): with Camunda 7 `camunda:in`/`camunda:out` only what they
name goes in and comes back; without them every variable goes in (unless Zeebe's
`propagateAllParentVariables="false"`) plus the input mappings, and every child variable comes
back (unless `propagateAllChildVariables="false"`) or, with output mappings, only those.
A direction with no mapping of its own follows the called process's `ioSpecification`, when
it has one: only its data inputs go in, only its data outputs come back.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.errors import BpmnEngineError
from bpmn_engine.expressions.scripts import DELETED
from bpmn_engine.model import CallActivity, Expression
from bpmn_engine.model.process import ProcessInterface
from bpmn_engine.runtime.behaviours.base import ActivityBehaviour
from bpmn_engine.runtime.behaviours.multi_instance import loop_variables
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.step.context import Incident, StepContext

WAIT = "call activity"
CHILD_FAILED = "called instance failed"  # a failed track's mark: its child has the incident


class CallActivityBehaviour(ActivityBehaviour):
    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, CallActivity)
        process_id = self.called_process(ctx, node)
        depth = ctx.data.head.call_depth + 1
        if depth > calls.MAX_DEPTH:
            raise Incident(
                f"calling {process_id!r} would nest {depth} call activities deep (at most "
                f"{calls.MAX_DEPTH}): does the process call itself without end?",
                node.id,
            )
        self.check_tree_size(ctx, node, process_id)
        try:
            definitions = ctx.engine.callable_definitions(
                process_id, ctx.definitions, node.binding, node.version
            )
        except BpmnEngineError as error:
            raise Incident(str(error), node.id) from None
        ctx.step.touch_track(ctx.track).attempt += 1  # a retry calls a new child
        locals_ = self.inputs(ctx)
        interface = definitions.processes[process_id].interface
        if (
            interface is not None
            and interface.inputs
            and not (node.ins or node.outs or self.maps_inputs(node))
        ):
            variables = self.interface_inputs(ctx, node, process_id, interface)
        else:
            variables = self.child_variables(ctx, node, locals_)
        found = ctx.engine.announce(process_id, ctx.definitions)
        if found is not None:  # a file of a folder, not given: say which (once per engine)
            ctx.emit("process.found", process=process_id, file=found.path, message=found.note)
        key = self.business_key(ctx, node)
        sent = calls.call(ctx.data.head, ctx.track, process_id, definitions.version, variables, key)
        ctx.step.sent.append(sent)
        ctx.wait(WAIT, process=process_id, child=sent.key)

    @staticmethod
    def business_key(ctx: StepContext, node: CallActivity) -> str | None:
        """`<camunda:in businessKey="..."/>`: the caller's own key for Camunda's idiom
        `#{execution.processBusinessKey}`, else the expression's value over the variables."""
        if node.business_key is None:
            return None
        if node.passes_business_key:
            return ctx.data.head.business_key
        value = ctx.evaluate(node.business_key, what="the business key")
        return None if value is None else str(value)

    @staticmethod
    def check_tree_size(ctx: StepContext, node: CallActivity, process_id: str) -> None:
        """A call tree holds at most `Engine.max_tree_size` instances: the depth cap does
        not bound its width, and a process that calls itself under a multi-instance or a
        parallel fork doubles at each level. Counted before the child is asked for: the
        store's count of the tree (its children still to start included) and this step's
        own calls; the incident leaves nothing half-created (the step is undone)."""
        head, limit = ctx.data.head, ctx.engine.max_tree_size
        size = ctx.engine.store.call_tree_size(head.root)
        size += sum(1 for sent in ctx.step.sent if sent.kind == calls.CALL)
        if size < limit:
            return
        most = (
            "the most one tree may have"
            if size == limit
            else f"more than the {limit:,} one tree may have"
        )
        raise Incident(
            f"call tree of instance {head.root} has {size:,} instances, {most}; calling "
            f"{process_id!r} would start one more: does a process call itself under a "
            "multi-instance or a parallel gateway? (Engine(max_tree_size=...) sets the limit)",
            node.id,
        )

    def called_process(self, ctx: StepContext, node: CallActivity) -> str:
        text = node.called_element
        if not text:
            raise Incident("the call activity names no process to call (calledElement)", node.id)
        if not calls.is_expression(text):
            return text
        value = ctx.evaluate(Expression(text, None, node.line), what="calledElement")
        if not isinstance(value, str) or not value.strip():
            raise Incident(
                f"calledElement {text!r} gave {value!r}, not the id of a process", node.id
            )
        return value.strip()

    def child_variables(
        self, ctx: StepContext, node: CallActivity, locals_: dict[str, Any]
    ) -> dict[str, Any]:
        """What the child starts with."""
        if not (node.ins or node.outs):  # Zeebe, SpiffWorkflow, plain BPMN
            passed = ctx.variables() if node.propagate_parent else {}
            return {**passed, **locals_}
        visible = {**ctx.variables(), **locals_}
        passed = {}
        for mapping in node.ins:
            source = locals_ if mapping.local else visible
            if mapping.all:
                passed.update(source)
            elif mapping.expression is not None:
                value = ctx.evaluate(mapping.expression, locals_, "camunda:in")
                passed[mapping.target or ""] = value
            elif mapping.source:
                passed[mapping.target or mapping.source] = source.get(mapping.source)
        return passed

    @staticmethod
    def maps_inputs(node: CallActivity) -> bool:
        """Whether the call activity says itself what goes in (besides Camunda's `in`s)."""
        data = node.data
        return (
            bool(node.io is not None and node.io.inputs)
            or bool(data is not None and (data.reads or data.inputs))
            or not node.propagate_parent
        )

    def interface_inputs(
        self, ctx: StepContext, node: CallActivity, process_id: str, interface: ProcessInterface
    ) -> dict[str, Any]:
        """The called process's data inputs, from the caller's variables of their id (or
        name); a missing one is an incident here, before any child starts (as SpiffWorkflow
        raises at the call activity)."""
        visible = ctx.variables()
        passed: dict[str, Any] = {}
        for item, name in interface.inputs:
            found = _found(item, name, visible)
            if found is None:
                also = f" (or {name!r})" if name and name != item else ""
                raise Incident(
                    f"process {process_id!r} requires data input {item!r}, and no variable "
                    f"{item!r}{also} is visible at the call activity: set it before the call, "
                    "or map it with a data input association",
                    node.id,
                )
            passed[item] = visible[found]
        return passed

    def returned_variables(
        self,
        ctx: StepContext,
        node: CallActivity,
        child: dict[str, Any],
        interface: tuple[tuple[str, str | None], ...] | None = None,
    ) -> dict[str, Any]:
        """What the parent gets back from the child's variables (`interface`: the called
        process's data outputs, when it declares an ioSpecification)."""
        outputs = node.io.outputs if node.io is not None else ()
        if not (node.ins or node.outs):
            if outputs:
                return ctx.mapped(outputs, child)
            if not node.propagate_child:
                return {}
            if interface is not None:
                return self.interface_outputs(node, child, interface)
            return dict(child)
        returned: dict[str, Any] = {}
        local: dict[str, Any] = {}
        for mapping in node.outs:
            into = local if mapping.local else returned
            if mapping.all:
                into.update(child)
            elif mapping.expression is not None:
                # over the child's variables (Camunda evaluates it in the child); a name the
                # child lacks falls back to the parent's
                into[mapping.target or ""] = ctx.evaluate(mapping.expression, child, "camunda:out")
            elif mapping.source:
                into[mapping.target or mapping.source] = child.get(mapping.source)
        if outputs:
            returned.update(ctx.mapped(outputs, {**returned, **local}))
        return returned

    @staticmethod
    def interface_outputs(
        node: CallActivity, child: dict[str, Any], outputs: tuple[tuple[str, str | None], ...]
    ) -> dict[str, Any]:
        """Only the called process's data outputs come back, each under its id (read from
        the child's variable of that id, or of its name); one the child never set is an
        incident, as a task's missing data output is."""
        returned: dict[str, Any] = {}
        for item, name in outputs:
            found = _found(item, name, child)
            if found is None:
                raise Incident(
                    f"the called process's data output {item!r} was not set by the called instance",
                    node.id,
                )
            returned[item] = child[found]
        return returned

    def finish(
        self,
        ctx: StepContext,
        child: dict[str, Any],
        interface: tuple[tuple[str, str | None], ...] | None = None,
        deleted: tuple[str, ...] = (),
    ) -> None:
        """The child completed: its variables come back and the track leaves. When every
        child variable comes back, those the caller passed and the child deleted are deleted
        here too (SpiffWorkflow gives the caller the child's data as it ends)."""
        node = ctx.node
        assert isinstance(node, CallActivity)
        returned = self.returned_variables(ctx, node, child, interface)
        everything = not (node.ins or node.outs) and node.propagate_child and interface is None
        if deleted and everything and not (node.io is not None and node.io.outputs):
            returned.update(dict.fromkeys(deleted, DELETED))
        if ctx.body_of(ctx.track) is not None:  # an inner instance of a loop: its counters
            kept = loop_variables(node)  # are the body's, not the child's copy
            returned = {k: v for k, v in returned.items() if k not in kept}
        ctx.set_variables(returned)
        self.complete(ctx)

    def terminate(self, ctx: StepContext) -> None:
        if ctx.track.wait in (WAIT, CHILD_FAILED):
            ctx.step.sent.append(calls.cancel(ctx.data.head, ctx.track))
        super().terminate(ctx)


def _found(item: str, name: str | None, values: dict[str, Any]) -> str | None:
    """The key a data input or output of the interface is found under in `values`: its id,
    else its name; None when neither is there."""
    return next((key for key in (item, name) if key is not None and key in values), None)
