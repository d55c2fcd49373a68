"""Tasks: none and manual (pass through, or wait), user (waits), script (sandboxed),
service/send (handlers), business rule (a DMN decision, else handlers)."""

from __future__ import annotations

import copy
from typing import Any

from bpmn_engine.errors import BpmnEngineError
from bpmn_engine.expressions import script_is_expression
from bpmn_engine.model import Expression, Task
from bpmn_engine.records.lifecycle import TaskState
from bpmn_engine.records.rows import JOB
from bpmn_engine.runtime.behaviours.base import ActivityBehaviour
from bpmn_engine.runtime.data.assignments import assigned
from bpmn_engine.runtime.data.decisions import mapped, spiff_outputs
from bpmn_engine.runtime.events.message import MESSAGE
from bpmn_engine.runtime.events.trigger import settle
from bpmn_engine.runtime.handlers import ServiceTaskContext
from bpmn_engine.runtime.step import listeners
from bpmn_engine.runtime.step.context import Incident, StepContext
from bpmn_engine.runtime.step.triggers import TRIGGER, waits_for_trigger


class UserTaskBehaviour(ActivityBehaviour):
    def execute(self, ctx: StepContext) -> None:
        node, inputs = ctx.node, self.inputs(ctx)
        assert isinstance(node, Task)
        people = assigned(ctx, node.assignment, inputs)  # and when: `created_at`
        task = ctx.step.new_task(ctx.track, node.name, inputs, **people)
        ctx.wait("user task", task=task.id, name=ctx.node.name)
        listeners.run(ctx, ctx.node.listeners, "create", ctx.node.id, task.inputs)

    def complete_with(self, ctx: StepContext, variables: dict[str, Any]) -> None:
        """A person (or an answers file) completed the task with these variables."""
        task = next(
            t
            for t in ctx.data.tasks.values()
            if t.track == ctx.track.id and t.status is TaskState.WAITING
        )
        ctx.step.touch_task(task).move(TaskState.COMPLETED)
        extra = {**task.inputs, **variables}  # what the person entered, seen by the listeners
        ctx.output = dict(variables)  # bpmn-engine's `content.output`
        written = listeners.run(ctx, ctx.node.listeners, "complete", ctx.node.id, extra)
        self.finish_with(ctx, {**variables, **written}, task.inputs)
        self.complete(ctx)

    def terminate(self, ctx: StepContext) -> None:
        for task in list(ctx.data.tasks.values()):
            if task.track == ctx.track.id and task.status is TaskState.WAITING:
                ctx.step.touch_task(task).move(TaskState.CANCELLED)
                listeners.run(ctx, ctx.node.listeners, "delete", ctx.node.id, task.inputs)
        super().terminate(ctx)


class ManualTaskBehaviour(UserTaskBehaviour):
    """`task` and `manualTask`: no work for the engine, except in a diagram drawn for
    SpiffWorkflow, whose manual and none tasks wait for a person as its user tasks do. Its
    mappings and data associations still apply, as on any activity (Camunda 7, bpmn-engine)."""

    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, Task)
        if node.waits_for_person:
            super().execute(ctx)
            return
        if node.io is not None or node.data is not None:
            self.finish_with(ctx, {}, self.inputs(ctx))
        self.complete(ctx)


class ReceiveTaskBehaviour(ActivityBehaviour):
    """Waits for its message; the message's variables are set when it arrives. One with
    neither a message nor a name waits for the API to trigger it (`runtime/step/triggers.py`)."""

    def execute(self, ctx: StepContext) -> None:
        if waits_for_trigger(ctx.node):
            ctx.wait(TRIGGER)
            return
        subscription = MESSAGE.arm(ctx, ctx.node, None, ctx.node.id)
        ctx.wait("message", name=subscription.name)
        settle(ctx, [subscription])

    def triggered(self, ctx: StepContext, variables: dict[str, Any]) -> None:
        """`Instance.trigger`: the variables through its output mappings (if any), then on."""
        self.finish_with(ctx, variables, self.inputs(ctx))
        self.complete(ctx)


class ScriptTaskBehaviour(ActivityBehaviour):
    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, Task)
        inputs = self.inputs(ctx)
        if not node.script:
            ctx.warn("script task has no script: nothing to run")
            results: dict[str, Any] = {}
        elif script_is_expression(node.script_format, node.result_variable):
            expression = Expression(node.script, node.script_format, node.line)
            results = {node.result_variable: ctx.evaluate(expression, inputs, "the script")}
        else:
            results, locals_ = ctx.run_script(
                node.script, node.script_format, inputs, result_variable=node.result_variable
            )
            if locals_:  # `setVariableLocal`: the task's own, seen by its output mappings
                inputs = {**inputs, **locals_}
                results = {**results, **locals_}
        self.finish_with(ctx, results, inputs)
        self.complete(ctx)


class ServiceTaskBehaviour(ActivityBehaviour):
    """Calls the user's handler outside the step's transaction (it may be slow or remote).

    With no handler for it the task waits as a job (`JOB`) until an engine that has one
    serves it (`Instance` re-runs `execute`), or, when the engine simulates, completes as a
    no-op.

    The step that starts the call commits the claim (track `executing`, attempt + 1); the
    result comes back in a second step through `finish_external`. A crash in between re-runs
    the handler on resume: side effects are at least once, so handlers get an idempotency key.
    """

    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, Task)
        handler, name = ctx.engine.handler_for(node)
        if handler is None and node.kind == "sendTask" and node.message_ref:
            # no handler: the engine delivers it, the task's inputs its payload
            MESSAGE.send(ctx, node.message_ref, payload=self.inputs(ctx) or None)
            self.complete(ctx)
            return
        if handler is None:
            looked = ", ".join(node.handler_names)
            if not ctx.engine.simulate:  # a no-op would change the path taken: wait for one
                ctx.wait(JOB, handlers=list(node.handler_names))
                return
            ctx.warn(
                f"no handler for this {node.kind} (looked for: {looked}); simulated: "
                "completed as a no-op"
            )
            self.complete(ctx)
            return
        ctx.step.touch_track(ctx.track).attempt += 1
        call = ServiceTaskContext(
            variables=copy.deepcopy(ctx.variables(self.inputs(ctx))),
            element_id=node.id,
            element_name=node.name,
            instance_id=ctx.data.head.id,
            attempt=ctx.track.attempt,
            idempotency_key=f"{ctx.data.head.id}-{ctx.track.id}-{ctx.track.seq}",
            headers=dict(node.headers),
        )
        ctx.emit("job.started", handler=name, attempt=ctx.track.attempt)
        ctx.external = lambda: handler(call)

    def finish_external(self, ctx: StepContext, result: Any) -> None:
        if result is not None and not isinstance(result, dict):
            raise Incident(
                f"handler returned {type(result).__name__}; expected a dict of variables or None",
                ctx.node.id,
            )
        ctx.output = result  # bpmn-engine's `content.output` in its mappings and conditions
        self.finish_with(ctx, result or {}, self.inputs(ctx))
        self.complete(ctx)


class BusinessRuleTaskBehaviour(ServiceTaskBehaviour):
    """Evaluates its DMN decision in the step (`runtime/data/decisions.py`) and sets the result
    variable; one without a decision (`camunda:class`, an external topic, a Zeebe job type)
    calls handlers as a service task does. A decision that fails is an incident."""

    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, Task)
        call = node.decision
        if call is None:
            super().execute(ctx)
            return
        decisions = ctx.engine.decisions.find(call.decision)
        if decisions is None:
            raise Incident(
                f"decision {call.decision!r} is in none of the DMN files given and not in the "
                "store",
                node.id,
            )
        if not ctx.engine.decisions.is_given(decisions):  # it answers all the same: say so
            ctx.warn(
                f"decision {call.decision!r} comes from DMN files kept in the database by an "
                f"earlier run or deploy ({', '.join(decisions.paths)}), not from a file given "
                "now: give the .dmn file to use another"
            )
        inputs = self.inputs(ctx)
        try:
            result = decisions.evaluate(
                call.decision, ctx.variables(inputs), first_match=call.mapping == "spiff"
            )
            for warning in result.warnings:
                ctx.warn(warning)
            if result.error is not None:
                raise Incident(f"decision {call.decision!r} failed: {result.error}", node.id)
            value = mapped(call, result)
        except BpmnEngineError as error:
            raise Incident(f"decision {call.decision!r}: {error}", node.id) from None
        ctx.emit("decision.evaluated", decision=result.id, name=result.decision, value=value)
        if call.mapping == "spiff":
            try:
                table = decisions.table(call.decision)
                results = spiff_outputs(result, table, ctx.variables(inputs))
            except BpmnEngineError as error:
                raise Incident(f"decision {call.decision!r}: {error}", node.id) from None
        elif call.result_variable:
            results = {call.result_variable: value}
        else:
            ctx.warn("the business rule task has no resultVariable: its result is not kept")
            results = {}
        self.finish_with(ctx, results, inputs)
        self.complete(ctx)
