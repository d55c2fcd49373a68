"""A chain of automatic nodes taken as one step: one record, one transaction.

When the run loop lets a ready track enter its node, the track often leaves it at once for
the next node (a script task, a gateway with one way out, an intermediate throw of nothing),
and the next one again. Each of those nodes would be a step of its own: a unit of work, a
checkpoint, a pass through the scheduler. Where nothing can tell the difference, the track
goes on within the same step instead, and the chain is committed as one: every node still
writes its own history events, in the same order, and a crash loses the chain as a whole
(the rows stay at its start) so a resume runs it again from there.

The chain stops, and the step commits, as soon as the next step would not be this same
track entering its next node with nothing else to do in between (`goes_on`): the track
waits, ends, forks or joins; the step created a task, a timer or a subscription, sent or
received something, wrote a data store or changed variables a waiting condition reads;
another track is ready before it; a handler was called (a listener's; a service task's job
is called after its step); the node is marked asynchronous (Camunda 7's `asyncBefore` on
the next node, `asyncAfter` on the one left: a checkpoint there, under either policy); or
the chain holds as many history events as may wait for a checkpoint (`Checkpoints.room`:
3 000, about a thousand nodes, so that a long chain holds neither unbounded memory nor the
write lock for long).

A node of the chain that fails (an incident, an error thrown, a bug) is not failed in the
chain: the whole step is rolled back and replayed with the chain cut just before that node
(`Replay`), which then runs as a step of its own and fails there, as it would have without
chains. The replay is safe because nothing in a chain past its first node reaches outside
the instance: a listener's handler in such a node stops the chain before it is called
(`HandlerInChain`). Only `Instance.run` and a worker chain (`step_once(chain=N)`, a
worker's turn counting a chain's nodes): `bpmn step`, `Instance.step` and `step_once`
take one node per action, and so does an engine keeping an undo log (`back` undoes one
node). With `--checkpoint wait`, the events of a chain's nodes are told before a
checkpoint its last node takes, as their own steps' would have been (`Steps._commit`).
"""

from __future__ import annotations

from bpmn_engine.records.lifecycle import InstanceState, TrackState
from bpmn_engine.runtime.step.context import StepContext


class Replay(Exception):
    """A node of a chain failed after `nodes` nodes went well: roll back and take those as one
    step, then the failing node as a step of its own."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.nodes = nodes


def goes_on(ctx: StepContext, scope: int, limit: int, events: int) -> bool:
    """Whether the step may take the track on into its next node (see the module's rules);
    `scope`: where the chain began, `limit`: the most nodes it may take, `events`: how many
    history events it may hold (a checkpoint is due then: `Checkpoints.room`)."""
    track, step = ctx.track, ctx.step
    if (
        track.status is not TrackState.READY
        or len(step.tracks) != 1
        or ctx.external is not None
        or step.called_out
        or track.scope != scope
        or step.chained + 1 >= limit
        or len(step.events) >= events
        or step.tasks
        or step.timers
        or step.subscriptions
        or step.seen_by_others
    ):
        return False
    data = ctx.data
    head = data.head
    if head.state is not InstanceState.ACTIVE or head.incident is not None:
        return False
    if step.values and data.subscriptions:  # a waiting condition may hold now
        return False
    if data.next_ready() is not track:  # another token is ahead of it in scheduling order
        return False
    return not asynchronous(ctx)


def asynchronous(ctx: StepContext) -> bool:
    """Whether a checkpoint is due between the node the track left and the one it is at
    (a flow never leaves its scope: both are the scope's)."""
    model = ctx.scope_model
    return ctx.node.id in model.async_after or ctx.track.element in model.async_before
