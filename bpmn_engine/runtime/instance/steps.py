"""One step: run a behaviour's work in a unit of work, commit it (or roll it back and record
an incident), deliver what it sent; and a service task's handler, called between two steps."""

from __future__ import annotations

from bpmn_engine.errors import BpmnEngineError, BpmnError, ConcurrentModification, UsageError
from bpmn_engine.model import Task
from bpmn_engine.records.data import Step
from bpmn_engine.records.lifecycle import (
    STILL_WAITING,
    InstanceState,
    SubscriptionState,
    TaskState,
    TimerState,
    TrackState,
)
from bpmn_engine.records.rows import LISTENING, Receipt, Subscription, Timer, Track
from bpmn_engine.runtime import handlers
from bpmn_engine.runtime.behaviours import behaviour_for
from bpmn_engine.runtime.behaviours.tasks import ServiceTaskBehaviour
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.events.errors import throw_error
from bpmn_engine.runtime.events.trigger import deliver_buffered
from bpmn_engine.runtime.instance import ghosts, retries
from bpmn_engine.runtime.instance.chain import Replay, asynchronous, goes_on
from bpmn_engine.runtime.instance.checkpoints import UnstorableStep
from bpmn_engine.runtime.instance.ghosts import GhostResult
from bpmn_engine.runtime.instance.parts import InstanceParts, Listener, StepWork
from bpmn_engine.runtime.step.context import Incident, StepContext


def _arrive(ctx: StepContext) -> None:
    behaviour_for(ctx.node).arrive(ctx)


UNCHAINED = 1 << 30  # no limit on a chain's nodes but its own rules (`chain.goes_on`)

MAX_INCIDENT = 10_000
"""Characters of an incident's message that are kept: it is stored in the instance row, its
history and the outcome (a JavaScript error of 30 MB was stored three times per failure)."""


def incident_text(message: str) -> str:
    """The message as stored: cut at MAX_INCIDENT characters, saying how much was left out."""
    if len(message) <= MAX_INCIDENT:
        return message
    return f"{message[:MAX_INCIDENT]}... ({len(message) - MAX_INCIDENT:,} more characters)"


# a token that waits so is moved on only by the tokens around it (a join, the end of what it
# contains, an event subprocess's listening: whose own rows count apart, `_goes_on`)
_ONLY_OTHERS_END = frozenset({"join", "subprocess", "multi-instance", "loop", LISTENING})
_MOVING = frozenset({TrackState.READY, TrackState.EXECUTING})
_WAITING_ROW = {Timer: frozenset({TimerState.WAITING}), Subscription: STILL_WAITING}


class Steps(InstanceParts):
    """The step machinery every action and command goes through."""

    def _any_track(self) -> Track:
        return min(self.data.tracks.values(), key=lambda t: (not t.live, t.id))

    # --- the step machinery -------------------------------------------------------------------
    def _step(self, track: Track, work: StepWork, on_event: Listener | None) -> StepContext | None:
        step = Step(self.data)
        ctx = StepContext(self.engine, self.definitions, self.data, step, track)
        try:
            work(ctx)
        except Replay as replay:  # a chain's node failed: the nodes before it, then it alone
            step.rollback()
            self._replays = [replay.nodes, 1]
            return None
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
            if step.chained and not self.checkpoints.batching:  # which node made it? each
                self._replays = [1] * (step.chained + 1)  # alone now: that one fails
                return None
            before = self.data.tracks.get(track.id)  # the track as the last checkpoint has it
            if before is None or self.state is not InstanceState.ACTIVE:
                raise UsageError(f"{track.element}: the step cannot be stored: {error}") from None
            message = f"what the step produced cannot be stored: {error}"
            self._fail(track.id, before.element, message, on_event)
            return None
        if self.checkpoints.batching and asynchronous(ctx):  # `asyncBefore`/`asyncAfter`:
            self.checkpoints.flush()  # a checkpoint there under the `wait` policy too
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
        urgent = step.seen_by_others
        told = 0
        if (
            on_event is not None
            and step.chained
            and self.checkpoints.due_at_last_node(step, urgent=urgent)
        ):  # the nodes before the checkpoint are told before it, as their own steps were
            told = step.node_began
            for event in step.events[:told]:
                on_event(event)
        self.checkpoints.commit(step, new=new, urgent=urgent)
        self.data.reindex(step.tracks)
        if on_event is not None:
            for event in step.events[told:] if told else step.events:
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
        if self.data.head.incident is not None:  # siblings of a token stopped on an incident
            self._stopped_on_incidents(on_event)

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

    def _enter(self, track: Track, on_event: Listener | None, *, chain: int = 1) -> None:
        """A ready track enters its node (and a service task's handler runs after that step);
        `chain`: and goes on through the automatic nodes after it in the same step, at most
        this many nodes in all (`chain.py`), as the run loop lets it."""
        work = _arrive
        if chain > 1 and not self.engine.undo:
            limit = min(self._replays.pop(0), chain) if self._replays else chain
            if limit > 1:
                work = self._chain(track.scope, limit, self.checkpoints.room())
        ctx = self._step(track, work, on_event)
        if ctx is None:
            return
        self.nodes_stepped = ctx.step.chained + 1
        if ctx.external is not None:
            self._run_job(ctx, on_event)

    @staticmethod
    def _chain(scope: int, limit: int, events: int) -> StepWork:
        """The track enters its node, then each next one while `chain.goes_on` (at most
        `limit` nodes, until it holds `events` events); a node after the first that fails
        replays the chain up to it."""

        def work(ctx: StepContext) -> None:
            _arrive(ctx)
            while goes_on(ctx, scope, limit, events):
                ctx.next_node()
                try:
                    _arrive(ctx)
                except Exception:
                    raise Replay(ctx.step.chained) from None

        return work

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
        """An incident at a track: the token stops there, and the instance stays active for
        as long as another token can go on (siblings go on, as in Camunda); once none can,
        it has stopped on its incidents: failed (`_stopped_on_incidents`). A called
        instance tells its caller at once (outbox), whose call activity's token fails with
        it, up to the root (`origin`: the instance deeper down whose incident this is, as
        text, when it is not this one's own)."""
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
        if head.incident is None:  # the first open one is the instance's (`bpmn incidents`: all)
            head.incident = f"{element}: {message}"
        if head.state is InstanceState.ACTIVE and head.parent_instance is not None:
            if origin is None:
                step.sent.append(calls.incident(head, element, message, ""))
            else:
                step.sent.append(calls.incident(head, element, "", origin))
        step.emit("incident.created", element, track_id, message=message)
        if head.state is InstanceState.ACTIVE and not self._goes_on():
            self._stop(step, element)
        self._commit(step, on_event)

    def _goes_on(self) -> bool:
        """Whether a token not stopped on an incident can still move: it is ready or
        running, or waits for something other than the tokens around it (a person, a timer,
        a message, a job, a called instance...), or a wait row of it is armed."""
        tracks = self.data.tracks
        for track in tracks.values():
            if track.status in _MOVING:
                return True
            if track.status is TrackState.WAITING and track.wait not in _ONLY_OTHERS_END:
                return True
        waits = (*self.data.timers.values(), *self.data.subscriptions.values())
        return any(
            wait.status in _WAITING_ROW[type(wait)]
            and (track := tracks.get(wait.track)) is not None
            and track.status is not TrackState.FAILED
            for wait in waits
        )

    def _stop(self, step: Step, element: str | None) -> None:
        """The instance has stopped on its incidents: no other token can go on."""
        step.set_state(InstanceState.FAILED)
        step.emit(
            "instance.failed",
            element,
            incident=self.data.head.incident,
            variables=self.variables,
        )

    def _incidents_over(self, step: Step) -> None:
        """When no token is stopped on an incident any more (run again, cancelled, its child
        resumed): the instance's incident is over, a failed instance is active again, and a
        called one tells its caller, whose call activity's token waits for it again."""
        head = self.data.head
        if head.incident is None or any(
            t.status is TrackState.FAILED for t in self.data.tracks.values()
        ):
            return
        if head.state is InstanceState.FAILED:
            step.set_state(InstanceState.ACTIVE)
        head.incident = None
        if head.parent_instance is not None:
            step.sent.append(calls.upward(head, calls.RESOLVED, head.process, {}))

    def _stopped_on_incidents(self, on_event: Listener | None) -> None:
        """After a step of an active instance with an open incident: if that step took the
        last token that could go on, the instance has stopped (failed)."""
        head = self.data.head
        if head.incident is None or head.state is not InstanceState.ACTIVE or self._goes_on():
            return
        failed = [t for t in self.data.tracks.values() if t.status is TrackState.FAILED]
        step = Step(self.data)
        self._stop(step, failed[0].element if failed else None)
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
        """Call the job's handler, then commit what it answered: its result, a BPMN error,
        or its failure. If the job no longer counts by then, the answer is refused
        (`GhostResult`, `ghosts.py`): the commit's compare-and-set on the token fails."""
        assert ctx.external is not None
        claimed = ctx.track.snapshot()
        try:
            self._answer_job(ctx, on_event)
        except ConcurrentModification:
            history = self.engine.store.history(self.id)
            why = ghosts.why_refused(claimed, self.engine.store.load(self.id), history)
            raise GhostResult(self.id, claimed.element, claimed.id, claimed.attempt, why) from None

    def _answer_job(self, ctx: StepContext, on_event: Listener | None) -> None:
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
        incident (`retries.py`). A handler calling `sys.exit` is a bug: no retry."""
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
