"""The records an instance is made of: tracks, scopes, user tasks and history events.

They are plain mutable records, one row each in the store; the step loop is their only writer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from bpmn_engine.records.lifecycle import (
    TOKEN_STATE,
    ScopeState,
    SubscriptionState,
    TaskState,
    TimerState,
    TrackState,
    check_scope,
    check_subscription,
    check_task,
    check_timer,
    check_track,
)

LISTENING = "event subprocess"
# a complex gateway's record that one incoming flow delivered since its last activation
DELIVERED = "delivered"
NOT_TOKENS = frozenset({LISTENING, DELIVERED})
# a token a complex gateway waiting for reset consumed: it stays a token (the scope lives on)
# until the reset passes it on
CONSUMED = "consumed"
# an ad-hoc subprocess waits for activations, then (its completion condition held and its
# running activities go on) for them to end: its behaviour decides when its scope completes
AD_HOC = "ad-hoc"
AD_HOC_COMPLETING = "ad-hoc completing"
SELF_COMPLETING = frozenset({AD_HOC, AD_HOC_COMPLETING})
# a service task whose handler this engine does not have waits for one (Camunda 8's job, 7's
# external task): an engine that has it serves the job (`bpmn resume --handlers`, a worker)
JOB = "job"
# a service task whose handler failed with tries left waits for its retry timer, at the task
# (`runtime/instance/retries.py`): the timer row keeps it alive
RETRY = "retry"


@dataclass(slots=True)
class Track:
    """One thread of execution: where it is, what it is doing, where it came from."""

    id: int
    element: str
    scope: int
    status: TrackState
    seq: int  # when it became ready here: the scheduler runs the lowest first
    parent: int | None = None
    fork_group: int | None = None
    via: str | None = None  # the sequence flow it arrived on
    wait: str | None = None  # what a waiting track waits for: "user task", "join", ...
    attempt: int = 0
    version: int = 0

    def snapshot(self) -> Track:
        """A copy for a step's undo record: the constructor is ten times `copy.copy`'s speed,
        and a track is copied once in every step."""
        return Track(
            self.id,
            self.element,
            self.scope,
            self.status,
            self.seq,
            self.parent,
            self.fork_group,
            self.via,
            self.wait,
            self.attempt,
            self.version,
        )

    def move(self, status: TrackState) -> None:
        check_track(self.status, status)
        self.status = status

    @property
    def listening(self) -> bool:
        """Not a token: the track that holds a scope's event subprocess waits (timer,
        message, signal), or a complex gateway's record of a flow that delivered
        (`DELIVERED`). It keeps no scope alive and shows in no token list."""
        return self.wait in NOT_TOKENS

    @property
    def live(self) -> bool:
        return self.status not in (
            TrackState.COMPLETED,
            TrackState.MERGED,
            TrackState.TERMINATED,
        )

    def token(self) -> dict[str, Any]:
        """The token: this track's position and state, projected (seed 001)."""
        return {
            "track": self.id,
            "element": self.element,
            "state": TOKEN_STATE[self.status],
            "scope": self.scope,
            "via": self.via,
        }


@dataclass(slots=True)
class Scope:
    """A process or subprocess activation; variables and tracks belong to one."""

    id: int
    element: str
    parent: int | None = None
    track: int | None = None  # the track waiting at the subprocess node in the parent scope
    status: ScopeState = ScopeState.ACTIVE
    version: int = 0

    def move(self, status: ScopeState) -> None:
        check_scope(self.status, status)
        self.status = status


@dataclass(slots=True)
class UserTask:
    """A user task waiting to be completed: `complete` finds it by its number (`id`, one
    series per instance), element id or name. `assignee` and the candidates are what the
    diagram named when it was created (recorded for the task list, not enforced);
    `created_at` is when, on the engine's clock (ISO 8601, UTC)."""

    id: int
    track: int
    element: str
    name: str | None
    status: TaskState = TaskState.WAITING
    inputs: dict[str, Any] = field(default_factory=dict)
    assignee: str | None = None
    candidate_users: tuple[str, ...] = ()
    candidate_groups: tuple[str, ...] = ()
    created_at: str | None = None

    def move(self, status: TaskState) -> None:
        check_task(self.status, status)
        self.status = status


@dataclass(slots=True)
class Timer:
    """A due time in the store: nothing holds a thread while it waits.

    `element` is the timer event (intermediate catch or boundary); `host` is the element the
    track must still be at for the timer to matter (the catch event itself, or the activity a
    boundary event is attached to). `repeat` is how many more times a cycle fires (-1: forever).
    """

    id: int
    track: int
    element: str
    host: str
    due: str  # ISO 8601, UTC
    repeat: int = 0
    interval: float | None = None  # seconds between cycle firings
    status: TimerState = TimerState.WAITING

    def move(self, status: TimerState) -> None:
        check_timer(self.status, status)
        self.status = status


@dataclass(slots=True)
class Subscription:
    """A track waiting for a message, a signal (by name, and for messages a correlation key)
    or a condition (named after its event).

    Like a `Timer`, it matters only while its track is live at `host`: the catch event or
    receive task itself, the activity of a boundary event, or an event-based gateway. A
    non-interrupting boundary event or event subprocess start that fires keeps its row: it
    goes back to `waiting` in the same step (same name, same key), or for a condition that
    still holds to `held`, until a step leaves the condition false (one firing per change).
    """

    id: int
    track: int
    element: str
    host: str
    kind: str  # "message", "signal" or "conditional"
    name: str
    key: str | None = None
    status: SubscriptionState = SubscriptionState.WAITING

    def move(self, status: SubscriptionState) -> None:
        check_subscription(self.status, status)
        self.status = status


class Sent(NamedTuple):
    """What a step sends to other instances: a row of the outbox, delivered after the commit.

    `kind` is "message" or "signal"; `key` a message's correlation key.
    """

    kind: str
    name: str
    key: str | None = None
    variables: dict[str, Any] = {}  # never mutated: one shared default is safe


class Receipt(NamedTuple):
    """What a delivery step records about what it received, so it cannot commit twice.

    `delivery` is (outbox row, receiver) for a row a step sent; `message` is (message id,
    name, key, variables) for a message correlated here. Both are unique in the store.
    """

    delivery: tuple[int, str] | None = None
    message: tuple[str, str, str | None, dict[str, Any]] | None = None


class Event(NamedTuple):
    """One history entry, also one line of `--json` output.

    Immutable like a frozen dataclass, at a third of its construction cost: a step makes
    three or more of them."""

    seq: int
    event: str
    instance: str
    element: str | None
    track: int | None
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.event, "instance": self.instance}
        if self.element is not None:
            out["element"] = self.element
        if self.track is not None:
            out["track"] = self.track
        out.update(self.data)
        return out


class DataStoreValue(NamedTuple):
    """A data store kept in the engine's database (docs/data-stores.md): its value and its
    last write. `writes` counts the writes (a rewind checks nobody wrote it since)."""

    name: str
    value: Any
    written_at: str
    instance: str
    element: str
    writes: int

    def to_json(self) -> dict[str, Any]:
        """As `bpmn store --json` prints it: the name under `store`."""
        out = self._asdict()
        return {"store": out.pop("name"), **out}
