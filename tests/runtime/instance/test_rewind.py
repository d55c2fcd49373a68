"""Rewinding from the undo log: the inverse of the last steps, from their before-images.

An engine with `undo=True` (what `bpmn step` uses) keeps each step's before-images; rewinding
puts the rows back exactly, in one transaction, also from another engine after reopening.
It refuses, changing nothing, past a step that sent what someone else already received.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import ConcurrentModification, Engine, UsageError
from bpmn_engine.runtime.clock import VirtualClock
from tests.conftest import FIXTURES
from tests.runtime.conftest import HEADER

LEASE_COLUMNS = 3  # a track row ends with claimed_by, lease_until, heartbeat_at


def rows(engine: Engine, instance_id: str) -> dict[str, Any]:
    """Every row of the instance, but for what a rewind must change: the head's version and
    its update time (so a copy loaded before cannot commit), the jobs' claims, and when
    each history event happened (a run forward again happens later)."""
    found = engine.store.snapshot(instance_id)
    columns = [c[1] for c in engine.store.conn.execute("PRAGMA table_info(instances)")]
    keep = [i for i, c in enumerate(columns) if c not in ("version", "updated_at")]
    found["instances"] = [tuple(r[i] for i in keep) for r in found["instances"]]
    found["tracks"] = sorted(r[:-LEASE_COLUMNS] for r in found["tracks"])
    found["history"] = sorted(r[:-1] for r in found["history"])  # when it happened aside
    return {table: sorted(map(repr, values)) for table, values in found.items()}


def test_each_step_rewinds_to_exactly_the_rows_before_it(tmp_path: Path) -> None:
    """A fork, a subprocess, a join, variables and a user task: step forward recording the
    rows, then rewind one step at a time and find each recorded state again."""
    engine = Engine(tmp_path / "r.db", undo=True, clock=VirtualClock())
    instance = engine.start(FIXTURES / "fork-and-subprocess.bpmn", variables={"amount": 3})
    seen = [rows(engine, instance.id)]
    while instance.step_once():
        seen.append(rows(engine, instance.id))
    assert len(seen) > 8
    assert engine.store.undoable_steps(instance.id) == len(seen) - 1
    for expected in reversed(seen[:-1]):
        instance = engine.rewind(instance.id)
        assert rows(engine, instance.id) == expected
    with pytest.raises(UsageError, match="at most 0 steps"):
        engine.rewind(instance.id)
    # and forward again: the same run, deterministically
    while instance.step_once():
        pass
    assert rows(engine, instance.id) == seen[-1]


def test_a_rewind_survives_closing_and_reopening(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    first = Engine(db, undo=True)
    instance = first.start(FIXTURES / "fork-and-subprocess.bpmn", variables={"amount": 3})
    before = rows(first, instance.id)
    instance.step_once()
    instance.step_once()
    first.close()
    second = Engine(db)  # another process, without the log itself: it can still go back
    reopened = second.rewind(instance.id[:6], 2)
    assert rows(second, reopened.id) == before


def test_a_copy_loaded_before_the_rewind_cannot_commit(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "r.db", undo=True)
    instance = engine.start(FIXTURES / "fork-and-subprocess.bpmn", variables={"amount": 3})
    instance.step_once()
    stale = engine.instance(instance.id)
    engine.rewind(instance.id)
    with pytest.raises(ConcurrentModification):
        stale.step_once()


def test_steps_taken_without_the_log_are_never_skipped_over(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    instance = Engine(db, undo=True).start(
        FIXTURES / "fork-and-subprocess.bpmn", variables={"amount": 3}
    )
    instance.step_once()
    Engine(db).instance(instance.id).step_once()  # a run that kept no before-images
    with pytest.raises(UsageError, match="at most 0 steps"):
        Engine(db).rewind(instance.id)


PING = (
    HEADER
    + """
  <message id="M" name="ping"/>
  <process id="receiver" isExecutable="true">
    <startEvent id="rs"/>
    <sequenceFlow id="r1" sourceRef="rs" targetRef="wait"/>
    <intermediateCatchEvent id="wait"><messageEventDefinition messageRef="M"/>
    </intermediateCatchEvent>
    <sequenceFlow id="r2" sourceRef="wait" targetRef="re"/>
    <endEvent id="re"/>
  </process>
  <process id="sender" isExecutable="true">
    <startEvent id="ss"/>
    <sequenceFlow id="s1" sourceRef="ss" targetRef="send"/>
    <intermediateThrowEvent id="send"><messageEventDefinition messageRef="M"/>
    </intermediateThrowEvent>
    <sequenceFlow id="s2" sourceRef="send" targetRef="se"/>
    <endEvent id="se"/>
  </process>
</definitions>
"""
)


def test_back_past_a_message_another_instance_received_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ping.bpmn"
    path.write_text(PING)
    engine = Engine(tmp_path / "r.db", undo=True)
    receiver = engine.start(path, "receiver")
    receiver.run()
    sender = engine.start(path, "sender")
    sender.step_once()  # the start event
    sender.step_once()  # the throw: the receiver is woken and runs to its end
    assert engine.instance(receiver.id).outcome().state == "completed"
    before = (rows(engine, sender.id), rows(engine, receiver.id))
    with pytest.raises(UsageError, match=f"instance {receiver.id} already received"):
        engine.rewind(sender.id)
    assert (rows(engine, sender.id), rows(engine, receiver.id)) == before


def test_back_past_a_message_nobody_received_withdraws_it(tmp_path: Path) -> None:
    path = tmp_path / "ping.bpmn"
    path.write_text(PING)
    engine = Engine(tmp_path / "r.db", undo=True)
    sender = engine.start(path, "sender")
    sender.step_once()
    sender.step_once()  # nobody waits: the message is buffered for an hour
    assert engine.message_status("outbox-1") == ("buffered", None)
    engine.rewind(sender.id)
    assert engine.message_status("outbox-1") is None
    receiver = engine.start(path, "receiver")
    assert receiver.run().state == "waiting"  # nothing was sent after all
