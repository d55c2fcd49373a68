"""Events without triggers: none start, none/terminate end, none intermediate throw.

Events that need a trigger (timers, messages, signals, errors...) are incidents when a token
reaches them, until event support lands.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.model import Event, StartEvent
from bpmn_engine.records.lifecycle import SubscriptionState, TimerState, TrackState
from bpmn_engine.records.rows import Subscription, Timer
from bpmn_engine.runtime.behaviours import transactions
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.events import compensation
from bpmn_engine.runtime.events.errors import throw_error, throw_escalation
from bpmn_engine.runtime.events.kinds import KINDS, WAITABLE
from bpmn_engine.runtime.events.message import MESSAGE
from bpmn_engine.runtime.events.payloads import caught, event_locals, throw_outputs, thrown
from bpmn_engine.runtime.events.trigger import settle
from bpmn_engine.runtime.events.waiting_starts import is_process_start, wait_at
from bpmn_engine.runtime.step.context import Incident, StepContext
from bpmn_engine.runtime.step.triggers import TRIGGER, waits_for_trigger


def refuse_definitions(ctx: StepContext, allowed: tuple[str, ...] = ()) -> None:
    node = ctx.node
    assert isinstance(node, Event)
    for definition in node.definitions:
        if definition.kind not in allowed:
            raise Incident(
                f"{definition.kind} {node.kind} (line {node.line}) is not supported yet",
                node.id,
            )


class NoneEventBehaviour(FlowNodeBehaviour):
    """Start events: the token passes through. A start event with a trigger is reached only
    when it fired (the start of an event subprocess), and what it sets was set then
    (`events/trigger.py`); a none start's output mappings are set as it completes."""

    def arrive(self, ctx: StepContext) -> None:
        node = ctx.node
        if isinstance(node, StartEvent) and node.definitions and is_process_start(ctx, node):
            ctx.activated()  # a retry enters a start event the instance waits at: again
            wait_at(ctx, node)
            return
        holder = ctx.definitions.node_scopes.get(ctx.scope_model.id)
        node = holder.nodes.get(ctx.scope_model.id) if holder else None
        if not getattr(node, "triggered_by_event", False):
            refuse_definitions(ctx)
        super().arrive(ctx)

    def complete(self, ctx: StepContext) -> None:
        node = ctx.node
        if isinstance(node, Event) and not node.definitions and node.io is not None:
            ctx.set_variables(caught(ctx, node, None))
        super().complete(ctx)


class ThrowingBehaviour(FlowNodeBehaviour):
    """What throw events share: their input-mapped locals (`events/payloads.py`)."""

    def inputs(self, ctx: StepContext) -> dict[str, Any]:
        """The event's locals: its start listeners see them (`runtime/step/listeners.py`)."""
        return event_locals(ctx, ctx.node)

    def set_outputs(self, ctx: StepContext) -> None:
        """The output mappings, over the locals and the variables, as the event completes."""
        ctx.set_variables(throw_outputs(ctx, ctx.node))


class ThrowEventBehaviour(ThrowingBehaviour):
    """Intermediate throw events: none, link (jump to the catch of that name), signal
    (broadcast once the step is committed), escalation and compensation (it waits for the
    handlers, whose end calls `complete` again: `events/compensation.py`)."""

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, ("link", "signal", "escalation", "message", "compensate"))
        node = ctx.node
        assert isinstance(node, Event)
        ctx.activated()
        for definition in node.definitions:
            if definition.kind == "link":
                self.set_outputs(ctx)
                ctx.completed()
                KINDS["link"].throw(ctx, definition)
                return
            if definition.kind in ("signal", "message"):
                KINDS[definition.kind].throw(ctx, definition)
            elif definition.kind == "escalation":
                throw_escalation(
                    ctx, code_of(ctx, definition.ref, "escalation"), thrown(ctx, definition)
                )
                if not ctx.track.live or ctx.track.element != node.id:
                    return  # an interrupting catcher ended the thrower's scope
            elif definition.kind == "compensate" and compensation.throw(ctx, definition):
                return  # waits for the handlers
        self.complete(ctx)

    def complete(self, ctx: StepContext) -> None:
        if not compensation.resume(ctx):
            self.set_outputs(ctx)
            super().complete(ctx)


def code_of(ctx: StepContext, ref: str | None, kind: str) -> str:
    codes = ctx.definitions.errors if kind == "error" else ctx.definitions.escalations
    return codes.get(ref or "", ref or "")


class EndEventBehaviour(ThrowingBehaviour):
    """Ends the track; a terminate end event first ends every other track of its scope.

    In the process scope that ends the instance (completed, as in Camunda and Zeebe); in a
    subprocess only the subprocess ends and its parent goes on (spec 10.5.3).
    """

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(
            ctx, ("terminate", "error", "escalation", "signal", "message", "compensate", "cancel")
        )
        ctx.activated()
        node = ctx.node
        assert isinstance(node, Event)
        if "cancel" in node.definition_kinds:
            transactions.cancel(ctx)
            return
        for definition in node.definitions:
            if definition.kind == "compensate" and compensation.throw(ctx, definition):
                return  # waits for the handlers; `complete` goes on
        self.complete(ctx)

    def complete(self, ctx: StepContext) -> None:
        if compensation.resume(ctx):
            return
        node = ctx.node
        assert isinstance(node, Event)
        if "cancel" in node.definition_kinds:
            transactions.leave_cancelled(ctx)
            return
        ctx.completed()
        for definition in node.definitions:
            if definition.kind == "error":
                # the token ends here without completing its scope: the error decides
                ctx.step.touch_track(ctx.track).move(TrackState.COMPLETED)
                throw_error(ctx, code_of(ctx, definition.ref, "error"), "", thrown(ctx, definition))
                return
            if definition.kind == "escalation":
                throw_escalation(
                    ctx, code_of(ctx, definition.ref, "escalation"), thrown(ctx, definition)
                )
                if not ctx.track.live:
                    return  # an interrupting catcher ended the thrower's scope
            if definition.kind in ("signal", "message"):
                KINDS[definition.kind].throw(ctx, definition)
        self.set_outputs(ctx)  # none, message, signal, escalation (Zeebe): as it completes
        if "terminate" in node.definition_kinds:
            ctx.terminate_scope(ctx.track.scope, keep=ctx.track)
        ctx.end_track(TrackState.COMPLETED)


class CatchEventBehaviour(FlowNodeBehaviour):
    """Intermediate catch events wait for a timer, a message, a signal or a condition; a
    multiple one for all its definitions at once: the first to fire wins, or, parallel
    multiple, it goes on when every one has fired. A link catch is reached only by a jump
    from its throw, and passes the token on."""

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, (*WAITABLE, "link"))
        node = ctx.node
        assert isinstance(node, Event)
        ctx.activated()
        if waits_for_trigger(node):  # a wait state the API triggers (`runtime/step/triggers.py`)
            ctx.wait(TRIGGER)
            return
        if "link" in node.definition_kinds:
            if len(node.definitions) > 1:
                raise Incident(f"a link catch event (line {node.line}) has one trigger", node.id)
            ctx.set_variables(caught(ctx, node, None))  # its output mappings: nothing came
            self.complete(ctx)
            return
        waits = [KINDS[d.kind].arm(ctx, node, d, node.id) for d in node.definitions]
        if len(waits) > 1:
            ctx.wait("event", triggers=[d.kind for d in node.definitions])
        elif isinstance(waits[0], Timer):
            ctx.wait("timer", due=waits[0].due)
            return
        else:
            ctx.wait(node.definitions[0].kind, name=waits[0].name)
        for wait in waits:  # a condition already true, a message that came before
            if ctx.track.element != node.id or not ctx.track.live:
                break  # it fired and went on
            if wait.status is (
                TimerState.WAITING if isinstance(wait, Timer) else SubscriptionState.WAITING
            ):
                settle(ctx, [wait])

    def triggered(self, ctx: StepContext, variables: dict[str, Any]) -> None:
        """`Instance.trigger` at a catch event with no definition: the variables (through
        its output mappings or data outputs, if any), then on."""
        ctx.set_variables(caught(ctx, ctx.node, variables))
        self.complete(ctx)


class BoundaryEventBehaviour(FlowNodeBehaviour):
    """A token reaches a boundary event only when its trigger fired: it passes through."""


class EventBasedGatewayBehaviour(FlowNodeBehaviour):
    """Waits for every event after it at once; the first that fires wins (spec 13.4.4).

    The losing timers and subscriptions are cancelled in the same step, because the track
    leaves the gateway (see `Step.cancel_stale_waits`): no event can fire twice. An event
    that names nothing to wait for (a catch event with no definition, a receive task with
    neither a message nor a name) is chosen by the API (`Instance.trigger`, as a click on it
    in the token simulator): the gateway then waits as a trigger wait (`runtime/step/triggers.py`).
    """

    def execute(self, ctx: StepContext) -> None:
        waits: list[Subscription | Timer] = []
        chosen_by_api: list[str] = []
        for flow in ctx.scope_model.outgoing(ctx.node):
            target = ctx.scope_model.nodes[flow.target]
            definitions = getattr(target, "definitions", ())
            if waits_for_trigger(target):
                chosen_by_api.append(target.id)
            elif target.kind == "receiveTask":
                waits.append(MESSAGE.arm(ctx, target, None, ctx.node.id))
            elif target.kind == "intermediateCatchEvent" and definitions:
                definition = definitions[0]
                if definition.kind in ("timer", "message", "signal"):
                    waits.append(KINDS[definition.kind].arm(ctx, target, definition, ctx.node.id))
                else:
                    raise Incident(
                        f"{definition.kind} events after an event-based gateway "
                        "are not supported yet",
                        target.id,
                    )
            else:
                raise Incident(
                    f"an event-based gateway must lead to catch events or receive tasks, "
                    f"not to {target.kind} {target.id!r}",
                    ctx.node.id,
                )
        if chosen_by_api:
            ctx.wait(TRIGGER, events=chosen_by_api)
        else:
            ctx.wait("event")
        settle(ctx, waits)
