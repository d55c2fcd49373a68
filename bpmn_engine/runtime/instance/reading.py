"""Reading an instance: its head, tokens, variables, history, and where a run stopped (the
`Outcome`, with everything it waits for)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bpmn_engine.model import Process, StartEvent
from bpmn_engine.records.lifecycle import (
    INSTANCE_WAITING,
    STILL_WAITING,
    InstanceState,
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
    Subscription,
    UserTask,
)
from bpmn_engine.runtime.behaviours import ad_hoc
from bpmn_engine.runtime.behaviours.call_activities import CHILD_FAILED
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.instance.parts import InstanceParts
from bpmn_engine.runtime.instance.scheduler import Action, ActionKind
from bpmn_engine.runtime.step.triggers import TRIGGER

if TYPE_CHECKING:
    import networkx as nx


TRANSACTION_OUTCOMES = ("transaction.completed", "transaction.cancelled", "transaction.interrupted")


BODY_WAITS = ("subprocess", "multi-instance", "loop")


@dataclass
class Outcome:
    """Where a run stopped: completed, waiting, failed (on an incident) or terminated."""

    instance: str
    state: str
    variables: dict[str, Any]
    end_event: str | None = None
    incident: str | None = None
    waiting_for: list[dict[str, Any]] = field(default_factory=list)
    # failed, but the instance stays active: its other tokens wait for the world (a person,
    # a timer, a message...), only the one with the incident has stopped
    others_wait: bool = False

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
        if self.state == INSTANCE_WAITING or self.others_wait:
            out["waiting_for"] = self.waiting_for
        if self.others_wait:
            out["others_wait"] = True
        return out


def run_state(state: InstanceState, movable: bool, incident: str | None) -> tuple[str, bool]:
    """The word for where a run stopped (`Outcome.state`, `Engine.instances`) and whether
    the instance's other tokens wait: an active instance none of whose tokens can move now
    waits, or, with an open incident, has failed while its other tokens wait."""
    if state is not InstanceState.ACTIVE:
        return str(state), False
    if movable:
        return str(InstanceState.ACTIVE), False
    if incident is not None:  # the run stopped on an incident
        return str(InstanceState.FAILED), True
    return INSTANCE_WAITING, False


class Reading(InstanceParts):
    """What an instance is and what it waits for; nothing here writes a row."""

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

    def to_json(self, last: int = 0) -> dict[str, Any]:
        """The instance as `bpmn show --json` and the HTTP API give it: head, state,
        variables, tokens, transactions, what it waits for, and its history (the `last`
        events only, if not 0), each event with `at`, when it was committed."""
        outcome = self.outcome()
        events = self.history()
        events = events[-last:] if last else events
        times = self.history_times()
        return {
            "instance": self.id,
            "process": self.process_id,
            "business_key": self.business_key,
            "state": outcome.state,
            "definition": self.definition_version,
            "end_event": outcome.end_event,
            "incident": outcome.incident,
            "variables": outcome.variables,
            "tokens": self.tokens(),
            "transactions": self.transactions(),
            "waiting_for": outcome.waiting_for,
            "history": [{**e.to_json(), "at": times.get(e.seq)} for e in events],
        }

    def outcome(self) -> Outcome:
        head = self.data.head
        movable = bool(self._orphans) or self.data.next_ready() is not None
        state, others_wait = run_state(head.state, movable, head.incident)
        return Outcome(
            instance=head.id,
            state=state,
            others_wait=others_wait,
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
            if subscription.status in STILL_WAITING and subscription.kind != TRIGGER:
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
