"""A process instance and its single-writer step loop.

Scheduling order (documented and deterministic): the ready track that became ready first runs
next (lowest `seq`); tracks orphaned mid-job by a crash are retried before anything else;
when nothing is ready, a waiting inclusive join whose OR-join rule now holds fires (the one
that has waited longest first). Each step runs one node's behaviour and commits one
transaction. The loop is iterative: a loop in the diagram costs no stack depth.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import BpmnEngineError, BpmnError, UsageError
from bpmn_engine.model import Activity, Definitions, Process, StartEvent, Task
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import (
    INSTANCE_WAITING,
    STILL_WAITING,
    InstanceState,
    ScopeState,
    SubscriptionState,
    TaskState,
    TimerState,
    TrackState,
)
from bpmn_engine.records.rows import (
    AD_HOC,
    AD_HOC_COMPLETING,
    CONSUMED,
    JOB,
    NOT_TOKENS,
    RETRY,
    Event,
    Receipt,
    Sent,
    Subscription,
    Timer,
    Track,
    UserTask,
)
from bpmn_engine.runtime import calls, collector, handlers, retries
from bpmn_engine.runtime.behaviours import ad_hoc, behaviour_for
from bpmn_engine.runtime.behaviours.ad_hoc import AdHocSubProcessBehaviour
from bpmn_engine.runtime.behaviours.call_activities import CHILD_FAILED, CallActivityBehaviour
from bpmn_engine.runtime.behaviours.call_activities import WAIT as CALL_WAIT
from bpmn_engine.runtime.behaviours.complex_gateway import RECORDS, ComplexGatewayBehaviour
from bpmn_engine.runtime.behaviours.events import CatchEventBehaviour
from bpmn_engine.runtime.behaviours.gateways import InclusiveGatewayBehaviour
from bpmn_engine.runtime.behaviours.tasks import (
    ReceiveTaskBehaviour,
    ServiceTaskBehaviour,
    UserTaskBehaviour,
)
from bpmn_engine.runtime.calls import CallRow
from bpmn_engine.runtime.checkpoints import Checkpoints, UnstorableStep
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.events.conditional import CONDITIONAL
from bpmn_engine.runtime.events.errors import throw_error, throw_escalation
from bpmn_engine.runtime.events.trigger import (
    deliver,
    deliver_buffered,
    fire_condition,
    fire_timer,
    won,
)
from bpmn_engine.runtime.forms import checked_form
from bpmn_engine.runtime.scheduler import Action, ActionKind, Scheduler
from bpmn_engine.runtime.tree import CallTree
from bpmn_engine.runtime.triggers import TRIGGER, TriggerWait, trigger_waits
from bpmn_engine.runtime.variables import storable_all

TRANSACTION_OUTCOMES = ("transaction.completed", "transaction.cancelled", "transaction.interrupted")
# tracks that wait for the tracks inside them (listed in their stead)
BODY_WAITS = ("subprocess", "multi-instance", "loop")

if TYPE_CHECKING:
    import networkx as nx

    from bpmn_engine.runtime.engine import Engine

Listener = Callable[[Event], None]
StepWork = Callable[[StepContext], None]


def checked_variables(values: dict[str, Any]) -> dict[str, Any]:
    """Variables from a caller, as stored; a value that cannot be stored is the caller's error."""
    try:
        return storable_all(values)
    except ValueError as error:
        raise UsageError(str(error)) from None


@dataclass
class Outcome:
    """Where a run stopped: completed, waiting, failed or terminated."""

    instance: str
    state: str
    variables: dict[str, Any]
    end_event: str | None = None
    incident: str | None = None
    waiting_for: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event": f"instance.{self.state}",
            "instance": self.instance,
            "variables": self.variables,
        }
        if self.end_event:
            out["end_event"] = self.end_event
        if self.incident:
            out["incident"] = self.incident
        if self.state == INSTANCE_WAITING:
            out["waiting_for"] = self.waiting_for
        return out


def _person_hint(element: str, members: list[Instance]) -> str:
    """'; ELEMENT is a user task: bpmn complete' when one of them waits there for a person."""
    if any(m.waiting_task(element) is not None for m in members):
        return f"; {element!r} is a user task waiting for a person: complete it (bpmn complete)"
    return ""


def _arrive(ctx: StepContext) -> None:
    behaviour_for(ctx.node).arrive(ctx)


MAX_INCIDENT = 10_000
"""Characters of an incident's message that are kept: it is stored in the instance row, its
history and the outcome (a JavaScript error of 30 MB was stored three times per failure)."""


def incident_text(message: str) -> str:
    """The message as stored: cut at MAX_INCIDENT characters, saying how much was left out."""
    if len(message) <= MAX_INCIDENT:
        return message
    return f"{message[:MAX_INCIDENT]}... ({len(message) - MAX_INCIDENT:,} more characters)"


class Instance:
    """One running (or finished) process instance, backed by its rows in the store."""

    def __init__(self, engine: Engine, data: InstanceData, definitions: Definitions) -> None:
        self.engine = engine
        self.data = data
        self.definitions = definitions
        self.checkpoints = Checkpoints(engine.store, engine.checkpoint)
        # jobs a crash left `executing` are re-run, unless a live worker still holds them
        self._orphans = [
            t.id
            for t in data.tracks.values()
            if t.status is TrackState.EXECUTING and not engine.store.live_claim(data.head.id, t.id)
        ]
        # service tasks that waited for a handler this engine has: served first thing
        self._jobs = [
            t.id
            for t in data.tracks.values()
            if t.status is TrackState.WAITING
            and t.wait == JOB
            and engine.has_handler(definitions.node(t.element))
        ]
        self.scheduler = Scheduler(
            data,
            definitions,
            lambda: engine.clock,
            self._condition_holds,
            self._orphans,
            self._jobs,
        )
        self._actions: dict[ActionKind, Callable[[Action, Any, Listener | None], None]] = {
            ActionKind.RESUME_JOB: self._resume_job,
            ActionKind.SERVE_JOB: self._serve_job,
            ActionKind.ENTER: self._enter_action,
            ActionKind.JOIN: self._fire_join,
            ActionKind.TIMER: self._fire_timer,
            ActionKind.CONDITION: self._fire_condition,
            ActionKind.COMPLETE_TASK: self._complete_action,
            ActionKind.TRIGGER: self._trigger_action,
        }
        # message subscriptions that look for a buffered message in turn (`_take_buffered`)
        self._buffered_looks: list[Subscription] | None = None

    # --- reading ------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.data.head.id

    @property
    def state(self) -> InstanceState:
        return self.data.head.state

    @property
    def version(self) -> int:
        """How many times the instance row was committed: one more with every step (the
        compare-and-set version; a rewind moves it on too)."""
        return self.data.head.version

    @property
    def parent(self) -> str | None:
        """The instance whose call activity started this one (None for a root instance)."""
        return self.data.head.parent_instance

    @property
    def business_key(self) -> str | None:
        """The key it was started with (`Engine.start(business_key=...)`), or its caller
        passed on (`<camunda:in businessKey>`); None without one."""
        return self.data.head.business_key

    @property
    def call_depth(self) -> int:
        """How many call activities deep this instance runs (a root instance: 0)."""
        return self.data.head.call_depth

    @property
    def process_id(self) -> str:
        return self.data.head.process

    @property
    def graph(self) -> nx.MultiDiGraph:
        """The instance's view of its process graph.

        A read-only view of the shared frozen template: nothing about a graph changes per
        instance, so the clone costs nothing and isolation is enforced by networkx; the
        instance's own state (tracks, scopes, variables, joins) lives in its rows.
        """
        return self.definitions.processes[self.process_id].graph.copy(as_view=True)

    @property
    def variables(self) -> dict[str, Any]:
        # sorted by name: rows come back in key order, so memory must not depend on history
        return copy.deepcopy(dict(sorted(self.data.values.get(self.data.root_scope, {}).items())))

    def tokens(self) -> list[dict[str, Any]]:
        """The tokens: a projection of the live tracks' positions (seed 001)."""
        tracks = sorted(self.data.tracks.values(), key=lambda t: t.id)
        return [t.token() for t in tracks if t.live and not t.listening]

    def user_tasks(self) -> list[UserTask]:
        return [t for t in self.data.tasks.values() if t.status is TaskState.WAITING]

    def history(self) -> list[Event]:
        return self.engine.store.history(self.id)

    def is_stuck(self) -> bool:
        """Whether this (committed, active) instance can never move on: no track can run and
        nothing it waits for exists (`Store.stuck_instances`), e.g. a parallel join waiting
        for a token that ended elsewhere. Such a run is no ordinary wait."""
        return self.engine.store.stuck_instances(self.id) == [self.id]

    def history_times(self) -> dict[int, str]:
        """When each event of `history()` was committed (ISO 8601 text, by its `seq`): the
        events themselves carry none, so that a replay makes the same history."""
        return self.engine.store.history_times(self.id)

    @property
    def definition_version(self) -> str:
        """The content hash of the definitions this instance is pinned to."""
        return self.data.head.definition

    def scope_element(self, scope_id: int) -> str:
        """The element (process or subprocess) a scope of this instance belongs to: a token's
        `scope` is this id, and people want to read the element."""
        return self.data.scopes[scope_id].element

    def transactions(self) -> list[dict[str, Any]]:
        """Each transaction this instance ran, with how it ended: completed, cancelled (a
        cancel end event compensated it) or interrupted (an error or another boundary event)."""
        return [
            {"element": e.element, "track": e.track, "outcome": e.event.split(".", 1)[1]}
            for e in self.history()
            if e.event in TRANSACTION_OUTCOMES
        ]

    def subscriptions(self) -> list[Subscription]:
        """The message, signal and conditional subscriptions that wait now, oldest first (a
        held condition included: it waits for its condition to turn false, then true)."""
        waiting = [s for s in self.data.subscriptions.values() if s.status in STILL_WAITING]
        return sorted(waiting, key=lambda s: s.id)

    def due(self, action: Action) -> datetime | None:
        """When a timer action (from `enabled`) falls due; None for any other action."""
        if action.kind is not ActionKind.TIMER or action.task is None:
            return None
        return datetime.fromisoformat(self.data.timers[action.task].due)

    @property
    def incident_origin(self) -> str:
        """The instance to fix and resume for this one's incident: itself, or the called
        instance (at any depth) whose incident failed this one's call activity."""
        for track in self.data.tracks.values():
            if track.status is TrackState.FAILED and track.wait == CHILD_FAILED:
                child = self.engine.instance(calls.child_id(self.id, track))
                return child.incident_origin
        return self.id

    def outcome(self) -> Outcome:
        head = self.data.head
        state = str(head.state)
        if head.state is InstanceState.ACTIVE:
            movable = self._orphans or self.data.next_ready() is not None
            state = str(InstanceState.ACTIVE) if movable else INSTANCE_WAITING
        return Outcome(
            instance=head.id,
            state=state,
            variables=self.variables,
            end_event=head.end_event,
            incident=head.incident,
            waiting_for=self._waiting_for(),
        )

    def _waiting_for(self) -> list[dict[str, Any]]:
        waits = [
            {
                "task": task.id,
                "element": task.element,
                "name": task.name,
                "track": task.track,
                "fields": [
                    f.id
                    for f in getattr(
                        self.definitions.node_scopes[task.element].nodes[task.element],
                        "form_fields",
                        (),
                    )
                ],
            }
            for task in self.user_tasks()
        ]
        seen = {w["track"] for w in waits}
        for track in self.data.tracks.values():
            if track.status is TrackState.WAITING and track.id not in seen:
                if track.wait in (
                    *BODY_WAITS,
                    "timer",
                    "message",
                    "signal",
                    "conditional",
                    "event",
                    *NOT_TOKENS,
                    CONSUMED,  # passed on by the gateway's reset, not waiting for anyone
                    AD_HOC_COMPLETING,
                    TRIGGER,
                    RETRY,  # listed with its timer
                ):
                    continue  # listed below, with what they wait for
                wait = {"element": track.element, "reason": track.wait, "track": track.id}
                if track.wait == JOB:  # the names a handler may have to serve it
                    node = self.definitions.node(track.element)
                    wait["handlers"] = list(getattr(node, "handler_names", ()))
                if track.wait == AD_HOC:
                    wait["activatable"] = ad_hoc.activatable(self.definitions, self.data, track)
                    if not wait["activatable"]:
                        continue  # a Sequential one that runs an activity: listed as such
                waits.append(wait)
        for trigger in self.waiting_triggers():  # `bpmn trigger` names it by id or name
            wait = {
                "element": trigger.element,
                "reason": TRIGGER,
                "track": trigger.track,
                "name": self._name_of(trigger.element),
            }
            waits.append(wait | ({"gateway": trigger.gateway} if trigger.gateway else {}))
        for subscription in self.data.subscriptions.values():
            if subscription.status in STILL_WAITING:
                waits.append(
                    {
                        "element": subscription.element,
                        "reason": subscription.kind,
                        "name": subscription.name,
                        "key": subscription.key,
                        "track": subscription.track,
                    }
                )
                if subscription.kind == "conditional":  # what a change must make true
                    waits[-1]["condition"] = self._condition_text(subscription.element)
        for timer in self.data.timers.values():
            if timer.status is TimerState.WAITING:
                wait = {"element": timer.element, "reason": "timer", "due": timer.due}
                track = self.data.tracks[timer.track]
                if track.wait == RETRY and track.element == timer.element:  # a job's next try
                    wait |= {"reason": RETRY, "attempt": track.attempt + 1}
                waits.append(wait | {"track": timer.track})
        for wait in waits:  # not started yet: it waits at its start events
            if "task" not in wait and self._is_process_start(wait["element"]):
                wait["start"] = True
        return waits

    def _is_process_start(self, element: str) -> bool:
        """A start event of the process itself (an event subprocess's listens instead)."""
        scope = self.definitions.node_scopes.get(element)
        return isinstance(scope, Process) and isinstance(scope.nodes[element], StartEvent)

    def _condition_text(self, element: str) -> str | None:
        node = self.definitions.node(element)
        for definition in getattr(node, "definitions", ()):
            if definition.kind == "conditional" and definition.condition is not None:
                return str(definition.condition.text)
        return None

    # --- running ------------------------------------------------------------------------------
    def run(
        self,
        on_event: Listener | None = None,
        wait_timers: float = 0.0,
        wait_retries: float = 0.0,
    ) -> Outcome:
        """Run until the instance completes, fails, or every live track waits.

        With the real clock, a timer due within `wait_timers` seconds is waited for (the
        process sleeps), and a failed job's next try within `wait_retries` (or `wait_timers`);
        later ones leave the instance waiting, as rows, for a later resume or a worker.
        """
        self.engine.postman.flush(self, on_event)  # what a crash left before its delivery
        with collector.young_only(), self.checkpoints.batch():
            while self.data.head.state is InstanceState.ACTIVE:
                if self.step_once(on_event):
                    continue
                waits = wait_timers > 0 or wait_retries > 0
                found = self._earliest_timer_in_tree() if waits else None
                if found is None:
                    break
                holder, timer = found
                delay = (
                    datetime.fromisoformat(timer.due) - self.engine.clock.now()
                ).total_seconds()
                retry = holder.data.tracks[timer.track].wait == RETRY
                if delay > (max(wait_timers, wait_retries) if retry else wait_timers):
                    break
                self.checkpoints.flush()  # a sleep is a wait state
                time.sleep(max(delay, 0.0))
                if holder is not self:
                    self._run_called(holder, on_event)
        return self.outcome()

    def _earliest_timer_in_tree(self) -> tuple[Instance, Timer] | None:
        """The timer due first in this instance or any instance its call activities started
        (directly or not), with its holder: `--wait-timers` waits for the whole tree."""
        found = [(self, t) for t in [self.scheduler.earliest_timer()] if t is not None]
        for called in CallTree(self.engine, self, self.engine.instance).called():
            timer = called.scheduler.earliest_timer()
            if called.state is InstanceState.ACTIVE and timer is not None:
                found.append((called, timer))
        return min(found, key=lambda pair: datetime.fromisoformat(pair[1].due), default=None)

    def _run_called(self, called: Instance, on_event: Listener | None) -> None:
        """Run an instance of the tree whose timer fell due; what it sends (its completion,
        on up to this instance) is delivered to this very object, which runs on."""
        with self.engine.postman.deferred():
            called.run(on_event)
        self.engine.postman.flush(self, on_event)

    def step_once(self, on_event: Listener | None = None) -> bool:
        """Do the next thing in scheduling order; False when nothing can happen now."""
        if not self._orphans and not self.scheduler.conditions_dirty:  # the common case
            track = self.data.next_ready()
            if track is not None:
                self._enter(track, on_event)
                return True
        action = self.scheduler.next()
        if action is None:
            return False
        self.step(action, on_event=on_event)
        return True

    def enabled(self) -> list[Action]:
        """Everything that can happen next, the engine's own choice first (`scheduler.py`);
        completing a waiting user task (`complete-task`) needs a person and comes last."""
        return self.scheduler.enabled()

    def step(
        self,
        action: Action | None = None,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
    ) -> Action | None:
        """Do one thing: `action` (one of `enabled()`), or the engine's next choice."""
        action = action or self.scheduler.next()
        if action is None:
            return None
        self._actions[action.kind](action, variables, on_event)
        return action

    def _resume_job(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        self._orphans.remove(action.track)
        self._external(self.data.tracks[action.track], on_event)

    def _serve_job(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        self._jobs.remove(action.track)
        track = self.data.tracks[action.track]
        if track.status is not TrackState.WAITING or track.wait != JOB:
            raise UsageError(f"track {track.id} does not wait for a handler at {track.element}")

        def serve(ctx: StepContext) -> None:
            ctx.step.touch_track(ctx.track).move(TrackState.EXECUTING)
            ctx.track.wait = None
            behaviour_for(ctx.node).execute(ctx)

        ctx = self._step(track, serve, on_event)
        if ctx is not None and ctx.external is not None:
            self._run_job(ctx, on_event)

    def _enter_action(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        track = self.data.tracks[action.track]
        if track.status is not TrackState.READY:
            raise UsageError(f"track {track.id} is not ready to enter {track.element}")
        self._enter(track, on_event)

    def _fire_join(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        track = self.data.tracks[action.track]
        chosen = self.scheduler.join_choice(track)
        if chosen is None:
            raise UsageError(f"the join {action.element} cannot fire yet")
        if track.wait in RECORDS:  # a complex gateway waiting for reset
            records = chosen
            complex_ = ComplexGatewayBehaviour()
            self._step(track, lambda c: complex_.reset(c, records), on_event)
            return
        behaviour = InclusiveGatewayBehaviour()
        self._step(chosen[0], lambda c: behaviour.fire_join(c, chosen), on_event)

    def _fire_timer(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        timer = self.data.timers[action.task or 0]
        if self.engine.clock.virtual:
            self.engine.clock.advance_to(datetime.fromisoformat(timer.due))
        track = self.data.tracks[action.track]
        if track.wait == RETRY:  # a failed job's next try: its handler runs again
            ctx = self._step(track, lambda c: retries.try_again(c, timer), on_event)
            if ctx is not None and ctx.external is not None:
                self._run_job(ctx, on_event)
            return
        self._step(track, lambda c: fire_timer(c, timer), on_event)

    def _fire_condition(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        subscription = self.data.subscriptions[action.task or 0]
        track = self.data.tracks[action.track]
        self._step(track, lambda c: fire_condition(c, subscription), on_event)

    def _complete_action(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        self.complete_task(action.task or action.element, variables, on_event)

    def _trigger_action(self, action: Action, variables: Any, on_event: Listener | None) -> None:
        self.trigger(action.element, variables, on_event, track=action.track)

    def _condition_holds(self, subscription: Subscription) -> bool:
        track = self.data.tracks[subscription.track]
        ctx = StepContext(self.engine, self.definitions, self.data, Step(self.data), track)
        try:
            return CONDITIONAL.holds(ctx, subscription)
        except Incident:
            return True  # let the step evaluate it again and fail with the incident

    def opens_body(self, action: Action) -> bool:
        """Whether `action` is a token entering a multi-instance or looping activity from
        outside: it opens the body, whose inner instances then each enter the activity (a
        debugger's breakpoint on the activity stops before those, not before the body)."""
        if action.kind is not ActionKind.ENTER:
            return False
        track = self.data.tracks.get(action.track)
        node = self.definitions.node(action.element)
        return (
            track is not None
            and isinstance(node, Activity)
            and node.loop is not None
            and self.data.scopes[track.scope].element != node.id
        )

    def set_variables(
        self,
        values: dict[str, Any],
        unset: tuple[str, ...] = (),
        on_event: Listener | None = None,
        track: int | None = None,
    ) -> None:
        """Change variables from outside (a person stepping, an operator fixing): process
        variables, or with `track` those a live token sees, written as the token itself would
        (where its scope chain defines the name, else in the process scope), so a value set
        for an inner instance of a multi-instance stays that instance's."""
        scope = self.data.root_scope if track is None else self._live_track(track).scope
        values = checked_variables(values)
        owners = {name: self.data.variables.owner(scope, name) for name in unset}
        for name, owner in owners.items():
            if name not in self.data.values.get(owner, {}):
                where = "the process scope" if track is None else f"the scope of track {track}"
                raise UsageError(f"no variable {name!r} in {where}")
        step = Step(self.data)
        for name, value in values.items():
            step.set_value(self.data.variables.owner(scope, name), name, value)
        for name, owner in owners.items():
            step.delete_value(owner, name)
        element = self.process_id if track is None else self.data.tracks[track].element
        step.emit("variables.updated", element, track, variables=dict(values), unset=list(unset))
        self._commit(step, on_event)

    def _live_track(self, track_id: int) -> Track:
        track = self.data.tracks.get(track_id)
        if track is None or not track.live or track.listening:
            raise UsageError(f"no live token with track {track_id}")
        return track

    def throw_signal(
        self,
        name: str,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
    ) -> None:
        """Broadcast a signal from this instance, as a signal throw event would: one step of
        this instance writes it to the outbox, and it is delivered after that step (to this
        instance too, and to every other instance and deployment waiting for it)."""
        if not name:
            raise UsageError("a signal needs a name")
        values = checked_variables(variables or {})
        step = Step(self.data)
        step.sent.append(Sent("signal", name, None, values))
        step.emit("signal.thrown", None, None, name=name)
        self._commit(step, on_event)

    def deliver(
        self,
        subscription_id: int,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        receipt: Receipt | None = None,
    ) -> None:
        """A message or signal for one of this instance's subscriptions: one step, which
        records `receipt` (so the same delivery cannot commit twice)."""
        subscription = self.data.subscriptions[subscription_id]
        if subscription.status is not SubscriptionState.WAITING:
            raise UsageError(f"subscription {subscription_id} no longer waits")
        values = checked_variables(variables or {})
        track = self.data.tracks[subscription.track]

        def received(ctx: StepContext) -> None:
            ctx.step.receive(receipt)
            deliver(ctx, subscription, values)

        self._step(track, received, on_event)

    def choose(self, gateway: str, flows: list[str]) -> None:
        """Take these flows at the gateway's next decision, whatever its conditions say."""
        scope = self.definitions.node_scopes.get(gateway)
        if scope is None:
            raise UsageError(f"no element {gateway!r} in {self.definitions.path}")
        node = scope.nodes[gateway]
        unknown = [f for f in flows if f not in node.outgoing]
        if unknown or not flows:
            known = ", ".join(node.outgoing) or "none"
            raise UsageError(
                f"{gateway} has no outgoing flow {', '.join(unknown) or '(none given)'}; "
                f"its outgoing flows: {known}"
            )
        if node.kind == "exclusiveGateway" and len(flows) != 1:
            raise UsageError(f"exclusive gateway {gateway} takes exactly one flow")
        self.data.choices[gateway] = tuple(flows)

    def activate(self, element: str, on_event: Listener | None = None) -> None:
        """Activate an inner activity of a waiting ad-hoc subprocess (one step); a
        `UsageError` says why it cannot be now (`behaviours/ad_hoc.py`)."""
        holder = ad_hoc.holder_for(self.definitions, self.data, element)
        self._step(holder, lambda c: AdHocSubProcessBehaviour().activate(c, element), on_event)

    def complete_task(
        self,
        task: str | int,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
    ) -> None:
        """Complete a waiting user task (by task number, element id or name)."""
        found = self.find_task(task)
        node = self.definitions.node_scopes[found.element].nodes[found.element]
        label = found.element + (f" ({found.name})" if found.name else "")
        variables = checked_form(label, node.form_fields, checked_variables(variables or {}))
        behaviour = behaviour_for(node)
        assert isinstance(behaviour, UserTaskBehaviour)
        track = self.data.tracks[found.track]
        self._step(track, lambda c: behaviour.complete_with(c, variables or {}), on_event)

    def waiting_task(self, task: str | int) -> UserTask | None:
        """The waiting user task `task` names (its number, element id or name), if any."""
        for candidate in sorted(self.user_tasks(), key=lambda t: t.id):
            if str(task) in (str(candidate.id), candidate.element, candidate.name):
                return candidate
        return None

    def find_task(self, task: str | int) -> UserTask:
        found = self.waiting_task(task)
        if found is not None:
            return found
        waiting = sorted(self.user_tasks(), key=lambda t: t.id)
        names = ", ".join(f"{t.element}" + (f" ({t.name})" if t.name else "") for t in waiting)
        raise UsageError(
            f"instance {self.id} has no waiting user task {task!r}"
            + (f"; waiting: {names}" if names else "; it waits for no user task")
        )

    def waiting_triggers(self) -> list[TriggerWait]:
        """What waits for the API to trigger it (`runtime/triggers.py`: a receive task with
        no message and no name, a catch event with no definition, also as the choice of an
        event-based gateway's token), the oldest token first."""
        return trigger_waits(self.definitions, self.data)

    def triggers_at(self, element: str) -> list[TriggerWait]:
        """The tokens waiting for a trigger at `element`: its id, else its name (a
        `UsageError` when two waiting elements have that name)."""
        waiting = self.waiting_triggers()
        found = [t for t in waiting if t.element == element]
        if found:
            return found
        name = " ".join(element.split())
        found = [t for t in waiting if " ".join((self._name_of(t.element) or "").split()) == name]
        elements = sorted({t.element for t in found})
        if len(elements) > 1:
            raise UsageError(
                f"{element!r} names {len(elements)} elements of instance {self.id} that wait "
                f"for a trigger ({', '.join(elements)}): give the element's id"
            )
        return found

    def _name_of(self, element: str) -> str | None:
        return self.definitions.node_scopes[element].nodes[element].name

    def trigger(
        self,
        element: str,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        track: int | None = None,
    ) -> None:
        """Move on the token that waits at `element` (its id, or its name when unique) for
        the API to trigger it, as Camunda's `runtimeService.trigger` does; one step, in which
        `variables` are set first (through the element's output mappings, if it has any,
        else where the token's scope chain defines them, else in the process scope).
        `track` says which token when several wait there (a parallel multi-instance)."""
        found = self.triggers_at(element)
        if track is not None:
            found = [t for t in found if t.track == track]
        if not found:
            raise UsageError(self._not_waiting(element, track))
        if self.state is not InstanceState.ACTIVE:  # failed: its incident comes first
            raise UsageError(
                f"instance {self.id} is {self.state}: fix its incident and `bpmn resume` it "
                "before triggering anything"
            )
        if len(found) > 1:
            tracks = ", ".join(f"#{t.track}" for t in found)
            raise UsageError(
                f"{len(found)} tokens of instance {self.id} wait at {found[0].element!r} for "
                f"a trigger (tracks {tracks}): say which one (--track N)"
            )
        values = checked_variables(variables or {})
        waiting = found[0]
        node = self.definitions.node_scopes[waiting.element].nodes[waiting.element]
        behaviour = behaviour_for(node)
        assert isinstance(behaviour, ReceiveTaskBehaviour | CatchEventBehaviour)

        def moved(ctx: StepContext) -> None:
            if waiting.gateway is not None:  # chosen at an event-based gateway: it wins
                ctx = won(ctx, waiting.element)
            ctx.emit("element.triggered", variables=sorted(values))
            behaviour.triggered(ctx, values)

        self._step(self.data.tracks[waiting.track], moved, on_event)

    def trigger_holder(self, element: str) -> Instance:
        """The instance of this one's call tree (itself, or one it called, directly or not)
        whose token waits at `element` for a trigger; a `UsageError` naming the instances
        when several do, or what waits for a trigger when none does."""
        tree = CallTree(self.engine, self)
        members = tree.members()
        found = tree.triggered_at(element)
        if len(found) == 1:
            return found[0]
        if found:
            named = ", ".join(f"{m.id} ({m.process_id})" for m in found)
            raise UsageError(
                f"{element!r} waits for a trigger in {len(found)} instances of the call tree "
                f"of {self.id}: {named}; give the instance meant instead of {self.id}"
            )
        waiting = [w for m in members for w in m._waits_described(m is not self)]
        raise UsageError(
            f"no token of instance {self.id}"
            + (" or of the instances it called" if len(members) > 1 else "")
            + f" waits at {element!r} for a trigger"
            + (f"; waiting for a trigger: {', '.join(waiting)}" if waiting else "")
            + _person_hint(element, members)
        )

    def _not_waiting(self, element: str, track: int | None) -> str:
        token = "" if track is None else f" with track {track}"
        waiting = self._waits_described(False, tracks=track is not None)
        return (
            f"instance {self.id} has no token{token} waiting at {element!r} for a trigger"
            + (f"; waiting for a trigger: {', '.join(waiting)}" if waiting else "")
            + _person_hint(element, [self])
        )

    def _waits_described(self, where: bool, *, tracks: bool = False) -> list[str]:
        """'Element (name)' per trigger wait; `where`: with the instance; `tracks`: the track."""
        described = [
            t.element
            + (f" ({name})" if (name := self._name_of(t.element)) else "")
            + (f" #{t.track}" if tracks else "")
            + (f" in {self.id}" if where else "")
            for t in self.waiting_triggers()
        ]
        return list(dict.fromkeys(described))

    def retry(
        self, on_event: Listener | None = None, variables: dict[str, Any] | None = None
    ) -> int:
        """Make a failed instance active again: its failed tracks re-enter their element.

        `variables` (the fix for a missing or wrong value, like `zbctl set variables`) are set
        in the process scope in the same step, so the retry never runs without them.
        """
        values = checked_variables(variables or {})
        if self.data.head.state is not InstanceState.FAILED:
            if values:
                self.set_variables(values, on_event=on_event)
            return 0
        failed = [t for t in self.data.tracks.values() if t.status is TrackState.FAILED]
        waiting = [t for t in failed if t.wait == CHILD_FAILED]
        if waiting:  # re-entering would call a second child next to the failed one
            track = waiting[0]
            child = calls.child_id(self.id, track)
            raise UsageError(
                f"instance {self.id} failed because instance {child}, called by its call "
                f"activity {track.element!r}, failed: fix and resume {self.incident_origin}, "
                "where the incident is (this instance goes on when it completes)"
            )
        step = Step(self.data)
        if values:
            root = self.data.root_scope
            for name, value in values.items():
                step.set_value(self.data.variables.owner(root, name), name, value)
            step.emit("variables.updated", self.process_id, variables=dict(values), unset=[])
        step.set_state(InstanceState.ACTIVE)
        self.data.head.incident = None
        for track in sorted(failed, key=lambda t: t.id):
            step.requeue(track)
            step.emit("incident.retried", track.element, track.id)
        self._resolved_upward(step)
        self._commit(step, on_event)
        return len(failed)

    def give_up_job(self, track_id: int, reason: str, on_event: Listener | None = None) -> bool:
        """Fail a job that ran past the absolute cap: an incident at its task, not a retry.

        Its holder may be alive and wedged (its heartbeat thread keeps the lease fresh):
        re-running the job would likely wedge another worker the same way, over and over,
        while the first call may still have its effect. A person looks, and `retry` (`bpmn
        resume`) runs it again. The step is a compare-and-set on the track, so a result the
        holder returns later fails to commit. False if the job is no longer running.
        """
        track = self.data.tracks.get(track_id)
        if (
            track is None
            or track.status is not TrackState.EXECUTING
            or self.state is not InstanceState.ACTIVE
        ):
            return False
        self._fail(track_id, track.element, reason, on_event)
        return True

    def cancel(
        self, on_event: Listener | None = None, *, receipt: Receipt | None = None
    ) -> Outcome:
        """Terminate every live track (the cancellation cascade, down to the instances its
        call activities started) and end the instance. `receipt`: the cancel its caller sent."""
        if self.data.head.state in (InstanceState.COMPLETED, InstanceState.TERMINATED):
            return self.outcome()
        if self.parent is not None and receipt is None:  # as Zeebe: its caller would wait on
            raise UsageError(
                f"instance {self.id} was started by a call activity of instance "
                f"{self.parent}: cancel that one (the cancellation reaches this one)"
            )
        step = Step(self.data)
        step.receive(receipt)
        step.set_state(InstanceState.TERMINATING)
        root = self.data.root_scope
        anchor = StepContext(self.engine, self.definitions, self.data, step, self._any_track())
        try:
            anchor.terminate_scope(root)
            anchor.engine.listen(anchor, "cancel", self.definitions.processes[self.process_id])
        except (Incident, BpmnError) as failure:  # a delete listener failed: nothing changes
            step.rollback()
            where = f"{failure.element}: " if isinstance(failure, Incident) else ""
            raise UsageError(
                f"instance {self.id} was not cancelled: {where}{failure.message}"
            ) from None
        step.touch_scope(self.data.scopes[root]).move(ScopeState.TERMINATED)
        step.set_state(InstanceState.TERMINATED)
        step.emit("instance.terminated", variables=self.variables)
        self._commit(step, on_event)
        return self.outcome()

    def receive_call(self, row: CallRow, receipt: Receipt, on_event: Listener | None) -> bool:
        """A called instance's completion, error or escalation: one step of this instance at
        the call activity still waiting for exactly that child; False if none waits (it was
        interrupted meanwhile: the reply changes nothing)."""
        if row.kind == calls.RESOLVED:
            return self._child_resumed(row, receipt, on_event)
        track = self._caller_track(row)
        if track is None:
            return False
        if row.kind == calls.INCIDENT:  # the token at the call activity fails with it
            self._child_failed(track, row, receipt, on_event)
            return False
        node = self.definitions.node_scopes[track.element].nodes[track.element]
        behaviour = behaviour_for(node)
        assert isinstance(behaviour, CallActivityBehaviour)

        def received(ctx: StepContext) -> None:
            ctx.step.receive(receipt)
            if row.kind == calls.COMPLETION:
                ctx.emit("call.completed", child=row.child)
                behaviour.finish(ctx, row.variables, row.outputs, row.deleted)
            elif row.kind == calls.ERROR:
                ctx.emit("call.error", child=row.child, code=row.name)
                message = row.message or f"thrown in called instance {row.child}"
                throw_error(ctx, row.name, message, row.variables)
            else:
                ctx.emit("call.escalation", child=row.child, code=row.name)
                throw_escalation(ctx, row.name, row.variables)

        self._step(track, received, on_event)
        return True

    def call_failed(self, row: CallRow, message: str, on_event: Listener | None) -> None:
        """The called process could not start: an incident at the call activity."""
        track = self._caller_track(row)
        if track is not None:
            self._fail(track.id, track.element, message, on_event)

    def _child_failed(
        self, track: Track, row: CallRow, receipt: Receipt, on_event: Listener | None
    ) -> None:
        """The incident names the child and its failing element, and, when the incident is
        deeper still, the instance that has it (the one to fix and resume)."""
        child = f"instance {row.child} (process {row.name!r})"
        if row.origin:
            message = f"called {child} failed at {row.element}, because {row.origin}"
            origin = row.origin
        else:
            message = f"called {child} failed at {row.element}: {row.message}"
            origin = f"{child} failed at {row.element}: {row.message}"
        self._fail(track.id, track.element, message, on_event, receipt, CHILD_FAILED, origin)

    def _child_resumed(self, row: CallRow, receipt: Receipt, on_event: Listener | None) -> bool:
        """The failed child was resumed: the call activity's token waits for it again, and
        this instance, if nothing else of it failed, is active again (and tells its caller)."""
        track = self._caller_track(row, TrackState.FAILED, CHILD_FAILED)
        if track is None:
            return False
        step = Step(self.data)
        step.receive(receipt)
        waiting = step.touch_track(track)
        waiting.move(TrackState.WAITING)
        waiting.wait = CALL_WAIT
        step.emit("incident.resolved", track.element, track.id, child=row.child)
        others = [t for t in self.data.tracks.values() if t.status is TrackState.FAILED]
        if not others and self.data.head.state is InstanceState.FAILED:
            step.set_state(InstanceState.ACTIVE)
            self.data.head.incident = None
            self._resolved_upward(step)
        self._commit(step, on_event)
        return True

    def _resolved_upward(self, step: Step) -> None:
        """A called instance active again: its caller's call activity waits for it again."""
        head = self.data.head
        if head.parent_instance is not None:
            step.sent.append(calls.upward(head, calls.RESOLVED, head.process, {}))

    def _caller_track(
        self,
        row: CallRow,
        status: TrackState = TrackState.WAITING,
        wait: str = CALL_WAIT,
    ) -> Track | None:
        track = self.data.tracks.get(row.track)
        if (  # a failed parent takes it too: its resume goes on from there
            self.state not in (InstanceState.ACTIVE, InstanceState.FAILED)
            or track is None
            or track.status is not status
            or track.wait != wait
            or calls.child_id(self.id, track) != row.child
        ):
            return None
        return track

    def _any_track(self) -> Track:
        return min(self.data.tracks.values(), key=lambda t: (not t.live, t.id))

    # --- the step machinery -------------------------------------------------------------------
    def _step(self, track: Track, work: StepWork, on_event: Listener | None) -> StepContext | None:
        step = Step(self.data)
        ctx = StepContext(self.engine, self.definitions, self.data, step, track)
        try:
            work(ctx)
        except Incident as incident:
            step.rollback()
            self._fail(track.id, incident.element or track.element, incident.message, on_event)
            return None
        except BpmnError as thrown:  # from a listener's handler: thrown at its element
            step.rollback()
            code, message = thrown.code, thrown.message
            restored = self.data.tracks[track.id]  # the track as before the step
            return self._step(restored, lambda c: throw_error(c, code, message), on_event)
        except BpmnEngineError:
            step.rollback()
            raise
        except Exception as error:  # a bug must not leave memory and rows apart
            step.rollback()
            message = f"internal error: {type(error).__name__}: {error}"
            self._fail(track.id, track.element, message, on_event)
            return None
        except BaseException:  # Ctrl-C mid-step: memory as before it, for what is pending
            step.rollback()
            raise
        try:
            self._commit(step, on_event)
        except UnstorableStep as error:  # undone with what was pending since the checkpoint
            before = self.data.tracks.get(track.id)  # the track as the last checkpoint has it
            if before is None or self.state is not InstanceState.ACTIVE:
                raise UsageError(f"{track.element}: the step cannot be stored: {error}") from None
            message = f"what the step produced cannot be stored: {error}"
            self._fail(track.id, before.element, message, on_event)
            return None
        if step.tasks:
            self._answer_new_tasks(step, on_event)
        return ctx

    def _commit(self, step: Step, on_event: Listener | None, *, new: bool = False) -> None:
        step.undoable = self.engine.undo
        if self.data.timers or self.data.subscriptions:  # else nothing waits: nothing to cancel
            step.cancel_stale_waits()
        if (step.values or step.subscriptions) and self.data.subscriptions:
            # with no subscription at all no condition can wait: the run loop stays on its
            # fast path (a loop's script task changes variables on every turn)
            self.scheduler.conditions_dirty = True
            if step.values:
                self._release_held(step)
        # others look for a thrown or awaited message or signal in the rows: commit it now
        self.checkpoints.commit(step, new=new, urgent=step.seen_by_others)
        self.data.reindex(step.tracks)
        if on_event is not None:
            for event in step.events:
                on_event(event)
        if step.sent:  # delivered now that they are committed, this instance included
            self.engine.postman.flush(self, on_event)
        # a message subscription the step opened, or one that received and waits again (a
        # non-interrupting event): a message buffered by another process while this step was
        # running, or one more buffered before, is looked for again now that it is committed
        # (the publisher looks and buffers atomically, so one of the two sees the other)
        looks = [
            subscription
            for subscription in map(self.data.subscriptions.__getitem__, step.subscriptions)
            if subscription.kind == "message" and subscription.status is SubscriptionState.WAITING
        ]
        if looks:
            self._take_buffered(looks, on_event)

    def _take_buffered(self, subscriptions: list[Subscription], on_event: Listener | None) -> None:
        """Each subscription looks for a buffered message, one step each. A subscription that
        takes one and waits again looks again: iteratively, one buffered message per step."""
        if self._buffered_looks is not None:  # inside the loop below: it takes them in turn
            self._buffered_looks += subscriptions
            return
        self._buffered_looks = list(subscriptions)
        try:
            while self._buffered_looks:
                subscription = self._buffered_looks.pop(0)
                waits = subscription.status is SubscriptionState.WAITING
                if waits and self._buffered_for(subscription):
                    track = self.data.tracks[subscription.track]
                    self._step(track, lambda c, s=subscription: deliver_buffered(c, [s]), on_event)
        finally:
            self._buffered_looks = None

    def _buffered_for(self, subscription: Subscription) -> bool:
        """Whether a message is buffered for it now (a read: no step when none is)."""
        now = self.engine.clock.now().isoformat()
        return (
            self.engine.store.buffered_message(subscription.name, subscription.key, now) is not None
        )

    def _release_held(self, step: Step) -> None:
        """A held condition (a non-interrupting conditional event that fired, whose condition
        still held) waits again in the step that leaves it false: so it fires once per change
        from false to true, not on every step while it holds."""
        for subscription in self.data.subscriptions.values():
            held = subscription.status is SubscriptionState.HELD
            if held and not self._condition_holds(subscription):
                step.touch_subscription(subscription).move(SubscriptionState.WAITING)

    def _enter(self, track: Track, on_event: Listener | None) -> None:
        """A ready track enters its node (and a service task's handler runs after that step)."""
        ctx = self._step(track, _arrive, on_event)
        if ctx is not None and ctx.external is not None:
            self._run_job(ctx, on_event)

    def _fail(
        self,
        track_id: int,
        element: str,
        message: str,
        on_event: Listener | None,
        receipt: Receipt | None = None,
        wait: str | None = None,
        origin: str | None = None,
    ) -> None:
        """An incident at a track; a called instance that fails tells its caller (outbox),
        whose call activity's token fails with it, up to the root (`origin`: the instance
        deeper down whose incident this is, as text, when it is not this one's own)."""
        message = incident_text(message)
        step = Step(self.data)
        step.receive(receipt)
        track = step.touch_track(self.data.tracks[track_id])
        track.move(TrackState.FAILED)
        if wait is not None:
            track.wait = wait
        for task in self.data.tasks.values():  # a retry re-enters the element: a new task
            if task.track == track_id and task.status is TaskState.WAITING:
                step.touch_task(task).move(TaskState.CANCELLED)
        head = self.data.head
        head.incident = f"{element}: {message}"
        if head.state is InstanceState.ACTIVE:
            step.set_state(InstanceState.FAILED)
            if head.parent_instance is not None:
                if origin is None:
                    step.sent.append(calls.incident(head, element, message, ""))
                else:
                    step.sent.append(calls.incident(head, element, "", origin))
        step.emit("incident.created", element, track_id, message=message)
        step.emit(
            "instance.failed",
            element,
            incident=self.data.head.incident,
            variables=self.variables,
        )
        self._commit(step, on_event)

    def _run_job(self, ctx: StepContext, on_event: Listener | None) -> None:
        """Call the handler outside any transaction, then commit its result as a step."""
        assert ctx.external is not None
        self.checkpoints.flush()  # the job's lease is in the rows before its handler runs
        try:
            self._finish_job(ctx, on_event)
        finally:  # and its result with the next step, before any other handler is called
            self.checkpoints.flush_with_next()

    def _finish_job(self, ctx: StepContext, on_event: Listener | None) -> None:
        assert ctx.external is not None
        track_id = ctx.track.id
        try:
            with self.engine.heartbeat.holding(self.id, track_id):
                result = ctx.external()
        except BpmnError as thrown:  # a business error: thrown at the task, maybe caught
            code, message = thrown.code, thrown.message
            track = self.data.tracks[track_id]
            self._step(track, lambda c: throw_error(c, code, message), on_event)
            return
        except (Exception, SystemExit) as error:  # the handler failed: a retry or an incident
            self._job_failed(ctx, error, on_event)
            return
        behaviour = behaviour_for(ctx.node)
        assert isinstance(behaviour, ServiceTaskBehaviour)
        track = self.data.tracks[track_id]
        self._step(track, lambda c: behaviour.finish_external(c, result), on_event)

    def _job_failed(
        self, ctx: StepContext, error: BaseException, on_event: Listener | None
    ) -> None:
        """A transient failure with tries left waits for its retry timer; any other is an
        incident (`runtime/retries.py`). A handler calling `sys.exit` is a bug: no retry."""
        message = f"handler {handlers.failure(error)}"
        node = ctx.node
        assert isinstance(node, Task)
        track = self.data.tracks[ctx.track.id]
        due = None
        if not isinstance(error, SystemExit):
            now = self.engine.clock.now()
            token = f"{self.id}/{track.id}"
            due = retries.retry_at(error, node, track.attempt, self.engine.backoff, now, token)
        if due is not None:
            self._step(track, lambda c: retries.wait_for_retry(c, due, message), on_event)
            return
        message += retries.exhausted(node, self.engine.backoff, track.attempt, error)
        self._fail(track.id, node.id, message, on_event)

    def _external(self, track: Track, on_event: Listener | None) -> None:
        """Re-run the job of a track a crash left `executing` (at least once)."""
        ctx = self._step(track, lambda c: behaviour_for(c.node).execute(c), on_event)
        if ctx is not None and ctx.external is not None:
            self._run_job(ctx, on_event)

    def _answer_new_tasks(self, step: Step, on_event: Listener | None) -> None:
        answer = self.engine.on_user_task
        if answer is None:
            return
        for task_id, before in step.tasks.items():
            task = self.data.tasks[task_id]
            if before is not None or task.status is not TaskState.WAITING:
                continue
            self.checkpoints.flush()  # a user task is a wait state, even one answered at once
            variables = answer(self, task)
            if variables is not None and task.status is TaskState.WAITING:
                self.complete_task(task.id, variables, on_event)
