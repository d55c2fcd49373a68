"""What may run next in an instance, in the one order the engine chooses it.

Deterministic: (1) jobs a crash left `executing` are re-run first, then the jobs that waited
for a handler this engine has (a service task reached by an engine without one); (2) a
waiting conditional event whose condition now holds (checked only after variables changed: a
condition made true fires before anything else moves, as Camunda evaluates it on the
variable change itself, so a task inside a subprocess that makes its conditional boundary
event true is interrupted before the next task starts); (3) the ready track that became
ready first (lowest `seq`); (4) a waiting inclusive join whose OR-join rule now holds, or a
complex gateway waiting for reset that no token can reach any more (the same upstream rule),
the longest waiting first; (5) the earliest timer that is due; and, on a virtual clock with
nothing else to do, the earliest finite timer (the clock jumps to it). Completing a user
task needs a person, and a trigger wait the API (`runtime/step/triggers.py`): they are offered,
never chosen. `Instance.run` takes the first action, `Instance.enabled` (the stepper) lists
them all: both read this one source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bpmn_engine.model import Definitions
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import SubscriptionState, TaskState, TimerState, TrackState
from bpmn_engine.records.rows import Subscription, Timer, Track
from bpmn_engine.runtime.behaviours import complex_gateway
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.step import joins
from bpmn_engine.runtime.step.triggers import trigger_waits


class ActionKind(StrEnum):
    RESUME_JOB = "resume-job"
    SERVE_JOB = "serve-job"
    ENTER = "enter"
    CONDITION = "condition"
    JOIN = "join"
    TIMER = "timer"
    COMPLETE_TASK = "complete-task"
    TRIGGER = "trigger"  # a wait state the API triggers (`runtime/step/triggers.py`)


@dataclass(frozen=True)
class Action:
    """Something that can happen next (see `Instance.enabled`)."""

    kind: ActionKind
    track: int
    element: str
    task: int | None = None  # the timer, subscription or user task it is about


class Scheduler:
    """One instance's work, in scheduling order. `holds` evaluates a conditional event's
    condition (True also when evaluating fails: the step then fails with the incident)."""

    def __init__(
        self,
        data: InstanceData,
        definitions: Definitions,
        clock: Callable[[], Clock],
        holds: Callable[[Subscription], bool],
        orphans: list[int],
        jobs: list[int],
    ) -> None:
        self.data = data
        self.definitions = definitions
        self.clock = clock
        self.holds = holds
        self.orphans = orphans  # jobs a crash left executing, to re-run first
        self.jobs = jobs  # jobs waiting for a handler this engine has, to serve next
        self.conditions_dirty = True  # evaluated again only when variables changed

    def next(self) -> Action | None:
        """The engine's own choice: the first action in scheduling order."""
        return next(self._automatic(), None)

    def enabled(self) -> list[Action]:
        """Everything that can happen next, the engine's own choice first; completing a
        waiting user task, then triggering a trigger wait, come last."""
        actions = list(self._automatic())
        tasks = sorted(
            (t for t in self.data.tasks.values() if t.status is TaskState.WAITING),
            key=lambda t: t.id,
        )
        actions += [Action(ActionKind.COMPLETE_TASK, t.track, t.element, t.id) for t in tasks]
        triggers = trigger_waits(self.definitions, self.data)
        actions += [Action(ActionKind.TRIGGER, t.track, t.element) for t in triggers]
        return actions

    def _automatic(self) -> Iterator[Action]:
        tracks, chosen = self.data.tracks, False
        for track_id in self.orphans:
            chosen = True
            yield Action(ActionKind.RESUME_JOB, track_id, tracks[track_id].element)
        for track_id in self.jobs:
            chosen = True
            yield Action(ActionKind.SERVE_JOB, track_id, tracks[track_id].element)
        condition = self._true_condition()
        if condition is not None:
            chosen = True
            yield condition
        first = self.data.next_ready()
        if first is not None:
            chosen = True
            yield Action(ActionKind.ENTER, first.id, first.element)
            ready = [t for t in tracks.values() if t.status is TrackState.READY and t is not first]
            for track in sorted(ready, key=lambda t: t.seq):
                yield Action(ActionKind.ENTER, track.id, track.element)
        for track in self.waiting_joins():
            if self.join_choice(track) is not None:
                chosen = True
                yield Action(ActionKind.JOIN, track.id, track.element)
        timer = self.earliest_timer()
        if timer is not None and self.due(timer):
            yield Action(ActionKind.TIMER, timer.track, timer.element, timer.id)
        elif not chosen and self.clock().virtual:  # the virtual clock jumps: nothing else can
            timer = self.earliest_timer(endless=False)
            if timer is not None:
                yield Action(ActionKind.TIMER, timer.track, timer.element, timer.id)

    def _true_condition(self) -> Action | None:
        if not self.conditions_dirty:
            return None
        waiting = [
            s
            for s in self.data.subscriptions.values()
            if s.status is SubscriptionState.WAITING and s.kind == "conditional"
        ]
        for subscription in sorted(waiting, key=lambda s: s.id):
            if self.holds(subscription):
                return Action(
                    ActionKind.CONDITION,
                    subscription.track,
                    subscription.element,
                    subscription.id,
                )
        self.conditions_dirty = False
        return None

    def waiting_joins(self) -> list[Track]:
        """Tracks waiting at an inclusive join, and the first record of each complex gateway
        waiting for reset, the longest waiting first."""
        waiting = []
        for scope, gateway in self.data.joins_waited_at():
            if self.definitions.node_scopes[gateway].nodes[gateway].kind == "inclusiveGateway":
                waiting += joins.waiting_at(self.data, scope, gateway)
        firsts: dict[tuple[int, str], Track] = {}
        for track in (t for t in self.data.live_everywhere() if t.wait in complex_gateway.RECORDS):
            key = (track.scope, track.element)
            if key not in firsts or track.seq < firsts[key].seq:
                firsts[key] = track
        return sorted(waiting + list(firsts.values()), key=lambda t: t.seq)

    def join_choice(self, track: Track) -> list[Track] | None:
        """The tokens an inclusive join at `track` would merge now, or the records of the
        complex gateway waiting for reset that `track` belongs to, if it may reset now
        (None: it cannot fire)."""
        model = self.definitions.node_scopes[track.element]
        if track.wait in complex_gateway.RECORDS:
            return complex_gateway.may_reset(self.data, model, track)
        return joins.inclusive_enabled(self.data, model, track)

    def earliest_timer(self, endless: bool = True) -> Timer | None:
        """The next timer due; without `endless`, not an endless cycle (R/..., cron): the
        virtual clock never jumps for one of those, or a run would never end."""
        waiting = [
            t
            for t in self.data.timers.values()
            if t.status is TimerState.WAITING and (endless or t.repeat != -1)
        ]
        return min(waiting, key=lambda t: (t.due, t.id)) if waiting else None

    def due(self, timer: Timer) -> bool:
        return datetime.fromisoformat(timer.due) <= self.clock().now()
