"""The outbox: what a step sends is written with it and delivered after it, exactly once.

A real crash (os._exit in a child process) between a step's commit and its delivery, or in
the middle of a delivery, loses and doubles nothing: whoever delivers next (`resume`, a
worker, `Engine.deliver_outbox`) delivers each row to each receiver once.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bpmn_engine import ConcurrentModification, Engine
from bpmn_engine.records.rows import Receipt

from ..conftest import HEADER, crash_with

SENDER_AND_RECEIVER = (
    HEADER
    + """
  <message id="M" name="ping"/>
  <signal id="S" name="go"/>
  <process id="receiver" isExecutable="true">
    <startEvent id="rs"/>
    <sequenceFlow id="r1" sourceRef="rs" targetRef="wait"/>
    <intermediateCatchEvent id="wait"><messageEventDefinition messageRef="M"/>
    </intermediateCatchEvent>
    <sequenceFlow id="r2" sourceRef="wait" targetRef="re"/>
    <endEvent id="re"/>
  </process>
  <process id="listener" isExecutable="true">
    <startEvent id="ls"/>
    <sequenceFlow id="l1" sourceRef="ls" targetRef="hear"/>
    <intermediateCatchEvent id="hear"><signalEventDefinition signalRef="S"/>
    </intermediateCatchEvent>
    <sequenceFlow id="l2" sourceRef="hear" targetRef="le"/>
    <endEvent id="le"/>
  </process>
  <process id="sender" isExecutable="true">
    <startEvent id="ss"/>
    <sequenceFlow id="s1" sourceRef="ss" targetRef="send"/>
    <intermediateThrowEvent id="send"><messageEventDefinition messageRef="M"/>
    </intermediateThrowEvent>
    <sequenceFlow id="s2" sourceRef="send" targetRef="shout"/>
    <intermediateThrowEvent id="shout"><signalEventDefinition signalRef="S"/>
    </intermediateThrowEvent>
    <sequenceFlow id="s3" sourceRef="shout" targetRef="se"/>
    <endEvent id="se"/>
  </process>
</definitions>
"""
)

# The child process: receivers wait, the sender runs, and the process dies at `CRASH`.
CHILD = """
import os, sys
from bpmn_engine import ConcurrentModification, Engine
from bpmn_engine.records.rows import Receipt
from bpmn_engine.runtime.engine import outbox
db, path, crash = sys.argv[1], sys.argv[2], sys.argv[3]
engine = Engine(db)
for process in ("receiver", "listener", "listener"):
    engine.start(path, process).run()
real_flush = outbox.Postman.flush
def die_with_rows_pending(self, *args, **kwargs):
    if self.engine.store.pending_outbox():  # a committed step's rows, not yet out
        os._exit(0)
    return real_flush(self, *args, **kwargs)
if crash == "before-delivery":
    outbox.Postman.flush = die_with_rows_pending
elif crash == "after-first-receiver":
    real = outbox.Postman._deliver
    def once_then_die(self, *args, **kwargs):
        result = real(self, *args, **kwargs)
        if getattr(self, "died", None) is not None:
            os._exit(0)
        self.died = True
        return result
    outbox.Postman._deliver = once_then_die
elif crash == "before-finish":
    engine.store.finish_outbox = lambda outbox_id: os._exit(0)
engine.start(path, "sender").run()
"""


def crash_child(tmp_path: Path, crash: str) -> tuple[Path, Path]:
    path = tmp_path / "outbox.bpmn"
    path.write_text(SENDER_AND_RECEIVER)
    return path, crash_with(tmp_path, textwrap.dedent(CHILD), path, crash)


def received(engine: Engine) -> dict[str, list[str]]:
    """Per process: the messages and signals its instances received, in history order."""
    found: dict[str, list[str]] = {}
    for row in engine.instances():
        instance = engine.instance(row["id"])
        events = [e.data["name"] for e in instance.history() if e.event.endswith(".received")]
        found.setdefault(row["process"], []).extend(events)
    return found


def states(engine: Engine) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in engine.instances():
        found.setdefault(row["process"], []).append(engine.instance(row["id"]).outcome().state)
    return found


@pytest.mark.parametrize("crash", ["before-delivery", "after-first-receiver", "before-finish"])
def test_a_crash_around_delivery_loses_and_doubles_nothing(tmp_path: Path, crash: str) -> None:
    _, db = crash_child(tmp_path, crash)
    engine = Engine(db)
    assert engine.store.pending_outbox(), "the crash left the outbox undelivered"
    assert engine.deliver_outbox() >= 1
    assert engine.deliver_outbox() == 0  # nothing left: a second pass delivers nothing
    assert Engine(db).deliver_outbox() == 0
    for row in engine.instances():  # what a worker does next: the crash stopped some mid-run
        if row["state"] == "active":
            engine.instance(row["id"]).run()
    assert received(engine) == {"receiver": ["ping"], "listener": ["go", "go"], "sender": []}
    assert states(engine) == {
        "receiver": ["completed"],
        "listener": ["completed", "completed"],
        "sender": ["completed"],
    }


def test_resume_of_the_sender_delivers_what_a_crash_left(tmp_path: Path) -> None:
    _, db = crash_child(tmp_path, "before-delivery")
    engine = Engine(db)
    [sender] = [r["id"] for r in engine.instances() if r["process"] == "sender"]
    engine.instance(sender).run()
    assert received(engine) == {"receiver": ["ping"], "listener": ["go", "go"], "sender": []}
    assert engine.store.pending_outbox() == []


def test_a_sent_message_is_an_outbox_row_in_the_senders_step(tmp_path: Path) -> None:
    path = tmp_path / "outbox.bpmn"
    path.write_text(SENDER_AND_RECEIVER)
    engine = Engine(tmp_path / "o.db")
    receiver = engine.start(path, "receiver")
    receiver.run()
    engine.start(path, "sender").run()
    rows = engine.store.conn.execute(  # type: ignore[attr-defined]
        "SELECT kind, name, status FROM outbox ORDER BY id"
    ).fetchall()
    assert rows == [("message", "ping", "delivered"), ("signal", "go", "delivered")]
    assert engine.message_status("outbox-1") == ("correlated", receiver.id)
    assert engine.instance(receiver.id).outcome().state == "completed"


def test_a_delivery_repeated_by_a_second_process_cannot_commit(tmp_path: Path) -> None:
    """Two deliverers race for one row: the receiver's step records a unique receipt."""
    _, db = crash_child(tmp_path, "before-delivery")
    first, second = Engine(db), Engine(db)
    [row] = [r for r in first.store.pending_outbox() if r["kind"] == "message"]
    [(instance_id, subscription_id)] = first.store.waiting_subscriptions("message", "ping")
    receipt = Receipt(message=(f"outbox-{row['id']}", "ping", None, {}))
    stale = second.instance(instance_id)  # loaded before the first delivery commits
    first.instance(instance_id).deliver(subscription_id, receipt=receipt)
    with pytest.raises(ConcurrentModification):
        stale.deliver(subscription_id, receipt=receipt)
    assert received(first)["receiver"] == ["ping"]


def test_a_row_that_cannot_be_delivered_is_set_aside_and_blocks_nothing(tmp_path: Path) -> None:
    """A signal whose deployed receiver cannot start (its script needs --trust-scripts that
    this engine does not have) is set aside with the reason; later rows still go out."""
    path = tmp_path / "outbox.bpmn"
    path.write_text(SENDER_AND_RECEIVER)
    starter = tmp_path / "starter.bpmn"
    starter.write_text(
        HEADER
        + """
  <signal id="S" name="go"/>
  <process id="started" isExecutable="true">
    <startEvent id="s"><signalEventDefinition signalRef="S"/></startEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <scriptTask id="t" scriptFormat="python"><script>import os</script></scriptTask>
  </process>
</definitions>
"""
    )
    Engine(tmp_path / "o.db", trust_scripts=True).deploy_processes(starter)
    engine = Engine(tmp_path / "o.db")  # a worker that does not trust scripts
    receiver = engine.start(path, "receiver")
    receiver.run()
    assert engine.start(path, "sender").run().state == "completed"
    [failed] = engine.store.failed_outbox()
    assert (failed["kind"], failed["name"]) == ("signal", "go")
    assert "import" in failed["error"]
    assert engine.store.pending_outbox() == []
    assert engine.instance(receiver.id).outcome().state == "completed"  # the message went
