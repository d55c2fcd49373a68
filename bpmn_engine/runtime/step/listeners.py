"""Running listeners and pre-/post-scripts inside the step of the moment they listen for.

Execution listeners (start, end, take), task listeners (create, complete, delete) and Spiff
pre-/post-scripts run in the step that reaches their moment, so what they write commits (or
rolls back) with it: one step, one transaction. The order is Camunda 7's: an activity's input
mappings, then its start listeners, then its work; a user task's create listeners once the
task exists; on completion the complete listeners, the output mappings, the outgoing flows'
conditions, the end listeners, then each taken flow's take listeners; a user task ended
without completing, its delete listeners (docs/listeners.md).

A script runs in the script sandbox (or as full Python with `--trust-scripts`), an expression
is JUEL run for its effect (`execution.setVariable`), and a class, bean or Zeebe job type is a
handler from `--handlers`, called during the step. A failure is an incident at the element
the token is at (a flow's source, the process's first or last element), its message naming
the listener; a handler's `BpmnError` is thrown there.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from bpmn_engine.errors import BpmnError, ExpressionError
from bpmn_engine.expressions import JavaScriptScript, compile_expression, compile_script
from bpmn_engine.expressions.javascript import changed as changed_by
from bpmn_engine.expressions.juel_methods import collected_writes
from bpmn_engine.expressions.jvm_scripts import JvmScript
from bpmn_engine.model import (
    Activity,
    FlowNode,
    FlowScope,
    Listener,
    Process,
    SequenceFlow,
    StartEvent,
    SubProcess,
)
from bpmn_engine.records.rows import CONSUMED, DELIVERED
from bpmn_engine.runtime import handlers
from bpmn_engine.runtime.handlers import ServiceTaskContext
from bpmn_engine.runtime.step.context import Incident, StepContext
from bpmn_engine.runtime.step.parts import HandlerInChain

# a track waiting at a gateway that has not fired with it (or a complex gateway's record of
# a flow that delivered): no start listener ran for it, so no end listener runs
_UNSTARTED = frozenset({"join", DELIVERED, CONSUMED})
SPIFF_POST_SCRIPT = "spiffworkflow:postScript"  # a listener's source (`parse/listeners.py`)


def compile_listener(listener: Listener, trusted: bool) -> None:
    """Compile what the listener runs (ExpressionError if it cannot): checked before the
    first step by `bpmn run` and by `bpmn validate`."""
    try:
        if listener.script is not None:
            script = compile_script(listener.script.text, listener.script.language, trusted=trusted)
            if isinstance(script, JvmScript) and script.throws:
                raise ExpressionError(
                    "it throws a BPMN error, which is run from a script task's script only "
                    "(whether the engine it was written for catches one from a listener "
                    "script is not imitated): throw it from a script task, or an error end event"
                )
        if listener.expression is not None:
            expression = listener.expression
            compile_expression(expression.text, expression.language, trusted=trusted)
        for _, value in listener.fields:
            if not isinstance(value, str):
                compile_expression(value.text, value.language, trusted=trusted)
    except ExpressionError as error:
        raise ExpressionError(f"{listener.label}: {error}") from None


def listeners_of(scope: FlowScope) -> Iterator[tuple[str, Listener]]:
    """(the element it belongs to, listener) for a process's own listeners and those of
    every node and flow inside it, nested subprocesses included."""
    for listener in getattr(scope, "listeners", ()):
        yield scope.id, listener
    scopes = [scope] + [node.scope for _, node in scope.walk() if isinstance(node, SubProcess)]
    for inner in scopes:
        if inner is None:
            continue
        for flow in inner.flows.values():
            for listener in flow.listeners:
                yield flow.id, listener
        for node in inner.nodes.values():
            for listener in node.listeners:
                yield node.id, listener


def notify(ctx: StepContext, event: str, subject: FlowNode | SequenceFlow | Process) -> None:
    """The lifecycle moment `event` of `subject` happens in this step: run its listeners.

    `cancel` is an element (or the process) ended without completing: Camunda 7 runs its
    `end` execution listeners then too; Zeebe's and SpiffWorkflow's do not run."""
    if isinstance(subject, SequenceFlow):
        run(ctx, subject.listeners, event, subject.id)
        return
    if event == "cancel":
        if isinstance(subject, FlowNode) and (
            _is_body(ctx, subject) or ctx.track.wait in _UNSTARTED
        ):
            return  # a body, or a token waiting at a join: the element never started
        run(ctx, tuple(li for li in subject.listeners if _camunda_7(li)), "end", subject.id)
        return
    if isinstance(subject, Process):
        run(ctx, subject.listeners, event, subject.id)
        return
    if _is_body(ctx, subject):
        return  # a loop or multi-instance body: its instances run the listeners
    if event == "start" and isinstance(subject, StartEvent):
        process = ctx.definitions.processes[ctx.data.head.process]
        if process.listeners and _starts_instance(ctx, subject):
            run(ctx, process.listeners, "start", process.id)
    if not any(listener.event == event for listener in subject.listeners):
        return
    extra: dict[str, Any] = {}
    if event == "start" and (isinstance(subject, Activity) or getattr(subject, "io", None)):
        extra = _inputs_before_start(ctx, subject)  # an activity's or a throw event's locals
    ran = event == "end" and ctx.post_scripts_ran == subject.id
    run(ctx, subject.listeners, event, subject.id, extra, SPIFF_POST_SCRIPT if ran else None)


def run_post_scripts(ctx: StepContext, node: FlowNode, data: Mapping[str, Any]) -> dict[str, Any]:
    """A task's SpiffWorkflow post-scripts, over its data (the variables plus `data`: its
    locals and results), before its outputs are mapped: SpiffWorkflow runs them first when
    the task completes, then its data outputs and data output associations. What they wrote
    is returned, not written: the outputs carry it. They do not run again as end listeners."""
    ctx.post_scripts_ran = node.id
    written: dict[str, Any] = {}
    for index, listener in enumerate(node.listeners):
        if listener.source == SPIFF_POST_SCRIPT:
            written.update(_run_one(ctx, listener, node.id, {**data, **written}, index))
    return written


def run(
    ctx: StepContext,
    listeners: tuple[Listener, ...],
    event: str,
    where: str,
    extra: Mapping[str, Any] | None = None,
    skip: str | None = None,
) -> dict[str, Any]:
    """Run the listeners for `event`, in document order, over the variables plus `extra`
    (an activity's input-mapped locals, a user task's completion values); what they wrote.
    `skip`: a listener source that already ran (a post-script run before the outputs)."""
    written: dict[str, Any] = {}
    for index, listener in enumerate(listeners):
        if listener.event == event and listener.source != skip:
            values = _run_one(ctx, listener, where, {**(extra or {}), **written}, index)
            ctx.set_variables(values)
            written.update(values)
    return written


def _run_one(
    ctx: StepContext, listener: Listener, where: str, extra: dict[str, Any], index: int
) -> dict[str, Any]:
    if listener.script is not None:
        script = listener.script
        try:
            compiled = compile_script(
                script.text, script.language, trusted=ctx.engine.trust_scripts
            )
            if isinstance(compiled, JavaScriptScript):  # `execution`'s facts, the event's
                facts = ctx.facts(event=listener.event)
                outcome = compiled.execute(ctx.variables(extra), facts, False)
                # a listener has no scope of its own: `setVariableLocal` sets as `setVariable`
                changed = {**changed_by(outcome), **outcome.locals}
            else:
                printed: list[str] = []
                changed = compiled.run(ctx.variables(extra), printed)
                if printed:
                    ctx.step.record(
                        "script.printed", where, ctx.track.id, {"text": "".join(printed)}
                    )
        except ExpressionError as error:
            raise _incident(ctx, where, f"{listener.label} failed: {error}") from None
        return changed
    elif listener.expression is not None:
        expression = listener.expression
        try:
            compiled_expression = compile_expression(
                expression.text, expression.language, trusted=ctx.engine.trust_scripts
            )
            with collected_writes() as writes:
                compiled_expression.evaluate(ctx.variables(extra), ctx.warn)
        except ExpressionError as error:
            raise _incident(
                ctx, where, f"{listener.label}: expression {expression.text!r} failed: {error}"
            ) from None
        return writes
    return _call_handler(ctx, listener, where, extra, index)


def _call_handler(
    ctx: StepContext, listener: Listener, where: str, extra: dict[str, Any], index: int
) -> dict[str, Any]:
    """A class, bean or job type: the user's handler, called now, inside the step."""
    handler, name = ctx.engine.handler_for(listener)
    if handler is not None:
        if ctx.step.chained:  # a replay of the chain would call it again: a step of its own
            raise HandlerInChain(listener.label)
        ctx.step.called_out = True  # the chain ends with this node
    if handler is None:
        looked = ", ".join(listener.handler_names)
        ctx.warn(f"{listener.label}: no handler (looked for: {looked}); the listener is skipped")
        return {}
    fields: dict[str, Any] = {}
    for field_name, value in listener.fields:
        if isinstance(value, str):
            fields[field_name] = value
        else:
            fields[field_name] = ctx.evaluate(value, extra, f"field {field_name!r}")
    head, track = ctx.data.head, ctx.track
    call = ServiceTaskContext(
        variables=copy.deepcopy(ctx.variables(extra)),
        element_id=where,
        element_name=getattr(ctx.node, "name", None) if where == ctx.node.id else None,
        instance_id=head.id,
        attempt=1,
        idempotency_key=f"{head.id}-{track.id}-{track.seq}-{listener.event}-{index}",
        event=listener.event,
        fields=fields,
    )
    try:
        result = handler(call)
    except BpmnError:
        raise  # thrown at the element by the step machinery, as a service task's is
    except (Exception, SystemExit) as error:  # the handler failed: an incident, not a crash
        raise _incident(
            ctx, where, f"{listener.label}: handler {name!r} {handlers.failure(error)}"
        ) from None
    if result is not None and not isinstance(result, dict):
        raise _incident(
            ctx,
            where,
            f"{listener.label}: handler {name!r} returned {type(result).__name__}; expected a "
            "dict of variables or None",
        )
    return result or {}


def _incident(ctx: StepContext, where: str, message: str) -> Incident:
    """An incident at the element the token is at; a flow's or the process's listener says
    whose it is (a flow's source, a process's first or last element)."""
    if where == ctx.node.id:
        return Incident(message, where)
    owner = "process" if where == ctx.data.head.process else "sequence flow"
    return Incident(f"{owner} {where!r}: {message}", ctx.node.id)


def _camunda_7(listener: Listener) -> bool:
    return listener.source.endswith(":executionListener") and not listener.source.startswith(
        "zeebe:"
    )


def _is_body(ctx: StepContext, node: FlowNode) -> bool:
    return isinstance(node, Activity) and bool(node.loop) and ctx.body_of(ctx.track) is None


def _starts_instance(ctx: StepContext, node: StartEvent) -> bool:
    """Whether this start event begins the instance: the process's start listeners go first.

    With several none start events only the first token's activation counts."""
    if not isinstance(ctx.scope_model, Process):
        return False
    root = ctx.data.root_scope
    if ctx.track.scope != root or ctx.track.parent is not None:
        return False
    first = min(
        t.id
        for t in ctx.data.tracks.values()
        if t.scope == root and t.parent is None and not t.listening
    )
    return ctx.track.id == first


def _inputs_before_start(ctx: StepContext, node: FlowNode) -> dict[str, Any]:
    """The activity's (or throw event's) input-mapped locals, computed once: its start
    listeners see them, and its behaviour reuses them (Camunda maps inputs before the start
    listeners run)."""
    inputs = getattr(ctx.behaviour(node), "inputs", None)
    if inputs is None:
        return {}
    values = inputs(ctx)
    ctx.start_inputs = (node.id, dict(values))
    return values
