"""The run loop: what an instance does next, in scheduling order (`scheduler.py`), one
action at a time, until it completes, fails or waits."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any, Self

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Activity
from bpmn_engine.records.data import Step
from bpmn_engine.records.lifecycle import InstanceState, TrackState
from bpmn_engine.records.rows import JOB, RETRY, Subscription, Timer
from bpmn_engine.runtime.behaviours import behaviour_for
from bpmn_engine.runtime.behaviours.complex_gateway import RECORDS, ComplexGatewayBehaviour
from bpmn_engine.runtime.behaviours.gateways import InclusiveGatewayBehaviour
from bpmn_engine.runtime.calls.tree import CallTree
from bpmn_engine.runtime.events.conditional import CONDITIONAL
from bpmn_engine.runtime.events.trigger import fire_condition, fire_timer
from bpmn_engine.runtime.instance import collector, retries
from bpmn_engine.runtime.instance.parts import InstanceParts, Listener
from bpmn_engine.runtime.instance.reading import Outcome
from bpmn_engine.runtime.instance.scheduler import Action, ActionKind
from bpmn_engine.runtime.instance.steps import UNCHAINED
from bpmn_engine.runtime.step.context import Incident, StepContext


class StepLoop(InstanceParts):
    """Choosing and doing the next action; each action is one step (`steps.py`)."""

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
                if self.step_once(on_event, chain=UNCHAINED):
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

    def _earliest_timer_in_tree(self) -> tuple[Self, Timer] | None:
        """The timer due first in this instance or any instance its call activities started
        (directly or not), with its holder: `--wait-timers` waits for the whole tree."""
        found = [(self, t) for t in [self.scheduler.earliest_timer()] if t is not None]
        for called in CallTree(self.engine, self, self.engine.instance).called():
            timer = called.scheduler.earliest_timer()
            if called.state is InstanceState.ACTIVE and timer is not None:
                found.append((called, timer))
        return min(found, key=lambda pair: datetime.fromisoformat(pair[1].due), default=None)

    def _run_called(self, called: Self, on_event: Listener | None) -> None:
        """Run an instance of the tree whose timer fell due; what it sends (its completion,
        on up to this instance) is delivered to this very object, which runs on."""
        with self.engine.postman.deferred():
            called.run(on_event)
        self.engine.postman.flush(self, on_event)

    def step_once(self, on_event: Listener | None = None, *, chain: int = 1) -> bool:
        """Do the next thing in scheduling order; False when nothing can happen now.
        `chain`: a track entering a node may go on through the automatic nodes after it in
        the same step, at most this many in all (`chain.py`), as `run` and a worker let
        it; `nodes_stepped` then says how many nodes that step took."""
        self.nodes_stepped = 1
        if not self._orphans and not self.scheduler.conditions_dirty:  # the common case
            track = self.data.next_ready()
            if track is not None:
                self._enter(track, on_event, chain=chain)
                return True
        action = self.scheduler.next()
        if action is None:
            return False
        if chain > 1 and action.kind is ActionKind.ENTER:  # as above (same stack depth)
            self._enter(self.data.tracks[action.track], on_event, chain=chain)
        else:
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
