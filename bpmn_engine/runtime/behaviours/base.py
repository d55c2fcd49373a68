"""The behaviour contract: one class per BPMN element family, with no-op defaults.

Hooks, in the order a token meets them:
- `arrive`: a ready track enters the node. Joins decide here whether to wait; everyone else
  calls `ctx.activated()` and goes on to `execute`.
- `execute`: do the work (run a script, call a handler) or start waiting (`ctx.wait`).
- `complete`: the work is done: choose the outgoing flows and `ctx.leave(flows)`.
  Called directly after `execute` for immediate work, or later for waits (user task
  completed, subprocess scope finished, external job done).
- `terminate`: a scope, terminate end event or cancel ends the track here; release what the
  node holds (a user task, a subprocess scope).
- `inner_left` / `may_complete`: asked of an element that decides itself when its scope
  completes (an ad-hoc subprocess, `ad_hoc.py`): an element inside left; the scope ran dry.
Behaviours raise `Incident` to fail the step; they never write to the store themselves.
"""

from __future__ import annotations

from bpmn_engine.model import Activity, EventDefinition, SequenceFlow
from bpmn_engine.records.rows import Subscription, Timer
from bpmn_engine.runtime.behaviours.multi_instance import instance_completed, start_body
from bpmn_engine.runtime.data import data_associations
from bpmn_engine.runtime.events import compensation
from bpmn_engine.runtime.events.kinds import KINDS, arming
from bpmn_engine.runtime.events.trigger import deliver_buffered
from bpmn_engine.runtime.step import listeners
from bpmn_engine.runtime.step.context import Incident, StepContext

SEARCHED = ("error", "escalation", "cancel", "compensate")  # boundary kinds never armed


class FlowNodeBehaviour:
    def arrive(self, ctx: StepContext) -> None:
        ctx.activated()
        self.execute(ctx)

    def execute(self, ctx: StepContext) -> None:
        self.complete(ctx)

    def complete(self, ctx: StepContext) -> None:
        flows = ctx.chosen_flows() or self.outgoing(ctx)  # before the end listeners (Camunda)
        ctx.completed()
        ctx.leave(flows)

    def terminate(self, ctx: StepContext) -> None:
        ctx.engine.listen(ctx, "cancel", ctx.node)  # Camunda 7's end listeners run here too
        ctx.emit("element.terminated")

    def inner_left(self, ctx: StepContext, inner: StepContext) -> None:
        """An element inside this one's scope left it (asked of ad-hoc subprocesses only)."""

    def may_complete(self, ctx: StepContext, scope_id: int) -> bool:
        """Whether this one's scope, with no token left, completes now (ad-hoc: not always)."""
        return True

    def outgoing(self, ctx: StepContext) -> list[SequenceFlow]:
        """Uncontrolled flow (spec 13.2.1): every flow whose condition holds.

        The default flow is taken only when no conditional flow holds; an element whose
        conditional flows all fail and that has no default is stuck: an incident.
        """
        node = ctx.node
        if len(node.outgoing) == 1:  # most nodes: one flow, taken if it has no condition
            flow = ctx.scope_model.flows[node.outgoing[0]]
            if flow.condition is None:
                return [flow]
        flows = ctx.scope_model.outgoing(node)
        default = getattr(node, "default", None)
        taken = [f for f in flows if f.id != default and ctx.condition_holds(f)]
        if not taken and default:
            return [ctx.scope_model.flows[default]]
        if not taken and flows:
            raise Incident(
                "no outgoing sequence flow can be taken: every condition is false "
                "and there is no default flow",
                ctx.node.id,
            )
        return taken


class ActivityBehaviour(FlowNodeBehaviour):
    """Activities refuse what the engine cannot honour yet, before doing any work."""

    def arrive(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, Activity)
        # an inner instance (only a loop has them): the body holds the boundary events,
        # armed once for every instance
        if node.loop and ctx.body_of(ctx.track) is not None:
            ctx.activated()
            self.execute(ctx)
            return
        if node.loop:
            refused = getattr(node.loop_characteristics, "refused", None)
            if node.loop_characteristics is None or refused:
                raise Incident(
                    f"{node.loop} loop characteristics (line {node.line}) are not supported"
                    + (f": {refused}" if refused else " yet"),
                    node.id,
                )
        ctx.activated()
        subscriptions = self.arm_boundaries(ctx) if node.boundary_events else []
        if node.loop:
            start_body(ctx, self)
        else:
            self.execute(ctx)
        if subscriptions and ctx.track.element == node.id and ctx.track.live:
            deliver_buffered(ctx, subscriptions)  # a message that came before the activity

    def complete(self, ctx: StepContext) -> None:
        """An inner instance of a loop or multi-instance completes into its body. What a
        later compensation may undo is recorded first (`events/compensation.py`)."""
        compensation.record(ctx)
        if ctx.node.loop and ctx.body_of(ctx.track) is not None:  # only a loop has a body
            instance_completed(ctx, self)
            return
        super().complete(ctx)

    def arm_boundaries(self, ctx: StepContext) -> list[Subscription]:
        """Timers, messages, signals and conditions attached to the activity start waiting
        with it (errors and escalations are looked for by the thrower: `events/errors.py`)."""
        node = ctx.node
        assert isinstance(node, Activity)
        waits: list[Subscription | Timer] = []
        for boundary_id in node.boundary_events:
            boundary = ctx.scope_model.nodes[boundary_id]
            definitions = getattr(boundary, "definitions", ())
            kinds = ", ".join(d.kind for d in definitions) or "none"
            # errors, escalations, cancels and compensations are looked for by their thrower
            searched = [d for d in definitions if d.kind in SEARCHED]
            waited = [d for d in definitions if d.kind in KINDS and d.kind != "link"]
            if not definitions and getattr(boundary, "awaits_trigger", False):
                none = EventDefinition("none", boundary.line)  # drawn with no kind: a click
                waits.append(arming(boundary, none).arm(ctx, boundary, none, node.id))
            elif definitions and len(searched) + len(waited) == len(definitions):
                # thrown errors and escalations look for their catchers (events/errors.py);
                # every other trigger of a (multiple) boundary event waits from now on
                waits += [arming(boundary, d).arm(ctx, boundary, d, node.id) for d in waited]
            else:
                ctx.warn(
                    f"boundary event {boundary_id!r} ({kinds}, line {boundary.line}) is not "
                    "armed: boundary events of this kind are not supported yet"
                )
        return [w for w in waits if isinstance(w, Subscription)]

    def inputs(self, ctx: StepContext) -> dict:
        """The activity's locals: its input mappings, then what its data associations,
        data inputs and properties give it (`data_associations.py`)."""
        node = ctx.node
        assert isinstance(node, Activity)
        if ctx.start_inputs is not None and ctx.start_inputs[0] == node.id:
            return dict(ctx.start_inputs[1])  # computed before the start listeners ran
        mapped = ctx.mapped(node.io.inputs, {}) if node.io is not None and node.io.inputs else {}
        if node.data is None:
            return mapped
        return {**mapped, **data_associations.read(ctx, node, mapped)}

    def finish_with(self, ctx: StepContext, results: dict, inputs: dict) -> None:
        """Apply what the work produced: through output mappings if any, else directly.

        With output mappings only the mapped values leave the activity (Zeebe semantics), with
        data outputs only those; input-mapped locals never leak out, and data output
        associations carry values to their targets.
        """
        node = ctx.node
        assert isinstance(node, Activity)
        if node.listeners:
            written = listeners.run_post_scripts(ctx, node, {**inputs, **results})
            results = {**results, **written}
        else:  # nothing to run: what it would note, without merging the data for it
            ctx.post_scripts_ran = node.id
        if node.io is not None and node.io.outputs:
            values = ctx.mapped(node.io.outputs, {**inputs, **results})
        elif node.data is not None and node.data.outputs is not None:
            values = {}  # only the data outputs come back
        else:
            values = {k: v for k, v in results.items() if k not in inputs}
        if node.data is not None:
            values.update(data_associations.write(ctx, node, {**inputs, **results}))
        ctx.set_variables(values)
