"""The store contract: what every store must do, whatever it is built on.

The runtime talks to stores only through `bpmn_engine.runtime.storage.Store`. These tests
drive that protocol directly, with records built by hand, so a second store (PostgreSQL)
adds itself to `STORES` and must pass the same suite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bpmn_engine.errors import ConcurrentModification, UsageError
from bpmn_engine.records.data import InstanceData, InstanceHead, Step
from bpmn_engine.records.lifecycle import InstanceState, ScopeState, TrackState
from bpmn_engine.records.rows import CONSUMED, JOB, Receipt, Sent
from bpmn_engine.runtime.storage import Store
from bpmn_engine.store import SqliteStore, open_store
from tests.postgresql_server import fresh_url

STORES: dict[str, Callable[[Path], Store]] = {
    "sqlite-memory": lambda tmp: SqliteStore(":memory:"),
    "sqlite-file": lambda tmp: SqliteStore(tmp / "contract.db"),
    "postgresql": lambda tmp: open_store(fresh_url()),
}
VERSION = "v" * 64
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=sorted(STORES))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = STORES[request.param](tmp_path)
    opened.save_definition(VERSION, "contract.bpmn", b"<definitions/>")
    yield opened
    opened.close()


def new_instance(store: Store, instance_id: str = "i-1") -> InstanceData:
    """An instance as the runtime starts one: head, root scope, a ready track, a variable."""
    data = InstanceData(InstanceHead(instance_id, VERSION, "process"))
    step = Step(data)
    step.set_state(InstanceState.ACTIVE)
    scope = step.new_scope("process", None, None)
    step.new_track(element="start", scope=scope.id, status=TrackState.READY)
    step.set_value(scope.id, "amount", 12)
    step.emit("instance.started", "process")
    store.commit(step, new_instance=True)
    return data


def test_the_store_implements_the_protocol(store: Store) -> None:
    assert isinstance(store, Store)


def test_an_instance_is_rebuilt_from_its_rows_alone(store: Store) -> None:
    data = new_instance(store)
    step = Step(data)
    track = step.touch_track(data.tracks[1])
    track.move(TrackState.EXECUTING)
    track.move(TrackState.WAITING)
    track.element, track.wait = "review", "user task"
    task = step.new_task(track, "Review", {"amount": 12})
    step.new_timer(track, "deadline", "review", due=NOW.isoformat())
    step.new_subscription(track, "cancel", "review", kind="message", name="cancel", key="A-1")
    step.set_value(1, "nested", {"a": [1, 2, None], "b": "ü"})
    step.emit("element.waiting", "review", track.id)
    store.commit(step)

    loaded = store.load("i-1")
    assert loaded.head == data.head
    assert loaded.tracks == data.tracks
    assert loaded.scopes == data.scopes
    assert loaded.values == data.values
    assert loaded.tasks[task.id] == task
    assert loaded.timers == data.timers
    assert loaded.subscriptions == data.subscriptions
    assert [(e.seq, e.event, e.element) for e in store.history("i-1")] == [
        (1, "instance.started", "process"),
        (2, "element.waiting", "review"),
    ]
    assert store.definition_of("i-1") == VERSION
    assert store.definition_source(VERSION) == ("contract.bpmn", b"<definitions/>")


def test_compensation_records_keep_their_order_state_and_variables(store: Store) -> None:
    """Compensation lives in scope rows (runtime/events/compensation.py): a store must give
    back each record's state as the last step left it, its variables, and every id, so a
    resumed instance compensates the same activities in the same order."""
    data = new_instance(store)
    step = Step(data)
    records = []
    for element, item in (("book", "Oslo"), ("book", "Rome"), ("pay", None)):
        record = step.new_scope(element, 1, 1, ScopeState.COMPENSABLE)
        step.set_value(record.id, "city", item)
        records.append(record)
    store.commit(step)
    step = Step(data)
    step.touch_scope(records[2]).move(ScopeState.COMPENSATED)
    step.touch_scope(records[1]).move(ScopeState.COMPENSATING)
    run = step.new_scope("process", records[1].id, 1)
    store.commit(step)

    loaded = store.load("i-1")
    assert loaded.scopes == data.scopes
    assert sorted((s.id, s.element, s.status) for s in loaded.scopes.values() if s.parent == 1) == [
        (2, "book", ScopeState.COMPENSABLE),
        (3, "book", ScopeState.COMPENSATING),
        (4, "pay", ScopeState.COMPENSATED),
    ]
    assert all(type(s.status) is ScopeState for s in loaded.scopes.values())
    assert loaded.scopes[run.id].parent == records[1].id
    assert loaded.values[records[1].id] == {"city": "Rome"}
    assert loaded.values[records[2].id] == {"city": None}


def test_a_step_on_stale_rows_fails_whole_and_changes_nothing(store: Store) -> None:
    new_instance(store)
    first, second = store.load("i-1"), store.load("i-1")
    step = Step(first)
    step.touch_track(first.tracks[1]).element = "one"
    store.commit(step)
    late = Step(second)
    late.touch_track(second.tracks[1]).element = "two"
    late.set_value(1, "amount", 99)
    late.emit("element.activated", "two", 1)
    with pytest.raises(ConcurrentModification):
        store.commit(late)
    again = store.load("i-1")
    assert again.tracks[1].element == "one"
    assert again.values[1]["amount"] == 12
    assert len(store.history("i-1")) == 1


def test_two_steps_from_the_same_rows_commit_once(store: Store) -> None:
    """Two processes fire the same join activation from the same rows: one wins."""
    new_instance(store)
    first, second = store.load("i-1"), store.load("i-1")
    for data in (first, second):
        step = Step(data)
        step.add_join(1, "join", [1])
        if data is first:
            store.commit(step)
        else:
            with pytest.raises(ConcurrentModification):
                store.commit(step)
    assert store.load("i-1").joins == {(1, "join"): 1}


def test_instances_are_found_by_a_unique_prefix(store: Store) -> None:
    new_instance(store, "abc123")
    new_instance(store, "abd456")
    assert store.resolve("abc") == "abc123"
    assert store.instance_exists("abd456")
    with pytest.raises(UsageError, match="ambiguous"):
        store.resolve("ab")
    with pytest.raises(UsageError, match="no instance"):
        store.resolve("zz")
    assert [r["id"] for r in store.list_instances()] == ["abc123", "abd456"]


def test_a_called_instance_names_its_caller(store: Store) -> None:
    new_instance(store, "parent")
    data = InstanceData(InstanceHead("child", VERSION, "called"))
    data.head.parent_instance, data.head.parent_track, data.head.call_depth = "parent", 1, 1
    step = Step(data)
    step.set_state(InstanceState.ACTIVE)
    step.new_scope("called", None, None)
    store.commit(step, new_instance=True)
    assert store.load("child").head == data.head
    assert store.child_instances("parent") == ["child"]
    assert store.child_instances("child") == []
    rows = {r["id"]: r for r in store.list_instances()}
    assert (rows["child"]["parent_instance"], rows["child"]["parent_track"]) == ("parent", 1)
    assert rows["parent"]["parent_instance"] is None


def test_called_instances_are_listed_in_the_order_they_were_called(store: Store) -> None:
    """Children called in one instant (a parallel multi-instance call) keep their order."""
    new_instance(store, "parent")
    at = datetime(2026, 1, 1, tzinfo=UTC)
    for child in ("c3", "c1", "c2"):
        data = InstanceData(InstanceHead(child, VERSION, "called"))
        data.head.parent_instance, data.head.parent_track, data.head.call_depth = "parent", 1, 1
        step = Step(data)
        step.at = at.timestamp()  # one millisecond: the same created_at
        step.set_state(InstanceState.ACTIVE)
        store.commit(step, new_instance=True)
    assert store.child_instances("parent") == ["c3", "c1", "c2"]


def called(store: Store, child: str, parent: str, root: str, sent: tuple[Sent, ...] = ()) -> None:
    """A called instance as `start_child` commits it (its tree's root named), sending `sent`."""
    data = InstanceData(InstanceHead(child, VERSION, "called", root=root))
    data.head.parent_instance, data.head.parent_track, data.head.call_depth = parent, 1, 1
    step = Step(data)
    step.set_state(InstanceState.ACTIVE)
    step.new_scope("called", None, None)
    step.sent.extend(sent)
    store.commit(step, new_instance=True)


def test_a_call_tree_is_counted_with_the_children_its_pending_calls_will_start(
    store: Store,
) -> None:
    new_instance(store, "root")
    new_instance(store, "other")  # a tree of its own
    assert store.load("root").head.root == "root"
    called(store, "child", "root", "root")
    called(store, "grandchild", "child", "root")
    called(store, "elsewhere", "other", "other")
    assert store.load("grandchild").head.root == "root"
    assert (store.call_tree_size("root"), store.call_tree_size("other")) == (3, 2)
    # a step of the tree asks for two more children: counted before they exist
    calls = tuple(Sent("call", "called", key, {"child": key, "track": 1}) for key in ("c1", "c2"))
    called(store, "caller", "child", "root", calls)
    assert store.call_tree_size("root") == 6
    # one delivered (its child exists, the row not yet finished): counted once
    called(store, "c1", "caller", "root")
    assert store.call_tree_size("root") == 6
    for row in store.pending_outbox():
        if row["key"] == "c1":
            store.finish_outbox(row["id"])
        else:
            store.fail_outbox(row["id"], "its process could not start")
    assert store.call_tree_size("root") == 5  # the failed row starts nobody
    assert store.call_tree_size("nobody") == 0


def test_definitions_are_listed_newest_first(store: Store) -> None:
    store.save_definition("w" * 64, "newer.bpmn", b"<definitions/>")
    assert store.definition_versions() == ["w" * 64, VERSION]


def test_a_compiled_form_is_kept_once_per_version_and_replaced(store: Store) -> None:
    assert store.compiled_definition(VERSION) is None
    assert store.compiled_format(VERSION) is None
    store.save_compiled_definition(VERSION, "1-old", b"\x00\xffform")
    assert store.compiled_definition(VERSION) == ("1-old", b"\x00\xffform")
    store.save_compiled_definition(VERSION, "2-new", b"other form")
    assert store.compiled_definition(VERSION) == ("2-new", b"other form")
    assert store.compiled_format(VERSION) == "2-new"
    assert store.definition_versions() == [VERSION]


def test_what_a_step_sends_is_pending_until_finished(store: Store) -> None:
    data = new_instance(store)
    step = Step(data)
    step.sent.append(Sent("message", "ping", "A-1", {"x": 1}))
    step.sent.append(Sent("signal", "go"))
    step.emit("message.sent", "send", 1)
    store.commit(step)
    pending = store.pending_outbox()
    assert [(r["kind"], r["name"], r["key"], r["variables"]) for r in pending] == [
        ("message", "ping", "A-1", {"x": 1}),
        ("signal", "go", None, {}),
    ]
    assert store.pending_outbox("someone-else") == []
    store.finish_outbox(pending[0]["id"])
    store.finish_outbox(pending[0]["id"])  # idempotent
    assert [r["name"] for r in store.pending_outbox("i-1")] == ["go"]


def test_a_receipt_commits_once(store: Store) -> None:
    new_instance(store, "receiver")
    first, second = store.load("receiver"), store.load("receiver")
    receipt = Receipt(delivery=(7, "receiver/1"), message=("m-1", "ping", None, {}))
    step = Step(first)
    step.receive(receipt)
    step.emit("message.received", "wait", 1)
    store.commit(step)
    assert store.delivered_to(7) == {"receiver/1"}
    assert store.message_status("m-1") == ("correlated", "receiver")
    again = Step(second)
    again.receive(Receipt(delivery=(7, "receiver/1")))
    with pytest.raises(ConcurrentModification):
        store.commit(again)


def test_a_message_is_buffered_only_when_nobody_waits(store: Store) -> None:
    expires = (NOW + timedelta(hours=1)).isoformat()
    assert store.buffer_unless_awaited("m-1", "ping", "A-1", {"x": 1}, expires) == []
    assert store.message_seen("m-1")
    assert store.message_status("m-1") == ("buffered", None)
    assert store.buffered_message("ping", "A-1", NOW.isoformat()) == ("m-1", {"x": 1})
    assert store.buffered_message("ping", "B-2", NOW.isoformat()) is None
    later = (NOW + timedelta(hours=2)).isoformat()
    assert store.buffered_message("ping", "A-1", later) is None  # expired

    data = new_instance(store)
    step = Step(data)
    track = step.touch_track(data.tracks[1])
    track.move(TrackState.EXECUTING)
    track.move(TrackState.WAITING)
    step.new_subscription(track, "wait", "start", kind="message", name="ping", key="A-1")
    store.commit(step)
    assert store.waiting_subscriptions("message", "ping", "A-1") == [("i-1", 1)]
    assert store.waiting_subscriptions("message", "ping", "B-2") == []
    assert store.buffer_unless_awaited("m-2", "ping", "A-1", {}, expires) == [("i-1", 1)]
    assert not store.message_seen("m-2")  # someone waits: not buffered


def test_a_buffered_message_is_claimed_once(store: Store) -> None:
    expires = (NOW + timedelta(hours=1)).isoformat()
    store.buffer_unless_awaited("m-1", "ping", None, {}, expires)
    new_instance(store, "a")
    new_instance(store, "b")
    for instance_id, wins in (("a", True), ("b", False)):
        step = Step(store.load(instance_id))
        step.claimed_messages.append("m-1")
        step.emit("message.received", "wait", 1)
        if wins:
            store.commit(step)
        else:
            with pytest.raises(ConcurrentModification):
                store.commit(step)
    assert store.message_status("m-1") == ("correlated", "a")


def test_an_expired_message_is_recorded_once(store: Store) -> None:
    store.record_message("m-1", "ping", None, {}, NOW.isoformat(), "expired")
    store.record_message("m-1", "ping", None, {}, NOW.isoformat(), "expired")
    assert store.message_status("m-1") == ("expired", None)


def test_a_deployment_replaces_the_previous_version(store: Store) -> None:
    timers = [("tick", NOW, 2, 60.0)]
    first, previous, changed = store.record_deployment(
        "p", VERSION, NOW, timers, [("on-ping", "ping")], [("on-go", "go")]
    )
    assert (previous, changed) == (None, True)
    assert store.record_deployment("p", VERSION, NOW, timers, [], []) == (first, first, False)
    assert store.message_start("ping") == ("p", VERSION, "on-ping")
    assert store.signal_starts("go") == [("p", VERSION, "on-go")]
    [due] = store.due_start_timers(NOW)
    assert due[:5] == (due[0], first, "p", VERSION, "tick")
    assert store.due_start_timers(NOW - timedelta(seconds=1)) == []
    assert store.advance_start_timer(due[0], due[5], NOW + timedelta(minutes=1), 1)
    assert not store.advance_start_timer(due[0], due[5], NOW + timedelta(minutes=1), 1)
    assert [d for d, _ in store.start_timers_by_due()] == [
        (NOW + timedelta(minutes=1)).isoformat(timespec="microseconds")
    ]

    store.save_definition("w" * 64, "contract.bpmn", b"<definitions/>")
    second, previous, changed = store.record_deployment("p", "w" * 64, NOW, [], [], [])
    assert (previous, changed) == (first, True)
    assert store.message_start("ping") is None
    assert [d["id"] for d in store.deployments()] == [second]
    assert store.start_timers(first)[0]["status"] == "cancelled"


def test_decision_sets_are_kept_and_the_deployed_ones_come_first(store: Store) -> None:
    assert store.decision_sets() == []
    assert store.save_decision_set("a" * 64, ["a.dmn"], b"first", deployed=False) is True
    assert store.save_decision_set("b" * 64, ["b.dmn"], b"second", deployed=False) is True
    assert store.save_decision_set("a" * 64, ["a.dmn"], b"first", deployed=False) is False
    assert store.decision_sets() == [("b" * 64, b"second"), ("a" * 64, b"first")]
    assert store.save_decision_set("a" * 64, ["a.dmn"], b"first", deployed=True) is True
    assert store.save_decision_set("a" * 64, ["a.dmn"], b"first", deployed=True) is False
    assert store.decision_sets() == [("a" * 64, b"first"), ("b" * 64, b"second")]


def test_work_is_found_in_the_rows(store: Store) -> None:
    new_instance(store, "ready")
    data = new_instance(store, "timed")
    step = Step(data)
    track = step.touch_track(data.tracks[1])
    track.move(TrackState.EXECUTING)
    track.move(TrackState.WAITING)
    step.new_timer(track, "t", "start", due=(NOW + timedelta(minutes=5)).isoformat())
    store.commit(step)
    assert store.runnable_instances(NOW) == ["ready"]
    assert store.runnable_instances(NOW + timedelta(minutes=5)) == ["ready", "timed"]
    [(_due, repeat, version, element)] = list(store.waiting_timers_by_due())
    assert (repeat, version, element) == (0, VERSION, "t")


def test_the_join_sweep_finds_a_complex_gateway_waiting_for_reset(store: Store) -> None:
    # given: an instance whose only track is a complex gateway's record of a consumed token
    data = new_instance(store, "resetting")
    step = Step(data)
    track = step.touch_track(data.tracks[1])
    track.move(TrackState.EXECUTING)
    track.move(TrackState.WAITING)
    track.wait = CONSUMED
    store.commit(step)
    # then: only a step can re-check whether the gateway may reset: the sweep lists it
    assert store.runnable_instances(NOW) == []
    assert store.runnable_instances(NOW, joins=True) == ["resetting"]


def waiting_as(store: Store, instance_id: str, element: str, wait: str) -> Step:
    """A new instance whose track waits at `element` for `wait`, committed; the step that
    made it (to go on from)."""
    data = new_instance(store, instance_id)
    step = Step(data)
    track = step.touch_track(data.tracks[1])
    track.move(TrackState.EXECUTING)
    track.move(TrackState.WAITING)
    track.element, track.wait = element, wait
    store.commit(step)
    return step


def test_waiting_jobs_are_the_service_tasks_of_active_instances_waiting_for_a_handler(
    store: Store,
) -> None:
    # given: jobs waiting in two instances (one of them with two), a user task, a track
    # waiting as a job in an instance that failed, and a job a worker is running
    waiting_as(store, "b-job", "charge", JOB)
    waiting_as(store, "c-user", "review", "user task")
    data = new_instance(store, "a-jobs")
    step = Step(data)
    first = step.touch_track(data.tracks[1])
    first.move(TrackState.EXECUTING)
    first.move(TrackState.WAITING)
    first.element, first.wait = "ship", JOB
    step.new_track(element="bill", scope=1, status=TrackState.WAITING).wait = JOB
    store.commit(step)
    failed = waiting_as(store, "d-failed", "charge", JOB)
    failing = Step(failed.data)
    failing.set_state(InstanceState.FAILED)
    store.commit(failing)
    running = waiting_as(store, "e-running", "charge", JOB)
    claim = Step(running.data)
    claim.touch_track(running.data.tracks[1]).move(TrackState.EXECUTING)
    store.commit(claim)
    # then: each job of an active instance, by instance and track
    assert store.waiting_jobs() == [
        ("a-jobs", VERSION, "ship"),
        ("a-jobs", VERSION, "bill"),
        ("b-job", VERSION, "charge"),
    ]


def test_a_claimed_job_is_leased_renewed_and_released(store: Store) -> None:
    data = new_instance(store)
    step = Step(data)
    step.touch_track(data.tracks[1]).move(TrackState.EXECUTING)
    store.commit(step)  # the claim and its lease go with the track
    assert not store.live_claim("i-1", 1)  # held by this very process: an orphan to it
    other = store.another()
    other.worker = "elsewhere:1"
    try:
        if store.path != ":memory:":
            assert other.live_claim("i-1", 1)  # someone alive on another host holds it
        assert store.heartbeat("i-1", 1, 60.0)
        assert not other.heartbeat("i-1", 1, 60.0)  # not its claim
        store.heartbeat("i-1", 1, -1.0)  # the lease ran out
        if store.path != ":memory:":
            assert not other.live_claim("i-1", 1)
            assert other.release_expired_leases() == 1
            assert other.release_expired_leases() == 0
    finally:
        other.close()


def test_a_recorded_step_rewinds_to_the_rows_before_it(store: Store) -> None:
    data = new_instance(store)
    head = store.load("i-1").head
    before = store.snapshot("i-1")
    step = Step(data)
    step.undoable = True
    step.touch_track(data.tracks[1]).element = "moved"
    step.set_value(1, "amount", 13)
    step.set_value(1, "added", [1])
    step.emit("element.activated", "moved", 1)
    store.commit(step)
    assert store.undoable_steps("i-1") == 1
    store.rewind("i-1", 1)
    after = store.snapshot("i-1")
    assert {k: v for k, v in after.items() if k != "instances"} == {
        k: v for k, v in before.items() if k != "instances"
    }
    rewound = store.load("i-1").head
    assert rewound.version == head.version + 2  # moved on: a copy from before cannot commit
    rewound.version = head.version
    assert rewound == head
    with pytest.raises(UsageError, match="at most 0 steps"):
        store.rewind("i-1", 1)


def test_a_rewound_claim_leaves_the_track_unclaimed_on_every_store(store: Store) -> None:
    """The step that claimed a job is taken back whole: the track is ready again, and no
    claim (holder, lease, heartbeat) of the job is left on it, whatever the store."""
    data = new_instance(store)
    before = store.snapshot("i-1", with_history=False)
    step = Step(data)
    step.undoable = True
    step.touch_track(data.tracks[1]).move(TrackState.EXECUTING)
    step.emit("job.started", "start", 1)
    store.commit(step)
    assert store.snapshot("i-1", with_history=False)["tracks"] != before["tracks"]  # claimed
    store.rewind("i-1", 1)
    after = store.snapshot("i-1", with_history=False)
    assert after["tracks"] == before["tracks"]
    assert store.load("i-1").tracks[1].status is TrackState.READY


def test_data_stores_are_written_with_the_step_last_writer_wins(store: Store) -> None:
    # given: two instances; each step writes the store "shared"
    first, second = new_instance(store, "i-1"), new_instance(store, "i-2")
    stale = store.load("i-1")  # a copy of i-1 its next step will leave behind
    assert store.data_store("shared") is None
    for data, value, element in ((first, {"n": 1}, "a"), (second, [2], "b")):
        step = Step(data)
        step.touch_track(data.tracks[1])
        step.write_store("shared", value, element)
        store.commit(step)
    # when a step that writes it fails its compare-and-set
    late = Step(stale)
    late.touch_track(stale.tracks[1])
    late.write_store("shared", "lost", "c")
    with pytest.raises(ConcurrentModification):
        store.commit(late)
    # then: the last committed write is the value, and the failed step wrote nothing
    found = store.data_store("shared")
    assert found is not None
    assert (found.name, found.value, found.instance, found.element, found.writes) == (
        "shared",
        [2],
        "i-2",
        "b",
        2,
    )
    assert found.written_at
    assert store.data_stores() == [found]


def test_a_rewind_puts_a_store_back_unless_someone_wrote_it_since(store: Store) -> None:
    first, second = new_instance(store, "i-1"), new_instance(store, "i-2")
    for data, value in ((first, 1), (second, 2)):
        step = Step(data)
        step.undoable = True
        step.touch_track(data.tracks[1])
        step.write_store("shared", value, "w")
        store.commit(step)
    with pytest.raises(UsageError, match="data store 'shared': the store was written since"):
        store.rewind("i-1", 1)
    assert store.data_store("shared").value == 2  # type: ignore[union-attr]
    store.rewind("i-2", 1)
    assert store.data_store("shared").value == 1  # type: ignore[union-attr]
    store.rewind("i-1", 1)
    assert store.data_store("shared") is None  # it wrote the store first: no store again


def wait_at(store: Store, instance_id: str, wait: str) -> Step:
    """A new instance whose one track waits (`wait`); the step, uncommitted, to add rows to."""
    data = new_instance(store, instance_id)
    step = Step(data)
    track = step.touch_track(data.tracks[1])
    track.move(TrackState.EXECUTING)
    track.move(TrackState.WAITING)
    track.element, track.wait = "here", wait
    return step


def test_stuck_instances_are_active_with_nothing_to_run_and_nothing_awaited(store: Store) -> None:
    new_instance(store, "i-ready")  # a ready track: it can run
    step = wait_at(store, "i-task", "user task")
    step.new_task(step.data.tracks[1], "Review", {})
    store.commit(step)
    step = wait_at(store, "i-timer", "timer")
    step.new_timer(step.data.tracks[1], "deadline", "here", due=NOW.isoformat())
    store.commit(step)
    store.commit(wait_at(store, "i-join", "join"))  # its partner token will never come
    store.commit(wait_at(store, "i-lost-timer", "timer"))  # its timer row is gone
    store.commit(wait_at(store, "i-ad-hoc", "ad-hoc"))  # waits for `bpmn activate`
    ended = wait_at(store, "i-ended", "join")
    ended.set_state(InstanceState.FAILED)
    store.commit(ended)

    assert store.stuck_instances() == ["i-join", "i-lost-timer"]
