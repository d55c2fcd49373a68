"""The ad-hoc subprocess: inner activities run when activated, not from a start event.

The track at the ad-hoc subprocess waits as `AD_HOC` while it accepts activations: a person
activates an inner activity without incoming flows (`Instance.activate`), or Zeebe's
`activeElementsCollection` names some on entry. Inner sequence flows run as usual. After each
inner activity completes, the `completionCondition` is evaluated over the subprocess's
variables; when it holds, the subprocess completes: its running activities are cancelled
(`cancelRemainingInstances`, the default), or, with `cancelRemainingInstances="false"`, it
waits as `AD_HOC_COMPLETING` (no more activations) until they end. Without a completion
condition it completes when an inner path ends and nothing inside runs any more, as Camunda 8
does; with nothing activated yet it waits. `ordering="Sequential"` allows one inner activity
(and the path after it) at a time. All of it is rows: a resumed instance can be activated.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Activity, AdHocSubProcess, Definitions
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import InstanceState, ScopeState, TrackState
from bpmn_engine.records.rows import AD_HOC, AD_HOC_COMPLETING, Track
from bpmn_engine.runtime.behaviours.base import ActivityBehaviour
from bpmn_engine.runtime.behaviours.subprocesses import (
    SubProcessBehaviour,
    warn_unarmed_event_subprocesses,
)
from bpmn_engine.runtime.events import subprocesses as event_subprocesses
from bpmn_engine.runtime.step.context import Incident, StepContext


def inner_scope(ctx: StepContext) -> int:
    """The scope the ad-hoc subprocess's current activation opened."""
    return max(s.id for s in ctx.data.scopes.values() if s.track == ctx.track.id)


def running(data: InstanceData, scope_id: int) -> list[Track]:
    """The tokens inside an ad-hoc subprocess's scope, oldest first."""
    tokens = [t for t in data.live_tracks(scope_id) if not t.listening]
    return sorted(tokens, key=lambda t: t.seq)


class AdHocSubProcessBehaviour(SubProcessBehaviour):
    """Its scope opens empty; `activate` starts tokens in it; it decides when it completes.
    (Completing, output mappings and data associations: as an embedded subprocess.)"""

    def arrive(self, ctx: StepContext) -> None:
        ActivityBehaviour.arrive(self, ctx)

    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, AdHocSubProcess)
        scope = ctx.step.new_scope(node.id, ctx.track.scope, ctx.track.id)
        ctx.set_local(scope.id, {**dict.fromkeys(node.scope.variables), **self.inputs(ctx)})
        ctx.wait(AD_HOC, scope=scope.id, activatable=list(node.activatable))
        warn_unarmed_event_subprocesses(ctx, node.scope)
        event_subprocesses.listen(ctx, scope.id, node.scope)
        if node.active_elements is not None:
            for element in self.collection(ctx, node):
                self.activate(ctx, element)

    def collection(self, ctx: StepContext, node: AdHocSubProcess) -> list[str]:
        """Zeebe's `activeElementsCollection`: the inner activities to activate on entry."""
        assert node.active_elements is not None
        value = ctx.evaluate(node.active_elements, what="activeElementsCollection")
        if value is None:
            return []
        allowed = node.activatable
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise Incident(
                f"activeElementsCollection must be a list of element ids, not {value!r}", node.id
            )
        unknown = [v for v in value if v not in allowed]
        if unknown:
            raise Incident(
                f"activeElementsCollection names {', '.join(map(repr, unknown))}: not an "
                f"activity of the ad-hoc subprocess without incoming flows "
                f"(activatable: {', '.join(allowed)})",
                node.id,
            )
        if node.sequential and len(value) > 1:
            raise Incident(
                f"activeElementsCollection names {len(value)} activities, but the ad-hoc "
                "subprocess runs one at a time (ordering Sequential)",
                node.id,
            )
        return value

    def activate(self, ctx: StepContext, element: str) -> None:
        """Start a token at an inner activity (checked by `holder_for` or `collection`)."""
        scope_id = inner_scope(ctx)
        track = ctx.step.new_track(
            element=element, scope=scope_id, status=TrackState.READY, parent=ctx.track.id
        )
        ctx.emit("ad-hoc.activated", activity=element, activated_track=track.id)

    def inner_left(self, ctx: StepContext, inner: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, AdHocSubProcess)
        scope_id = inner.track.scope
        if ctx.track.wait != AD_HOC or ctx.data.scopes[scope_id].status is not ScopeState.ACTIVE:
            return  # completing: it completes when its scope runs dry (`may_complete`)
        if isinstance(inner.node, Activity) and node.completion is not None:
            extra = ctx.data.variables.visible(scope_id)
            if ctx.holds(node.completion, extra, "the completionCondition"):
                ctx.emit("ad-hoc.completion-condition", after=inner.node.id)
                self.finish(ctx, scope_id, cancel=node.cancel_remaining)
                return
        if node.completion is None and not ctx.data.has_tokens(scope_id):
            self.finish(ctx, scope_id, cancel=False)

    def finish(self, ctx: StepContext, scope_id: int, *, cancel: bool) -> None:
        """Stop taking activations; complete now, or once what still runs has ended."""
        ctx.step.touch_track(ctx.track)
        ctx.track.wait = AD_HOC_COMPLETING
        if ctx.data.has_tokens(scope_id):
            if not cancel:
                ctx.emit(
                    "ad-hoc.completing", running=[t.element for t in running(ctx.data, scope_id)]
                )
                return
            ctx.terminate_scope(scope_id)
        ctx.scope_completed(scope_id)

    def may_complete(self, ctx: StepContext, scope_id: int) -> bool:
        return ctx.track.wait == AD_HOC_COMPLETING


def holder_for(definitions: Definitions, data: InstanceData, element: str) -> Track:
    """The waiting ad-hoc subprocess in which `element` can be activated now, or a
    `UsageError` saying why none can (for `Instance.activate`)."""
    scope = definitions.node_scopes.get(element)
    if scope is None:
        raise UsageError(f"no element {element!r} in {definitions.path}")
    container = definitions.node_scopes.get(scope.id)
    node = container.nodes.get(scope.id) if container is not None else None
    if not isinstance(node, AdHocSubProcess):
        raise UsageError(f"{element} is not inside an ad-hoc subprocess: it cannot be activated")
    if element not in node.activatable:
        raise UsageError(
            f"{element} cannot be activated: in ad-hoc subprocess {node.id} only activities "
            f"without incoming sequence flows can (activatable: {', '.join(node.activatable)})"
        )
    if data.head.state is not InstanceState.ACTIVE:
        raise UsageError(f"instance {data.head.id} is {data.head.state}: nothing to activate")
    holders = sorted(
        (
            t
            for t in data.tracks.values()
            if t.element == node.id and t.status is TrackState.WAITING
        ),
        key=lambda t: t.id,
    )
    accepting = [t for t in holders if t.wait == AD_HOC]
    if not accepting:
        if any(t.wait == AD_HOC_COMPLETING for t in holders):
            raise UsageError(
                f"ad-hoc subprocess {node.id} is completing (its completion condition held): "
                "it takes no more activations"
            )
        raise UsageError(
            f"ad-hoc subprocess {node.id} is not active in instance {data.head.id}: "
            f"{element} cannot be activated now"
        )
    holder = accepting[0]
    if node.sequential:
        scope_id = max(s.id for s in data.scopes.values() if s.track == holder.id)
        busy = running(data, scope_id)
        if busy:
            raise UsageError(
                f"ad-hoc subprocess {node.id} runs one activity at a time (ordering "
                f"Sequential): {busy[0].element} is still running"
            )
    return holder


def activatable(definitions: Definitions, data: InstanceData, track: Track) -> list[str]:
    """What a person may activate now in the ad-hoc subprocess `track` waits at (nothing
    while a Sequential one runs an activity)."""
    node: Any = definitions.node_scopes[track.element].nodes[track.element]
    if not isinstance(node, AdHocSubProcess) or track.wait != AD_HOC:
        return []
    if node.sequential:
        scope_id = max(s.id for s in data.scopes.values() if s.track == track.id)
        if running(data, scope_id):
            return []
    return list(node.activatable)
