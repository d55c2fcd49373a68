"""An instance's rows held in memory, and the unit of work that changes them.

`InstanceData` mirrors the store's rows for one instance. Every change goes through a `Step`,
which remembers what it touched: the store writes exactly that in one transaction, and a
step that fails is rolled back in memory from the same record, so memory and rows never part.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bpmn_engine.records.lifecycle import (
    STILL_WAITING,
    InstanceState,
    ScopeState,
    SubscriptionState,
    TimerState,
    TrackState,
    check_instance,
)
from bpmn_engine.records.rows import (
    Event,
    Receipt,
    Scope,
    Sent,
    Subscription,
    Timer,
    Track,
    UserTask,
)
from bpmn_engine.records.variables import VariableStore

_MISSING = object()
_new_tuple = tuple.__new__
_NOWHERE = (None, None)  # a track in neither index


@dataclass(slots=True)
class InstanceHead:
    """The instance row: identity, state and the counters that hand out ids."""

    id: str
    definition: str  # the definition version (content hash) the instance is pinned to
    process: str
    state: InstanceState = InstanceState.CREATED
    next_track: int = 1
    next_scope: int = 1
    next_task: int = 1
    next_seq: int = 1
    next_event: int = 1
    next_timer: int = 1
    next_subscription: int = 1
    end_event: str | None = None
    incident: str | None = None
    version: int = 0
    # a called instance: the calling instance, its track waiting at the call activity, and
    # how deep in the call tree it is (the root is 0); never changed after the start
    parent_instance: str | None = None
    parent_track: int | None = None
    call_depth: int = 0
    # the root of its call tree (itself, unless called): what the tree's size is counted by
    root: str = ""
    # the key a user or a caller gave the instance (Camunda's business key), never changed
    business_key: str | None = None

    def __post_init__(self) -> None:
        if not self.root:
            self.root = self.id

    def snapshot(self) -> InstanceHead:
        """A copy for a step's undo record (by constructor: every step takes one)."""
        return InstanceHead(
            self.id,
            self.definition,
            self.process,
            self.state,
            self.next_track,
            self.next_scope,
            self.next_task,
            self.next_seq,
            self.next_event,
            self.next_timer,
            self.next_subscription,
            self.end_event,
            self.incident,
            self.version,
            self.parent_instance,
            self.parent_track,
            self.call_depth,
            self.root,
            self.business_key,
        )


@dataclass(slots=True)
class JoinRecord:
    scope: int
    gateway: str
    activation: int
    tracks: list[int]


@dataclass
class InstanceData:
    head: InstanceHead
    tracks: dict[int, Track] = field(default_factory=dict)
    scopes: dict[int, Scope] = field(default_factory=dict)
    values: dict[int, dict[str, Any]] = field(default_factory=dict)
    tasks: dict[int, UserTask] = field(default_factory=dict)
    timers: dict[int, Timer] = field(default_factory=dict)
    subscriptions: dict[int, Subscription] = field(default_factory=dict)
    joins: dict[tuple[int, str], int] = field(default_factory=dict)  # activations so far
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)  # forced, not stored
    _ready: list[tuple[int, int]] = field(default_factory=list)
    # Indexes over the tracks, so that no step scans every track the instance ever had:
    # the live tracks of each scope, and the tokens waiting at each join per incoming flow.
    # Exact between steps; during a step a track the step touched may still be listed (it is
    # re-indexed when the step ends), so readers check each listed track (`reindex`).
    _live: dict[int, dict[int, None]] = field(default_factory=dict)
    _join_waits: dict[tuple[int, str], dict[str, dict[int, None]]] = field(default_factory=dict)
    _indexed: dict[int, tuple[int | None, tuple[int, str, str] | None]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        self.variables = VariableStore(self.scopes, self.values)
        self.rebuild_indexes()

    @property
    def root_scope(self) -> int:
        return min(self.scopes)

    def rebuild_indexes(self) -> None:
        """After the tracks were replaced wholesale (loaded, or a step rolled back)."""
        self._ready = [(t.seq, t.id) for t in self.tracks.values() if t.status is TrackState.READY]
        heapq.heapify(self._ready)
        self._live, self._join_waits, self._indexed = {}, {}, {}
        self.reindex(self.tracks)

    def reindex(self, track_ids: Iterable[int]) -> None:
        """Bring the live and join indexes up to date for these tracks (the ones a step
        touched: a track changes only through a step, so that keeps the indexes exact)."""
        tracks, indexed = self.tracks, self._indexed
        for track_id in track_ids:
            track = tracks.get(track_id)
            if track is None:
                self._unindex(track_id)
                continue
            live = track.scope if track.live else None
            join = (
                (track.scope, track.element, track.via or "")
                if track.status is TrackState.WAITING and track.wait == "join"
                else None
            )
            where = (live, join)
            if indexed.get(track_id, _NOWHERE) == where:  # most steps: still live, same scope
                continue
            self._unindex(track_id)
            self._index(track_id, where)

    def _index(self, track_id: int, where: tuple[int | None, tuple[int, str, str] | None]) -> None:
        live, join = where
        if join is not None:
            flows = self._join_waits.setdefault(join[:2], {})
            flows.setdefault(join[2], {})[track_id] = None
        if live is not None:
            self._live.setdefault(live, {})[track_id] = None
        if live is not None or join is not None:
            self._indexed[track_id] = where

    def _unindex(self, track_id: int) -> None:
        where = self._indexed.pop(track_id, None)
        if where is None:
            return
        live, join = where
        if live is not None:
            bucket = self._live[live]
            del bucket[track_id]
            if not bucket:
                del self._live[live]
        if join is not None:
            flows = self._join_waits[join[:2]]
            ids = flows[join[2]]
            del ids[track_id]
            if not ids:
                del flows[join[2]]
            if not flows:
                del self._join_waits[join[:2]]

    def next_ready(self) -> Track | None:
        """The ready track that became ready first (the documented scheduling order)."""
        while self._ready:
            seq, track_id = self._ready[0]
            track = self.tracks.get(track_id)
            if track is not None and track.status is TrackState.READY and track.seq == seq:
                return track
            heapq.heappop(self._ready)
        return None

    def enqueue(self, track: Track) -> None:
        heapq.heappush(self._ready, (track.seq, track.id))

    def live_tracks(self, scope: int) -> list[Track]:
        tracks = self.tracks
        listed = self._live.get(scope, {})
        return [t for i in listed if (t := tracks[i]).live and t.scope == scope]

    def live_everywhere(self) -> list[Track]:
        """The live tracks of every scope (from the index: no scan of ended tracks)."""
        tracks = self.tracks
        return [
            t
            for scope, listed in self._live.items()
            for i in listed
            if (t := tracks[i]).live and t.scope == scope
        ]

    def has_tokens(self, scope: int) -> bool:
        """Whether a live track that is a token (not an event subprocess listener) is in the
        scope: what decides that a scope has completed."""
        tracks = self.tracks
        for track_id in self._live.get(scope, ()):
            track = tracks[track_id]
            if track.live and track.scope == scope and not track.listening:
                return True
        return False

    def join_waits(self, scope: int, gateway: str) -> dict[str, dict[int, None]]:
        """The tracks waiting at a join, by the flow they came on (see `reindex`)."""
        return self._join_waits.get((scope, gateway), {})

    def joins_waited_at(self) -> list[tuple[int, str]]:
        return list(self._join_waits)


class Step:
    """One unit of work: what it touched, the events it emitted, and how to undo it."""

    __slots__ = (  # every step makes one: slots make it cheaper to build and to read
        "_event_times",
        "at",
        "called_out",
        "chained",
        "claimed_messages",
        "correlated",
        "data",
        "deliveries",
        "events",
        "head_before",
        "joins",
        "node_began",
        "scopes",
        "sent",
        "stores",
        "subscriptions",
        "tasks",
        "timers",
        "tracks",
        "undoable",
        "values",
    )

    def __init__(self, data: InstanceData) -> None:
        self.data = data
        self.head_before = data.head.snapshot()
        self.tracks: dict[int, Track | None] = {}  # id -> copy before the step (None: new)
        self.scopes: dict[int, Scope | None] = {}
        self.tasks: dict[int, UserTask | None] = {}
        self.timers: dict[int, Timer | None] = {}
        self.subscriptions: dict[int, Subscription | None] = {}
        self.claimed_messages: list[str] = []  # buffered messages this step consumes
        # the outbox: what this step sends, written with it and delivered after the commit
        self.sent: list[Sent] = []
        # outbox rows this step receives, as (outbox id, receiver): unique in the store, so a
        # delivery repeated after a crash cannot commit twice
        self.deliveries: list[tuple[int, str]] = []
        # messages this step correlates, as (message id, name, key, variables): unique ids
        self.correlated: list[tuple[str, str, str | None, dict[str, Any]]] = []
        self.values: dict[tuple[int, str], Any] = {}
        # data stores this step writes (shared by every instance): name -> (value, element);
        # the store writes them in the step's transaction, last writer wins
        self.stores: dict[str, tuple[Any, str]] = {}
        self.joins: list[JoinRecord] = []
        self.events: list[Event] = []
        self.at = 0.0  # when the step was committed (time.time()), for its history rows
        self.undoable = False  # the store keeps its before-images, so it can be rewound
        self._event_times: list[float] | None = None  # per event, once steps are merged
        # a chain of automatic nodes taken as this one step (`runtime/instance/chain.py`):
        # how many nodes it finished before the current one, and whether user code (a
        # listener's handler) ran in it, which a replay of the chain would run again
        self.chained = 0
        self.called_out = False
        self.node_began = 0  # where the current node's events begin in `events`

    # --- recording changes -------------------------------------------------------------
    def touch_track(self, track: Track) -> Track:
        if track.id not in self.tracks:
            self.tracks[track.id] = track.snapshot()
            track.version += 1
        return track

    def new_track(self, **fields: Any) -> Track:
        head = self.data.head
        track = Track(id=head.next_track, seq=self.next_seq(), **fields)
        head.next_track += 1
        self.data.tracks[track.id] = track
        self.tracks[track.id] = None
        if track.status is TrackState.READY:
            self.data.enqueue(track)
        self.data.reindex((track.id,))  # live from now on: listed before the step ends
        return track

    def next_seq(self) -> int:
        seq = self.data.head.next_seq
        self.data.head.next_seq += 1
        return seq

    def requeue(self, track: Track, *, tries_afresh: bool = False) -> None:
        """Make a failed track ready again at the same activation (same seq: the same
        idempotency key for its handler). `tries_afresh`: a job's tries are counted from
        the start again (an operator's retry, as Camunda's "set retries"); else the attempt
        count goes on (a call activity's names its next child)."""
        self.touch_track(track)
        track.move(TrackState.READY)
        track.wait = None
        if tries_afresh:
            track.attempt = 0
        self.data.enqueue(track)

    def ready(self, track: Track, element: str, via: str | None) -> None:
        """Put a track at a node, ready to enter it."""
        self.touch_track(track)
        track.move(TrackState.READY)
        track.element, track.via, track.wait = element, via, None
        head = self.data.head  # `next_seq`, inline: every step readies a track
        track.seq = head.next_seq
        head.next_seq += 1
        track.attempt = 0
        self.data.enqueue(track)

    def new_scope(
        self,
        element: str,
        parent: int | None,
        track: int | None,
        status: ScopeState = ScopeState.ACTIVE,
    ) -> Scope:
        """An activation (`active`), or a compensable activity's snapshot, born `compensable`."""
        head = self.data.head
        scope = Scope(head.next_scope, element, parent, track, status)
        head.next_scope += 1
        self.data.scopes[scope.id] = scope
        self.scopes[scope.id] = None
        return scope

    def touch_scope(self, scope: Scope) -> Scope:
        if scope.id not in self.scopes:
            self.scopes[scope.id] = copy.copy(scope)
            scope.version += 1
        return scope

    def new_task(
        self, track: Track, name: str | None, inputs: dict[str, Any], **fields: Any
    ) -> UserTask:
        head = self.data.head
        task = UserTask(head.next_task, track.id, track.element, name, inputs=inputs, **fields)
        head.next_task += 1
        self.data.tasks[task.id] = task
        self.tasks[task.id] = None
        return task

    def new_timer(self, track: Track, element: str, host: str, **fields: Any) -> Timer:
        head = self.data.head
        timer = Timer(head.next_timer, track.id, element, host, **fields)
        head.next_timer += 1
        self.data.timers[timer.id] = timer
        self.timers[timer.id] = None
        return timer

    def touch_timer(self, timer: Timer) -> Timer:
        if timer.id not in self.timers:
            self.timers[timer.id] = copy.copy(timer)
        return timer

    def new_subscription(
        self, track: Track, element: str, host: str, **fields: Any
    ) -> Subscription:
        head = self.data.head
        subscription = Subscription(head.next_subscription, track.id, element, host, **fields)
        head.next_subscription += 1
        self.data.subscriptions[subscription.id] = subscription
        self.subscriptions[subscription.id] = None
        return subscription

    def touch_subscription(self, subscription: Subscription) -> Subscription:
        if subscription.id not in self.subscriptions:
            self.subscriptions[subscription.id] = copy.copy(subscription)
        return subscription

    def cancel_stale_waits(self) -> None:
        """Timers and subscriptions matter only while their track is live at their host.

        Done once, as the step ends, for every track the step touched: however a track left
        an activity or gateway (completed, interrupted, merged, terminated, failed, or another
        event won the race), what it waited for goes.
        """
        if not self.data.timers and not self.data.subscriptions:
            return  # the common case, on every step: nothing waits, nothing to scan
        touched = set(self.tracks)
        for timer in self.data.timers.values():
            if timer.status is TimerState.WAITING and self._stale(timer, touched):
                self.touch_timer(timer).move(TimerState.CANCELLED)
        for subscription in self.data.subscriptions.values():
            if subscription.status in STILL_WAITING and self._stale(subscription, touched):
                self.touch_subscription(subscription).move(SubscriptionState.CANCELLED)

    def _stale(self, wait: Timer | Subscription, touched: set[int]) -> bool:
        """Whether a wait of a track this step touched is no longer live at its host."""
        if wait.track not in touched:
            return False
        track = self.data.tracks.get(wait.track)
        return (
            track is None
            or not track.live
            or track.status is TrackState.FAILED
            or track.element != wait.host
        )

    def touch_task(self, task: UserTask) -> UserTask:
        if task.id not in self.tasks:
            self.tasks[task.id] = copy.copy(task)
        return task

    def set_value(self, scope: int, name: str, value: Any) -> None:
        bucket = self.data.values.setdefault(scope, {})
        self._remember(scope, name, bucket)
        bucket[name] = value

    def delete_value(self, scope: int, name: str) -> None:
        bucket = self.data.values.setdefault(scope, {})
        self._remember(scope, name, bucket)
        bucket.pop(name, None)

    def _remember(self, scope: int, name: str, bucket: dict[str, Any]) -> None:
        """Keep a variable's value from before the step (values are never changed in place:
        every write stores a fresh JSON-decoded value, so a reference is a faithful copy)."""
        key = (scope, name)
        if key not in self.values:
            self.values[key] = bucket.get(name, _MISSING)

    def write_store(self, name: str, value: Any, element: str) -> None:
        """Write a data store with this step (`value` storable JSON, never changed after)."""
        self.stores[name] = (value, element)

    def add_join(self, scope: int, gateway: str, tracks: list[int]) -> None:
        key = (scope, gateway)
        activation = self.data.joins.get(key, 0) + 1
        self.data.joins[key] = activation
        self.joins.append(JoinRecord(scope, gateway, activation, tracks))

    def receive(self, receipt: Receipt | None) -> None:
        """This step is the delivery `receipt` names (written with it, unique in the store)."""
        if receipt is not None and receipt.delivery is not None:
            self.deliveries.append(receipt.delivery)
        if receipt is not None and receipt.message is not None:
            self.correlated.append(receipt.message)

    @property
    def seen_by_others(self) -> bool:
        """Whether others look for this step in the rows (it sends, receives, or awaits a
        message or signal, or writes a data store): a checkpoint must be taken at once."""
        return bool(
            self.sent or self.deliveries or self.correlated or self.claimed_messages or self.stores
        ) or (bool(self.subscriptions) and None in self.subscriptions.values())

    def set_state(self, state: InstanceState) -> None:
        check_instance(self.data.head.state, state)
        self.data.head.state = state

    def emit(
        self, event: str, element: str | None = None, track: int | None = None, **data: Any
    ) -> Event:
        return self.record(event, element, track, data)

    def record(self, event: str, element: str | None, track: int | None, data: dict) -> Event:
        """`emit` with the data as a dict (the step context's events: no second `**`)."""
        head = self.data.head
        # tuple.__new__ directly: a named tuple's own __new__ is one more Python call
        record = _new_tuple(Event, (head.next_event, event, head.id, element, track, data))
        head.next_event += 1
        self.events.append(record)
        return record

    # --- merging ------------------------------------------------------------------------------
    def absorb(self, later: Step) -> None:
        """Take in the step that followed this one, as if both were one step: each row keeps
        its earliest before-image (what the store compares against and an undo restores),
        events, join firings, what it sent and what it received append."""
        tracks = self.tracks
        for key, before in later.tracks.items():  # every step touches a track: no tuple loop
            if key not in tracks:
                tracks[key] = before
        if later.values:
            values = self.values
            for name, old in later.values.items():
                if name not in values:
                    values[name] = old
        if later.scopes or later.tasks or later.timers or later.subscriptions:
            for mine, theirs in (
                (self.scopes, later.scopes),
                (self.tasks, later.tasks),
                (self.timers, later.timers),
                (self.subscriptions, later.subscriptions),
            ):
                for key, before in theirs.items():
                    mine.setdefault(key, before)  # type: ignore[attr-defined]
        if later.claimed_messages or later.sent or later.deliveries or later.correlated:
            self.claimed_messages += later.claimed_messages
            self.sent += later.sent
            self.deliveries += later.deliveries
            self.correlated += later.correlated
        if later.joins:
            self.joins += later.joins
        for name, written in later.stores.items():
            self.write_store(name, *written)
        if self._event_times is None:
            self._event_times = [self.at] * len(self.events)
        self._event_times += [later.at] * len(later.events)
        self.events += later.events
        self.at = later.at

    def event_times(self) -> list[float]:
        """When each event's step was committed."""
        if self._event_times is None:
            return [self.at] * len(self.events)
        return self._event_times

    def merged_times(self) -> list[float] | None:
        """When each event's step was committed, once steps were merged (None: one step, all
        at `at`)."""
        return self._event_times

    # --- what the store writes ------------------------------------------------------------
    def changed_values(self) -> list[tuple[int, str, Any]]:
        """(scope, name, value) for each variable touched; value is _MISSING when deleted."""
        return [
            (scope, name, self.data.values.get(scope, {}).get(name, _MISSING))
            for scope, name in self.values
        ]

    # --- undo -------------------------------------------------------------------------------
    def rollback(self) -> None:
        """Put memory back exactly as it was before the step."""
        data = self.data
        data.head = self.head_before
        for store, before in (
            (data.tracks, self.tracks),
            (data.scopes, self.scopes),
            (data.tasks, self.tasks),
            (data.timers, self.timers),
            (data.subscriptions, self.subscriptions),
        ):
            for key, old in before.items():
                if old is None:
                    store.pop(key, None)
                else:
                    store[key] = old  # type: ignore[assignment]
        for (scope, name), old in self.values.items():
            bucket = data.values.setdefault(scope, {})
            if old is _MISSING:
                bucket.pop(name, None)
            else:
                bucket[name] = old
        for join in reversed(self.joins):  # a merged step may hold several per gateway
            key = (join.scope, join.gateway)
            data.joins[key] = join.activation - 1
        data.variables = VariableStore(data.scopes, data.values)
        data.rebuild_indexes()


def is_missing(value: Any) -> bool:
    return value is _MISSING
