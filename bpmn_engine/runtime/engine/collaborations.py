"""A collaboration run in one session: its pools together, message flows between them.

`Engine.start_collaboration` starts every pool that starts by itself (a none start event)
and registers the message and signal start events of the other executable pools *for the
engine's session*, not as a deployment: each message another instance throws for one of
them (or `publish_message`, `broadcast_signal` through this engine) starts one instance of
its pool at that start event, with the message's variables. A later command, in another
process, does not see them: `bpmn deploy` is what makes a start event last.

A message an instance sends that nobody waits for is kept (buffered, as any message), not
started on at once: only when every instance waits does each kept message start an instance
of the pool registered for it (`start_kept_messages`). So a pool that is about to wait for a
message at a catch event takes it first, whatever the order the pools move in (`bpmn run`
and `bpmn step` agree), and a pool that starts on the same name starts only on what is left
(the message flows of the diagram are not consulted: messages go by name, as everywhere).
A message published from outside (`publish_message`) starts its pool at once, as a
deployment's would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Definitions
from bpmn_engine.records.lifecycle import INSTANCE_WAITING, InstanceState
from bpmn_engine.runtime.engine.session import SessionStart, session_starts

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bpmn_engine.runtime.engine.services import CollaborationServices
    from bpmn_engine.runtime.instance.instance import Instance
    from bpmn_engine.runtime.instance.parts import Listener
    from bpmn_engine.runtime.instance.reading import Outcome


# how serious an instance's state is for the run as a whole: a failure anywhere is the
# run's failure, else anything still waiting (or stopped part way) makes it wait
_SERIOUSNESS = {
    InstanceState.COMPLETED: 0,
    InstanceState.TERMINATED: 1,
    INSTANCE_WAITING: 2,
    InstanceState.ACTIVE: 2,
    InstanceState.FAILED: 3,
}


class Collaboration:
    """The instances of one collaboration's pools (or of a file's processes), run together:
    the pools started, and the instances their messages and signals started since."""

    def __init__(
        self,
        engine: CollaborationServices,
        definitions: Definitions,
        collaboration: str | None,
        pools: list[str],
        registered: list[SessionStart],
        skipped: list[tuple[str, str]],
        waits: dict[str, str],
    ) -> None:
        self.engine = engine
        self.definitions = definitions
        self.id = collaboration
        self.pools = pools  # the instances of the pools that started by themselves
        self.registered = registered
        self.skipped = skipped  # (process, why it neither started nor waits for a trigger)
        self._waits = waits  # process -> what its start events wait for

    def not_started(self) -> list[tuple[str, str]]:
        """(process, why) for each process of the collaboration with no instance: those that
        cannot start here, and those registered whose trigger did not come."""
        started = {instance.process_id for instance in self.instances()}
        waiting = dict.fromkeys(s.process for s in self.registered)
        return self.skipped + [(p, self._waits[p]) for p in waiting if p not in started]

    @property
    def instance_ids(self) -> list[str]:
        """The pools' instances, then those started by a message or signal, in order."""
        return self.pools + [i for i in self.engine.session.started if i not in self.pools]

    def instances(self) -> list[Instance]:
        return [self.engine.instance(i) for i in self.instance_ids]

    def run(
        self, on_event: Listener | None = None, wait_timers: float = 0.0, wait_retries: float = 0.0
    ) -> list[Outcome]:
        """Run every instance until each completes, fails or waits; their outcomes.

        Every instance runs until it waits (what it sends is delivered after each commit,
        and whom that wakes runs on); then each message kept for a registered pool starts an
        instance of it, and the round starts again, until no message is left for a pool."""
        engine = self.engine
        while True:
            for instance_id in self.instance_ids:  # reloaded: a delivery may have moved it
                engine.instance(instance_id).run(on_event, wait_timers, wait_retries)
            if not engine.start_kept_messages(on_event):
                return [engine.instance(i).outcome() for i in self.instance_ids]

    def state(self) -> str:
        """The collaboration's state now, over every instance (`overall`): completed only
        when each one completed."""
        return self.overall([instance.outcome().state for instance in self.instances()])

    @staticmethod
    def overall(states: list[str]) -> str:
        """The state of instances run together: failed if any failed, else waiting if any
        waits (or is still active), else terminated if any was, else completed."""
        return max(states, key=_SERIOUSNESS.__getitem__, default=str(InstanceState.COMPLETED))


def start(
    engine: CollaborationServices,
    definitions: Definitions,
    collaboration: str | None,
    variables: Mapping[str, Any] | None,
    on_event: Listener | None,
) -> Collaboration:
    """Start the pools of `collaboration` (None: every process of the file) that start by
    themselves, and register the others' message and signal start events for the session.
    Everything is checked before the first instance is created."""
    if collaboration is not None and collaboration not in definitions.collaborations:
        known = ", ".join(definitions.collaborations) or "none"
        raise UsageError(
            f"{definitions.path}: no collaboration {collaboration!r} (collaborations: {known})"
        )
    started, waiting, skipped = definitions.startable(collaboration)
    registered: list[SessionStart] = []
    for process_id, why in waiting:
        process = definitions.processes[process_id]
        found = session_starts(definitions, process)
        if found:
            engine.check_process(definitions, process)
            registered += found
        else:  # a timer or a condition: left to a deployment
            skipped.append((process_id, why))
    if not started:
        named = f"collaboration {collaboration!r}" if collaboration else definitions.path
        raise UsageError(
            f"{definitions.path}: no pool of {named} starts by itself (a none start event): "
            "run one with --process, or deploy it (bpmn deploy) and send its first message"
        )
    for process in started:  # refused before anything is created
        engine.check_process(definitions, process)
    for start_event in registered:
        engine.session.register(start_event)
    pools = [engine.start(definitions, p.id, variables, on_event=on_event).id for p in started]
    waits = {p: why for p, why in waiting}
    return Collaboration(engine, definitions, collaboration, pools, registered, skipped, waits)


def start_kept_messages(engine: CollaborationServices, on_event: Listener | None) -> list[Instance]:
    """An instance of a registered pool for each message kept for its message start event
    (sent by an instance, taken by nobody), each claiming its message in its first commit;
    for a name two pools start on, the first registered takes them (as `publish_message`)."""
    started: list[Instance] = []
    first: dict[str, SessionStart] = {}
    for registered in engine.session.starts:
        if registered.kind == "message":
            first.setdefault(registered.name, registered)
    for name, start in first.items():
        trigger = ("message.received", {"name": name, "key": None})
        now = engine.clock.now().isoformat()
        while (kept := engine.store.buffered_message(name, None, now)) is not None:
            message_id, variables = kept
            started.append(
                engine.session_start(start, variables, on_event, trigger, None, message_id)
            )
    return started
