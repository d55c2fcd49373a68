"""A process instance: one object made of parts, one module per responsibility.

- `reading.py`: what it is and where a run stopped (`Outcome`, what it waits for);
- `loop.py`: the run loop, one action at a time in scheduling order (`scheduler.py`);
- `steps.py`: one step (run a behaviour's work, commit or record an incident, deliver what it
  sent) and a service task's handler between two steps;
- `waits.py`: user tasks, triggers, deliveries, gateway choices, ad-hoc activations;
- `operations.py`: set variables, throw a signal, retry, give up a job, cancel;
- `modify.py`: the operator's hand on the tokens (cancel, start before or after an element);
- `migrate.py`: the instance onto another version of its definitions;
- `call_replies.py`: what called instances reply.

Scheduling order (documented and deterministic): the ready track that became ready first runs
next (lowest `seq`); tracks orphaned mid-job by a crash are retried before anything else;
when nothing is ready, a waiting inclusive join whose OR-join rule now holds fires (the one
that has waited longest first). Each step runs one node's behaviour and commits one
transaction. The loop is iterative: a loop in the diagram costs no stack depth.
"""

from __future__ import annotations

from bpmn_engine.model import Definitions
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import JOB
from bpmn_engine.runtime.instance.call_replies import CallReplies
from bpmn_engine.runtime.instance.checkpoints import Checkpoints
from bpmn_engine.runtime.instance.loop import StepLoop
from bpmn_engine.runtime.instance.migrate import Migration
from bpmn_engine.runtime.instance.modify import Modification
from bpmn_engine.runtime.instance.operations import Operations
from bpmn_engine.runtime.instance.parts import InstanceServices
from bpmn_engine.runtime.instance.reading import Reading
from bpmn_engine.runtime.instance.scheduler import ActionKind, Scheduler
from bpmn_engine.runtime.instance.steps import Steps
from bpmn_engine.runtime.instance.waits import Waits


class Instance(Reading, StepLoop, Waits, Operations, Modification, Migration, CallReplies, Steps):
    """One running (or finished) process instance, backed by its rows in the store."""

    def __init__(
        self, engine: InstanceServices[Instance], data: InstanceData, definitions: Definitions
    ) -> None:
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
        self._actions = {
            ActionKind.RESUME_JOB: self._resume_job,
            ActionKind.SERVE_JOB: self._serve_job,
            ActionKind.ENTER: self._enter_action,
            ActionKind.JOIN: self._fire_join,
            ActionKind.TIMER: self._fire_timer,
            ActionKind.CONDITION: self._fire_condition,
            ActionKind.COMPLETE_TASK: self._complete_action,
            ActionKind.TRIGGER: self._trigger_action,
        }
        self._buffered_looks = None
        self._replays = []
        self.nodes_stepped = 0
